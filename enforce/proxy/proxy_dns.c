/*
 * proxy_dns.c - cordon's resolver inside the namespace of hosts allowed:
 * it answers on port 53 of the addresses /etc/resolv.conf names (and of
 * the loopback, where capture sends any other server's), over UDP and
 * TCP, from the proxy's loop.
 *
 * A name an --allow-host covers (exactly, or below a wildcard, on any
 * port) is resolved outside with the host's own resolver (the proxy's
 * threads, proxy_resolve.c), kept (proxy_names.c: so that a connection
 * to one of its addresses is known by it) and answered: A and AAAA with
 * the addresses, any other type with none.  Under a wildcard, no
 * special-purpose address or one of the host's own is given.  Every
 * other name is NXDOMAIN and a refusal (the record names --allow-host
 * NAME); a reverse name is answered from what was resolved, else
 * NXDOMAIN, with nothing said.  A name that does not resolve outside is
 * NXDOMAIN too, and one record saying the host's own network failed,
 * not the policy.  The messages are dnsmsg.c's.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <event2/buffer.h>

#include "enforce/base/base.h"
#include "enforce/proxy/dnsmsg.h"
#include "enforce/proxy/netclass.h"
#include "enforce/proxy/proxy_int.h"

#define DNS_TCP_MAX	32    /* TCP clients at once */
#define DNS_TCP_IDLE_MS 10000 /* a TCP client with no query */
#define DNS_PENDING_MAX 256   /* queries waiting for a name */
#define DNS_REPLY_MAX	4096  /* bytes of an answer, any transport */

/* A client of the resolver over TCP. */
struct dnstcp {
	struct dnstcp *prev, *next;
	struct proxy *px;
	struct bufferevent *bev;
};

/* A query waiting for its name to resolve. */
struct dnsq {
	struct dnsq *prev, *next;
	int fd;		    /* UDP: the socket to answer from */
	struct dnstcp *tcp; /* TCP: the client (NULL once gone) */
	struct sockaddr_storage from;
	socklen_t fromlen;
	struct dns_query q;
	enum proxy_verdict verdict;
};

/* Where an answer goes. */
struct reply_to {
	int fd;
	struct dnstcp *tcp;
	const struct sockaddr_storage *from;
	socklen_t fromlen;
};

static void send_answer(const struct reply_to *to, const uint8_t *msg, long len)
{
	uint8_t hdr[2];

	if (len <= 0)
		return;
	if (to->tcp) {
		hdr[0] = (uint8_t)(len >> 8);
		hdr[1] = (uint8_t)len;
		bufferevent_write(to->tcp->bev, hdr, 2);
		bufferevent_write(to->tcp->bev, msg, (size_t)len);
		return;
	}
	sendto(to->fd, msg, (size_t)len, MSG_DONTWAIT | MSG_NOSIGNAL,
	       (const struct sockaddr *)to->from, to->fromlen);
}

static void answer(const struct reply_to *to, const struct dns_query *q,
		   int rcode, const struct sockaddr_storage *addrs, size_t n)
{
	static uint8_t out[DNS_REPLY_MAX];
	size_t cap = dnsmsg_limit(q, to->tcp != NULL);

	if (cap > sizeof(out))
		cap = sizeof(out);
	send_answer(to, out,
		    dnsmsg_answer(q, rcode, addrs, n, NAMES_TTL, out, cap));
}

/* How the rules take @name, whatever the port. */
static enum proxy_verdict verdict_of(struct proxy *px, const char *name)
{
	enum proxy_verdict best = PROXY_DENY, v;
	struct proxy_target t;

	memset(&t, 0, sizeof(t));
	if (strlen(name) >= sizeof(t.host))
		return PROXY_DENY;
	memcpy(t.host, name, strlen(name) + 1);
	for (size_t i = 0; i < px->pol.nrules && best != PROXY_EXACT; i++) {
		if (px->pol.rules[i].is_ip)
			continue;
		t.port = px->pol.rules[i].port ? px->pol.rules[i].port : 443;
		v = proxy_match(px->pol.rules, px->pol.nrules, &t);
		if (v == PROXY_EXACT ||
		    (v == PROXY_WILDCARD && best == PROXY_DENY))
			best = v;
	}
	return best;
}

