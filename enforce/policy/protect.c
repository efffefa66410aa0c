/*
 * protect.c - protected roots: a path inside a root that keeps less
 * than the root grants (policy.h, ORIGIN_PROTECTED): git's files, the
 * shell's startup files, cordon's own (kept from writing), the system's
 * secrets (kept from reading too).  The mounts and the shim enforce
 * them; Landlock, which cannot take a right back below a root, does not
 * see them.  Used by roots.c (the defaults) and gitguard.c.
 */
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

#include "shim/core/path.h"
#include "enforce/policy/policy.h"

/*
 * Take @drop back from the canonical @canon where the policy grants it:
 * a protected root keeping the rest.  Nothing when the path is not
 * granted @drop anyway, or when a root the user gave names the path
 * itself with one of those rights (the protection is lifted).
 */
static int protect_canon(struct policy *p, const char *canon, unsigned int drop,
			 bool is_dir)
{
	unsigned int rights = policy_rights(p, canon);

	if (!(rights & drop))
		return 0;
	for (size_t i = 0; i < p->nroots; i++)
		if (p->roots[i].origin == ORIGIN_USER &&
		    (p->roots[i].rights & drop) &&
		    strcmp(p->roots[i].path, canon) == 0)
			return 0;
	return policy_add_root(p, canon, rights & ~drop, ORIGIN_PROTECTED,
			       is_dir);
}

/*
 * Take @drop back from @path where the policy grants it (see
 * protect_canon()); nothing when the path is not there.
 */
int protect_path(struct policy *p, const char *path, unsigned int drop)
{
	char canon[PATH_BUF];
	struct stat st;

	if (path_resolve(AT_FDCWD, path, 0, canon) != 0 ||
	    lstat(canon, &st) < 0)
		return 0;
	return protect_canon(p, canon, drop, S_ISDIR(st.st_mode));
}

int protect_write(struct policy *p, const char *path)
{
	return protect_path(p, path, RIGHT_W);
}

int protect_write_canon(struct policy *p, const char *canon, bool is_dir)
{
	return protect_canon(p, canon, RIGHT_W, is_dir);
}
