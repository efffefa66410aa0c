# The shim's create and change families (shim/hook_create.c and
# shim/hook_change.c): every public name refuses to make, remove, rename,
# link or change anything outside the writable roots, with one line that
# names the call and the flag that allows it, and changes nothing.  Every
# denial has its twin: the same call in the workspace succeeds under the
# shim and keeps errno (the driver sets it to 1234 first), and the same
# call outside succeeds without the shim.

change_drive() { # shim_run|plain DRIVER-ARGS...
	local how=$1
	shift
	"$how" "$HELPERS/shimdrive_change" "$@"
}

# change_run EXTRA CMD...: shim_run with EXTRA appended to the policy.
change_run() {
	local extra=$1
	shift
	CORDON_POLICY="$(shim_policy)$extra" \
		LD_PRELOAD="$HELPERS/libcordon.so" \
		"$@" > "$T/stdout" 2> "$T/stderr"
	status=$?
	return 0
}

change_stderr_has() { # fixed string
	grep -qF -- "$1" "$T/stderr" || { show; fail "stderr lacks '$1'"; }
}

# change_refused FUNCTION PATH [GRANT]: the call failed with EACCES and
# the shim said why, once: PATH as it appears in the line (the path as
# given, then the resolved one in parentheses when they differ).
change_refused() {
	assert_status 1
	assert_stdout_has "^fail EACCES$"
	change_stderr_has "cordon: denied write $2 [$1] ("
	change_stderr_has "; allow with --write ${3:-$2}"
	assert_stderr_lines 1
}

change_read_refused() { # FUNCTION PATH [GRANT]
	assert_status 1
	assert_stdout_has "^fail EACCES$"
	change_stderr_has "cordon: denied read $2 [$1] ("
	change_stderr_has "; allow with --read ${3:-$2}"
}

# The call succeeded under the shim and left errno as it was.
change_succeeded() {
	assert_status 0
	assert_stdout_has "^ok errno=1234"
	assert_stderr_lines 0
}

change_empty() { # dir
	[ -z "$(ls -A "$1")" ] || { show; fail "$1 holds $(ls -A "$1")"; }
}

change_stat() { # format path: stat of the path itself
	stat -c "$1" -- "$2" || fail "cannot stat $2"
}

change_is_root() {
	[ "$(id -u)" -eq 0 ]
}

test_change_temp_files_outside_are_refused() {
	local fn tmpl made
	for fn in mkstemp mkstemp64 mkostemp mkostemp64 mkdtemp \
		mkstemps mkstemps64 mkostemps mkostemps64; do
		echo "== $fn"
		set -- "$fn"
		case $fn in *temps*) tmpl=tXXXXXX.c && set -- "$fn" 2 ;;
		*) tmpl=tXXXXXX ;; esac
		change_drive shim_run "$1" "$T/out/$tmpl" ${2:+"$2"}
		change_refused "$fn" "$T/out/$tmpl" "$T/out"
		change_empty "$T/out"
		change_drive shim_run "$1" "$T/ws/$tmpl" ${2:+"$2"}
		change_succeeded
		made=$(sed -n 's/^ok errno=1234 //p' "$T/stdout")
		case $made in "$T/ws/t"*) ;; *) fail "made '$made'" ;; esac
		assert_exists "$made"
		change_drive plain "$1" "$T/out/$tmpl" ${2:+"$2"}
		assert_status 0
		rm -rf "$T/out/"*
	done
}

# glibc makes tmpfile's file in P_tmpdir (/tmp) whatever TMPDIR says.
test_change_tmpfile_is_decided_in_tmp() {
	local p fn
	p=$(shim_policy)
	p=${p/"|root=rwx,d,d,/tmp|"/|}
	for fn in tmpfile tmpfile64; do
		echo "== $fn"
		CORDON_POLICY=$p LD_PRELOAD="$HELPERS/libcordon.so" \
			TMPDIR="$T/ws" "$HELPERS/shimdrive_change" "$fn" \
			> "$T/stdout" 2> "$T/stderr"
		status=$?
		change_refused "$fn" /tmp
		change_drive shim_run "$fn"
		change_succeeded
	done
}

