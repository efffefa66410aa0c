# The pitfalls of a preloaded shim, D-9 to D-15 (research/preload-catalog.md;
# D-1 to D-8 and the helpers pit_* are in t_shim_pitfalls.sh): binaries
# the shim never enters, secure execution, the diagnostic channel, loading
# failures, exec semantics, wrapper ABI and network attribution.  Effects
# are checked from outside; every denial has its twin without cordon.

# --- D-9: binaries the shim never enters -------------------------------

test_pitfall_D9_static_binary_is_denied_and_named() {
	pit_need_gcc
	pit_secret
	cat > rd.c <<'EOF'
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	char buf[64];
	int fd = argc > 1 ? open(argv[1], O_RDONLY) : -1;
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf));
	if (n < 0) {
		perror("open");
		return 1;
	}
	fwrite(buf, 1, (size_t)n, stdout);
	return 0;
}
EOF
	gcc -static -o rd-static rd.c 2> /dev/null ||
		skip "SKIP: no static libc to link with (libc6-dev)"
	cordon --log "$T/log" -- sh -c '"$0" "$1"' ./rd-static "$T/out/secret"
	assert_status_not 0
	assert_stdout_lacks s3cr3t
	assert_stderr_has "Permission denied"
	assert_stderr_has "rd-static ran without the shim"
	plain ./rd-static "$T/out/secret"
	assert_status 0
	assert_stdout_has s3cr3t
}

test_pitfall_D9_raw_syscall_is_denied_by_the_kernel() {
	pit_secret
	cordon --log "$T/log" -- "$HELPERS/ffidrive" syscall 257 AT_FDCWD \
		"$T/out/secret" O_RDONLY
	assert_status 1
	assert_stdout_has "ret=-1 errno=EACCES"
	plain "$HELPERS/ffidrive" syscall 257 AT_FDCWD "$T/out/secret" O_RDONLY
	assert_status 0
	assert_stdout_has "ret=3 errno="
}

# --- D-10: secure execution and the preload ----------------------------

test_pitfall_D10_setuid_program_keeps_the_preload() {
	local d user=cordon-test runuser
	[ "$(id -u)" -eq 0 ] || skip "SKIP: needs root to make a setuid-root copy of env"
	id "$user" > /dev/null 2>&1 || skip "SKIP: no user $user"
	runuser=$(PATH=$PATH:/usr/sbin:/sbin command -v runuser) ||
		skip "SKIP: no runuser"
	d=$(mktemp -d /tmp/cordon-suid.XXXXXX) || fail "mktemp"
	chmod 755 "$d"
	cp "$(type -P env)" "$d/env" && chmod 4755 "$d/env"
	install -d -o "$user" "$d/ws"
	"$runuser" -u "$user" -- sh -c 'cd "$1" && exec "$2" --log "$1/log" -- "$3" MARK=1' \
		_ "$d/ws" "$CORDON" "$d/env" > "$T/stdout" 2> "$T/stderr"
	status=$?
	# the twin: without no_new_privs, ld.so drops a setuid program's preload
	"$runuser" -u "$user" -- env LD_PRELOAD="$HELPERS/libcordon.so" MARK=2 \
		"$d/env" > "$T/twin" 2>&1
	rm -rf "$d"
	assert_status 0
	assert_stdout_has "^MARK=1$"
	assert_stdout_has "^LD_PRELOAD=.*libcordon.so"
	grep -q '^MARK=2$' "$T/twin" || fail "the twin did not run: $(cat "$T/twin")"
	! grep -q '^LD_PRELOAD=' "$T/twin" ||
		fail "the twin kept LD_PRELOAD: is $d mounted nosuid?"
}

# --- D-11: the diagnostic channel must not break programs -------------

test_pitfall_D11_record_survives_close_fds() {
	pit_secret
	cordon --log "$T/log" -- python3 -c 'import subprocess, sys
subprocess.run(["cat", sys.argv[1]], close_fds=True)' "$T/out/secret"
	assert_stdout_lacks s3cr3t
	pit_has_record "resolved=$T/out/secret" "program=$(readlink -f "$(type -P cat)")"
	plain python3 -c 'import subprocess, sys
subprocess.run(["cat", sys.argv[1]], close_fds=True)' "$T/out/secret"
	assert_stdout_has s3cr3t
}

