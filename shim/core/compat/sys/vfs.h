/*
 * <sys/vfs.h> on Darwin (linux_compat.h): statfs() is in <sys/mount.h>.
 */
#ifndef CORDON_COMPAT_SYS_VFS_H
#define CORDON_COMPAT_SYS_VFS_H

#include <sys/mount.h>

#endif
