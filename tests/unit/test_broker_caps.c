/* Unit tests of what a broker thread keeps of the supervisor's
 * capabilities (enforce/broker/broker_caps.c), on the real kernel: run as root
 * (make test does), every capability is there to be dropped. */
#include <criterion/criterion.h>
#include <linux/capability.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "enforce/broker/broker_int.h"

static __u64 effective(void)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];

	if (syscall(SYS_capget, &h, d))
		return ~0ull;
	return d[0].effective | (__u64)d[1].effective << 32;
}

#define BIT(c) (1ull << (c))

struct seen {
	__u64 before, dropped, vouching, after;
	bool ok;
};

static void *worker(void *arg)
{
	struct seen *s = arg;

	s->before = effective();
	broker_caps_drop();
	s->ok = broker_caps_dropped();
	s->dropped = effective();
	broker_caps_vouch(true);
	s->vouching = effective();
	broker_caps_vouch(false);
	s->after = effective();
	return NULL;
}

Test(broker_caps, a_worker_keeps_only_sys_ptrace_and_vouches_for_one_send)
{
	struct seen s = { 0 };
	pthread_t t;

	cr_assert_eq(pthread_create(&t, NULL, worker, &s), 0);
	pthread_join(t, NULL);
	cr_assert(s.ok);
	cr_assert_eq(s.dropped & ~BIT(CAP_SYS_PTRACE), 0);
	cr_assert_eq(s.dropped, s.before & BIT(CAP_SYS_PTRACE));
	if (s.before & BIT(CAP_SYS_ADMIN))
		cr_assert_eq(s.vouching, s.dropped | BIT(CAP_SYS_ADMIN) |
						 BIT(CAP_SETUID) |
						 BIT(CAP_SETGID));
	else
		cr_assert_eq(s.vouching, s.dropped);
	cr_assert_eq(s.after, s.dropped);
	/* the thread's alone: the process's other threads keep theirs */
	cr_assert_eq(effective(), s.before);
}
