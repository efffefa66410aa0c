#!/bin/sh
# The layering check's own tests: scripts/check-layers.py run on the
# small fixture trees beside this file (each a fake shim/ and enforce/
# with its layers.txt), and on copies of them changed by one thing, so
# that each rule is shown both to fail and to pass.  Each case compares
# the whole output and the exit status.  Run by `make check-layers`.
set -u
here=$(cd "$(dirname "$0")" && pwd)
check="$here/../../scripts/check-layers.py"
tmp=$(mktemp -d /tmp/cordon-layers.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0

# expect NAME STATUS TREE: run the check on TREE (its layers.txt); its
# stdout must be this function's stdin and its exit status STATUS.
expect() {
	name=$1 status=$2 tree=$3
	cat >"$tmp/want"
	python3 "$check" --root "$tree" --layers "$tree/layers.txt" \
		>"$tmp/got" 2>"$tmp/err"
	rc=$?
	if [ "$rc" -eq "$status" ] && cmp -s "$tmp/want" "$tmp/got"; then
		echo "ok   $name"
		passed=$((passed + 1))
	else
		echo "FAIL $name: exit $rc (want $status); output:"
		cat "$tmp/got" "$tmp/err"
		echo "  wanted:"
		cat "$tmp/want"
		failed=$((failed + 1))
	fi
}

# copy FIXTURE: a fresh copy of a fixture tree, printed
copy() {
	rm -rf "${tmp:?}/$1"
	cp -R "$here/$1" "$tmp/$1"
	echo "$tmp/$1"
}

# pad FILE N: append comment lines until FILE has N lines
pad() {
	while [ "$(wc -l <"$1")" -lt "$2" ]; do
		echo "/* pad */" >>"$1"
	done
}

expect clean 0 "$here/clean" <<'EOF'
layers: 8 files in 4 layers, no circle, no include back up
EOF

# The clean tree's shim/core/path.c holds two includes in comments; out
# of their comments, each runs back up.
t=$(copy clean)
sed -i 's|^// #include|#include|' "$t/shim/core/path.c"
expect comment-line-twin 1 "$t" <<'EOF'
shim/core/path.c:5: circle of 2 units: shim/core/path <-> shim/hook; tied by shim/core/path.c:5 includes shim/hook.h, shim/hook.c:2 includes shim/core/path.h
shim/core/path.c:5: include runs back up: shim/hook.h is in layer 3 (shim/), above this file's layer 4 (shim/core/)
EOF
t=$(copy clean)
sed -i -e '/^\/\* The core/d' -e '/^\*\/$/d' "$t/shim/core/path.c"
expect comment-block-twin 1 "$t" <<'EOF'
enforce/run.c:2: circle of 3 units: enforce/run <-> shim/core/path <-> shim/hook; tied by enforce/run.c:2 includes shim/hook.h, enforce/run.c:3 includes shim/core/path.h, shim/core/path.c:2 includes enforce/run.h, shim/hook.c:2 includes shim/core/path.h
shim/core/path.c:2: include runs back up: enforce/run.h is in layer 2 (enforce/), above this file's layer 4 (shim/core/)
EOF

expect circle 1 "$here/circle" <<'EOF'
enforce/a.c:2: circle of 2 units: enforce/a <-> enforce/b; tied by enforce/a.c:2 includes enforce/b.h, enforce/b.c:1 includes enforce/a.h
EOF

expect upward 1 "$here/upward" <<'EOF'
shim/core/path.c:3: include runs back up: shim/hook.h is in layer 2 (shim/), above this file's layer 3 (shim/core/)
EOF

t=$(copy clean)
pad "$t/shim/core/path.c" 600
expect lines-600 0 "$t" <<'EOF'
layers: 8 files in 4 layers, no circle, no include back up
EOF
echo "/* pad */" >>"$t/shim/core/path.c"
expect lines-601 1 "$t" <<'EOF'
shim/core/path.c:601: file too long: 601 lines, more than 600: split it
EOF

# In a body: fails (also behind a "}" in a string, and on a continued
# line); at file scope, in mounts_linux.c and under darwin/: passes.
expect platform 1 "$here/platform" <<'EOF'
enforce/run.c:11: platform #ifdef in a function body: tests __APPLE__ at brace depth 2; only platform files (*_linux.c, *_darwin.c, darwin/, linux/, compat/) may
enforce/run.c:13: platform #elif in a function body: tests _WIN32 at brace depth 2; only platform files (*_linux.c, *_darwin.c, darwin/, linux/, compat/) may
shim/init.c:6: platform #ifndef in a function body: tests __APPLE__ at brace depth 1; only platform files (*_linux.c, *_darwin.c, darwin/, linux/, compat/) may
EOF
# The same body outside a platform file's name and folder fails.
t=$(copy platform)
mv "$t/enforce/mounts_linux.c" "$t/enforce/mounts.c"
mv "$t/enforce/darwin/seatbelt.c" "$t/enforce/seatbelt.c"
expect platform-file-twin 1 "$t" <<'EOF'
enforce/mounts.c:4: platform #ifdef in a function body: tests __linux__ at brace depth 1; only platform files (*_linux.c, *_darwin.c, darwin/, linux/, compat/) may
enforce/run.c:11: platform #ifdef in a function body: tests __APPLE__ at brace depth 2; only platform files (*_linux.c, *_darwin.c, darwin/, linux/, compat/) may
enforce/run.c:13: platform #elif in a function body: tests _WIN32 at brace depth 2; only platform files (*_linux.c, *_darwin.c, darwin/, linux/, compat/) may
enforce/seatbelt.c:4: platform #ifndef in a function body: tests __APPLE__ at brace depth 1; only platform files (*_linux.c, *_darwin.c, darwin/, linux/, compat/) may
shim/init.c:6: platform #ifndef in a function body: tests __APPLE__ at brace depth 1; only platform files (*_linux.c, *_darwin.c, darwin/, linux/, compat/) may
EOF

expect nolayer 1 "$here/nolayer" <<EOF
shim/stray.c:1: in no layer: no prefix of layers.txt matches it
EOF

# A stale declaration fails too: a prefix that owns no file.
t=$(copy clean)
echo "enforce/gone/" >>"$t/layers.txt"
expect stale-prefix 1 "$t" <<EOF
layers.txt:6: prefix owns no file: enforce/gone/ matches no product file (or only ones a longer prefix takes)
EOF

# A prefix declared twice, a folder named without its '/'.
t=$(copy clean)
printf 'shim/core/\nshim\n' >>"$t/layers.txt"
expect declaration 1 "$t" <<'EOF'
layers.txt:6: prefix declared twice: shim/core/ is also on line 5
layers.txt:7: folder without '/': shim is a folder: write shim/
layers.txt:7: prefix owns no file: shim matches no product file (or only ones a longer prefix takes)
EOF

# A subsystem of enforce/ is known outside by its one header: the
# fixture's run/ includes net/net.h (passes); its twin includes the
# inside, net/net_int.h (fails).  net/ itself includes its inside.
expect private 0 "$here/private" <<'EOF'
layers: 4 files in 2 layers, no circle, no include back up
EOF
t=$(copy private)
sed -i 's|enforce/net/net.h|enforce/net/net_int.h|' "$t/enforce/run/run.c"
expect private-twin 1 "$t" <<'EOF'
enforce/run/run.c:1: include of another subsystem's inside: enforce/net/net_int.h is known outside enforce/net/ by enforce/net/net.h alone
EOF

# Bad input: one line on stderr, exit 2.
t=$(copy clean)
rm "$t/layers.txt"
expect no-layers-file 2 "$t" </dev/null
if [ "$(wc -l <"$tmp/err")" -ne 1 ]; then
	echo "FAIL no-layers-file: not one line on stderr:"
	cat "$tmp/err"
	failed=$((failed + 1))
fi

echo "layers tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
