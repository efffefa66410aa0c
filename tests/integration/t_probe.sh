# cordon probe: the live proof of what this host enforces.

# probe_weak [--no-namespaces]: cordon probe on a host without Landlock
# (and without namespaces): the helper takes them away.
probe_weak() {
	[ -x "$HELPERS/nolandlock" ] || fail "helper nolandlock was not built"
	"$HELPERS/nolandlock" "$@" -- "$CORDON" probe > "$T/stdout" 2> "$T/stderr"
	status=$?
}

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

# Without Landlock the world (a root holding the granted roots alone)
# holds reading, writing and executing: the probe passes, and says so.
test_probe_passes_without_landlock_held_by_the_world() {
	probe_weak
	assert_status 0
	assert_stdout_has '^read only the readable roots  *held by the mount namespace$'
	assert_stdout_has 'filesystem read, write and execute rules.*held  *held by the mount namespace'
	assert_stdout_has 'read a file outside the readable roots.*enforced.*no effect outside'
	assert_stdout_has 'create a file outside the writable roots.*enforced.*no effect outside'
	assert_stdout_has 'execute a program outside the exec roots.*enforced.*no effect outside'
	assert_stdout_lacks 'NOT ENFORCED'
}

test_probe_fails_without_namespaces() {
	probe_weak --no-namespaces
	assert_status 1
	assert_stdout_has 'metadata of files outside the writable roots.*MISSING'
	assert_stdout_has 'chmod a file outside the writable roots.*NOT ENFORCED'
	assert_stdout_has "read a process outside's command line.*NOT ENFORCED"
}

# With the network off the command has a network namespace of its own,
# where the host's loopback listener and abstract sockets do not exist:
# each network row proves its own layer.  Landlock's rows are tried
# without that namespace (the errno is Landlock's: EACCES for TCP,
# EPERM for its abstract-socket scope, not the namespace's "Connection
# refused" or "Network is unreachable"); the namespace has its own row,
# tried with no Landlock and no filter in front of it.
test_probe_network_rows_prove_their_own_layer() {
	cordon probe
	assert_status 0
	assert_stdout_has '^landlock  TCP connect with network off .* enforced  *denied (Permission denied), no effect outside; works unsandboxed$'
	assert_stdout_has '^landlock  connect to an abstract UNIX socket outside .* enforced  *denied (Operation not permitted), no effect outside; works unsandboxed$'
	assert_stdout_has "^net  *reach the host's loopback with network off .* enforced  *denied (Network is unreachable), no effect outside; works unsandboxed\$"
	# without namespaces, the namespace's row says it does not hold
	probe_weak --no-namespaces
	assert_status 1
	assert_stdout_has "^net  *reach the host's loopback with network off .*NOT ENFORCED"
	assert_stdout_has '^landlock  connect to an abstract UNIX socket outside .* enforced  *denied (Operation not permitted)'
	# without Landlock, its TCP and abstract-socket rows say so, and
	# what in the whole sandbox held them (the network namespace, the
	# filter, the broker: the guarantee is theirs there); the
	# namespace's own row still holds
	probe_weak
	assert_status 0
	assert_stdout_has '^landlock  TCP connect with network off .* held  *Landlock lacks it; the network namespace and the seccomp filter denied it'
	assert_stdout_has '^landlock  connect to an abstract UNIX socket outside .* held  *Landlock lacks it; the broker and the network namespace denied it'
	assert_stdout_has "^net  *reach the host's loopback with network off .* enforced"
}

# The guarantees come first, each with what holds it here; without user
# namespaces, Landlock and the filter still hold what they can, and the
# others say what would hold them.  The JSON says the same.
test_probe_lists_guarantees_and_what_holds_each() {
	cordon probe --json
	assert_status 0
	python3 -c 'import json, sys
g = {x["guarantee"]: x for x in json.load(open(sys.argv[1]))["guarantees"]}
s = g["no signal to processes outside"]
assert s["held"] and s["held_by"] == ["Landlock", "the PID namespace"], s
assert s["would_hold"] is None, s
assert all(x["held"] for x in g.values() if x["needed"]), g' "$T/stdout" ||
		fail "probe --json's guarantees are not what they should be"
	cordon probe
	assert_status 0
	head -1 "$T/stdout" | grep -q '^GUARANTEE  *HELD BY$' || fail "the guarantees do not come first"
	assert_stdout_has '^no signal to processes outside  *held by Landlock and the PID namespace$'
	assert_stdout_lacks 'NOT HELD'
	probe_weak --no-namespaces
	assert_status 1
	assert_stdout_has '^no signal to processes outside  *held by Landlock$'
	assert_stdout_has '^no SysV IPC of the host  *held by the seccomp filter$'
	assert_stdout_has '^no TCP beyond the grant  *held by Landlock and the seccomp filter$'
	assert_stdout_has '^change metadata only under the writable roots  *NOT HELD: needs the mount namespace (.*namespaces'
	assert_stdout_has '^no /proc view of processes outside (listing, command lines)  *NOT HELD: needs the PID namespace ('
	# the live checks agree: the filter holds SysV IPC, nothing chmod
	assert_stdout_has '^ipc  *write a SysV shared memory segment outside .* enforced  *denied (Operation not permitted)'
	assert_stdout_has 'chmod a file outside the writable roots.*NOT ENFORCED'
}
