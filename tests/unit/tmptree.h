/*
 * tmptree.h - remove a test's temporary tree (files, links and
 * directories, depth first, links not followed): the teardown every
 * unit test that makes a tree under /tmp shares.
 */
#ifndef CORDON_TEST_TMPTREE_H
#define CORDON_TEST_TMPTREE_H

#include <ftw.h>
#include <stdio.h>
#include <sys/stat.h>

static inline int tmptree_rm_one(const char *path, const struct stat *st,
				 int type, struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	return remove(path);
}

/* Remove @dir and all below it; a "" @dir (none was made) is left. */
static inline void tmptree_remove(const char *dir)
{
	if (dir[0])
		nftw(dir, tmptree_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

#endif