test_pitfall_D11_clean_build_is_byte_identical() {
	pit_need_gcc
	command -v make > /dev/null || skip "SKIP: no make"
	cat > configure <<'EOF'
#!/bin/sh
# configure: autoconf-like checks that read the compiler's stderr
: > config.log
: > config.h
check_header() {
	printf 'checking for %s... ' "$1"
	printf '#include <%s>\nint main(void) { return 0; }\n' "$1" > conftest.c
	${CC:-cc} -c conftest.c -o conftest.o 2> conftest.err
	cat conftest.err >> config.log
	if test ! -s conftest.err; then
		echo yes
		echo "#define HAVE_$(echo "$1" | tr 'a-z./' 'A-Z__') 1" >> config.h
	else
		echo no
	fi
	rm -f conftest.c conftest.o conftest.err
}
check_func() {
	printf 'checking for %s... ' "$1"
	printf 'char %s(void);\nint main(void) { return %s(); }\n' "$1" "$1" > conftest.c
	if ${CC:-cc} conftest.c -o conftest 2> conftest.err && test ! -s conftest.err; then
		echo yes
	else
		echo no
	fi
	cat conftest.err >> config.log
	rm -f conftest.c conftest conftest.err
}
for h in stdio.h unistd.h sys/stat.h no/such/header.h; do check_header "$h"; done
for f in getpid no_such_function_xyz; do check_func "$f"; done
echo 'creating Makefile'
printf 'hello: hello.c config.h\n\t$(CC) -Wall -o hello hello.c\n\techo warning-on-stderr >&2\n' > Makefile
EOF
	chmod +x configure
	printf '#include "config.h"\n#include <stdio.h>\nint main(void) { printf("hello\\n"); return 0; }\n' > hello.c
	local build='./configure && make && ./hello'
	plain sh -c "$build"
	assert_status 0
	cp "$T/stdout" "$T/out/plain.out" && cp "$T/stderr" "$T/out/plain.err"
	cp config.h "$T/out/plain.h"
	rm -f config.h config.log Makefile hello
	cordon --log "$T/log" -- sh -c "$build"
	assert_status 0
	cmp "$T/stdout" "$T/out/plain.out" || { show; fail "stdout differs under cordon"; }
	cmp "$T/stderr" "$T/out/plain.err" || { show; fail "stderr differs under cordon"; }
	cmp config.h "$T/out/plain.h" || fail "config.h differs under cordon"
	grep -q 'checking for no/such/header.h... no' "$T/stdout" ||
		fail "the configure checks did not run"
}

# --- D-12: preload loading failures ------------------------------------

# A 32-bit program cannot load the 64-bit shim (ld.so says so and goes
# on): the kernel layer holds the boundary and the run summary names it.
# cordon ships no 32-bit shim; see doc/security.md, "What the shim cannot see".
test_pitfall_D12_32bit_program_is_held_by_the_kernel_and_named() {
	pit_need_gcc
	pit_secret
	printf '#include <stdio.h>\nint main(int c, char **v) { FILE *f = fopen(v[1], "r"); char b[64] = ""; if (!f) { perror("fopen"); return 1; } fgets(b, sizeof(b), f); printf("%%s", b); return 0; }\n' > h32.c
	gcc -m32 -o h32 h32.c 2> /dev/null ||
		skip "SKIP: gcc -m32 cannot build (gcc-multilib is not installed)"
	./h32 /dev/null > /dev/null 2>&1 ||
		skip "SKIP: this kernel cannot run 32-bit programs (no IA32 emulation)"
	cordon --log "$T/log" -- sh -c "./h32 $T/out/secret"
	assert_status_not 0
	assert_stdout_lacks s3cr3t
	assert_content "$T/out/secret" s3cr3t
	assert_stderr_has "cordon: .*h32 ran without the shim"
	plain ./h32 "$T/out/secret"
	assert_status 0
	assert_stdout_has s3cr3t
}

d12_imports() { # ELF: the glibc versions it needs
	objdump -T "$1" | grep -F '*UND*' | grep -o 'GLIBC_[0-9.]*' | sort -u
}

test_pitfall_D12_shim_imports_only_glibc_2_2_5() {
	local versions
	command -v objdump > /dev/null || skip "SKIP: no objdump"
	# imports only: the versions the shim defines (realpath@GLIBC_2.3,
	# posix_spawn@GLIBC_2.15) are the old names it interposes
	versions=$(d12_imports "$HELPERS/libcordon.so")
	[ "$versions" = GLIBC_2.2.5 ] ||
		fail "libcordon.so needs: $(echo $versions)"
	# the twin: the same check sees newer versions where they are
	d12_imports "$HELPERS/ffidrive" | grep -vqx GLIBC_2.2.5 ||
		fail "the check cannot see a newer version"
}

