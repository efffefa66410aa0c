# git outside must never run what the command planted (gitguard.c): the
# files that make git run a program or read its configuration from
# elsewhere, in the workspace's repository, nested ones, submodules and
# worktrees, protected by the kernel layer (tried with --no-shim) and
# explained by the shim; what did not exist at the start and a
# repository added to the index during the run are moved aside after
# it.  Each escape is checked the way it would strike: an ordinary
# `git status` and `git commit` run outside afterwards must create
# nothing ($T/out/pwned); its twin, without cordon, does.

# git as the tests run it: no user or system configuration of the host
# (a hidden ~/.gitconfig would make git inside fail), an identity.
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
export GIT_AUTHOR_NAME=a GIT_AUTHOR_EMAIL=a@b GIT_COMMITTER_NAME=a \
	GIT_COMMITTER_EMAIL=a@b
GIT_ENV=(-e GIT_CONFIG_NOSYSTEM -e GIT_CONFIG_GLOBAL -e 'GIT_AUTHOR_*'
	-e 'GIT_COMMITTER_*')

git_repo() { # DIR
	command -v git > /dev/null || skip "SKIP: no git"
	git init -q "$1" && git -C "$1" commit -q --allow-empty -m init ||
		fail "git init $1"
}

# Run git outside as a user would, in DIR; did a planted program run?
git_outside_runs_nothing() { # DIR
	rm -f "$T/out/pwned"
	git -C "$1" status > /dev/null 2>&1
	git -C "$1" commit -q --allow-empty -m outside > /dev/null 2>&1
	[ ! -e "$T/out/pwned" ] || fail "git outside ran what the command planted in $1"
}

# The attack of the issue: .git/commondir names a copy of .git whose
# config sets core.fsmonitor.
PLANT_COMMONDIR='cp -r .git evil && printf "[core]\n\tfsmonitor = touch %s\n" "$1" >> evil/config && echo "$PWD/evil" > .git/commondir'

test_git_commondir_cannot_redirect_the_repository() {
	git_repo "$T/ws"
	cordon --no-shim -- sh -c "$PLANT_COMMONDIR" sh "$T/out/pwned"
	assert_stderr_has "cordon: WARNING: moved '$T/ws/.git/commondir' to '$T/ws/.git/commondir.cordon-[0-9]*'"
	assert_absent "$T/ws/.git/commondir"
	git_outside_runs_nothing "$T/ws"
	# with the shim, refused at once and explained
	rm -rf "$T/ws/evil" "$T/ws"/.git/commondir.cordon-*
	cordon -- sh -c "$PLANT_COMMONDIR" sh "$T/out/pwned"
	assert_status_not 0
	assert_stderr_has "cordon: denied write .git/commondir ($T/ws/.git/commondir) \[.*\] ($T/ws/.git/commondir is protected); allow with --write $T/ws/.git$"
	assert_absent "$T/ws/.git/commondir"
	# the option named lifts it: the run leaves it, git follows it
	rm -rf "$T/ws/evil"
	cordon --write .git -- sh -c "$PLANT_COMMONDIR" sh "$T/out/pwned"
	assert_status 0
	assert_exists "$T/ws/.git/commondir"
	git -C "$T/ws" status > /dev/null 2>&1
	assert_exists "$T/out/pwned"
	# twin: without cordon the next git status runs it
	rm -rf "$T/ws/evil" "$T/ws/.git/commondir" "$T/out/pwned"
	plain sh -c "$PLANT_COMMONDIR" sh "$T/out/pwned"
	git -C "$T/ws" status > /dev/null 2>&1
	assert_exists "$T/out/pwned"
}

