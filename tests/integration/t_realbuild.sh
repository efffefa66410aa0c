# Real builds: GNU hello and zlib from their Debian 12 source packages,
# built once plainly and once entirely under cordon, in fresh copies at
# the same path with the same SOURCE_DATE_EPOCH.  Both must succeed, the
# sandboxed one without a single denial, and the trees must come out
# byte for byte the same (only the configure logs, which record dates
# and temporary names, are left out); the test suites must print the
# same.  The negative twin builds zlib with the workspace read-only: it
# fails, names the option that restores it, and writes nothing.
#
# No grant beyond the defaults is needed: the build directory is the
# workspace, and the compiler's temporary files go to /tmp.
#
# The sources are fetched once, outside the sandbox, into a cache under
# /tmp that the root and the cordon-test passes share, by
# scripts/fetch-sources.sh (staged by run.sh beside the helpers).
# Without network the tests skip.

REALBUILD_CACHE=/tmp/cordon-realbuild
REALBUILD_FETCH=$HELPERS/fetch-sources.sh
REALBUILD_BUILD='./configure && make -j2 && echo @@check@@ && make check'

# Whether a cache directory may be used: absent, or a real directory of
# root or of this user (a tree someone else planted is never built).
realbuild_trusted() { # dir
	local owner
	[ -e "$1" ] || return 0
	[ ! -L "$1" ] && [ -d "$1" ] || return 1
	owner=$(stat -c %u "$1")
	[ "$owner" -eq 0 ] || [ "$owner" -eq "$(id -u)" ]
}

# realbuild_source NAME: sets $src to the unpacked Debian source of NAME
# in the shared cache, fetched first if missing; when the shared cache
# is not to be trusted, or lacks NAME and is not ours to fill, this
# user's own cache.  Skips when the source cannot be had.
realbuild_source() {
	local cache=$REALBUILD_CACHE err
	set -- "$1" "$cache/src/$1"-[0-9]*/
	if ! realbuild_trusted "$cache" ||
		{ [ ! -d "$2" ] && [ -d "$cache" ] && [ ! -w "$cache" ]; }; then
		cache="$REALBUILD_CACHE-$(id -u)"
		realbuild_trusted "$cache" ||
			skip "SKIP: $cache belongs to someone else"
		set -- "$1" "$cache/src/$1"-[0-9]*/
	fi
	if [ ! -d "$2" ]; then
		[ -r "$REALBUILD_FETCH" ] || fail "run.sh staged no fetch-sources.sh"
		[ -d "$cache" ] || { mkdir -p "$cache" && chmod 755 "$cache"; } ||
			skip "SKIP: cannot create $cache"
		err=$(sh "$REALBUILD_FETCH" "$cache/src" "$cache/apt" 2>&1 >/dev/null) ||
			skip "SKIP: cannot fetch the Debian sources: ${err##*fetch-sources: }"
		rm -rf "$cache/apt"
		chmod 755 "$cache/src"
		set -- "$1" "$cache/src/$1"-[0-9]*/
		[ -d "$2" ] || skip "SKIP: the fetch left no $1 tree in $cache/src"
	fi
	src=${2%/}
}

# realbuild_capped CMD...: like plain, but a hung build ends in 15 min.
# --foreground keeps the build in the suite's process group, so that a
# killed suite takes it along.
realbuild_capped() {
	timeout --foreground 900 "$@" > "$T/stdout" 2> "$T/stderr"
	status=$?
	[ "$status" -ne 124 ] || { show; fail "timed out: $*"; }
}

# The output of the test suite, modulo timings.
realbuild_check_output() { # stdout-file
	sed -n '/^@@check@@$/,$p' "$1" |
		sed -E 's/[0-9]+(\.[0-9]+)? ?(s|ms|sec|seconds)\b/<t>/g'
}

# A listing of every file with what a write would change.
realbuild_listing() { # dir
	(cd "$1" && find . -printf '%y %m %s %T@ %p -> %l\n' | sort)
}

