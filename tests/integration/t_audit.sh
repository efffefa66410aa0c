# The audit log against a hostile command: whatever reaches the report
# socket from inside (forged by $HELPERS/forge with raw system calls) is
# validated, re-serialised with "source": "shim", bounded, and escaped
# before it reaches the terminal; the supervisor's own records say
# "launcher" or "kernel".  Every check reads the log and cordon's stderr
# from outside the sandbox.

# audit_py FILE PROGRAM: run the Python PROGRAM with the records of FILE
# in `recs` (a list of dicts; a line that is no JSON fails).
audit_py() {
	python3 -c 'import json, sys
recs = [json.loads(l) for l in open(sys.argv[1], "rb")]
exec(sys.argv[2])' "$1" "$2" || { show; echo "--- $1:"; head -c 3000 "$1"; fail "audit_py: $2"; }
}

# no_control FILE: not one raw control character (C0 but the newline,
# DEL, C1, the bidirectional overrides) and nothing that is not UTF-8.
no_control() {
	python3 -c 'import sys
t = open(sys.argv[1], "rb").read().decode("utf-8")
bad = [hex(ord(c)) for c in t if (ord(c) < 0x20 and c != "\n") or 0x7f <= ord(c) <= 0x9f or 0x202a <= ord(c) <= 0x202e or 0x2066 <= ord(c) <= 0x2069]
sys.exit("raw control characters: %s" % bad[:10] if bad else 0)' "$1" ||
		{ show; fail "$1 holds raw control characters"; }
}

# A record as the shim writes it, with RULE and ALLOW (JSON text).
forged_record() { # rule allow
	printf '{"time":1.5,"pid":7,"ppid":1,"program":"/bin/forged","operation":"open","path":"/etc/forged","resolved":"/etc/forged","need":1,"verdict":"deny","rule":"%s","allow":"%s","layer":"shim"}' "$1" "$2"
}

test_audit_forged_record_is_reserialised_and_escaped() {
	local rec
	# ESC (clear the screen, set the title), BEL, CR, DEL, a CSI in C1,
	# and an "allow" that starts a line of its own
	rec=$(forged_record 'FORGED\u001b[2J\u001b]0;pwned\u0007\r'$'\x7f\xc2\x9b' \
		'with --read /\ncordon: all clear')
	cordon --log "$T/out/log" -- "$HELPERS/forge" send "$rec"
	assert_status 0
	audit_py "$T/out/log" '
assert len(recs) == 1, recs
r = recs[0]
assert r["source"] == "shim", r
assert r["program"] == "/bin/forged", r
assert r["rule"] == "FORGED\x1b[2J\x1b]0;pwned\x07\r\x7f\x9b", r
assert r["allow"] == "with --read /\ncordon: all clear", r'
	grep -qF '"rule":"FORGED\u001B[2J\u001B]0;pwned\u0007\r\u007f\u009b"' "$T/out/log" ||
		fail "the rule is not escaped in the log: $(cat -v "$T/out/log")"
	no_control "$T/out/log"
	no_control "$T/stderr"
	assert_stderr_has "^cordon: 1 denial reported by the command's processes (the shim), recorded in $T/out/log:$"
	grep -qF 'cordon:   FORGED\x1b[2J\x1b]0;pwned\x07\r\x7f\u009b (1):' "$T/stderr" ||
		{ show; fail "the rule is not shown escaped"; }
	# the advice is computed outside from the path, never the record's
	grep -qF '/etc/forged; allow with --read /etc' "$T/stderr" ||
		{ show; fail "the allow advice is not computed outside"; }
	grep -qF 'all clear' "$T/stderr" && { show; fail "the record's advice is shown"; }
	! grep -q '^cordon: all clear' "$T/stderr" || { show; fail "a forged line of its own"; }
	# twin: a real denial is in the log the same way, and in the summary
	echo s3cr3t > "$T/out/secret"
	cordon --log "$T/out/log2" -- cat "$T/out/secret"
	assert_status 1
	assert_stdout_lacks s3cr3t
	audit_py "$T/out/log2" '
assert len(recs) == 1, recs
r = recs[0]
assert r["source"] == "shim" and r["layer"] == "shim", r
assert r["operation"] == "open" and r["verdict"] == "deny", r
assert r["path"].endswith("/out/secret"), r'
	assert_stderr_has "^cordon: 1 denial reported by the command's processes (the shim), recorded in $T/out/log2:$"
	assert_stderr_has "^cordon:        1  $T/out/secret; allow with --read $T/out/secret$"
}

