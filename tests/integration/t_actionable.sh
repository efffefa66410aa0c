# The differential harness of issue 17: every class of denial is
# refused and explained, and the options cordon itself prints fix it.
#
# One row per class (act_row, in t_actionable_fs.sh and
# t_actionable_net.sh); each row becomes a test, test_actionable_NAME,
# which runs these steps, each with a fresh setup at the same paths
# ($T/out outside every root, $T/ws the workspace and the working
# directory):
#   1 twin       the action without cordon takes effect (outside check)
#   2 refused    under `cordon -- sh -c ACTION` it takes no effect
#     explained  and a "cordon: denied" line names the row's path or
#                address; no line of cordon's is forged (FORGED) or
#                holds a raw control character
#     recorded   and an audit record (in the default log) names it
#   3 parse      the options, read from cordon's stderr as a user would
#                paste them (actionable.py), three sets: "lines" from
#                the "; allow with OPTIONS" tails of the denial lines,
#                "groups" from those of the summary's entries, "summary"
#                from its final "cordon: allow all of it with: OPTIONS"
#     least      no set grants more than the row's least grant
#   4 rerun      `cordon OPTIONS -- sh -c ACTION` with each set: the
#                action takes effect, and no "cordon: denied" line is left
# A row where no option can allow the action (none=OPTIONS) runs steps
# 1 and 2, then instead of 3 and 4:
#   3 none       each line naming it says "no option allows" and has no
#                "; allow with" tail; no option printed anywhere (lines,
#                summary entries, the summary's last line) names the path
#                or a directory above it
#   4 still      with OPTIONS (what one would try: the old suggestion),
#                the action still takes no effect, and a line says that
#                no option allows it
# Every step runs and is reported ("ROW NAME: twin=ok ..."), then the
# row fails if any did, saying which and showing what cordon printed.
#
# In a row, @O is the outside directory, @W the workspace, @P the
# listener's port (act_listen) and @T the test's directory (outside too,
# not remade between the steps); SETUP and CHECK are bash run outside
# the sandbox, ACTION is sh run with and without cordon.

# (sourced by suite.sh in any order: the rows' files load this first)
[ -z "${act_loaded:-}" ] || return 0
act_loaded=1

declare -A act_setup act_action act_check act_names act_need act_opts0
declare -A act_least act_none

# act_row NAME SETUP ACTION CHECK NAMES [least=BOUND] [need=BASH]
#   [base=OPTIONS] [none=OPTIONS]: one class.  NAMES: what a denial line must contain
# (one fixed string a line, any of them).  least: the least grant the
# action needs, a path, "--connect" or "--bind": no option printed may
# grant an ancestor of the path (or the whole network).  need: bash that must
# succeed for the row to run, "SKIP: reason" on its stdout otherwise.
# base: cordon options of every run (words), to which the rerun adds
# the options printed.  none: no option allows the action; OPTIONS
# (words) are what one would try all the same, and it stays refused.
act_row() {
	local kv
	act_setup[$1]=$2 act_action[$1]=$3 act_check[$1]=$4 act_names[$1]=$5
	act_need[$1]='' act_opts0[$1]='' act_least[$1]='' act_none[$1]=
	for kv in "${@:6}"; do
		case $kv in
		least=*) act_least[$1]=${kv#least=} ;;
		need=*) act_need[$1]=${kv#need=} ;;
		base=*) act_opts0[$1]=${kv#base=} ;;
		none=*) act_none[$1]=" ${kv#none=}" ;;
		*)
			eval "test_actionable_$1() { fail 'act_row $1: $kv?'; }"
			return
			;;
		esac
	done
	eval "test_actionable_$1() { act_drive $1; }"
}

