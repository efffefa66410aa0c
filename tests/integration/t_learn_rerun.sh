# cordon learn, then the same command under cordon with the learned
# profile on a clean tree (the tree as it was before the learning run)
# and in another workspace: it must meet no denial at all, and do what
# it does without cordon (checked from outside).  Each test learns in
# $T/a, reruns in a fresh copy $T/b, and its twin in $T/c shows the same
# command refused without the profile (so a rerun cannot pass by the
# command doing nothing).  Covered: a tool in ~/bin (a "#!" script whose
# interpreter is outside the exec roots, calling a compiled binary), a
# cargo-like cache in ~ that does not exist before, a Python venv made
# by the run, and the network ports.  The real builds are in
# t_realbuild_learn.sh.

# learn_rerun_clean LOG: the last run reported no denial, and its audit
# log LOG holds none.
learn_rerun_clean() {
	! grep -q 'cordon: denied\|denials\? reported' "$T/stderr" ||
		{ show; fail "the rerun with the learned profile met denials"; }
	[ ! -e "$1" ] || ! grep -q '"verdict":"deny"' "$1" ||
		{ cat "$1"; fail "the rerun's audit log holds denials"; }
}

# learn_rerun_profile PYTHON-ASSERTIONS: check $T/prof.json, as p (the
# learning workspace $T/a is "a", $T is "t"); the profile never names
# the learning workspace itself.
learn_rerun_profile() {
	! grep -q "$T/a" "$T/prof.json" ||
		{ cat "$T/prof.json"; fail "the profile names the workspace $T/a"; }
	python3 - "$T/prof.json" "$T" "$1" <<'PY' ||
import json, sys
p, t = json.load(open(sys.argv[1])), sys.argv[2]
exec(sys.argv[3])
PY
		{ cat "$T/prof.json"; fail "not the profile expected"; }
}

# The tool in ~/bin: a "#!" script whose interpreter is a copy of dash in
# ~/opt/bin, found along PATH; it runs a compiled binary in ~/tools,
# linked to a library of its own in ~/lib (by its run path, which the
# dynamic loader follows before any shim runs), and writes into the
# workspace.
learn_rerun_tool_fixture() {
	local h=$T/home
	command -v cc > /dev/null || skip "SKIP: no C compiler"
	mkdir -p "$h/bin" "$h/opt/bin" "$h/tools" "$h/lib" "$T/a" "$T/b" "$T/c"
	cp "$(readlink -f /bin/dash)" "$h/opt/bin/mysh" || fail "no dash"
	printf '%s\n' '#include <stdio.h>' \
		'void greet(const char *w) { printf("greet %s\n", w); }' > "$T/libgreet.c"
	printf '%s\n' 'void greet(const char *w);' \
		'int main(int c, char **v) { greet(c > 1 ? v[1] : "?"); return 0; }' \
		> "$T/greet.c"
	cc -shared -fPIC -o "$h/lib/libgreet.so" "$T/libgreet.c" &&
		cc -o "$h/tools/greet" "$T/greet.c" -L"$h/lib" -lgreet \
			-Wl,-rpath,'$ORIGIN/../lib' || fail "cannot compile"
	cat > "$h/bin/tool" <<EOS
#!$h/opt/bin/mysh
"\$HOME/tools/greet" "\$1" > ./result
echo "tool \$1"
EOS
	chmod 755 "$h/bin/tool"
}

test_learn_rerun_home_tool() {
	local h=$T/home
	learn_rerun_tool_fixture
	cd "$T/a" || fail "no $T/a"
	HOME=$h PATH=$h/bin:$PATH cordon learn --log "$T/learn.jsonl" \
		-o "$T/prof.json" -- tool one
	assert_status 0
	assert_stdout_has '^tool one$'
	assert_content "$T/a/result" "greet one"
	learn_rerun_profile '
assert sorted(p.get("exec", [])) == ["~/bin", "~/lib", "~/opt/bin", "~/tools"], p
assert set(p) == {"exec"}, p'
	# another workspace, with the profile: no denial, the same effect
	cd "$T/b" || fail "no $T/b"
	HOME=$h PATH=$h/bin:$PATH cordon --log "$T/run.jsonl" \
		-p "$T/prof.json" -- tool two
	assert_status 0
	assert_stdout_has '^tool two$'
	assert_content "$T/b/result" "greet two"
	learn_rerun_clean "$T/run.jsonl"
	# the twin: without the profile, the tool cannot run
	cd "$T/c" || fail "no $T/c"
	HOME=$h PATH=$h/bin:$PATH cordon --log "$T/twin.jsonl" -- tool three
	assert_status 126
	assert_absent "$T/c/result"
	# and with the tool's directory alone, its interpreter stays refused
	HOME=$h PATH=$h/bin:$PATH cordon --log "$T/twin.jsonl" -x "$h/bin" \
		-x "$h/tools" -x "$h/lib" -- tool four
	assert_status 126
	assert_absent "$T/c/result"
	# and without the library's directory, the binary cannot start
	HOME=$h PATH=$h/bin:$PATH cordon --log "$T/twin.jsonl" -x "$h/bin" \
		-x "$h/opt/bin" -x "$h/tools" -- tool five
	assert_stderr_has 'libgreet.so'
	[ ! -s "$T/c/result" ] || fail "the binary ran without its library"
}

