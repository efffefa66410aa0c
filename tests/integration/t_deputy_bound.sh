# The supervisor's own records are bounded as the command's reports are
# (enforce/report/budget.h): a static helper refused in a loop by the broker
# (a UNIX socket outside the roots, bound after the start) or by the
# proxy (hosts no --allow-host names) writes one record per distinct
# refusal, at most 1000 of them per run (per call of a session), and a
# "dropped" record that counts the rest; and the log file itself rotates
# past 16 MiB (enforce/report/auditlog.h).  Every check reads the log and the
# summary from outside.  The old code (622aafc) wrote a record for every
# refusal: 30000 refusals, 8.6 MB (broker) and 7.4 MB (proxy).

# bound_py FILE PROGRAM: run PROGRAM with the records of FILE in `recs`,
# each line one JSON object (a line that is not fails), the log valid
# against the schema.
bound_py() {
	python3 "$HELPERS/schema_check.py" \
		"$HELPERS/doc/schema/audit-record.schema.json" --lines "$1" \
		> "$T/check" 2>&1 ||
		{ tail -5 "$T/check"; fail "$1 is not valid against the schema"; }
	python3 -c 'import json, sys
recs = [json.loads(l) for l in open(sys.argv[1], "rb")]
exec(sys.argv[2])' "$@" ||
		{ show; echo "--- $1:"; head -c 2000 "$1"; fail "bound_py: $2"; }
}

# bind_later DIR N: in the background, a second from now, N UNIX socket
# files DIR/s0 .. DIR/s(N-1) bound outside (N 0: DIR/s), after the
# command started (a socket there at the start is covered, not
# brokered).
bind_later() {
	mkdir -p "$1"
	python3 - "$1" "$2" <<'EOF' &
import socket, sys, time
d, n = sys.argv[1], int(sys.argv[2])
time.sleep(1)
for name in (["s"] if n == 0 else ["s%d" % i for i in range(n)]):
    s = socket.socket(socket.AF_UNIX)
    s.bind(d + "/" + name)
    s.close()
EOF
}

# loop_counts: "tries refused" that refuseloop printed.
refused_count() {
	sed -n 's/^tries [0-9]* refused \([0-9]*\) other 0$/\1/p' "$T/stdout"
}

test_deputy_bound_broker_repeats_are_one_record_and_a_count() {
	bind_later "$T/out/socks" 0
	cordon --log "$T/out/log" -- "$HELPERS/refuseloop" unix \
		"$T/out/socks/s" 0 8 40000
	wait
	assert_status 0
	local n
	n=$(refused_count)
	[ -n "$n" ] && [ "$n" -ge 5000 ] || { show; fail "the loop was not refused thousands of times: $n"; }
	[ "$(stat -c %s "$T/out/log")" -le 65536 ] ||
		fail "the log grew: $(stat -c %s "$T/out/log") bytes for one refusal repeated"
	bound_py "$T/out/log" '
n = int(sys.argv[3]); s = sys.argv[4]
k = [r for r in recs if r["source"] == "kernel"]
d = [r for r in recs if r["operation"] == "dropped"]
assert len(recs) == 2 and len(k) == 1 and len(d) == 1, recs
assert k[0]["path"] == s and k[0]["operation"] == "connect", k
d = d[0]
assert d["of"] == "broker" and d["per"] == "run", d
assert d["written"] == 1 and d["repeats"] == n - 1 and d["over"] == 0, (n, d)
assert d["dropped"] == n - 1, (n, d)
assert d["repeated"] == [{"operation": "connect", "target": s, "times": n}], d' \
		"$n" "$T/out/socks/s"
	assert_stderr_has "^cordon: $n denials reported by cordon's supervisor (the broker, the proxy), 1 recorded in $T/out/log:$"
	assert_stderr_has "^cordon: $((n - 1)) records of the broker not in the log: $((n - 1)) repeats of one recorded, counted in its \"dropped\" record; 0 over the limit of 1000 records or 1 MiB per run$"
	# the broker prints no line of its own per refusal
	[ "$(wc -l < "$T/stderr")" -le 10 ] || { show; fail "the terminal got a line per refusal"; }
}

