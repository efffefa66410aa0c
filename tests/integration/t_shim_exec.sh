# The shim's exec family (shim/hook_exec.c, shim/exec_env.c): running a
# file needs X on it; every child keeps the shim and the launcher's policy
# whatever environment it is given; glibc's exec semantics stay glibc's;
# a child the shim cannot enter is named in an audit record.  The
# programs run through tests/helpers/shimdrive_exec, and every effect is
# checked from outside: marker files, audit records, the output of the
# same command without the shim (the twin).

EXEC_METHODS="execve execv execvp execvpe execl execlp execle fexecve
execveat posix_spawn posix_spawnp"

exec_drive() { # shim_run|plain DRIVER-ARGS...
	local how=$1
	shift
	"$how" "$HELPERS/shimdrive_exec" "$@"
}

# exec_with POLICY CMD...: CMD under the shim alone with POLICY.
exec_with() {
	local p=$1
	shift
	CORDON_POLICY=$p LD_PRELOAD="$HELPERS/libcordon.so" \
		"$@" > "$T/stdout" 2> "$T/stderr"
	status=$?
	return 0
}

# shim_policy, with $T/out readable (the driver may open what it runs)
# but not executable.
exec_policy() {
	printf '%s|root=r,d,u,%s' "$(shim_policy)" "$T/out"
}

# $T/out/prog: executable by its mode, outside the exec roots; when it
# runs, it creates the file its first argument names.
exec_prog() {
	printf '#!/bin/sh\n: > "$1"\necho prog-ran\n' > "$T/out/prog"
	chmod 755 "$T/out/prog"
}

# A script without "#!": execve fails with ENOEXEC, execvp runs it
# through /bin/sh.
exec_noshebang() { # path
	printf 'echo ran-noshebang "$@"\n' > "$1"
	chmod 755 "$1"
}

# The one denial line of METHOD, naming PATH.
exec_assert_line() { # method path
	grep -F 'cordon: denied exec' "$T/stderr" | grep -F "[$1]" |
		grep -qF "$2" || { show; fail "no denial line of [$1] naming $2"; }
}

# The audit records holding every fixed string given.
exec_records() { # string...
	local out
	out=$(cat "$T/audit.jsonl" 2>/dev/null)
	while [ "$#" -gt 0 ]; do
		out=$(grep -F -- "$1" <<< "$out")
		shift
	done
	printf '%s' "$out"
}

# cat was refused $T/out/secret by its own shim: the record names cat's
# program, and its pid when PID is given ("!N": any pid but N); the line
# is on stderr unless "noline" (wordexp sends the shell's stderr to
# /dev/null).
exec_assert_cat_refused() { # [pid [noline]]
	local rec cat
	cat=$(readlink -f /bin/cat)
	rec=$(exec_records "\"program\":\"$cat\"" \
		"\"path\":\"$T/out/secret\"" '"layer":"shim"')
	[ -n "$rec" ] || { show; fail "no denial attributed to $cat"; }
	case ${1:-} in
	'') ;;
	!*) ! grep -q "\"pid\":${1#!}," <<< "$rec" ||
		fail "the record has the parent's pid: $rec" ;;
	*) grep -q "\"pid\":$1," <<< "$rec" ||
		fail "the record is not cat's (pid $1): $rec" ;;
	esac
	[ "${2:-}" = noline ] ||
		assert_stderr_has "cordon: denied read $T/out/secret"
	assert_stdout_lacks s3cr3t
}

exec_first_line() {
	head -n 1 "$T/stdout" | sed 's/^pid //'
}

# Does libcordon.so export posix_spawn[p]@GLIBC_2.2.5 of its own?
exec_has_old_spawn() {
	readelf --dyn-syms -W "$HELPERS/libcordon.so" |
		grep -q ' posix_spawnp@GLIBC_2\.2\.5'
}

