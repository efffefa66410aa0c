# Profiles: a JSON file or a built-in name with --profile; roots, ports
# and variables add up with the flags, and the flags win for mode, net
# and inherit_env.  Never read implicitly from the workspace.

test_profile_file_grants_what_it_lists() {
	echo s3cr3t > "$T/out/secret"
	printf '{"read": ["%s"], "env": ["CORDON_IT_*"]}\n' "$T/out" > "$T/prof.json"
	CORDON_IT_X=1 cordon --profile "$T/prof.json" -- sh -c "cat '$T/out/secret'; echo \"x=\$CORDON_IT_X\""
	assert_status 0
	assert_stdout_has '^s3cr3t$'
	assert_stdout_has '^x=1$'
	# twin: without it, refused and scrubbed
	CORDON_IT_X=1 cordon -- sh -c "cat '$T/out/secret'; echo \"x=\$CORDON_IT_X\""
	assert_stdout_lacks s3cr3t
	assert_stdout_has '^x=$'
}

test_profile_flags_win() {
	printf '{"mode": "read-only", "net": true}\n' > "$T/prof.json"
	cordon -p "$T/prof.json" -- sh -c 'echo x > made'
	assert_absent "$T/ws/made"
	cordon -p "$T/prof.json" -m workspace-write -- sh -c 'echo x > made'
	assert_exists "$T/ws/made"
	cordon explain --connect 80 -p "$T/prof.json"
	assert_status 0
	cordon explain --connect 80 -p "$T/prof.json" --connect 443
	assert_status 1
}

test_profile_builtins() {
	mkdir -p "$T/home/.cargo/bin"
	HOME=$T/home cordon explain --write "$T/home/.cargo/registry" -p cargo
	assert_status 0
	assert_stdout_has "granted by $T/home/.cargo (rw)"
	HOME=$T/home cordon explain --write "$T/home/.cargo/registry"
	assert_status 1
	# a cache this machine does not have is skipped, not an error
	HOME=$T/home cordon -p npm -p pip -p go -p ccache -p gradle -p maven -p cargo -- true
	assert_status 0
	HOME=$T/home cordon -p read-only -- sh -c 'echo x > made'
	assert_absent "$T/ws/made"
}

test_profile_bad_input() {
	printf '{"reed": []}' > "$T/bad.json"
	cordon -p "$T/bad.json" -- true
	assert_status 125
	assert_stderr_has "^cordon: profile '$T/bad.json': unknown key 'reed'$"
	printf '{"read": [' > "$T/bad.json"
	cordon -p "$T/bad.json" -- true
	assert_status 125
	assert_stderr_has "^cordon: --profile '$T/bad.json': line 1: "
	printf '{"read": ["%s/none"]}' "$T/out" > "$T/bad.json"
	cordon -p "$T/bad.json" -- true
	assert_status 125
	assert_stderr_lines 1
	cordon -p no-such-profile -- true
	assert_status 125
	assert_stderr_has "not a built-in profile"
	printf '[1, 2]' > "$T/bad.json"
	cordon -p "$T/bad.json" -- true
	assert_status 125
	assert_stderr_has "not a JSON object"
}

# A cloned repository must not grant itself rights.
test_profile_never_read_from_the_workspace() {
	echo s3cr3t > "$T/out/secret"
	local name
	for name in cordon.json .cordon.json .cordon profile.json; do
		printf '{"read": ["%s"]}\n' "$T/out" > "$T/ws/$name"
	done
	cordon -- cat "$T/out/secret"
	assert_status_not 0
	assert_stdout_lacks s3cr3t
	# only when named
	cordon -p ./cordon.json -- cat "$T/out/secret"
	assert_stdout_has s3cr3t
}
