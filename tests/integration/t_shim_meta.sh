# The shim's change family, continued from t_shim_change.sh (whose
# change_* helpers these tests use): metadata (mode, owner, times,
# extended attributes), the fd forms, links in the workspace, calls that
# fail by themselves, real tools, and the record of a denial.  Every
# denial has its twin, as there.

test_change_mode_outside_is_refused() {
	local fn
	echo out > "$T/out/f" && chmod 644 "$T/out/f"
	for fn in chmod lchmod fchmodat fchmodat-nofollow; do
		echo "== $fn"
		echo ws > "$T/ws/f" && chmod 644 "$T/ws/f"
		change_drive shim_run "$fn" "$T/out/f" 600
		change_refused "${fn%-*}" "$T/out/f"
		[ "$(change_stat %a "$T/out/f")" = 644 ] || fail "$fn changed it"
		change_drive shim_run "$fn" "$T/ws/f" 600
		change_succeeded
		[ "$(change_stat %a "$T/ws/f")" = 600 ] || fail "$fn did nothing"
	done
	change_drive plain chmod "$T/out/f" 600
	assert_status 0
	[ "$(change_stat %a "$T/out/f")" = 600 ] || fail "chmod did nothing"
}

# As root the owner is given away to nobody; a user can only give a file
# to itself, which is still a change the shim refuses.
test_change_owner_outside_is_refused() {
	local fn ids want
	ids="$(id -u) $(id -g)"
	change_is_root && ids="65534 65534"
	echo out > "$T/out/f"
	want=$(change_stat %u:%g "$T/out/f")
	for fn in chown lchown fchownat fchownat-nofollow; do
		echo "== $fn"
		echo ws > "$T/ws/f"
		# shellcheck disable=SC2086
		change_drive shim_run "$fn" "$T/out/f" $ids
		change_refused "${fn%-*}" "$T/out/f"
		[ "$(change_stat %u:%g "$T/out/f")" = "$want" ] ||
			fail "$fn changed the owner"
		# shellcheck disable=SC2086
		change_drive shim_run "$fn" "$T/ws/f" $ids
		change_succeeded
		[ "$(change_stat '%u %g' "$T/ws/f")" = "$ids" ] ||
			fail "$fn did nothing"
		rm -f "$T/ws/f"
	done
	# shellcheck disable=SC2086
	change_drive plain chown "$T/out/f" $ids
	assert_status 0
}

test_change_times_outside_are_refused() {
	local fn want
	echo out > "$T/out/f"
	want=$(change_stat %.9Y "$T/out/f")
	for fn in utime utimes lutimes utimensat utimensat-nofollow futimesat; do
		echo "== $fn"
		echo ws > "$T/ws/f"
		if [ "$fn" = futimesat ]; then
			change_drive shim_run "$fn" "$T/out" f 1000000000
			change_refused "$fn" "f ($T/out/f)" "$T/out/f"
			change_drive shim_run "$fn" "$T/ws" f 1000000000
		else
			change_drive shim_run "$fn" "$T/out/f" 1000000000
			change_refused "${fn%-*}" "$T/out/f"
			change_drive shim_run "$fn" "$T/ws/f" 1000000000
		fi
		change_succeeded
		[ "$(change_stat %.9Y "$T/out/f")" = "$want" ] ||
			fail "$fn changed the time outside"
		[ "$(change_stat %Y "$T/ws/f")" = 1000000000 ] ||
			fail "$fn did nothing"
	done
	change_drive plain utimes "$T/out/f" 1000000000
	assert_status 0
	[ "$(change_stat %Y "$T/out/f")" = 1000000000 ] || fail "utimes did nothing"
}

