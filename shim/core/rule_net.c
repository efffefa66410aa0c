/*
 * rule_net.c - why the policy refuses a port: the words of the shim's
 * lines for TCP and UDP, and of `cordon explain --connect` (rule.h).
 * Allocates nothing; async-signal-safe.
 */
#include "shim/core/rule.h"

#define PORTS_SHOWN 8

static void put_ports(struct strbuf *sb, const uint16_t *ports, size_t n)
{
	for (size_t i = 0; i < n && i < PORTS_SHOWN; i++) {
		sb_puts(sb, i ? ", " : " ");
		sb_uint(sb, ports[i]);
	}
	if (n > PORTS_SHOWN)
		sb_puts(sb, ", ...");
}

/* The words for a port of @proto ("TCP", "UDP") in the list @ports. */
static void put_port(struct strbuf *sb, const char *proto, bool bind,
		     unsigned int port, const uint16_t *ports, size_t n)
{
	const char *kind = bind ? "bind" : "connect";

	if (n == 0) {
		sb_puts(sb, "no ");
		sb_puts(sb, proto);
		sb_puts(sb, " ");
		sb_puts(sb, kind);
		sb_puts(sb, " port is allowed");
		return;
	}
	sb_puts(sb, proto);
	sb_puts(sb, " port ");
	sb_uint(sb, port);
	sb_puts(sb, " is not among the ");
	/* "the connect ports 443": TCP's words, as they always were */
	if (proto[0] == 'U')
		sb_puts(sb, "UDP ");
	sb_puts(sb, kind);
	sb_puts(sb, " ports");
	put_ports(sb, ports, n);
}

void rule_put_tcp(struct strbuf *sb, const struct policy *p, bool bind,
		  unsigned int port)
{
	if (p->net == NET_OFF)
		sb_puts(sb, "network is off");
	else if (p->net == NET_HOSTS)
		sb_puts(sb, RULE_PROXY_ONLY);
	else
		put_port(sb, "TCP", bind, port,
			 bind ? p->bind_ports : p->connect_ports,
			 bind ? p->nbind : p->nconnect);
}

void rule_put_udp(struct strbuf *sb, const struct policy *p, bool bind,
		  unsigned int port)
{
	if (p->net == NET_OFF)
		sb_puts(sb, "network is off");
	else
		put_port(sb, "UDP", bind, port,
			 bind ? p->bind_udp : p->connect_udp,
			 bind ? p->nbind_udp : p->nconnect_udp);
}
