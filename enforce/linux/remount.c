/*
 * remount.c - the mount table, and mount flags set without
 * mount_setattr(2).
 *
 * mounts.c sets read-only and noexec with mount_setattr (Linux 5.12),
 * recursively and at once.  Before 5.12 there is only the classic way:
 * a remount of each bind mount, MS_REMOUNT | MS_BIND, one mount at a
 * time, with every flag the mount keeps passed again (a remount sets
 * the per-mount flags as a whole; in a user namespace, dropping a flag
 * the host locked, nosuid, nodev, or the atime ones, fails with EPERM).
 * The flags a mount has are read from its line in mountinfo.
 */
#include <errno.h>
#include <linux/mount.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>

#include "enforce/linux/remount.h"
#include "shim/core/path.h"
#include "shim/core/policy.h"

/* /proc/self/mountinfo writes a space, tab, newline or backslash in a
 * mount point as \ooo. */
static void unescape(char *s)
{
	char *out = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' &&
		    s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*out++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 |
					(s[3] - '0'));
			s += 3;
		} else {
			*out++ = *s;
		}
	}
	*out = '\0';
}

struct line {
	unsigned long id, parent;
	char *mnt, *opts;
};

/* Is the mount of @l covered by another at the same mount point (one
 * mounted on it has it as its parent)? */
static bool covered(const struct line *l, const struct line *all, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (all[i].parent == l->id && strcmp(all[i].mnt, l->mnt) == 0)
			return true;
	return false;
}

int remount_each(const char *path,
		 int (*fn)(const char *mnt, const char *opts, void *arg),
		 void *arg)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	struct line *all = NULL, *grown;
	char *text = NULL, mnt[PATH_BUF], opts[512];
	size_t n = 0, cap = 0;
	int ret = -1;

	if (!f)
		return -1;
	/* the whole table first: a remount while reading would change it */
	while (getline(&text, &cap, f) > 0) {
		struct line l;

		if (sscanf(text, "%lu %lu %*s %*s %4095s %511s", &l.id,
			   &l.parent, mnt, opts) != 4)
			continue;
		unescape(mnt);
		grown = realloc(all, (n + 1) * sizeof(*all));
		if (!grown)
			goto out;
		all = grown;
		l.mnt = strdup(mnt);
		l.opts = strdup(opts);
		all[n++] = l;
		if (!l.mnt || !l.opts)
			goto out;
	}
	/* each mount point once, by the mount on top (the one a path, and
	 * so a remount, reaches), parents first as the table lists them */
	ret = 0;
	for (size_t i = 0; i < n && !ret; i++)
		if (path_is_within(all[i].mnt, path) &&
		    !covered(&all[i], all, n))
			ret = fn(all[i].mnt, all[i].opts, arg);
out:
	for (size_t i = 0; i < n; i++) {
		free(all[i].mnt);
		free(all[i].opts);
	}
	free(all);
	free(text);
	fclose(f);
	return ret;
}

/* The per-mount flags of mountinfo's options field (rw,nosuid,...). */
static unsigned long flags_of(const char *opts)
{
	static const struct {
		const char *name;
		unsigned long flag;
	} known[] = {
		{ "ro", MS_RDONLY },	     { "nosuid", MS_NOSUID },
		{ "nodev", MS_NODEV },	     { "noexec", MS_NOEXEC },
		{ "noatime", MS_NOATIME },   { "nodiratime", MS_NODIRATIME },
		{ "relatime", MS_RELATIME },
	};
	unsigned long flags = 0;

	for (const char *o = opts; *o;) {
		size_t n = strcspn(o, ",");

		for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
			if (strlen(known[i].name) == n &&
			    strncmp(o, known[i].name, n) == 0)
				flags |= known[i].flag;
		o += n + (o[n] == ',');
	}
	/* neither: the mount updates every access time */
	if (!(flags & (MS_NOATIME | MS_RELATIME)))
		flags |= MS_STRICTATIME;
	return flags;
}

static unsigned long ms_of(unsigned long long attr)
{
	return (attr & MOUNT_ATTR_RDONLY ? MS_RDONLY : 0) |
	       (attr & MOUNT_ATTR_NOEXEC ? MS_NOEXEC : 0) |
	       (attr & MOUNT_ATTR_NOSUID ? MS_NOSUID : 0) |
	       (attr & MOUNT_ATTR_NODEV ? MS_NODEV : 0);
}

struct change {
	unsigned long set, clr;
	const char *only; /* the one mount point to change, or NULL: all */
	bool found;
	int err; /* the first failure's errno */
};

static int remount_one(const char *mnt, const char *opts, void *arg)
{
	struct change *c = arg;
	unsigned long flags = (flags_of(opts) | c->set) & ~c->clr;

	if (c->only && strcmp(mnt, c->only) != 0)
		return 0;
	c->found = true;
	if (mount(NULL, mnt, NULL, MS_REMOUNT | MS_BIND | flags, NULL) < 0 &&
	    !c->err)
		c->err = errno;
	return 0; /* the others all the same, as mount_setattr would not */
}

int remount_attr(const char *path, bool below, unsigned long long set,
		 unsigned long long clr)
{
	struct change c = {
		.set = ms_of(set),
		.clr = ms_of(clr),
		.only = below ? NULL : path,
	};

	if (remount_each(path, remount_one, &c) < 0)
		return -1;
	if (c.only && !c.found)
		return errno = EINVAL, -1; /* not a mount point */
	if (c.err)
		return errno = c.err, -1;
	return 0;
}