# Hooks and config of the workspace's repository and of a repository
# nested in it.
test_git_nested_repository_is_protected() {
	git_repo "$T/ws"
	git_repo "$T/ws/vendor/lib"
	cp "$T/ws/vendor/lib/.git/config" "$T/config.orig"
	local plant='printf "[core]\n\tfsmonitor = touch %s\n" "$1" >> "$2/.git/config"; printf "#!/bin/sh\ntouch %s\n" "$1" > "$2/.git/hooks/pre-commit"; chmod +x "$2/.git/hooks/pre-commit"; mv "$2/.git" "$2/.git.old"'
	cordon --no-shim -- sh -c "$plant" sh "$T/out/pwned" vendor/lib
	cmp -s "$T/ws/vendor/lib/.git/config" "$T/config.orig" || fail "the nested config changed"
	assert_absent "$T/ws/vendor/lib/.git/hooks/pre-commit"
	assert_absent "$T/ws/vendor/lib/.git.old"
	git_outside_runs_nothing "$T/ws/vendor/lib"
	cordon --no-shim -- sh -c "$plant" sh "$T/out/pwned" .
	git_outside_runs_nothing "$T/ws"
	# the rest of the nested repository works inside: a commit
	cordon "${GIT_ENV[@]}" -- sh -c 'cd vendor/lib && echo x > f && git add f && git commit -qm f && git log --oneline | wc -l'
	assert_status 0
	assert_stdout_has '^3$' # init, outside's, f
	# twin
	plain sh -c "$plant" sh "$T/out/pwned" vendor/lib
	mv "$T/ws/vendor/lib/.git.old" "$T/ws/vendor/lib/.git"
	git -C "$T/ws/vendor/lib" commit -q --allow-empty -m x > /dev/null 2>&1
	assert_exists "$T/out/pwned"
}

# A submodule: its git directory in .git/modules, its checkout's .git
# file (a gitfile: "gitdir: ..."), both the workspace's to write.
test_git_submodule_is_protected() {
	git_repo "$T/out/src"
	git_repo "$T/ws"
	git -C "$T/ws" -c protocol.file.allow=always submodule -q add \
		"$T/out/src" sub > /dev/null 2>&1 || fail "git submodule add"
	git -C "$T/ws" commit -qm sub
	cp "$T/ws/.git/modules/sub/config" "$T/config.orig"
	cp "$T/ws/sub/.git" "$T/gitfile.orig"
	cordon --no-shim -- sh -c '
		printf "[core]\n\tfsmonitor = touch %s\n" "$1" >> .git/modules/sub/config
		printf "#!/bin/sh\ntouch %s\n" "$1" > .git/modules/sub/hooks/post-checkout
		cp -r .git/modules/sub evil && printf "[core]\n\tfsmonitor = touch %s\n" "$1" >> evil/config
		echo "gitdir: ../evil" > sub/.git
		echo ../../../evil > .git/modules/sub/commondir' sh "$T/out/pwned"
	cmp -s "$T/ws/.git/modules/sub/config" "$T/config.orig" || fail "the submodule's config changed"
	cmp -s "$T/ws/sub/.git" "$T/gitfile.orig" || fail "the submodule's gitfile changed"
	assert_absent "$T/ws/.git/modules/sub/hooks/post-checkout"
	assert_absent "$T/ws/.git/modules/sub/commondir"
	git_outside_runs_nothing "$T/ws"
	# twin
	plain sh -c 'printf "[core]\n\tfsmonitor = touch %s\n" "$1" >> .git/modules/sub/config' sh "$T/out/pwned"
	git -C "$T/ws" status > /dev/null 2>&1
	assert_exists "$T/out/pwned"
}

# A linked worktree inside the workspace: its .git file and its own
# config.worktree.
test_git_worktree_is_protected() {
	git_repo "$T/ws"
	git -C "$T/ws" worktree add -q "$T/ws/wt" 2> /dev/null || fail "git worktree add"
	cp "$T/ws/wt/.git" "$T/gitfile.orig"
	cordon --no-shim -- sh -c '
		cp -r .git evil && printf "[core]\n\tfsmonitor = touch %s\n" "$1" >> evil/config
		echo "gitdir: $PWD/evil" > wt/.git
		echo "$PWD/evil" > .git/worktrees/wt/commondir' sh "$T/out/pwned"
	cmp -s "$T/ws/wt/.git" "$T/gitfile.orig" || fail "the worktree's gitfile changed"
	git_outside_runs_nothing "$T/ws/wt"
	# twin
	plain sh -c 'echo "gitdir: $PWD/evil" > wt/.git'
	git -C "$T/ws/wt" status > /dev/null 2>&1
	assert_exists "$T/out/pwned"
}

