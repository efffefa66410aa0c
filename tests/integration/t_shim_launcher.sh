# The launcher with the shim: denial lines, audit records, the log the
# command cannot reach, a real process tree.

# record_field FILE N KEY: KEY of the Nth record (1-based) of FILE.
record_field() {
	python3 -c 'import json,sys; r=[json.loads(l) for l in open(sys.argv[1])]; print(r[int(sys.argv[2])-1][sys.argv[3]])' "$@"
}

test_shim_denial_line_names_the_flag() {
	echo s3cr3t > "$T/out/secret"
	cordon --log "$T/log" -- cat "$T/out/secret"
	assert_status 1
	assert_stdout_lacks s3cr3t
	assert_stderr_has "cordon: denied read $T/out/secret \[open\] (outside the readable roots"
	assert_stderr_has "allow with --read $T/out/secret$"
	assert_stderr_has "cordon: 1 denial reported by the command's processes (the shim), recorded in $T/log"
	cordon --log "$T/log" -r "$T/out" -- cat "$T/out/secret"
	assert_status 0
	assert_stdout_has s3cr3t
}

test_shim_relative_path_is_shown_as_given_and_resolved() {
	cordon --log "$T/log" -- sh -c 'echo x > ../out/new'
	assert_status_not 0
	assert_absent "$T/out/new"
	assert_stderr_has "cordon: denied write ../out/new ($T/out/new) \[open64\]"
	assert_stderr_has "allow with --write $T/out$"
}

test_shim_audit_record_has_every_field() {
	echo s3cr3t > "$T/out/secret"
	cordon --log "$T/log" -- cat "$T/out/secret"
	[ "$(wc -l < "$T/log")" -eq 1 ] || fail "expected one record"
	for k in time pid ppid program operation path resolved verdict rule layer; do
		record_field "$T/log" 1 "$k" > /dev/null || fail "no field $k"
	done
	[ "$(record_field "$T/log" 1 program)" = "$(readlink -f "$(type -P cat)")" ] ||
		fail "program is $(record_field "$T/log" 1 program)"
	[ "$(record_field "$T/log" 1 verdict)" = deny ] || fail "verdict"
	[ "$(record_field "$T/log" 1 layer)" = shim ] || fail "layer"
}

test_shim_one_line_per_operation_and_path() {
	echo s3cr3t > "$T/out/x"
	cordon --log "$T/log" -- sh -c 'for i in 1 2 3; do cat "$0/x"; done' "$T/out"
	# three cats are three processes: a line and a record each
	[ "$(grep -c 'cordon: denied read' "$T/stderr")" -eq 3 ] || { show; fail "lines"; }
	[ "$(wc -l < "$T/log")" -eq 3 ] || fail "expected 3 records"
	cordon --log "$T/log2" -- python3 -c 'import sys
for i in range(50):
    try: open(sys.argv[1])
    except OSError: pass' "$T/out/x"
	[ "$(grep -c 'cordon: denied' "$T/stderr")" -eq 1 ] || { show; fail "not deduplicated"; }
	# and one record: a retry is the same denial
	[ "$(wc -l < "$T/log2")" -eq 1 ] || fail "expected 1 record"
}

test_shim_log_cannot_be_erased_from_inside() {
	echo s3cr3t > "$T/out/secret"
	cordon --log "$T/out/log" -- sh -c "cat '$T/out/secret'; : > '$T/out/log'; rm -f '$T/out/log'"
	assert_exists "$T/out/log"
	[ "$(wc -l < "$T/out/log")" -ge 1 ] || fail "the record was erased"
	grep -q '"operation":"open"' "$T/out/log" || fail "no open record"
	plain sh -c ": > '$T/out/log'"
	[ ! -s "$T/out/log" ] || fail "the twin could not truncate"
}

test_shim_records_survive_closed_descriptors() {
	echo s3cr3t > "$T/out/secret"
	echo s3cr3t > "$T/out/secret2"
	cordon --log "$T/log" -- python3 -c 'import subprocess,sys
subprocess.run(["cat", sys.argv[1]], close_fds=True)
import os
for fd in range(3, 1024):
    try: os.close(fd)
    except OSError: pass
try: open(sys.argv[1] + "2")
except OSError: pass' "$T/out/secret"
	grep -q "\"path\":\"$T/out/secret\"" "$T/log" || fail "the cat record is missing"
	grep -q "\"path\":\"$T/out/secret2\"" "$T/log" || fail "the python record is missing"
}

test_shim_quiet_keeps_records_but_prints_nothing() {
	echo s3cr3t > "$T/out/secret"
	cordon -q --log "$T/log" -- cat "$T/out/secret"
	assert_status 1
	! grep -q 'cordon:' "$T/stderr" || { show; fail "quiet printed"; }
	[ "$(wc -l < "$T/log")" -eq 1 ] || fail "no record"
}

