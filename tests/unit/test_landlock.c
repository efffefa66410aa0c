/* Unit tests of the Landlock rights mapping and the feature table. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "shim/core/landlock.h"
#include "shim/core/landlock_uapi.h"

Test(landlock, read_is_files_and_listings)
{
	cr_assert_eq(landlock_fs_access(RIGHT_R, 7, true),
		     LL_FS_READ_FILE | LL_FS_READ_DIR);
	cr_assert_eq(landlock_fs_access(RIGHT_R, 7, false), LL_FS_READ_FILE);
}

Test(landlock, exec_is_separate_from_read)
{
	cr_assert_eq(landlock_fs_access(RIGHT_X, 7, true), LL_FS_EXECUTE);
	cr_assert_eq(landlock_fs_access(RIGHT_R, 7, true) & LL_FS_EXECUTE, 0);
}

Test(landlock, write_is_masked_to_the_abi)
{
	uint64_t w7 = landlock_fs_access(RIGHT_W, 7, true);
	uint64_t w1 = landlock_fs_access(RIGHT_W, 1, true);
	uint64_t w3 = landlock_fs_access(RIGHT_W, 3, true);

	cr_assert(w7 & LL_FS_REFER);
	cr_assert(w7 & LL_FS_TRUNCATE);
	cr_assert(w7 & LL_FS_IOCTL_DEV);
	cr_assert(w7 & LL_FS_MAKE_REG);
	cr_assert_eq(w1 & (LL_FS_REFER | LL_FS_TRUNCATE | LL_FS_IOCTL_DEV), 0);
	cr_assert(w3 & LL_FS_TRUNCATE);
	cr_assert_eq(w3 & LL_FS_IOCTL_DEV, 0);
}

Test(landlock, file_roots_get_file_rights_only)
{
	uint64_t f = landlock_fs_access(RIGHT_ALL, 7, false);

	cr_assert_eq(f, LL_FS_EXECUTE | LL_FS_WRITE_FILE | LL_FS_READ_FILE |
				LL_FS_TRUNCATE | LL_FS_IOCTL_DEV);
}

/* RESOLVE_UNIX (ABI 9): beneath a writable root and a --connect-unix
 * one, on a directory and on a socket file alike; no other right with
 * --connect-unix. */
Test(landlock, resolve_unix_from_abi_9)
{
	cr_assert(landlock_fs_access(RIGHT_W, 9, true) & LL_FS_RESOLVE_UNIX);
	cr_assert(landlock_fs_access(RIGHT_W, 9, false) & LL_FS_RESOLVE_UNIX);
	cr_assert_eq(landlock_fs_access(RIGHT_U, 9, true), LL_FS_RESOLVE_UNIX);
	cr_assert_eq(landlock_fs_access(RIGHT_U, 9, false), LL_FS_RESOLVE_UNIX);
	cr_assert_eq(landlock_fs_access(RIGHT_R | RIGHT_X, 9, true) &
			     LL_FS_RESOLVE_UNIX,
		     0);
	cr_assert_eq(landlock_fs_access(RIGHT_W | RIGHT_U, 8, true) &
			     LL_FS_RESOLVE_UNIX,
		     0);
	cr_assert_eq(landlock_fs_access(RIGHT_U, 8, true), 0);
}

static const struct feature none;

static const struct feature *find(const struct feature_set *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (strstr(s->f[i].name, name))
			return &s->f[i];
	cr_assert_fail("no feature named '%s'", name);
	return &none;
}

Test(landlock, features_per_abi)
{
	struct policy p = { .net = NET_OFF };
	struct feature_set s = { .n = 0 };

	landlock_features(&p, 3, &s);
	cr_assert(find(&s, "truncation")->available);
	cr_assert(!find(&s, "TCP")->available);
	cr_assert(find(&s, "TCP")->needed);
	/* ptrace is confined from ABI 1 */
	cr_assert(find(&s, "ptrace")->available);
	/* alone (no guarantee names another row), each missing right is
	 * a reason to refuse: TCP, device ioctls, the 2 scopes, pathname
	 * UNIX sockets and UDP */
	cr_assert_eq(feature_missing(&s), 6);
}

Test(landlock, network_on_needs_no_tcp_rules)
{
	struct policy p = { .net = NET_ON };
	struct feature_set s = { .n = 0 };

	landlock_features(&p, 3, &s);
	cr_assert(!find(&s, "TCP")->needed);
}

Test(landlock, audit_is_advisory)
{
	struct policy p = { .net = NET_OFF };
	struct feature_set s = { .n = 0 };

	landlock_features(&p, 6, &s);
	cr_assert(!find(&s, "audit")->available);
	cr_assert(!feature_alone_missing(&s, find(&s, "audit")));
	/* what ABI 6 lacks and refuses alone: RESOLVE_UNIX and UDP */
	cr_assert_eq(feature_missing(&s), 2);
	/* TSYNC and the quiet flags: advisory, and never noted at a run */
	cr_assert(!feature_alone_missing(&s, find(&s, "TSYNC")));
	cr_assert(!find(&s, "TSYNC")->needed);
	cr_assert(!find(&s, "out of the audit")->needed);
}

Test(landlock, no_landlock_misses_everything_needed)
{
	struct policy p = { .net = NET_ON };
	struct feature_set s = { .n = 0 };

	landlock_features(&p, -38, &s);
	cr_assert_eq(feature_missing(&s), 7);
	cr_assert(!feature_layer_ok(&s, "landlock"));
}

/* Why a kernel has no Landlock, for the failure below. */
static const char *why_no_landlock(int abi)
{
	if (abi == -ENOSYS)
		return "the kernel is built without CONFIG_SECURITY_LANDLOCK";
	if (abi == -EOPNOTSUPP)
		return "Landlock is built in but not enabled at boot (add it "
		       "to the lsm= kernel parameter)";
	return "the probe itself failed (a seccomp filter of a container?)";
}

/* The active security modules, as the kernel lists them. */
static const char *lsm_list(void)
{
	static char buf[256];
	FILE *f = fopen("/sys/kernel/security/lsm", "re");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

	if (f)
		fclose(f);
	buf[n] = '\0';
	return n ? buf : "(unreadable)";
}

/*
 * This project's machines run Landlock (ABI 7 here), and cordon's kernel
 * layer stands on it: a kernel without it fails this test, with the
 * reason, rather than skipping it.  The ABI is asked a second time with
 * the raw system call, so that landlock_abi() is held to the kernel's
 * answer.
 */
Test(landlock, the_running_kernel_has_landlock)
{
	int abi = landlock_abi();
	long raw = syscall(__NR_landlock_create_ruleset, NULL, 0,
			   LL_CREATE_RULESET_VERSION);

	cr_assert_geq(abi, 1,
		      "no Landlock here: landlock_abi() = %d (%s): %s; active "
		      "security modules: %s",
		      abi, strerror(-abi), why_no_landlock(abi), lsm_list());
	cr_assert_eq(abi, raw, "landlock_abi() = %d, the kernel says %ld", abi,
		     raw);
}
