# The JSON cordon prints or logs, validated against its JSON Schema
# (doc/schema/, draft 2020-12, staged with the tests in $HELPERS/doc): `probe
# --json`, `explain --json` on several paths and policies, and an audit
# log that holds every kind of record, made by real runs.  The
# validation is schema_check.py's (python3-jsonschema); it is shown to
# reject wrong documents, so that it cannot pass by accepting anything.

# schema_docs: the schemas into $T/doc/schema.
schema_docs() {
	[ -d "$HELPERS/doc/schema" ] || fail "doc/schema was not staged"
	mkdir -p "$T/doc" && cp -r "$HELPERS/doc/." "$T/doc/" || fail "cannot copy doc"
	python3 -c 'import jsonschema' 2> /dev/null ||
		fail "no python3 jsonschema module (Debian python3-jsonschema: make deps)"
}

# schema_valid NAME FILE [--lines] [--def DEF]: FILE is valid against
# doc/schema/NAME.schema.json; what schema_check says in $T/check.
schema_valid() {
	local name=$1
	shift
	python3 "$HELPERS/schema_check.py" "$T/doc/schema/$name.schema.json" \
		"$@" > "$T/check" 2>&1 ||
		{ cat "$T/check"; echo "--- $1:"; head -c 3000 "$1"; fail "not valid against $name.schema.json: $*"; }
}

# schema_invalid NAME FILE...: schema_check says invalid (status 1, not
# 2: the schema and the file were read, the document was refused).
schema_invalid() {
	local name=$1 st
	shift
	python3 "$HELPERS/schema_check.py" "$T/doc/schema/$name.schema.json" \
		"$@" > "$T/check" 2>&1
	st=$?
	[ "$st" -eq 1 ] && grep -q '^invalid: ' "$T/check" ||
		{ cat "$T/check"; fail "$name.schema.json accepts (status $st): $(head -c 600 "$1")"; }
}

test_schema_probe_json() {
	schema_docs
	cordon probe --json
	assert_status 0
	cp "$T/stdout" "$T/probe.json"
	schema_valid probe "$T/probe.json"
	# a host without Landlock (ABI 0): the world holds what Landlock
	# would, each guarantee says so
	[ -x "$HELPERS/nolandlock" ] || fail "helper nolandlock was not built"
	"$HELPERS/nolandlock" -- "$CORDON" probe --json > "$T/noll.json" 2> "$T/stderr"
	status=$?
	assert_status 0
	schema_valid probe "$T/noll.json"
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert d["ok"] is True and d["landlock_abi"] == 0, d
g = {x["guarantee"]: x for x in d["guarantees"]}
r = g["read only the readable roots"]
assert r["needed"] and r["held"] and r["held_by"] == ["the mount namespace"], r
assert any(f["state"] == "held" for f in d["features"]), d' "$T/noll.json" ||
		fail "the probe without Landlock is not what it should be"
	# a host that enforces less (no namespaces): rows MISSING and NOT
	# ENFORCED, ok false
	"$HELPERS/nolandlock" --no-namespaces -- "$CORDON" probe --json > "$T/weak.json" 2> "$T/stderr"
	status=$?
	assert_status 1
	schema_valid probe "$T/weak.json"
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert d["ok"] is False, d
assert any(f["state"] == "MISSING" for f in d["features"]), d
g = {x["guarantee"]: x for x in d["guarantees"]}
m = g["change metadata only under the writable roots"]
assert m["needed"] and not m["held"] and m["held_by"] == [], m
assert m["would_hold"].startswith("the mount namespace"), m
r = g["read only the readable roots"]
assert r["held"] and r["held_by"] == ["Landlock"], r' "$T/weak.json" ||
		fail "the weak host's probe is not what it should be"
}