test_change_fifos_and_nodes_outside_are_refused() {
	local fn
	for fn in mkfifo mknod __xmknod; do
		echo "== $fn"
		change_drive shim_run "$fn" "$T/out/node"
		change_refused "$fn" "$T/out/node" "$T/out"
		change_empty "$T/out"
		change_drive shim_run "$fn" "$T/ws/node"
		change_succeeded
		[ -p "$T/ws/node" ] || fail "$fn made no fifo in the workspace"
		rm -f "$T/ws/node"
	done
	for fn in mkfifoat mknodat __xmknodat; do
		echo "== $fn"
		change_drive shim_run "$fn" "$T/out" node
		change_refused "$fn" "node ($T/out/node)" "$T/out"
		change_empty "$T/out"
		change_drive shim_run "$fn" "$T/ws" node
		change_succeeded
		[ -p "$T/ws/node" ] || fail "$fn made no fifo in the workspace"
		rm -f "$T/ws/node"
		change_drive plain "$fn" "$T/out" node
		assert_status 0
		rm -f "$T/out/node"
	done
}

# A copy of a small library (libdl is a stub) to load from each side.
change_library() { # path
	local lib
	for lib in /lib/x86_64-linux-gnu/libdl.so.2 /usr/lib64/libdl.so.2 \
		/lib64/libdl.so.2; do
		[ -r "$lib" ] && { cp "$lib" "$1"; return 0; }
	done
	skip "SKIP: no libdl.so.2 to copy"
}

test_change_dlopen_outside_is_refused() {
	local fn
	change_library "$T/out/libx.so"
	change_library "$T/ws/libx.so"
	for fn in dlopen dlopen@2.2.5 dlmopen dlmopen@2.3.4; do
		echo "== $fn"
		change_drive shim_run "$fn" "$T/out/libx.so"
		change_read_refused "${fn%@*}" "$T/out/libx.so"
		change_drive shim_run "$fn" "$T/ws/libx.so"
		change_succeeded
		change_drive plain "$fn" "$T/out/libx.so"
		assert_status 0
	done
}

# dlopen reads its caller (RPATH, RUNPATH, $ORIGIN): the shim must not
# become the caller.  $ORIGIN is the driver's directory here, and the
# shim's own directory has no libx.so.  A name without a slash is
# searched by ld.so, where the shim cannot see: it is not decided.
test_change_dlopen_searches_as_its_caller() {
	mkdir "$T/ws/bin"
	cp "$HELPERS/shimdrive_change" "$T/ws/bin/"
	change_library "$T/ws/bin/libx.so"
	# shellcheck disable=SC2016
	shim_run "$T/ws/bin/shimdrive_change" dlopen '$ORIGIN/libx.so'
	change_succeeded
	# shellcheck disable=SC2016
	shim_run "$T/ws/bin/shimdrive_change" dlmopen '$ORIGIN/libx.so'
	change_succeeded
	change_drive shim_run dlopen libdl.so.2
	change_succeeded
}

test_change_spawn_addopen_outside_is_refused() {
	echo s3cr3t > "$T/out/secret"
	echo visible > "$T/ws/file"
	change_drive shim_run addopen-read "$T/out/secret"
	change_read_refused posix_spawn_file_actions_addopen "$T/out/secret"
	assert_stdout_lacks s3cr3t
	change_drive shim_run addopen-write "$T/out/new"
	change_refused posix_spawn_file_actions_addopen "$T/out/new" "$T/out"
	assert_absent "$T/out/new"
	change_drive shim_run addopen-read "$T/ws/file"
	change_succeeded
	assert_stdout_has visible
	change_drive shim_run addopen-write "$T/ws/new"
	change_succeeded
	assert_content "$T/ws/new" spawned
	change_drive plain addopen-write "$T/out/new"
	assert_content "$T/out/new" spawned
}