test_exec_outside_the_exec_roots_is_refused() {
	exec_prog
	local m pol
	pol=$(exec_policy)
	for m in $EXEC_METHODS; do
		rm -f "$T/ws/ran" "$T/audit.jsonl"
		exec_with "$pol" "$HELPERS/shimdrive_exec" run "$m" \
			"$T/out/prog" "$T/ws/ran"
		assert_status 1
		assert_absent "$T/ws/ran"
		case $m in
		posix_spawn*) assert_stdout_has "^$m: EACCES errno=1234$" ;;
		*) assert_stdout_has "^$m: EACCES$" ;;
		esac
		exec_assert_line "$m" "$T/out/prog"
		[ -n "$(exec_records "\"operation\":\"$m\"" \
			"\"resolved\":\"$T/out/prog\"")" ] ||
			fail "no audit record of $m"
		exec_drive plain run "$m" "$T/out/prog" "$T/ws/ran"
		assert_status 0
		assert_exists "$T/ws/ran"
	done
}

test_exec_the_shell_runs_but_its_child_is_refused() {
	exec_prog
	local m
	for m in system popen; do
		rm -f "$T/ws/ran"
		exec_with "$(exec_policy)" "$HELPERS/shimdrive_exec" run "$m" \
			"$T/out/prog" "$T/ws/ran"
		assert_absent "$T/ws/ran"
		assert_stdout_has "0x7e00"
		exec_assert_line execve "$T/out/prog"
		exec_drive plain run "$m" "$T/out/prog" "$T/ws/ran"
		assert_exists "$T/ws/ran"
	done
}

test_exec_system_popen_wordexp_need_x_on_the_shell() {
	local p
	p=$("$HELPERS/snapshot" --log "file:$T/audit.jsonl" r /usr rx /etc \
		rwx /tmp rwx "$T/ws" r /proc r /dev rw /dev/null)
	exec_with "$p" "$HELPERS/shimdrive_exec" run system true
	assert_status 1
	assert_stdout_has "^system: status 0x7f00 errno=13$"
	exec_assert_line system /bin/sh
	exec_with "$p" "$HELPERS/shimdrive_exec" run popen true
	assert_stdout_has "^popen: NULL EACCES$"
	exec_assert_line popen /bin/sh
	exec_with "$p" "$HELPERS/shimdrive_exec" run wordexp 'a $(echo hi)'
	assert_stdout_has "^wordexp: 1 errno=EACCES$"
	exec_assert_line wordexp /bin/sh
	# No command substitution, no shell: nothing to refuse.
	exec_with "$p" "$HELPERS/shimdrive_exec" run wordexp "a \$((1+2)) '\$(x)'"
	assert_status 0
	assert_stdout_has '\[a\] \[3\] \[$(x)\]$'
	assert_stderr_lines 0
	# The twins.
	exec_drive plain run system true
	assert_stdout_has "^system: status 0 errno=1234$"
	exec_drive plain run popen true
	assert_stdout_has "^popen: pclose 0$"
	exec_drive plain run wordexp 'a $(echo hi)'
	assert_stdout_has '\[a\] \[hi\]$'
}

test_exec_cleared_environment_keeps_the_shim() {
	echo s3cr3t > "$T/out/secret"
	local py=/usr/bin/python3
	# env -i: cat runs in the shell's process (exec).
	shim_run sh -c 'echo $$; exec env -i /bin/cat "$1"' sh "$T/out/secret"
	exec_assert_cat_refused "$(exec_first_line)"
	# os.execve with an empty environment.
	rm -f "$T/audit.jsonl"
	shim_run "$py" -c 'import os, sys
print(os.getpid(), flush=True)
os.execve("/bin/cat", ["cat", sys.argv[1]], {})' "$T/out/secret"
	exec_assert_cat_refused "$(exec_first_line)"
	# subprocess with env={}.
	rm -f "$T/audit.jsonl"
	shim_run "$py" -c 'import subprocess, sys
p = subprocess.Popen(["cat", sys.argv[1]], env={})
print(p.pid, flush=True)
p.wait()' "$T/out/secret"
	exec_assert_cat_refused "$(exec_first_line)"
	# C: unsetenv("LD_PRELOAD"), then system(); cat is a grandchild.
	rm -f "$T/audit.jsonl"
	exec_drive shim_run run -u LD_PRELOAD system cat "$T/out/secret"
	exec_assert_cat_refused "!$(exec_first_line)"
	# C: unsetenv("LD_PRELOAD"), then execvp(); cat keeps the pid.
	rm -f "$T/audit.jsonl"
	exec_drive shim_run run -u LD_PRELOAD execvp cat "$T/out/secret"
	exec_assert_cat_refused "$(exec_first_line)"
	# The twin: without the shim, cat reads it.
	plain env -i /bin/cat "$T/out/secret"
	assert_stdout_has s3cr3t
}