# Distinct paths, so that comparing alone cannot bound it: 3000 sockets
# in turn, the first 1000 recorded, the rest counted.
test_deputy_bound_broker_distinct_paths_are_capped() {
	bind_later "$T/out/many" 3000
	cordon --log "$T/out/log" -- "$HELPERS/refuseloop" unix \
		"$T/out/many/s" 3000 10 40000
	wait
	assert_status 0
	local n
	n=$(refused_count)
	[ -n "$n" ] && [ "$n" -ge 4000 ] || { show; fail "fewer than 4000 refusals: $n"; }
	[ "$(stat -c %s "$T/out/log")" -le $((1024 * 1024 + 65536)) ] ||
		fail "the log passed the broker's 1 MiB: $(stat -c %s "$T/out/log")"
	bound_py "$T/out/log" '
n = int(sys.argv[3]); d = sys.argv[4]
k = [r for r in recs if r["source"] == "kernel"]
assert len(k) == 1000, len(k)
# the first ones are there, in order
assert [r["path"] for r in k] == [d + "/s%d" % i for i in range(1000)], k[:3]
dr = [r for r in recs if r["operation"] == "dropped"]
assert len(dr) == 1 and dr[0]["of"] == "broker", dr
dr = dr[0]
tries_first = sum(1 for i in range(n) if i % 3000 < 1000)
assert dr["written"] == 1000 and dr["over"] == n - tries_first, (n, dr)
assert dr["repeats"] == tries_first - 1000, (n, dr)
assert dr["written"] + dr["dropped"] == n, (n, dr)' "$n" "$T/out/many"
	assert_stderr_has "^cordon: $((n - 1000)) records of the broker not in the log: "
}

# The twin: a handful of refusals, every one recorded, nothing said of
# drops.
test_deputy_bound_a_few_refusals_are_all_recorded() {
	bind_later "$T/out/few" 5
	cordon --log "$T/out/log" -- "$HELPERS/refuseloop" unix \
		"$T/out/few/s" 5 10 5
	wait
	assert_status 0
	assert_stdout_has "^tries 5 refused 5 other 0$"
	bound_py "$T/out/log" '
assert [r["path"] for r in recs] == [sys.argv[3] + "/s%d" % i for i in range(5)], recs
assert all(r["source"] == "kernel" for r in recs), recs' "$T/out/few"
	! grep -q 'not in the log\|dropped' "$T/stderr" || { show; fail "drops said"; }
	assert_stderr_has "^cordon: 5 denials reported by cordon's supervisor (the broker, the proxy), recorded in $T/out/log:$"
}

