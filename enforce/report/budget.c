/*
 * budget.c - what each source of records may write to the audit log
 * (budget.h): the limits per source, the records written kept to tell a
 * repeat, the counts of what was not written, and the record that says
 * them.
 *
 * Everything a record holds here came from inside (a path the command
 * connected to, a host it asked for): a repeat is told by comparing the
 * whole text, never a hash alone, and the hash is keyed with a secret
 * of the run's (SipHash), so that no command can choose names that
 * collide to slow the supervisor down.  The table holds only what was
 * written, so it is bounded by the limits it enforces.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "enforce/report/report.h"
#include "enforce/base/base.h"

static const struct limit {
	const char *name;
	size_t records, bytes;
	bool compared; /* a repeat is counted, not written */
} limits[BUDGET_SOURCES] = {
	[BUDGET_SHIM] = { "shim", BUDGET_SHIM_RECORDS, BUDGET_SHIM_BYTES,
			  false },
	[BUDGET_BROKER] = { "broker", BUDGET_OWN_RECORDS, BUDGET_OWN_BYTES,
			    true },
	[BUDGET_PROXY] = { "proxy", BUDGET_OWN_RECORDS, BUDGET_OWN_BYTES,
			   true },
	[BUDGET_LISTEN] = { "listen", BUDGET_OWN_RECORDS, BUDGET_OWN_BYTES,
			    true },
	[BUDGET_LAUNCHER] = { "launcher", BUDGET_OWN_RECORDS, BUDGET_OWN_BYTES,
			      true },
};

/* The fields that make a record the same as another, in this order. */
static const char *const key_fields[] = { "operation", "path", "resolved",
					  "destination", "variable" };
#define NKEY (sizeof(key_fields) / sizeof(key_fields[0]))

struct budget_key {
	uint64_t hash;
	size_t times; /* made: the one written and its repeats */
	uint32_t call;
	enum budget_source src;
	size_t len;
	char text[]; /* the key fields, each ending in a NUL */
};

void budget_init(struct budget *b, unsigned int scale)
{
	memset(b, 0, sizeof(*b));
	b->scale = scale ? scale : 1;
	if (getentropy(b->seed, sizeof(b->seed)) < 0)
		b->seed[0] = (uint64_t)(uintptr_t)b; /* still compared whole */
}

void budget_free(struct budget *b)
{
	for (size_t i = 0; i < b->slots; i++)
		free(b->keys[i]);
	free(b->keys);
	b->keys = NULL;
	b->slots = b->nkeys = 0;
}

const char *budget_name(enum budget_source src)
{
	return limits[src].name;
}

enum budget_source budget_source_of(const json_t *rec)
{
	const char *src = json_string_value(json_object_get(rec, "source"));
	const char *op = json_string_value(json_object_get(rec, "operation"));

	if (!src || strcmp(src, "kernel") != 0)
		return src && strcmp(src, "shim") == 0 ? BUDGET_SHIM
						       : BUDGET_LAUNCHER;
	if (json_object_get(rec, "path"))
		return BUDGET_BROKER;
	if (!json_object_get(rec, "destination"))
		return BUDGET_LAUNCHER; /* SIGSYS, the kernel's word */
	return op && strcmp(op, "listen") == 0 ? BUDGET_LISTEN : BUDGET_PROXY;
}

/* SipHash-2-4 of @len bytes at @in, keyed with @k. */
#define ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))
#define SIPROUND                                                               \
	do {                                                                   \
		v0 += v1, v1 = ROTL(v1, 13), v1 ^= v0, v0 = ROTL(v0, 32);      \
		v2 += v3, v3 = ROTL(v3, 16), v3 ^= v2;                         \
		v0 += v3, v3 = ROTL(v3, 21), v3 ^= v0;                         \
		v2 += v1, v1 = ROTL(v1, 17), v1 ^= v2, v2 = ROTL(v2, 32);      \
	} while (0)

static uint64_t siphash(const unsigned char *in, size_t len,
			const uint64_t k[2])
{
	uint64_t v0 = k[0] ^ 0x736f6d6570736575ULL;
	uint64_t v1 = k[1] ^ 0x646f72616e646f6dULL;
	uint64_t v2 = k[0] ^ 0x6c7967656e657261ULL;
	uint64_t v3 = k[1] ^ 0x7465646279746573ULL;
	uint64_t m, last = (uint64_t)len << 56;
	size_t i, tail = len & 7;

	for (i = 0; i + 8 <= len; i += 8) {
		m = 0;
		for (int j = 7; j >= 0; j--)
			m = (m << 8) | in[i + (size_t)j];
		v3 ^= m;
		SIPROUND;
		SIPROUND;
		v0 ^= m;
	}
	for (size_t j = 0; j < tail; j++)
		last |= (uint64_t)in[i + j] << (8 * j);
	v3 ^= last;
	SIPROUND;
	SIPROUND;
	v0 ^= last;
	v2 ^= 0xff;
	for (int r = 0; r < 4; r++)
		SIPROUND;
	return v0 ^ v1 ^ v2 ^ v3;
}

