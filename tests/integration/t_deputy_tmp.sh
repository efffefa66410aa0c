# The ci mode's temp dirs and the launcher that removes them (issue 27,
# class 1): a sandboxed process must not steer the removal outside, and
# the sweep removes only what cordon made.  The attacks are
# tests/helpers/tmprace (static): `plant` in a ci run, `swap` in a
# sibling sandbox (or outside), the victim checked from outside.  Each
# test has its own state directory (XDG_STATE_HOME under $T).

deputy_setup() {
	export XDG_STATE_HOME="$T/state"
	mkdir -p "$T/out/target"
	printf secret > "$T/out/target/victim"
	chmod 600 "$T/out/target/victim"
}

assert_victim() {
	assert_content "$T/out/target/victim" secret
}

# deputy_round ROUND SWAPPER...: a ci run plants 300 dirs in its
# TMPDIR and exits once SWAPPER (tmprace swap DIR STASH TARGET N GO,
# run with DIR, STASH and the rest appended) swaps them while the
# launcher removes the tree.  $where: the run's TMPDIR.
deputy_round() {
	local round=$1 cpid
	shift
	rm -f "$T/ws/where" "$T/ws/go"
	"$CORDON" -m ci -q -x "$HELPERS" -- "$HELPERS/tmprace" plant 300 "$T/ws" \
		> "$T/ci.out" 2>&1 &
	cpid=$!
	wait_for_file "$T/ws/where"
	[ -s "$T/ws/where" ] || { cat "$T/ci.out"; fail "nothing planted"; }
	where=$(cat "$T/ws/where")
	stash="$(dirname "$where")-stash.$round"
	"$@" "$HELPERS/tmprace" swap "$where" "$stash" "$T/out/target" 300 \
		"$T/ws/go" > "$T/swap.out" 2>&1
	wait "$cpid"
	echo "round $round: $(cat "$T/swap.out")"
}

# A sibling sandbox (the default mode: the host's /tmp writable) swaps
# a directory of a ci run's temp dir for a link to a directory outside
# while the launcher removes it: nothing outside is removed.
test_deputy_tmp_sibling_swap_during_ci_removal() {
	local where stash round
	deputy_setup
	for round in 1 2 3 4; do
		deputy_round "$round" "$CORDON" -q --
		rm -rf "$stash"
		assert_victim
	done
	assert_absent "$where"
	assert_absent "$(dirname "$where")"
}

# The same swaps from outside every sandbox (as if a sandbox could
# write there): the launcher's removal through descriptors follows no
# link, and the race ran.  A name that is another thing each time it is
# looked at is left (four tries), and the launcher says so.
test_deputy_tmp_launcher_removal_resists_a_swap_from_outside() {
	local where stash round swaps=0 n
	deputy_setup
	for round in 1 2 3 4; do
		deputy_round "$round" env
		n=$(sed -n 's/^swaps //p' "$T/swap.out")
		swaps=$((swaps + ${n:-0}))
		# what the swaps carried out of the tree
		chmod -R u+rwx "$stash" 2> /dev/null
		rm -rf "$stash"
		assert_victim
		# a name swapped each time it is looked at is left, and said
		[ ! -e "$(dirname "$where")" ] ||
			grep -q "^cordon: the ci temp dir '$(dirname "$where")' was not removed whole: " "$T/ci.out" ||
			{ cat "$T/ci.out"; fail "left without a word"; }
	done
	[ "$swaps" -gt 100 ] || fail "the race never ran: $swaps swaps"
}

# The twin: the same swaps against the removal by path that cordon made
# before (nftw) delete the victim.
test_deputy_tmp_twin_removal_by_path_deletes_the_victim() {
	local round spid ppid
	deputy_setup
	for round in 1 2 3 4 5 6 7 8; do
		rm -rf "$T/out/tree" "$T/out/stash" "$T/ws/where" "$T/ws/go"
		mkdir "$T/out/tree"
		TMPDIR="$T/out/tree" "$HELPERS/tmprace" plant 300 "$T/ws" &
		ppid=$!
		wait_for_file "$T/ws/where"
		"$HELPERS/tmprace" swap "$T/out/tree" "$T/out/stash" \
			"$T/out/target" 300 "$T/ws/go" > "$T/swap.out" &
		spid=$!
		wait "$ppid"
		"$HELPERS/tmprace" nftwrm "$T/out/tree"
		wait "$spid"
		[ -e "$T/out/target/victim" ] || {
			echo "deleted in round $round: $(cat "$T/swap.out")"
			return 0
		}
	done
	fail "the removal by path kept the victim through 8 rounds"
}

