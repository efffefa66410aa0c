/*
 * peek.h - what the transparent egress proxy learns from the first bytes
 * a client in the sandbox sent on a captured TCP connection, read
 * without taking them (the caller peeks with MSG_PEEK and the bytes stay
 * for the server): the server_name of a TLS ClientHello, or the Host of
 * an HTTP/1.x request head.  TLS is never looked into further.  Pure: no
 * I/O, no allocation, no state (peek.c).
 */
#ifndef CORDON_PEEK_H
#define CORDON_PEEK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "enforce/proxy/proxy.h"

#define PEEK_MAX 16384 /* bytes the caller peeks at most */

enum peek_kind {
	PEEK_MORE,  /* not enough bytes yet to say */
	PEEK_TLS,   /* a TLS ClientHello; a name when it has a host_name */
	PEEK_HTTP,  /* an HTTP/1.x request head; a name from Host or URI */
	PEEK_OTHER, /* neither, or TLS or HTTP too malformed to trust */
};

struct peek_result {
	enum peek_kind kind;
	bool has_name;		    /* false: target all zero */
	struct proxy_target target; /* by proxy_host_parse(): lower case */
};

/**
 * peek_classify - what the @len bytes at @buf (the first a client sent;
 * past PEEK_MAX, the first PEEK_MAX of them) begin, into @r.
 *
 * PEEK_TLS: one or more handshake records (record version 0x0300 to
 * 0x0304) that carry a whole ClientHello, every vector of it within its
 * container and filling it.  The name is its one host_name (server_name
 * extension, RFC 6066; an ECH outer ClientHello's, as it is): never an
 * IP literal (RFC 6066 forbids them: no name), port 0.
 *
 * PEEK_HTTP: "METHOD SP target SP HTTP/1.0|1.1 CRLF" (METHOD 1 to 20
 * upper-case letters; target "/...", "*" or "http://host[:port]..."),
 * header lines up to the empty line.  The name is the absolute URI's
 * host, else Host's: a name or an IP literal (is_ip set; IPv6 in
 * brackets), port as given, else 0.
 *
 * PEEK_OTHER, at the first byte that rules both out: another protocol;
 * a malformed record or ClientHello (a length past its container or
 * short of it, a second server_name or host_name, a host_name that is
 * no host name); a request line or header outside that grammar (blanks
 * before a colon, obs-fold, a bare CR or LF, a control byte); a Host or
 * URI host that is no host[:port]; two Host, or Host and the URI, that
 * name different hosts or ports (a missing port taken as 80); no whole
 * ClientHello or head within PEEK_MAX bytes.
 *
 * PEEK_MORE while @len < PEEK_MAX and the bytes could still begin
 * either: a prefix of a PEEK_TLS or PEEK_HTTP input is PEEK_MORE or the
 * same kind.
 */
void peek_classify(const uint8_t *buf, size_t len, struct peek_result *r);

#endif
