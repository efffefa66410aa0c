# Real builds with a learned profile (uses t_realbuild.sh's helpers): GNU
# hello and zlib from their Debian sources, configure, build, their own
# test suites and an install into a staging directory outside the
# workspace.  `cordon learn` writes the profile; the same build then runs
# under cordon with it and no denial, and installs the same files as a
# plain build; without the profile's grant the denial line names the
# option that restores it.

# The build, installing into the staging directory $1 (named in the
# command itself: cordon scrubs the environment).
realbuild_install() {
	printf '%s' "./configure --prefix=/usr && make -j2 && echo @@check@@ && make check && make install DESTDIR='$1'"
}

# realbuild_learned NAME: the whole story for one package.
realbuild_learned() {
	local name=$1 src dir
	realbuild_source "$name"
	dir="$T/ws/$(basename "$src")"
	SOURCE_DATE_EPOCH=$(stat -c %Y "$src/debian/changelog")
	export SOURCE_DATE_EPOCH

	# plain, for the reference install
	cp -a "$src" "$dir" && cd "$dir" || fail "cannot copy $src"
	realbuild_capped sh -c "$(realbuild_install "$T/out/stage-plain")"
	assert_status 0
	cd "$T/ws" && rm -rf "$dir"

	# learn
	mkdir -p "$T/out/stage"
	cp -a "$src" "$dir" && cd "$dir" || fail "cannot copy $src"
	realbuild_capped "$CORDON" learn --log "$T/out/learn.jsonl" \
		-o "$T/out/$name.json" -- sh -c "$(realbuild_install "$T/out/stage")"
	assert_status 0
	assert_stderr_has "^cordon: learned "
	echo "$name: learned profile:"
	sed 's/^/    /' "$T/out/$name.json"
	python3 - "$T/out/$name.json" "$T/out/stage" <<'PY' || fail "the profile does not grant the staging directory, or grants more"
import json, sys
p, stage = json.load(open(sys.argv[1])), sys.argv[2]
assert p.get("write") == [stage], p
assert "read" not in p and "exec" not in p and "net" not in p, p
PY
	cd "$T/ws" && rm -rf "$dir" "$T/out/stage"/*

	# with the profile: no denial, the same install
	cp -a "$src" "$dir" && cd "$dir" || fail "cannot copy $src"
	realbuild_capped "$CORDON" --log "$T/out/run.jsonl" \
		-p "$T/out/$name.json" -- sh -c "$(realbuild_install "$T/out/stage")"
	assert_status 0
	! grep -q '^cordon: denied\|denials\? reported' "$T/stderr" ||
		{ show; fail "the build with the learned profile met denials"; }
	realbuild_assert_same_trees "$T/out/stage-plain" "$T/out/stage"
	echo "$name: the install under cordon is byte-identical"
	cd "$T/ws" && rm -rf "$dir" "$T/out/stage"/*

	# one grant less: refused, and the line names the option
	cp -a "$src" "$dir" && cd "$dir" || fail "cannot copy $src"
	realbuild_capped "$CORDON" --log "$T/out/miss.jsonl" \
		-- sh -c "$(realbuild_install "$T/out/stage")"
	assert_status_not 0
	grep -q "^cordon: denied write $T/out/stage.*; allow with --write $T/out/stage" "$T/stderr" ||
		{ show; fail "no denial line naming --write $T/out/stage"; }
	[ -z "$(ls -A "$T/out/stage")" ] || fail "the refused install wrote into the stage"
	echo "$name: the summary of the run without the grant:"
	sed -n '/denials\? reported/,$p' "$T/stderr" | sed 's/^/    /'
}

test_realbuild_learn_hello() {
	realbuild_learned hello
}

test_realbuild_learn_zlib() {
	realbuild_learned zlib
}
