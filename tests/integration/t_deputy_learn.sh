# cordon learn as a deputy (issue 27, class 7): the records it folds
# into a profile are the command's to forge ($HELPERS/forge sends any
# datagram to the report socket, with raw system calls).  A forged
# record must never make the learned profile grant /, $HOME or above,
# cordon's state or the profile itself, git's hooks or configuration,
# nor hold a path with a control character, a wildcard host or a port
# out of range; loading the profile must not let the command write
# there (checked from outside).  The twin: with --allow-broad the same
# records give the broad grant, warned, and the write happens.  And the
# profile is written through the directory held from before the run,
# never through a link the command put in its place.

# learn_forged_records HOME: the forged records, one a line (JSON).
learn_forged_records() {
	python3 - "$1" "$T" <<'PY'
import json, sys
home, t = sys.argv[1], sys.argv[2]
def rec(path, need=2):
    return {"time": 1.5, "pid": 7, "ppid": 1, "program": "/bin/forged",
            "operation": "open", "path": path, "resolved": path,
            "need": need, "verdict": "learn", "rule": "r", "layer": "shim"}
def net(dest, allow):
    return {"time": 1.5, "pid": 7, "ppid": 1, "program": "/bin/forged",
            "operation": "connect", "destination": dest, "verdict": "learn",
            "rule": "r", "allow": allow, "layer": "shim"}
recs = [rec(p) for p in [
    home + "/.", "//.", "/", home + "/../..", home + "/victim",
    t + "/out/prof/p.json",
    home + "/.local/state/cordon/audit.jsonl",
    t + "/ws/repo/.git/hooks/x", t + "/ws/repo/.git/config",
    home + "/.bashrc",
    t + "/out/legit/f",                 # the one grant to learn
    t + "/out/a\nb",                    # invalid: a newline
    "/" + "a" * 4095,                   # invalid: PATH_MAX and more
    "/" + "b" * 5000]]                  # refused by the record check
# to execute a link to "/", to read above $HOME
recs += [rec("/proc/self/root", 4), rec(home + "/..", 1)]
recs += [net("1.2.3.4:443", "with --allow-host *.evil.test"),  # invalid
         net("1.2.3.4:99999", "with --connect 99999")]          # invalid
for r in recs:
    print(json.dumps(r, separators=(",", ":")))
PY
}

# learn_forged [OPTIONS]: learn from a command that sends the forged
# records, with $T/home as the home, into $T/out/prof/p.json.
learn_forged() {
	local -a recs
	command -v python3 > /dev/null || skip "SKIP: no python3"
	mkdir -p "$T/home/.local/state/cordon" "$T/out/prof" "$T/out/legit" \
		"$T/ws/repo/.git/hooks"
	echo '[core]' > "$T/ws/repo/.git/config"
	mapfile -t recs < <(learn_forged_records "$T/home")
	[ "${#recs[@]}" -eq 18 ] || fail "the records were not made"
	HOME=$T/home cordon learn "$@" --log "$T/out/learn.jsonl" \
		-o "$T/out/prof/p.json" -- "$HELPERS/forge" send "${recs[@]}"
}

# learn_load_and_write: the learned profile loaded, and a command that
# writes where the forged records pointed; sets $status.
learn_load_and_write() {
	local h=$T/home
	HOME=$h cordon --log "$T/out/run.jsonl" -p "$T/out/prof/p.json" -- sh -c "
		echo x > '$h/victim'; echo x > '$T/victim'
		echo x > '$h/.local/state/cordon/planted'
		echo x > '$T/out/prof/planted'
		echo x > '$T/ws/repo/.git/hooks/pre-commit'
		echo evil >> '$T/ws/repo/.git/config'
		echo x > '$h/.bashrc'
		echo x > '$T/out/legit/ok'"
}