test_pitfall_D12_asan_program_runs_under_cordon() {
	pit_need_gcc
	printf '#include <stdio.h>\n#include <stdlib.h>\nint main(void) { char *p = malloc(8); p[0] = 1; printf("ok %%d\\n", p[0]); free(p); return 0; }\n' > asan.c
	gcc -fsanitize=address -o asan asan.c 2> /dev/null ||
		skip "SKIP: gcc cannot build with -fsanitize=address (libasan)"
	plain ./asan
	assert_status 0
	assert_stdout_has "ok 1"
	cordon --log "$T/log" -- ./asan
	assert_status 0
	assert_stdout_has "ok 1"
	cordon --log "$T/log" -- sh -c ./asan
	assert_status 0
	assert_stdout_has "ok 1"
	# the shim is in the ASan program: it explains a refused open
	printf '#include <stdio.h>\nint main(int c, char **v) { return fopen(v[1], "r") ? 0 : 3; }\n' > asan2.c
	gcc -fsanitize=address -o asan2 asan2.c 2> /dev/null || fail "no asan2"
	pit_secret
	cordon --log "$T/log" -- ./asan2 "$T/out/secret"
	assert_status 3
	assert_stderr_has "^cordon: denied read $T/out/secret \\[fopen\\]"
	plain ./asan2 "$T/out/secret"
	assert_status 0
}

# --- D-13: exec semantics ----------------------------------------------

# pit_same CMD...: CMD gives the same status, stdout and stderr (cordon's
# own lines aside) with and without cordon.
pit_same() {
	local want
	plain "$@"
	want="$status|$(cat "$T/stdout")|$(cat "$T/stderr")"
	cordon --log "$T/log" -- "$@"
	[ "$status|$(cat "$T/stdout")|$(grep -v '^cordon: ' "$T/stderr")" = "$want" ] ||
		{ show; fail "differs under cordon: $* (without: $want)"; }
}

test_pitfall_D13_shebangless_script_runs_as_without_cordon() {
	printf 'echo hi-from-script\n' > s && chmod +x s
	printf 'all:\n\t./s\n' > Makefile
	pit_same env ./s
	assert_stdout_has hi-from-script
	pit_same sh -c ./s
	pit_same make -s
	assert_stdout_has hi-from-script
	pit_same python3 -c 'import os; os.system("./s")'
	pit_same python3 -c 'import os; os.spawnvp(os.P_WAIT, "./s", ["./s"])'
	pit_same sh -c 'echo | xargs ./s'
}

test_pitfall_D13_exec_errors_match_without_cordon() {
	printf '#!/bin/sh\necho nox\n' > nox
	mkdir dir
	pit_same env ./nope
	assert_status 127
	pit_same env ./nox
	assert_status 126
	pit_same env ./dir
	assert_status 126
	pit_same python3 -c 'import subprocess
for p in ["./nope", "./nox", "./dir"]:
    try:
        subprocess.run([p])
    except OSError as e:
        print(p, e.errno)'
}

# --- D-14: wrapper ABI bugs -------------------------------------------

test_pitfall_D14_tmpfile_keeps_its_mode() {
	local want
	plain "$HELPERS/pit_tmpfile" "$T/ws" plain
	assert_status 0
	want=$(stat -c %a "$T/ws/plain")
	[ "$want" != 0 ] || fail "the twin made mode 0"
	cordon --log "$T/log" -- "$HELPERS/pit_tmpfile" "$T/ws" sandboxed
	assert_status 0
	[ "$(stat -c %a "$T/ws/sandboxed")" = "$want" ] ||
		fail "mode $(stat -c %a "$T/ws/sandboxed") under cordon, $want without"
	CORDON_POLICY=$(shim_policy) LD_PRELOAD="$HELPERS/libcordon.so" \
		"$HELPERS/pit_tmpfile" "$T/ws" shimmed || fail "pit_tmpfile failed"
	[ "$(stat -c %a "$T/ws/shimmed")" = "$want" ] ||
		fail "mode $(stat -c %a "$T/ws/shimmed") with the shim, $want without"
	cordon --log "$T/log" -- "$HELPERS/pit_tmpfile" "$T/out" x
	assert_status_not 0
	assert_absent "$T/out/x"
	assert_stderr_has "cordon: denied write $T/out"
}

