/*
 * test_rmtree.c - rmtree_at() (enforce/base/rmtree.c): it removes a tree,
 * follows no symbolic link at any depth (planted, or swapped in while
 * it walks), stays out of another mount, removes directories of the
 * owner's that lack u+rwx, and walks a tree deeper than PATH_MAX
 * without recursion.  Each tree lives in a fresh dir under /tmp; the
 * victim outside it must keep its content.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <ftw.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "enforce/base/base.h"
#include "tests/unit/tmptree.h"

static char base[64];
static int basefd = -1;

static void setup(void)
{
	snprintf(base, sizeof(base), "/tmp/cordon-rmtree-XXXXXX");
	cr_assert_not_null(mkdtemp(base));
	basefd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert(basefd >= 0);
	cr_assert_eq(mkdirat(basefd, "t", 0700), 0);
	cr_assert_eq(mkdirat(basefd, "outside", 0700), 0);
	cr_assert_eq(mkdirat(basefd, "outside/keep", 0700), 0);
}

static void teardown(void)
{
	char cmd[128];

	if (basefd >= 0)
		close(basefd);
	/* what a test made unreadable, then the rest */
	snprintf(cmd, sizeof(cmd), "chmod -R u+rwx %s 2>/dev/null", base);
	if (system(cmd) < 0)
		return;
	tmptree_remove(base);
}

TestSuite(rmtree, .init = setup, .fini = teardown);

static void mk_dir(const char *rel)
{
	cr_assert_eq(mkdirat(basefd, rel, 0700), 0, "mkdir %s", rel);
}

