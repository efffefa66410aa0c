# cordon explain: the verdict of the policy a run would have, per path,
# with the rule and the option that changes it; and it agrees with what
# the run then does.

test_explain_verdicts_and_exit_status() {
	echo s3cr3t > "$T/out/secret"
	cordon explain "$T/out/secret" /etc/passwd ./here
	assert_status 1
	assert_stdout_has "^denied read $T/out/secret: outside the readable roots .*; allow with --read $T/out/secret$"
	assert_stdout_has "^allowed read /etc/passwd: granted by /etc (rx)$"
	assert_stdout_has "^allowed read ./here ($T/ws/here): granted by $T/ws (rwx)$"
	cordon explain /etc/passwd ./here
	assert_status 0
	cordon explain --write /etc/hosts ./new.o
	assert_status 1
	assert_stdout_has "^denied write /etc/hosts: /etc is granted rx only; allow with --write /etc/hosts$"
	assert_stdout_has "^allowed write ./new.o ($T/ws/new.o): granted by $T/ws (rwx)$"
	# the option named in the line changes the verdict
	cordon explain --write /etc/hosts --write /etc/hosts
	assert_status 0
	assert_stdout_has "^allowed write /etc/hosts: granted by /etc/hosts (rw)$"
	cordon explain --exec "$T/out/secret" -x "$T/out"
	assert_status 0
	cordon explain --connect 443 80 --connect 443
	assert_status 1
	assert_stdout_has "^allowed connect 443: granted by --connect$"
	assert_stdout_has "^denied connect 80: TCP port 80 is not among the connect ports 443; allow with --connect 80$"
	cordon explain --connect 80
	assert_stdout_has "^denied connect 80: network is off; allow with --connect 80$"
}

# What explain says is what the run does.
test_explain_agrees_with_the_run() {
	echo s3cr3t > "$T/out/secret"
	echo mine > "$T/ws/mine"
	local f verdict
	for f in "$T/out/secret" "$T/ws/mine" /etc/hostname; do
		cordon explain "$f"
		verdict=$(cut -d' ' -f1 "$T/stdout")
		cordon --no-shim -- cat "$f"
		if [ "$verdict" = allowed ]; then
			assert_status 0
		else
			assert_status_not 0
			assert_stdout_lacks s3cr3t
		fi
		cordon explain --write "$f"
		verdict=$(cut -d' ' -f1 "$T/stdout")
		cordon --no-shim -- sh -c "echo >> '$f'"
		if [ "$verdict" = allowed ]; then assert_status 0; else assert_status_not 0; fi
	done
	assert_content "$T/out/secret" s3cr3t
}

# A protection is lifted by a --write only, in explain as in the run: a
# --read of .git/hooks is refused the write, and the option explain
# names, pasted, is allowed by both.
test_explain_a_read_root_does_not_lift_a_protection() {
	command -v git > /dev/null || skip "SKIP: no git"
	git init -q "$T/ws" || fail "git init"
	echo orig > "$T/ws/.git/hooks/pre-commit"
	cordon explain --write .git/hooks/pre-commit --read .git/hooks
	assert_status 1
	assert_stdout_has "^denied write .git/hooks/pre-commit ($T/ws/.git/hooks/pre-commit): $T/ws/.git/hooks is protected; allow with --write $T/ws/.git/hooks/pre-commit$"
	cordon --no-shim --read .git/hooks -- sh -c 'echo x > .git/hooks/pre-commit'
	assert_status_not 0
	assert_content "$T/ws/.git/hooks/pre-commit" orig
	# twin: the option named, pasted as printed
	cordon explain --write .git/hooks/pre-commit --read .git/hooks
	read -r flag grant < <(sed -n 's/^denied write .*; allow with //p' "$T/stdout")
	cordon explain --write .git/hooks/pre-commit --read .git/hooks "$flag" "$grant"
	assert_status 0
	assert_stdout_has "^allowed write .git/hooks/pre-commit ($T/ws/.git/hooks/pre-commit): granted by $T/ws/.git/hooks/pre-commit (rw)$"
	cordon --no-shim --read .git/hooks "$flag" "$grant" -- sh -c 'echo x > .git/hooks/pre-commit'
	assert_status 0
	assert_content "$T/ws/.git/hooks/pre-commit" x
}

test_explain_bad_input() {
	cordon explain
	assert_status 125
	assert_stderr_has "^cordon: explain: no path given$"
	cordon explain /x -- ls
	assert_status 125
	assert_stderr_has "^cordon: explain takes no command: 'ls'$"
	cordon explain /x -r "$T/out/none"
	assert_status 125
	assert_stderr_has "^cordon: --read '$T/out/none': No such file or directory$"
	cordon explain --connect http
	assert_status 1
	assert_stdout_has "^error connect http: not a port (PORT, or udp:PORT)$"
}

# explain names the option as the lines do: shell-quoted, so that the
# option pasted (as bash reads it) changes the verdict, and the run.
test_explain_quotes_the_option() {
	mkdir "$T/out/my dir"
	local name="$T/out/my dir/it's
new"
	echo old > "$name"
	cordon explain --write "$name"
	assert_status 1
	local line opts
	line=$(grep -a '; allow with ' "$T/stdout")
	[ "$(wc -l < "$T/stdout")" -eq 1 ] || { show; fail "more than one line"; }
	eval "opts=(${line##*; allow with })" || fail "the option does not parse: $line"
	[ "${opts[0]}" = --write ] && [ "${opts[1]}" = "$name" ] || fail "option: ${opts[*]}"
	cordon explain --write "$name" "${opts[@]}"
	assert_status 0
	cordon "${opts[@]}" -- sh -c 'echo new > "$1"' _ "$name"
	assert_status 0
	assert_content "$name" new
}
