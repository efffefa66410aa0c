# The shim's create and change families (shim/hook_create.c and
# shim/hook_change.c): every public name refuses to make, remove, rename,
# link or change anything outside the writable roots, with one line that
# names the call and the flag that allows it, and changes nothing.  Every
# denial has its twin: the same call in the workspace succeeds under the
# shim and keeps errno (the driver sets it to 1234 first), and the same
# call outside succeeds without the shim.
# Metadata, links in the workspace and real tools: t_shim_meta.sh.

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
# given, then the resolved one in parentheses when they differ); GRANT
# the option's path (the directory, for a removal, a rename or a link).
change_refused() {
	assert_status 1
	assert_stdout_has "^fail EACCES$"
	change_stderr_has "cordon: denied write $2 [$1] ("
	change_stderr_has "; allow with --write ${3:-$2}"
	assert_stderr_lines 1
}

change_read_refused() { # FUNCTION PATH [GRANT]
	change_refused_as read "$@"
}

# A library is mapped executable: loading it needs --exec (a root that
# is only readable is a noexec mount).  $ERR: the errno expected
# (ENOENT for a path the policy hides: it is absent for the program).
change_refused_as() { # WORD FUNCTION PATH [GRANT]
	assert_status 1
	assert_stdout_has "^fail ${ERR:-EACCES}$"
	change_stderr_has "cordon: denied $1 $3 [$2] ("
	change_stderr_has "; allow with --$1 ${4:-$3}"
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
	local fn ERR=ENOENT # $T/out is hidden: the library is absent
	change_library "$T/out/libx.so"
	change_library "$T/ws/libx.so"
	for fn in dlopen dlopen@2.2.5 dlmopen dlmopen@2.3.4; do
		echo "== $fn"
		change_drive shim_run "$fn" "$T/out/libx.so"
		change_refused_as exec "${fn%@*}" "$T/out/libx.so"
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
	# a read of the hidden file: absent for the program
	change_drive shim_run addopen-read "$T/out/secret"
	ERR=ENOENT change_read_refused posix_spawn_file_actions_addopen "$T/out/secret"
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
				"$T/out"
			change_drive shim_run "$fn" "$T/ws" victim ;;
		*)
			change_drive shim_run "${fn%-dir}" "$T/out/victim"
			change_refused "${fn%-dir}" "$T/out/victim" "$T/out"
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
		change_refused "${fn%-*} source" "$T/out/tree" "$T/out"
		assert_tree "$T/out/tree"
		assert_absent "$T/ws/tree"
		change_drive shim_run "$fn" "$T/ws/f" "$T/out/f"
		change_refused "${fn%-*} destination" "$T/out/f" "$T/out"
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
	change_refused "renameat destination" "c ($T/out/c)" "$T/out"
	assert_absent "$T/out/c"
	change_drive shim_run renameat2-exchange "$T/ws/b" "$T/out/a"
	change_refused "renameat2 destination" "$T/out/a" "$T/out"
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
	change_stderr_has "cordon: denied write $T/out/a [rename source] ("
	change_stderr_has "cordon: denied write $T/out/b [rename destination] ("
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
		change_refused "${fn%-*} source" "$T/out/f" "$T/out"
		assert_absent "$T/ws/l"
		change_drive shim_run "$fn" "$T/ws/f" "$T/out/l"
		change_refused "${fn%-*} destination" "$T/out/l" "$T/out"
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
	change_refused "linkat destination" "$T/out/l" "$T/out"
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