# Assert that every file of the two trees is the same, byte for byte,
# except the configure logs; $1 and $2 are the trees.
realbuild_assert_same_trees() {
	local f
	diff <(cd "$1" && find . -type f | sort) \
		<(cd "$2" && find . -type f | sort) > "$T/out/lists.diff" ||
		{ cat "$T/out/lists.diff"; fail "the trees hold different files"; }
	(cd "$1" && find . -type f ! -name config.log ! -name configure.log) |
		while read -r f; do
			cmp -s "$1/$f" "$2/$f" || echo "$f"
		done > "$T/out/differ"
	[ ! -s "$T/out/differ" ] ||
		fail "differ between the plain and the sandboxed build: $(tr '\n' ' ' < "$T/out/differ")"
}

# realbuild_pair NAME ARTIFACT...: build NAME plainly, then under cordon
# at the same path, and compare; an ARTIFACT may be a glob.
realbuild_pair() {
	local name=$1 src dir log pattern a
	shift
	realbuild_source "$name"
	dir="$T/ws/$(basename "$src")"
	log="$T/out/audit.jsonl"
	SOURCE_DATE_EPOCH=$(stat -c %Y "$src/debian/changelog")
	export SOURCE_DATE_EPOCH

	cp -a "$src" "$dir" && cd "$dir" || fail "cannot copy $src"
	SECONDS=0
	realbuild_capped sh -c "$REALBUILD_BUILD"
	echo "$name: the plain build took ${SECONDS}s"
	assert_status 0
	realbuild_check_output "$T/stdout" > "$T/out/check.plain"
	cd "$T/ws" && mv "$dir" "$T/out/plain" || fail "cannot move $dir"

	cp -a "$src" "$dir" && cd "$dir" || fail "cannot copy $src"
	: > "$log"
	SECONDS=0
	realbuild_capped "$CORDON" --log "$log" -- sh -c "$REALBUILD_BUILD"
	echo "$name: the build under cordon took ${SECONDS}s"
	assert_status 0
	! grep -q '^cordon: denied\|^cordon: .* denials\? reported' "$T/stderr" ||
		{ show; fail "the sandboxed build met denials"; }
	[ ! -s "$log" ] || { head -c 2000 "$log"; fail "records in $log"; }
	realbuild_check_output "$T/stdout" > "$T/out/check.cordon"

	for pattern in "$@"; do
		for a in "$T/out/plain/"$pattern; do
			a=${a#"$T/out/plain/"}
			[ -f "$dir/$a" ] || fail "the sandboxed build made no $a"
			cmp "$T/out/plain/$a" "$dir/$a" || fail "$a differs"
			echo "$name: $a is byte-identical"
		done
	done
	realbuild_assert_same_trees "$T/out/plain" "$dir"
	[ -s "$T/out/check.plain" ] || fail "make check printed nothing"
	diff "$T/out/check.plain" "$T/out/check.cordon" ||
		fail "make check printed differently under cordon"
}

test_realbuild_hello_plain_and_sandboxed_identical() {
	realbuild_pair hello hello
	grep -q '^# FAIL: *0$' "$T/out/check.plain" ||
		fail "hello's test suite did not pass"
}

test_realbuild_zlib_plain_and_sandboxed_identical() {
	realbuild_pair zlib libz.a 'libz.so.1.*' example minigzip \
		examplesh minigzipsh example64 minigzip64
	grep -q 'zlib test OK' "$T/out/check.plain" ||
		fail "zlib's test suite did not pass"
}

test_realbuild_zlib_read_only_is_refused_and_writes_nothing() {
	local src dir log
	realbuild_source zlib
	dir="$T/ws/$(basename "$src")"
	log="$T/out/audit.jsonl"
	cp -a "$src" "$dir" && cd "$dir" || fail "cannot copy $src"
	dir=$(pwd -P)
	realbuild_listing . > "$T/out/before"
	: > "$log"
	realbuild_capped "$CORDON" -m read-only --log "$log" -- \
		sh -c "$REALBUILD_BUILD"
	assert_status_not 0
	assert_stderr_has "^cordon: denied write "
	awk -v s="allow with --write $dir" \
		'substr($0, length($0) - length(s) + 1) == s { ok = 1 }
		 END { exit !ok }' "$T/stderr" ||
		{ show; fail "no denial line ends with 'allow with --write $dir'"; }
	grep -q '"verdict":"deny"' "$log" || fail "no deny record in $log"
	realbuild_listing . > "$T/out/after"
	diff "$T/out/before" "$T/out/after" ||
		fail "the read-only build changed the tree"
}