# The fd form of futimesat (a NULL path) changes the file the program
# holds: decided on that file, as fchmod and futimens are (hook_change.c
# fd_op()); glibc's utimensat refuses a NULL path itself (EINVAL):
# forwarded untouched, with the result it has without the shim.
test_change_fd_forms_are_forwarded() {
	local want
	echo out > "$T/out/f"
	change_drive plain utimensat-null "$T/out/f" 1000000000
	want=$(cat "$T/stdout")
	echo out > "$T/out/f"
	change_drive shim_run utimensat-null "$T/out/f" 1000000000
	assert_stdout_has "^$want$"
	assert_stderr_lines 0
	want=$(change_stat %.9Y "$T/out/f")
	change_drive shim_run futimesat-null "$T/out/f" 1000000000
	change_refused futimesat "$T/out/f"
	[ "$(change_stat %.9Y "$T/out/f")" = "$want" ] ||
		fail "futimesat changed the time outside"
	echo ws > "$T/ws/f"
	change_drive shim_run futimesat-null "$T/ws/f" 1000000000
	change_succeeded
	[ "$(change_stat %Y "$T/ws/f")" = 1000000000 ] || fail "futimesat did nothing"
	# the twin: without the shim it changes the file outside
	change_drive plain futimesat-null "$T/out/f" 1000000000
	assert_status 0
	[ "$(change_stat %Y "$T/out/f")" = 1000000000 ] || fail "futimesat did nothing"
}

change_xattr() { # get|list path [name]
	/usr/bin/python3 -c 'import os, sys
if sys.argv[1] == "get":
    print(os.getxattr(sys.argv[2], sys.argv[3]).decode())
else:
    print(" ".join(os.listxattr(sys.argv[2])))' "$@"
}

test_change_xattrs_outside_are_refused() {
	local fn
	echo out > "$T/out/f"
	echo ws > "$T/ws/f"
	change_drive plain setxattr "$T/ws/f" user.probe 1
	[ "$status" -eq 0 ] || skip "SKIP: no user xattrs here: $(cat "$T/stdout")"
	for fn in setxattr lsetxattr; do
		echo "== $fn"
		change_drive shim_run "$fn" "$T/out/f" user.cordon "$fn"
		change_refused "$fn" "$T/out/f"
		[ -z "$(change_xattr list "$T/out/f")" ] || fail "$fn set it"
		change_drive shim_run "$fn" "$T/ws/f" user.cordon "$fn"
		change_succeeded
		[ "$(change_xattr get "$T/ws/f" user.cordon)" = "$fn" ] ||
			fail "$fn did nothing"
	done
	change_drive plain setxattr "$T/out/f" user.keep 1
	assert_status 0
	for fn in removexattr lremovexattr; do
		echo "== $fn"
		change_drive plain setxattr "$T/ws/f" user.gone 1
		change_drive shim_run "$fn" "$T/out/f" user.keep
		change_refused "$fn" "$T/out/f"
		[ "$(change_xattr get "$T/out/f" user.keep)" = 1 ] ||
			fail "$fn removed it"
		change_drive shim_run "$fn" "$T/ws/f" user.gone
		change_succeeded
		case " $(change_xattr list "$T/ws/f") " in
		*" user.gone "*) fail "$fn did nothing" ;;
		esac
	done
}

# ws/link -> out/f: the l* names, unlink, rename and a plain link act on
# the link in the workspace, and leave out/f alone.
test_change_link_itself_is_not_followed() {
	local want
	echo out > "$T/out/f" && chmod 644 "$T/out/f"
	ln -s "$T/out/f" "$T/ws/link"
	want=$(change_stat %.9Y "$T/out/f")
	change_drive shim_run lutimes "$T/ws/link" 1000000000
	change_succeeded
	change_drive shim_run utimensat-nofollow "$T/ws/link" 1000000000
	change_succeeded
	change_drive shim_run lchown "$T/ws/link" "$(id -u)" "$(id -g)"
	change_succeeded
	[ "$(change_stat %Y "$T/ws/link")" = 1000000000 ] || fail "lutimes"
	[ "$(change_stat %.9Y "$T/out/f")" = "$want" ] || fail "time changed"
	# glibc refuses to chmod a symlink: the same answer as without us.
	change_drive shim_run fchmodat-nofollow "$T/ws/link" 600
	assert_stdout_has "^fail EOPNOTSUPP$"
	assert_stderr_lines 0
	[ "$(change_stat %a "$T/out/f")" = 644 ] || fail "mode changed"
	change_drive shim_run linkat "$T/ws/link" "$T/ws/hard"
	change_succeeded
	[ -L "$T/ws/hard" ] || fail "linkat followed the link"
	change_drive shim_run rename "$T/ws/link" "$T/ws/link2"
	change_succeeded
	change_drive shim_run unlink "$T/ws/link2"
	change_succeeded
	assert_absent "$T/ws/link2"
	assert_content "$T/out/f" out
}

