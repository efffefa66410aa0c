# Filesystem roots: every denial here has its twin that succeeds.

test_rm_rf_outside_is_refused() {
	make_tree "$T/out/victim"
	cordon -- rm -rf "$T/out/victim"
	assert_status_not 0
	assert_tree "$T/out/victim"
	plain rm -rf "$T/out/victim"
	assert_status 0
	assert_absent "$T/out/victim"
}

test_write_in_workspace() {
	cordon -- sh -c 'echo made > new && mkdir d && echo x > d/f && mv d/f d/g'
	assert_status 0
	assert_content "$T/ws/new" made
	assert_content "$T/ws/d/g" x
}

test_write_outside_is_refused() {
	cordon -- sh -c "echo bad > '$T/out/new'"
	assert_status_not 0
	assert_absent "$T/out/new"
	plain sh -c "echo good > '$T/out/new'"
	assert_content "$T/out/new" good
}

test_read_secret_outside_is_refused() {
	echo s3cr3t > "$T/out/secret"
	cordon -- sh -c "cat '$T/out/secret' > leak"
	assert_status_not 0
	! grep -q s3cr3t leak 2>/dev/null || fail "the secret reached the workspace"
	plain sh -c "cat '$T/out/secret' > leak"
	assert_content "$T/ws/leak" s3cr3t
}

test_read_only_root_reads_but_never_changes() {
	mkdir "$T/ro" && echo orig > "$T/ro/file"
	cordon -r "$T/ro" -- cat "$T/ro/file"
	assert_status 0
	assert_stdout_has orig
	cordon -r "$T/ro" -- sh -c "echo more >> '$T/ro/file'"
	assert_status_not 0
	cordon -r "$T/ro" -- truncate -s 0 "$T/ro/file"
	assert_status_not 0
	cordon -r "$T/ro" -- rm -f "$T/ro/file"
	assert_status_not 0
	assert_content "$T/ro/file" orig
	cordon -w "$T/ro" -- sh -c "echo more >> '$T/ro/file'"
	assert_status 0
	assert_content "$T/ro/file" "orig
more"
}

test_added_write_root() {
	mkdir "$T/extra"
	cordon --write "$T/extra" -- sh -c "echo y > '$T/extra/new'"
	assert_status 0
	assert_content "$T/extra/new" y
	cordon -- sh -c "echo y > '$T/extra/other'"
	assert_status_not 0
	assert_absent "$T/extra/other"
}

test_exec_outside_exec_roots_is_refused() {
	mkdir "$T/bin" && cp "$(command -v touch)" "$T/bin/mytouch"
	cordon -r "$T/bin" -- "$T/bin/mytouch" "$T/ws/marker"
	assert_status 126
	assert_absent "$T/ws/marker"
	assert_stderr_has "allow with --exec $T/bin"
	cordon -x "$T/bin" -- "$T/bin/mytouch" "$T/ws/marker"
	assert_status 0
	assert_exists "$T/ws/marker"
}

test_exec_in_workspace() {
	cp "$(type -P true)" ./mytrue
	cordon -- ./mytrue
	assert_status 0
	cordon -m read-only -- ./mytrue
	assert_status 0
}

test_read_only_mode_changes_nothing() {
	echo keep > kept
	cordon -m read-only -- sh -c 'echo x > new; echo x >> kept; rm -f kept'
	assert_absent "$T/ws/new"
	assert_content "$T/ws/kept" keep
	cordon -m read-only -- cat kept
	assert_status 0
	assert_stdout_has keep
	cordon -- sh -c 'echo x > new'
	assert_exists "$T/ws/new"
}

test_home_is_invisible_but_dotfiles_readable() {
	echo key > "$T/out/id_test"
	cordon -- ls "$HOME"
	assert_status_not 0
	cordon -- cat "$T/out/id_test"
	assert_status_not 0
	[ -r "$HOME/.profile" ] || [ -r "$HOME/.bashrc" ] ||
		skip "SKIP: neither ~/.profile nor ~/.bashrc exists for $USER"
	cordon -- sh -c 'cat ~/.profile || cat ~/.bashrc'
	assert_status 0
}

test_temp_dirs_writable() {
	cordon -- sh -c 'f=$(mktemp) && echo t > "$f" && cat "$f" && rm "$f"'
	assert_status 0
	assert_stdout_has t
}