# The same tool run by a child (the shell), not by cordon itself: the
# shim sees the script executed; its interpreter is learned as well.
test_learn_rerun_home_tool_from_a_child() {
	local h=$T/home
	learn_rerun_tool_fixture
	cd "$T/a" || fail "no $T/a"
	HOME=$h PATH=$h/bin:$PATH cordon learn --log "$T/learn.jsonl" \
		-o "$T/prof.json" -- sh -c 'tool one && echo after'
	assert_status 0
	assert_stdout_has '^after$'
	learn_rerun_profile '
assert sorted(p.get("exec", [])) == ["~/bin", "~/lib", "~/opt/bin", "~/tools"], p'
	cd "$T/b" || fail "no $T/b"
	HOME=$h PATH=$h/bin:$PATH cordon --log "$T/run.jsonl" \
		-p "$T/prof.json" -- sh -c 'tool two && echo after'
	assert_status 0
	assert_stdout_has '^after$'
	assert_content "$T/b/result" "greet two"
	learn_rerun_clean "$T/run.jsonl"
	# the twin: the tool's and the binary's directories, not the
	# interpreter's: refused
	cd "$T/c" || fail "no $T/c"
	HOME=$h PATH=$h/bin:$PATH cordon --log "$T/twin.jsonl" -x "$h/bin" \
		-x "$h/tools" -x "$h/lib" -- sh -c 'tool three && echo after'
	assert_status_not 0
	assert_stdout_lacks after
	assert_absent "$T/c/result"
}

# A build that fills two caches in a home that has neither (nor
# ~/.cache): one in a ~/.NAME no tool of toolroot.h owns (granted as the
# directory the run made, not all of ~/.NAME), and one in ~/.cache
# (XDG's: the tool's own directory there).
learn_rerun_cache_job() {
	cat > "$1/job.sh" <<'EOS'
mkdir -p "$HOME/.fakecargo/registry/cache" &&
	echo crate > "$HOME/.fakecargo/registry/cache/c1" &&
	mkdir -p "$HOME/.cache/fakebuild/x" &&
	echo obj > "$HOME/.cache/fakebuild/x/o" &&
	cat "$HOME/.fakecargo/registry/cache/c1" > built &&
	echo done
EOS
}

test_learn_rerun_cache_in_home() {
	local h=$T/home
	mkdir -p "$h" "$T/a" "$T/b" "$T/c"
	learn_rerun_cache_job "$T/a"
	cd "$T/a" || fail "no $T/a"
	HOME=$h cordon learn --log "$T/learn.jsonl" -o "$T/prof.json" -- sh job.sh
	assert_status 0
	assert_stdout_has '^done$'
	learn_rerun_profile '
assert sorted(p.get("create", [])) == ["~/.cache/fakebuild", "~/.fakecargo/registry/cache"], p
assert set(p) == {"create"}, p'
	# a clean home: the caches (and ~/.cache) are gone
	rm -rf "$h/.fakecargo" "$h/.cache"
	learn_rerun_cache_job "$T/b"
	cd "$T/b" || fail "no $T/b"
	HOME=$h cordon --log "$T/run.jsonl" -p "$T/prof.json" -- sh job.sh
	assert_status 0
	assert_stdout_has '^done$'
	learn_rerun_clean "$T/run.jsonl"
	assert_content "$h/.fakecargo/registry/cache/c1" crate
	assert_content "$h/.cache/fakebuild/x/o" obj
	assert_content "$T/b/built" crate
	# nothing else made in the home (but cordon's own state directory)
	[ "$(cd "$h" && find . -mindepth 1 -maxdepth 1 ! -name .local | sort | tr '\n' ' ')" = "./.cache ./.fakecargo " ] ||
		{ ls -la "$h"; fail "the run made more in the home"; }
	# the twin: a clean home, no profile: refused, nothing made
	rm -rf "$h/.fakecargo" "$h/.cache"
	learn_rerun_cache_job "$T/c"
	cd "$T/c" || fail "no $T/c"
	HOME=$h cordon --log "$T/twin.jsonl" -- sh job.sh
	assert_status_not 0
	assert_stderr_has "cordon: denied"
	assert_absent "$h/.fakecargo"
	assert_absent "$T/c/built"
}

