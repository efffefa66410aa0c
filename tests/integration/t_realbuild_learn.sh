# Real builds with a learned profile (uses t_realbuild.sh's helpers): GNU
# hello and zlib from their Debian sources, configure, build, their own
# test suites and an install into a staging directory outside the
# workspace.  `cordon learn` writes the profile; the same build then runs
# under cordon with it alone, in another workspace on a fresh copy of
# the tree, with no denial, and installs the same files as a plain
# build; without the profile it is refused, and without the stage's
# grant the denial line names the option that restores it.

# The build, installing into the staging directory $1 (named in the
# command itself: cordon scrubs the environment).
realbuild_install() {
	printf '%s' "./configure --prefix=/usr && make -j2 && echo @@check@@ && make check && make install DESTDIR='$1'"
}

# realbuild_learned NAME: the whole story for one package.  It learns
# with the workspace read-only (-m read-only), so that what the build
# writes in its tree and in the temp directory is learned as well, as
# "." and "$TMPDIR"; and reruns with the profile alone in another
# workspace, on a fresh copy of the tree and an empty staging directory.
realbuild_learned() {
	local name=$1 src tree ldir rdir
	realbuild_source "$name"
	tree=$(basename "$src")
	ldir="$T/ws/learn/$tree"
	rdir="$T/ws/run/$tree"
	mkdir -p "$T/ws/learn" "$T/ws/run" "$T/out/stage"
	SOURCE_DATE_EPOCH=$(stat -c %Y "$src/debian/changelog")
	export SOURCE_DATE_EPOCH

	# plain, for the reference install, where the rerun will build (a
	# build records its own path)
	cp -a "$src" "$rdir" && cd "$rdir" || fail "cannot copy $src"
	realbuild_capped sh -c "$(realbuild_install "$T/out/stage-plain")"
	assert_status 0
	cd "$T/ws" && rm -rf "$rdir"

	# learn
	cp -a "$src" "$ldir" && cd "$ldir" || fail "cannot copy $src"
	realbuild_capped "$CORDON" learn -m read-only --log "$T/out/learn.jsonl" \
		-o "$T/out/$name.json" -- sh -c "$(realbuild_install "$T/out/stage")"
	assert_status 0
	assert_stderr_has "^cordon: learned "
	echo "$name: learned profile:"
	sed 's/^/    /' "$T/out/$name.json"
	! grep -q "$T/ws" "$T/out/$name.json" ||
		fail "the profile names the workspace: it would not move"
	python3 - "$T/out/$name.json" "$T/out/stage" <<'PY' || fail "the profile is not the workspace, the temp directory and the stage"
import json, os, sys
p, stage = json.load(open(sys.argv[1])), sys.argv[2]
home = os.environ["HOME"]
assert stage.startswith(home + "/")
assert p.get("mode") == "read-only", p
assert sorted(p.get("write", [])) == sorted([".", "$TMPDIR", "~" + stage[len(home):]]), p
assert set(p) == {"mode", "write"}, p
PY
	cd "$T/ws" && rm -rf "$ldir" "$T/out/stage"/*

	# with the profile alone, in another workspace: no denial, the same
	# install
	cp -a "$src" "$rdir" && cd "$rdir" || fail "cannot copy $src"
	realbuild_capped "$CORDON" --log "$T/out/run.jsonl" \
		-p "$T/out/$name.json" -- sh -c "$(realbuild_install "$T/out/stage")"
	assert_status 0
	! grep -q 'cordon: denied\|denials\? reported' "$T/stderr" ||
		{ show; fail "the build with the learned profile met denials"; }
	[ ! -e "$T/out/run.jsonl" ] || ! grep -q '"verdict":"deny"' "$T/out/run.jsonl" ||
		fail "the build with the learned profile recorded denials"
	realbuild_assert_same_trees "$T/out/stage-plain" "$T/out/stage"
	echo "$name: the install under cordon is byte-identical"
	cd "$T/ws" && rm -rf "$rdir" "$T/out/stage"/*

	# the same options without the profile: refused, nothing installed
	cp -a "$src" "$rdir" && cd "$rdir" || fail "cannot copy $src"
	realbuild_capped "$CORDON" -m read-only --log "$T/out/ro.jsonl" \
		-- sh -c "$(realbuild_install "$T/out/stage")"
	assert_status_not 0
	grep -q "^cordon: denied write .*$rdir/" "$T/stderr" ||
		{ show; fail "no denial line for the workspace"; }
	[ -z "$(ls -A "$T/out/stage")" ] || fail "the refused build wrote into the stage"
	cd "$T/ws" && rm -rf "$rdir"

	# one grant less: refused, and the line names the option
	cp -a "$src" "$rdir" && cd "$rdir" || fail "cannot copy $src"
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
