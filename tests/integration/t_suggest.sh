# The suggested option is the least grant that makes the refused action
# succeed, and it pastes: each test runs a refused action, checks from
# outside that it had no effect, takes the options from cordon's own
# output (the line, and the summary's last line) as a shell reads them,
# reruns with exactly those, and checks from outside that the action
# now took effect.

# The options of the summary's last line, as bash reads them, in OPTS.
summary_options() {
	local line
	line=$(grep -a '^cordon: allow all of it with: ' "$T/stderr" | tail -n 1)
	[ -n "$line" ] || { show; fail "no 'allow all of it with:' line"; }
	[ "$(tail -n 1 "$T/stderr")" = "$line" ] || { show; fail "the options are not the last line"; }
	eval "OPTS=(${line#cordon: allow all of it with: })" || fail "the options do not parse: $line"
}

# The option of the denial line matching $1 (grep -E), in OPTS: the
# line's end after "; allow with " that reads as one flag and one word
# (a name may hold "; allow with " itself: its copy in the line's path
# is escaped, and what follows it there does not read so).
line_options() {
	local line rest
	line=$(grep -a -E "$1" "$T/stderr" | head -n 1)
	[ -n "$line" ] || { show; fail "no line matching $1"; }
	rest=$line
	while [[ $rest == *"; allow with "* ]]; do
		rest=${rest#*; allow with }
		# a syntax error in eval ends the shell: tried in a subshell
		if (eval "OPTS=($rest)") 2> /dev/null && eval "OPTS=($rest)" &&
			[ ${#OPTS[@]} -eq 2 ] && [[ ${OPTS[0]} == --* ]]; then
			return 0
		fi
	done
	show
	fail "no option that parses in: $line"
}

test_suggest_rm_outside_needs_its_directory() {
	echo keep > "$T/out/f"
	cordon -- rm "$T/out/f"
	assert_status_not 0
	assert_content "$T/out/f" keep
	assert_stderr_has "denied write $T/out/f \[unlinkat\] .*; allow with --write $T/out$"
	line_options "denied write $T/out/f \[unlinkat\]"
	[ "${OPTS[*]}" = "--write $T/out" ] || fail "line option: ${OPTS[*]}"
	summary_options
	# the --read of the file is implied by the --write of its directory
	[ "${OPTS[*]}" = "--write $T/out" ] || fail "summary options: ${OPTS[*]}"
	cordon "${OPTS[@]}" -- rm "$T/out/f"
	assert_status 0
	assert_absent "$T/out/f"
	# the old suggestion, the file itself, does not do it
	echo keep > "$T/out/g"
	cordon --read "$T/out/g" --write "$T/out/g" -- rm "$T/out/g"
	assert_status_not 0
	assert_content "$T/out/g" keep
}

test_suggest_mv_outside_needs_its_directory() {
	echo moved > "$T/out/a"
	cordon -- mv "$T/out/a" "$T/out/b"
	assert_status_not 0
	assert_content "$T/out/a" moved
	assert_absent "$T/out/b"
	summary_options
	cordon "${OPTS[@]}" -- mv "$T/out/a" "$T/out/b"
	assert_status 0
	assert_absent "$T/out/a"
	assert_content "$T/out/b" moved
}

test_suggest_creation_in_a_new_directory_outside() {
	cordon -- sh -c 'mkdir -p "$1/new/sub" && echo made > "$1/new/sub/f"' _ "$T/out"
	assert_status_not 0
	assert_absent "$T/out/new"
	summary_options
	[ "${OPTS[*]}" = "--write $T/out" ] || fail "summary options: ${OPTS[*]}"
	cordon "${OPTS[@]}" -- sh -c 'mkdir -p "$1/new/sub" && echo made > "$1/new/sub/f"' _ "$T/out"
	assert_status 0
	assert_content "$T/out/new/sub/f" made
}

test_suggest_a_path_with_a_space_is_quoted() {
	mkdir "$T/out/my dir"
	cordon -- sh -c 'echo made > "$1"' _ "$T/out/my dir/f"
	assert_status_not 0
	assert_absent "$T/out/my dir/f"
	assert_stderr_has "; allow with --write '$T/out/my dir'$"
	line_options "denied write $T/out/my dir/f"
	cordon "${OPTS[@]}" -- sh -c 'echo made > "$1"' _ "$T/out/my dir/f"
	assert_status 0
	assert_content "$T/out/my dir/f" made
	rm "$T/out/my dir/f"
	cordon -- sh -c 'echo made > "$1"' _ "$T/out/my dir/f"
	summary_options
	cordon "${OPTS[@]}" -- sh -c 'echo made > "$1"' _ "$T/out/my dir/f"
	assert_status 0
	assert_content "$T/out/my dir/f" made
}

# A newline in a name: the line stays one line (no "cordon:" line of the
# name's making), and the quoted option gives back the exact name.
test_suggest_a_path_with_a_newline_is_quoted() {
	local name="$T/out/a
cordon: denied write fake; allow with --write it"
	echo "the content" > "$name"
	cordon -- cat "$name"
	assert_status_not 0
	grep -a -q '^cordon: denied write fake' "$T/stderr" && { show; fail "a line of the name's making"; }
	assert_stdout_lacks "the content"
	line_options "denied read $T/out/a"
	[ "${OPTS[1]}" = "$name" ] || fail "line option names: ${OPTS[1]}"
	summary_options
	[ "${OPTS[1]}" = "$name" ] || fail "summary option names: ${OPTS[1]}"
	cordon "${OPTS[@]}" -- cat "$name"
	assert_status 0
	assert_stdout_has "^the content$"
}

# git config renames config.lock onto the protected .git/config, a mount
# point in the sandbox: the option is the git directory, which lifts
# git's protections of it (--write .git/config fails with EBUSY).
test_suggest_git_config_in_a_repository() {
	command -v git > /dev/null || skip "SKIP: no git"
	git init -q "$T/ws" || fail "git init"
	local env=(-e GIT_CONFIG_GLOBAL=/dev/null -e GIT_CONFIG_NOSYSTEM=1)
	cordon "${env[@]}" -- git config x.y z
	assert_status_not 0
	[ -z "$(git -C "$T/ws" config x.y)" ] || fail "x.y was set"
	assert_stderr_has "$T/ws/.git/config is protected); allow with --write $T/ws/.git$"
	summary_options
	[ "${OPTS[*]}" = "--write $T/ws/.git" ] || fail "summary options: ${OPTS[*]}"
	cordon "${env[@]}" "${OPTS[@]}" -- git config x.y z
	assert_status 0
	[ "$(git -C "$T/ws" config x.y)" = z ] || fail "x.y not set"
	# the twin: the file alone is not enough
	cordon "${env[@]}" --write "$T/ws/.git/config" -- git config x.y w
	assert_status_not 0
	[ "$(git -C "$T/ws" config x.y)" = z ] || fail "x.y changed"
}

# A file of the process's own, /proc/PID/...: the pid is another one at
# the next run, so the option names /proc.
test_suggest_a_proc_pid_path_names_proc() {
	local x=() d
	for d in /usr /bin /lib /lib64; do [ -e "$d" ] && x+=(-x "$d"); done
	cordon --no-defaults "${x[@]}" -- sh -c 'cat /proc/$$/mounts'
	assert_status_not 0
	assert_stdout_lacks ' / '
	assert_stderr_has "denied read /proc/[0-9]*/mounts \[.*\] (.*); allow with --read /proc$"
	summary_options
	cordon --no-defaults "${x[@]}" "${OPTS[@]}" -- sh -c 'cat /proc/$$/mounts'
	assert_status 0
	assert_stdout_has ' / '
}

# A program outside the exec roots: --exec of the file itself runs it
# (the kernel's EXECUTE on the file, its mount no longer noexec).
test_suggest_exec_names_the_program() {
	cp /bin/true "$T/out/prog"
	printf '#!/bin/sh\necho ran > "$1"\n' > "$T/out/script"
	chmod +x "$T/out/script"
	cordon -- sh -c '"$1/prog" && "$1/script" "$2/mark"' _ "$T/out" "$T/ws"
	assert_status_not 0
	assert_absent "$T/ws/mark"
	assert_stderr_has "denied exec $T/out/prog \[.*\] (.*); allow with --exec $T/out/prog$"
	summary_options
	[ "${OPTS[*]}" = "--exec $T/out/prog" ] || fail "summary options: ${OPTS[*]}"
	cordon "${OPTS[@]}" -- sh -c '"$1/prog" && "$1/script" "$2/mark"' _ "$T/out" "$T/ws"
	assert_status_not 0
	summary_options
	[ "${OPTS[*]}" = "--exec $T/out/script" ] || fail "summary options: ${OPTS[*]}"
	cordon --exec "$T/out/prog" "${OPTS[@]}" -- sh -c '"$1/prog" && "$1/script" "$2/mark"' _ "$T/out" "$T/ws"
	assert_status 0
	assert_content "$T/ws/mark" ran
}

# No denial, no options line.
test_suggest_no_denial_no_options_line() {
	cordon -- sh -c 'echo ok > "$1/f"' _ "$T/ws"
	assert_status 0
	grep -q 'allow all of it' "$T/stderr" && { show; fail "an options line"; }
	assert_content "$T/ws/f" ok
}

# cordon's own audit log: no option is suggested for it, and a --write
# naming it (which would lift its protection) is refused before the run.
test_suggest_the_audit_log_is_never_granted() {
	local log="$T/out/audit.jsonl"
	cordon --log "$log" -- sh -c 'echo forged >> "$1"' _ "$log"
	assert_status_not 0
	assert_stderr_has "$T/out/audit.jsonl; no option grants this: it is cordon's own audit log or state$"
	grep -q "allow all of it" "$T/stderr" && { show; fail "an option for the log"; }
	grep -q forged "$log" && fail "the command wrote into the log"
	cordon --log "$log" --write "$log" -- sh -c 'echo forged >> "$1"' _ "$log"
	assert_status 125
	assert_stderr_has "^cordon: --write '$log': cordon's own audit log and state are never granted$"
	assert_stderr_lines 1
	grep -q forged "$log" && fail "the command wrote into the log"
	# the twin: another file there is granted, and written
	cordon --log "$log" --write "$T/out" -- sh -c 'echo mine > "$1"' _ "$T/out/other"
	assert_status 0
	assert_content "$T/out/other" mine
}

# chmod and chown look before they act: the first run is refused the
# look-up, so its options allow only that, and the rerun meets the
# change.  The summary says so and names learning, whose profile then
# does it in one run.
test_suggest_a_refused_lookup_points_to_learn() {
	echo keep > "$T/out/f"
	chmod 644 "$T/out/f"
	cordon -- chmod 600 "$T/out/f"
	assert_status_not 0
	[ "$(stat -c %a "$T/out/f")" = 644 ] || fail "the mode changed"
	assert_stderr_has "denied see $T/out/f \[fstatat\] .*; allow with --read $T/out/f$"
	assert_stderr_has "^cordon: a refused look-up may have stopped the command before it acted; to find every grant in one run: cordon learn -o PROFILE -- COMMAND$"
	summary_options
	cordon "${OPTS[@]}" -- chmod 600 "$T/out/f"
	assert_status_not 0
	[ "$(stat -c %a "$T/out/f")" = 644 ] || fail "the mode changed"
	assert_stderr_has "denied write $T/out/f \[fchmodat\]"
	# what the hint says, pasted: the learned profile does it all
	cordon learn -o "$T/p.json" -- chmod 600 "$T/out/f"
	assert_status 0
	chmod 644 "$T/out/f"
	cordon -p "$T/p.json" -- chmod 600 "$T/out/f"
	assert_status 0
	[ "$(stat -c %a "$T/out/f")" = 600 ] || fail "the mode did not change"
	grep -q 'cordon: denied' "$T/stderr" && { show; fail "a denial"; }
	# the twin: a refusal that is no look-up gets no hint
	cordon -- sh -c 'echo x > "$1"' _ "$T/out/g"
	assert_status_not 0
	assert_absent "$T/out/g"
	grep -q 'refused look-up' "$T/stderr" && { show; fail "a hint"; }
	return 0
}