# The names that follow the link change out/f, outside the writable
# roots.  Landlock does not cover metadata: the shim is the only layer
# that refuses these, so it must decide them on the resolved path.
test_change_metadata_through_a_workspace_link_is_refused() {
	local want
	echo out > "$T/out/f" && chmod 644 "$T/out/f"
	ln -s "$T/out/f" "$T/ws/link"
	want=$(change_stat '%a %u %.9Y' "$T/out/f")
	change_drive shim_run utimes "$T/ws/link" 1000000000
	change_refused utimes "$T/ws/link ($T/out/f)" "$T/out/f"
	change_drive shim_run chmod "$T/ws/link" 600
	change_refused chmod "$T/ws/link ($T/out/f)" "$T/out/f"
	change_drive shim_run chown "$T/ws/link" "$(id -u)" "$(id -g)"
	change_refused chown "$T/ws/link ($T/out/f)" "$T/out/f"
	cordon -x "$HELPERS" -- "$HELPERS/shimdrive_change" chmod \
		"$T/ws/link" 600
	assert_status 1
	[ "$(change_stat '%a %u %.9Y' "$T/out/f")" = "$want" ] ||
		fail "out/f changed: $(change_stat '%a %u %.9Y' "$T/out/f")"
	change_drive plain chmod "$T/ws/link" 600
	assert_status 0
	[ "$(change_stat %a "$T/out/f")" = 600 ] || fail "chmod did nothing"
}

# A hard link made through ws/link would give out/f the workspace's
# rights: the kernel (Landlock's REFER) refuses it under cordon.
test_change_hard_link_through_a_workspace_link_is_refused() {
	echo out > "$T/out/f"
	ln -s "$T/out/f" "$T/ws/link"
	cordon -x "$HELPERS" -- "$HELPERS/shimdrive_change" linkat-follow \
		"$T/ws/link" "$T/ws/hard"
	assert_status 1
	assert_stdout_has "^fail E"
	assert_absent "$T/ws/hard"
	change_drive plain linkat-follow "$T/ws/link" "$T/ws/hard"
	assert_status 0
	[ "$T/ws/hard" -ef "$T/out/f" ] || fail "no hard link without cordon"
}

# A call that fails by itself (the name is taken, the file is not there)
# fails as it does without the shim, with no line, where the path is
# visible; where it is hidden, the shim keeps it hidden.
test_change_calls_that_fail_anyway_keep_their_errno() {
	local args want
	echo x > "$T/ws/f"
	for args in "mkdir /usr" "mkdir $T/ws" "mkfifo /etc" \
		"symlink x /usr/bin" "rmdir /usr/cordon-none" \
		"unlink /etc/cordon-none" "chmod /usr/cordon-none 600" \
		"rename /etc/cordon-none /usr/cordon-x" "link /usr/cordon-none $T/ws/x" \
		"link $T/ws/f /usr/bin"; do
		echo "== $args"
		# shellcheck disable=SC2086
		change_drive plain $args
		want=$(cat "$T/stdout")
		case $want in fail\ E*) ;; *) fail "'$args' did not fail: $want" ;; esac
		# shellcheck disable=SC2086
		change_drive shim_run $args
		assert_stdout_has "^$want$"
		assert_stderr_lines 0
	done
	mkdir "$T/out/d"
	change_drive shim_run mkdir "$T/out/d"
	assert_stdout_has "^fail EACCES$"
	change_stderr_has "cordon: denied see $T/out/d [mkdir] ("
}

