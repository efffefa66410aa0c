# Protected paths inside writable roots: git's hooks and config, the
# shell's startup files and cordon's own files stay as they are, by the
# kernel layer (read-only bind mounts in the command's mount namespace;
# tried with --no-shim) and with a line from the shim; a --write naming
# the path lifts it.

protect_repo() {
	git init -q "$T/ws" || fail "git init"
	cp "$T/ws/.git/config" "$T/config.orig"
}

test_protect_git_hooks_and_config() {
	command -v git > /dev/null || skip "SKIP: no git"
	protect_repo
	cordon --no-shim -- sh -c 'echo "id > /tmp/pwned" > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit'
	assert_status_not 0
	assert_absent "$T/ws/.git/hooks/pre-commit"
	cordon --no-shim -- sh -c 'echo "[core] hooksPath = /tmp" >> .git/config'
	assert_status_not 0
	cmp -s "$T/ws/.git/config" "$T/config.orig" || fail ".git/config changed"
	# a .git put in its place would bring hooks of its own
	cordon --no-shim -- sh -c 'mv .git .git.old'
	assert_status_not 0
	assert_exists "$T/ws/.git/config"
	assert_absent "$T/ws/.git.old"
	# with the shim, each refusal is explained
	cordon -- sh -c 'echo x > .git/hooks/pre-commit'
	assert_stderr_has "cordon: denied write .git/hooks/pre-commit ($T/ws/.git/hooks/pre-commit) \[.*\] ($T/ws/.git/hooks is protected); allow with --write $T/ws/.git/hooks$"
	# the rest of the repository works: a commit
	echo data > "$T/ws/file"
	cordon -- sh -c 'git add file && git -c user.email=a@b -c user.name=a commit -qm m && git log --oneline | wc -l'
	assert_status 0
	assert_stdout_has '^1$'
	# the option named lifts it
	cordon --no-shim --write .git/hooks -- sh -c 'echo "#!/bin/sh" > .git/hooks/pre-commit'
	assert_status 0
	assert_exists "$T/ws/.git/hooks/pre-commit"
	# twin: without cordon
	rm "$T/ws/.git/hooks/pre-commit"
	plain sh -c 'echo x > .git/hooks/pre-commit && echo "# x" >> .git/config'
	assert_status 0
	assert_exists "$T/ws/.git/hooks/pre-commit"
}

# Only a --write lifts a protection, in the shim as in the mounts: a
# --read of .git/hooks leaves it read-only, and the shim says so in a
# line whose option, pasted as printed, lifts it.
test_protect_a_read_root_does_not_lift_the_hooks() {
	command -v git > /dev/null || skip "SKIP: no git"
	protect_repo
	echo orig > "$T/ws/.git/hooks/pre-commit"
	cordon --no-shim --read .git/hooks -- sh -c 'echo x > .git/hooks/pre-commit'
	assert_status_not 0
	assert_content "$T/ws/.git/hooks/pre-commit" orig
	cordon --read .git/hooks -- sh -c 'echo x > .git/hooks/pre-commit'
	assert_status_not 0
	assert_stderr_has "^cordon: denied write .git/hooks/pre-commit ($T/ws/.git/hooks/pre-commit) \[.*\] ($T/ws/.git/hooks is protected); allow with --write $T/ws/.git/hooks/pre-commit$"
	assert_content "$T/ws/.git/hooks/pre-commit" orig
	# an --exec is no --write either
	cordon --exec .git/hooks -- sh -c 'echo x > .git/hooks/pre-commit'
	assert_status_not 0
	assert_stderr_has "^cordon: denied write .git/hooks/pre-commit "
	assert_content "$T/ws/.git/hooks/pre-commit" orig
	# twin: the option of the line, pasted as printed
	cordon --read .git/hooks -- sh -c 'echo x > .git/hooks/pre-commit'
	read -r flag grant < <(sed -n 's/^cordon: denied write .*; allow with //p' "$T/stderr")
	cordon --read .git/hooks "$flag" "$grant" -- sh -c 'echo x > .git/hooks/pre-commit'
	assert_status 0
	assert_content "$T/ws/.git/hooks/pre-commit" x
	# and the kernel alone agrees; the other hooks stay protected
	cordon --no-shim --read .git/hooks "$flag" "$grant" -- sh -c 'echo y > .git/hooks/pre-commit; echo y > .git/hooks/pre-push'
	assert_content "$T/ws/.git/hooks/pre-commit" y
	assert_absent "$T/ws/.git/hooks/pre-push"
}

test_protect_shell_startup_files() {
	mkdir "$T/home"
	echo '# mine' > "$T/home/.bashrc"
	HOME=$T/home cordon --no-shim --write "$T/home" -- sh -c "echo evil >> '$T/home/.bashrc'; echo ok > '$T/home/other'"
	assert_content "$T/home/.bashrc" '# mine'
	assert_content "$T/home/other" ok
	HOME=$T/home cordon explain --write "$T/home/.bashrc" --write "$T/home"
	assert_status 1
	assert_stdout_has "^denied write $T/home/.bashrc: $T/home/.bashrc is protected; allow with --write $T/home/.bashrc$"
	# twin
	plain sh -c "echo evil >> '$T/home/.bashrc'"
	assert_status 0
	grep -q evil "$T/home/.bashrc" || fail "the twin could not append"
}

test_protect_cordons_own_files() {
	cordon --log ./audit.jsonl -- sh -c 'cat nothing-here 2>/dev/null; echo s3cr3t > "$HOME/x" 2>/dev/null; : > audit.jsonl; echo forged >> audit.jsonl'
	assert_exists "$T/ws/audit.jsonl"
	! grep -q forged "$T/ws/audit.jsonl" || fail "the command wrote into the audit log"
	[ -s "$T/ws/audit.jsonl" ] || fail "the record was erased"
	# cordon and libcordon.so in the workspace
	cp "$CORDON" "$HELPERS/libcordon.so" "$T/ws/"
	"$T/ws/cordon" --no-shim -- sh -c ': > cordon; : > libcordon.so' > /dev/null 2>&1
	cmp -s "$T/ws/cordon" "$CORDON" || fail "the command changed cordon"
	cmp -s "$T/ws/libcordon.so" "$HELPERS/libcordon.so" || fail "the command changed libcordon.so"
	# twin
	plain sh -c 'echo forged >> audit.jsonl'
	grep -q forged "$T/ws/audit.jsonl" || fail "the twin could not write"
}

# The system's secrets in a readable /etc: /etc/shadow and the SSH host
# keys, which root could otherwise read with /etc granted.
test_protect_system_secrets_are_hidden() {
	[ "$(id -u)" -eq 0 ] || skip "SKIP: a user cannot read /etc/shadow anyway (its twin needs root)"
	[ -r /etc/shadow ] || skip "SKIP: no /etc/shadow here"
	cordon --no-shim -- sh -c 'cat /etc/shadow; head -c 1 /etc/passwd'
	assert_stdout_lacks '^root:'
	assert_stderr_has "Permission denied"
	cordon -- cat /etc/shadow
	assert_status_not 0
	assert_stderr_has "^cordon: denied read /etc/shadow \[open\] (/etc/shadow is protected); allow with --read /etc/shadow$"
	# the option named lifts it
	cordon --no-shim --read /etc/shadow -- head -n 1 /etc/shadow
	assert_status 0
	assert_stdout_has '^root:'
	# twin
	plain head -n 1 /etc/shadow
	assert_stdout_has '^root:'
}
