/*
 * guarantee.c - the decision: which guarantees of the policy are held
 * on this host, by what, and what would hold the others (feature.h).
 *
 * A guarantee is held when any one of its rows (mechanisms) is
 * available and used (needed) for this policy: defense in depth where
 * several are, the one left where
 * the kernel lacks the others.  Counting rows instead would refuse a
 * kernel whose Landlock lacks a right that a namespace holds anyway.
 */
#include <stdio.h>
#include <string.h>

#include "shim/core/feature.h"

/* The layers in a user's words. */
static const struct {
	const char *layer, *words;
} mechanisms[] = {
	{ "landlock", "Landlock" },
	{ "mount", "the mount namespace" },
	{ "pid", "the PID namespace" },
	{ "ipc", "the IPC namespace" },
	{ "net", "the network namespace" },
	{ "hosts", "the network namespace" },
	{ "seccomp", "the seccomp filter" },
	{ "broker", "the broker" },
	{ "caps", "the capability drop" },
	{ "seatbelt", "Seatbelt" },
};

const char *feature_mechanism(const struct feature *f)
{
	for (size_t i = 0; i < sizeof(mechanisms) / sizeof(mechanisms[0]); i++)
		if (strcmp(f->layer, mechanisms[i].layer) == 0)
			return mechanisms[i].words;
	return f->layer;
}

bool guarantee_held(const struct feature_set *s, const struct guarantee *g)
{
	for (size_t k = 0; k < GUARANTEE_BY_MAX; k++) {
		const struct feature *f = feature_find(s, g->by[k]);

		if (f && f->available && f->needed)
			return true;
	}
	return false;
}

bool guarantee_missing(const struct feature_set *s, const struct guarantee *g)
{
	return g->needed && !guarantee_held(s, g);
}

static bool listed(const char **words, size_t n, const char *w)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(words[i], w) == 0)
			return true;
	return false;
}

size_t guarantee_holders(const struct feature_set *s, const struct guarantee *g,
			 const char **words, size_t max)
{
	size_t n = 0;

	for (size_t k = 0; k < GUARANTEE_BY_MAX && n < max; k++) {
		const struct feature *f = feature_find(s, g->by[k]);

		if (f && f->available && f->needed &&
		    !listed(words, n, feature_mechanism(f)))
			words[n++] = feature_mechanism(f);
	}
	return n;
}

/* One mechanism of @f as guarantee_would() names it, into @out. */
static void would_one(const struct feature *f, char *out, size_t len)
{
	const char *words = feature_mechanism(f);

	/* Landlock's rows say it themselves: "Landlock ABI 3 (...)" */
	if (strncmp(f->needs, words, strlen(words)) == 0)
		snprintf(out, len, "%s", f->needs);
	else
		snprintf(out, len, "%s (%s)", words, f->needs);
}

const char *guarantee_join(const char *const *words, size_t n, const char *last,
			   char *out, size_t len)
{
	size_t at = 0;

	out[0] = '\0';
	for (size_t i = 0; i < n && at < len; i++)
		at += (size_t)snprintf(out + at, len - at, "%s%s",
				       i == 0	    ? ""
				       : i == n - 1 ? last
						    : ", ",
				       words[i]);
	return out;
}

const char *guarantee_would(const struct feature_set *s,
			    const struct guarantee *g, char *out, size_t len)
{
	char one[GUARANTEE_BY_MAX][256];
	const char *word[GUARANTEE_BY_MAX];
	size_t n = 0;

	for (size_t k = 0; k < GUARANTEE_BY_MAX; k++) {
		const struct feature *f = feature_find(s, g->by[k]);

		if (!f || !f->needs)
			continue;
		would_one(f, one[n], sizeof(one[n]));
		if (!listed(word, n, one[n])) {
			word[n] = one[n];
			n++;
		}
	}
	return guarantee_join(word, n, " or ", out, len);
}

bool guarantee_serves(const struct guarantee *g, const struct feature *f)
{
	for (size_t k = 0; k < GUARANTEE_BY_MAX; k++)
		if (g->by[k] && strcmp(g->by[k], f->name) == 0)
			return true;
	return false;
}

bool feature_alone_missing(const struct feature_set *s, const struct feature *f)
{
	if (!f->needed || f->advisory || f->available)
		return false;
	for (size_t i = 0; i < s->ng; i++)
		if (guarantee_serves(&s->g[i], f))
			return false;
	return true;
}

bool feature_stood_in(const struct feature_set *s, const struct feature *f)
{
	bool some = false;

	if (f->available)
		return false;
	for (size_t i = 0; i < s->ng; i++) {
		if (!s->g[i].needed || !guarantee_serves(&s->g[i], f))
			continue;
		if (!guarantee_held(s, &s->g[i]))
			return false;
		some = true;
	}
	return some;
}

/* The reasons to refuse: the needed guarantees nothing holds, and the
 * needed rows that hold no guarantee and are missing. */
size_t feature_missing(const struct feature_set *s)
{
	size_t n = 0;

	for (size_t i = 0; i < s->ng; i++)
		n += guarantee_missing(s, &s->g[i]);
	for (size_t i = 0; i < s->n; i++)
		n += feature_alone_missing(s, &s->f[i]);
	return n;
}
