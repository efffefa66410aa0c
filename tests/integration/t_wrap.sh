# cordon wrap: the argv and environment a caller in any language spawns
# after clearing its own environment.

# A Python caller: takes `cordon wrap --json` and spawns exactly that,
# with exactly that environment (nothing of its own), from the
# workspace; prints the command's status.
wrap_client='import json, subprocess, sys
doc = json.loads(subprocess.run(sys.argv[1:], check=True,
                                capture_output=True).stdout)
print(subprocess.run(doc["argv"], env=doc["env"]).returncode)'

test_wrap_json_spawned_with_cleared_env_is_confined() {
	local cmd='echo "${KEEP:-none}:${SECRET:-none}" > seen; touch "$0/escaped"'
	SECRET=s3cr3t KEEP=kept cordon wrap --json -e KEEP -- sh -c "$cmd" "$T/out"
	assert_status 0
	assert_stdout_lacks s3cr3t
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert d["argv"][0].startswith("/") and "--" in d["argv"], d
assert d["env"]["KEEP"] == "kept" and "SECRET" not in d["env"], d' \
		"$T/stdout" || fail "not the document expected"
	SECRET=s3cr3t KEEP=kept python3 -c "$wrap_client" \
		"$CORDON" wrap --json -e KEEP -- sh -c "$cmd" "$T/out" \
		> "$T/stdout" 2> "$T/stderr"
	status=$?
	assert_status 0
	assert_content "$T/ws/seen" "kept:none"
	# the command ran, inside: the write outside was refused
	assert_absent "$T/out/escaped"
	assert_stderr_has "denied write"
	# the twin: the same command bare writes there
	plain sh -c "$cmd" "$T/out"
	assert_exists "$T/out/escaped"
}

test_wrap_grant_reaches_the_spawned_command() {
	python3 -c "$wrap_client" "$CORDON" wrap --json -w "$T/out" -- \
		touch "$T/out/granted" > "$T/stdout" 2> "$T/stderr"
	status=$?
	assert_stdout_has '^0$'
	assert_exists "$T/out/granted"
}

test_wrap_shell_line() {
	cordon wrap -- sh -c 'touch "$0/x"; touch made' "$T/out"
	assert_status 0
	assert_stdout_has '^env -i '
	sh -c "$(cat "$T/stdout")" 2> /dev/null
	assert_exists "$T/ws/made"
	assert_absent "$T/out/x"
}

test_wrap_bad_options_refused() {
	cordon wrap --json -w "$T/missing" -- true
	assert_status 125
	assert_stderr_has "'$T/missing': No such file"
	# the error document (t_schema.sh validates it), nothing to spawn
	assert_stdout_has '^{"error":{"status":125,"message":"--write '
	assert_stdout_lacks '"argv"'
	cordon wrap --json
	assert_status 125
	assert_stderr_has "no command given"
	assert_stdout_has '^{"error":{"status":125,"message":"no command given"}}$'
	cordon wrap -w "$T/missing" -- true
	assert_status 125
	[ ! -s "$T/stdout" ] || fail "a document was printed without --json"
}