/* The key of @rec: its source and call, then the key fields. */
static struct budget_key *key_of(const struct budget *b, enum budget_source src,
				 uint32_t call, const json_t *rec)
{
	size_t lens[NKEY], len = sizeof(uint32_t) + 1, at;
	struct budget_key *k;

	for (size_t i = 0; i < NKEY; i++) {
		lens[i] =
			json_string_length(json_object_get(rec, key_fields[i]));
		len += lens[i] + 1;
	}
	k = malloc(sizeof(*k) + len);
	if (!k)
		return NULL;
	memcpy(k->text, &call, sizeof(call));
	k->text[sizeof(call)] = (char)src;
	at = sizeof(call) + 1;
	for (size_t i = 0; i < NKEY; i++) {
		const char *v =
			json_string_value(json_object_get(rec, key_fields[i]));

		memcpy(k->text + at, v ? v : "", lens[i]);
		k->text[at + lens[i]] = '\0';
		at += lens[i] + 1;
	}
	k->len = len;
	k->call = call;
	k->src = src;
	k->times = 1;
	k->hash = siphash((const unsigned char *)k->text, len, b->seed);
	return k;
}

/* The slot of @k: the one holding the same key, or the empty one where
 * it goes. */
static size_t slot_of(const struct budget *b, const struct budget_key *k)
{
	size_t i = (size_t)k->hash & (b->slots - 1);

	while (b->keys[i] &&
	       (b->keys[i]->hash != k->hash || b->keys[i]->len != k->len ||
		memcmp(b->keys[i]->text, k->text, k->len) != 0))
		i = (i + 1) & (b->slots - 1);
	return i;
}

/* Room for one more key: the table at most half full. */
static int grow(struct budget *b)
{
	size_t slots = b->slots ? 2 * b->slots : 1024;
	struct budget_key **old = b->keys;
	size_t nold = b->slots;

	if (b->slots && 2 * (b->nkeys + 1) <= b->slots)
		return 0;
	b->keys = calloc(slots, sizeof(*b->keys));
	if (!b->keys) {
		b->keys = old;
		return -ENOMEM;
	}
	b->slots = slots;
	for (size_t i = 0; i < nold; i++)
		if (old[i])
			b->keys[slot_of(b, old[i])] = old[i];
	free(old);
	return 0;
}

static struct budget_count *call_count(struct budget *b, uint32_t call,
				       bool make)
{
	size_t free_slot = BUDGET_CALLS;

	if (!call)
		return NULL;
	for (size_t i = 0; i < BUDGET_CALLS; i++) {
		if (b->calls[i].call == call)
			return b->calls[i].of;
		if (!b->calls[i].call && free_slot == BUDGET_CALLS)
			free_slot = i;
	}
	if (!make || free_slot == BUDGET_CALLS)
		return NULL; /* past BUDGET_CALLS at once: the session's */
	b->calls[free_slot].call = call;
	memset(b->calls[free_slot].of, 0, sizeof(b->calls[free_slot].of));
	return b->calls[free_slot].of;
}

static bool is_over(const struct budget_count *c, const struct limit *l,
		    size_t scale, size_t len)
{
	return c->written >= l->records * scale ||
	       c->bytes + len > l->bytes * scale;
}

bool budget_full(const struct budget *b, enum budget_source src)
{
	return is_over(&b->all[src], &limits[src], b->scale, 1);
}

void budget_over(struct budget *b, enum budget_source src)
{
	b->all[src].over++;
}

void budget_reject(struct budget *b, enum budget_source src)
{
	b->all[src].rejected++;
}

enum budget_verdict budget_take(struct budget *b, enum budget_source src,
				const json_t *rec, size_t len)
{
	json_int_t n = json_integer_value(json_object_get(rec, "call"));
	uint32_t call = n > 0 && n <= UINT32_MAX ? (uint32_t)n : 0;
	struct budget_count *c = call_count(b, call, true), *all = &b->all[src];
	const struct limit *l = &limits[src];
	struct budget_key *k = NULL;
	size_t i = 0;

	if (l->compared && grow(b) == 0)
		k = key_of(b, src, call, rec);
	if (k)
		i = slot_of(b, k);
	if (k && b->keys[i]) {
		b->keys[i]->times++;
		free(k);
		all->repeats++;
		if (c)
			c[src].repeats++;
		return BUDGET_REPEAT;
	}
	if (is_over(all, l, b->scale, len) ||
	    (c && is_over(&c[src], l, 1, len))) {
		free(k);
		all->over++;
		if (c)
			c[src].over++;
		return BUDGET_OVER;
	}
	if (k) {
		b->keys[i] = k;
		b->nkeys++;
	}
	all->written++;
	all->bytes += len;
	if (c) {
		c[src].written++;
		c[src].bytes += len;
	}
	return BUDGET_WRITE;
}

