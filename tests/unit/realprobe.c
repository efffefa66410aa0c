/*
 * realprobe.c - shim/real.c in a preloaded library of its own, beside
 * dlsym(RTLD_NEXT) asked from the same library (test_real.c preloads it
 * alone, and before and after realother.so).
 *
 * realprobe_all() looks up every name the hooks resolve (real_table.h,
 * generated from their REAL_FN lines) both ways and prints, on stdout,
 * one line per mismatch ("differ NAME VERSION OURS THEIRS"), then
 * "checked N found F differ D in_other O": O counts the answers that lie
 * in a library whose file name ends in "realother.so".
 */
#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "shim/shim.h"

struct real_name {
	const char *name, *version;
	bool or_default;
};

static const struct real_name table[] = {
#include "real_table.h"
};

static bool in_other(void *p)
{
	Dl_info info;
	size_t n;

	if (!p || !dladdr(p, &info) || !info.dli_fname)
		return false;
	n = strlen(info.dli_fname);
	return n >= 12 && strcmp(info.dli_fname + n - 12, "realother.so") == 0;
}

__attribute__((visibility("default"))) int realprobe_all(void)
{
	size_t n = sizeof(table) / sizeof(table[0]), found = 0, differ = 0;
	size_t other = 0;

	real_init();
	for (size_t i = 0; i < n; i++) {
		const struct real_name *t = &table[i];
		void *ours = real_sym(t->name, t->version);
		void *theirs = t->version ? dlvsym(RTLD_NEXT, t->name, t->version)
					  : dlsym(RTLD_NEXT, t->name);

		if (!ours && !theirs && t->or_default) {
			ours = real_sym(t->name, NULL);
			theirs = dlsym(RTLD_NEXT, t->name);
		}
		if (ours != theirs) {
			differ++;
			printf("differ %s %s %p %p\n", t->name,
			       t->version ? t->version : "-", ours, theirs);
		}
		found += ours != NULL;
		other += in_other(ours);
	}
	printf("checked %zu found %zu differ %zu in_other %zu\n", n, found,
	       differ, other);
	return differ != 0;
}
