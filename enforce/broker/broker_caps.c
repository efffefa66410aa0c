/*
 * broker_caps.c - what the broker's threads hold of the supervisor's
 * capabilities while they act for the command.
 *
 * The kernel checks a send's, a connect's or a listen's privileged parts
 * (credentials named in SCM_CREDENTIALS, SO_MARK, the descriptors in
 * flight past RLIMIT_NOFILE, ...) against the task that makes the call:
 * the broker's thread.  A supervisor run as root holds every capability
 * and the command none, so each worker clears its own effective set
 * (capset acts on the calling thread only) before its first call, and
 * keeps only CAP_SYS_PTRACE, which pidfd_getfd(), process_vm_readv()
 * and /proc/PID/root need when the command made itself non-dumpable and
 * which no socket call consults.  The permitted set is kept, so that
 * broker_caps_vouch() can raise, for one send, what the kernel needs to
 * carry credentials the broker checked were the caller's own
 * (broker_cmsg.c); for that send the kernel also lets its descriptors
 * in flight pass RLIMIT_NOFILE, should it carry SCM_RIGHTS as well (a
 * bound of memory, not of access).  Without CAP_DAC_OVERRIDE and
 * CAP_DAC_READ_SEARCH the broker's openat2 and connect also meet the file
 * permissions the command would meet.  The uid and groups are the command's
 * already.
 *
 * A supervisor run by a user has no capability in its own namespace,
 * and nothing to clear; it owns the command's user namespace, though,
 * and with it every capability in the command's network namespace,
 * which no capset drops: broker_cmsg.c refuses what would use them.
 */
#include <linux/capability.h>
#include <stdbool.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "enforce/broker/broker_int.h"

/* Has this worker cleared its effective set (broker_caps_drop())? */
static _Thread_local bool dropped;

static const int vouch[] = { CAP_SYS_ADMIN, CAP_SETUID, CAP_SETGID };

static int get(struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3])
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};

	return (int)syscall(SYS_capget, &h, d);
}

static int set(struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3])
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};

	return (int)syscall(SYS_capset, &h, d);
}

void broker_caps_drop(void)
{
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];

	if (get(d))
		return;
	for (int i = 0; i < _LINUX_CAPABILITY_U32S_3; i++)
		d[i].effective &= i == CAP_TO_INDEX(CAP_SYS_PTRACE)
					  ? CAP_TO_MASK(CAP_SYS_PTRACE)
					  : 0;
	dropped = set(d) == 0;
}

bool broker_caps_dropped(void)
{
	return dropped;
}

bool broker_caps_can_vouch(void)
{
	static _Thread_local int can = -1;
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];

	if (can < 0)
		can = !get(d) && (d[CAP_TO_INDEX(CAP_SYS_ADMIN)].permitted &
				  CAP_TO_MASK(CAP_SYS_ADMIN));
	return dropped && can;
}

void broker_caps_vouch(bool on)
{
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];
	bool any = false;

	if (!dropped || get(d))
		return;
	for (size_t i = 0; i < sizeof(vouch) / sizeof(vouch[0]); i++) {
		unsigned int at = CAP_TO_INDEX(vouch[i]);
		__u32 bit = CAP_TO_MASK(vouch[i]);

		if (!(d[at].permitted & bit))
			continue;
		any = true;
		if (on)
			d[at].effective |= bit;
		else
			d[at].effective &= ~bit;
	}
	if (any)
		set(d);
}
