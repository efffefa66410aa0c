/*
 * nolandlock: run a command as if the kernel had no Landlock.
 *
 *   nolandlock [--errno ENOSYS|EOPNOTSUPP] -- COMMAND ARGS...
 *   nolandlock --no-namespaces -- COMMAND ARGS...
 *   nolandlock --no-mounts -- COMMAND ARGS...
 *   nolandlock --no-netns -- COMMAND ARGS...
 *
 * Sets no_new_privs and installs a seccomp filter that makes the three
 * Landlock system calls fail with the given errno (ENOSYS, the default, is
 * a kernel built without Landlock; EOPNOTSUPP one built with it but booted
 * without "landlock" in lsm=), then executes COMMAND.  With
 * --no-namespaces, Landlock works and unshare(), and clone() with a
 * CLONE_NEW* flag, fail with EPERM instead, as on a host that forbids
 * user namespaces.  With --no-mounts, the namespaces are made but
 * mount() fails with EPERM, as on a host that allows them and denies
 * mounts in them (AppArmor's restriction of unprivileged user
 * namespaces).  With --no-netns, only an unshare() or clone() asking
 * for a network namespace fails (EPERM), as where they are forbidden (a
 * container).  Every other system
 * call is allowed.  The filter is inherited by everything COMMAND starts.
 *
 * Exit status: 2 on misuse or if the filter cannot be installed; 126 or 127
 * (as env(1)) if COMMAND cannot be run; otherwise COMMAND's own status.
 */
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <seccomp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#define PROG "nolandlock"

/* Numbers from the unified syscall table, used if libseccomp is too old. */
#ifdef __SNR_landlock_create_ruleset
#define NR_LANDLOCK_CREATE_RULESET SCMP_SYS(landlock_create_ruleset)
#define NR_LANDLOCK_ADD_RULE	   SCMP_SYS(landlock_add_rule)
#define NR_LANDLOCK_RESTRICT_SELF  SCMP_SYS(landlock_restrict_self)
#else
#define NR_LANDLOCK_CREATE_RULESET 444
#define NR_LANDLOCK_ADD_RULE	   445
#define NR_LANDLOCK_RESTRICT_SELF  446
#endif

static void die(int status, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 2, 3)));

static void die(int status, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, PROG ": ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(status);
}

__attribute__((noreturn)) static void usage(void)
{
	die(2, "usage: " PROG " [--errno ENOSYS|EOPNOTSUPP] [--no-namespaces] "
	       "[--no-mounts] -- "
	       "COMMAND ARGS...");
}

static int parse_errno(const char *s)
{
	if (strcmp(s, "ENOSYS") == 0)
		return ENOSYS;
	if (strcmp(s, "EOPNOTSUPP") == 0)
		return EOPNOTSUPP;
	die(2, "bad errno '%s': want ENOSYS or EOPNOTSUPP", s);
}

static int no_namespaces, no_mounts, no_netns;

/* Returns the index in @argv of COMMAND; sets *@err. */
static int parse_args(int argc, char **argv, int *err)
{
	static const struct option longopts[] = {
		{ "errno", required_argument, NULL, 'e' },
		{ "no-namespaces", no_argument, NULL, 'n' },
		{ "no-mounts", no_argument, NULL, 'm' },
		{ "no-netns", no_argument, NULL, 'N' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	*err = ENOSYS;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:", longopts, NULL)) != -1) {
		switch (c) {
		case 'e':
			*err = parse_errno(optarg);
			break;
		case 'n':
			no_namespaces = 1;
			break;
		case 'm':
			no_mounts = 1;
			break;
		case 'N':
			no_netns = 1;
			break;
		case ':':
			die(2, "option %s needs an argument", argv[optind - 1]);
		default:
			if (optopt)
				die(2, "unknown option -%c", optopt);
			die(2, "unknown option %s", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		usage();
	return optind;
}

/* unshare(), and clone() with any flag that makes a namespace. */
static int refuse_namespaces(scmp_filter_ctx ctx)
{
	static const unsigned long flags[] = {
		CLONE_NEWUSER, CLONE_NEWNS,  CLONE_NEWPID,    CLONE_NEWNET,
		CLONE_NEWUTS,  CLONE_NEWIPC, CLONE_NEWCGROUP,
	};
	int rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(unshare),
				  0);

	for (size_t i = 0; rc == 0 && i < sizeof(flags) / sizeof(flags[0]); i++)
		rc = seccomp_rule_add(
			ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
			SCMP_A0(SCMP_CMP_MASKED_EQ, flags[i], flags[i]));
	return rc;
}

/* Returns 0 or -errno. */
/* unshare() and clone() asking for a network namespace; clone3, whose
 * flags are in memory, as a kernel without it. */
static int refuse_netns(scmp_filter_ctx ctx)
{
	int rc = seccomp_rule_add(
		ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(unshare), 1,
		SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_NEWNET, CLONE_NEWNET));

	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM),
				      SCMP_SYS(clone), 1,
				      SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_NEWNET,
					      CLONE_NEWNET));
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS),
				      SCMP_SYS(clone3), 0);
	return rc;
}

static int install_filter(int err)
{
	static const int nrs[] = {
		NR_LANDLOCK_CREATE_RULESET,
		NR_LANDLOCK_ADD_RULE,
		NR_LANDLOCK_RESTRICT_SELF,
	};
	scmp_filter_ctx ctx;
	size_t i;
	int rc = 0;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -errno;
	ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx)
		return -ENOMEM;
	if (no_namespaces)
		rc = refuse_namespaces(ctx);
	if (no_mounts)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM),
				      SCMP_SYS(mount), 0);
	if (no_netns)
		rc = refuse_netns(ctx);
	for (i = 0; !no_namespaces && !no_mounts && !no_netns &&
		    i < sizeof(nrs) / sizeof(nrs[0]) && rc == 0;
	     i++)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO((unsigned int)err),
				      nrs[i], 0);
	if (rc == 0)
		rc = seccomp_load(ctx);
	/* libseccomp reports a failed system call as -ECANCELED, errno set. */
	if (rc == -ECANCELED && errno)
		rc = -errno;
	seccomp_release(ctx);
	return rc;
}

int main(int argc, char **argv)
{
	int err, cmd, rc;

	cmd = parse_args(argc, argv, &err);
	rc = install_filter(err);
	if (rc < 0)
		die(2, "cannot install the seccomp filter: %s", strerror(-rc));
	execvp(argv[cmd], &argv[cmd]);
	rc = errno;
	die(rc == ENOENT ? 127 : 126, "cannot run '%s': %s", argv[cmd],
	    strerror(rc));
}