static void refused(struct proxy *px, const char *name, const char *rule)
{
	char allow[PROXY_HOST_MAX + 32];
	json_t *more, *rec;

	proxy_stats_add(px, 0, true);
	if (!px->record)
		return;
	snprintf(allow, sizeof(allow), "with --allow-host %s", name);
	more = json_pack("{s:s, s:s, s:s}", "destination", name, "allow", allow,
			 "layer", "kernel");
	rec = record_new(RECORD_KERNEL, "lookup", "deny", rule, more);
	json_decref(more);
	if (rec)
		px->record(px->record_arg, rec);
}

/* Answer with @addrs (@n, or -errno), those a wildcard may reach. */
static void answer_addrs(struct proxy *px, const struct reply_to *to,
			 const struct dns_query *q, enum proxy_verdict v,
			 const struct sockaddr_storage *addrs, int n)
{
	struct sockaddr_storage keep[PROXY_ADDRS_MAX];
	char why[INET6_ADDRSTRLEN + 256];
	size_t k = 0;

	if (n <= 0) {
		proxy_upstream(px, q->name,
			       n == -ENOENT ? "the name does not resolve "
					      "outside the sandbox either"
					    : "the name could not be resolved "
					      "outside the sandbox");
		answer(to, q, n == -ENOENT ? ns_r_nxdomain : ns_r_servfail,
		       NULL, 0);
		return;
	}
	for (int i = 0; i < n; i++) {
		const struct sockaddr *sa = (const struct sockaddr *)&addrs[i];

		if (v == PROXY_WILDCARD &&
		    (netclass_special(sa) || proxy_is_own(px, sa)))
			continue;
		keep[k++] = addrs[i];
	}
	if (n > 0 && k == 0) {
		proxy_special_why(px, (const struct sockaddr *)&addrs[0], why,
				  sizeof(why));
		refused(px, q->name, why);
		answer(to, q, ns_r_nxdomain, NULL, 0);
		return;
	}
	answer(to, q, ns_r_noerror, keep, k);
}

static void reverse(struct proxy *px, const struct reply_to *to,
		    const struct dns_query *q, const struct sockaddr_storage *a)
{
	static uint8_t out[DNS_REPLY_MAX];
	const char *name =
		names_of_addr(px->names, (const struct sockaddr *)a, 0);
	size_t cap = dnsmsg_limit(q, to->tcp != NULL);

	if (cap > sizeof(out))
		cap = sizeof(out);
	if (!name || q->qtype != ns_t_ptr) {
		answer(to, q, name ? ns_r_noerror : ns_r_nxdomain, NULL, 0);
		return;
	}
	send_answer(to, out, dnsmsg_answer_ptr(q, name, NAMES_TTL, out, cap));
}

static void dq_free(struct proxy *px, struct dnsq *dq);

/* A query kept for later (its name resolving, or asked about), or NULL
 * (too many, or out of memory). */
static struct dnsq *dq_new(struct proxy *px, const struct reply_to *to,
			   const struct dns_query *q, enum proxy_verdict v)
{
	struct dnsq *dq = px->dns_pending < DNS_PENDING_MAX
				  ? calloc(1, sizeof(*dq))
				  : NULL;

	if (!dq)
		return NULL;
	dq->fd = to->fd;
	dq->tcp = to->tcp;
	if (to->from) {
		dq->from = *to->from;
		dq->fromlen = to->fromlen;
	}
	dq->q = *q;
	dq->verdict = v;
	dq->next = px->dnsqs;
	if (px->dnsqs)
		px->dnsqs->prev = dq;
	px->dnsqs = dq;
	px->dns_pending++;
	return dq;
}

/* @dq's name to the resolver threads.  Return: 0, or -ENOMEM (@dq
 * freed). */
static int dq_resolve(struct proxy *px, struct dnsq *dq)
{
	struct job *j = calloc(1, sizeof(*j));

	if (!j) {
		dq_free(px, dq);
		return -ENOMEM;
	}
	j->dq = dq;
	snprintf(j->host, sizeof(j->host), "%s", dq->q.name);
	j->port = 443;
	resolver_submit(px->resolver, j);
	return 0;
}

void dns_asked(struct proxy *px, struct dnsq *dq, bool yes)
{
	struct reply_to to = { dq->fd, dq->tcp, &dq->from, dq->fromlen };
	bool there = dq->fd >= 0 || dq->tcp;

	if (yes) {
		dq->verdict = verdict_of(px, dq->q.name);
		if (dq_resolve(px, dq) < 0 && there)
			answer(&to, &dq->q, ns_r_servfail, NULL, 0);
		return;
	}
	refused(px, dq->q.name, "a name no --allow-host names");
	if (there)
		answer(&to, &dq->q, ns_r_nxdomain, NULL, 0);
	dq_free(px, dq);
}