test_pitfall_D14_exec_from_a_64k_stack_thread() {
	pit_run 60 "$CORDON" --log "$T/log" -- "$HELPERS/pit_smallstack" 100000 /bin/echo
	assert_status 0
	[ "$(wc -w < "$T/stdout")" -eq 100000 ] || fail "echo printed $(wc -w < "$T/stdout") words"
	pit_run 60 "$HELPERS/pit_smallstack" 100000 /bin/echo
	assert_status 0
	[ "$(wc -w < "$T/stdout")" -eq 100000 ] || fail "the twin printed $(wc -w < "$T/stdout") words"
}

test_pitfall_D14_old_symbol_version_is_forwarded_to_it() {
	pit_need_gcc
	pit_secret
	cat > oldver.c <<'EOF'
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
__asm__(".symver realpath,realpath@GLIBC_2.2.5");
int main(int argc, char **argv)
{
	char buf[PATH_MAX];
	for (int i = 1; i < argc; i++) {
		char *r = realpath(argv[i], buf);
		printf("%s -> %s (%s)\n", argv[i], r ? r : "NULL", r ? "ok" : strerror(errno));
	}
	return 0;
}
EOF
	gcc -o oldver oldver.c || fail "cannot build oldver"
	nm -D oldver | grep -q 'realpath@GLIBC_2.2.5' || fail "oldver does not import realpath@GLIBC_2.2.5"
	mkdir -p d && ln -s d/../oldver.c l
	pit_same ./oldver l d/. nope ./oldver.c
	cordon --log "$T/log" -- ./oldver "$T/out/secret"
	assert_stdout_has "(No such file or directory)"
	assert_stderr_has "cordon: denied .*$T/out/secret"
	plain ./oldver "$T/out/secret"
	assert_stdout_has "$T/out/secret -> $T/out/secret (ok)"
}

# --- D-15: network attribution -----------------------------------------

test_pitfall_D15_unix_socket_outside_is_denied() {
	mkdir -p "$T/out/run"
	listen_unix "$T/out/run/docker.sock"
	local py='import socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
print("connected")'
	cordon --log "$T/log" -- python3 -c "$py" "$T/out/run/docker.sock"
	assert_status_not 0
	assert_stdout_lacks connected
	assert_stderr_has "cordon: denied .*$T/out/run/docker.sock.*\[connect\(, by the kernel\)\?\]"
	pit_has_record operation=connect "resolved=$T/out/run/docker.sock"
	plain python3 -c "$py" "$T/out/run/docker.sock"
	unlisten_unix
	assert_status 0
	assert_stdout_has connected
}

test_pitfall_D15_udp_sendto_is_denied() {
	local py='import socket, sys
socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"x", ("127.0.0.1", int(sys.argv[1])))
print("sent")'
	start_listener -u -t 60
	cordon --log "$T/log" -- python3 -c "$py" "$port"
	assert_status_not 0
	assert_stdout_lacks sent
	CORDON_POLICY=$(shim_policy) LD_PRELOAD="$HELPERS/libcordon.so" \
		python3 -c "$py" "$port" > "$T/stdout" 2> "$T/stderr"
	status=$?
	assert_status_not 0
	assert_stderr_has "cordon: denied .*127.0.0.1:$port.*\[sendto\]"
	plain python3 -c "$py" "$port"
	assert_status 0
	for _ in $(seq 40); do
		[ "$(cat "$T/count")" -ge 1 ] && break
		sleep 0.05
	done
	contacts=$(cat "$T/count")
	kill "$listener_pid" 2>/dev/null
	wait "$listener_pid" 2>/dev/null
	[ "$contacts" = 1 ] || fail "the listener counted $contacts datagrams, expected the twin's 1"
}

test_pitfall_D15_name_resolution_fails_cleanly() {
	pit_run 60 "$CORDON" --log "$T/log" -- getent hosts cordon-test.example.com
	[ "$status" -lt 128 ] || { show; fail "getent died of a signal"; }
	assert_status_not 0
	pit_run 60 "$CORDON" --log "$T/log" -- getent hosts localhost
	assert_status 0
	assert_stdout_has 127.0.0.1
	pit_run 60 getent hosts localhost
	assert_status 0
}
