# The shim without the launcher: LD_PRELOAD=libcordon.so and the
# CORDON_* variables (shim/standalone.c), on unmodified programs.

# standalone_run [VAR=VALUE...] -- CMD...: CMD with LD_PRELOAD and the
# given variables added to the test's environment, nothing else.
standalone_run() {
	(
		while [ "$1" != -- ]; do
			export "${1?}"
			shift
		done
		shift
		export LD_PRELOAD="$HELPERS/libcordon.so"
		exec "$@"
	) > "$T/stdout" 2> "$T/stderr"
	status=$?
	return 0
}

# The system directories this host has, as a CORDON_EXEC value.
standalone_system() {
	local d list=
	for d in /usr /bin /sbin /lib /lib64 /etc; do
		[ -e "$d" ] && list="$list${list:+:}$d"
	done
	printf '%s' "$list"
}

standalone_no_denial() {
	! grep -q 'cordon: denied' "$T/stderr" || { show; fail "a denial line"; }
}

# Skip when the kernel refused Landlock (the line standalone.c writes).
standalone_need_landlock() {
	! grep -q 'Landlock was not applied' "$T/stderr" ||
		skip "SKIP: $(grep 'Landlock was not applied' "$T/stderr")"
}

test_standalone_confines_writes_of_sh() {
	local sys
	sys=$(standalone_system)
	standalone_run CORDON_EXEC="$sys" CORDON_WRITE="$T/ws" -- \
		sh -c 'echo out > "$1"; echo ws > "$2"' sh "$T/out/f" "$T/ws/f"
	assert_absent "$T/out/f"
	assert_content "$T/ws/f" ws
	assert_stderr_has "cordon: denied write $T/out/f "
	# The twin: LD_PRELOAD alone loads no policy.
	standalone_run -- sh -c 'echo out > "$1"' sh "$T/out/f"
	assert_status 0
	assert_content "$T/out/f" out
	standalone_no_denial
}

test_standalone_cat_reads_only_the_read_roots() {
	local sys
	sys=$(standalone_system)
	echo secret > "$T/out/secret"
	standalone_run CORDON_EXEC="$sys" CORDON_READ="$T/ws" -- \
		cat "$T/out/secret"
	assert_status_not 0
	assert_stdout_lacks secret
	assert_stderr_has "cordon: denied read $T/out/secret "
	standalone_run CORDON_EXEC="$sys" CORDON_READ="$T/out" -- \
		cat "$T/out/secret"
	assert_status 0
	assert_stdout_has secret
}

# Landlock from the constructor: what the shim cannot see (a raw
# syscall, a static binary) is still held by the kernel.
test_standalone_landlock_holds_raw_syscalls_and_static_binaries() {
	local sys drive="$HELPERS/shimdrive_net"
	sys=$(standalone_system)
	[ -x "$drive" ] || fail "no shimdrive_net: build the helpers (make integration)"
	standalone_run CORDON_EXEC="$sys:$HELPERS" CORDON_WRITE="$T/ws" \
		CORDON_READ=/proc -- sh -c \
		'grep NoNewPrivs /proc/self/status; "$0" raw-create "$1"; "$0" raw-create "$2"' \
		"$drive" "$T/out/raw" "$T/ws/raw"
	standalone_need_landlock
	assert_stdout_has 'NoNewPrivs:.1'
	assert_stdout_has 'failed: 13 '
	assert_absent "$T/out/raw"
	assert_exists "$T/ws/raw"
	command -v cc >/dev/null || skip "SKIP: no cc to build a static binary"
	mkdir -p "$T/bin"
	cat > "$T/bin/rawcreate.c" <<'EOF'
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	return argc == 2 && syscall(SYS_openat, AT_FDCWD, argv[1],
				    O_WRONLY | O_CREAT, 0644) >= 0 ? 0 : 1;
}
EOF
	cc -static -o "$T/bin/rawcreate" "$T/bin/rawcreate.c" 2> "$T/cc.err" ||
		skip "SKIP: cannot link a static binary: $(head -n 1 "$T/cc.err")"
	standalone_run CORDON_EXEC="$sys:$T/bin" CORDON_WRITE="$T/ws" -- \
		sh -c '"$0" "$1"; "$0" "$2"' "$T/bin/rawcreate" "$T/out/static" \
		"$T/ws/static"
	assert_absent "$T/out/static"
	assert_exists "$T/ws/static"
	standalone_run -- "$T/bin/rawcreate" "$T/out/static"
	assert_status 0
	assert_exists "$T/out/static"
}