test_exec_shell_children_keep_the_shim_after_unsetenv() {
	echo s3cr3t > "$T/out/secret"
	local m
	for m in system popen wordexp; do
		rm -f "$T/audit.jsonl"
		if [ "$m" = wordexp ]; then
			exec_drive shim_run run -u LD_PRELOAD -u CORDON_POLICY \
				wordexp '$(cat' "$T/out/secret)"
			exec_assert_cat_refused "!$(exec_first_line)" noline
		else
			exec_drive shim_run run -u LD_PRELOAD -u CORDON_POLICY \
				"$m" cat "$T/out/secret"
			exec_assert_cat_refused "!$(exec_first_line)"
		fi
	done
}

test_exec_child_cannot_loosen_the_policy() {
	echo s3cr3t > "$T/out/secret"
	local loose
	loose=$("$HELPERS/snapshot" --net --inherit-env --quiet \
		--log file:/dev/null rwx /)
	# The loose policy is valid and would allow it, were it loaded.
	exec_with "$loose" /bin/cat "$T/out/secret"
	assert_status 0
	assert_stdout_has s3cr3t
	exec_drive shim_run run -s "CORDON_POLICY=$loose" execvp cat \
		"$T/out/secret"
	exec_assert_cat_refused "$(exec_first_line)"
	rm -f "$T/audit.jsonl"
	shim_run env "CORDON_POLICY=$loose" /bin/cat "$T/out/secret"
	exec_assert_cat_refused
	rm -f "$T/audit.jsonl"
	exec_drive shim_run run -s "CORDON_POLICY=$loose" system cat \
		"$T/out/secret"
	exec_assert_cat_refused
}

test_exec_child_environment_is_passed_as_given() {
	local libm f
	for f in /usr/lib/x86_64-linux-gnu/libm.so.6 \
		/lib/x86_64-linux-gnu/libm.so.6 /lib64/libm.so.6; do
		[ -e "$f" ] && { libm=$f; break; }
	done
	[ -n "${libm:-}" ] || skip "no libm.so.6 to preload"
	# What the program adds reaches its child (the launcher scrubbed
	# the environment once, at the root).
	MY_SETTING=kept exec_drive shim_run run -s MAKEFLAGS=n execve \
		/usr/bin/env
	assert_stdout_has '^MY_SETTING=kept$'
	assert_stdout_has '^MAKEFLAGS=n$'
	assert_stdout_has "^LD_PRELOAD=$HELPERS/libcordon.so$"
	assert_stdout_has "^CORDON_POLICY=v=1|"
	# A preload of the program's own comes after the shim.
	exec_drive shim_run run -s "LD_PRELOAD=$libm" execve /usr/bin/env
	assert_stdout_has "^LD_PRELOAD=$HELPERS/libcordon.so $libm$"
	# One that lists the shim already is kept as it is.
	exec_drive shim_run run -s "LD_PRELOAD=$libm:$HELPERS/libcordon.so" \
		execve /usr/bin/env
	assert_stdout_has "^LD_PRELOAD=$libm:$HELPERS/libcordon.so$"
	[ "$(grep -c '^LD_PRELOAD=' "$T/stdout")" -eq 1 ] ||
		fail "LD_PRELOAD twice in the child"
}

test_exec_recursive_make_dry_run_stays_dry() {
	mkdir -p "$T/ws/sub"
	printf 'all:\n\t$(MAKE) -C sub\n' > "$T/ws/Makefile"
	printf 'all:\n\ttouch ../made\n' > "$T/ws/sub/Makefile"
	shim_run make -n
	assert_status 0
	assert_absent "$T/ws/made"
	assert_stdout_has 'touch ../made'
	local out
	out=$(cat "$T/stdout")
	plain make -n
	[ "$out" = "$(cat "$T/stdout")" ] || fail "make -n: output differs"
}