test_audit_junk_is_rejected_and_counted() {
	local big ok
	big=$(head -c 5000 /dev/zero | tr '\0' a)
	ok=$(forged_record 'KEPT' 'with --read /x')
	cordon --log "$T/out/log" -- "$HELPERS/forge" send \
		'' \
		'JUNK1 not json' \
		'["JUNK2"]' \
		"${ok%\}},\"JUNK3\":1}" \
		"${ok%\}},\"source\":\"kernel\"}" \
		"$(forged_record "JUNK4 $big" 'x')" \
		"${ok/\"pid\":7/\"pid\":\"JUNK5\"}" \
		"${ok/\"deny\"/\"JUNK6\"}" \
		"${ok/\"layer\":\"shim\"/\"layer\":\"launcher\"}" \
		"$(forged_record $'JUNK7 raw \x1b in JSON' 'x')" \
		"$(head -c 20000 /dev/zero | tr '\0' ' ')" \
		"$ok"
	assert_status 0
	# the one valid record was kept (the mechanism is live), and a
	# launcher record counts the rest
	audit_py "$T/out/log" '
shim = [r for r in recs if r["source"] == "shim"]
own = [r for r in recs if r["source"] == "launcher"]
assert len(recs) == 2 and len(shim) == 1 and len(own) == 1, recs
assert shim[0]["rule"] == "KEPT", shim
assert own[0]["rejected"] == 11 and own[0]["dropped"] == 0, own
assert "11 rejected" in own[0]["rule"], own'
	! grep -q 'JUNK\|aaaaaaaa' "$T/out/log" || fail "junk in the log"
	! grep -q '"source":"kernel"' "$T/out/log" || fail "a source taken from the sender"
	assert_stderr_has "^cordon: 11 reports rejected (not valid records)$"
	assert_stderr_has "^cordon: 1 denial reported by the command's processes (the shim), recorded in $T/out/log:$"
	no_control "$T/stderr"
}

test_audit_flood_is_bounded() {
	timeout 120 "$CORDON" --log "$T/out/log" -- \
		sh -c '"$1" flood 100000; exit 7' sh "$HELPERS/forge" \
		> "$T/stdout" 2> "$T/stderr"
	status=$?
	assert_status 7
	audit_py "$T/out/log" '
shim = [r for r in recs if r["source"] == "shim"]
own = [r for r in recs if r["source"] == "launcher"]
assert len(shim) == 10000, len(shim)
assert len(own) == 1 and own[0]["dropped"] == 90000, own
assert own[0]["rejected"] == 0, own
assert "90000 reports dropped" in own[0]["rule"], own'
	assert_stderr_has "^cordon: 90000 reports dropped (over the limit of 10000 records or 16 MiB per run)$"
	assert_stderr_has "^cordon: 10000 denials reported by the command's processes (the shim), recorded in $T/out/log:$"
	# twin: a flood under the limit is kept whole, and nothing is said
	# of drops
	timeout 120 "$CORDON" --log "$T/out/log2" -- \
		sh -c '"$1" flood 500; exit 7' sh "$HELPERS/forge" \
		> "$T/stdout" 2> "$T/stderr"
	status=$?
	assert_status 7
	[ "$(wc -l < "$T/out/log2")" -eq 500 ] || fail "expected 500 records"
	! grep -q 'dropped\|rejected' "$T/stderr" || { show; fail "drops said"; }
	! grep -q '"source":"launcher"' "$T/out/log2" || fail "a launcher record"
}

test_audit_flood_of_large_records_is_bounded_in_bytes() {
	local rec
	rec=$(forged_record "$(head -c 4000 /dev/zero | tr '\0' r)" 'x')
	timeout 120 "$CORDON" --log "$T/out/log" -- \
		"$HELPERS/forge" flood 6000 "$rec" > "$T/stdout" 2> "$T/stderr"
	status=$?
	assert_status 0
	[ "$(stat -c %s "$T/out/log")" -le $((16 * 1024 * 1024 + 4096)) ] ||
		fail "the log grew past the limit: $(stat -c %s "$T/out/log")"
	audit_py "$T/out/log" '
shim = [r for r in recs if r["source"] == "shim"]
own = [r for r in recs if r["source"] == "launcher"]
assert 3000 < len(shim) < 6000, len(shim)
assert own[0]["dropped"] == 6000 - len(shim), own'
	assert_stderr_has "^cordon: [0-9]* reports dropped (over the limit of 10000 records or 16 MiB per run)$"
}

