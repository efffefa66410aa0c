# cordon learn: a run that records what the options' policy would refuse
# and writes a minimal profile; the same command then runs under cordon
# with that profile and no denial at all.

learn_fixture() {
	mkdir -p "$T/out/data" "$T/out/bin" "$T/out/cache" "$T/home/.cache"
	echo d1 > "$T/out/data/a"
	echo d2 > "$T/out/data/b"
	cp /bin/true "$T/out/bin/tool"
	cat > "$T/ws/job.sh" <<EOS
cat '$T/out/data/a'
echo made > '$T/out/cache/new'
'$T/out/bin/tool'
mkdir -p "\$HOME/.cache/tool/x" && echo y > "\$HOME/.cache/tool/x/y"
python3 -c 'import socket,sys; socket.create_connection(("127.0.0.1", int(sys.argv[1]))).close()' "\$1"
echo done
EOS
}

test_learn_then_run_with_no_denial() {
	command -v python3 > /dev/null || skip "SKIP: no python3"
	learn_fixture
	start_listener -t 10
	HOME=$T/home cordon learn --log "$T/log" -o "$T/prof.json" -- sh job.sh "$port"
	assert_status 0
	assert_stdout_has '^done$'
	assert_stderr_has "^cordon: learned 4 paths and 1 port into $T/prof.json; run it with --profile $T/prof.json$"
	python3 - "$T/prof.json" "$T" "$port" <<'PY' || { cat "$T/prof.json"; fail "not the profile expected"; }
import json, sys
p, t, port = json.load(open(sys.argv[1])), sys.argv[2], int(sys.argv[3])
assert p["read"] == [t + "/out/data/a"], p           # the file, not the directory
assert p["write"] == [t + "/out/cache"], p
# the cache the run made in the home: made again before the next run
assert p["create"] == ["~/.cache/tool"], p
assert p["exec"] == [t + "/out/bin"], p
assert p["connect"] == [port], p
assert "net" not in p and "bind" not in p and "mode" not in p
PY
	# nothing outside changed beyond what the command itself did
	assert_content "$T/out/data/a" d1
	# the same command, under cordon with the profile, on a clean tree:
	# no denial
	rm -rf "$T/out/cache/new" "$T/home/.cache/tool"
	HOME=$T/home cordon --log "$T/log2" -p "$T/prof.json" -- sh job.sh "$port"
	assert_status 0
	assert_stdout_has '^done$'
	! grep -q 'cordon: denied' "$T/stderr" || { show; fail "a denial with the learned profile"; }
	# and the twin: without it, refused
	HOME=$T/home cordon --log "$T/log3" -- sh job.sh "$port"
	assert_stderr_has "cordon: denied read $T/out/data/a"
	wait_listener
	# and a grant it did not learn stays refused
	HOME=$T/home cordon -p "$T/prof.json" -- cat "$T/out/data/b"
	assert_status_not 0
	assert_stdout_lacks d2
}

test_learn_bad_input() {
	cordon learn -- true
	assert_status 125
	assert_stderr_has "^cordon: learn: -o PROFILE names the file to write$"
	cordon learn -o "$T/p.json"
	assert_status 125
	assert_stderr_has "no command given"
	cordon learn -o "$T/p.json" --no-shim -- true
	assert_status 125
	assert_stderr_has "learn needs the shim"
	cordon -o "$T/p.json" -- true
	assert_status 125
	assert_stderr_has "^cordon: -o goes with learn$"
}
