/*
 * gitindex.h - the gitlinks of a git index file (.git/index).
 */
#ifndef CORDON_GITINDEX_H
#define CORDON_GITINDEX_H

#include <stddef.h>

#define GITINDEX_NAME_MAX 4096 /* longest entry path kept */

/**
 * gitindex_gitlinks - call @fn with the path of every gitlink entry
 * (mode 0160000: a submodule, or a repository added inside another) of
 * the index in @buf, @len bytes: versions 2, 3 and 4, with object names
 * of @hashlen bytes (20 for SHA-1, 32 for SHA-256).  The index is
 * untrusted (the command could write it): every length is checked
 * against @len, and a path longer than GITINDEX_NAME_MAX ends the walk.
 * Pure: no allocation, no I/O.
 *
 * Return: the number of gitlinks, or -1 when @buf is no index this
 * reads (bad signature or version, an entry past the end).  Gitlinks
 * found before the point where it stopped were reported all the same.
 */
int gitindex_gitlinks(const unsigned char *buf, size_t len, size_t hashlen,
		      void (*fn)(const char *path, void *arg), void *arg);

#endif