# A file name is text from inside: the shim's own denial line escapes
# it as the launcher does (\n, \x1b), so a name cannot split the line or
# drive the terminal.
test_audit_a_name_with_control_bytes_makes_one_escaped_line() {
	local name=$'new\nline\e[31mred' shown='new\nline\x1b[31mred' line n
	echo orig > "$T/out/$name"
	cordon -- "$HELPERS/shimdrive_open" fopen "$T/out/$name" w
	assert_status 1
	assert_stdout_has '^EACCES$'
	assert_content "$T/out/$name" orig
	line=$(grep -F "cordon: denied write $T/out/$shown [fopen" "$T/stderr")
	n=$(printf '%s' "$line" | grep -c '^')
	[ "$n" -eq 1 ] || { show; fail "$n lines for it, expected 1"; }
	[[ $line == *"); allow with --write \$'$T/out/$shown'" ]] ||
		{ show; fail "the option does not end the line, quoted"; }
	! grep -qv '^cordon: ' "$T/stderr" || { show; fail "a line split"; }
	no_control "$T/stderr"
	# twin: without the sandbox the file is opened for writing
	plain "$HELPERS/shimdrive_open" fopen "$T/out/$name" w
	assert_status 0
	assert_stdout_has '^ok$'
	[ ! -s "$T/out/$name" ] || fail "the twin did not truncate"
}

# Protected by the kernel (t_protect.sh shows the shim's side): writes
# behind the shim's back leave the log byte for byte as it was.
test_audit_log_is_unchanged_by_raw_writes() {
	echo s3cr3t > "$T/out/secret"
	cordon --log ./audit.jsonl -- cat "$T/out/secret"
	assert_status 1
	[ -s "$T/ws/audit.jsonl" ] || fail "no record"
	cp "$T/ws/audit.jsonl" "$T/out/before"
	echo other > "$T/ws/other"
	cordon --log ./audit.jsonl -- sh -c 'f=$1
		"$f" write audit.jsonl "{\"forged\":1}"; echo "write $?"
		"$f" trunc audit.jsonl; echo "trunc $?"
		"$f" rename other audit.jsonl; echo "rename $?"
		"$f" unlink audit.jsonl; echo "unlink $?"' sh "$HELPERS/forge"
	assert_stdout_has "^write 1$"
	assert_stdout_has "^trunc 1$"
	assert_stdout_has "^rename 1$"
	assert_stdout_has "^unlink 1$"
	cmp "$T/ws/audit.jsonl" "$T/out/before" || fail "the log changed"
	assert_content "$T/ws/other" other
	# twin: the same raw calls change the file without the sandbox
	plain "$HELPERS/forge" write audit.jsonl '{"forged":1}'
	assert_status 0
	grep -q forged "$T/ws/audit.jsonl" || fail "the twin could not write"
	plain "$HELPERS/forge" trunc audit.jsonl
	assert_status 0
	[ ! -s "$T/ws/audit.jsonl" ] || fail "the twin could not truncate"
}

# A log that takes nothing: never "recorded", and the summary says so.
test_audit_write_errors_are_not_counted_as_recorded() {
	[ -w /dev/full ] || skip "SKIP: no writable /dev/full"
	echo s3cr3t > "$T/out/secret"
	cordon --log /dev/full -- cat "$T/out/secret"
	assert_status 1
	assert_stderr_has "^cordon: 1 denial reported by the command's processes (the shim), none recorded in /dev/full:$"
	assert_stderr_has "^cordon: 1 record could not be written to /dev/full: No space left on device$"
	! grep -q '(the shim), recorded in' "$T/stderr" ||
		{ show; fail "claimed as recorded"; }
	# twin: the same run with a log that takes it
	cordon --log "$T/out/log" -- cat "$T/out/secret"
	assert_status 1
	assert_stderr_has "^cordon: 1 denial reported by the command's processes (the shim), recorded in $T/out/log:$"
	! grep -q 'could not be written' "$T/stderr" || { show; fail "a write error"; }
}

