# Differential tests of the shim: every function libcordon.so interposes,
# called by name through tests/helpers/ffidrive on a path outside the
# policy, three ways: with the shim alone (shim_run), through cordon, and
# without either (the twin).  With the shim the call fails as its row
# says (refused: ENOENT for a read, a run or a look at the path, which
# the policy hides; EACCES for a change), one denial line names the function and the
# path, and the tree is unchanged from outside; without it the call
# succeeds (or fails for a reason that is not the policy) and, for the
# calls that change something, the tree changes.  On an allowed path the
# output (result and errno) is the same with and without the shim.
#
# The rows live in ffidrive.c; a function added to shim/exports/*.list
# needs only its row there (test_diff_every_export_has_a_row says which).

# diff_exports: the functions libcordon.so exports, one a line.
diff_exports() {
	# type A: the version nodes (GLIBC_2.3) of the old names it defines
	nm -D --defined-only "$HELPERS/libcordon.so" | awk '$2 != "A" {print $3}' |
		sed 's/@.*//' | sort -u
}

# diff_fixture DIR USE: the files the row's arguments may name, under DIR
# (tests/helpers/pit_tree.c says which).
diff_fixture() {
	local lib=
	case $2 in *@S*) lib=lib ;; esac
	"$HELPERS/pit_tree" fixture "$1" $lib || fail "no fixture in $1"
}

