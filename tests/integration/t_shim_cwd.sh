# Relative paths after the working directory changed (shim/cwd.c keeps it,
# so that a relative path is decided without asking the kernel for it):
# through chdir and fchdir, into and out of a root; through a system call
# the shim never sees; in a vfork child that changes directory; from
# another thread; inside nftw (FTW_CHDIR).  Each refusal has its twin without the shim, and no
# allowed call may be refused however stale the copy kept.

# $T/out (hidden) holds secret and sub/file; $T/ws (the workspace) holds
# file and sub/file.
cwd_fixture() {
	mkdir -p "$T/out/sub" "$T/ws/sub"
	echo s3cr3t > "$T/out/secret"
	echo s3cr3t > "$T/out/sub/file"
	echo visible > "$T/ws/file"
	echo visible > "$T/ws/sub/file"
}

# cwd_run STEPS...: tests/helpers/pit_cwd with the shim alone.
cwd_run() {
	shim_run "$HELPERS/pit_cwd" "$@"
	assert_status 0
}

cwd_hidden_line() { # PATH-AS-GIVEN RESOLVED
	assert_stderr_has "^cordon: denied see $1 ($2) \[stat\]"
}

test_shim_cwd_chdir_into_and_out_of_a_root() {
	cwd_fixture
	# the directory seen in the workspace first (sub/), then the same
	# relative names where they are hidden, then back
	cwd_run stat file stat sub/file stat sub/file cd "$T/out" stat secret \
		stat sub/file stat ../ws/file cd "$T/ws" stat file stat sub/file \
		stat secret cd sub stat ../../out/secret stat file
	assert_stdout_has "^stat file ok$"
	assert_stdout_has "^stat secret ENOENT$"
	assert_stdout_has "^stat sub/file ENOENT$"
	assert_stdout_has "^stat ../ws/file ok$"
	assert_stdout_has "^stat secret ENOENT$"
	assert_stdout_has "^stat ../../out/secret ENOENT$"
	[ "$(grep -c ' ok$' "$T/stdout")" = 7 ] || { show; fail "7 allowed"; }
	cwd_hidden_line secret "$T/out/secret"
	cwd_hidden_line sub/file "$T/out/sub/file"
	plain "$HELPERS/pit_cwd" cd "$T/out" stat secret stat sub/file
	assert_stdout_has "^stat secret ok$"
	assert_stdout_has "^stat sub/file ok$"
}

# The directory seen last, met again by a relative path of the same
# length from another working directory of the same length, once that
# one is kept (a first look-up there).
test_shim_cwd_seen_directory_from_another_cwd() {
	mkdir -p "$T/ws/ab/sub" "$T/out/h/sub"
	echo visible > "$T/ws/ab/sub/file"
	echo s3cr3t > "$T/out/h/sub/file"
	cwd_run cd "$T/ws/ab" stat sub/file stat sub/file cd "$T/out/h" \
		stat nothere stat sub/file
	[ "$(grep -c '^stat sub/file ok$' "$T/stdout")" = 2 ] ||
		{ show; fail "sub/file allowed twice in the workspace"; }
	assert_stdout_has "^stat sub/file ENOENT$"
	cwd_hidden_line sub/file "$T/out/h/sub/file"
}

test_shim_cwd_fchdir_into_and_out_of_a_root() {
	cwd_fixture
	cwd_run stat sub/file fcd "$T/out" stat secret stat sub/file \
		fcd "$T/ws" stat sub/file stat file
	assert_stdout_has "^stat secret ENOENT$"
	assert_stdout_has "^stat sub/file ENOENT$"
	[ "$(grep -c '^stat sub/file ok$' "$T/stdout")" = 2 ] ||
		{ show; fail "sub/file allowed twice in the workspace"; }
	assert_stdout_has "^stat file ok$"
	cwd_hidden_line secret "$T/out/secret"
	cwd_hidden_line sub/file "$T/out/sub/file"
	plain "$HELPERS/pit_cwd" fcd "$T/out" stat secret
	assert_stdout_has "^stat secret ok$"
}

