/*
 * proxy_ask.c - --ask in the proxy (proxy_int.h): a connection or a
 * name about to be refused waits while the owner's ask() (the
 * supervisor's question on the terminal, enforce/run/ask.c) runs in a
 * thread of its own; a yes adds the rule for the rest of the run and the
 * decision is made again, a no (or no answer in PROXY_ASK_MS) refuses
 * it as it would have been.  A connection is asked about once.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "enforce/proxy/proxy_int.h"

int proxy_rule_add(struct proxy *px, const char *spec)
{
	struct proxy_rule r, *more;

	if (proxy_rule_parse(spec, &r))
		return -EINVAL;
	more = realloc(px->rules, (px->pol.nrules + 1) * sizeof(*more));
	if (!more)
		return -ENOMEM;
	more[px->pol.nrules++] = r;
	px->rules = more;
	px->pol.rules = more;
	return 0;
}

static struct job *ask_job(const char *spec)
{
	struct job *j = calloc(1, sizeof(*j));

	if (j) {
		j->ask = true;
		snprintf(j->host, sizeof(j->host), "%s", spec);
	}
	return j;
}

bool proxy_ask_conn(struct conn *c)
{
	struct job *j;
	char spec[PROXY_HOST_MAX];

	if (!c->px->pol.ask || !c->redo || c->asked || c->job)
		return false;
	proxy_allow_format(&c->target, spec, sizeof(spec));
	j = ask_job(spec);
	if (!j)
		return false;
	j->client_port = conn_client_port(c);
	c->asked = true;
	c->phase = P_ASKING;
	j->conn = c;
	c->job = j;
	bufferevent_disable(c->client, EV_READ);
	conn_arm(c, PROXY_ASK_MS);
	resolver_submit(c->px->asker, j);
	return true;
}

bool proxy_ask_name(struct proxy *px, struct dnsq *dq, const char *name,
		    unsigned int client_port, bool udp)
{
	struct job *j;

	if (!px->pol.ask)
		return false;
	j = ask_job(name);
	if (!j)
		return false;
	j->dq = dq;
	j->client_port = (uint16_t)client_port;
	j->client_udp = udp;
	resolver_submit(px->asker, j);
	return true;
}

void proxy_asked(struct proxy *px, struct job *j)
{
	bool yes = j->n > 0 && proxy_rule_add(px, j->host) == 0;
	struct conn *c = j->conn;

	if (j->dq) {
		dns_asked(px, j->dq, yes);
		return;
	}
	if (!c)
		return; /* gone while asked */
	c->job = NULL;
	if (yes) {
		bufferevent_enable(c->client, EV_READ);
		c->redo(c);
		return;
	}
	c->redo = NULL;
	conn_refuse(c, c->why[0] ? c->why : "a host no --allow-host names");
}
