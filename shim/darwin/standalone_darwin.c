/*
 * standalone_darwin.c - the shim without the launcher, on macOS
 * (standalone.h): not offered.
 *
 * On Linux, the shim used alone (LD_PRELOAD=libcordon.so with CORDON_READ
 * and friends) applies Landlock from inside the first process.  Seatbelt
 * can be applied from inside too, but an advisory shim whose policy
 * dyld drops at the first SIP-protected program would promise more
 * than it keeps: on macOS the shim runs only under the launcher, which
 * applies the profile.  Without CORDON_POLICY it stays inactive.
 */
#include <errno.h>

#include "shim/standalone.h"

int standalone_load(char **envp)
{
	(void)envp;
	return -ENOENT;
}