# The chdir system call itself: the copy kept is stale.  What it allows
# is still allowed (a refusal is decided on a fresh resolution), and a
# read it would let through the kernel refuses, explained with the path
# as it resolves from the real working directory.
test_shim_cwd_raw_chdir_never_refuses_what_is_allowed() {
	cwd_fixture
	cwd_run cd "$T/out" stat secret rawcd "$T/ws" stat file stat sub/file \
		open file open sub/file
	assert_stdout_has "^stat secret ENOENT$"
	[ "$(grep -c ' ok$' "$T/stdout")" = 4 ] || { show; fail "4 allowed"; }
	assert_stderr_lines 1
}

test_shim_cwd_raw_chdir_refusal_explained_through_cordon() {
	cwd_fixture
	cordon -- "$HELPERS/pit_cwd" stat file open file rawcd "$T/out" \
		open secret open sub/file rawcd "$T/ws" open file
	assert_status 0
	assert_stdout_has "^open secret EACCES$"
	assert_stdout_has "^open sub/file EACCES$"
	[ "$(grep -c '^open file ok$' "$T/stdout")" = 2 ] ||
		{ show; fail "file opened twice in the workspace"; }
	assert_stderr_has "^cordon: denied read secret ($T/out/secret) \["
	assert_stderr_has "^cordon: denied read sub/file ($T/out/sub/file) \["
	plain "$HELPERS/pit_cwd" rawcd "$T/out" open secret
	assert_stdout_has "^open secret ok$"
}

# A vfork child runs on its parent's memory: where it goes must not
# become where the parent is.
test_shim_cwd_vfork_child_that_changes_directory() {
	cwd_fixture
	cwd_run cd "$T/out" stat secret vfork "$T/ws" file vfork "$T/ws" secret \
		stat secret stat sub/file
	assert_stdout_has "^vfork file ok$"
	assert_stdout_has "^vfork secret ENOENT$"
	[ "$(grep -c '^stat secret ENOENT$' "$T/stdout")" = 2 ] ||
		{ show; fail "the parent's hidden file seen after the child"; }
	assert_stdout_has "^stat sub/file ENOENT$"
}

# The working directory is the process's: a change by one thread holds
# for every other at its next call.
test_shim_cwd_two_threads() {
	cwd_fixture
	cwd_run stat file tstat file thread "$T/out" stat secret tstat secret \
		stat sub/file thread "$T/ws" stat file tstat sub/file
	assert_stdout_has "^stat secret ENOENT$"
	assert_stdout_has "^tstat secret ENOENT$"
	assert_stdout_has "^stat sub/file ENOENT$"
	[ "$(grep -c ' ok$' "$T/stdout")" = 4 ] || { show; fail "4 allowed"; }
	cwd_hidden_line secret "$T/out/secret"
}

# nftw with FTW_CHDIR changes directory inside libc, through a link here
# into the hidden tree: each callback meets the directory it is in.
test_shim_cwd_nftw_chdir() {
	cwd_fixture
	ln -s "$T/out" "$T/ws/toout"
	cwd_run stat file nftw "$T/ws" stat file
	assert_stdout_has "^nftw $T/ws/file ok$"
	assert_stdout_has "^nftw $T/ws/sub/file ok$"
	assert_stdout_has "^nftw $T/ws/toout/secret ENOENT$"
	assert_stdout_has "^nftw $T/ws/toout/sub/file ENOENT$"
	[ "$(grep -c '^stat file ok$' "$T/stdout")" = 2 ] ||
		{ show; fail "file allowed before and after the walk"; }
	cwd_hidden_line secret "$T/out/secret"
	plain "$HELPERS/pit_cwd" nftw "$T/ws"
	assert_stdout_has "^nftw $T/ws/toout/secret ok$"
}
