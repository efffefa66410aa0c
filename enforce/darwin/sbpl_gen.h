/*
 * sbpl_gen.h - inside the Seatbelt profile generator: its state, the
 * writers (sbpl_write.c) that sbpl.c (the policy's rules) and
 * sbpl_base.c (the fixed rules every process needs) share, and the
 * fixed rules.  Only those three include it; the rest of cordon knows
 * sbpl.h.
 */
#ifndef CORDON_SBPL_GEN_H
#define CORDON_SBPL_GEN_H

#include <stdbool.h>
#include <stddef.h>

#include "shim/core/path.h"
#include "shim/core/policy.h"
#include "enforce/darwin/sbpl_host.h"
#include "shim/core/strbuf.h"

#define SBPL_PATH (PATH_BUF + 64) /* room for /tmp -> /private/tmp */

struct gen {
	const struct sbpl_host *h;
	const struct policy *orig;
	struct policy pol;	  /* the roots with their paths mapped */
	char (*paths)[SBPL_PATH]; /* where the mapped paths live */
	struct strbuf *out;
	char *err;
	size_t errlen;
	int ret; /* the first error */
};

/* sbpl_write.c: the first error, with @path and @why in g->err. */
void sbpl_fail(struct gen *g, int ret, const char *path, const char *why);
/* sbpl_write.c: @path as Seatbelt sees it (/tmp, /var and /etc are
 * links into /private on macOS).  Return: 0 or -errno. */
int sbpl_map(const struct sbpl_host *h, const char *path, char out[SBPL_PATH]);
/* sbpl_write.c: "(local unix-socket (subpath ...))" and the like, on a
 * line of its own (@line) or after the operations. */
void sbpl_socket_filter(struct gen *g, bool line, const char *side,
			const char *kind, const char *s);
/* sbpl_write.c: "(ACTION OPS", then a filter per line, then ")". */
void sbpl_open_rule(struct gen *g, const char *action, const char *ops);
void sbpl_next_filter(struct gen *g, const char *kind, const char *s);
void sbpl_close_rule(struct gen *g);
/* sbpl_write.c: a rule with one filter, on one line. */
void sbpl_rule(struct gen *g, const char *action, const char *ops,
	       const char *kind, const char *s);
/* sbpl_write.c: @path as Seatbelt matches it, in @buf (SBPL_PATH bytes); on
 * error "/" and g->ret set. */
const char *sbpl_host_path(struct gen *g, const char *path, char *buf);
/* sbpl_write.c: where /tmp leads on this host. */
const char *sbpl_tmp_of(const struct gen *g);

/* sbpl_base.c: the head of the profile and what every process needs,
 * whatever the policy (sysctls, services, system paths, terminal). */
void sbpl_base_put(struct gen *g);
/* sbpl_base.c: the @i-th fixed system path of sbpl_base_put(), or NULL
 * past the last. */
const char *sbpl_base_path(size_t i);

#endif
