/*
 * test_real.c - shim/real.c finds what dlsym(RTLD_NEXT) and dlvsym find,
 * for every name the hooks resolve (real_table.h, from their REAL_FN
 * lines): in a preloaded library of its own (realprobe.so, which asks
 * both from itself), alone, and beside realother.so, a second preloaded
 * library that defines every one of those names (unversioned), loaded
 * after it (every answer then lies in realother.so) and before it (none
 * does: the names it defines are not "next").
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

struct counts {
	unsigned long checked, found, differ, other;
	int status;
};

/* realdrive run with LD_PRELOAD=@preload (names in this test's own
 * directory, the build's tests/), its last line read. */
static struct counts drive(const char *preload)
{
	char self[PATH_MAX], cmd[3 * PATH_MAX + 64], line[512], *dir, *p;
	struct counts c = { 0 };
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	FILE *f;

	cr_assert(n > 0, "cannot read /proc/self/exe");
	self[n] = '\0';
	dir = self;
	p = strrchr(self, '/');
	cr_assert(p != NULL);
	*p = '\0';
	/* "probe other": each word a library of dir */
	snprintf(cmd, sizeof(cmd), "LD_PRELOAD='");
	for (const char *w = preload; *w;) {
		size_t len = strcspn(w, " ");

		snprintf(cmd + strlen(cmd), sizeof(cmd) - strlen(cmd),
			 "%s%s/%.*s.so", cmd[12] ? " " : "", dir, (int)len, w);
		w += len;
		w += *w == ' ';
	}
	snprintf(cmd + strlen(cmd), sizeof(cmd) - strlen(cmd),
		 "' '%s/realdrive'", dir);
	f = popen(cmd, "r");
	cr_assert(f != NULL, "cannot run %s", cmd);
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "differ ", 7) == 0)
			fprintf(stderr, "%s", line);
		sscanf(line, "checked %lu found %lu differ %lu in_other %lu",
		       &c.checked, &c.found, &c.differ, &c.other);
	}
	c.status = pclose(f);
	return c;
}

Test(real, equals_dlsym_alone)
{
	struct counts c = drive("realprobe");

	cr_assert_eq(c.status, 0, "realdrive failed (%d)", c.status);
	cr_assert_gt(c.checked, 100, "the table has %lu names", c.checked);
	cr_assert_eq(c.differ, 0, "%lu names differ (above)", c.differ);
	/* not an agreement on nothing: libc has nearly all of them */
	cr_assert_gt(c.found, c.checked * 9 / 10, "only %lu of %lu found",
		     c.found, c.checked);
	cr_assert_eq(c.other, 0);
}

Test(real, equals_dlsym_before_a_library_that_defines_them_all)
{
	struct counts c = drive("realprobe realother");

	cr_assert_eq(c.status, 0, "realdrive failed (%d)", c.status);
	cr_assert_eq(c.differ, 0, "%lu names differ (above)", c.differ);
	/* every one, versioned lookups too: an object without versions
	 * answers any version asked, as in glibc */
	cr_assert_eq(c.other, c.checked, "%lu of %lu in realother.so",
		     c.other, c.checked);
}

Test(real, equals_dlsym_after_a_library_that_defines_them_all)
{
	struct counts c = drive("realother realprobe");

	cr_assert_eq(c.status, 0, "realdrive failed (%d)", c.status);
	cr_assert_eq(c.differ, 0, "%lu names differ (above)", c.differ);
	cr_assert_eq(c.other, 0, "%lu found in the library before", c.other);
	cr_assert_gt(c.found, c.checked * 9 / 10);
}