# diff_expand USE DIR: the row's arguments for the fixture in DIR.
diff_expand() {
	local u=$1 d=$2
	u=${u//@UID/$uid}
	u=${u//@GID/$gid}
	u=${u//@F/$d/file}
	u=${u//@N/$d/new}
	u=${u//@D/$d/dir}
	u=${u//@E/$d/empty}
	u=${u//@L/$d/link}
	u=${u//@X/$d/prog}
	u=${u//@S/$d/lib.so}
	u=${u//@T/$d/tmpXXXXXX}
	u=${u//@U/$d/sock}
	u=${u//@P/${port:-0}}
	printf '%s' "$u"
}

# What can be seen of DIR from outside: names, types, modes, owners,
# sizes, mtimes, link targets, contents, xattr names.
diff_snapshot() {
	"$HELPERS/pit_tree" snapshot "$1"
}

# shim_run with the policy computed once per family.
diff_shim() {
	CORDON_POLICY=$policy LD_PRELOAD="$HELPERS/libcordon.so" \
		"$@" > "$T/stdout" 2> "$T/stderr"
	status=$?
	return 0
}

# diff_call MODE NAME ARGS...: the driver with the shim alone, through
# cordon, or plain (the twin).
diff_call() {
	local mode=$1
	shift
	rm -f "$T/log" "$T/audit.jsonl"
	case $mode in
	shim) diff_shim "$HELPERS/ffidrive" "$@" ;;
	cordon) cordon --log "$T/log" $cordon_net -- "$HELPERS/ffidrive" "$@" ;;
	plain) plain "$HELPERS/ffidrive" "$@" ;;
	esac
}

# The denial line of this row: the function in brackets (with the end
# of a rename or link), and the path (or the address) it was refused.
diff_assert_line() { # report dir
	local lines
	lines=$(grep -F 'cordon: denied' "$T/stderr" |
		grep -F -e "[$1]" -e "[$1 source]" -e "[$1 destination]")
	[ -n "$lines" ] || { show; fail "no denial line naming [$1]"; }
	grep -q -F -e "$2" -e "127.0.0.1:${port:-none}" <<< "$lines" ||
		{ show; fail "the line naming [$1] does not name $2"; }
}

# The errno of a refusal on the denied path, which the policy hides
# (shim/check.c, hidden()): a read or a look there finds nothing
# (ENOENT), as on a machine without the file; a change, and an exec
# (whose search goes on past EACCES as past ENOENT), is refused
# (EACCES).  Set by diff_row from the row's family and effect.
diff_refused_errno() { # family effect
	case $1/$2 in
	stat/* | open/r) echo ENOENT ;;
	*) echo EACCES ;;
	esac
}

diff_assert_denied() { # mode expect report dir before after
	local mode=$1 expect=$2 report=$3 d=$4
	case $expect in
	EACCES)
		assert_status 1
		assert_stdout_has "errno=$refused_errno\$" ;;
	ENOENT)
		assert_status 1
		assert_stdout_has "errno=ENOENT$" ;;
	fail) assert_status 1 ;;
	ok | allow) assert_status 0 ;;
	ret=*) assert_stdout_has "^$expect " ;;
	esac
	if [ "$expect" = allow ]; then
		! grep -q 'cordon: denied' "$T/stderr" ||
			{ show; fail "a denial where the row expects none"; }
		return 0
	fi
	diff_assert_line "$report" "$d"
	[ "$5" = "$6" ] || { show; fail "$mode: the call changed $d"; }
	if [ "$mode" = cordon ]; then
		grep -q "\"operation\":\"$report\"" "$T/log" ||
			fail "no audit record of $report in the log"
	fi
}

diff_assert_twin() { # effect dir before after
	if [ "$status" -ne 0 ]; then
		! grep -q 'errno=E\(ACCES\|PERM\)$' "$T/stdout" ||
			{ show; fail "the twin was refused too"; }
		echo "note: the twin failed for its own reason: $(cat "$T/stdout")"
	fi
	if [ "$1" = w ] && [ "$3" = "$4" ]; then
		show
		fail "the twin changed nothing in $2"
	fi
}

# diff_row LABEL NAME EXPECT REPORT EFFECT USE FAMILY: one row, three
# ways on a denied path, then with and without the shim on an allowed
# one.
diff_row() {
	local label=$1 name=$2 expect=$3 report=$4 effect=$5 use=$6
	local refused_errno
	refused_errno=$(diff_refused_errno "$7" "$effect")
	local d=$T/out/${label//\//_} w=$T/ws/${label//\//_}
	local mode before after sent=0 got args shim_out cordon_net=
	port=
	case $use in
	# TCP sockets at all, so that connect() itself is what is refused
	*tcp:*@P*) start_listener -t 20 && cordon_net="--connect 1" ;;
	*udp:*@P*) start_listener -u -t 20 ;;
	esac
	for mode in shim cordon plain; do
		diff_fixture "$d" "$use"
		case $use in *@U*) listen_unix "$d/sock" ;; esac
		read -r -a args <<< "$(diff_expand "$use" "$d")"
		before=$(diff_snapshot "$d")
		diff_call "$mode" "$label" "${args[@]}"
		after=$(diff_snapshot "$d")
		unlisten_unix
		echo "== $mode: $(head -c 300 "$T/stdout")"
		if [ "$mode" = plain ]; then
			diff_assert_twin "$effect" "$d" "$before" "$after"
		elif [ "$mode" = cordon ] && [[ $use == udp:* || $use == *\ udp:* ]] &&
			grep -q 'ffidrive: socket: Permission denied' "$T/stderr"; then
			# Network off: the kernel refuses the UDP socket
			# itself, before any send the shim could see.
			echo "note: cordon refused the UDP socket itself"
		else
			diff_assert_denied "$mode" "$expect" "$report" "$d" \
				"$before" "$after"
		fi
		if [ -n "$port" ]; then
			[ "$mode" = plain ] && sent=1
			for _ in $(seq 40); do
				got=$(cat "$T/count" 2>/dev/null)
				[ "${got:-0}" -ge "$sent" ] && break
				sleep 0.05
			done
			[ "${got:-0}" -eq "$sent" ] ||
				fail "$mode: the listener counted $got contacts, expected $sent"
		fi
	done
	[ -n "$port" ] && { kill "$listener_pid" 2>/dev/null; wait "$listener_pid"; }
	[ -n "$port" ] || [ "$expect" = allow ] && return 0
	# Allowed: the shim changes nothing, errno included.
	diff_fixture "$w" "$use"
	case $use in *@U*) listen_unix "$w/sock" ;; esac
	read -r -a args <<< "$(diff_expand "$use" "$w")"
	diff_shim "$HELPERS/ffidrive" "$label" "${args[@]}"
	unlisten_unix
	shim_out="$status $(cat "$T/stdout" "$T/stderr")"
	diff_fixture "$w" "$use"
	case $use in *@U*) listen_unix "$w/sock" ;; esac
	plain "$HELPERS/ffidrive" "$label" "${args[@]}"
	unlisten_unix
	[ "$shim_out" = "$status $(cat "$T/stdout" "$T/stderr")" ] ||
		fail "allowed: with the shim '$shim_out', without '$status $(cat "$T/stdout" "$T/stderr")'"
}

# diff_family FAMILY: every row of FAMILY whose function is exported.
diff_family() {
	local fam=$1 n=0 failed= exported
	local label name family ret expect report effect use
	local policy uid gid
	policy=$(shim_policy) uid=$(id -u) gid=$(id -g)
	exported=$(diff_exports)
	"$HELPERS/ffidrive" --rows > "$T/rows" || fail "ffidrive --rows failed"
	while IFS=$'\t' read -r label name family ret expect report effect use; do
		[ "$family" = "$fam" ] || continue
		grep -qxF -- "$name" <<< "$exported" || continue
		n=$((n + 1))
		if ! (diff_row "$label" "$name" "$expect" "$report" "$effect" \
			"$use" "$family") < /dev/null > "$T/row.log" 2>&1; then
			failed="$failed $label"
			echo "--- $label: $name $use"
			tail -n 12 "$T/row.log"
		fi
	done < "$T/rows"
	[ "$n" -gt 0 ] ||
		fail "libcordon.so exports no function of the $fam family yet"
	[ -z "$failed" ] || fail "$n rows, failing:$failed"
	echo "$n rows of the $fam family pass"
}

test_diff_every_export_has_a_row() {
	local missing= name
	"$HELPERS/ffidrive" --rows | cut -f2 | sort -u > "$T/names"
	[ -s "$T/names" ] || fail "ffidrive --rows printed nothing"
	for name in $(diff_exports); do
		grep -qxF -- "$name" "$T/names" || missing="$missing $name"
	done
	[ -z "$missing" ] ||
		fail "exported without a row in tests/helpers/ffidrive.c:$missing"
}

test_diff_driver_calls_the_hook_not_libc() {
	# The twin of every row: without the hook, the denied path opens.
	mkdir -p "$T/out/d" && echo s3cr3t > "$T/out/d/f"
	shim_run "$HELPERS/ffidrive" open "$T/out/d/f" O_RDONLY
	assert_status 1
	assert_stdout_has "ret=-1 errno=ENOENT"
	assert_stderr_has "cordon: denied read $T/out/d/f \[open\]"
	plain "$HELPERS/ffidrive" open "$T/out/d/f" O_RDONLY
	assert_status 0
	assert_stdout_has "ret=3 errno=0"
}

test_diff_open_family() { diff_family open; }
test_diff_create_family() { diff_family create; }
test_diff_change_family() { diff_family change; }
test_diff_stat_family() { diff_family stat; }
test_diff_exec_family() { diff_family exec; }
test_diff_net_family() { diff_family net; }
test_diff_env_family() { diff_family env; }
