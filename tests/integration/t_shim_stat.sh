# The shim's metadata family (shim/hook_stat.c): stat, access, readlink
# and realpath in every public name refuse a path the policy hides, and
# change nothing for a path it shows.  Every denial has its twins: the
# same call on a visible path succeeds under the shim, and the same call
# on the hidden path succeeds without it.

# The driver's names, by the kind of path they take.
STAT_NAMES="stat stat64 lstat lstat64 fstatat fstatat64 __xstat __xstat64
__lxstat __lxstat64 __fxstatat __fxstatat64 statx access faccessat
euidaccess eaccess"
STAT_LINK_NAMES="readlink readlinkat __readlink_chk __readlinkat_chk"
STAT_PATH_NAMES="realpath realpath-null realpath-old __realpath_chk
canonicalize_file_name"

# $T/out (hidden) holds secret, link -> secret and tovisible -> the
# visible file; $T/ws (the workspace) holds file, link -> file, the
# chain link2 -> link1 -> file, and tosecret -> the hidden file.
stat_fixture() {
	echo s3cr3t > "$T/out/secret"
	ln -s secret "$T/out/link"
	ln -s "$T/ws/file" "$T/out/tovisible"
	echo visible > "$T/ws/file"
	ln -s file "$T/ws/link"
	ln -s file "$T/ws/link1"
	ln -s link1 "$T/ws/link2"
	ln -s "$T/out/secret" "$T/ws/tosecret"
}

stat_drive() { # shim_run|plain DRIVER-ARGS...
	local how=$1
	shift
	"$how" "$HELPERS/shimdrive_stat" "$@"
}

# The path each name is tried on: a link for readlink, else a file.
stat_target() { # NAME DIR
	case " $STAT_LINK_NAMES " in
	*" $1 "*) echo "$2/link" ;;
	*) echo "$2/file" ;;
	esac
}

test_stat_every_name_refuses_a_hidden_path() {
	stat_fixture
	local name path
	for name in $STAT_NAMES $STAT_LINK_NAMES $STAT_PATH_NAMES; do
		path=$T/out/secret
		case " $STAT_LINK_NAMES " in *" $name "*) path=$T/out/link ;; esac
		stat_drive shim_run "$name" "$path"
		assert_status 1
		assert_stdout_has "^$name fail ENOENT$"
		assert_stderr_has "^cordon: denied see $path \["
		stat_drive plain "$name" "$path"
		assert_status 0
		assert_stdout_has "^$name ok "
	done
}

test_stat_every_name_answers_a_visible_path_identically() {
	stat_fixture
	local name path want
	for name in $STAT_NAMES $STAT_LINK_NAMES $STAT_PATH_NAMES; do
		path=$(stat_target "$name" "$T/ws")
		stat_drive plain "$name" "$path"
		assert_status 0
		want=$(cat "$T/stdout")
		stat_drive shim_run "$name" "$path"
		assert_status 0
		assert_stderr_lines 0
		[ "$(cat "$T/stdout")" = "$want" ] ||
			{ show; fail "$name: '$want' without the shim"; }
	done
}

# errno is 1234 before each call: a successful call leaves it there, or
# leaves what glibc itself leaves (realpath sets EINVAL on success).
test_stat_errno_preserved_on_success() {
	stat_fixture
	local name path
	for name in $STAT_NAMES $STAT_LINK_NAMES; do
		stat_drive shim_run "$name" "$(stat_target "$name" "$T/ws")"
		assert_status 0
		assert_stdout_has " errno=1234$"
	done
	for name in $STAT_PATH_NAMES; do
		stat_drive plain "$name" "$T/ws/link2"
		local want=${name}_$(sed 's/.* errno=//' "$T/stdout")
		stat_drive shim_run "$name" "$T/ws/link2"
		assert_status 0
		[ "${name}_$(sed 's/.* errno=//' "$T/stdout")" = "$want" ] ||
			{ show; fail "$name: errno differs from ${want#*_}"; }
	done
}

# Probing for what is not there (git looking for .git up to /) gets
# the kernel's ENOENT and no line; an existing hidden path is absent
# for the program too (ENOENT), and named in a line.
test_stat_missing_hidden_path_is_quiet() {
	stat_fixture
	stat_drive shim_run stat "$T/out/nothere"
	assert_status 1
	assert_stdout_has "^stat fail ENOENT$"
	assert_stderr_lines 0
	stat_drive shim_run access "$T/out/nothere/x"
	assert_stdout_has "^access fail ENOTDIR$\|^access fail ENOENT$"
	assert_stderr_lines 0
	stat_drive shim_run stat "$T/out/secret"
	assert_stdout_has "^stat fail ENOENT$"
	assert_stderr_lines 1
}