/* The port the query came from, inside: its UDP source port, or its
 * TCP connection's (*@udp false); 0 when unknown. */
static unsigned int asker_port(const struct reply_to *to, bool *udp)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	const struct sockaddr_storage *a = to->from;

	*udp = !to->tcp;
	if (to->tcp) {
		int fd = bufferevent_getfd(to->tcp->bev);

		if (fd < 0 || getpeername(fd, (struct sockaddr *)&ss, &len) < 0)
			return 0;
		a = &ss;
	}
	if (!a)
		return 0;
	if (a->ss_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)a)->sin_port);
	if (a->ss_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)a)->sin6_port);
	return 0;
}

static void query(struct proxy *px, const struct reply_to *to,
		  const uint8_t *msg, size_t len)
{
	static uint8_t out[64];
	struct sockaddr_storage addrs[PROXY_ADDRS_MAX], rev;
	struct dns_query q;
	enum proxy_verdict v;
	struct dnsq *dq;
	int ret = dnsmsg_parse(msg, len, &q), n;
	unsigned int port;
	bool udp;

	if (ret == -EINVAL) {
		send_answer(
			to, out,
			dnsmsg_error(msg, len, ns_r_formerr, out, sizeof(out)));
		return;
	}
	if (ret) {
		answer(to, &q, q.rcode, NULL, 0);
		return;
	}
	if (dnsmsg_is_reverse(&q, &rev)) {
		reverse(px, to, &q, &rev);
		return;
	}
	v = verdict_of(px, q.name);
	if (v == PROXY_DENY && px->pol.ask &&
	    (q.qtype == ns_t_a || q.qtype == ns_t_aaaa)) {
		dq = dq_new(px, to, &q, v);
		port = asker_port(to, &udp);
		if (dq && proxy_ask_name(px, dq, q.name, port, udp))
			return; /* answered once the user has */
		if (dq)
			dq_free(px, dq);
	}
	if (v == PROXY_DENY) {
		refused(px, q.name, "a name no --allow-host names");
		answer(to, &q, ns_r_nxdomain, NULL, 0);
		return;
	}
	if (q.qtype != ns_t_a && q.qtype != ns_t_aaaa) {
		answer(to, &q, ns_r_noerror, NULL, 0); /* no such data */
		return;
	}
	n = names_get(px->names, q.name, addrs);
	if (n) {
		answer_addrs(px, to, &q, v, addrs, n);
		return;
	}
	dq = dq_new(px, to, &q, v);
	if (!dq || dq_resolve(px, dq) < 0)
		answer(to, &q, ns_r_servfail, NULL, 0);
}

static void dq_free(struct proxy *px, struct dnsq *dq)
{
	if (dq->prev)
		dq->prev->next = dq->next;
	else
		px->dnsqs = dq->next;
	if (dq->next)
		dq->next->prev = dq->prev;
	px->dns_pending--;
	free(dq);
}

void dns_resolved(struct proxy *px, struct job *j)
{
	struct dnsq *dq = j->dq;
	struct reply_to to = { dq->fd, dq->tcp, &dq->from, dq->fromlen };

	if (j->n != 0)
		names_put(px->names, j->host, j->addrs, j->n);
	if (dq->fd >= 0 || dq->tcp)
		answer_addrs(px, &to, &dq->q, dq->verdict, j->addrs, j->n);
	dq_free(px, dq);
}

static void on_udp(evutil_socket_t fd, short what, void *arg)
{
	static uint8_t buf[DNSMSG_TCP_MAX];
	struct sockaddr_storage from;

	(void)what;
	/* a burst, bounded: the loop serves the rest next round */
	for (int i = 0; i < 32; i++) {
		socklen_t len = sizeof(from);
		ssize_t n = recvfrom(fd, buf, sizeof(buf), MSG_DONTWAIT,
				     (struct sockaddr *)&from, &len);
		struct reply_to to = { fd, NULL, &from, len };

		if (n < 0)
			return;
		query(arg, &to, buf, (size_t)n);
	}
}