# explain_agree ARGS...: `cordon explain ARGS` and `cordon explain --json
# ARGS` exit alike and say the same, path by path: the verdict, the rule
# and the option; the JSON is valid.
explain_agree() {
	cordon explain "$@"
	local text_status=$status
	cp "$T/stdout" "$T/text"
	cordon explain --json "$@"
	[ "$status" -eq "$text_status" ] ||
		{ show; fail "explain --json exits $status, the text form $text_status: $*"; }
	cp "$T/stdout" "$T/explain.json"
	schema_valid explain "$T/explain.json"
	python3 -c 'import json, re, sys
doc = json.load(open(sys.argv[1]))
lines = open(sys.argv[2], encoding="utf-8").read().splitlines()
items = doc.get("paths", doc.get("ports"))
assert len(items) == len(lines), (items, lines)
assert doc["allowed"] == (int(sys.argv[3]) == 0), doc
for it, line in zip(items, lines):
    word, access = line.split(" ")[:2]
    assert access == doc["access"], (access, doc["access"])
    if "error" in it:
        assert word == "error" and line.endswith(": " + it["error"]), (it, line)
        continue
    v = it if "ports" in doc else it[doc["access"]]
    assert it["allowed"] == v["allowed"], it
    assert word == ("allowed" if v["allowed"] else "denied"), (it, line)
    if v["allowed"]:
        assert line.endswith(": " + v["rule"]), (it, line)
    elif "no_option" in v:
        assert line.endswith(": %s; %s" % (v["rule"], v["no_option"])), (it, line)
    else:
        assert line.endswith(": %s; allow with %s" % (v["rule"], v["allow"])), (it, line)
' "$T/explain.json" "$T/text" "$status" ||
		{ show; cat "$T/text"; fail "explain --json and explain disagree: $*"; }
}

test_schema_explain_json() {
	schema_docs
	echo s3cr3t > "$T/out/secret"
	echo mine > "$T/ws/mine"
	mkdir -p "$T/out/dir"
	echo spaced > "$T/out/a b"
	ln -s "$T/out/secret" "$T/ws/link"
	ln -s loop "$T/ws/loop"
	# read (the default), paths allowed, refused, absent, through a link,
	# a loop (an error), a name no shell quotes plainly
	explain_agree "$T/out/secret" /etc/passwd ./mine ./new/file ./link \
		./loop/x "$T/out/a b" /nonexistent/x
	grep -q '"error":' "$T/explain.json" || fail "the loop gave no error entry"
	explain_agree --write /etc/hosts ./mine "$T/out/dir/new" -w "$T/out/dir"
	explain_agree --exec "$T/out/secret" /usr/bin/true -x "$T/out"
	explain_agree --write ./mine -m read-only
	explain_agree --read /usr/bin/true "$T/out/secret" --no-defaults -x /usr
	explain_agree --connect-unix "$T/out/secret" ./mine --connect-unix "$T/out"
	explain_agree --connect-unix "$T/out/secret"
	explain_agree --connect 443 80 http --connect 443
	explain_agree --connect 80 --net
	explain_agree --connect 22
	# protected paths in a repository of the workspace
	command -v git > /dev/null || fail "no git (make deps installs it)"
	git init -q "$T/ws" || fail "git init"
	explain_agree --write .git/hooks/pre-commit .git/config ./mine
	explain_agree --write .git/config --write .git
	# every one allowed: exit 0, "allowed": true
	explain_agree /etc/passwd ./mine
	assert_status 0
	# a name with a newline and a byte that is not UTF-8: still one
	# valid document on one line
	cordon explain --json "$(printf 'bad\nname\377')" /etc/passwd
	assert_status 0
	[ "$(wc -l < "$T/stdout")" -eq 1 ] || { show; fail "not one line"; }
	cp "$T/stdout" "$T/odd.json"
	schema_valid explain "$T/odd.json"
	# --json before or after the access, or among the options: the same
	cordon explain --json --write /etc/hosts
	cp "$T/stdout" "$T/a.json"
	cordon explain --write --json /etc/hosts
	cmp -s "$T/stdout" "$T/a.json" || { show; fail "--json after the access differs"; }
	cordon explain --write /etc/hosts --json
	cmp -s "$T/stdout" "$T/a.json" || { show; fail "--json among the options differs"; }
	assert_stdout_has '"access":"write"'
}

