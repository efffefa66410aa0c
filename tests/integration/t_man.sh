# The man page documents every option `cordon --help` lists and every
# subcommand, and --help lists only options cordon takes.  The page is
# the one staged with the tests ($HELPERS/doc/cordon.1); the
# comparison is man_check.py's (staged beside the tests).

# man_docs: the man page into $T/doc/cordon.1, --help into $T/help.
man_docs() {
	[ -f "$HELPERS/doc/cordon.1" ] || fail "doc/cordon.1 was not staged"
	mkdir -p "$T/doc" && cp -r "$HELPERS/doc/." "$T/doc/" || fail "cannot copy doc"
	"$CORDON" --help > "$T/help" 2> "$T/stderr" || fail "cordon --help failed"
}

test_man_documents_every_option_and_subcommand() {
	man_docs
	python3 "$HELPERS/man_check.py" "$T/help" "$T/doc/cordon.1" > "$T/stdout"
	status=$?
	assert_status 0
	# what the issue found missing, named: the check saw them
	assert_stdout_has '^options: .*--log .*--no-shim '
	assert_stdout_has '^subcommands: explain, learn, probe, run, session list, session start, session stop, wrap$'
	assert_stdout_has '^modes: ci full-dev read-only workspace-net workspace-write$'
	assert_stdout_has '^profiles: .*ci full-dev git-hosts.* workspace-write$'
	# probe --mode, which the help once lacked, is in its usage line
	grep -q '^ *cordon probe .*--mode MODE' "$T/help" || fail "--help lacks probe --mode"
}

# The check fails on a difference in either direction, and on a
# subcommand without its section: it cannot pass by seeing nothing.
test_man_check_fails_on_a_difference() {
	man_docs
	# an option the page documents and --help does not list
	{ cat "$T/doc/cordon.1"; printf '.TP\n\\fB\\-\\-bogus\\fR\nNothing.\n'; } > "$T/extra.1"
	python3 "$HELPERS/man_check.py" "$T/help" "$T/extra.1" > "$T/stdout"
	status=$?
	assert_status 1
	assert_stdout_has '^option --bogus: in the man page, not in --help$'
	# an option --help lists that the page lacks (--no-shim dropped)
	grep -v 'no\\-shim' "$T/doc/cordon.1" > "$T/lacks.1"
	python3 "$HELPERS/man_check.py" "$T/help" "$T/lacks.1" > "$T/stdout"
	status=$?
	assert_status 1
	assert_stdout_has '^option --no-shim: in --help, not in the man page$'
	# a subcommand --help lists and the synopsis does not
	grep -v '^\.B cordon learn' "$T/doc/cordon.1" > "$T/nolearn.1"
	python3 "$HELPERS/man_check.py" "$T/help" "$T/nolearn.1" > "$T/stdout"
	status=$?
	assert_status 1
	assert_stdout_has '^subcommand learn: in --help, not in the man page$'
	# a subcommand without a section of its own
	sed 's/^\.SH LEARN$/.SH LEARNING/' "$T/doc/cordon.1" > "$T/nosection.1"
	python3 "$HELPERS/man_check.py" "$T/help" "$T/nosection.1" > "$T/stdout"
	status=$?
	assert_status 1
	assert_stdout_has '^subcommand learn: no section LEARN in the man page$'
	# an option --help lists that the page lacks, the other way round
	grep -v -- '--output' "$T/help" > "$T/help2"
	python3 "$HELPERS/man_check.py" "$T/help2" "$T/doc/cordon.1" > "$T/stdout"
	status=$?
	assert_status 1
	assert_stdout_has '^option --output: in the man page, not in --help$'
	# an entry dropped from --help, each kind: a mode, a built-in
	# profile, an option of a subcommand's usage, a usage line
	help_lacks '^  full-dev  ' '^mode full-dev: in the man page, not in --help$'
	help_lacks 's/full-dev, ci$/full-dev/' '^profile ci: in the man page, not in --help$'
	help_lacks 's/ \[--mode MODE \[OPTIONS\]\]//' \
		"^synopsis 'probe': option --mode: in the man page, not in --help$"
	help_lacks 'cordon session list' '^synopsis session list: in the man page, not in --help$'
	# and the page lacking one: a mode
	sed '/^\.B full-dev$/d' "$T/doc/cordon.1" > "$T/nomode.1"
	python3 "$HELPERS/man_check.py" "$T/help" "$T/nomode.1" > "$T/stdout"
	status=$?
	assert_status 1
	assert_stdout_has '^mode full-dev: in --help, not in the man page$'
}