# A repository made during the run and added to the index as a gitlink:
# `git status` outside enters it and runs its fsmonitor.
test_git_repository_added_during_the_run_is_moved_aside() {
	git_repo "$T/ws"
	local plant='git init -q sub && git -C sub commit -q --allow-empty -m s && git -C sub config core.fsmonitor "touch $1" && git update-index --add --cacheinfo 160000,$(git -C sub rev-parse HEAD),sub'
	cordon --no-shim "${GIT_ENV[@]}" -- sh -c "$plant" sh "$T/out/pwned"
	assert_status 0
	assert_stderr_has "cordon: WARNING: moved '$T/ws/sub/.git' to '$T/ws/sub/.git.cordon-[0-9]*'"
	git_outside_runs_nothing "$T/ws"
	# a repository made during the run that git status does not enter
	# (no gitlink) is the command's own, like any file it writes
	cordon --no-shim "${GIT_ENV[@]}" -- sh -c 'git init -q own && git -C own commit -q --allow-empty -m o'
	assert_status 0
	assert_exists "$T/ws/own/.git/config"
	# twin
	rm -rf "$T/ws/sub"
	git -C "$T/ws" rm -q --cached sub > /dev/null 2>&1
	plain sh -c "$plant" sh "$T/out/pwned"
	git -C "$T/ws" status > /dev/null 2>&1
	assert_exists "$T/out/pwned"
}

# The workspace below a repository's top: a .git made in it would be
# what git run there finds first.
test_git_workspace_inside_a_repository_gets_no_git_of_its_own() {
	git_repo "$T/ws"
	mkdir -p "$T/ws/sub"
	cd "$T/ws/sub" || fail cd
	local plant='git init -q "$2.src" && mv "$2.src/.git" "$2" && printf "[core]\n\tfsmonitor = touch %s\n" "$1" >> "$2/config" && echo "gitdir: $2" > .git'
	cordon --no-shim "${GIT_ENV[@]}" -- sh -c "$plant" sh "$T/out/pwned" "$T/ws/sub/evil"
	assert_stderr_has "cordon: WARNING: moved '$T/ws/sub/.git' to"
	git_outside_runs_nothing "$T/ws/sub"
	# twin
	rm -rf "$T/ws/sub"/.git* "$T/ws/sub"/evil*
	plain sh -c "$plant" sh "$T/out/pwned" "$T/ws/sub/evil"
	git -C "$T/ws/sub" status > /dev/null 2>&1
	assert_exists "$T/out/pwned"
}

# The profile a run is started with, kept in the workspace (as
# the learn-then-run workflow of doc/manual/learn.md does): never the command's to widen.
test_git_profile_file_and_state_are_protected() {
	echo '{"net": false}' > "$T/ws/build.json"
	cp "$T/ws/build.json" "$T/profile.orig"
	cordon --no-shim -p ./build.json -- sh -c 'echo "{\"write\": [\"~\"], \"net\": true}" > build.json'
	assert_status_not 0
	cmp -s "$T/ws/build.json" "$T/profile.orig" || fail "the profile changed"
	# cordon's state directory, even where a --write grants it
	mkdir -p "$T/state/cordon"
	XDG_STATE_HOME=$T/state cordon --no-shim --write "$T/state" -- sh -c "echo x > $T/state/cordon/planted"
	assert_absent "$T/state/cordon/planted"
	# twin
	plain sh -c 'echo "{\"net\": true}" > build.json'
	assert_content "$T/ws/build.json" '{"net": true}'
	XDG_STATE_HOME=$T/state cordon --no-shim --write "$T/state" -- sh -c "echo x > $T/state/other"
	assert_exists "$T/state/other"
}