act_expand() {
	local s=$1
	s=${s//@O/$T/out}
	s=${s//@W/$T/ws}
	s=${s//@P/${act_port:-0}}
	s=${s//@T/$T}
	printf '%s' "$s"
}

# A fresh setup at the same paths: the suggested options name them.
act_fresh() {
	cd "$T" || fail "cannot enter $T"
	chmod -R u+rwX "$T/out" "$T/ws" 2> /dev/null
	rm -rf "$T/out" "$T/ws"
	mkdir "$T/out" "$T/ws" && cd "$T/ws" || fail "cannot remake $T/ws"
	eval "$(act_expand "${act_setup[$act_name]}")" ||
		fail "the setup of $act_name failed"
	act_cmd=$(act_expand "${act_action[$act_name]}")
}

# act_run [CORDON OPTIONS...]: the action, plain without arguments.
act_run() {
	act_fresh
	local -a base
	if [ $# -eq 0 ]; then
		plain sh -c "$act_cmd"
	else
		shift
		read -r -a base <<< "$(act_expand "${act_opts0[$act_name]}")"
		cordon "${base[@]}" "$@" -- sh -c "$act_cmd"
	fi
}

act_effect() {
	eval "$(act_expand "${act_check[$act_name]}")" > /dev/null 2>&1
}

# act_listen [LISTENER OPTIONS]: one listener for the whole row (the
# options name its port or path), its count before this step in
# $act_base.
act_listen() {
	if [ -z "${act_lpid:-}" ]; then
		start_listener -t 120 "$@"
		act_lpid=$listener_pid act_port=$port
	fi
	act_base=$(cat "$T/count")
}

# act_free_port: a port free now, the same for the whole row.
act_free_port() {
	[ -n "${act_port:-}" ] && return
	act_port=$(python3 -c 'import socket; s = socket.socket()
s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])') ||
		fail "no free port"
}

# act_probe_port: for 3 seconds, try from outside to connect to
# 127.0.0.1:$act_port; act_reached: whether that succeeded.
act_probe_port() {
	rm -f "$T/reached"
	(
		for _ in $(seq 60); do
			if (exec 3<> "/dev/tcp/127.0.0.1/$act_port") 2> /dev/null
			then
				touch "$T/reached"
				exit
			fi
			sleep 0.05
		done
	) &
	act_probe_pid=$!
}

act_reached() {
	wait "$act_probe_pid"
	[ -e "$T/reached" ]
}

# A connection or datagram since act_listen (the listener counts after
# the client has gone on: wait a little).
act_contacted() {
	local i n
	for i in $(seq 20); do
		n=$(cat "$T/count" 2> /dev/null)
		[ "${n:-0}" -gt "$act_base" ] && return 0
		sleep 0.05
	done
	return 1
}

act_unlisten() {
	[ -n "${act_lpid:-}" ] || return 0
	kill "$act_lpid" 2> /dev/null
	wait "$act_lpid" 2> /dev/null
	act_lpid=
}

# act_cut FILE [N]: cordon's lines in FILE (at most N), then the last
# two of the command's own, control characters shown, each cut short.
act_cut() {
	{
		grep -a '^cordon: ' "$1" | head -n "${2:-6}"
		grep -a -v '^cordon: ' "$1" | tail -n 2
	} | cut -c 1-200 | cat -v | sed 's/^/      /'
}

# act_denials FILE: the denial lines in FILE.
act_denials() {
	grep -a '^cordon: denied' "$1"
}

# act_say TEXT...: a line of the row's report (shown if it fails).
act_say() {
	printf '%s\n' "$*" | cut -c 1-200 >> "$T/report"
}

# act_bad STEP: the step failed.
act_bad() {
	act_failed+=" $1"
	act_v=FAIL
}

# The steps: each sets $act_v to its verdict (ok, FAIL, n/a).
act_twin() {
	act_v=ok
	act_run
	act_effect && return
	act_bad 1-twin
	act_say "step 1 (twin): without cordon the action had no effect:"
	show | head -n 12 | cut -c 1-200 >> "$T/report"
}

# The audit log that cordon writes by default (the summary names it).
act_log() {
	printf '%s' "$HOME/.local/state/cordon/audit.jsonl"
}

act_refused() {
	local size
	act_v=ok
	size=$(stat -c %s "$(act_log)" 2> /dev/null || echo 0)
	act_run cordon
	cp "$T/stderr" "$T/denied.err"
	tail -c "+$((size + 1))" "$(act_log)" > "$T/records" 2> /dev/null
	act_denied_status=$status
	act_effect || return
	act_bad 2-refused
	act_say "step 2 (refused): the action took effect under cordon"
}

# NAMES: one fixed string a line; a denial line must hold one of them.
act_explained() {
	local names
	act_v=ok
	names=$(act_expand "${act_names[$act_name]}")
	if ! act_denials "$T/denied.err" | grep -q -a -F -- "$names"; then
		act_bad 2-explained
		act_say "step 2 (explained): no 'cordon: denied' line names" \
			"$(printf '%s\n' "$names" | cat -v | paste -s -d '|')"
	fi
	if grep -q -a '^cordon: FORGED' "$T/denied.err"; then
		act_bad 2-forged
		act_say "step 2 (explained): a path forged a line of cordon's"
	fi
	if grep -a '^cordon: ' "$T/denied.err" |
		LC_ALL=C grep -q -a '[[:cntrl:]]'; then
		act_bad 2-control
		act_say "step 2 (explained): a line of cordon's holds a raw" \
			"control character"
	fi
}

# A record of the refused run names it too.
act_recorded() {
	act_v=ok
	act_expand "${act_names[$act_name]}" > "$T/names"
	python3 "$HELPERS/actionable.py" --record "$T/records" "$T/names" \
		> "$T/recorded" 2>&1 && return
	act_bad 2-recorded
	act_say "step 2 (recorded): in $(act_log): $(cat "$T/recorded")"
}

act_sets="lines groups summary"

# $act_v is "parse-lines=V parse-groups=V parse-summary=V" here: a
# set that is not there (no summary entries) is n/a.
act_parse() {
	local set v=
	python3 "$HELPERS/actionable.py" "$CORDON" "$T/denied.err" "$T" \
		> "$T/parse" 2>&1
	for set in $act_sets; do
		if grep -q "^$set:" "$T/parse"; then
			act_bad "3-parse-$set"
			v+=" parse-$set=FAIL"
		elif [ -s "$T/opts.$set" ]; then
			v+=" parse-$set=ok"
		else
			v+=" parse-$set=n/a"
		fi
	done
	if grep -q -v -E "^(${act_sets// /|}):" "$T/parse"; then
		act_bad 3-parser
	fi
	if [ -s "$T/parse" ]; then
		act_say "step 3 (parse):"
		head -n 4 "$T/parse" | cut -c 1-200 | sed 's/^/      /' \
			>> "$T/report"
	fi
	act_v=${v# }
}

# No set of options grants more than the row's least grant.
act_least() {
	local set bound
	act_v=n/a
	[ -n "${act_least[$act_name]}" ] || return
	bound=$(act_expand "${act_least[$act_name]}")
	for set in $act_sets; do
		[ -s "$T/opts.$set" ] || continue
		[ "$act_v" = FAIL ] || act_v=ok
		python3 "$HELPERS/actionable.py" --least "$CORDON" \
			"$T/opts.$set" "$bound" > "$T/least" 2>&1 && continue
		act_bad "3-least-$set"
		act_say "step 3 (least, $set):" "$(head -n 2 "$T/least")"
	done
}

# act_rerun SET: with the options of SET (lines, groups, summary).
act_rerun() {
	local -a opts
	local why=
	act_v=n/a
	[ -s "$T/opts.$1" ] || return
	mapfile -d '' -t opts < "$T/opts.$1"
	act_run cordon "${opts[@]}"
	act_effect || why="the action took no effect"
	if act_denials "$T/stderr" > /dev/null; then
		why="${why:+$why; }denial lines are left"
	fi
	act_v=ok
	[ -z "$why" ] && return
	act_bad "4-rerun-$1"
	act_say "step 4 (rerun with the $1 options): $why; status $status"
	printf '      options:%s\n' "$(printf ' %q' "${opts[@]}")" |
		cut -c 1-400 >> "$T/report"
	act_cut "$T/stderr" 3 >> "$T/report"
}

# Steps 3 and 4 of a row that an option allows; their verdicts in
# $act_steps.
act_allowed_steps() {
	local set row=
	act_parse
	row+=" $act_v"
	act_least
	row+=" least=$act_v"
	for set in $act_sets; do
		act_rerun "$set"
		row+=" rerun-$set=$act_v"
	done
	act_steps=$row
}

# Step 3 of a row no option allows: each line naming it says so, with no
# tail, and no option printed names it or a directory above it.
act_no_option() {
	local names lines set name
	act_v=ok
	names=$(act_expand "${act_names[$act_name]}")
	lines=$(act_denials "$T/denied.err" | grep -a -F -- "$names")
	if [ -z "$lines" ] || grep -q -a -v -F 'no option allows' <<< "$lines" ||
		grep -q -a -F '; allow with ' <<< "$lines"; then
		act_bad 3-none-line
		act_say "step 3 (none): a line naming it does not say that no" \
			"option allows it, or names one"
	fi
	python3 "$HELPERS/actionable.py" "$CORDON" "$T/denied.err" "$T" \
		> "$T/parse" 2>&1
	for set in $act_sets; do
		[ -s "$T/opts.$set" ] || continue
		while IFS= read -r name; do
			python3 "$HELPERS/actionable.py" --least "$CORDON" \
				"$T/opts.$set" "$name/x" > "$T/least" 2>&1 &&
				continue
			act_bad "3-none-$set"
			act_say "step 3 (none, $set): an option names it:" \
				"$(head -n 1 "$T/least")"
		done <<< "$names"
	done
}

# Step 4 of a row no option allows: with what one would try, the action
# still takes no effect, and a line still says so.
act_still_refused() {
	local -a opts
	local names
	act_v=ok
	names=$(act_expand "${act_names[$act_name]}")
	read -r -a opts <<< "$(act_expand "${act_none[$act_name]}")"
	act_run cordon "${opts[@]}"
	if act_effect; then
		act_bad 4-still
		act_say "step 4 (still): with${act_none[$act_name]} the" \
			"action took effect: an option allows it"
	elif ! act_denials "$T/stderr" | grep -a -F -- "$names" |
		grep -q -a -F 'no option allows'; then
		act_bad 4-still-explained
		act_say "step 4 (still): with${act_none[$act_name]} no line" \
			"says that no option allows it"
	fi
}

# act_drive NAME: every step of the row, then the verdicts.
act_drive() {
	act_name=$1 act_failed=
	local need=${act_need[$1]} row
	trap act_unlisten EXIT
	if [ -n "$need" ]; then
		act_fresh
		eval "$(act_expand "$need")" > "$T/need" 2>&1 ||
			skip "$(grep -m1 SKIP "$T/need" || echo "SKIP: $need")"
	fi
	: > "$T/report"
	act_twin
	row="twin=$act_v"
	act_refused
	row+=" refused=$act_v"
	act_explained
	row+=" explained=$act_v"
	act_recorded
	row+=" recorded=$act_v"
	if [ -n "${act_none[$1]}" ]; then
		act_no_option
		row+=" none=$act_v"
		act_still_refused
		row+=" still=$act_v"
	else
		act_allowed_steps
		row+=$act_steps
	fi
	if [ -n "$act_failed" ]; then
		echo "the refused run's stderr (status $act_denied_status):"
		act_cut "$T/denied.err" 8
		cat "$T/report"
	fi
	echo "ROW $act_name: $row"
	[ -z "$act_failed" ] || fail "$act_name: steps$act_failed"
}

# The reader of the options itself, on lines written by hand: what a
# shell would make of a pasted line is what it reads, and a line that
# would not paste as it reads is refused (so that a row fails or passes
# because of cordon, not of the reader).
act_parse_text() { # TEXT: sets $status and $T/opts.SET
	printf '%s\n' "$1" > "$T/in"
	: > "$T/stderr"
	python3 "$HELPERS/actionable.py" "$CORDON" "$T/in" "$T" \
		> "$T/stdout" 2>&1
	status=$?
}

act_words_are() { # FILE WORDS...
	local f=$1
	shift
	printf '%s\0' "$@" | cmp -s - "$f" ||
		fail "$f holds $(tr '\0' '|' < "$f"), expected $(printf '%s|' "$@")"
}

act_least_is() { # STATUS BOUND OPTIONS...
	local want=$1 bound=$2
	shift 2
	printf '%s\0' "$@" > "$T/opts"
	python3 "$HELPERS/actionable.py" --least "$CORDON" "$T/opts" \
		"$bound" > "$T/stdout" 2>&1
	status=$?
	assert_status "$want"
}

test_actionable_reader() {
	act_parse_text "cordon: denied write '/x/my dir/f' [open]; allow with --write '/x/my dir'
cordon: denied write /x/nl [open]; allow with --write \$'/x/nl\\ncordon: d'
cordon: denied read /x/it [open]; allow with -r '/x/it'\\''s' --read=/y
cordon: denied connect 127.0.0.1:80 [connect]; allow with --connect 80
cordon:        1  /x/it; allow with --read '/x/it'\\''s'
cordon: allow all of it with: --write '/x/my dir' --read ~/a --net"
	assert_status 0
	act_words_are "$T/opts.lines" --write "/x/my dir" \
		--write $'/x/nl\ncordon: d' -r "/x/it's" --read /y --connect 80
	act_words_are "$T/opts.groups" --read "/x/it's"
	act_words_are "$T/opts.summary" --write "/x/my dir" --read "$HOME/a" \
		--net
	local bad
	for bad in "--write /x/my dir" "--write /x/a;b" "--write '/x" \
		"--bogus /x" "--write" "--net=1" "--write /x/\$HOME" \
		"--write \"/x/\$(id)\"" "--write /x/*"; do
		act_parse_text "cordon: denied write /x [open]; allow with $bad
cordon:        1  /x; allow with $bad
cordon: allow all of it with: $bad"
		[ "$(grep -c -E '^(lines|groups|summary): ' "$T/stdout")" = 3 ] ||
			{ show; fail "the reader took: $bad"; }
		assert_status 1
	done
	act_parse_text "cordon: denied write /x [open]; allow with --write /x
cordon: allow all of it with: --write /x
cordon: allow all of it with: --write /y"
	assert_status 1
	assert_stdout_has "^summary: 2 final"
	act_parse_text "cordon: denied write /x [open] (outside the roots)"
	assert_status 1
	assert_stdout_has "^lines: no denial line"
	# the least grant: an ancestor of the bound, or the whole network,
	# grants more
	act_least_is 0 /x/d --write /x/d --read /x/d/f --write /y
	act_least_is 1 /x/d --read /x/d/f --write /x
	act_least_is 1 /x/d -w /
	act_least_is 1 /x/d --exec=/x/
	act_least_is 0 /x/d --write /x/dd
	act_least_is 0 --connect --connect 80
	act_least_is 1 --connect --connect 80 --net
	act_least_is 1 --connect -m workspace-net
	# a record names the row by a string value, or "[OP]" by operation
	printf '%s\n' 'not json' \
		'{"operation":"open","path":"/x/a b/f","allow":"with --read /z"}' \
		'{"operation":"connect","destination":"127.0.0.1:9"}' > "$T/rec"
	act_record_is 0 '/x/a b'
	act_record_is 0 $'/y\n127.0.0.1:9'
	act_record_is 0 $'/y\n[connect]'
	act_record_is 1 $'/y\n[socket]\n/z'
}

act_record_is() { # STATUS NAMES
	printf '%s\n' "$2" > "$T/names"
	python3 "$HELPERS/actionable.py" --record "$T/rec" "$T/names" \
		> "$T/stdout" 2>&1
	status=$?
	assert_status "$1"
}