# json_error SCHEMA ARGS...: `cordon ARGS` fails (125) with one error
# document on one line of stdout, valid against SCHEMA (error: the
# shared one alone) and error.schema.json, its message the first error
# said on stderr (which still says it).
json_error() {
	local name=$1
	shift
	cordon "$@"
	assert_status 125
	[ "$(wc -l < "$T/stdout")" -eq 1 ] || { show; fail "not one line: $*"; }
	cp "$T/stdout" "$T/err.json"
	schema_valid error "$T/err.json"
	schema_valid "$name" "$T/err.json"
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))["error"]
# a byte that is not UTF-8 is \u00XX in the document (as in the records)
text = open(sys.argv[2], encoding="utf-8", errors="surrogateescape").read()
text = "".join(chr(ord(c) - 0xdc00) if 0xdc80 <= ord(c) <= 0xdcff else c for c in text)
said = [l for l in text.splitlines() if l.startswith("cordon: ")]
assert d["status"] == 125 and said and said[0] == "cordon: " + d["message"], (d, said)' \
		"$T/err.json" "$T/stderr" || { show; fail "the document is not the error said: $*"; }
}

# Each --json command answers bad input with the error document; the
# twin: good input, the command's own document.
test_schema_explain_json_bad_input() {
	schema_docs
	json_error explain explain --json
	assert_stderr_has "^cordon: explain: no path given$"
	json_error explain explain --json /x -r "$T/out/none"
	assert_stderr_has "^cordon: --read '$T/out/none': No such file or directory$"
	json_error explain explain --json /x -- ls
	assert_stderr_has "^cordon: explain takes no command: 'ls'$"
	json_error explain explain --json /x -p "$T/out/none.json"
	assert_stdout_has "none.json"
	printf '{"mode": "nope"}' > "$T/out/bad.json"
	json_error explain explain /x -p "$T/out/bad.json" --json
	# a name no terminal shows plainly: still one valid document
	json_error explain explain --json /x -r "$(printf 'n\nl\377')"
	# --json where it does not go: the error is still a document
	json_error error --json -- true
	assert_stderr_has "^cordon: --json goes with probe, explain, wrap and session$"
	json_error error learn --json -o "$T/out/p.json" -- true
	assert_absent "$T/out/p.json"
	# the twin: good input, explain's own document
	cordon explain --json /etc/passwd
	assert_status 0
	cp "$T/stdout" "$T/good.json"
	schema_valid explain "$T/good.json"
	schema_invalid error "$T/good.json"
}

test_schema_json_errors_of_every_command() {
	schema_docs
	json_error probe probe --json --bogus
	assert_stderr_has "^cordon: unknown option '--bogus'$"
	json_error probe probe --bogus --json
	json_error probe-mode probe --json --mode nope
	json_error probe-mode probe --json --mode ci -p "$T/out/none.json"
	json_error wrap wrap --json -p "$T/out/none.json" -- ls
	json_error wrap wrap --json -w "$T/out/none" -- ls
	json_error session-start session start --json --idle 0
	json_error session-start session start --json -p "$T/out/none.json"
	json_error session-list session list --json --bogus
	# the twins: good input, each command's own document
	cordon probe --json --mode ci
	assert_status 0
	cp "$T/stdout" "$T/good.json"
	schema_valid probe-mode "$T/good.json"
	schema_invalid error "$T/good.json"
	cordon wrap --json -e HOME -- ls -l
	assert_status 0
	cp "$T/stdout" "$T/good.json"
	schema_valid wrap "$T/good.json"
	schema_invalid error "$T/good.json"
	mutate "$T/good.json" "$T/bad.json" 'd["env"]["HOME"] = 1'
	schema_invalid wrap "$T/bad.json"
	# (a list that holds a session: t_session's test_schema_session_start_json)
	cordon session list --json
	assert_status 0
	cp "$T/stdout" "$T/good.json"
	schema_valid session-list "$T/good.json"
	# without --json: no document, the line alone
	cordon wrap -p "$T/out/none.json" -- ls
	assert_status 125
	[ ! -s "$T/stdout" ] || { show; fail "a document without --json"; }
}