# lstat, readlink and AT_SYMLINK_NOFOLLOW look at the link itself: a
# link in the hidden directory is hidden, wherever it points, and a link
# in the workspace is visible.  The following names see the target.
test_stat_link_itself_is_not_followed() {
	stat_fixture
	local name
	for name in lstat lstat64 __lxstat __lxstat64 $STAT_LINK_NAMES; do
		stat_drive shim_run "$name" "$T/out/tovisible"
		assert_stdout_has "^$name fail ENOENT$"
		assert_stderr_has "denied see $T/out/tovisible \[$name\]"
		stat_drive plain "$name" "$T/out/tovisible"
		assert_status 0
		stat_drive shim_run "$name" "$T/ws/tosecret"
		assert_status 0
	done
	stat_drive shim_run readlink "$T/ws/tosecret"
	assert_stdout_has "^readlink ok $T/out/secret errno"
	for name in fstatat fstatat64 __fxstatat __fxstatat64 statx faccessat; do
		stat_drive shim_run -f nofollow "$name" "$T/out/tovisible"
		assert_stdout_has "^$name fail ENOENT$"
		stat_drive shim_run "$name" "$T/out/tovisible"
		assert_status 0
	done
	for name in stat stat64 __xstat __xstat64 access realpath \
		canonicalize_file_name; do
		stat_drive shim_run "$name" "$T/out/tovisible"
		assert_status 0
		assert_stderr_lines 0
	done
	stat_drive shim_run realpath "$T/out/tovisible"
	assert_stdout_has "^realpath ok $T/ws/file "
}

test_stat_dirfd_relative_names() {
	stat_fixture
	local name
	for name in fstatat fstatat64 __fxstatat __fxstatat64 statx faccessat; do
		stat_drive shim_run -d 3 "$name" secret 3< "$T/out"
		assert_stdout_has "^$name fail ENOENT$"
		assert_stderr_has "denied see secret ($T/out/secret)"
		stat_drive shim_run -d 3 "$name" file 3< "$T/ws"
		assert_status 0
		stat_drive plain -d 3 "$name" secret 3< "$T/out"
		assert_status 0
	done
	for name in readlinkat __readlinkat_chk; do
		stat_drive shim_run -d 3 "$name" link 3< "$T/out"
		assert_stdout_has "^$name fail ENOENT$"
		stat_drive shim_run -d 3 "$name" link1 3< "$T/ws"
		assert_stdout_has "^$name ok file "
		stat_drive plain -d 3 "$name" link 3< "$T/out"
		assert_stdout_has "^$name ok secret "
	done
}

# fstatat(fd, "", AT_EMPTY_PATH) asks about a file the program already
# holds open (here given by the caller): no path to hide.
test_stat_fd_itself_is_the_programs_own() {
	stat_fixture
	local name
	for name in fstatat fstatat64 __fxstatat statx; do
		stat_drive plain -d 3 -f empty "$name" "" 3< "$T/out/secret"
		local want
		want=$(cat "$T/stdout")
		stat_drive shim_run -d 3 -f empty "$name" "" 3< "$T/out/secret"
		assert_status 0
		assert_stderr_lines 0
		[ "$(cat "$T/stdout")" = "$want" ] || { show; fail "$name: '$want'"; }
	done
}

# stat_ro_run CMD...: shim_run with $T/ro added as a read-only root.
stat_ro_run() {
	CORDON_POLICY="$(shim_policy)|root=r,d,d,$T/ro" \
		LD_PRELOAD="$HELPERS/libcordon.so" \
		"$@" > "$T/stdout" 2> "$T/stderr"
	status=$?
	return 0
}