test_exec_vfork_child_leaves_the_parent_environ() {
	exec_drive shim_run vfork-env
	assert_status 0
	# The child has the shim back...
	assert_stdout_has "^LD_PRELOAD=$HELPERS/libcordon.so$"
	assert_stdout_has '^CORDON_POLICY=v=1|'
	# ...and the parent, whose memory the child shared, is unchanged.
	assert_stdout_has '^parent: LD_PRELOAD=(unset) environ same, same variables$'
}

test_exec_vfork_stress_with_malloc_threads() {
	shim_run timeout 120 "$HELPERS/shimdrive_exec" vfork-stress 2000 90
	assert_status 0
	assert_stdout_has '^vfork-stress: [0-9]* runs, 0 failed$'
	local runs
	runs=$(sed -n 's/^vfork-stress: \([0-9]*\) runs.*/\1/p' "$T/stdout")
	[ "$runs" -ge 100 ] || fail "only $runs runs in 90 s"
	echo "note: $runs runs"
}

test_exec_shebangless_script_runs() {
	exec_noshebang "$T/ws/noshebang"
	local m
	for m in execvp execvpe execlp system popen; do
		PATH="$T/ws:$PATH" exec_drive shim_run run "$m" noshebang
		assert_stdout_has '^ran-noshebang'
		assert_stderr_lines 0
	done
	# posix_spawnp@@GLIBC_2.15 has no /bin/sh fallback: ENOEXEC, as
	# without the shim.
	PATH="$T/ws:$PATH" exec_drive shim_run run posix_spawnp noshebang
	assert_stdout_has '^posix_spawnp: ENOEXEC'
	PATH="$T/ws:$PATH" exec_drive plain run posix_spawnp noshebang
	assert_stdout_has '^posix_spawnp: ENOEXEC'
	# make spawns the recipe, then retries through the shell.
	printf 'all:\n\tnoshebang bare\n\t./noshebang slashed\n' > "$T/ws/Makefile"
	PATH="$T/ws:$PATH" shim_run make -s
	assert_status 0
	assert_stdout_has '^ran-noshebang bare$'
	assert_stdout_has '^ran-noshebang slashed$'
	assert_stderr_lines 0
}

test_exec_errno_and_exit_matrix_is_identical() {
	local d old= pol
	for d in "$T/ws/m" "$T/out/m"; do
		mkdir -p "$d/m-dir"
		printf '#!/bin/sh\necho ran-noexec\n' > "$d/m-noexec"
		chmod 644 "$d/m-noexec"
	done
	exec_noshebang "$T/ws/m/m-noshebang"
	exec_has_old_spawn && old=-o
	set -- ${old:+"$old"} -b "$T/ws/m/m-missing" "$T/ws/m/m-noexec" \
		"$T/ws/m/m-noshebang" "$T/ws/m/m-dir" "$T/out/m/m-missing" \
		"$T/out/m/m-noexec" "$T/out/m/m-dir"
	pol=$(exec_policy)
	PATH="$T/ws/m:/usr/bin:/bin" exec_with "$pol" \
		"$HELPERS/shimdrive_exec" matrix "$@"
	assert_status 0
	cp "$T/stdout" "$T/shim.out"
	cp "$T/stderr" "$T/shim.err"
	PATH="$T/ws/m:/usr/bin:/bin" exec_drive plain matrix "$@"
	diff -u "$T/stdout" "$T/shim.out" ||
		fail "the matrix differs with the shim (stdout: + is the shim)"
	diff -u "$T/stderr" "$T/shim.err" ||
		fail "the matrix differs with the shim (stderr: + is the shim)"
	grep -q '^execve: ENOEXEC$' "$T/stdout" || fail "no ENOEXEC row"
	grep -q '^execvp: EACCES$' "$T/stdout" || fail "no EACCES row"
	grep -q '^execv: ENOENT$' "$T/stdout" || fail "no ENOENT row"
	echo "note: $(grep -c '^==' "$T/stdout") calls${old:+, the 2.2.5 spawns included}"
}

test_exec_execl_many_arguments_on_a_small_stack() {
	exec_drive shim_run execl-many 1000
	assert_status 0
	assert_stdout_has '^1000$'
	exec_drive plain execl-many 1000
	assert_stdout_has '^1000$'
	# Past the cap: E2BIG, not a crash.
	exec_drive shim_run execl-many 2000
	assert_status 1
	assert_stdout_has '^execl: E2BIG$'
	exec_drive plain execl-many 2000
	assert_stdout_has '^2000$'
}