# A refusal (a kernel without Landlock) of session start --json: the
# error document, and no session started (the list, asked from outside,
# is the same); the twin is test_schema_session_start_json (t_session).
test_schema_json_refusal_of_session_start() {
	schema_docs
	[ -x "$HELPERS/nolandlock" ] || fail "helper nolandlock was not built"
	"$CORDON" session list --json > "$T/before" || fail "session list"
	# without Landlock, a TCP port (the network shared) has no mechanism
	"$HELPERS/nolandlock" -- "$CORDON" session start --json --idle 30 \
		--connect 443 > "$T/stdout" 2> "$T/stderr"
	status=$?
	assert_status 125
	cp "$T/stdout" "$T/err.json"
	schema_valid session-start "$T/err.json"
	assert_stdout_has '"message":"refusing to run: no TCP beyond the grant: nothing here holds it; '
	assert_stderr_has "^cordon: refusing to run: "
	"$CORDON" session list --json > "$T/after" || fail "session list"
	cmp -s "$T/before" "$T/after" || { cat "$T/before" "$T/after"; fail "a session started"; }
	# the same refusal of probe --mode is no error: its own document
	"$HELPERS/nolandlock" -- "$CORDON" probe --json --mode ci \
		--connect 443 > "$T/stdout" 2> "$T/stderr"
	status=$?
	assert_status 1
	cp "$T/stdout" "$T/mode.json"
	schema_valid probe-mode "$T/mode.json"
	schema_invalid error "$T/mode.json"
}

# schema_kinds LOG KIND...: each record of LOG matched exactly one kind
# of record (schema_check's "ok KIND"), and each KIND is among them.
schema_kinds() {
	local log=$1 k
	shift
	schema_valid audit-record "$log" --lines
	! grep -qv '^ok [a-z_0-9]*$' "$T/check" ||
		{ cat "$T/check"; fail "a record matched no kind or several"; }
	for k in "$@"; do
		grep -q "^ok $k$" "$T/check" ||
			{ cat "$T/check"; echo "--- $log:"; cat "$log"; fail "no record of the kind $k"; }
	done
}

# A run of each kind appends to one log: a path denial, network
# denials (a connection, a socket), the exec of a static binary (and what it planted in .git,
# moved aside after the run), exit 159 relayed, junk on the report
# socket, what learn records, the broker's and the proxy's refusals,
# and a SIGSYS kill seen by the kernel.
test_schema_audit_log_of_every_kind() {
	schema_docs
	local log="$T/out/log" kinds
	command -v git > /dev/null || fail "no git (make deps installs it)"
	command -v gcc > /dev/null || fail "no gcc (make deps installs it)"
	printf '#include <stdio.h>\nint main(int c, char **v) { FILE *f = c > 1 ? fopen(v[1], "w") : 0; return f ? fclose(f) : 1; }\n' > "$T/out/s.c"
	gcc -static -o "$T/ws/stouch" "$T/out/s.c" || fail "gcc -static cannot link here"
	git init -q "$T/ws" || fail "git init"
	echo s3cr3t > "$T/out/secret"
	cordon --log "$log" -- cat "$T/out/secret"
	assert_status 1
	# a hard link's record names its other end ("peer")
	cordon --log "$log" -- ln "$T/ws/stouch" "$T/out/l"
	assert_status 1
	cordon --log "$log" --connect 9 -- python3 -c 'import socket
socket.create_connection(("127.0.0.1", 10), timeout=2)'
	assert_status_not 0
	# a socket the filter refuses with the network off
	cordon --log "$log" -- python3 -c 'import socket
socket.socket(socket.AF_INET, socket.SOCK_DGRAM)'
	assert_status_not 0
	cordon --log "$log" -- sh -c './stouch .git/commondir'
	assert_stderr_has "cordon: WARNING: moved '$T/ws/.git/commondir'"
	cordon --log "$log" -- sh -c 'exit 159'
	assert_status 159
	cordon --log "$log" -- "$HELPERS/forge" send 'not a record'
	cordon learn -o "$T/out/p.json" --log "$log" -- cat "$T/out/secret"
	assert_status 0
	# the broker's refusal: a socket bound outside after the start, by
	# a static binary (t_unix_late.sh)
	mkdir -p "$T/out/late"
	late_try connect "$T/out/late/s" --log "$log"
	assert_stdout_has "^fail EACCES$"
	# the proxy's: a host no --allow-host names (t_hosts.sh)
	origin_start
	cordon --log "$log" --allow-host "allowed.cordon.test:$oport" -- \
		curl -sS -o /dev/null "http://other.cordon.test:$oport/x"
	assert_stderr_has "^cordon: denied connect other.cordon.test:$oport \[proxy\]"
	kinds="shim_path shim_destination launcher_git_plant launcher_exit_159 launcher_dropped kernel_path kernel_destination"
	plain "$HELPERS/forge" sigsys
	if [ "$status" -eq 0 ]; then
		cordon learn -o "$T/out/p2.json" --log "$log" -- "$HELPERS/forge" sigsys
		assert_status 159
		kinds="$kinds kernel_sigsys"
	else
		echo "no i386 system calls here: no SIGSYS record checked"
	fi
	schema_kinds "$log" $kinds
	# and the records of the shim are those asked for
	python3 -c 'import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
def has(**kv):
    return any(all(r.get(k) == v for k, v in kv.items()) for r in recs)
assert has(source="shim", verdict="deny", operation="open", resolved=sys.argv[2]), "path denial"
assert has(source="shim", verdict="deny", operation="linkat", peer=sys.argv[3]), "link denial"
assert has(source="shim", verdict="deny", destination="127.0.0.1:10"), "network denial"
assert has(source="shim", verdict="deny", operation="socket"), "socket refused"
assert has(source="shim", verdict="note", operation="exec-unshimmed"), "exec-unshimmed"
assert has(source="shim", verdict="learn", resolved=sys.argv[2]), "learn"
' "$log" "$T/out/secret" "$T/ws/stouch" || { cat "$log"; fail "a kind of record is missing from the log"; }
}

