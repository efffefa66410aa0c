/*
 * hostgate.c - --allow-host in a run (hostgate.h).
 *
 * With hosts allowed the command gets a network namespace of its own
 * whose only interface is the loopback: no route out, no name server,
 * whatever a program does (a static binary, a raw system call, a client
 * that ignores the proxy variables).  Before the rest of the boundary
 * goes on, pid 1 raises that loopback and listens on 127.0.0.1:3128
 * there; the platform gate hands the socket to the supervisor (by
 * number, as the broker's listener: sockgate.c), which serves it with
 * the proxy from threads of its own.  The supervisor sits in the host's
 * namespace: it resolves and connects outside, and the listening
 * socket, made inside, is reached from nowhere else.  pid 1 keeps no
 * copy once it is handed over.
 *
 * Names are matched as the command asked for them; which names are
 * refused although listed (a wildcard's name that resolves to the
 * host's own, loopback or private addresses) is proxy_rules.c's rule.
 */
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "enforce/linux/linux.h"
#include "enforce/proxy/proxy.h"
#include "shim/core/strbuf.h"

/* Destinations whose refusal was printed: a client that retries is one
 * line; past this many, the records go on and the lines stop. */
#define LINES_KEPT 64
#define SAID_MAX   (PROXY_HOST_MAX + 24)

struct hostgate {
	struct proxy *proxy;
	void (*record)(void *arg, json_t *rec);
	void *arg;
	bool quiet;
	pthread_mutex_t mu;
	char said[LINES_KEPT][SAID_MAX];
	size_t nsaid;
};

static int (*asker)(const char *spec, unsigned int client_port, bool udp);

void hostgate_ask(int (*ask)(const char *spec, unsigned int client_port,
			     bool udp))
{
	asker = ask;
}

static int ask_thunk(void *arg, const char *spec, unsigned int client_port,
		     bool udp)
{
	(void)arg;
	return asker(spec, client_port, udp);
}

void hostgate_features(const struct policy *p, bool netns_ok, const char *needs,
		       struct feature_set *s)
{
	feature_add(s, (struct feature){
			       .layer = "hosts",
			       .name = FEATURE_HOSTS,
			       .needs = needs,
			       .needed = p->net == NET_HOSTS,
			       .available = netns_ok,
		       });
}

int hostgate_listen(char *err, size_t errlen)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(POLICY_PROXY_PORT),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct ifreq ifr = { .ifr_name = "lo" };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), ret = 0;

	if (fd < 0) {
		ret = -errno;
	} else if (ioctl(fd, SIOCGIFFLAGS, &ifr) < 0) {
		ret = -errno;
	} else {
		ifr.ifr_flags |= IFF_UP;
		if (ioctl(fd, SIOCSIFFLAGS, &ifr) < 0 ||
		    bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
		    listen(fd, SOMAXCONN) < 0)
			ret = -errno;
	}
	if (!ret)
		return fd;
	snprintf(err, errlen,
		 "cannot listen for the proxy in the network namespace: %s",
		 strerror(-ret));
	if (fd >= 0)
		close(fd);
	return ret;
}

/* Printed once per destination; the caller holds g->mu. */
static bool first_time(struct hostgate *g, const char *dest)
{
	for (size_t i = 0; i < g->nsaid; i++)
		if (strcmp(g->said[i], dest) == 0)
			return false;
	if (g->nsaid == LINES_KEPT)
		return false;
	snprintf(g->said[g->nsaid++], sizeof(g->said[0]), "%s", dest);
	return true;
}

/* "cordon: denied connect HOST:PORT [proxy] (RULE); allow with
 * --allow-host HOST:PORT": the proxy's record, in the shim's words.  The
 * host was parsed by the proxy (a name's letters, or an IP literal) and
 * is escaped all the same. */
