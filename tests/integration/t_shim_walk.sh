# The directory walkers (shim/hook_walk.c): scandir, glob, nftw, ftw and
# fts_open in every public name and version.  They read directories
# inside libc, where no hook sees it, so the shim decides where each
# walk starts (and, for glob, every directory it opens).  Each refusal
# has its twins: the same walk without the shim lists the tree, and the
# same walk of a tree the policy allows is unchanged by the shim.

WALK_SCANDIR="scandir scandir64 scandirat scandirat64"
WALK_GLOB="glob glob64 glob-old glob64-old"
WALK_FTW="nftw nftw64 nftw-old nftw64-old ftw ftw64"
WALK_FTS="fts_open fts64_open"

# The path or pattern each name takes, for the tree at $1.
walk_arg() { # NAME TREE
	case $1 in
	glob*) echo "$2/a/*" ;;
	scandir*) echo "$2/a" ;;
	*) echo "$2" ;;
	esac
}

walk() { # shim_run|plain [-e] [-p] NAME PATH
	local how=$1
	shift
	"$how" "$HELPERS/shimdrive_walk" "$@"
}

test_walk_every_name_lists_an_allowed_tree_identically() {
	make_tree "$T/ws/tree"
	ln -s one "$T/ws/tree/a/link"
	local name want flags
	for name in $WALK_SCANDIR $WALK_GLOB $WALK_FTW $WALK_FTS; do
		for flags in "" -p; do
			walk plain $flags "$name" "$(walk_arg "$name" "$T/ws/tree")"
			assert_status 0
			want=$(cat "$T/stdout")
			walk shim_run $flags "$name" "$(walk_arg "$name" "$T/ws/tree")"
			assert_status 0
			assert_stderr_lines 0
			[ "$(cat "$T/stdout")" = "$want" ] ||
				{ show; fail "$name $flags: without the shim: $want"; }
		done
	done
	# glob lists what the tree holds, so the comparison means something
	walk shim_run glob "$T/ws/tree/a/*"
	assert_stdout_has "^$T/ws/tree/a/one$"
	assert_stdout_has "^$T/ws/tree/a/b$"
}

# The hidden tree's names never reach the program; without the shim the
# same call lists them.
test_walk_every_name_refuses_a_hidden_tree() {
	make_tree "$T/out/tree"
	local name arg
	for name in $WALK_SCANDIR $WALK_GLOB $WALK_FTW $WALK_FTS; do
		arg=$(walk_arg "$name" "$T/out/tree")
		walk plain "$name" "$arg"
		assert_status 0
		grep -q "one" "$T/stdout" || { show; fail "$name: plain saw no tree"; }
		walk shim_run "$name" "$arg"
		assert_status 1
		assert_stdout_lacks "one"
		assert_stderr_has "^cordon: denied [a-z]* \($T/out/tree[/a]*\|a ($T/out/tree/a)\) \["
		assert_stderr_lines 1
		case $name in
		scandir*) assert_stdout_has "^$name ret=-1 errno=ENOENT$" ;;
		glob*) assert_stdout_has "^$name ret=$(walk_glob_code NOMATCH) " ;;
		*ftw*) assert_stdout_has "^$name ret=-1 errno=ENOENT$" ;;
		fts*) assert_stdout_has "^$name ret=NULL errno=ENOENT$" ;;
		esac
	done
	assert_tree "$T/out/tree"
}

walk_glob_code() { # GLOB_NOMATCH | GLOB_ABORTED, from glob.h
	case $1 in NOMATCH) echo 3 ;; ABORTED) echo 2 ;; esac
}

# glob hears of the refusal as of the kernel's: errfunc gets ENOENT (the
# hidden tree is absent for the program) and
# GLOB_ERR aborts the walk.
test_walk_glob_refusal_reaches_errfunc_and_glob_err() {
	make_tree "$T/out/tree"
	local name
	for name in $WALK_GLOB; do
		walk shim_run -e "$name" "$T/out/tree/a/*"
		assert_status 1
		assert_stdout_has "^errfunc $T/out/tree/a ENOENT$"
		assert_stdout_has "^$name ret=$(walk_glob_code ABORTED) "
		walk plain -e "$name" "$T/out/tree/a/*"
		assert_status 0
		assert_stdout_has "^$T/out/tree/a/one$"
	done
}

