/*
 * darwin.h - macOS (enforce/darwin/): the Seatbelt boundary and its
 * profile renderer; what the launcher's macOS files share: the facts about
 * this Mac that the Seatbelt profile needs (sbpl.h), and the profile itself.
 * The folder's whole interface (with base.h's platform part it implements).
 */
#ifndef CORDON_DARWIN_H
#define CORDON_DARWIN_H

#include <stddef.h>

#include "shim/core/path.h"
#include "shim/core/policy.h"
#include "enforce/darwin/sbpl.h"

#define DARWIN_SYSTEM_MAX 5

/* The host facts and the storage they point into. */
struct darwin_host {
	struct sbpl_host h;
	char tmp[PATH_BUF], var[PATH_BUF], etc[PATH_BUF], home[PATH_BUF];
	char tmpdir[PATH_BUF], cachedir[PATH_BUF], tty[PATH_BUF];
	char prefix[DARWIN_SYSTEM_MAX][PATH_BUF];
	const char *system[DARWIN_SYSTEM_MAX + 1];
};

/**
 * darwin_host_facts - look up what sbpl_render() must know about this
 * Mac for policy @p: where /tmp, /var and /etc lead, the per-user temp
 * and cache dirs, the terminal, and (when @p holds the system defaults)
 * the Command Line Tools, the selected Xcode and Homebrew.  @report is
 * the launcher's report socket, or NULL.  What the host lacks stays NULL.
 */
void darwin_host_facts(struct darwin_host *d, const struct policy *p,
		       const char *report);

/**
 * darwin_profile - the Seatbelt profile of @p on this Mac, in a buffer
 * the caller frees.
 * Return: the profile, or NULL with one line in @err.
 */
char *darwin_profile(const struct policy *p, const char *report, char *err,
		     size_t errlen);

#endif