# access() answers for the rights granted, so `test -w` tells the truth;
# searching a directory (X_OK) needs no right, as in Landlock.
test_stat_access_answers_for_the_granted_rights() {
	mkdir -p "$T/ro/dir"
	echo x > "$T/ro/tool" && chmod 755 "$T/ro/tool"
	echo x > "$T/ws/tool" && chmod 755 "$T/ws/tool"
	local name
	for name in access faccessat euidaccess eaccess; do
		stat_ro_run "$HELPERS/shimdrive_stat" "$name" "$T/ro/tool" r
		assert_status 0
		stat_ro_run "$HELPERS/shimdrive_stat" "$name" "$T/ro/tool" w
		assert_stdout_has "^$name fail EACCES$"
		assert_stderr_has "^cordon: denied write $T/ro/tool \[$name\]"
		stat_ro_run "$HELPERS/shimdrive_stat" "$name" "$T/ro/tool" x
		assert_stdout_has "^$name fail EACCES$"
		assert_stderr_has "^cordon: denied exec $T/ro/tool \[$name\]"
		stat_ro_run "$HELPERS/shimdrive_stat" "$name" "$T/ro/dir" rx
		assert_status 0
		stat_ro_run "$HELPERS/shimdrive_stat" "$name" "$T/ws/tool" rwx
		assert_status 0
		plain "$HELPERS/shimdrive_stat" "$name" "$T/ro/tool" rwx
		assert_status 0
	done
	local sh
	for sh in sh bash; do
		stat_ro_run "$sh" -c "test -w '$T/ro/tool'"
		assert_status 1
		stat_ro_run "$sh" -c "test -r '$T/ro/tool' && test -w '$T/ws/tool'"
		assert_status 0
		plain "$sh" -c "test -w '$T/ro/tool'"
		assert_status 0
	done
}

# bash at start-up stats $OLDPWD (where run.sh was started: hidden) and
# opens /dev/tty (read-only in shim_policy): neither is this test's.
test_stat_tools_refuse_a_hidden_file() {
	stat_fixture
	export OLDPWD=$T/ws
	local cmd
	for cmd in "stat $T/out/secret" "ls -la $T/out/secret" \
		"sh -c 'test -e $T/out/secret'" \
		"bash -c '[ -e $T/out/secret ]'" \
		"readlink $T/out/link" "realpath $T/out/secret"; do
		echo "== $cmd"
		eval "shim_run $cmd"
		assert_status_not 0
		assert_stderr_has "^cordon: denied see $T/out"
		assert_stdout_lacks s3cr3t
		eval "plain $cmd"
		assert_status 0
	done
	for cmd in "stat $T/ws/file" "ls -la $T/ws/file" \
		"sh -c 'test -e $T/ws/file'" "bash -c '[ -e $T/ws/file ]'" \
		"readlink $T/ws/link1" "realpath $T/ws/link2"; do
		echo "== $cmd"
		eval "shim_run $cmd"
		assert_status 0
		! grep -v '\[open\]' "$T/stderr" | grep -q '^cordon:' ||
			{ show; fail "a denial"; }
	done
}

# One line per (operation, path) in a process, however often it asks.
test_stat_one_line_per_hidden_path() {
	stat_fixture
	shim_run sh -c "test -e '$T/out/secret'; test -e '$T/out/secret';
		[ -e '$T/out/secret' ]"
	assert_status 1
	assert_stderr_lines 1
	assert_stderr_has "denied see $T/out/secret \[stat64\]"
}

# stat_same CMD...: CMD without and with the shim: the same status,
# stdout and stderr, and so no denial line.
stat_same() {
	local want_status
	plain "$@"
	want_status=$status
	mv "$T/stdout" "$T/want.out" && mv "$T/stderr" "$T/want.err"
	shim_run "$@"
	[ "$status" = "$want_status" ] ||
		{ show; fail "status $status, without the shim $want_status"; }
	diff "$T/want.out" "$T/stdout" > "$T/diff" &&
		diff "$T/want.err" "$T/stderr" >> "$T/diff" ||
		{ head -n 20 "$T/diff"; fail "$*: not the same with the shim"; }
}

test_stat_results_identical_for_allowed_paths() {
	stat_fixture
	# Reading a new link sets its atime once: let that happen first.
	plain stat "$T/ws/link2"
	stat_same stat "$T/ws/file" "$T/ws/link2" /usr/bin/ls /etc
	assert_status 0
	stat_same ls -la /usr/bin
	assert_status 0
	[ "$(wc -l < "$T/stdout")" -gt 10 ] || fail "ls /usr/bin listed little"
	stat_same ls -laR "$T/ws"
	stat_same realpath "$T/ws/link2" /usr/bin/cc "$T/ws/../ws/link1"
	assert_stdout_has "^$T/ws/file$"
	stat_same "$HELPERS/shimdrive_stat" realpath "$T/ws/link2"
	stat_same find "$T/ws" -ls
}

