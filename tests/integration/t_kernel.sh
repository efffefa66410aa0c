# Fail closed: what the kernel cannot enforce is refused, by name.

need_helper() {
	[ -x "$HELPERS/$1" ] || fail "helper $1 was not built"
}

# Without Landlock the world holds the files (t_world.sh); a TCP port
# (--connect, the network shared) only Landlock holds: refused by name.
test_no_landlock_refuses_what_only_landlock_holds() {
	need_helper nolandlock
	"$HELPERS/nolandlock" -- "$CORDON" --connect 443 -- touch "$T/ws/ran" \
		> "$T/stdout" 2> "$T/stderr"
	status=$?
	assert_status 125
	assert_absent "$T/ws/ran"
	assert_stderr_has "refusing to run: no TCP beyond the grant: nothing here holds it; it needs Landlock ABI 4 (Linux 6.7)"
	assert_stderr_lacks "read only the readable roots"
	# The twins: without the port it runs there; with Landlock too.
	"$HELPERS/nolandlock" -- "$CORDON" -- touch "$T/ws/ran" \
		> "$T/stdout" 2> "$T/stderr"
	status=$?
	assert_status 0
	assert_exists "$T/ws/ran"
	rm -f "$T/ws/ran"
	cordon --connect 443 -- touch "$T/ws/ran"
	assert_status 0
	assert_exists "$T/ws/ran"
}

test_no_landlock_disabled_at_boot_hint() {
	need_helper nolandlock
	"$HELPERS/nolandlock" --errno EOPNOTSUPP -- "$CORDON" --connect 443 -- true \
		> "$T/stdout" 2> "$T/stderr"
	status=$?
	assert_status 125
	assert_stderr_has "lsm= boot parameter"
}

test_no_landlock_best_effort_runs_and_warns() {
	need_helper nolandlock
	"$HELPERS/nolandlock" -- "$CORDON" --connect 443 --best-effort -- \
		touch "$T/ws/ran" > "$T/stdout" 2> "$T/stderr"
	status=$?
	assert_status 0
	assert_exists "$T/ws/ran"
	assert_stderr_has "WARNING: --best-effort: NOT ENFORCED: no TCP beyond the grant (needs Landlock ABI 4 (Linux 6.7)"
	assert_stderr_lacks "read only the readable roots"
	[ "$(grep -c WARNING "$T/stderr")" -eq 1 ] || fail "not one warning line"
}

# TCP with ports allowed (--connect, --bind) shares the host's network:
# only Landlock ABI 4 holds a port there.  (With the network off, a
# network namespace of the command's own or the filter holds TCP on an
# older Landlock: t_guarantees.sh.)
test_old_abi_without_tcp_refuses_tcp_ports() {
	need_helper fakeabi
	"$HELPERS/fakeabi" 3 -- "$CORDON" --connect 443 -- touch "$T/ws/ran" \
		> "$T/stdout" 2> "$T/stderr"
	status=$?
	assert_status 125
	assert_absent "$T/ws/ran"
	assert_stderr_has "refusing to run: no TCP beyond the grant: nothing here holds it; it needs Landlock ABI 4 (Linux 6.7) (this is .*Landlock ABI 3)"
}

test_old_abi_best_effort_still_enforces_what_it_has() {
	need_helper fakeabi
	make_tree "$T/out/victim"
	"$HELPERS/fakeabi" 3 -- "$CORDON" --connect 443 --best-effort -- \
		rm -rf "$T/out/victim" > "$T/stdout" 2> "$T/stderr"
	status=$?
	assert_status_not 0
	assert_tree "$T/out/victim"
	assert_stderr_has "NOT ENFORCED: no TCP beyond the grant (needs Landlock ABI 4"
}

test_abi6_lacks_only_audit_and_runs_with_a_note() {
	need_helper fakeabi
	"$HELPERS/fakeabi" 6 -- "$CORDON" -- touch "$T/ws/ran" \
		> "$T/stdout" 2> "$T/stderr"
	status=$?
	assert_status 0
	assert_exists "$T/ws/ran"
	assert_stderr_has "note: no kernel audit"
}

# Landlock ABI 5 lacks the scopes: with the network shared too, the
# broker holds abstract sockets and the PID namespace signals (their
# effects: t_guarantees.sh), so it runs.
test_abi5_runs_with_net_its_scopes_held_by_other_layers() {
	need_helper fakeabi
	"$HELPERS/fakeabi" 5 -- "$CORDON" --net -- touch "$T/ws/ran" \
		> "$T/stdout" 2> "$T/stderr"
	status=$?
	assert_status 0
	assert_exists "$T/ws/ran"
	assert_stderr_lacks "refusing to run"
}

test_no_new_privs_is_set() {
	cordon -- grep NoNewPrivs /proc/self/status
	assert_status 0
	assert_stdout_has 'NoNewPrivs:.*1'
}

# refused_then_best_effort NOLANDLOCK_OPTION: under that host's
# restriction, cordon refuses (125, nothing run, the rows named) unless
# --best-effort; the twin, on this host, runs.  Leaves $T/stderr of the
# refusal in $T/refused.
refused_then_best_effort() {
	need_helper nolandlock
	"$HELPERS/nolandlock" "$1" -- "$CORDON" -- touch "$T/ws/ran" \
		> "$T/stdout" 2> "$T/stderr"
	status=$?
	assert_status 125
	assert_absent "$T/ws/ran"
	assert_stderr_has "refusing to run: change metadata only under the writable roots: nothing here holds it; it needs the mount namespace"
	cp "$T/stderr" "$T/refused"
	"$HELPERS/nolandlock" "$1" -- "$CORDON" --best-effort -- touch "$T/ws/ran" \
		> "$T/stdout" 2> "$T/stderr"
	status=$?
	assert_status 0
	assert_exists "$T/ws/ran"
	assert_stderr_has "WARNING: --best-effort: NOT ENFORCED: change metadata only under the writable roots"
	rm "$T/ws/ran"
	cordon -- touch "$T/ws/ran"
	assert_status 0
	assert_exists "$T/ws/ran"
	cp "$T/refused" "$T/stderr"
}

# A host that forbids the namespaces (user namespaces off, say): cordon
# refuses, naming what it cannot contain, unless --best-effort.
test_no_namespaces_refuses_and_never_runs() {
	refused_then_best_effort --no-namespaces
	assert_stderr_has "refusing to run: no /proc view of processes outside"
}

# A host that makes the namespaces and denies mounts in them (AppArmor's
# restriction of unprivileged user namespaces): cordon makes no trial
# namespace before the real one, which must refuse the same way, and
# run nothing; --best-effort (which tries first) runs without them.
test_no_mounts_in_namespaces_refuses_and_never_runs() {
	refused_then_best_effort --no-mounts
	assert_stderr_has "refusing to run: no terminal of the host (other ptys)"
	assert_stderr_has "^hint: 'cordon probe' shows what this host enforces"
}
