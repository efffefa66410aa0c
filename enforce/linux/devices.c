/*
 * devices.c - the parts of /dev the command gets of its own, in its
 * mount namespace.
 *
 *  - /dev/shm: processes outside keep POSIX shared memory and
 *    semaphores there (shm_open, sem_open).  The command gets an empty
 *    tmpfs of its own, capped at half the memory like the usual host
 *    one, unless a root the user gave asks for the host's (--write
 *    /dev/shm, or a path above or below it).
 *  - /dev/pts: a new devpts instance (newinstance), and /dev/ptmx bound
 *    to its ptmx: the ptys the command opens are its own, and no other
 *    terminal of the user (another shell, an editor) can be opened by
 *    name, to type into it or read what is typed there.
 *  - The controlling terminal stays the command's: its descriptors and
 *    /dev/tty reach it as before; its node, whose /dev/pts name the new
 *    instance hides, is bound to /dev/console (as bubblewrap does), so
 *    that ttyname(3), tty(1) and programs that check the name of their
 *    terminal find it.  The node is taken from the descriptor 0, 1 or 2
 *    that is the controlling terminal; the policy grants that name only
 *    when there is one (devices_console_root(), in the launcher, which
 *    has the same descriptors and terminal as pid 1).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "enforce/linux/linux.h"
#include "enforce/base/base.h"
#include "shim/core/path.h"
#include "enforce/policy/policy.h"

#define SHM "/dev/shm"

/* Does a root the user gave lie at, above or below /dev/shm? */
static bool wants_host_shm(const struct policy *p)
{
	for (size_t i = 0; i < p->nroots; i++) {
		const struct root *r = &p->roots[i];

		if (r->origin == ORIGIN_USER && (path_is_within(r->path, SHM) ||
						 path_is_within(SHM, r->path)))
			return true;
	}
	return false;
}

static bool has_console_root(const struct policy *p)
{
	for (size_t i = 0; i < p->nroots; i++)
		if (p->roots[i].origin == ORIGIN_DEFAULT &&
		    strcmp(p->roots[i].path, DEVICES_CONSOLE) == 0)
			return true;
	return false;
}

/* The controlling terminal's device (field 7 of /proc/self/stat), or
 * 0 when there is none. */
static dev_t ctty(void)
{
	struct procfs_stat st;

	return procfs_stat(0, &st) == 0 ? (dev_t)st.tty : 0;
}

/* Which of 0, 1, 2 is the controlling terminal itself (the node in
 * /dev/pts, not /dev/tty, which only stands for it); -1 for none. */
static int ctty_fd(void)
{
	dev_t dev = ctty();
	struct stat st;

	for (int fd = 0; dev && fd <= 2; fd++)
		if (fstat(fd, &st) == 0 && S_ISCHR(st.st_mode) &&
		    st.st_rdev == dev)
			return fd;
	return -1;
}

/*
 * Bind the controlling terminal over DEVICES_CONSOLE, before the new
 * devpts instance hides its name.  A descriptor opened in the mount
 * namespace outside cannot be the source of a bind here: its name is
 * looked up again (as mount(8) does), and must lead to the same
 * device.  When it does not (a terminal from a devpts mounted nowhere
 * here), /dev/null takes the name: granted to the command, it must
 * never be the host's console.
 */
static int bind_console(void)
{
	char self[32], name[PATH_BUF];
	const char *source = "/dev/null";
	int fd = ctty_fd();
	struct stat st;
	ssize_t n;

	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	n = fd < 0 ? -1 : readlink(self, name, sizeof(name) - 1);
	if (n > 0) {
		name[n] = '\0';
		if (stat(name, &st) == 0 && S_ISCHR(st.st_mode) &&
		    st.st_rdev == ctty())
			source = name;
	}
	return mount(source, DEVICES_CONSOLE, NULL, MS_BIND, NULL);
}

int devices_setup(const struct policy *p, const char **step)
{
	*step = "make a /dev/shm of its own";
	if (!wants_host_shm(p) &&
	    mount("tmpfs", SHM, "tmpfs", MS_NOSUID | MS_NODEV,
		  "mode=1777,size=50%") < 0 &&
	    errno != ENOENT)
		return -1;
	*step = "bind the controlling terminal to " DEVICES_CONSOLE;
	if (has_console_root(p) && bind_console() < 0)
		return -1; /* never leave the name to the host's console */
	*step = "make a devpts instance of its own";
	if (mount("devpts", "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC,
		  "newinstance,ptmxmode=0666,mode=0620") < 0)
		return -1;
	*step = "bind /dev/ptmx to the new instance";
	return mount("/dev/pts/ptmx", "/dev/ptmx", NULL, MS_BIND, NULL);
}

int devices_console_root(struct policy *p)
{
	unsigned int rights = policy_rights(p, "/dev/tty");

	if (!(rights & RIGHT_W) || ctty_fd() < 0)
		return 0;
	return policy_add_root(p, DEVICES_CONSOLE, rights, ORIGIN_DEFAULT,
			       false);
}
