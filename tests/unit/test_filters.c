/*
 * Unit tests of the compiled seccomp programs (enforce/linux/filters.h): the
 * BPF built into cordon when it was built (scripts/filtergen.c) is,
 * instruction for instruction, what libseccomp builds from
 * enforce/linux/filters.c now, for every variant; and the variants differ
 * where their rules do.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "enforce/linux/filters.h"

Test(filters, compiled_programs_are_what_libseccomp_builds_now)
{
	for (unsigned int v = 0; v < FILTERS_N; v++) {
		const struct filters_prog *f = &filters_compiled[v];
		struct sock_filter *insns;
		size_t n;

		cr_assert_eq(filters_export(v, &insns, &n), 0, "variant %u", v);
		cr_assert_eq(n, f->len,
			     "variant %u: %zu instructions, %u "
			     "compiled in",
			     v, n, f->len);
		cr_assert_eq(memcmp(insns, f->insns, n * sizeof(insns[0])), 0,
			     "variant %u differs from its compiled program", v);
		free(insns);
	}
}

Test(filters, every_variant_is_a_program_of_its_own)
{
	for (unsigned int a = 0; a < FILTERS_N; a++)
		for (unsigned int b = a + 1; b < FILTERS_N; b++)
			cr_assert(filters_compiled[a].len !=
						  filters_compiled[b].len ||
					  memcmp(filters_compiled[a].insns,
						 filters_compiled[b].insns,
						 filters_compiled[a].len *
							 sizeof(struct
								sock_filter)),
				  "variants %u and %u are the same", a, b);
}

Test(filters, an_unknown_variant_is_refused)
{
	struct sock_filter *insns;
	size_t n;

	cr_assert_lt(filters_export(FILTERS_N + 1, &insns, &n), 0);
	cr_assert_null(insns);
}