test_exec_posix_spawn_returns_the_error_number() {
	exec_prog
	local m methods="posix_spawn posix_spawnp"
	exec_has_old_spawn && methods="$methods posix_spawn_old posix_spawnp_old"
	for m in $methods; do
		rm -f "$T/ws/ran"
		exec_with "$(exec_policy)" "$HELPERS/shimdrive_exec" run "$m" \
			"$T/out/prog" "$T/ws/ran"
		# The error number returned, errno left as it was (1234).
		assert_stdout_has "^$m: EACCES errno=1234$"
		assert_absent "$T/ws/ran"
		exec_assert_line "${m%_old}" "$T/out/prog"
	done
}

test_exec_errno_preserved_on_success() {
	exec_drive shim_run errno-keep
	assert_status 0
	assert_stdout_has '^posix_spawn=0 errno=1234$'
	assert_stdout_has '^system=0 errno=1234$'
	assert_stdout_has '^popen=stream errno=1234$'
	local out
	out=$(cat "$T/stdout")
	exec_drive plain errno-keep
	[ "$out" = "$(cat "$T/stdout")" ] ||
		fail "errno differs: with the shim '$out', without '$(cat "$T/stdout")'"
}

test_exec_path_search_skips_a_refused_program() {
	mkdir -p "$T/out/bin"
	printf '#!/bin/sh\n: > %s\n' "$T/ws/wrong" > "$T/out/bin/true"
	chmod 755 "$T/out/bin/true"
	local m
	for m in execvp execlp posix_spawnp; do
		rm -f "$T/ws/wrong"
		PATH="$T/out/bin:/usr/bin:/bin" exec_with "$(exec_policy)" \
			"$HELPERS/shimdrive_exec" run "$m" true
		# /usr/bin/true ran, as under the kernel alone; the refused
		# one did not.
		assert_status 0
		assert_absent "$T/ws/wrong"
		exec_assert_line "$m" "$T/out/bin/true"
		PATH="$T/out/bin:/usr/bin:/bin" exec_drive plain run "$m" true
		assert_exists "$T/ws/wrong"
	done
}

test_exec_static_binary_is_recorded_as_unshimmed() {
	command -v gcc > /dev/null || skip "no gcc to build a static binary"
	printf '#include <stdio.h>\nint main(void) { puts("static-ran"); return 0; }\n' \
		> "$T/ws/s.c"
	gcc -static -o "$T/ws/static" "$T/ws/s.c" 2> /dev/null ||
		skip "gcc -static cannot link here (no libc.a)"
	exec_drive shim_run run execve "$T/ws/static"
	assert_status 0
	assert_stdout_has '^static-ran$'
	[ -n "$(exec_records '"operation":"exec-unshimmed"' \
		"\"path\":\"$T/ws/static\"" '"layer":"shim"' 'static binary')" ] ||
		{ show; fail "no exec-unshimmed record for the static binary"; }
	# A record for the launcher, no line for the program's stderr.
	assert_stderr_lines 0
	# Its interpreter static: a script the shim cannot follow either.
	printf '#!%s\n' "$T/ws/static" > "$T/ws/viastatic"
	chmod 755 "$T/ws/viastatic"
	rm -f "$T/audit.jsonl"
	shim_run sh -c "$T/ws/viastatic"
	assert_stdout_has '^static-ran$'
	[ -n "$(exec_records '"operation":"exec-unshimmed"' \
		"\"path\":\"$T/ws/viastatic\"" "its interpreter $T/ws/static")" ] ||
		{ show; fail "no exec-unshimmed record for the script"; }
	# Another ELF class: recorded before the kernel refuses it.
	{ printf '\177ELF\001\001\001'; head -c 57 /dev/zero; } > "$T/ws/elf32"
	chmod 755 "$T/ws/elf32"
	rm -f "$T/audit.jsonl"
	exec_drive shim_run run execve "$T/ws/elf32"
	[ -n "$(exec_records '"operation":"exec-unshimmed"' \
		"\"path\":\"$T/ws/elf32\"" 'another ELF class')" ] ||
		{ show; fail "no exec-unshimmed record for the 32-bit file"; }
	# The twin: a dynamic program gets no record.
	rm -f "$T/audit.jsonl"
	exec_drive shim_run run execve /bin/true
	assert_status 0
	[ -z "$(exec_records exec-unshimmed)" ] ||
		fail "a dynamic program was recorded as unshimmed"
	# Nor ld.so run as a program (static itself, what it loads has
	# the shim), through a link of another name
	local ld
	ld=$(readlink -f /lib64/ld-linux-x86-64.so.2)
	[ -x "$ld" ] || skip "no ld-linux-x86-64.so.2"
	ln -s "$ld" "$T/ws/loader"
	exec_drive shim_run run execve "$T/ws/loader" /bin/true
	assert_status 0
	[ -z "$(exec_records exec-unshimmed)" ] ||
		{ show; fail "ld.so was recorded as unshimmed"; }
}