static void mk_file(const char *rel, const char *text)
{
	int fd = openat(basefd, rel, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
			0600);

	cr_assert(fd >= 0, "create %s", rel);
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static void mk_link(const char *target, const char *rel)
{
	cr_assert_eq(symlinkat(target, basefd, rel), 0, "symlink %s", rel);
}

static bool exists(const char *rel)
{
	struct stat st;

	return fstatat(basefd, rel, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

/* The victims outside the tree: each still there, with its content. */
static void victims_intact(void)
{
	static const char *const v[] = { "outside/victim",
					 "outside/keep/victim" };
	char buf[32];

	for (size_t i = 0; i < 2; i++) {
		int fd = openat(basefd, v[i], O_RDONLY | O_CLOEXEC);
		ssize_t n;

		cr_assert(fd >= 0, "%s was removed", v[i]);
		n = read(fd, buf, sizeof(buf));
		close(fd);
		cr_assert_eq(n, 6);
		cr_assert_eq(memcmp(buf, "secret", 6), 0);
	}
}

static void plant_victims(void)
{
	mk_file("outside/victim", "secret");
	mk_file("outside/keep/victim", "secret");
}

Test(rmtree, removes_a_tree_of_files_links_and_directories)
{
	struct rmtree_left left;

	mk_dir("t/a");
	mk_dir("t/a/b");
	mk_dir("t/a/b/c");
	mk_dir("t/empty");
	mk_file("t/f", "x");
	mk_file("t/a/b/c/f", "x");
	mk_link("/nonexistent", "t/a/dangling");
	cr_assert_eq(mkfifoat(basefd, "t/a/b/fifo", 0600), 0);
	cr_assert_eq(rmtree_at(basefd, "t", &left), 0);
	cr_assert_eq(left.n, 0);
	cr_assert(!exists("t"));
	/* nothing there: nothing to do */
	cr_assert_eq(rmtree_at(basefd, "t", &left), 0);
	cr_assert_eq(rmtree_at(basefd, "t", NULL), 0);
}

Test(rmtree, follows_no_symbolic_link_at_any_depth)
{
	char out[PATH_MAX];

	plant_victims();
	snprintf(out, sizeof(out), "%s/outside", base);
	mk_dir("t/a");
	mk_dir("t/a/b");
	mk_link(out, "t/l0");
	mk_link(out, "t/a/l1");
	mk_link(out, "t/a/b/l2");
	mk_link("../../../outside/victim", "t/a/b/lv");
	cr_assert_eq(rmtree_at(basefd, "t", NULL), 0);
	cr_assert(!exists("t"));
	victims_intact();
	cr_assert(exists("outside/keep"));
	/* the top itself a link: the link goes, not what it names */
	mk_link(out, "t");
	cr_assert_eq(rmtree_at(basefd, "t", NULL), 0);
	cr_assert(!exists("t"));
	victims_intact();
}

/* ---- a directory swapped for a link while the walk runs ------------- */

struct swapper {
	int dirfd;
	atomic_bool stop;
	unsigned long swaps;
};

/* Exchanges t/dN with x/lN (a link to outside/) as fast as it can. */
static void *swap_loop(void *arg)
{
	struct swapper *s = arg;
	char d[32], l[32];

	while (!atomic_load(&s->stop))
		for (int i = 0; i < 64 && !atomic_load(&s->stop); i++) {
			snprintf(d, sizeof(d), "t/d%d", i);
			snprintf(l, sizeof(l), "x/l%d", i);
			if (syscall(SYS_renameat2, s->dirfd, d, s->dirfd, l,
				    RENAME_EXCHANGE) == 0)
				s->swaps++;
		}
	return NULL;
}

static bool victim_there(void)
{
	char buf[16];
	int fd = openat(basefd, "outside/keep/victim", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf));

	if (fd >= 0)
		close(fd);
	return n == 6 && memcmp(buf, "secret", 6) == 0;
}

static int nftw_rm_one(const char *path, const struct stat *st, int type,
		       struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (type == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

/* The removal modes.c made before rmtree_at(): nftw, by path. */
static void nftw_remove(void)
{
	char t[PATH_MAX];

	snprintf(t, sizeof(t), "%s/t", base);
	nftw(t, nftw_rm_one, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

static struct rmtree_left last_left;
static int last_ret;

static void rmtree_remove(void)
{
	last_ret = rmtree_at(basefd, "t", &last_left);
}

/*
 * Up to @rounds times: t/d0..63 (each holding a file "victim"), removed
 * by @remove while a thread exchanges each dN with x/lN, a link to
 * outside/keep (which holds the victim).  Return: the round in which
 * the victim went, or -1; the swaps made in *@swaps.
 */
static int race(void (*remove)(void), int rounds, unsigned long *swaps)
{
	char out[PATH_MAX], rel[64];

	snprintf(out, sizeof(out), "%s/outside/keep", base);
	*swaps = 0;
	for (int round = 0; round < rounds; round++) {
		struct swapper s = { .dirfd = basefd };
		pthread_t th;

		mk_dir("x");
		for (int i = 0; i < 64; i++) {
			snprintf(rel, sizeof(rel), "t/d%d", i);
			mk_dir(rel);
			snprintf(rel, sizeof(rel), "t/d%d/victim", i);
			mk_file(rel, "ours");
			snprintf(rel, sizeof(rel), "x/l%d", i);
			mk_link(out, rel);
		}
		cr_assert_eq(pthread_create(&th, NULL, swap_loop, &s), 0);
		remove();
		atomic_store(&s.stop, true);
		pthread_join(th, NULL);
		*swaps += s.swaps;
		if (!victim_there())
			return round;
		/* rmtree_at: all gone but what the swaps carried away, or
		 * what it left said (a name swapped each time it looked) */
		cr_assert(remove == nftw_remove || !exists("t") ||
			  (last_ret < 0 && last_left.n > 0));
		/* what the swaps carried out of the tree */
		rmtree_at(basefd, "t", NULL);
		rmtree_at(basefd, "x", NULL);
		mk_dir("t");
	}
	return -1;
}

Test(rmtree, a_directory_swapped_for_a_link_during_the_walk_is_not_followed,
     .timeout = 120)
{
	unsigned long swaps;

	plant_victims();
	cr_assert_eq(race(rmtree_remove, 60, &swaps), -1);
	cr_assert_gt(swaps, 1000, "the race never ran: %lu swaps", swaps);
	victims_intact();
}

/* The twin: the same race wins against the removal by path. */
Test(rmtree, twin_the_same_swap_makes_a_removal_by_path_delete_the_victim,
     .timeout = 120)
{
	unsigned long swaps;
	int round;

	plant_victims();
	round = race(nftw_remove, 60, &swaps);
	cr_assert_neq(round, -1, "nftw kept the victim: %lu swaps", swaps);
	cr_log_info("nftw deleted the victim in round %d", round);
}

/* ---- another mount inside the tree ---------------------------------- */

static int write_proc(const char *what, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int write_proc(const char *what, const char *fmt, ...)
{
	char path[64], buf[64];
	va_list ap;
	int fd, n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	snprintf(path, sizeof(path), "/proc/self/%s", what);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = write(fd, buf, (size_t)n) == n ? 0 : -1;
	close(fd);
	return n;
}

/* In a child of its own mount namespace: a tmpfs at t/a/m holding a
 * file; the walk must leave it.  Exit 0: it did; 77: no namespace. */
static int mount_child(bool bind)
{
	struct rmtree_left left;
	char m[PATH_MAX], src[PATH_MAX];
	int fd;

	uid_t uid = geteuid();
	gid_t gid = getegid();

	if (unshare(CLONE_NEWNS | (uid ? CLONE_NEWUSER : 0)) < 0)
		return 77;
	if (uid && (write_proc("setgroups", "deny") ||
		    write_proc("uid_map", "%u %u 1", uid, uid) ||
		    write_proc("gid_map", "%u %u 1", gid, gid)))
		return 77;
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return 77;
	snprintf(m, sizeof(m), "%s/t/a/m", base);
	snprintf(src, sizeof(src), "%s/outside/keep", base);
	if (bind ? mount(src, m, NULL, MS_BIND, NULL)
		 : mount("tmpfs", m, "tmpfs", 0, "size=1m"))
		return 77;
	/* the mounts of this namespace are seen from its own descriptor */
	close(basefd);
	basefd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (basefd < 0)
		return 2;
	if (!bind) {
		fd = openat(basefd, "t/a/m/victim",
			    O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
		if (fd < 0 || write(fd, "secret", 6) != 6)
			return 2;
		close(fd);
	}
	if (rmtree_at(basefd, "t", &left) == 0 || left.n == 0)
		return 3;
	if (!exists("t/a/m/victim") || exists("t/f") || exists("t/a/f"))
		return 4;
	if (bind ? left.err != EXDEV && left.err != EBUSY : left.err != EXDEV)
		return 5;
	return 0;
}

static void stops_at_a_mount(bool bind)
{
	pid_t pid;
	int status;

	mk_dir("t/a");
	mk_dir("t/a/m");
	mk_file("t/f", "x");
	mk_file("t/a/f", "x");
	mk_file("outside/keep/victim", "secret");
	pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0)
		_exit(mount_child(bind));
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status));
	if (WEXITSTATUS(status) == 77)
		cr_skip_test("no mount namespace here");
	cr_assert_eq(WEXITSTATUS(status), 0, "child: %d", WEXITSTATUS(status));
}

Test(rmtree, stops_at_a_mount_of_another_file_system)
{
	stops_at_a_mount(false);
}

Test(rmtree, leaves_a_bind_mount_and_what_it_shows)
{
	stops_at_a_mount(true);
	mk_file("outside/victim", "secret");
	victims_intact();
}

/* ---- what the owner may not write or search ------------------------- */

Test(rmtree, removes_directories_of_the_owner_that_lack_write_or_search)
{
	struct rmtree_left left;

	mk_dir("t/ro");
	mk_dir("t/ro/sub");
	mk_file("t/ro/f", "x");
	mk_file("t/ro/sub/f", "x");
	mk_dir("t/none");
	mk_file("t/none/f", "x");
	cr_assert_eq(fchmodat(basefd, "t/ro/sub", 0500, 0), 0);
	cr_assert_eq(fchmodat(basefd, "t/ro", 0555, 0), 0);
	cr_assert_eq(fchmodat(basefd, "t/none", 0, 0), 0);
	cr_assert_eq(rmtree_at(basefd, "t", &left), 0, "left %zu: %s %s",
		     left.n, left.name, strerror(left.err));
	cr_assert(!exists("t"));
}

/* ---- depth ---------------------------------------------------------- */

Test(rmtree, removes_a_tree_deeper_than_path_max_without_recursion,
     .timeout = 120)
{
	int fd = openat(basefd, "t", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	cr_assert(fd >= 0);
	/* 20,000 levels: 80 KB of path, far past PATH_MAX */
	for (int i = 0; i < 20000; i++) {
		int next;

		cr_assert_eq(mkdirat(fd, "dir", 0700), 0);
		next = openat(fd, "dir", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		cr_assert(next >= 0);
		close(fd);
		fd = next;
	}
	close(fd);
	cr_assert_eq(rmtree_at(basefd, "t", NULL), 0);
	cr_assert(!exists("t"));
}
