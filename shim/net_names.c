/*
 * net_names.c - the names a process looked up (net_names.h), while
 * learning or with the network off or hosts allowed.
 *
 * A ring of slots, each a name and the first addresses of its answer.
 * A writer takes a slot with an atomic counter and publishes it by its
 * sequence number (even: stable), so a reader that races a writer
 * reusing the slot sees the number change and skips it: no lock, which
 * a connect in a signal handler could not take.  A name lost when more
 * than NAMES_KEPT were looked up is learned (or told) as its port.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>

#include "shim/net_names.h"

#define NAMES_KEPT 64
#define ADDRS_KEPT 8
#define NAME_MAX_  256

struct slot {
	unsigned long seq; /* odd while written */
	char name[NAME_MAX_];
	unsigned char addr[ADDRS_KEPT][16]; /* IPv4 in the first 4 bytes */
	unsigned char family[ADDRS_KEPT];
	size_t n;
};

static struct slot ring[NAMES_KEPT];
static unsigned long taken;

/* The bytes of @sa's address (16 for IPv6, 4 for IPv4), or NULL. */
static const unsigned char *addr_of(const struct sockaddr *sa, size_t *len)
{
	if (sa->sa_family == AF_INET) {
		*len = 4;
		return (const unsigned char *)&((const struct sockaddr_in *)sa)
			->sin_addr;
	}
	if (sa->sa_family == AF_INET6) {
		*len = 16;
		return ((const struct sockaddr_in6 *)sa)->sin6_addr.s6_addr;
	}
	return NULL;
}

/* An address written out ("192.0.2.2", "::1"): no name to tell. */
static bool is_numeric(const char *node)
{
	unsigned char buf[16];

	return inet_pton(AF_INET, node, buf) == 1 ||
	       inet_pton(AF_INET6, node, buf) == 1;
}

void net_names_note(const char *node, const struct addrinfo *res)
{
	size_t nlen = node ? strlen(node) : 0;
	struct slot *s;
	unsigned long seq;

	if (!nlen || nlen >= NAME_MAX_ || !res || is_numeric(node))
		return;
	s = &ring[__atomic_fetch_add(&taken, 1, __ATOMIC_RELAXED) % NAMES_KEPT];
	seq = __atomic_load_n(&s->seq, __ATOMIC_RELAXED);
	if (seq & 1)
		return; /* another writer holds it: this name is lost */
	if (!__atomic_compare_exchange_n(&s->seq, &seq, seq + 1, false,
					 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return;
	memcpy(s->name, node, nlen + 1);
	s->n = 0;
	for (const struct addrinfo *a = res; a && s->n < ADDRS_KEPT;
	     a = a->ai_next) {
		size_t len;
		const unsigned char *b =
			a->ai_addr ? addr_of(a->ai_addr, &len) : NULL;

		if (!b)
			continue;
		memset(s->addr[s->n], 0, sizeof(s->addr[0]));
		memcpy(s->addr[s->n], b, len);
		s->family[s->n++] = (unsigned char)a->ai_family;
	}
	__atomic_store_n(&s->seq, seq + 2, __ATOMIC_RELEASE);
}

bool net_names_find(const struct sockaddr_storage *ss, char *name, size_t len)
{
	unsigned char want[16] = { 0 };
	size_t alen;
	const unsigned char *b = addr_of((const struct sockaddr *)ss, &alen);

	if (!b || len == 0)
		return false;
	memcpy(want, b, alen);
	/* the newest first: two names of one address, the last asked */
	for (unsigned long k = 0,
			   top = __atomic_load_n(&taken, __ATOMIC_RELAXED);
	     k < NAMES_KEPT; k++) {
		struct slot *s = &ring[(top - 1 - k) % NAMES_KEPT];
		unsigned long seq = __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE);
		bool hit = false;
		char copy[NAME_MAX_];

		if (seq == 0 || (seq & 1))
			continue;
		for (size_t j = 0; j < s->n && j < ADDRS_KEPT && !hit; j++)
			hit = s->family[j] == ss->ss_family &&
			      memcmp(s->addr[j], want, sizeof(want)) == 0;
		if (!hit)
			continue;
		memcpy(copy, s->name, sizeof(copy));
		copy[sizeof(copy) - 1] = '\0';
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&s->seq, __ATOMIC_RELAXED) != seq)
			continue; /* rewritten under us */
		if (strlen(copy) >= len)
			return false;
		memcpy(name, copy, strlen(copy) + 1);
		return true;
	}
	return false;
}