test_deputy_bound_proxy_refusals_are_bounded() {
	getent hosts other.cordon.test > /dev/null ||
		fail "other.cordon.test does not resolve (run.sh adds it to /etc/hosts)"
	# one destination, again and again
	cordon --log "$T/out/log" --allow-host allowed.cordon.test -- \
		"$HELPERS/refuseloop" proxy other.cordon.test 0 6 30000
	assert_status 0
	local n
	n=$(refused_count)
	[ -n "$n" ] && [ "$n" -ge 2000 ] || { show; fail "fewer than 2000 refusals: $n"; }
	[ "$(stat -c %s "$T/out/log")" -le 65536 ] ||
		fail "the log grew: $(stat -c %s "$T/out/log") bytes for one refusal repeated"
	bound_py "$T/out/log" '
n = int(sys.argv[3])
k = [r for r in recs if r["source"] == "kernel"]
assert len(k) == 1 and k[0]["destination"] == "other.cordon.test:443", k
d = [r for r in recs if r["operation"] == "dropped"]
assert len(d) == 1 and d[0]["of"] == "proxy", d
assert d[0]["repeats"] == n - 1 and d[0]["repeated"][0]["times"] == n, (n, d)' "$n"
	[ "$(grep -c '^cordon: denied connect' "$T/stderr")" = 1 ] ||
		{ show; fail "not one line for one destination"; }
	# distinct ports: 1000 recorded, the rest counted, 64 lines at most
	cordon --log "$T/out/log2" --allow-host allowed.cordon.test -- \
		"$HELPERS/refuseloop" proxy other.cordon.test 3000 8 30000
	assert_status 0
	n=$(refused_count)
	[ -n "$n" ] && [ "$n" -ge 2000 ] || { show; fail "fewer than 2000 refusals: $n"; }
	[ "$(stat -c %s "$T/out/log2")" -le $((1024 * 1024 + 65536)) ] ||
		fail "the log passed the proxy's 1 MiB: $(stat -c %s "$T/out/log2")"
	bound_py "$T/out/log2" '
n = int(sys.argv[3])
k = [r for r in recs if r["source"] == "kernel"]
first = min(n, 1000)
assert len(k) == first, len(k)
assert [r["destination"] for r in k] == ["other.cordon.test:%d" % (1000 + i) for i in range(first)], k[:3]
d = [r for r in recs if r["operation"] == "dropped"]
assert (len(d) == 1) == (n > 1000), d
assert not d or d[0]["written"] + d[0]["dropped"] == n, (n, d)' "$n"
	[ "$(grep -c '^cordon: denied connect' "$T/stderr")" -le 64 ] ||
		{ show; fail "more than 64 lines on the terminal"; }
	# the twin: three refusals, three records, nothing dropped
	cordon --log "$T/out/log3" --allow-host allowed.cordon.test -- \
		"$HELPERS/refuseloop" proxy other.cordon.test 3 8 3
	assert_stdout_has "^tries 3 refused 3 other 0$"
	bound_py "$T/out/log3" '
assert [r["destination"] for r in recs] == ["other.cordon.test:100%d" % i for i in range(3)], recs'
}

# A session: each call is bounded and counted on its own, the session
# in all; the call's summary says what it lost.
test_deputy_bound_session_counts_each_call() {
	session_start --log "$T/out/log"
	bind_later "$T/out/socks" 0
	wait
	srun -- "$HELPERS/refuseloop" unix "$T/out/socks/s" 0 4 3000
	assert_status 0
	local n1 n2
	n1=$(refused_count)
	[ -n "$n1" ] && [ "$n1" -ge 500 ] || { show; fail "fewer than 500 refusals: $n1"; }
	assert_stderr_has "^cordon: $((n1 - 1)) records of the broker not in the log: $((n1 - 1)) repeats of one recorded, counted in its \"dropped\" record; 0 over the limit of 1000 records or 1 MiB per call$"
	srun -- "$HELPERS/refuseloop" unix "$T/out/socks/s" 0 4 3000
	assert_status 0
	n2=$(refused_count)
	[ -n "$n2" ] && [ "$n2" -ge 500 ] || { show; fail "fewer than 500 refusals: $n2"; }
	"$CORDON" session stop "$sid"
	bound_py "$T/out/log" '
n1, n2, sid = int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
k = [r for r in recs if r["source"] == "kernel"]
assert sorted(r["call"] for r in k) == [1, 2], k
d = [r for r in recs if r["operation"] == "dropped"]
calls = sorted((r["call"], r["repeats"], r["per"]) for r in d if "call" in r)
assert calls == [(1, n1 - 1, "call"), (2, n2 - 1, "call")], d
whole = [r for r in d if "call" not in r]
assert len(whole) == 1 and whole[0]["per"] == "session", d
assert whole[0]["repeats"] == n1 + n2 - 2 and whole[0]["written"] == 2, d
assert all(r["session"] == sid for r in recs), recs' "$n1" "$n2" "$sid"
}

# prefill FILE BYTES: valid JSON lines up to BYTES, no more.
prefill() {
	python3 - "$1" "$2" <<'EOF'
import json, sys
path, cap = sys.argv[1], int(sys.argv[2])
size, i = 0, 0
with open(path, "w") as f:
    while True:
        line = json.dumps({"time": 1.0, "operation": "old", "n": i, "pad": "x" * 200}) + "\n"
        if size + len(line) > cap:
            break
        f.write(line)
        size += len(line)
        i += 1
EOF
}

