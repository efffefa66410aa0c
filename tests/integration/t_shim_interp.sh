# A "#!" script whose interpreter lies outside the exec roots
# (shim/exec_interp.c): the kernel checks X on the interpreter as on the
# script, so the shim decides on both; the refusal names the
# interpreter with the least grant (--exec of the interpreter file),
# and that option, pasted, makes the script run.  Effects are checked
# from outside: the file the script would make.  Helpers from
# t_shim_exec.sh (exec_with, exec_policy, exec_drive, exec_records).

# $T/out/bin/mysh: a copy of dash outside the exec roots; $T/ws/tool: a
# script in the workspace run by it, which makes the file its first
# argument names.
interp_fixture() {
	mkdir -p "$T/out/bin"
	cp "$(readlink -f /bin/dash)" "$T/out/bin/mysh" || fail "no dash"
	printf '#!%s\n: > "$1"\n' "$T/out/bin/mysh" > "$T/ws/tool"
	chmod 755 "$T/ws/tool"
}

# The options of the summary's last line, as the shell parses them.
interp_pasted() {
	local line
	line=$(sed -n 's/^cordon: allow all of it with: //p' "$T/stderr")
	[ -n "$line" ] || { show; fail "no 'allow all of it' line"; }
	eval "pasted=($line)"
}

# The shim alone (no kernel layer: the interpreter would run if the shim
# let it): every exec method refuses the script for its interpreter.
test_interp_outside_the_exec_roots_is_refused_by_every_method() {
	interp_fixture
	local m pol
	pol=$(exec_policy)
	for m in $EXEC_METHODS; do
		rm -f "$T/ws/ran" "$T/audit.jsonl"
		exec_with "$pol" "$HELPERS/shimdrive_exec" run "$m" \
			"$T/ws/tool" "$T/ws/ran"
		assert_status 1
		assert_absent "$T/ws/ran"
		grep -F "cordon: denied exec $T/out/bin/mysh [$m interpreter]" \
			"$T/stderr" | grep -qF "allow with --exec $T/out/bin/mysh" ||
			{ show; fail "no line of [$m] naming the interpreter"; }
		[ "$(grep -c 'cordon: denied' "$T/stderr")" -eq 1 ] ||
			{ show; fail "not one line for one exec ($m)"; }
		[ -n "$(exec_records "\"operation\":\"$m\"" '"need":4' \
			"\"resolved\":\"$T/out/bin/mysh\"")" ] ||
			{ show; fail "no audit record of the interpreter ($m)"; }
		# the twin: the interpreter executable, the script runs
		exec_with "$pol|root=rx,d,u,$T/out/bin/mysh" \
			"$HELPERS/shimdrive_exec" run "$m" "$T/ws/tool" \
			"$T/ws/ran"
		assert_status 0
		assert_exists "$T/ws/ran"
		! grep -q 'cordon: denied' "$T/stderr" || { show; fail "denied"; }
	done
}

# The interpreter's own "#!" interpreter, as the kernel follows it; and
# one that is not there or cannot run gets the kernel's answer, no line.
test_interp_nested_and_missing_interpreters() {
	interp_fixture
	# mysh runs inner with outer's path and the argument after it
	printf '#!%s\n: > "$2"\n' "$T/out/bin/mysh" > "$T/ws/inner"
	printf '#!%s\n' "$T/ws/inner" > "$T/ws/outer"
	chmod 755 "$T/ws/inner" "$T/ws/outer"
	exec_with "$(exec_policy)" "$HELPERS/shimdrive_exec" run execve \
		"$T/ws/outer" "$T/ws/ran"
	assert_stdout_has '^execve: EACCES$'
	assert_absent "$T/ws/ran"
	assert_stderr_has "denied exec $T/out/bin/mysh \[execve interpreter\]"
	exec_drive plain run execve "$T/ws/outer" "$T/ws/ran"
	assert_status 0
	assert_exists "$T/ws/ran"
	rm -f "$T/ws/ran"
	printf '#!%s/none\n: > "$1"\n' "$T/out" > "$T/ws/tool"
	exec_with "$(exec_policy)" "$HELPERS/shimdrive_exec" run execve \
		"$T/ws/tool" "$T/ws/ran"
	assert_stdout_has '^execve: ENOENT$'
	assert_stderr_lines 0
	chmod 644 "$T/out/bin/mysh"
	printf '#!%s\n: > "$1"\n' "$T/out/bin/mysh" > "$T/ws/tool"
	exec_with "$(exec_policy)" "$HELPERS/shimdrive_exec" run execve \
		"$T/ws/tool" "$T/ws/ran"
	assert_stdout_has '^execve: EACCES$'
	assert_stderr_lines 0
	assert_absent "$T/ws/ran"
}

# A normal run: the script run by the command's shell is refused with a
# line naming the interpreter; the options of cordon's own output,
# pasted, make it run (checked from outside).
test_interp_outside_explained_and_the_pasted_option_runs_it() {
	interp_fixture
	local pasted
	cordon -- sh -c './tool "$1"' sh "$T/ws/ran"
	assert_status 126
	assert_absent "$T/ws/ran"
	assert_stderr_has "^cordon: denied exec $T/out/bin/mysh \[execve interpreter\] .*; allow with --exec $T/out/bin/mysh\$"
	interp_pasted
	[ "${pasted[*]}" = "--exec $T/out/bin/mysh" ] ||
		{ show; fail "not the least grant: ${pasted[*]}"; }
	cordon "${pasted[@]}" -- sh -c './tool "$1"' sh "$T/ws/ran"
	assert_status 0
	assert_exists "$T/ws/ran"
	! grep -q 'cordon: denied' "$T/stderr" || { show; fail "denied"; }
	rm -f "$T/ws/ran"
	plain sh -c './tool "$1"' sh "$T/ws/ran"
	assert_status 0
	assert_exists "$T/ws/ran"
}

# The script as the command itself: the launcher execs it, where no
# shim runs; its refusal names the interpreter, and that option runs it.
test_interp_outside_of_the_command_itself_is_explained() {
	interp_fixture
	cordon -- ./tool "$T/ws/ran"
	assert_status 126
	assert_absent "$T/ws/ran"
	assert_stderr_has "^cordon: cannot execute './tool': Permission denied (its interpreter $T/out/bin/mysh is outside the exec roots); allow with --exec $T/out/bin/mysh\$"
	cordon --exec "$T/out/bin/mysh" -- ./tool "$T/ws/ran"
	assert_status 0
	assert_exists "$T/ws/ran"
}
