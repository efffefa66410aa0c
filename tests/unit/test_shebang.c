/* Unit tests of shebang_read() (shim/core/shebang.c): the interpreter
 * of a script read from its first bytes, as the shim's exec hooks and
 * the launcher's exec message read it. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shim/core/shebang.h"

static char dir[64];

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/cordon-shebang-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
}

/* @rel in the test's directory, holding @text, with @mode. */
static const char *file(const char *rel, const char *text, mode_t mode)
{
	static char p[128];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, mode);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	cr_assert_eq(chmod(p, mode), 0);
	return p;
}

TestSuite(shebang, .init = setup, .fini = teardown);

Test(shebang, reads_the_interpreter)
{
	char buf[SHEBANG_BUF];

	cr_assert(shebang_read(
		AT_FDCWD, file("s", "#! /bin/sh -e\necho\n", 0755), 0, buf));
	cr_assert_str_eq(buf, "/bin/sh");
	cr_assert(shebang_read(AT_FDCWD, file("t", "#!./rel\tx\n", 0755), 0,
			       buf));
	cr_assert_str_eq(buf, "./rel");
}

Test(shebang, no_script_no_interpreter)
{
	char buf[SHEBANG_BUF];

	cr_assert_not(
		shebang_read(AT_FDCWD, file("e", "\177ELF", 0755), 0, buf));
	cr_assert_not(
		shebang_read(AT_FDCWD, file("n", "echo hi\n", 0755), 0, buf));
	cr_assert_not(shebang_read(AT_FDCWD, file("b", "#!\n", 0755), 0, buf));
	cr_assert_not(shebang_read(AT_FDCWD, "", 0, buf));
	cr_assert_not(shebang_read(AT_FDCWD, "/nonexistent/x", 0, buf));
}

Test(shebang, nofollow_refuses_a_link)
{
	char buf[SHEBANG_BUF], link[128];

	file("s", "#!/bin/sh\n", 0755);
	snprintf(link, sizeof(link), "%s/l", dir);
	cr_assert_eq(symlink("s", link), 0);
	cr_assert(shebang_read(AT_FDCWD, link, 0, buf));
	cr_assert_not(shebang_read(AT_FDCWD, link, O_NOFOLLOW, buf));
}