test_exec_setuid_keeps_the_shim_under_no_new_privs() {
	[ "$(id -u)" -eq 0 ] || skip "needs root to make a setuid-root program"
	command -v setpriv > /dev/null || skip "no setpriv"
	local d s pol cat
	d=$(mktemp -d /tmp/cordon-suid.XXXXXX) || fail "mktemp"
	s=$(mktemp -d /var/tmp/cordon-suid.XXXXXX) || fail "mktemp"
	# expanded now: the locals are gone when the subshell exits
	trap "rm -rf '$d' '$s'" EXIT
	mkdir "$d/ws"
	chmod 755 "$d" "$s"
	cp /usr/bin/env "$d/suenv"
	chmod 4755 "$d/suenv"
	echo s3cr3t > "$s/secret"
	chmod 644 "$s/secret"
	: > "$d/audit.jsonl"
	chmod 666 "$d/audit.jsonl"
	pol=$(T=$d shim_policy)
	cat=$(readlink -f /bin/cat)
	# As nobody with no_new_privs (what cordon sets): the setuid bit is
	# ignored, the shim stays in the setuid program and its children.
	exec_with "$pol" setpriv --reuid=65534 --regid=65534 --clear-groups \
		--no-new-privs "$d/suenv"
	assert_stdout_has "^LD_PRELOAD=$HELPERS/libcordon.so$"
	exec_with "$pol" setpriv --reuid=65534 --regid=65534 --clear-groups \
		--no-new-privs "$d/suenv" /bin/cat "$s/secret"
	assert_stdout_lacks s3cr3t
	grep -F "\"program\":\"$cat\"" "$d/audit.jsonl" |
		grep -qF "\"path\":\"$s/secret\"" ||
		{ show; fail "the setuid program's child ran without the shim"; }
	# The twin without no_new_privs: ld.so drops LD_PRELOAD.
	: > "$d/audit.jsonl"
	exec_with "$pol" setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$d/suenv"
	assert_stdout_lacks '^LD_PRELOAD='
	exec_with "$pol" setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$d/suenv" /bin/cat "$s/secret"
	assert_stdout_has s3cr3t
	[ ! -s "$d/audit.jsonl" ] || fail "a record without the shim?"
}

test_exec_old_posix_spawn_keeps_its_shell_fallback() {
	exec_has_old_spawn || skip "libcordon.so exports posix_spawn[p]" \
		"unversioned (built without SHIM_SYMVER): programs linked" \
		"against glibc < 2.15 get the 2.15 behaviour"
	exec_noshebang "$T/ws/noshebang"
	local m
	for m in posix_spawn_old posix_spawnp_old; do
		PATH="$T/ws:$PATH" exec_drive shim_run run "$m" "$T/ws/noshebang"
		assert_stdout_has '^ran-noshebang'
		assert_stdout_has "^$m: exit 0$"
		PATH="$T/ws:$PATH" exec_drive plain run "$m" "$T/ws/noshebang"
		assert_stdout_has '^ran-noshebang'
	done
	# The 2.15 version of the same call still has no fallback.
	exec_drive shim_run run posix_spawn "$T/ws/noshebang"
	assert_stdout_has '^posix_spawn: ENOEXEC'
}