test_standalone_children_inherit_the_policy() {
	local sys
	sys=$(standalone_system)
	standalone_run CORDON_EXEC="$sys" CORDON_WRITE="$T/ws" \
		CORDON_LOG="$T/ws/audit.jsonl" -- \
		sh -c 'cp /etc/hostname "$1"; env' sh "$T/out/f"
	assert_absent "$T/out/f"
	assert_stdout_has '^CORDON_POLICY=v=1|'
	assert_stdout_has '^LD_PRELOAD='
	assert_stdout_lacks '^CORDON_WRITE='
	assert_stdout_lacks '^CORDON_LOG='
	# Only the shim in cp itself writes a record naming cp.
	grep -q '"program":"[^"]*/cp".*"verdict":"deny"' "$T/ws/audit.jsonl" ||
		fail "no denial recorded by the shim in cp"
}

test_standalone_children_inherit_after_env_i() {
	local sys
	nm -D --defined-only "$HELPERS/libcordon.so" 2>/dev/null |
		grep -qw execve ||
		skip "SKIP: this build has no exec hooks yet (shim/hook_exec.c): env -i drops LD_PRELOAD"
	sys=$(standalone_system)
	standalone_run CORDON_EXEC="$sys" CORDON_WRITE="$T/ws" \
		CORDON_LOG="$T/ws/audit.jsonl" -- \
		sh -c 'env -i cp /etc/hostname "$1"' sh "$T/out/f"
	assert_absent "$T/out/f"
	grep -q '"program":"[^"]*/cp".*"verdict":"deny"' "$T/ws/audit.jsonl" ||
		fail "no denial recorded by the shim in cp after env -i"
}

test_standalone_scrubs_the_environment() {
	local sys
	sys=$(standalone_system)
	standalone_run AWS_SECRET_ACCESS_KEY=hunter2 CORDON_EXEC="$sys" -- \
		sh -c 'env; echo "sh sees [$AWS_SECRET_ACCESS_KEY]"'
	assert_status 0
	assert_stdout_lacks AWS_SECRET_ACCESS_KEY=
	assert_stdout_has 'sh sees \[\]'
	assert_stdout_has '^PATH='
	assert_stdout_lacks '^CORDON_EXEC='
	standalone_run AWS_SECRET_ACCESS_KEY=hunter2 CORDON_EXEC="$sys" \
		CORDON_ENV='AWS_*' -- sh -c 'env'
	assert_status 0
	assert_stdout_has '^AWS_SECRET_ACCESS_KEY=hunter2$'
}

# The scrubbed value is erased from the first process's memory: its
# /proc/PID/environ, read by a child, no longer holds it.
test_standalone_scrub_erases_the_value_in_memory() {
	local sys
	sys=$(standalone_system)
	standalone_run AWS_SECRET_ACCESS_KEY=hunter2 CORDON_EXEC="$sys" \
		CORDON_READ=/proc -- sh -c 'tr "\\0" "\\n" < /proc/$$/environ'
	assert_status 0
	assert_stdout_has '^PATH='
	assert_stdout_lacks hunter2
	# twin: without the shim the same read shows it
	plain env AWS_SECRET_ACCESS_KEY=hunter2 sh -c 'tr "\\0" "\\n" < /proc/$$/environ'
	assert_stdout_has '^AWS_SECRET_ACCESS_KEY=hunter2$'
}

test_standalone_log_receives_json_lines() {
	local sys
	command -v python3 >/dev/null || skip "SKIP: no python3 to parse JSON"
	sys=$(standalone_system)
	standalone_run CORDON_EXEC="$sys" CORDON_LOG="$T/out/audit.jsonl" \
		CORDON_QUIET=1 -- sh -c 'echo x > "$1"' sh "$T/out/f"
	assert_absent "$T/out/f"
	standalone_no_denial
	assert_exists "$T/out/audit.jsonl"
	python3 - "$T/out/audit.jsonl" "$T/out/f" <<'EOF' || fail "bad audit log"
import json, sys
recs = [json.loads(line) for line in open(sys.argv[1])]
assert recs, "no record"
assert any(r["resolved"] == sys.argv[2] and r["verdict"] == "deny"
           and r["layer"] == "shim" for r in recs), recs
EOF
}

test_standalone_inactive_without_paths() {
	standalone_run CORDON_NET=off CORDON_LOG="$T/out/audit.jsonl" -- \
		sh -c 'echo x > "$1"; grep NoNewPrivs /proc/self/status; env' \
		sh "$T/out/f"
	assert_status 0
	assert_content "$T/out/f" x
	assert_stdout_has 'NoNewPrivs:.0'
	assert_stdout_lacks '^CORDON_POLICY='
	assert_absent "$T/out/audit.jsonl"
}