# The ci dir is in cordon's state directory, under <state>/ci: mode
# 0700, the user's, no link; named for its launcher; a sibling sandbox
# cannot write in it, even one granted a directory above it.
test_deputy_tmp_ci_dir_is_private() {
	local ci name cpid dir
	deputy_setup
	ci="$T/state/cordon/ci"
	cordon -m ci -q -- sh -c 'echo "$TMPDIR"'
	assert_status 0
	case "$(cat "$T/stdout")" in
	"$ci/"*/tmp) ;;
	*) show; fail "TMPDIR not in $ci" ;;
	esac
	name=$(cat "$T/stdout"); name=${name#"$ci/"}; name=${name%/tmp}
	[[ $name =~ ^[0-9a-f]{32}\.[0-9]+\.[0-9]+\.[0-9]+$ ]] ||
		fail "the dir's name: $name"
	[ -d "$ci" ] && [ ! -L "$ci" ] || fail "$ci is not a directory"
	[ "$(stat -c '%a %u' "$ci")" = "700 $(id -u)" ] ||
		fail "$ci: $(stat -c '%a %u' "$ci")"
	assert_absent "$ci/$name"
	# a live run's dir, and siblings trying to write in it
	"$CORDON" -m ci -q -- sh -c 'echo "$TMPDIR" > where
		while [ ! -e go ]; do sleep 0.05; done' &
	cpid=$!
	wait_for_file "$T/ws/where"
	dir=$(cat "$T/ws/where")
	cordon -q -- sh -c 'echo x > "$1/planted"' _ "$dir"
	assert_status_not 0
	cordon -q -w "$T" -- sh -c 'echo x > "$1/planted"; mkdir "$2/sib"' \
		_ "$dir" "$ci"
	assert_status_not 0
	assert_absent "$dir/planted"
	assert_absent "$ci/sib"
	# a --write of it is refused, with or without the shim
	cordon -q -w "$ci" -- true
	assert_status 125
	assert_stderr_has "^cordon: --write '$ci': cordon's own audit log and state are never granted$"
	cordon -q --no-shim -w "$dir" -- true
	assert_status 125
	# the twin: without cordon the same write lands
	plain sh -c 'echo x > "$1/planted"' _ "$dir"
	assert_exists "$dir/planted"
	touch "$T/ws/go"
	wait "$cpid"
	assert_absent "$dir"
}

# <state>/ci that is not the user's own directory of mode 0700 (a link,
# open to others): refused, and nothing made where it points.
test_deputy_tmp_ci_dir_not_ours_is_refused() {
	deputy_setup
	mkdir -p "$T/state/cordon" "$T/out/elsewhere"
	ln -s "$T/out/elsewhere" "$T/state/cordon/ci"
	cordon -m ci -q -- true
	assert_status 125
	assert_stderr_has "^cordon: '$T/state/cordon/ci' is not a directory of the user's own with mode 0700"
	assert_stderr_lines 1
	[ -z "$(ls -A "$T/out/elsewhere")" ] || fail "made in the link's target"
	rm "$T/state/cordon/ci"
	mkdir -m 755 "$T/state/cordon/ci"
	cordon -m ci -q -- true
	assert_status 125
	assert_stderr_has "is not a directory of the user's own"
	# the twin: once it is 0700, the run goes
	chmod 700 "$T/state/cordon/ci"
	cordon -m ci -q -- true
	assert_status 0
}

# A dir planted in the shared /tmp, named like the ci dir of a dead
# launcher (as cordon named them before), is not the sweep's to remove.
test_deputy_tmp_sweep_ignores_a_dir_planted_in_tmp() {
	local dead planted
	deputy_setup
	sh -c 'exit 0' &
	dead=$!
	wait "$dead"
	planted=$(mktemp -d "/tmp/cordon-ci.$dead.XXXXXX")
	echo mine > "$planted/file"
	cordon -m ci -q -- true
	assert_status 0
	assert_content "$planted/file" mine
	rm -rf "$planted"
}

# The twin: the dir a killed launcher left behind (SIGKILL: nothing of
# it ran to clean up) is swept by the next ci run; a dir of a live
# launcher is kept, one whose pid lives on in another process (another
# start time) is swept, one of another boot is left.
test_deputy_tmp_leftover_of_a_killed_launcher_is_swept() {
	local lpid dir ci boot ns spid start other
	deputy_setup
	ci="$T/state/cordon/ci"
	"$CORDON" -m ci -q -- sh -c 'echo left > "$TMPDIR/file"
		echo "$TMPDIR" > where; sleep 60' &
	lpid=$!
	wait_for_file "$T/ws/where"
	dir=$(dirname "$(cat "$T/ws/where")")
	kill -KILL "$lpid"
	wait "$lpid"
	assert_content "$dir/tmp/file" left
	boot=$(tr -d '-' < /proc/sys/kernel/random/boot_id)
	ns=$(stat -L -c %i /proc/self/ns/pid)
	sleep 60 &
	spid=$!
	start=$(sed 's/.*) //' "/proc/$spid/stat" | cut -d' ' -f20)
	other=0123456789abcdef0123456789abcdef
	mkdir -p "$ci/$boot.$ns.$spid.$start/tmp" \
		"$ci/$boot.$ns.$spid.$((start + 1))/tmp" \
		"$ci/$other.$ns.$spid.1/tmp"
	cordon -m ci -q -- true
	assert_status 0
	assert_absent "$dir"
	assert_exists "$ci/$boot.$ns.$spid.$start/tmp"
	assert_absent "$ci/$boot.$ns.$spid.$((start + 1))"
	assert_exists "$ci/$other.$ns.$spid.1/tmp"
	kill "$spid"
}