test_deputy_learn_forged_grants_left_out() {
	learn_forged
	assert_status 0
	no=$(grep -c '^cordon: WARNING: left out of the profile: .*; --allow-broad keeps it$' "$T/stderr")
	[ "$no" -ge 8 ] || { show; fail "$no WARNING lines, expected 8 or more"; }
	assert_stderr_has "^cordon: WARNING: left out of the profile: write / (all of /); --allow-broad keeps it$"
	assert_stderr_has "^cordon: WARNING: 4 records from the command held no valid path, port or host: not learned$"
	python3 - "$T/out/prof/p.json" "$T" <<'PY' || { cat "$T/out/prof/p.json"; fail "the profile holds a forged grant"; }
import json, os, sys
prof, t = sys.argv[1], sys.argv[2]
p = json.load(open(prof))
home, ws = t + "/home", t + "/ws"
def expand(x):
    if x == "~" or x.startswith("~/"):
        x = home + x[1:]
    elif x == "." or x.startswith("./"):
        x = ws + x[1:]
    elif x.startswith("$TMPDIR"):
        x = os.environ.get("TMPDIR", "/tmp") + x[7:]
    return os.path.realpath(x)
def within(a, b):
    return a == b or a.startswith(b.rstrip("/") + "/")
for key in ("read", "write", "exec", "create", "connect_unix"):
    for x in p.get(key, []):
        assert not any(ord(c) < 0x20 or ord(c) == 0x7f for c in x), (key, x)
        assert len(x) < 4096, key
        assert x == os.path.normpath(x) or x.startswith("$TMPDIR"), (key, x)
        r = expand(x)
        assert not within(home, r), ("/, $HOME or above", key, x)
        if key in ("write", "create"):
            for own in (home + "/.local/state/cordon", prof):
                assert not within(own, r) and not within(r, own), (key, x)
            assert not within(r, ws + "/repo/.git"), (key, x)
            assert not within(r, home + "/.bashrc"), (key, x)
assert p.get("write") == [t + "/out/legit"], p
assert "create" not in p and "read" not in p, p
assert not {"allow_hosts", "connect", "bind", "net"} & set(p), p
PY
	learn_load_and_write
	assert_status 0 # the last write, in the learned grant
	# the profile says nothing of itself (the summary warns of the
	# options naming $HOME it suggests for the refused writes)
	assert_stderr_lacks "WARNING: profile"
	assert_stderr_lacks "WARNING: left out"
	assert_absent "$T/home/victim"
	assert_absent "$T/victim"
	assert_absent "$T/home/.local/state/cordon/planted"
	assert_absent "$T/out/prof/planted"
	assert_absent "$T/ws/repo/.git/hooks/pre-commit"
	assert_absent "$T/home/.bashrc"
	assert_content "$T/ws/repo/.git/config" '[core]'
	# the grant it learned works: the command ran, and wrote there
	assert_content "$T/out/legit/ok" x
}

# The twin: the same records with --allow-broad give the broad grant,
# each warned, and the profile loaded lets the command write $HOME: the
# test above cannot pass by the write failing for another reason.
test_deputy_learn_forged_grants_kept_by_allow_broad() {
	learn_forged --allow-broad
	assert_status 0
	assert_stderr_has "^cordon: WARNING: kept by --allow-broad: write / (all of /)$"
	assert_stderr_lacks "left out of the profile"
	python3 - "$T/out/prof/p.json" <<'PY' || { cat "$T/out/prof/p.json"; fail "the broad grant is not in the profile"; }
import json, sys
p = json.load(open(sys.argv[1]))
assert "/" in p.get("write", []), p
PY
	learn_load_and_write
	assert_stderr_has "^cordon: WARNING: profile '$T/out/prof/p.json' \"write\" lets the command write all of / (/)$"
	assert_content "$T/home/victim" x
	assert_content "$T/victim" x
}

# A hand-written profile that grants $HOME writable says so when loaded;
# one that grants less says nothing.
test_deputy_learn_loading_a_wide_profile_warns() {
	mkdir -p "$T/home/sub"
	echo '{"write": ["~/."]}' > "$T/out/wide.json"
	echo '{"write": ["~/sub"]}' > "$T/out/narrow.json"
	HOME=$T/home cordon -p "$T/out/wide.json" -- sh -c "echo x > '$T/home/victim'"
	assert_status 0
	assert_stderr_has "^cordon: WARNING: profile '$T/out/wide.json' \"write\" lets the command write all of $T/home (\$HOME)$"
	assert_content "$T/home/victim" x
	HOME=$T/home cordon -p "$T/out/narrow.json" -- true
	assert_status 0
	assert_stderr_lacks WARNING
}

# While it learns, the command puts a link to a file outside where the
# profile is to be written: the profile replaces the link, and the file
# it pointed at is unchanged (learn wrote through the name: JSON in the
# user's file).
test_deputy_learn_profile_through_a_link() {
	echo keep > "$T/out/target"
	HOME=$T/home cordon learn --log "$T/out/learn.jsonl" -o "$T/ws/p.json" \
		-- sh -c "ln -s '$T/out/target' '$T/ws/p.json' && echo linked"
	assert_status 0
	assert_stdout_has '^linked$'
	assert_content "$T/out/target" keep
	[ -f "$T/ws/p.json" ] && [ ! -L "$T/ws/p.json" ] ||
		{ ls -l "$T/ws"; fail "the profile is not a file of its own"; }
	python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$T/ws/p.json" ||
		fail "the profile is not JSON"
	[ -z "$(ls -A "$T/ws" | grep -v '^p.json$')" ] ||
		{ ls -la "$T/ws"; fail "a temporary file was left"; }
	# twin: a writer that follows the name writes the file outside
	ln -sf "$T/out/target" "$T/ws/p2.json"
	echo '{}' > "$T/ws/p2.json"
	assert_content "$T/out/target" '{}'
}

test_deputy_learn_allow_broad_goes_with_learn() {
	cordon --allow-broad -- true
	assert_status 125
	assert_stderr_has "^cordon: --allow-broad goes with learn$"
}