# help_lacks EDIT EXPECTED: --help with a line dropped (EDIT a grep
# pattern) or changed (EDIT a sed s command): man_check fails, saying
# EXPECTED.
help_lacks() {
	case $1 in
	s/*) sed "$1" "$T/help" > "$T/help3" ;;
	*) grep -v -- "$1" "$T/help" > "$T/help3" ;;
	esac
	! cmp -s "$T/help" "$T/help3" || fail "help_lacks: '$1' changed nothing"
	python3 "$HELPERS/man_check.py" "$T/help3" "$T/doc/cordon.1" > "$T/stdout"
	status=$?
	assert_status 1
	assert_stdout_has "$2"
}

# The modes and the built-in profiles --help lists are the parser's,
# both ways: the lists its refusals give (--mode, --profile) are those of
# --help, and each one --help lists is taken.
test_man_help_modes_and_profiles_are_the_parsers() {
	man_docs
	python3 "$HELPERS/man_check.py" "$T/help" "$T/doc/cordon.1" > "$T/check"
	local modes profiles m
	modes=$(sed -n 's/^modes: //p' "$T/check")
	profiles=$(sed -n 's/^profiles: //p' "$T/check")
	[ -n "$modes" ] && [ -n "$profiles" ] || { cat "$T/check"; fail "man_check listed nothing"; }
	cordon explain /etc/passwd -m nope
	assert_status 125
	[ "$(sed -n "s/^cordon: --mode 'nope': expected //p" "$T/stderr" |
		sed 's/ or /, /' | tr ',' '\n' | tr -d ' ' | LC_ALL=C sort | xargs)" = "$modes" ] ||
		{ show; fail "the parser's modes are not --help's: $modes"; }
	cordon explain /etc/passwd -p nope
	assert_status 125
	[ "$(sed -n "s/^cordon: --profile 'nope': no such file, and not a built-in profile (\(.*\))$/\1/p" "$T/stderr" |
		tr ',' '\n' | tr -d ' ' | LC_ALL=C sort | xargs)" = "$profiles" ] ||
		{ show; fail "the parser's built-in profiles are not --help's: $profiles"; }
	for m in $modes; do
		cordon explain /etc/passwd -m "$m"
		[ "$status" -ne 125 ] || { show; fail "--help lists mode $m, which cordon refuses"; }
	done
	for m in $profiles; do
		cordon explain /etc/passwd -p "$m"
		[ "$status" -ne 125 ] || { show; fail "--help lists profile $m, which cordon refuses"; }
	done
}

# Every option --help lists is one the parser knows: none is answered
# "unknown option" (the twin: a made-up one is).
test_man_help_options_are_accepted() {
	man_docs
	local opt n=0
	for opt in $(grep -oE '(^|[ [|])--?[A-Za-z][A-Za-z-]*' "$T/help" |
		sed 's/^[ [|]//' | sort -u); do
		cordon "$opt"
		! grep -q "unknown option" "$T/stderr" ||
			{ show; fail "--help lists $opt, which cordon does not take"; }
		n=$((n + 1))
	done
	[ "$n" -ge 20 ] || fail "only $n options found in --help"
	cordon --bogus-option
	assert_status 125
	assert_stderr_has "^cordon: unknown option '--bogus-option'$"
}

# The page renders without a warning, and man shows the subcommands.
test_man_page_renders() {
	man_docs
	command -v groff > /dev/null || skip "SKIP: no groff to render the man page"
	groff -man -ww -z "$T/doc/cordon.1" > "$T/stdout" 2> "$T/stderr"
	status=$?
	assert_status 0
	[ ! -s "$T/stderr" ] || { show; fail "groff warns about the man page"; }
	groff -man -Tascii -P-cbou "$T/doc/cordon.1" > "$T/stdout" 2> "$T/stderr"
	assert_stdout_has '^ *cordon learn -o PROFILE'
	assert_stdout_has '^ *--no-shim'
	assert_stdout_has '^ *--log FILE'
}