test_change_mkdir_outside_is_refused() {
	change_drive shim_run mkdir "$T/out/d"
	change_refused mkdir "$T/out/d" "$T/out"
	change_drive shim_run mkdirat "$T/out" d
	change_refused mkdirat "d ($T/out/d)" "$T/out"
	change_empty "$T/out"
	change_drive shim_run mkdir "$T/ws/d"
	change_succeeded
	change_drive shim_run mkdirat "$T/ws" e
	change_succeeded
	[ -d "$T/ws/d" ] || fail "mkdir made nothing"
	[ -d "$T/ws/e" ] || fail "mkdirat made nothing"
	change_drive plain mkdir "$T/out/d"
	assert_status 0
	[ -d "$T/out/d" ] || fail "mkdir made nothing without the shim"
}

test_change_removal_outside_is_refused() {
	local fn
	for fn in unlink remove unlinkat rmdir remove-dir unlinkat-rmdir; do
		echo "== $fn"
		rm -rf "$T/out/victim" "$T/ws/victim"
		case $fn in
		*dir) mkdir "$T/out/victim" "$T/ws/victim" ;;
		*) echo keep > "$T/out/victim" && echo x > "$T/ws/victim" ;;
		esac
		case $fn in
		unlinkat*)
			change_drive shim_run "$fn" "$T/out" victim
			change_refused unlinkat "victim ($T/out/victim)" \
				"$T/out/victim"
			change_drive shim_run "$fn" "$T/ws" victim ;;
		*)
			change_drive shim_run "${fn%-dir}" "$T/out/victim"
			change_refused "${fn%-dir}" "$T/out/victim"
			change_drive shim_run "${fn%-dir}" "$T/ws/victim" ;;
		esac
		change_succeeded
		assert_absent "$T/ws/victim"
		case $fn in
		*dir) [ -d "$T/out/victim" ] || fail "$fn removed it" ;;
		*) assert_content "$T/out/victim" keep ;;
		esac
		case $fn in
		unlinkat*) change_drive plain "$fn" "$T/out" victim ;;
		*) change_drive plain "${fn%-dir}" "$T/out/victim" ;;
		esac
		assert_status 0
		assert_absent "$T/out/victim"
	done
}

# Both ends are decided; the source takes everything under it along.
test_change_rename_outside_is_refused() {
	local fn
	for fn in rename renameat2 renameat2-noreplace; do
		echo "== $fn"
		make_tree "$T/out/tree"
		echo mine > "$T/ws/f"
		change_drive shim_run "$fn" "$T/out/tree" "$T/ws/tree"
		change_refused "${fn%-*}" "$T/out/tree"
		assert_tree "$T/out/tree"
		assert_absent "$T/ws/tree"
		change_drive shim_run "$fn" "$T/ws/f" "$T/out/f"
		change_refused "${fn%-*}" "$T/out/f" "$T/out"
		assert_content "$T/ws/f" mine
		assert_absent "$T/out/f"
		change_drive shim_run "$fn" "$T/ws/f" "$T/ws/g"
		change_succeeded
		assert_content "$T/ws/g" mine
		change_drive plain "$fn" "$T/out/tree" "$T/out/moved"
		assert_status 0
		assert_tree "$T/out/moved"
		rm -rf "$T/out/"* "$T/ws/"*
	done
}

test_change_renameat_and_exchange_outside_are_refused() {
	echo out > "$T/out/a"
	echo ws > "$T/ws/b"
	change_drive shim_run renameat "$T/ws" b "$T/out" c
	change_refused renameat "c ($T/out/c)" "$T/out"
	assert_absent "$T/out/c"
	change_drive shim_run renameat2-exchange "$T/ws/b" "$T/out/a"
	change_refused renameat2 "$T/out/a"
	assert_content "$T/out/a" out
	assert_content "$T/ws/b" ws
	echo other > "$T/ws/c"
	change_drive shim_run renameat2-exchange "$T/ws/b" "$T/ws/c"
	change_succeeded
	assert_content "$T/ws/b" other
	change_drive shim_run renameat "$T/ws" b "$T/ws" d
	change_succeeded
	assert_content "$T/ws/d" other
}