# forge sigsys makes a system call of the i386 ABI: the seccomp filter
# kills for it (SIGSYS).  Outside a PID namespace (cordon learn) the
# wait status is the kernel's word: a "kernel" record.  Relayed by the
# namespace's pid 1 it is only exit 159, which a command can exit with
# itself: a "launcher" note that says so, never a "kernel" record.
test_audit_sigsys_kill_is_recorded() {
	plain "$HELPERS/forge" sigsys
	[ "$status" -eq 0 ] || skip "SKIP: no i386 system calls here (status $status)"
	cordon learn -o "$T/out/p.json" --log "$T/out/log" -- "$HELPERS/forge" sigsys
	assert_status 159
	audit_py "$T/out/log" '
k = [r for r in recs if r["source"] == "kernel"]
assert len(k) == 1, recs
assert k[0]["operation"] == "syscall" and k[0]["verdict"] == "deny", k
assert k[0]["rule"] == "a system call refused by the seccomp filter (the process was killed)", k'
	assert_stderr_has "^cordon: the kernel killed the command with SIGSYS: a system call refused by the seccomp filter (the process was killed)$"
	# twin: the same exit status without the kill is no kernel record
	cordon learn -o "$T/out/p.json" --log "$T/out/log2" -- sh -c 'exit 159'
	assert_status 159
	! grep -q '"source":"kernel"' "$T/out/log2" 2> /dev/null ||
		fail "a kernel record for exit 159: $(cat "$T/out/log2")"
	! grep -q SIGSYS "$T/stderr" || { show; fail "SIGSYS said"; }
}

test_audit_sigsys_relayed_is_only_a_launcher_note() {
	plain "$HELPERS/forge" sigsys
	[ "$status" -eq 0 ] || skip "SKIP: no i386 system calls here (status $status)"
	cordon --log "$T/out/log" -- "$HELPERS/forge" sigsys
	assert_status 159
	grep -q '^cordon: exit status 159: ' "$T/stderr" ||
		skip "SKIP: no PID namespace here: the status is the kernel's"
	audit_py "$T/out/log" '
assert len(recs) == 1 and recs[0]["source"] == "launcher", recs
assert recs[0]["operation"] == "syscall" and recs[0]["verdict"] == "note", recs
assert "cannot be told apart" in recs[0]["rule"], recs'
	# the command's own exit 159 reads the same: nothing claims more
	cordon --log "$T/out/log2" -- sh -c 'exit 159'
	assert_status 159
	! grep -q '"source":"kernel"' "$T/out/log2" || fail "a kernel record for exit 159"
	# twin: any other status says nothing
	cordon --log "$T/out/log3" -- sh -c 'exit 3'
	assert_status 3
	assert_stderr_lines 0
	[ ! -s "$T/out/log3" ] || fail "a record for exit 3"
}

# A program that retries: one line and one record per operation, path
# and process, however often it is refused; a child has its own.  The
# twin: a second path doubles them, so the count is not a lost record.
test_audit_one_record_per_operation_path_and_process() {
	echo keep > "$T/out/f"
	echo keep > "$T/out/g"
	local prog='import os, sys
def tries(p):
    for i in range(50):
        try: os.stat(p)
        except OSError: pass
        try: open(p, "a").write("x")
        except OSError: pass
for p in sys.argv[1:]:
    tries(p)
pid = os.fork()
if pid == 0:
    tries(sys.argv[1])
    os._exit(0)
os.waitpid(pid, 0)'
	cordon --log "$T/out/log" -- python3 -c "$prog" "$T/out/f"
	assert_status 0
	assert_content "$T/out/f" keep
	audit_py "$T/out/log" '
ops = sorted((r["pid"], r["operation"]) for r in recs)
assert len(recs) == 4, ops
assert len(set(p for p, o in ops)) == 2, ops
assert all(r["path"].endswith("/out/f") for r in recs), recs'
	[ "$(grep -c '^cordon: denied' "$T/stderr")" = 4 ] || { show; fail "not four lines"; }
	cordon --log "$T/out/log2" -- python3 -c "$prog" "$T/out/f" "$T/out/g"
	assert_status 0
	assert_content "$T/out/g" keep
	audit_py "$T/out/log2" '
assert len(recs) == 6, [(r["pid"], r["operation"], r["path"]) for r in recs]'
	# and granted, the same program writes: the refusals were the policy
	cordon --write "$T/out" -- python3 -c "$prog" "$T/out/f"
	assert_status 0
	[ "$(tr -d '\n' < "$T/out/f")" = "keep$(printf 'x%.0s' $(seq 100))" ] ||
		fail "f: $(cat "$T/out/f")"
}