# A venv the run makes in a directory that does not exist yet, then
# uses without pip: its python, and a script of its own in its bin/.
learn_rerun_venv_job() {
	cat > "$1/job.sh" <<EOS
python3 -m venv --without-pip '$T/out/envs/proj' || exit 1
printf '#!$T/out/envs/proj/bin/python\nimport sys\nprint("prefix", sys.prefix)\n' > '$T/out/envs/proj/bin/where'
chmod +x '$T/out/envs/proj/bin/where'
'$T/out/envs/proj/bin/where' > where.txt
'$T/out/envs/proj/bin/python' -c 'import sys; print(sys.prefix != sys.base_prefix)'
EOS
}

test_learn_rerun_venv() {
	command -v python3 > /dev/null || skip "SKIP: no python3"
	python3 -c 'import venv' 2> /dev/null || skip "SKIP: no venv module"
	mkdir -p "$T/a" "$T/b" "$T/c"
	learn_rerun_venv_job "$T/a"
	cd "$T/a" || fail "no $T/a"
	cordon learn --log "$T/learn.jsonl" -o "$T/prof.json" -- sh job.sh
	assert_status 0
	assert_stdout_has '^True$'
	assert_content "$T/a/where.txt" "prefix $T/out/envs/proj"
	# the venv's directory did not exist: its nearest ancestor, $T/out
	learn_rerun_profile '
import os
out = "~" + (t + "/out")[len(os.environ["HOME"]):]
assert p.get("write") == [out], p
assert p.get("exec") == [out], p
assert set(p) == {"write", "exec"}, p'
	rm -rf "$T/out/envs"
	learn_rerun_venv_job "$T/b"
	cd "$T/b" || fail "no $T/b"
	cordon --log "$T/run.jsonl" -p "$T/prof.json" -- sh job.sh
	assert_status 0
	assert_stdout_has '^True$'
	learn_rerun_clean "$T/run.jsonl"
	assert_content "$T/b/where.txt" "prefix $T/out/envs/proj"
	assert_exists "$T/out/envs/proj/pyvenv.cfg"
	rm -rf "$T/out/envs"
	learn_rerun_venv_job "$T/c"
	cd "$T/c" || fail "no $T/c"
	cordon --log "$T/twin.jsonl" -- sh job.sh
	assert_status_not 0
	assert_stderr_has "cordon: denied"
	assert_absent "$T/out/envs"
}

# A server that binds an ephemeral port, and a client that connects to
# a listener outside: learned as "bind" and "connect" ports.
learn_rerun_net_job() {
	cat > "$1/job.py" <<'EOS'
import socket, sys
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(1)
socket.create_connection(("127.0.0.1", int(sys.argv[1]))).close()
print("bound and connected")
EOS
}

test_learn_rerun_ports() {
	command -v python3 > /dev/null || skip "SKIP: no python3"
	mkdir -p "$T/a" "$T/b" "$T/c"
	start_listener -t 20
	learn_rerun_net_job "$T/a"
	cd "$T/a" || fail "no $T/a"
	cordon learn --log "$T/learn.jsonl" -o "$T/prof.json" -- python3 job.py "$port"
	assert_status 0
	assert_stdout_has '^bound and connected$'
	learn_rerun_profile "
assert p == {'bind': [0], 'connect': [$port]}, p"
	learn_rerun_net_job "$T/b"
	cd "$T/b" || fail "no $T/b"
	cordon --log "$T/run.jsonl" -p "$T/prof.json" -- python3 job.py "$port"
	assert_status 0
	assert_stdout_has '^bound and connected$'
	learn_rerun_clean "$T/run.jsonl"
	learn_rerun_net_job "$T/c"
	cd "$T/c" || fail "no $T/c"
	cordon --log "$T/twin.jsonl" -- python3 job.py "$port"
	assert_status_not 0
	assert_stdout_lacks 'bound and connected'
	wait_listener
	# one connection learning, one with the profile, none from the twin
	[ "$contacts" = 2 ] || fail "the listener counted $contacts connections, expected 2"
}

# A profile's "create": `cordon explain` makes nothing (and does not
# refuse the missing directory, nor a path of the profile inside it); a
# run makes it, writable.
test_learn_rerun_create_profile() {
	local h=$T/home
	mkdir -p "$h"
	printf '{"create": ["~/.made"], "exec": ["~/.made"]}\n' > "$T/prof.json"
	HOME=$h cordon explain --write "$T/ws/x" -p "$T/prof.json"
	assert_status 0
	assert_absent "$h/.made"
	HOME=$h cordon -p "$T/prof.json" -- sh -c "echo x > '$h/.made/f'"
	assert_status 0
	assert_content "$h/.made/f" x
	# the twin: the same profile without "create" is refused at once
	rm -rf "$h/.made"
	printf '{"write": ["~/.made"]}\n' > "$T/prof.json"
	HOME=$h cordon -p "$T/prof.json" -- sh -c "echo x > '$h/.made/f'"
	assert_status 125
	assert_absent "$h/.made"
}
