#!/usr/bin/env bash
# Compare the outcomes of one module's test cases, bare and under cordon.
#
#   compare.sh ALLOWED CORDON BARE [BARE2]
#
# Each of CORDON, BARE, BARE2 holds "ID OUTCOME" lines (outcomes.py).
# A test case is the same when its outcome under cordon is one it had
# in a bare run (a test flaky bare is the same when cordon got either
# of its outcomes); a test case present on one side only differs
# ("absent").  Prints one line per difference, sorted, marked with the
# reason when ALLOWED lists the test ("ID REASON" lines; # comments),
# then "compat: N test cases, M same, K differ (L allowed)".  Exits 1
# when a difference is not listed, 2 on a missing input.
set -u

usage="usage: compare.sh ALLOWED CORDON BARE [BARE2]"
allowed=${1:?$usage}
cordon=${2:?$usage}
bare=${3:?$usage}
shift 3
for f in "$allowed" "$cordon" "$bare" "$@"; do
	[ -r "$f" ] || { echo "compare.sh: cannot read '$f'" >&2; exit 2; }
done

LC_ALL=C awk -v label="${COMPAT_LABEL:-}" '
FILENAME == ARGV[1] {
	if ($0 ~ /^[ \t]*(#|$)/)
		next
	reason = $0
	sub(/^[ \t]*[^ \t]+[ \t]*/, "", reason)
	id = $1
	if (id ~ /^(root|user):/ && !sub("^" label ":", "", id))
		next
	allowed[id] = reason
	next
}
FILENAME == ARGV[2] { cordon[$1] = $2; ids[$1] = 1; next }
{
	ids[$1] = 1
	if (!(($1, $2) in seen)) {
		seen[$1, $2] = 1
		o = ($1 in bare) ? bare[$1] "/" $2 : $2
		bare[$1] = o
	}
}
END {
	# a class or module fixture that failed or skipped under cordon
	# accounts for its tests that did not run there: one line for all
	for (id in cordon) {
		scope = id
		if (sub(/^setUp(Class|Module)_\(test\./, "", scope)) {
			sub(/\)$/, "", scope)
			fixture[scope] = id
		}
	}
	for (id in ids) {
		n++
		b = (id in bare) ? bare[id] : "absent"
		c = (id in cordon) ? cordon[id] : "absent"
		if (!index("/" b "/", "/" c "/")) {
			differ++
			f = (c == "absent") ? cover(id) : ""
			if (f == "")
				report[id] = id ": bare " b ", cordon " c
			else
				kept[f]++
			if ((f == "" ? id : f) in allowed)
				listed++
		} else if (index(b, "/")) {
			printf "note: %s: flaky bare (%s), cordon %s\n", id, b, c | "sort"
		}
	}
	same = n - differ
	for (f in kept) {
		if (!(f in report))
			report[f] = f ": bare " bare[f] ", cordon " cordon[f]
		report[f] = report[f] ", and " kept[f] " test cases it kept from running"
	}
	for (id in report) {
		if (id in allowed)
			report[id] = report[id] " (allowed: " allowed[id] ")"
		print report[id] | "sort"
	}
	close("sort")
	printf "compat: %d test cases, %d same, %d differ (%d allowed)\n",
		n, same, differ, listed
	exit (differ > listed)
}

# the fixture under cordon that covers test ID (module.Class.test), or ""
function cover(id,    scope) {
	scope = id
	while (sub(/\.[^.]*$/, "", scope))
		if (scope in fixture)
			return fixture[scope]
	return ""
}' "$allowed" "$cordon" "$bare" "$@"