# A directory on the way to a root can be seen but not read: the shim
# answers as the kernel layer alone does (the same output with and
# without --no-shim), and says why.
test_walk_unreadable_root_matches_the_kernel() {
	make_tree "$T/out/tree"
	local name arg want
	for name in $WALK_SCANDIR $WALK_GLOB $WALK_FTW; do
		arg=$T/out/tree
		[ "${name#glob}" != "$name" ] && arg="$T/out/tree/*"
		cordon --no-shim --read "$T/out/tree/a/b" -- \
			"$HELPERS/shimdrive_walk" "$name" "$arg"
		want=$(cat "$T/stdout")
		case $name in
		scandir*) assert_stdout_has "^$name ret=-1 errno=EACCES$" ;;
		glob*) assert_stdout_has "^errfunc $T/out/tree EACCES$" ;;
		*ftw*) assert_stdout_has "^$T/out/tree DNR" ;;
		esac
		cordon --read "$T/out/tree/a/b" -- \
			"$HELPERS/shimdrive_walk" "$name" "$arg"
		[ "$(cat "$T/stdout")" = "$want" ] ||
			{ show; fail "$name: with the kernel alone: $want"; }
		assert_stdout_lacks "/a/one"
		assert_stderr_has "^cordon: denied read \($T/out/\)\?tree\( ($T/out/tree)\)\? \["
	done
	# nftw's callback got the root as unreadable, at level 0
	cordon --read "$T/out/tree/a/b" -- "$HELPERS/shimdrive_walk" nftw "$T/out/tree/"
	assert_stdout_has "^$T/out/tree DNR level=0 base=$((${#T} + 5))$"
	assert_stdout_has "^nftw ret=0 errno=EACCES$"
	# with the grant, the same walk reads the tree
	cordon --read "$T/out/tree" -- "$HELPERS/shimdrive_walk" nftw "$T/out/tree"
	assert_status 0
	assert_stdout_has "^$T/out/tree/a/one F "
}

# Inside an allowed walk, a directory the kernel refuses (a symlink out
# of the workspace, followed) is handed over as FTW_DNR and explained
# as the kernel's denial.
test_walk_kernel_refusal_inside_a_walk_is_explained() {
	make_tree "$T/out/tree"
	mkdir "$T/ws/w"
	echo x > "$T/ws/w/file"
	ln -s "$T/out/tree" "$T/ws/w/out"
	cordon -- "$HELPERS/shimdrive_walk" nftw "$T/ws/w"
	assert_status 0
	assert_stdout_has "^$T/ws/w/out DNR "
	assert_stdout_has "^$T/ws/w/file F "
	assert_stdout_lacks "/a/one"
	assert_stderr_has "^cordon: denied read $T/ws/w/out ($T/out/tree) \[nftw, by the kernel\]"
	# twin: the same walk outside cordon goes through the link
	plain "$HELPERS/shimdrive_walk" nftw "$T/ws/w"
	assert_stdout_has "^$T/ws/w/out/a/one F "
}

# A walk started from inside a walk's callback keeps both callbacks
# apart, and a walk that fails leaves errno as glibc leaves it.
test_walk_errno_preserved_on_success() {
	make_tree "$T/ws/tree"
	local name
	for name in $WALK_SCANDIR $WALK_GLOB $WALK_FTW $WALK_FTS; do
		walk shim_run "$name" "$(walk_arg "$name" "$T/ws/tree")"
		assert_status 0
		assert_stdout_has " errno=1234$"
	done
}

# A missing root is the walker's own business: no line, the same answer.
test_walk_missing_root_is_quiet_and_unchanged() {
	local name want
	for name in $WALK_SCANDIR $WALK_GLOB $WALK_FTW $WALK_FTS; do
		walk plain "$name" "$(walk_arg "$name" "$T/out/none")"
		want=$(cat "$T/stdout")
		walk shim_run "$name" "$(walk_arg "$name" "$T/out/none")"
		assert_stderr_lines 0
		[ "$(cat "$T/stdout")" = "$want" ] ||
			{ show; fail "$name: without the shim: $want"; }
	done
}
