/*
 * learn_net.c - `cordon learn`: the network a run used, from its
 * records (learn.c says how it is folded into the profile).
 *
 *  - TCP ports into "connect" and "bind", UDP ones as "udp:PORT" (the
 *    shim names them so only where the kernel holds them); any other
 *    socket into "net";
 *  - a TCP connect to an address that a name looked up gave (beyond the
 *    loopback) into "allow_hosts", as that name ("NAME" for 80 and 443,
 *    else "NAME:PORT"); a name looked up and never connected to needs
 *    DNS: "net".  Hosts and "connect" ports cannot go together (hosts
 *    run in a network namespace of their own): both learned, "net".
 *
 * Every record is the command's to forge: a port is kept only when it
 * is one (decimal, 1..65535, or 0 to bind), a host only when it is an
 * exact --allow-host rule (never a wildcard).  Bounded: LEARN_PORTS of
 * each.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "enforce/learn/learn_check.h"
#include "enforce/learn/learn_net.h"
#include "enforce/proxy/proxy.h"

#define LEARN_PORTS 64

struct ports {
	unsigned int port[LEARN_PORTS];
	bool udp[LEARN_PORTS];
	size_t n;
};

static struct ports connect_ports, bind_ports;
static bool any_net;
/* "allow_hosts" learned, and the names looked up (each once) */
static json_t *hosts, *lookups;

static void add_name(json_t **set, const char *name)
{
	size_t i;
	json_t *v;

	if (!*set)
		*set = json_array();
	json_array_foreach(*set, i, v)
	{
		if (strcasecmp(json_string_value(v), name) == 0)
			return;
	}
	if (json_array_size(*set) < LEARN_PORTS)
		json_array_append_new(*set, json_string(name));
}

/* Is @name among the hosts learned ("NAME" or "NAME:PORT")? */
static bool is_host(const char *name)
{
	size_t i, n = strlen(name);
	json_t *v;

	json_array_foreach(hosts, i, v)
	{
		const char *h = json_string_value(v);

		if (strncasecmp(h, name, n) == 0 && (!h[n] || h[n] == ':'))
			return true;
	}
	return false;
}

/* @text, a port from a record ("443", "udp:53"), added to @set; false
 * when it is none. */
static bool add_port(struct ports *set, const char *text, bool bind)
{
	bool udp = strncmp(text, "udp:", 4) == 0;
	unsigned int port;

	if (!learn_port_parse(text + (udp ? 4 : 0), bind, &port))
		return false;
	for (size_t i = 0; i < set->n; i++)
		if (set->port[i] == port && set->udp[i] == udp)
			return true;
	if (set->n < LEARN_PORTS) {
		set->udp[set->n] = udp;
		set->port[set->n++] = port;
	}
	return true;
}

/* The option the shim names ("with --connect 443", "with --bind 0",
 * "with --net") says what allows it. */
bool learn_net_note(const char *dest, const char *allow, const char *op)
{
	const char *colon = strrchr(dest, ':');
	const char *c = allow ? strstr(allow, "--connect ") : NULL;
	const char *b = allow ? strstr(allow, "--bind ") : NULL;

	/* a name looked up (the shim's record says getaddrinfo): reached
	 * later by a connect, it is a host; else DNS, the network.  One
	 * cordon's resolver refused names its host (--allow-host NAME). */
	if (op &&
	    (strcmp(op, "lookup") == 0 || strcmp(op, "getaddrinfo") == 0) &&
	    !(allow && strncmp(allow, "with --allow-host ", 18) == 0)) {
		if (!proxy_host_parse(dest, strlen(dest), false,
				      &(struct proxy_target){ 0 }))
			add_name(&lookups, dest);
		else
			any_net = true;
		return true;
	}
	if (allow && strncmp(allow, "with --allow-host ", 18) == 0) {
		if (!learn_host_ok(allow + 18))
			return false;
		add_name(&hosts, allow + 18);
		return true;
	}
	if (c)
		return add_port(&connect_ports, c + 10, false);
	if (b)
		return add_port(&bind_ports, b + 7, true);
	if (allow || !colon) {
		any_net = true; /* not a TCP port: the network itself */
		return true;
	}
	if (op && strcmp(op, "bind") == 0)
		return add_port(&bind_ports, colon + 1, true);
	return add_port(&connect_ports, colon + 1, false);
}

static void put_ports(json_t *prof, const char *key, const struct ports *set)
{
	json_t *out = json_array();

	char udp[16];

	for (size_t i = 0; i < set->n; i++) {
		snprintf(udp, sizeof(udp), "udp:%u", set->port[i]);
		json_array_append_new(out,
				      set->udp[i] ? json_string(udp)
						  : json_integer(set->port[i]));
	}
	if (set->n)
		json_object_set(prof, key, out);
	json_decref(out);
}

void learn_net_put(json_t *prof, struct learn_net_sum *sum)
{
	size_t i;
	json_t *v;

	/* a name looked up and never reached needs DNS; hosts and ports
	 * to connect to cannot go together */
	json_array_foreach(lookups, i, v)
	{
		if (!is_host(json_string_value(v)))
			any_net = true;
	}
	if (json_array_size(hosts) && connect_ports.n)
		any_net = true;
	if (any_net) {
		json_object_set_new(prof, "net", json_true());
	} else {
		if (json_array_size(hosts))
			json_object_set(prof, "allow_hosts", hosts);
		put_ports(prof, "connect", &connect_ports);
		put_ports(prof, "bind", &bind_ports);
	}
	sum->ports = connect_ports.n + bind_ports.n;
	sum->hosts = json_array_size(hosts);
	sum->net = any_net;
}
