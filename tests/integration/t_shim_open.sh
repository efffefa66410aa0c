# The open family of the shim (shim/hook_open.c).

test_open_tmpfile_keeps_its_mode() {
	shim_run "$HELPERS/shimdrive_open" tmpfile "$T/ws" kept
	assert_status 0
	assert_stdout_has '^644$'
	plain "$HELPERS/shimdrive_open" tmpfile "$T/ws" twin
	assert_stdout_has '^644$'
	shim_run "$HELPERS/shimdrive_open" tmpfile "$T/out" no
	assert_status 1
	assert_absent "$T/out/no"
	assert_stderr_has "cordon: denied write $T/out \[open\]"
}

test_open_errno_is_preserved_on_allow() {
	echo x > f
	shim_run "$HELPERS/shimdrive_open" errno "$T/ws/f"
	assert_status 0
	assert_stdout_has 'fd ok errno 1234'
}

test_open_fopen_modes_map_to_rights() {
	echo orig > "$T/out/f"
	for m in w a r+ w+ a+ wx; do
		shim_run "$HELPERS/shimdrive_open" fopen "$T/out/f" "$m"
		assert_stdout_has EACCES
	done
	assert_content "$T/out/f" orig
	# a read of the hidden file: absent for the program
	shim_run "$HELPERS/shimdrive_open" fopen "$T/out/f" r
	assert_stdout_has ENOENT
	shim_run "$HELPERS/shimdrive_open" fopen "$T/ws/new" w
	assert_stdout_has '^ok$'
	assert_exists "$T/ws/new"
	plain "$HELPERS/shimdrive_open" fopen "$T/out/f" a
	assert_stdout_has '^ok$'
}

test_open_openat_relative_to_a_dirfd() {
	echo s > "$T/out/key"
	shim_run "$HELPERS/shimdrive_open" openat "$T/out" key
	assert_stdout_has ENOENT
	assert_stderr_has "cordon: denied read key ($T/out/key) \[openat\]"
	plain "$HELPERS/shimdrive_open" openat "$T/out" key
	assert_stdout_has '^ok$'
}

test_open_fortified_and_lfs_names() {
	command -v gcc > /dev/null || skip "SKIP: no gcc"
	cat > o.c <<'C'
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
int main(int c, char **v) { int f = atoi(v[2]); return open(v[1], f) < 0; }
C
	gcc -O2 -D_FORTIFY_SOURCE=2 -o o2 o.c && gcc -O2 -D_FILE_OFFSET_BITS=64 -D_FORTIFY_SOURCE=2 -o o64 o.c ||
		fail "cannot build"
	nm -D o2 | grep -q '__open_2' || fail "o2 does not call __open_2"
	nm -D o64 | grep -q '__open64_2' || fail "o64 does not call __open64_2"
	echo s > "$T/out/s"
	shim_run ./o2 "$T/out/s" 0
	assert_status 1
	assert_stderr_has "\[__open_2\]"
	shim_run ./o64 "$T/out/s" 0
	assert_status 1
	assert_stderr_has "\[__open64_2\]"
	plain ./o64 "$T/out/s" 0
	assert_status 0
}