test_standalone_network_off_by_default_and_port_list() {
	local sys drive="$HELPERS/shimdrive_net"
	sys=$(standalone_system)
	net_shim_listen # t_shim_net.sh
	standalone_run CORDON_EXEC="$sys:$HELPERS" -- "$drive" tcp 127.0.0.1 "$port"
	assert_status 1
	assert_stderr_has "cordon: denied connect 127.0.0.1:$port \[connect\] (network is off); allow by adding $port to CORDON_NET"
	standalone_run CORDON_EXEC="$sys:$HELPERS" CORDON_NET="1,$port" -- \
		"$drive" tcp 127.0.0.1 "$port"
	assert_status 0
	standalone_run CORDON_EXEC="$sys:$HELPERS" CORDON_NET=on -- \
		"$drive" tcp 127.0.0.1 "$port"
	assert_status 0
	net_shim_contacts 2
}

test_standalone_reports_what_it_skips() {
	local sys
	sys=$(standalone_system)
	standalone_run CORDON_EXEC="$sys" CORDON_READ="/nonexistent-cordon:rel" \
		CORDON_NET=http -- true
	assert_status 0
	assert_stderr_has "CORDON_READ: '/nonexistent-cordon' does not exist; skipped"
	assert_stderr_has "CORDON_READ: 'rel' is not an absolute path; skipped"
	assert_stderr_has "CORDON_NET='http': expected on, off or ports"
	standalone_run CORDON_EXEC="$sys" CORDON_READ="/nonexistent-cordon" \
		CORDON_QUIET=1 -- true
	assert_status 0
	assert_stderr_lines 0
}

# /dev/null and the other everyday devices work as under the launcher,
# and a denial names the variable that would allow it.
test_standalone_devices_work_and_hints_name_the_variable() {
	local sys
	sys=$(standalone_system)
	echo s3cr3t > "$T/out/secret"
	standalone_run CORDON_EXEC="$sys" CORDON_WRITE="$T/ws" -- sh -c 'echo x > /dev/null && head -c 4 /dev/zero | wc -c'
	assert_status 0
	assert_stdout_has '^4$'
	standalone_no_denial
	standalone_run CORDON_EXEC="$sys" CORDON_WRITE="$T/ws" -- cat "$T/out/secret"
	assert_status_not 0
	assert_stdout_lacks s3cr3t
	assert_stderr_has "^cordon: denied read $T/out/secret \[open\] .*; allow by adding $T/out/secret to CORDON_READ$"
	standalone_run CORDON_EXEC="$sys" CORDON_WRITE="$T/ws" -- sh -c "echo new > $T/out/new"
	assert_absent "$T/out/new"
	assert_stderr_has "allow by adding $T/out to CORDON_WRITE$"
	# twin: with the variable the hint names, the read goes through
	standalone_run CORDON_EXEC="$sys" CORDON_WRITE="$T/ws" CORDON_READ="$T/out/secret" -- cat "$T/out/secret"
	assert_status 0
	assert_stdout_has s3cr3t
}

# A thread that ran before libcordon.so was loaded (dlopen, as a plugin
# host does): where Landlock has TSYNC (ABI 8, Linux 7.0) the domain the
# constructor applies holds every thread of the process, so that
# thread's file outside is never made; elsewhere it holds the loading
# thread alone, and one line says how many it does not.
test_standalone_threads_started_before_the_library_are_held() {
	local sys
	sys=$(standalone_system)
	# the twin: no policy (LD_PRELOAD set but no CORDON_* path: the
	# library loads and applies nothing), the thread makes its file
	plain env -u LD_PRELOAD "$HELPERS/dlthreads" "$HELPERS/libcordon.so" "$T/out/made"
	assert_status 0
	assert_exists "$T/out/made"
	rm -f "$T/out/made"
	plain env -u LD_PRELOAD CORDON_EXEC="$sys:$HELPERS" CORDON_WRITE="$T/ws" \
		"$HELPERS/dlthreads" "$HELPERS/libcordon.so" "$T/out/made"
	standalone_need_landlock
	if kernel_has tsync; then
		assert_status 1
		assert_stdout_has "fail EACCES"
		assert_absent "$T/out/made"
		assert_stderr_lacks "threads that ran before"
		# and inside the workspace, granted, the same thread writes
		plain env -u LD_PRELOAD CORDON_EXEC="$sys:$HELPERS" CORDON_WRITE="$T/ws" \
			"$HELPERS/dlthreads" "$HELPERS/libcordon.so" "$T/ws/made"
		assert_status 0
		assert_exists "$T/ws/made"
		return
	fi
	assert_stderr_has "cordon: Landlock holds this thread and those it starts, not the 1 other threads that ran before libcordon.so was loaded (every thread needs Landlock ABI 8, Linux 7.0)"
	skip "SKIP: no Landlock TSYNC (ABI 8, Linux 7.0): the thread that ran first is not held here, and the line says so (checked)"
}