size_t hostgate_line(const json_t *rec, char *buf, size_t cap)
{
	const char *dest =
		json_string_value(json_object_get(rec, "destination"));
	const char *rule = json_string_value(json_object_get(rec, "rule"));
	const char *allow = json_string_value(json_object_get(rec, "allow"));
	const char *op = json_string_value(json_object_get(rec, "operation"));
	const char *error = json_string_value(json_object_get(rec, "error"));
	bool lookup = op && strcmp(op, "lookup") == 0;
	struct strbuf sb = STRBUF(buf, cap - 1);

	if (!dest || cap < 3)
		return 0;
	if (json_is_true(json_object_get(rec, "upstream"))) {
		/* "cordon: pypi.org:443 is allowed, but the host's own
		 * network cannot reach it (Connection refused): not the
		 * policy" */
		if (!error)
			return 0;
		sb_puts(&sb, "cordon: ");
		sb_escape(&sb, dest, SB_TERM, PROXY_HOST_MAX + 8);
		sb_puts(&sb, " is allowed, but the host's own network failed "
			     "it (");
		sb_escape(&sb, error, SB_TERM, 256);
		sb_puts(&sb, "): not the policy");
	} else {
		if (!rule || !allow)
			return 0;
		sb_puts(&sb, lookup ? "cordon: denied lookup "
				    : "cordon: denied connect ");
		sb_escape(&sb, dest, SB_TERM, PROXY_HOST_MAX + 8);
		sb_puts(&sb, lookup ? " [resolver] (" : " [proxy] (");
		sb_escape(&sb, rule, SB_TERM, 512);
		sb_puts(&sb, "); allow ");
		sb_escape(&sb, allow, SB_TERM, PROXY_HOST_MAX + 32);
	}
	buf[sb.len++] = '\n';
	buf[sb.len] = '\0'; /* within @cap: the text stopped short by one */
	return sb.len;
}

static void say(const json_t *rec)
{
	char line[1024];
	size_t len = hostgate_line(rec, line, sizeof(line));
	ssize_t w;

	do
		w = write(STDERR_FILENO, line, len);
	while (w < 0 && errno == EINTR);
}

static void on_refusal(void *arg, json_t *rec)
{
	struct hostgate *g = arg;
	const char *dest =
		json_string_value(json_object_get(rec, "destination"));

	bool upstream = json_is_true(json_object_get(rec, "upstream"));
	char key[SAID_MAX - 2];

	/* one line per destination and kind: a refusal, a failure */
	snprintf(key, sizeof(key), "%s%s", upstream ? "!" : "",
		 dest ? dest : "");
	pthread_mutex_lock(&g->mu);
	if (!g->quiet && dest && first_time(g, key))
		say(rec);
	pthread_mutex_unlock(&g->mu);
	/* a failure outside is no denial: said, not recorded as one */
	if (upstream) {
		json_decref(rec);
		return;
	}
	g->record(g->arg, rec);
}

int hostgate_serve(int listen_fd, struct netcap *nc, const struct policy *p,
		   void (*record)(void *arg, json_t *rec), void *arg,
		   void **handle)
{
	struct proxy_rule *rules = calloc(p->nhosts + 1, sizeof(*rules));
	struct hostgate *g = calloc(1, sizeof(*g));
	struct proxy_policy pol = { .rules = rules,
				    .nrules = p->nhosts,
				    .socks = nc->socks,
				    .nsocks = nc->n,
				    .ask = asker ? ask_thunk : NULL };
	struct rlimit lim;
	sigset_t all, old;
	int ret = rules && g ? 0 : -ENOMEM;

	for (size_t i = 0; !ret && i < p->nhosts; i++)
		ret = proxy_rule_parse(p->hosts[i],
				       &rules[i]); /* cli_parse.c's */
	if (ret) {
		close(listen_fd);
		free(rules);
		free(g);
		return ret;
	}
	/* each tunnel holds two sockets and two pipes (four descriptors):
	 * the soft limit up to the hard one, for PROXY_CONNS_MAX of them */
	if (getrlimit(RLIMIT_NOFILE, &lim) == 0 &&
	    lim.rlim_cur < lim.rlim_max && lim.rlim_cur < 8 * PROXY_CONNS_MAX) {
		lim.rlim_cur = lim.rlim_max < 8 * PROXY_CONNS_MAX
				       ? lim.rlim_max
				       : 8 * PROXY_CONNS_MAX;
		setrlimit(RLIMIT_NOFILE, &lim);
	}
	g->record = record;
	g->arg = arg;
	g->quiet = p->quiet;
	pthread_mutex_init(&g->mu, NULL);
	/* the proxy's threads take no signal: the supervisor's own does
	 * (a forwarded Ctrl-C) */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = proxy_start(&g->proxy, listen_fd, &pol, on_refusal, g);
	nc->n = 0; /* taken */
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	free(rules); /* copied */
	if (ret) {
		pthread_mutex_destroy(&g->mu);
		free(g);
		return ret;
	}
	*handle = g;
	return 0;
}

void hostgate_stop(void *handle)
{
	struct hostgate *g = handle;

	if (!g)
		return;
	proxy_stop(g->proxy);
	pthread_mutex_destroy(&g->mu);
	free(g);
}