test_stat_make_runs_identically() {
	command -v make > /dev/null || skip "make is not installed"
	nm -D "$(command -v make)" 2> /dev/null | grep -q ' __xstat' ||
		skip "make does not import __xstat here"
	echo in > in.txt
	printf '%s\n' 'all: out.txt' 'out.txt: in.txt' \
		'	cat in.txt > out.txt' '	@echo built $@' \
		'hidden: '"$T"'/out/secret' '	@echo hidden-ok' > Makefile
	rm -f out.txt
	plain make
	assert_status 0
	mv "$T/stdout" "$T/want.out"
	rm -f out.txt
	shim_run make
	assert_status 0
	assert_stderr_lines 0
	diff "$T/want.out" "$T/stdout" || fail "make printed something else"
	assert_stdout_has "built out.txt"
	stat_same make
	assert_stdout_has "Nothing to be done"
	echo s3cr3t > "$T/out/secret"
	shim_run make hidden
	assert_status_not 0
	assert_stderr_has "^cordon: denied see $T/out/secret \[__xstat\]"
	plain make hidden
	assert_status 0
	assert_stdout_has hidden-ok
}

# stat_git shim_run|plain|stat_same ARGS...: git with an empty home,
# $T: hidden but for the way to $T/ws, its dotfiles absent (git asks
# for ~/.gitconfig with access()).  The XDG files, which git opens
# without asking, are in the workspace (the open family's business).
stat_git() {
	local how=$1
	shift
	"$how" env HOME="$T" XDG_CONFIG_HOME="$T/ws/.git/xdg" \
		GIT_CONFIG_NOSYSTEM=1 git -c user.name=t -c user.email=t@t "$@"
}

# git looks for ~/.gitconfig and .git in every directory up to /: in a
# repository in the workspace nothing is denied and nothing changes.
test_stat_git_status_is_unchanged() {
	command -v git > /dev/null || skip "git is not installed"
	stat_git plain init -q .
	assert_status 0
	mkdir sub && echo a > sub/a && echo b > b
	stat_git plain add sub/a
	stat_git plain commit -q -m one
	assert_status 0
	echo changed > sub/a
	stat_git stat_same status
	assert_status 0
	assert_stdout_has "modified: *sub/a"
	(cd sub && stat_git stat_same status --porcelain=v1 -b) || exit 1
	stat_git stat_same log --oneline
	stat_git stat_same diff --stat
}

test_stat_git_outside_a_repository_is_quiet() {
	command -v git > /dev/null || skip "git is not installed"
	[ ! -e "$T/.git" ] && [ ! -e /.git ] || skip "a .git above the test"
	stat_git stat_same status
	assert_status_not 0
	assert_stderr_has "not a git repository"
	! grep -q '^cordon:' "$T/stderr" || { show; fail "a denial line"; }
}

# realpath@GLIBC_2.2.5, as a program linked before glibc 2.3 calls it
# (catalog D-14 "oldver"): the same answer with and without the shim.
test_stat_oldver_realpath() {
	stat_fixture
	objdump -T "$HELPERS/shimdrive_stat" 2> /dev/null |
		grep -q '(GLIBC_2.2.5) *realpath$' ||
		skip "the driver does not import realpath@GLIBC_2.2.5"
	stat_same "$HELPERS/shimdrive_stat" realpath-old "$T/ws/link2"
	assert_status 0
	assert_stdout_has "^realpath-old ok $T/ws/file "
	stat_drive shim_run realpath-old "$T/out/secret"
	assert_stdout_has "^realpath-old fail ENOENT$"
}

# The old realpath refuses a NULL buffer (EINVAL); the new one allocates.
# Telling them apart needs realpath exported at both versions.
test_stat_oldver_realpath_null_buffer() {
	objdump -T "$HELPERS/libcordon.so" 2> /dev/null |
		grep -q 'GLIBC_2.2.5) *realpath$' ||
		skip "libcordon.so exports no realpath@GLIBC_2.2.5 (the build's version script is unversioned): the old realpath gets the new one's NULL-buffer behaviour"
	stat_fixture
	stat_same "$HELPERS/shimdrive_stat" realpath-old-null "$T/ws/file"
	assert_stdout_has "^realpath-old-null fail EINVAL$"
	stat_same "$HELPERS/shimdrive_stat" realpath-null "$T/ws/file"
	assert_status 0
}