test_tilde_and_dot_roots() {
	mkdir -p "$T/tilde"
	rel=${T#"$HOME"/}
	cordon -w "~/$rel/tilde" -- touch "$T/tilde/a"
	assert_status 0
	assert_exists "$T/tilde/a"
	cd "$T/tilde" || fail "cd"
	cordon -m read-only -w . -- touch b
	assert_status 0
	assert_exists "$T/tilde/b"
}

test_missing_root_is_refused_with_its_name() {
	cordon -w "$T/nope" -- touch "$T/ws/ran"
	assert_status 125
	assert_absent "$T/ws/ran"
	assert_stderr_has "cordon: --write '$T/nope': No such file or directory"
	assert_stderr_lines 1
}

test_symlinked_root_grants_its_target() {
	mkdir "$T/real" && ln -s "$T/real" "$T/link"
	cordon -w "$T/link" -- touch "$T/real/f"
	assert_status 0
	assert_exists "$T/real/f"
}

# the option a denial line in $T/stderr suggests (for READ, WRITE...),
# split into $flag and $grant, to paste as printed
suggested_option() { # WORD
	read -r flag grant < <(sed -n "s/^cordon: denied $1 .*; allow with //p" "$T/stderr" | head -n 1)
	[ -n "${grant:-}" ] || { show; fail "no denied $1 line suggests an option"; }
}

# A root named through a chain of links (l2 -> lnk -> real, and abs ->
# the same by an absolute path): realpath(3) reads every link on the
# way, so each is seen; nothing more of real is granted than sub.
chain_of_links() {
	mkdir -p "$T/r/real/sub"
	echo f > "$T/r/real/sub/f"
	echo s3cr3t > "$T/r/real/other"
	ln -s real "$T/r/lnk"
	ln -s lnk "$T/r/l2"
	ln -s "$T/r/l2/sub" "$T/r/abs"
}

test_a_root_through_a_chain_of_links_resolves() {
	chain_of_links
	cordon --read "$T/r/l2/sub" -- realpath "$T/r/l2/sub/f"
	assert_status 0
	assert_stdout_has "^$T/r/real/sub/f$"
	! grep -q '^cordon: denied' "$T/stderr" || { show; fail "a denial"; }
	cordon --read "$T/r/l2/sub" -- cat "$T/r/l2/sub/f"
	assert_status 0
	assert_stdout_has '^f$'
	cordon --read "$T/r/abs" -- realpath "$T/r/abs/f"
	assert_status 0
	assert_stdout_has "^$T/r/real/sub/f$"
	# seen, not granted: real outside sub stays unreadable, by the
	# shim and by the kernel alone
	cordon --read "$T/r/l2/sub" -- cat "$T/r/l2/other"
	assert_status_not 0
	assert_stdout_lacks s3cr3t
	assert_stderr_has "^cordon: denied read $T/r/l2/other ($T/r/real/other) "
	cordon --no-shim --read "$T/r/abs" -- sh -c "cat '$T/r/lnk/other'; ls '$T/r/real'"
	assert_status_not 0
	assert_stdout_lacks s3cr3t
	assert_stdout_lacks other
	# twin: the option the line suggests, pasted, reads it
	cordon --read "$T/r/l2/sub" -- cat "$T/r/l2/other"
	suggested_option read
	cordon --read "$T/r/l2/sub" "$flag" "$grant" -- cat "$T/r/l2/other"
	assert_status 0
	assert_stdout_has s3cr3t
}

# A link seen only to be walked through: removing it is refused in the
# words of what it is, and the option named (its directory's write, as
# for any entry) allows exactly that; --write naming the link would
# grant its target instead.
test_removing_a_link_on_the_way_names_its_directory() {
	chain_of_links
	cordon --read "$T/r/l2/sub" -- rm "$T/r/lnk"
	assert_status_not 0
	assert_stderr_has "^cordon: denied write $T/r/lnk \[[a-z]*\] ($T/r/lnk is a symbolic link, seen only so that paths through it resolve); allow with --write $T/r$"
	[ -L "$T/r/lnk" ] || fail "the link was removed"
	cordon --no-shim --read "$T/r/l2/sub" -- rm "$T/r/lnk"
	assert_status_not 0
	[ -L "$T/r/lnk" ] || fail "the link was removed (kernel alone)"
	# pasted as printed, the option removes the link and only it
	cordon --read "$T/r/l2/sub" -- rm "$T/r/lnk"
	suggested_option write
	cordon --read "$T/r/l2/sub" "$flag" "$grant" -- rm "$T/r/lnk"
	assert_status 0
	[ ! -L "$T/r/lnk" ] || fail "the link is still there"
	assert_content "$T/r/real/sub/f" f
}

# A mount below a root that the host made noexec (run.sh mounts one
# under /run): in a user's namespace that flag is locked, and the rest
# of the root is made executable all the same.
test_exec_root_over_a_locked_noexec_mount() {
	mountpoint -q /run/cordon-it-noexec ||
		skip "SKIP: run.sh (as root) mounts /run/cordon-it-noexec for this test"
	cordon --no-shim --no-defaults -x / -w "$T/ws" -- touch "$T/ws/f"
	assert_status 0
	assert_exists "$T/ws/f"
	cordon --no-defaults -x / -w "$T/ws" -- sh -c 'echo ok > "$1"' sh "$T/ws/g"
	assert_status 0
	assert_content "$T/ws/g" "ok"
}

test_no_defaults_grants_nothing_else() {
	cordon --no-defaults -x / -- touch "$T/ws/f"
	assert_status_not 0
	assert_absent "$T/ws/f"
	cordon --no-defaults -x / -w "$T/ws" -- touch "$T/ws/f"
	assert_status 0
	assert_exists "$T/ws/f"
}
