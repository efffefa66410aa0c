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
	assert_stdout_has '^subcommands: explain learn probe run session wrap$'
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