# "link/.." is the link's parent, not the link's own directory: a path
# that stays in the workspace lexically but leads out through a symlink
# is refused (the fast path asks the kernel whether a symlink is on the
# way, and falls back to the full resolution).
test_stat_dotdot_after_a_symlink_is_resolved_as_the_kernel_does() {
	stat_fixture
	mkdir "$T/out/deep"
	ln -s "$T/out/deep" "$T/ws/outlink"
	stat_drive shim_run stat "$T/ws/outlink/../secret"
	assert_status 1
	assert_stdout_has "^stat fail ENOENT$"
	assert_stderr_has "($T/out/secret)"
	stat_drive shim_run stat "outlink/../secret"
	assert_status 1
	assert_stdout_has "^stat fail ENOENT$"
	# twins: without the shim the same path reaches the secret, and a
	# path without the symlink stays in the workspace
	stat_drive plain stat "$T/ws/outlink/../secret"
	assert_status 0
	mkdir "$T/ws/sub"
	stat_drive shim_run stat "$T/ws/sub/../secret"
	assert_stdout_has "^stat fail ENOENT$"
	echo here > "$T/ws/secret"
	stat_drive shim_run stat "$T/ws/sub/../secret"
	assert_status 0
	assert_stderr_lines 0
	stat_drive shim_run stat "$T/ws/outlink/../secret"
	assert_stdout_has "^stat fail ENOENT$"
}

# The check remembers the directory it last found free of symlinks, and
# answers stat() with its own lookup: a symlink out of that directory is
# still followed and refused, in the same process, right after a plain
# file there was allowed; the allowed answers are the kernel's.
test_stat_symlink_out_of_a_directory_just_seen_is_refused() {
	stat_fixture
	local py='import os, sys
for p in sys.argv[1:]:
    try:
        st = os.stat(p); print("ok", os.path.basename(p), st.st_size, st.st_ino)
    except OSError as e:
        print("fail", os.path.basename(p), e.errno)'
	shim_run python3 -c "$py" "$T/ws/file" "$T/ws/tosecret" "$T/ws/link" "$T/ws/file"
	assert_status 0
	local ino size
	ino=$(stat -c %i "$T/ws/file")
	size=$(stat -c %s "$T/ws/file")
	assert_stdout_has "^ok file $size $ino$"
	assert_stdout_has "^fail tosecret 2$"
	assert_stdout_has "^ok link $size $ino$"
	[ "$(grep -c '^ok file' "$T/stdout")" = 2 ] || { show; fail "the second stat of file"; }
	# twin: without the shim the link reaches the secret
	plain python3 -c "$py" "$T/ws/tosecret"
	assert_stdout_has "^ok tosecret $(stat -c %s "$T/out/secret") "
}

# The directory seen last answers its entries' stats without a policy
# walk only where no root lies below it: a secret inside the workspace
# (a protected root with no rights) stays hidden after stats of its
# neighbours, and so does what lies in it.  The secret's own name is on
# the way to a root, as its cover in the mount layer is: seen.
test_stat_a_secret_beside_a_directory_just_seen_stays_hidden() {
	echo visible > "$T/ws/file"
	mkdir -p "$T/ws/vault/in" "$T/ws/open"
	echo s3cr3t > "$T/ws/vault/key"
	echo s3cr3t > "$T/ws/vault/in/key"
	echo fine > "$T/ws/open/key"
	local py='import os, sys
for p in sys.argv[1:]:
    try:
        os.stat(p); print("ok", p[len(sys.argv[1]) - 4:])
    except OSError as e:
        print("fail", p[len(sys.argv[1]) - 4:], e.errno)'
	local pol="$(shim_policy)|root=-,d,p,$T/ws/vault"
	CORDON_POLICY=$pol LD_PRELOAD="$HELPERS/libcordon.so" python3 -c "$py" \
		"$T/ws/file" "$T/ws/open/key" "$T/ws/vault/key" \
		"$T/ws/file" "$T/ws/vault/key" "$T/ws/vault/in/key" \
		"$T/ws/open/key" "$T/ws/vault/in/key" \
		> "$T/stdout" 2> "$T/stderr"
	status=$?
	assert_status 0
	[ "$(grep -c '^ok file$' "$T/stdout")" = 2 ] || { show; fail "file"; }
	[ "$(grep -c '^ok open/key$' "$T/stdout")" = 2 ] ||
		{ show; fail "open/key"; }
	[ "$(grep -c '^fail vault/key 2$' "$T/stdout")" = 2 ] ||
		{ show; fail "vault/key twice"; }
	[ "$(grep -c '^fail vault/in/key 2$' "$T/stdout")" = 2 ] ||
		{ show; fail "vault/in/key twice"; }
	# twin: the same policy without the protected root sees them all
	CORDON_POLICY=$(shim_policy) LD_PRELOAD="$HELPERS/libcordon.so" \
		python3 -c "$py" "$T/ws/file" "$T/ws/vault/key" \
		"$T/ws/vault/in/key" > "$T/stdout" 2> "$T/stderr"
	assert_stdout_has "^ok vault/key$"
	assert_stdout_has "^ok vault/in/key$"
}
