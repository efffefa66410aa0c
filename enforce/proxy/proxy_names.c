/*
 * proxy_names.c - what the proxy's names resolved to outside (proxy_int.h),
 * kept on the loop's thread for two uses: the resolver inside answers a
 * name again from it for NAMES_TTL seconds, and a captured connection
 * that carries no name (ssh, a database's protocol) is decided by the
 * name its address came from.  Bounded: NAMES_MAX names, the oldest
 * replaced; an address stays known until its name is replaced, longer
 * than its answer is fresh, since clients keep answers of their own.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "enforce/proxy/proxy_int.h"

struct name_entry {
	char host[PROXY_HOST_MAX];
	struct sockaddr_storage addrs[PROXY_ADDRS_MAX];
	int n; /* addresses, or -ENOENT */
	time_t at;
};

struct names {
	struct name_entry e[NAMES_MAX];
	size_t used, next;
};

static time_t now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

struct names *names_new(void)
{
	return calloc(1, sizeof(struct names));
}

void names_free(struct names *n)
{
	free(n);
}

static struct name_entry *find(struct names *n, const char *host)
{
	for (size_t i = 0; i < n->used; i++)
		if (strcmp(n->e[i].host, host) == 0)
			return &n->e[i];
	return NULL;
}

int names_get(struct names *n, const char *host, struct sockaddr_storage *out)
{
	struct name_entry *e = find(n, host);

	if (!e || now() - e->at >= NAMES_TTL)
		return 0;
	if (e->n > 0)
		memcpy(out, e->addrs, (size_t)e->n * sizeof(*out));
	return e->n;
}

void names_put(struct names *n, const char *host,
	       const struct sockaddr_storage *addrs, int count)
{
	struct name_entry *e = find(n, host);

	if (count > PROXY_ADDRS_MAX)
		count = PROXY_ADDRS_MAX;
	/* a failed lookup forgets no address a client may still hold */
	if (e && count <= 0 && e->n > 0)
		return;
	if (!e) {
		if (n->used < NAMES_MAX) {
			e = &n->e[n->used++];
		} else {
			e = &n->e[n->next];
			n->next = (n->next + 1) % NAMES_MAX;
		}
		memset(e, 0, sizeof(*e));
		strncpy(e->host, host, sizeof(e->host) - 1);
	}
	e->n = count > 0 ? count : -ENOENT;
	if (count > 0)
		memcpy(e->addrs, addrs, (size_t)count * sizeof(*addrs));
	e->at = now();
}

static bool holds(const struct name_entry *e, const struct sockaddr *sa)
{
	for (int k = 0; k < e->n; k++)
		if (proxy_addr_same((const struct sockaddr *)&e->addrs[k], sa))
			return true;
	return false;
}

const char *names_of_addr(struct names *n, const struct sockaddr *sa, size_t i)
{
	for (size_t k = 0; k < n->used; k++)
		if (holds(&n->e[k], sa) && i-- == 0)
			return n->e[k].host;
	return NULL;
}

bool names_holds(struct names *n, const char *host, const struct sockaddr *sa)
{
	struct name_entry *e = find(n, host);

	return e && holds(e, sa);
}