test_change_rename_gives_a_line_for_each_refused_end() {
	echo a > "$T/out/a"
	change_drive shim_run rename "$T/out/a" "$T/out/b"
	assert_status 1
	change_stderr_has "cordon: denied write $T/out/a [rename] ("
	change_stderr_has "cordon: denied write $T/out/b [rename] ("
	assert_stderr_lines 2
	assert_content "$T/out/a" a
}

# A link needs W on its source too: through the new name the file would
# get the rights of the new place.
test_change_link_outside_is_refused() {
	local fn
	echo out > "$T/out/f"
	echo ws > "$T/ws/f"
	for fn in link linkat linkat-follow; do
		echo "== $fn"
		change_drive shim_run "$fn" "$T/out/f" "$T/ws/l"
		change_refused "${fn%-*}" "$T/out/f"
		assert_absent "$T/ws/l"
		change_drive shim_run "$fn" "$T/ws/f" "$T/out/l"
		change_refused "${fn%-*}" "$T/out/l" "$T/out"
		assert_absent "$T/out/l"
		change_drive shim_run "$fn" "$T/ws/f" "$T/ws/l"
		change_succeeded
		[ "$T/ws/l" -ef "$T/ws/f" ] || fail "$fn made no hard link"
		rm -f "$T/ws/l"
	done
	change_drive plain link "$T/out/f" "$T/out/l"
	assert_status 0
	[ "$T/out/l" -ef "$T/out/f" ] || fail "link made nothing without the shim"
}

# AT_EMPTY_PATH: the source is a file the program already holds (the
# shim decides no fd form); the new name is decided as any other.  Only
# a privileged caller may link an fd: as a user both runs fail alike.
test_change_linkat_of_an_fd_decides_the_new_name() {
	local want
	echo out > "$T/out/f"
	echo ws > "$T/ws/f"
	change_drive shim_run linkat-fd "$T/ws/f" "$T/out/l"
	change_refused linkat "$T/out/l" "$T/out"
	assert_absent "$T/out/l"
	change_drive plain linkat-fd "$T/out/f" "$T/ws/m"
	want=$(cat "$T/stdout")
	rm -f "$T/ws/m"
	change_drive shim_run linkat-fd "$T/out/f" "$T/ws/m"
	assert_stdout_has "^$want$"
	assert_stderr_lines 0
}

# The target of a symlink is only text: the link path alone is decided.
test_change_symlink_outside_is_refused() {
	change_drive shim_run symlink "$T/ws" "$T/out/l"
	change_refused symlink "$T/out/l" "$T/out"
	change_drive shim_run symlinkat "$T/ws" "$T/out" l
	change_refused symlinkat "l ($T/out/l)" "$T/out"
	[ ! -L "$T/out/l" ] || fail "a link was made outside"
	change_drive shim_run symlink "$T/out/secret" "$T/ws/l"
	change_succeeded
	change_drive shim_run symlinkat "$T/out/secret" "$T/ws" m
	change_succeeded
	[ "$(readlink "$T/ws/l")" = "$T/out/secret" ] || fail "no link l"
	[ "$(readlink "$T/ws/m")" = "$T/out/secret" ] || fail "no link m"
	change_drive plain symlink "$T/ws" "$T/out/l"
	assert_status 0
}

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

# The fd forms (a NULL path) change the file the program already holds:
# forwarded untouched, with the result they have without the shim.
test_change_fd_forms_are_forwarded() {
	local fn want
	for fn in futimesat-null utimensat-null; do
		echo "== $fn"
		echo out > "$T/out/f"
		change_drive plain "$fn" "$T/out/f" 1000000000
		want=$(cat "$T/stdout")
		echo out > "$T/out/f"
		change_drive shim_run "$fn" "$T/out/f" 1000000000
		assert_stdout_has "^$want$"
		assert_stderr_lines 0
	done
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
	change_stderr_has "cordon: denied write $ro/f [rename] ("
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