# A log just under 16 MiB: the run's records rotate it; nothing written
# before is lost, both files are JSON lines; once more, and FILE.1 goes
# to FILE.2.
test_deputy_bound_log_rotates_and_keeps_what_was_there() {
	local cap=$((16 * 1024 * 1024))
	echo s3cr3t > "$T/out/secret"
	echo s3cr3t > "$T/out/secret.x"
	prefill "$T/out/log" $((cap - 100))
	cp "$T/out/log" "$T/out/before"
	cordon --log "$T/out/log" -- sh -c 'cat "$1"; cat "$1.x"' sh "$T/out/secret"
	assert_status 1
	assert_exists "$T/out/log.1"
	cmp "$T/out/log.1" "$T/out/before" || fail "what was there changed in the rotation"
	bound_py "$T/out/log" '
assert [r["path"] for r in recs] == [sys.argv[3], sys.argv[3] + ".x"], recs' "$T/out/secret"
	python3 -c 'import json, sys
[json.loads(l) for l in open(sys.argv[1], "rb")]' "$T/out/log.1" || fail "log.1 is not JSON lines"
	assert_stderr_has "^cordon: 2 denials reported by the command's processes (the shim), recorded in $T/out/log:$"
	# again: log.1 to log.2
	cp "$T/out/log" "$T/out/second"
	prefill "$T/out/pad" $((cap - $(stat -c %s "$T/out/log") - 50))
	cat "$T/out/pad" >> "$T/out/log"
	cp "$T/out/log" "$T/out/before2"
	cordon --log "$T/out/log" -- cat "$T/out/secret"
	assert_status 1
	cmp "$T/out/log.2" "$T/out/before" || fail "log.1 did not become log.2"
	cmp "$T/out/log.1" "$T/out/before2" || fail "log did not become log.1"
	[ "$(wc -l < "$T/out/log")" = 1 ] || fail "the new log: $(cat "$T/out/log")"
	# the twin: a log under the size is appended to, never rotated
	cordon --log "$T/out/log" -- cat "$T/out/secret"
	[ "$(wc -l < "$T/out/log")" = 2 ] || fail "not appended"
	cmp "$T/out/log.1" "$T/out/before2" || fail "rotated under the size"
}

# Runs appending at once across a rotation: every record of each is in
# FILE or FILE.1, whole, and what was there is in FILE.1 as it was.
test_deputy_bound_runs_at_once_lose_nothing_in_a_rotation() {
	local cap=$((16 * 1024 * 1024)) i
	prefill "$T/out/log" $((cap - 300000))
	cp "$T/out/log" "$T/out/before"
	for i in 1 2 3 4; do
		"$CORDON" --log "$T/out/log" -- "$HELPERS/forge" flood 2000 \
			> /dev/null 2> "$T/out/err$i" &
	done
	wait
	[ -e "$T/out/log.1" ] || fail "no rotation"
	[ ! -e "$T/out/log.2" ] || fail "rotated twice"
	python3 -c 'import json, sys
before = open(sys.argv[1], "rb").read()
old = open(sys.argv[2], "rb").read()
new = open(sys.argv[3], "rb").read()
assert old.startswith(before), "what was there changed"
recs = [json.loads(l) for l in old[len(before):].splitlines() + new.splitlines()]
shim = [r for r in recs if r.get("source") == "shim"]
assert len(shim) == 8000, len(shim)
assert all(r["path"] == "/flood" for r in shim)
assert len(old) <= 16 * 1024 * 1024, len(old)' "$T/out/before" "$T/out/log.1" "$T/out/log" ||
		fail "records lost or cut across the rotation"
}

# The log is never opened through a symbolic link at its name: as root a
# planted link could name any file.  The twin: the file it names takes
# the records when given itself.
test_deputy_bound_log_is_never_a_symlink() {
	echo keep > "$T/out/target"
	ln -s "$T/out/target" "$T/out/log"
	echo s3cr3t > "$T/out/secret"
	cordon --log "$T/out/log" -- cat "$T/out/secret"
	assert_content "$T/out/target" keep
	assert_status 125
	assert_stderr_has "^cordon: cannot open the audit log '$T/out/log': .*symbolic link"
	cordon --log "$T/out/target" -- cat "$T/out/secret"
	assert_status 1
	grep -q '"source":"shim"' "$T/out/target" || fail "the file itself took no record"
}