test_shim_no_shim_keeps_the_kernel_layer() {
	echo orig > "$T/out/f"
	cordon --no-shim --log "$T/log" -- sh -c "echo bad > '$T/out/f'"
	assert_status_not 0
	assert_content "$T/out/f" orig
	! grep -q 'cordon: denied' "$T/stderr" || fail "a shim line without the shim"
	cordon --no-shim -- sh -c 'echo "$LD_PRELOAD"'
	assert_stdout_lacks libcordon
	cordon -- sh -c 'echo "$LD_PRELOAD"'
	assert_stdout_has libcordon.so
}

test_shim_found_in_an_installed_layout() {
	mkdir -p "$T/inst/bin" "$T/inst/lib/cordon"
	cp "$CORDON" "$T/inst/bin/" && cp "$HELPERS/libcordon.so" "$T/inst/lib/cordon/"
	"$T/inst/bin/cordon" -- sh -c 'echo "$LD_PRELOAD"' > "$T/stdout" 2> "$T/stderr"
	assert_stdout_has "$T/inst/lib/cordon/libcordon.so"
	rm "$T/inst/lib/cordon/libcordon.so"
	"$T/inst/bin/cordon" -- true > "$T/stdout" 2> "$T/stderr"
	status=$?
	assert_status 125
	assert_stderr_has "cannot find libcordon.so"
}

test_shim_denial_deep_in_a_build_tree_is_attributed() {
	command -v gcc > /dev/null || skip "SKIP: no gcc"
	printf 'int main(void) { return 0; }\n' > x.c
	printf 'all:\n\tsh -c "gcc -c x.c -o %s/x.o"\n' "$T/out" > Makefile
	cordon --log "$T/log" -- make
	assert_status_not 0
	assert_absent "$T/out/x.o"
	python3 - "$T/log" "$T/out/x.o" <<'PY' || fail "not attributed to as"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
hits = [r for r in recs if r["resolved"] == sys.argv[2]]
assert hits, recs
assert any(r["program"].endswith("as") for r in hits), hits
PY
	grep -q "cordon: denied write $T/out/x.o" "$T/stderr" || { show; fail "no line"; }
	plain make
	assert_status 0
	assert_exists "$T/out/x.o"
}

# Reading what is not there fails as the kernel fails it (ENOENT), with
# no line: a program probing for an optional file outside the roots is
# not told EACCES.  Creating it is a write, and refused.
test_shim_missing_file_outside_is_enoent_and_quiet() {
	cordon --log "$T/log" -- cat "$T/out/none"
	assert_status 1
	assert_stderr_has "No such file or directory"
	! grep -q 'cordon: denied' "$T/stderr" || { show; fail "a line for a missing file"; }
	cordon --log "$T/log" -- sh -c "echo x > '$T/out/none'"
	assert_stderr_has "cordon: denied write $T/out/none"
	assert_absent "$T/out/none"
	# twin: the same read of a file that is there is refused and said
	echo s3cr3t > "$T/out/none"
	cordon --log "$T/log" -- cat "$T/out/none"
	assert_status 1
	assert_stdout_lacks s3cr3t
	assert_stderr_has "cordon: denied read $T/out/none"
}

# The end of a run with denials: grouped by rule, the paths refused most
# first, each with the option that allows it; one screen at most.
test_shim_summary_groups_denials_by_rule() {
	echo s > "$T/out/a"
	echo s > "$T/out/b"
	local i
	for i in $(seq 1 9); do echo s > "$T/out/f$i"; done
	cordon --log "$T/log" -- sh -c "for i in 1 2 3; do cat '$T/out/a'; done; cat '$T/out/b'; echo > /etc/cordon-x
		for i in 1 2 3 4 5 6 7 8 9; do cat '$T/out/f'\$i; done" 2> /dev/null
	cordon --log "$T/log2" -- sh -c "for i in 1 2 3; do cat '$T/out/a'; done; cat '$T/out/b'; echo > /etc/cordon-x
		for i in 1 2 3 4 5 6 7 8 9; do cat '$T/out/f'\$i; done"
	assert_stderr_has "^cordon: 14 denials reported by the command's processes (the shim), recorded in $T/log2:$"
	assert_stderr_has "^cordon:   outside the readable roots .* (13):$"
	assert_stderr_has "^cordon:        3  $T/out/a; allow with --read $T/out/a$"
	assert_stderr_has "^cordon:   /etc is granted rx only (1):$"
	assert_stderr_has "^cordon:        1  /etc/cordon-x; allow with --write /etc$"
	assert_stderr_has "^cordon:        [0-9]*  on other paths (see the log)$"
	# most frequent first
	grep -n "$T/out/a;" "$T/stderr" | head -1 | grep -q . || fail "no line for a"
	[ "$(grep -c '^cordon:        ' "$T/stderr")" -le 12 ] || { show; fail "the summary floods"; }
	assert_absent /etc/cordon-x
	# nothing at all when nothing was denied
	cordon --log "$T/log3" -- cat /etc/hostname
	assert_status 0
	assert_stderr_lines 0
}
