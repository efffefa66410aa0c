/*
 * caps.c - drop every capability before the command runs.
 *
 * Landlock confines paths and ports, but a root user's capabilities
 * reach further: CAP_SYS_ADMIN mounts and sets the hostname,
 * CAP_SYS_MODULE loads modules, CAP_DAC_READ_SEARCH opens files by
 * handle, CAP_SYS_PTRACE, CAP_NET_ADMIN, CAP_SYS_TIME, ...  The command
 * gets none: every set is emptied, the bounding set too, so that no
 * setuid or file-capability program can bring one back (no_new_privs
 * already stops setuid).  Root stays uid 0, without privilege beyond
 * the files it owns, which Landlock confines.
 */
#include <cap-ng.h>
#include <stdio.h>
#include <unistd.h>

#include "enforce/linux/linux.h"

void caps_features(struct feature_set *s, bool exact)
{
	bool needed = true;

	/* libcap-ng reads /proc/self/status for the bounding set: ~60 us
	 * of every start, for a row no run prints */
	if (exact) {
		capng_get_caps_process();
		needed = capng_have_capabilities(CAPNG_SELECT_BOTH) !=
			 CAPNG_NONE;
	}
	feature_add(s, (struct feature){
			       .layer = "caps",
			       .name = FEATURE_CAPS,
			       .needs = "capability sets (libcap-ng)",
			       .needed = needed,
			       .available = true,
		       });
}

int caps_drop(char *err, size_t errlen)
{
	/* libcap-ng keeps the pid it started in, forgotten by its fork
	 * handler; ns_fork()'s clone runs no fork handler */
	capng_setpid(getpid());
	/* Nothing to read first: every set is emptied whatever it holds.
	 * capng_apply() drops the bounding set only with CAP_SETPCAP (a
	 * user outside a user namespace may not change it, and without a
	 * permitted capability nothing can be regained: the bounding set
	 * then only limits what no_new_privs already forbids). */
	capng_clear(CAPNG_SELECT_ALL);
	if (capng_apply(CAPNG_SELECT_ALL) != 0) {
		snprintf(err, errlen, "cannot drop the capabilities");
		return -1;
	}
	return 0;
}