static void tcp_free(struct dnstcp *t)
{
	struct proxy *px = t->px;

	for (struct dnsq *dq = px->dnsqs; dq; dq = dq->next)
		if (dq->tcp == t)
			dq->tcp = NULL;
	if (t->prev)
		t->prev->next = t->next;
	else
		px->dnstcps = t->next;
	if (t->next)
		t->next->prev = t->prev;
	bufferevent_free(t->bev);
	free(t);
}

static void tcp_read(struct bufferevent *bev, void *arg)
{
	static uint8_t msg[DNSMSG_TCP_MAX];
	struct dnstcp *t = arg;
	struct evbuffer *in = bufferevent_get_input(bev);
	struct reply_to to = { -1, t, NULL, 0 };
	uint8_t hdr[2];
	size_t len;

	while (evbuffer_copyout(in, hdr, 2) == 2) {
		len = (size_t)hdr[0] << 8 | hdr[1];
		if (evbuffer_get_length(in) < len + 2)
			return;
		evbuffer_drain(in, 2);
		evbuffer_remove(in, msg, len);
		query(t->px, &to, msg, len);
	}
}

static void tcp_event(struct bufferevent *bev, short what, void *arg)
{
	(void)bev;
	(void)what;
	tcp_free(arg);
}

static size_t count_tcp(struct proxy *px)
{
	size_t n = 0;

	for (struct dnstcp *t = px->dnstcps; t; t = t->next)
		n++;
	return n;
}

static void on_tcp(struct evconnlistener *l, evutil_socket_t fd,
		   struct sockaddr *sa, int salen, void *arg)
{
	struct proxy *px = arg;
	struct timeval idle = { DNS_TCP_IDLE_MS / 1000, 0 };
	struct dnstcp *t;

	(void)l;
	(void)sa;
	(void)salen;
	t = count_tcp(px) < DNS_TCP_MAX ? calloc(1, sizeof(*t)) : NULL;
	if (t)
		t->bev = bufferevent_socket_new(px->base, fd,
						BEV_OPT_CLOSE_ON_FREE);
	if (!t || !t->bev) {
		free(t);
		close(fd);
		return;
	}
	t->px = px;
	t->next = px->dnstcps;
	if (px->dnstcps)
		px->dnstcps->prev = t;
	px->dnstcps = t;
	bufferevent_setcb(t->bev, tcp_read, NULL, tcp_event, t);
	bufferevent_setwatermark(t->bev, EV_READ, 0, DNSMSG_TCP_MAX + 2);
	bufferevent_set_timeouts(t->bev, &idle, &idle);
	bufferevent_enable(t->bev, EV_READ | EV_WRITE);
}

int dns_start(struct proxy *px)
{
	size_t n = 0;

	for (size_t i = 0; i < px->pol.nsocks; i++)
		n += px->pol.socks[i].kind == PROXY_SOCK_DNS_UDP;
	px->dns_ev = calloc(n + 1, sizeof(*px->dns_ev));
	if (!px->dns_ev)
		return -ENOMEM;
	for (size_t i = 0; i < px->pol.nsocks; i++) {
		const struct proxy_socket *s = &px->pol.socks[i];

		evutil_make_socket_nonblocking(s->fd);
		if (s->kind == PROXY_SOCK_DNS_UDP) {
			struct event *ev =
				event_new(px->base, s->fd, EV_READ | EV_PERSIST,
					  on_udp, px);

			if (!ev || event_add(ev, NULL))
				return -ENOMEM;
			px->dns_ev[px->ndns++] = ev;
		} else if (s->kind == PROXY_SOCK_DNS_TCP &&
			   px->ndns_tcp < PROXY_DNS_TCP_LST) {
			px->dns_tcp[px->ndns_tcp] = evconnlistener_new(
				px->base, on_tcp, px,
				LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC,
				0, s->fd);
			if (!px->dns_tcp[px->ndns_tcp])
				return -ENOMEM;
			px->ndns_tcp++;
		}
	}
	return 0;
}

void dns_stop(struct proxy *px)
{
	for (size_t i = 0; i < px->ndns_tcp; i++)
		evconnlistener_free(px->dns_tcp[i]);
	px->ndns_tcp = 0;
	while (px->dnstcps)
		tcp_free(px->dnstcps);
	while (px->dnsqs)
		dq_free(px, px->dnsqs);
	for (size_t i = 0; i < px->ndns; i++) {
		close(event_get_fd(px->dns_ev[i]));
		event_free(px->dns_ev[i]);
	}
	free(px->dns_ev);
	px->dns_ev = NULL;
	px->ndns = 0;
}