const struct budget_count *budget_of(const struct budget *b,
				     enum budget_source src, uint32_t call)
{
	const struct budget_count *c =
		call_count((struct budget *)b, call, false);

	return call ? (c ? &c[src] : NULL) : &b->all[src];
}

bool budget_lost(const struct budget_count *c)
{
	return c && (c->repeats || c->over || c->rejected);
}

void budget_end_call(struct budget *b, uint32_t call)
{
	for (size_t i = 0; call && i < BUDGET_CALLS; i++)
		if (b->calls[i].call == call)
			b->calls[i].call = 0;
}

/* The key's operation and what it names (the destination, the path as
 * resolved), with how often it was made. */
static json_t *repeated_one(const struct budget_key *k)
{
	const char *f[NKEY], *at = k->text + sizeof(uint32_t) + 1;

	for (size_t i = 0; i < NKEY; i++) {
		f[i] = at;
		at += strlen(at) + 1;
	}
	return json_pack("{s:s, s:s, s:I}", "operation", f[0], "target",
			 *f[4]	 ? f[4]
			 : *f[3] ? f[3]
			 : *f[2] ? f[2]
				 : f[1],
			 "times", (json_int_t)k->times);
}

/* The keys of @src (in @call, or any) made most often, more than once. */
static json_t *repeated(const struct budget *b, enum budget_source src,
			uint32_t call)
{
	const struct budget_key *top[BUDGET_REPEATED] = { NULL };
	json_t *list = json_array();
	size_t n = 0;

	for (size_t i = 0; list && i < b->slots; i++) {
		const struct budget_key *k = b->keys[i];
		size_t j;

		if (!k || k->src != src || k->times < 2 ||
		    (call && k->call != call))
			continue;
		if (n < BUDGET_REPEATED)
			n++;
		else if (k->times <= top[n - 1]->times)
			continue;
		for (j = n - 1; j > 0 && top[j - 1]->times < k->times; j--)
			top[j] = top[j - 1];
		top[j] = k;
	}
	for (size_t i = 0; list && i < n; i++)
		json_array_append_new(list, repeated_one(top[i]));
	return list;
}

static void rule_of(char *rule, size_t len, enum budget_source src,
		    const struct budget_count *c, size_t scale, const char *per)
{
	const struct limit *l = &limits[src];

	if (src == BUDGET_SHIM)
		snprintf(rule, len,
			 "%zu reports dropped (over the limit of %zu records "
			 "or %zu MiB per %s), %zu rejected (not valid records)",
			 c->over + c->repeats, l->records * scale,
			 (l->bytes * scale) >> 20, per, c->rejected);
	else
		snprintf(rule, len,
			 "%zu records of the %s not written: %zu repeats of "
			 "one written (the most repeated listed, each with how "
			 "often it was made), %zu over the limit of %zu "
			 "records or %zu MiB per %s",
			 c->over + c->repeats, l->name, c->repeats, c->over,
			 l->records * scale, (l->bytes * scale) >> 20, per);
}

json_t *budget_dropped(const struct budget *b, enum budget_source src,
		       uint32_t call)
{
	const struct budget_count *c = budget_of(b, src, call);
	size_t scale = call ? 1 : b->scale;
	const char *per = call ? "call" : b->scale > 1 ? "session" : "run";
	char rule[512];
	json_t *more, *rec;

	if (!budget_lost(c))
		return NULL;
	rule_of(rule, sizeof(rule), src, c, scale, per);
	more = json_pack("{s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:o}",
			 "of", limits[src].name, "per", per, "written",
			 (json_int_t)c->written, "dropped",
			 (json_int_t)(c->repeats + c->over), "repeats",
			 (json_int_t)c->repeats, "over", (json_int_t)c->over,
			 "rejected", (json_int_t)c->rejected, "limit_records",
			 (json_int_t)(limits[src].records * scale),
			 "limit_bytes", (json_int_t)(limits[src].bytes * scale),
			 "repeated", repeated(b, src, call));
	if (more && call)
		json_object_set_new(more, "call", json_integer(call));
	rec = more ? record_new(RECORD_LAUNCHER, "dropped", "note", rule, more)
		   : NULL;
	json_decref(more);
	return rec;
}