# Real tools on a root granted read only (the files are visible, so the
# stat family lets the tools reach the call that changes).
test_change_tools_on_a_read_only_root_are_refused() {
	local ro=$T/ro cmd
	mkdir -p "$ro/dir/sub" "$ro/empty"
	echo keep > "$ro/f"
	local extra="|root=r,d,d,$ro"
	for cmd in "rm $ro/f" "rm -r $ro/dir" "rmdir $ro/empty" \
		"mv $ro/f $T/ws/" "mv $ro/dir $T/ws/" "mkdir $ro/new" \
		"ln -s x $ro/new" "ln $ro/f $T/ws/h" "chmod 600 $ro/f" \
		"touch -c -d @1000000000 $ro/f" "mkfifo $ro/new"; do
		echo "== $cmd"
		# shellcheck disable=SC2086
		change_run "$extra" $cmd
		assert_status_not 0
		assert_stderr_has "^cordon: denied write .*$ro/"
		assert_content "$ro/f" keep
		[ -d "$ro/dir/sub" ] || fail "$cmd removed $ro/dir/sub"
		[ -d "$ro/empty" ] || fail "$cmd removed $ro/empty"
		assert_absent "$ro/new"
		assert_absent "$T/ws/h"
		assert_absent "$T/ws/f"
	done
	[ "$(change_stat %a "$ro/f")" = 644 ] || fail "the mode changed"
	[ "$(change_stat %Y "$ro/f")" != 1000000000 ] || fail "the time changed"
	change_run "" /usr/bin/python3 -c "import os; os.rename('$ro/f', 'g')"
	assert_status_not 0
	change_stderr_has "cordon: denied write $ro/f [rename source] ("
	assert_content "$ro/f" keep
}

test_change_tools_in_the_workspace_succeed() {
	shim_run sh -c 'mkdir -p a/b/c && echo x > a/f && ln a/f a/h &&
		ln -s f a/l && chmod 600 a/f && touch -d @1000000000 a/h &&
		mv a/b a/moved && mkfifo a/p && rm a/p && rmdir a/moved/c &&
		mktemp -d -p a > /dev/null && rm -r a/moved &&
		cp -a a a2 && rm -rf a2'
	assert_status 0
	assert_stderr_lines 0
	assert_content "$T/ws/a/h" x
	[ "$(change_stat %a "$T/ws/a/f")" = 600 ] || fail "chmod did nothing"
	[ "$(change_stat %Y "$T/ws/a/f")" = 1000000000 ] || fail "touch did nothing"
	[ -L "$T/ws/a/l" ] || fail "ln -s did nothing"
	assert_absent "$T/ws/a/moved"
	shim_run /usr/bin/python3 -c 'import os, tempfile
os.makedirs("p/q", exist_ok=True); os.makedirs("p/q", exist_ok=True)
fd, name = tempfile.mkstemp(dir="p"); os.close(fd)
os.rename(name, "p/r"); os.link("p/r", "p/s"); os.symlink("r", "p/t")
os.utime("p/r", (1, 1)); os.chmod("p/r", 0o600); os.remove("p/s")
os.unlink("p/t"); os.replace("p/r", "p/q/r"); os.remove("p/q/r")
os.rmdir("p/q"); os.mkdir("p/u"); import shutil; shutil.rmtree("p")'
	assert_status 0
	assert_stderr_lines 0
	assert_absent "$T/ws/p"
}

test_change_denial_is_recorded_as_the_shims() {
	echo out > "$T/out/f"
	change_drive shim_run chmod "$T/out/f" 600
	change_refused chmod "$T/out/f"
	grep -q '"operation":"chmod".*"layer":"shim"' "$T/audit.jsonl" ||
		fail "no record: $(cat "$T/audit.jsonl" 2>&1)"
}
