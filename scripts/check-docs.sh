#!/usr/bin/env bash
# The documents' own checks, run by `make test` (target check-docs):
#
#   scripts/check-docs.sh [ROOT]       check the tree at ROOT (default: this one)
#   scripts/check-docs.sh --selftest   break a copy of the tree each way and
#                                      show that every check fails on it
#
# 1. README.md is at most 320 lines (the rest lives in doc/).
# 2. Every relative link of README.md and doc/**/*.md names a file that
#    exists, and a #fragment into a Markdown file names one of its
#    headings (GitHub's anchors).
# 3. The two commands at the top of README.md (its first code block) are
#    the ones CI runs: each is a line of .ci/run as written, the second
#    is `make test`, and the Makefile has the targets they name.
#
# Exit 0, or 1 after one line per problem: "check-docs: FILE: ...".
set -u

MAX_README_LINES=320

# slugs FILE: the anchors of FILE's headings, one a line, as GitHub
# makes them (lower case; what is not a letter, digit, space, - or _
# dropped; spaces to -).  Headings inside ``` fences are not headings.
slugs() {
	awk '/^```/ { f = !f; next } !f && /^#+ / { sub(/^#+ +/, ""); print }' "$1" |
		tr '[:upper:]' '[:lower:]' |
		sed -e 's/[^[:alnum:] _-]//g' -e 's/ /-/g'
}

# links FILE: "LINE TARGET" for each link target of FILE outside ```
# fences, absolute URLs left out.
links() {
	awk '/^```/ { f = !f; next }
		!f { s = $0
			while (match(s, /\]\([^)[:space:]]+\)/)) {
				print FNR, substr(s, RSTART + 2, RLENGTH - 3)
				s = substr(s, RSTART + RLENGTH)
			} }' "$1" |
		grep -Ev '^[0-9]+ ([a-z]+:|//)'
}

check() {
	local root=$1 bad=0 f line target path frag dir
	local readme=$root/README.md

	if [ ! -f "$readme" ]; then
		echo "check-docs: $readme: missing"
		return 1
	fi
	local n
	n=$(wc -l < "$readme")
	if [ "$n" -gt "$MAX_README_LINES" ]; then
		echo "check-docs: README.md: $n lines, more than $MAX_README_LINES (move the detail to doc/)"
		bad=1
	fi

	while IFS= read -r f; do
		dir=$(dirname "$f")
		while read -r line target; do
			path=${target%%#*}
			frag=
			[ "$path" = "$target" ] || frag=${target#*#}
			if [ -z "$path" ]; then
				path=$f
			else
				path=$dir/$path
			fi
			if [ ! -e "$path" ]; then
				echo "check-docs: ${f#"$root"/}:$line: link to a missing file: $target"
				bad=1
			elif [ -n "$frag" ] && [ "${path%.md}" != "$path" ] &&
				! slugs "$path" | grep -qxF -- "$frag"; then
				echo "check-docs: ${f#"$root"/}:$line: no heading '#$frag' in ${path#"$root"/}"
				bad=1
			fi
		done < <(links "$f")
	done < <({ echo "$readme"; find "$root/doc" -name '*.md' 2>/dev/null; } | sort)

	# the first code block of the README: the two commands
	local -a cmds
	mapfile -t cmds < <(awk '/^    / { sub(/^    /, ""); print; seen = 1; next }
		seen { exit }' "$readme")
	if [ "${#cmds[@]}" -ne 2 ]; then
		echo "check-docs: README.md: its first code block has ${#cmds[@]} lines, not the two commands"
		bad=1
	else
		if [ "${cmds[1]}" != "make test" ]; then
			echo "check-docs: README.md: the second command is '${cmds[1]}', not 'make test'"
			bad=1
		fi
		for c in "${cmds[@]}"; do
			if ! grep -qxF -- "$c" "$root/.ci/run"; then
				echo "check-docs: .ci/run: does not run the README's '$c'"
				bad=1
			fi
			for t in $(grep -oE '(^|&& )make [a-z]+' <<< "$c" | awk '{ print $NF }'); do
				if ! grep -qE "^$t:" "$root/Makefile"; then
					echo "check-docs: Makefile: no target '$t' (the README runs make $t)"
					bad=1
				fi
			done
		done
	fi
	return $bad
}

# expect_fail WHAT ROOT PATTERN: the check of ROOT fails with a line
# matching PATTERN.
expect_fail() {
	local out
	out=$(check "$2")
	if [ $? -eq 0 ] || ! grep -q -- "$3" <<< "$out"; then
		echo "check-docs: selftest: $1 went unnoticed"
		return 1
	fi
}

selftest() {
	local src t bad=0
	src=$(cd "$(dirname "$0")/.." && pwd)
	t=$(mktemp -d) || return 1
	trap 'rm -rf "$t"' RETURN
	fresh() {
		rm -rf "$t/tree" && mkdir -p "$t/tree/.ci" &&
			cp -r "$src/README.md" "$src/Makefile" "$src/doc" "$t/tree/" &&
			cp "$src/.ci/run" "$t/tree/.ci/run"
	}
	fresh || return 1
	if ! check "$t/tree" > "$t/out"; then
		cat "$t/out"
		echo "check-docs: selftest: the copy of the tree does not pass"
		return 1
	fi
	# a link to a file that is not there (the first link of the README)
	fresh && sed -i '0,/](doc\/macos.md)/s//](doc\/macos-gone.md)/' "$t/tree/README.md"
	expect_fail "a broken link in README.md" "$t/tree" "missing file: doc/macos-gone.md" || bad=1
	# a file a page links to, removed
	fresh && rm "$t/tree/doc/session-protocol.md"
	expect_fail "a removed page" "$t/tree" "doc/security.md:.*missing file: session-protocol.md" || bad=1
	# a heading renamed under a link to it
	fresh && sed -i 's/^## Protected paths$/## Paths protected/' "$t/tree/doc/security.md"
	expect_fail "a broken anchor" "$t/tree" "no heading '#protected-paths'" || bad=1
	# a README grown past its bound
	fresh && yes '' | head -n "$MAX_README_LINES" >> "$t/tree/README.md"
	expect_fail "a long README" "$t/tree" "more than $MAX_README_LINES" || bad=1
	# CI running something else than the README says
	fresh && sed -i 's/cordon -- make -n$/cordon -- true/' "$t/tree/.ci/run"
	expect_fail "a CI command unlike the README's" "$t/tree" ".ci/run: does not run the README's" || bad=1
	fresh && sed -i 's/^test: /tests: /' "$t/tree/Makefile"
	expect_fail "a Makefile without 'test'" "$t/tree" "no target 'test'" || bad=1
	[ $bad -eq 0 ] && echo "check-docs: selftest: ok (6 breakages caught)"
	return $bad
}

if [ "${1:-}" = "--selftest" ]; then
	selftest
	exit $?
fi
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
check "$root" && echo "check-docs: ok"
