# cordon probe: the live proof of what this host enforces.

test_probe_passes_on_this_kernel() {
	cordon probe
	assert_status 0
	assert_stdout_has 'create a file outside the writable roots.*enforced'
	assert_stdout_has 'TCP connect with network off.*enforced'
	assert_stdout_has 'signal a process outside.*enforced'
	assert_stdout_lacks 'NOT ENFORCED'
	assert_stdout_lacks 'MISSING'
	assert_stdout_lacks 'untested'
}

test_probe_json() {
	cordon probe --json
	assert_status 0
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["ok"] is True; assert all(f["ok"] for f in d["features"]); assert d["landlock_abi"] >= 1' "$T/stdout" ||
		fail "probe --json is not the expected JSON"
}

test_probe_fails_without_landlock() {
	[ -x "$HELPERS/nolandlock" ] || fail "helper nolandlock was not built"
	"$HELPERS/nolandlock" -- "$CORDON" probe > "$T/stdout" 2> "$T/stderr"
	status=$?
	assert_status 1
	assert_stdout_has 'filesystem read, write and execute rules.*MISSING'
	# reading has no other layer; writing is still stopped by the
	# read-only mounts
	assert_stdout_has 'read a file outside the readable roots.*NOT ENFORCED'
	assert_stdout_has 'create a file outside the writable roots.*enforced.*Read-only file system'
}

test_probe_fails_without_namespaces() {
	[ -x "$HELPERS/nolandlock" ] || fail "helper nolandlock was not built"
	"$HELPERS/nolandlock" --no-namespaces -- "$CORDON" probe > "$T/stdout" 2> "$T/stderr"
	status=$?
	assert_status 1
	assert_stdout_has 'metadata of files outside the writable roots.*MISSING'
	assert_stdout_has 'chmod a file outside the writable roots.*NOT ENFORCED'
	assert_stdout_has "read a process outside's command line.*NOT ENFORCED"
}
