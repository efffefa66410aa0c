/* Unit tests of cordon's error line and --json error document
 * (enforce/base/say.c). */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <stdio.h>

#include "enforce/base/base.h"

static void redirect(void)
{
	cr_redirect_stdout();
	cr_redirect_stderr();
}

/* The document holds the first error said, not a WARNING before it nor
 * an error after it; control characters as '?', a byte that is not
 * UTF-8 as \u00XX; the stderr lines stay. */
Test(say, json_error_document, .init = redirect)
{
	say_json(true);
	say_error("WARNING: %s", "broad");
	say_error("bad \"%s\"", "a\nb\xff");
	say_error("later");
	cr_assert_eq(say_exit(125), 125);
	fflush(stdout);
	fflush(stderr);
	cr_assert_stdout_eq_str("{\"error\":{\"status\":125,\"message\":"
				"\"bad \\\"a?b\\u00ff\\\"\"}}\n");
	cr_assert_stderr_eq_str("cordon: WARNING: broad\n"
				"cordon: bad \"a?b\xff\"\n"
				"cordon: later\n");
}

/* Not a failure (1: a denial, with the command's own document), or no
 * --json: no document. */
Test(say, no_document_but_for_a_failure_with_json, .init = redirect)
{
	say_json(true);
	say_error("x");
	cr_assert_eq(say_exit(1), 1);
	say_json(false);
	cr_assert_eq(say_exit(125), 125);
	fflush(stdout);
	cr_assert_stdout_eq_str("");
}

/* An error another process said (a session's daemon): kept, not
 * printed again; with none said, the document still says something. */
Test(say, kept_and_fallback, .init = redirect)
{
	say_json(true);
	cr_assert_null(say_first());
	say_kept("from the daemon");
	cr_assert_str_eq(say_first(), "from the daemon");
	say_exit(125);
	fflush(stdout);
	fflush(stderr);
	cr_assert_stdout_eq_str("{\"error\":{\"status\":125,\"message\":"
				"\"from the daemon\"}}\n");
	cr_assert_stderr_eq_str("");
}
