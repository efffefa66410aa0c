/* Unit tests of the environment filter (shim/env.c). */
#include <criterion/criterion.h>
#include <errno.h>

#include "shim/core/env.h"

static struct policy p;
static char *envp[] = {
	"PATH=/usr/bin", "HOME=/home/u", "AWS_SECRET_ACCESS_KEY=x",
	"LC_ALL=C",	 "LCX=1",	 "CARGO_HOME=/c",
	"noequals",	 "MY=1",	 NULL,
};

static int filter(const char **out, size_t cap)
{
	return env_filter(&p, envp, out, cap);
}

static bool has(const char **out, const char *entry)
{
	for (size_t i = 0; out[i]; i++)
		if (strcmp(out[i], entry) == 0)
			return true;
	return false;
}

static void fini(void)
{
	memset(&p, 0, sizeof(p));
}

TestSuite(env, .fini = fini);

Test(env, scrubs_to_the_allowlist)
{
	const char *out[16];

	cr_assert_eq(filter(out, 16), 3);
	cr_assert(has(out, "PATH=/usr/bin"));
	cr_assert(has(out, "HOME=/home/u"));
	cr_assert(has(out, "LC_ALL=C"));
	cr_assert(!has(out, "AWS_SECRET_ACCESS_KEY=x"));
	cr_assert(!has(out, "LCX=1"), "LC_* must not match LCX");
	cr_assert(!has(out, "noequals"));
}

Test(env, names_and_prefixes_pass)
{
	char *names[] = { "MY", "CARGO_*" };
	const char *out[16];

	p.env_names[0] = names[0];
	p.env_names[1] = names[1];
	p.nenv_names = 2;
	cr_assert_eq(filter(out, 16), 5);
	cr_assert(has(out, "MY=1"));
	cr_assert(has(out, "CARGO_HOME=/c"));
}

Test(env, settings_replace_and_add)
{
	char *sets[] = { "PATH=/bin", "NEW=v" };
	const char *out[16];

	p.env_sets[0] = sets[0];
	p.env_sets[1] = sets[1];
	p.nenv_sets = 2;
	cr_assert_eq(filter(out, 16), 4);
	cr_assert(has(out, "PATH=/bin"));
	cr_assert(!has(out, "PATH=/usr/bin"));
	cr_assert(has(out, "NEW=v"));
}

Test(env, inherit_passes_everything_with_a_value)
{
	const char *out[16];

	p.env = ENV_INHERIT;
	cr_assert_eq(filter(out, 16), 7);
	cr_assert(has(out, "AWS_SECRET_ACCESS_KEY=x"));
}

Test(env, a_small_array_is_refused_not_overrun)
{
	const char *out[3] = { "guard", "guard", "guard" };

	cr_assert_eq(filter(out, 2), -E2BIG);
}

Test(env, is_name)
{
	cr_assert(env_is_name("LD_PRELOAD=x", "LD_PRELOAD"));
	cr_assert(env_is_name("LD_PRELOAD", "LD_PRELOAD"));
	cr_assert(!env_is_name("LD_PRELOADX=1", "LD_PRELOAD"));
}

Test(env, asan_link_order_is_added_unless_chosen)
{
	char buf[64];

	cr_assert_str_eq(env_asan_entry(NULL, buf, sizeof(buf)),
			 "ASAN_OPTIONS=verify_asan_link_order=0");
	cr_assert_str_eq(env_asan_entry("ASAN_OPTIONS=", buf, sizeof(buf)),
			 "ASAN_OPTIONS=verify_asan_link_order=0");
	cr_assert_str_eq(
		env_asan_entry("ASAN_OPTIONS=halt_on_error=0", buf,
			       sizeof(buf)),
		"ASAN_OPTIONS=halt_on_error=0:verify_asan_link_order=0");
	cr_assert_str_eq(env_asan_entry("ASAN_OPTIONS=verify_asan_link_order=1",
					buf, sizeof(buf)),
			 "ASAN_OPTIONS=verify_asan_link_order=1");
}

Test(env, asan_entry_too_long_is_kept_as_given)
{
	char buf[20];
	const char *e = "ASAN_OPTIONS=detect_leaks=0";

	cr_assert_eq(env_asan_entry(e, buf, sizeof(buf)), e);
}