# The shim used alone writes its own records: the same without "source".
test_schema_standalone_records() {
	schema_docs
	echo s3cr3t > "$T/out/secret"
	shim_run cat "$T/out/secret"
	assert_status 1
	assert_exists "$T/audit.jsonl"
	schema_valid audit-record "$T/audit.jsonl" --lines --def standalone
	# not a record of cordon's log: that one says where it came from
	schema_invalid audit-record "$T/audit.jsonl" --lines
}

# mutate SRC DST PYTHON: DST is the JSON document of SRC (of its first
# line, for JSON Lines) changed by PYTHON, which edits `d`.
mutate() {
	python3 -c 'import json, sys
t = open(sys.argv[1]).read()
try:
    d = json.loads(t)
except ValueError:
    d = json.loads(t.splitlines()[0])
exec(sys.argv[3])
open(sys.argv[2], "w").write(json.dumps(d) + "\n")' "$1" "$2" "$3" || fail "mutate: $3"
}

# Each schema refuses a document that is wrong in one way, made from a
# real one that it accepts (the twin).
test_schema_rejects_wrong_documents() {
	schema_docs
	local m
	echo s3cr3t > "$T/out/secret"
	cordon --log "$T/log" -- cat "$T/out/secret"
	schema_valid audit-record "$T/log" --lines
	for m in 'd["extra"] = 1' 'del d["source"]' 'd["need"] = 16' \
		'd["source"] = "kernel"' 'd["pid"] = "7"' 'd["verdict"] = "allow"' \
		'd["operation"] = "a b"' 'd["destination"] = "1.2.3.4:5"' \
		'del d["resolved"]' 'd["layer"] = "launcher"'; do
		mutate "$T/log" "$T/bad" "$m"
		schema_invalid audit-record "$T/bad" --lines
	done
	cordon explain --json "$T/out/secret" ./x
	cp "$T/stdout" "$T/e.json"
	schema_valid explain "$T/e.json"
	for m in 'd["allowed"] = "no"' 'd["access"] = "see"' 'd["paths"] = []' \
		'd["paths"][0]["read"]["allowed"] = True' 'del d["paths"][1]["exec"]' \
		'd["paths"][0]["write"]["allow"] = "write it"' 'd["ports"] = d.pop("paths")' \
		'd["paths"][1]["resolved"] = "x"' 'd["extra"] = 1'; do
		mutate "$T/e.json" "$T/bad" "$m"
		schema_invalid explain "$T/bad"
	done
	cordon probe --json
	cp "$T/stdout" "$T/p.json"
	schema_valid probe "$T/p.json"
	for m in 'd["features"][0]["ok"] = False' 'd["ok"] = False' \
		'd["features"][0]["layer"] = "magic"' 'd["landlock_abi"] = -38' \
		'del d["kernel"]' 'd["features"][-1]["state"] = "NOT ENFORCED"' \
		'del d["guarantees"]' 'd["guarantees"][0]["held"] = False' \
		'd["guarantees"][0]["held_by"] = ["magic"]' \
		'd["guarantees"][0]["would_hold"] = "x"' \
		'd["guarantees"][0]["held_by"] = []'; do
		mutate "$T/p.json" "$T/bad" "$m"
		schema_invalid probe "$T/bad"
	done
}
