/*
 * ffidrive_rows.h - ffidrive's table: every interposed name, the
 * signature libffi calls it with, and what its call on a denied path
 * must do (the letters and fields are explained at the top of
 * ffidrive.c).  Included by ffidrive.c alone.
 */
#ifndef CORDON_FFIDRIVE_ROWS_H
#define CORDON_FFIDRIVE_ROWS_H

#include <stddef.h>

struct row {
	const char *family;
	const char *label; /* unique; several rows may call one name */
	const char *name;
	char ret;
	const char *sig;
	const char *use;
	char effect;
	const char *expect; /* NULL: EACCES */
	const char *report; /* NULL: the name itself */
};

#define ROW(fam, name, ret, sig, use, eff)                                     \
	{                                                                      \
		fam, name, name, ret, sig, use, eff, NULL, NULL                \
	}
#define ROWX(fam, label, name, ret, sig, use, eff, expect, report)             \
	{                                                                      \
		fam, label, name, ret, sig, use, eff, expect, report           \
	}

static const struct row rows[] = {
	/* open family: shim/hook_open.c */
	ROW("open", "open", 'i', "si.m", "@F O_RDONLY", 'r'),
	ROW("open", "open64", 'i', "si.m", "@N O_WRONLY|O_CREAT 0644", 'w'),
	ROW("open", "__open", 'i', "si.m", "@F O_RDWR|O_TRUNC", 'w'),
	ROW("open", "__open64", 'i', "si.m", "@N O_WRONLY|O_CREAT|O_EXCL 0600",
	    'w'),
	ROW("open", "__open_2", 'i', "si", "@F O_WRONLY|O_TRUNC", 'w'),
	ROW("open", "__open64_2", 'i', "si", "@F O_RDONLY", 'r'),
	ROW("open", "openat", 'i', "dsi.m", "AT_FDCWD @N O_WRONLY|O_CREAT 0644",
	    'w'),
	ROW("open", "openat64", 'i', "dsi.m", "@D new O_WRONLY|O_CREAT 0644",
	    'w'),
	ROW("open", "__openat_2", 'i', "dsi", "@D file O_RDONLY", 'r'),
	ROW("open", "__openat64_2", 'i', "dsi", "AT_FDCWD @F O_WRONLY|O_TRUNC",
	    'w'),
	ROW("open", "creat", 'i', "sm", "@N 0644", 'w'),
	ROW("open", "creat64", 'i', "sm", "@F 0644", 'w'),
	ROW("open", "fopen", 'p', "ss", "@N w", 'w'),
	ROW("open", "fopen64", 'p', "ss", "@F r", 'r'),
	ROW("open", "_IO_fopen", 'p', "ss", "@F r+", 'r'),
	ROW("open", "freopen", 'p', "ssS", "@F w", 'w'),
	ROW("open", "freopen64", 'p', "ssS", "@N a", 'w'),
	ROW("open", "opendir", 'p', "s", "@D", 'r'),
	ROW("open", "truncate", 'i', "so", "@F 0", 'w'),
	ROW("open", "truncate64", 'i', "so", "@F 1", 'w'),
	ROW("open", "scandir", 'i', "sBNN", "@D", 'r'),
	ROW("open", "scandir64", 'i', "sBNN", "@D", 'r'),
	ROW("open", "scandirat", 'i', "dsBNN", "AT_FDCWD @D", 'r'),
	ROW("open", "scandirat64", 'i', "dsBNN", "AT_FDCWD @D", 'r'),
	ROW("open", "glob", 'n', "siNB", "@D/* GLOB_ERR", 'r'),
	ROW("open", "glob64", 'n', "siNB", "@D/* GLOB_ERR", 'r'),
	ROW("open", "nftw", 'i', "sCii", "@D 4 FTW_PHYS", 'r'),
	ROW("open", "nftw64", 'i', "sCii", "@D 4 FTW_PHYS", 'r'),
	ROW("open", "ftw", 'i', "sCi", "@D 4", 'r'),
	ROW("open", "ftw64", 'i', "sCi", "@D 4", 'r'),
	ROW("open", "fts_open", 'p', "viN", "@D FTS_PHYSICAL", 'r'),
	ROW("open", "fts64_open", 'p', "viN", "@D FTS_PHYSICAL", 'r'),
	/* create family */
	ROW("create", "mkstemp", 'i', "s", "@T", 'w'),
	ROW("create", "mkstemp64", 'i', "s", "@T", 'w'),
	ROW("create", "mkostemp", 'i', "si", "@T O_CLOEXEC", 'w'),
	ROW("create", "mkostemp64", 'i', "si", "@T O_CLOEXEC", 'w'),
	ROW("create", "mkstemps", 'i', "si", "@T.c 2", 'w'),
	ROW("create", "mkstemps64", 'i', "si", "@T.c 2", 'w'),
	ROW("create", "mkostemps", 'i', "sii", "@T.c 2 O_CLOEXEC", 'w'),
	ROW("create", "mkostemps64", 'i', "sii", "@T.c 2 O_CLOEXEC", 'w'),
	ROW("create", "mkdtemp", 'p', "s", "@T", 'w'),
	/* mktemp fails with an empty name, not NULL: "ok" by the convention */
	ROWX("create", "mktemp", "mktemp", 'p', "s", "@T", 'r', "ok", NULL),
	ROWX("create", "tmpfile", "tmpfile", 'p', "", "", 'r', "allow", NULL),
	ROWX("create", "tmpfile64", "tmpfile64", 'p', "", "", 'r', "allow",
	     NULL),
	ROW("create", "mkfifo", 'i', "sm", "@N 0644", 'w'),
	ROW("create", "mkfifoat", 'i', "dsm", "AT_FDCWD @N 0644", 'w'),
	ROW("create", "mknod", 'i', "smz", "@N S_IFIFO|0644 0", 'w'),
	ROW("create", "mknodat", 'i', "dsmz", "@D new S_IFREG|0644 0", 'w'),
	ROW("create", "__xmknod", 'i', "ismB", "0 @N S_IFIFO|0644", 'w'),
	ROW("create", "__xmknodat", 'i', "idsmB", "0 AT_FDCWD @N S_IFIFO|0644",
	    'w'),
	ROWX("open", "dlopen", "dlopen", 'p', "si", "@S RTLD_NOW", 'r', "fail",
	     NULL),
	ROWX("open", "dlmopen", "dlmopen", 'p', "osi",
	     "LM_ID_NEWLM @S RTLD_NOW", 'r', "fail", NULL),
	ROWX("open", "posix_spawn_file_actions_addopen",
	     "posix_spawn_file_actions_addopen", 'e', "Aisim",
	     "3 @F O_RDONLY 0", 'r', NULL, NULL),
	/* change family */
	ROW("change", "mkdir", 'i', "sm", "@N 0755", 'w'),
	ROW("change", "mkdirat", 'i', "dsm", "@D sub 0755", 'w'),
	ROW("change", "unlink", 'i', "s", "@F", 'w'),
	ROW("change", "unlinkat", 'i', "dsi", "AT_FDCWD @E AT_REMOVEDIR", 'w'),
	ROW("change", "rmdir", 'i', "s", "@E", 'w'),
	ROW("change", "remove", 'i', "s", "@F", 'w'),
	ROW("change", "rename", 'i', "ss", "@F @N", 'w'),
	ROW("change", "renameat", 'i', "dsds", "AT_FDCWD @F @D moved", 'w'),
	ROW("change", "renameat2", 'i', "dsdsu",
	    "AT_FDCWD @F AT_FDCWD @N RENAME_NOREPLACE", 'w'),
	ROW("change", "link", 'i', "ss", "@F @N", 'w'),
	ROW("change", "linkat", 'i', "dsdsi", "AT_FDCWD @F AT_FDCWD @N 0", 'w'),
	ROW("change", "symlink", 'i', "ss", "file @N", 'w'),
	ROW("change", "symlinkat", 'i', "sds", "file @D new", 'w'),
	ROW("change", "chmod", 'i', "sm", "@F 0600", 'w'),
	ROW("change", "fchmodat", 'i', "dsmi", "AT_FDCWD @F 0600 0", 'w'),
	ROW("change", "lchmod", 'i', "sm", "@F 0600", 'w'),
	ROW("change", "fchmod", 'i', "fm", "@F 0600", 'w'),
	/* ctime alone changes: too coarse to see from outside */
	ROW("change", "chown", 'i', "suu", "@F @UID @GID", 'r'),
	ROW("change", "lchown", 'i', "suu", "@L @UID @GID", 'r'),
	ROW("change", "fchownat", 'i', "dsuui", "AT_FDCWD @F @UID @GID 0", 'r'),
	ROW("change", "fchown", 'i', "fuu", "@F @UID @GID", 'r'),
	ROW("change", "utime", 'i', "sN", "@F", 'w'),
	ROW("change", "utimes", 'i', "sN", "@F", 'w'),
	ROW("change", "lutimes", 'i', "sN", "@L", 'w'),
	ROW("change", "futimesat", 'i', "dsN", "AT_FDCWD @F", 'w'),
	/* the descriptor's own form: no path, the fd's file (glibc's
	 * utimensat refuses a NULL path: futimens is that form) */
	ROWX("change", "futimesat/fd", "futimesat", 'i', "fNN", "@F", 'w', NULL,
	     NULL),
	ROW("change", "utimensat", 'i', "dsNi", "AT_FDCWD @F 0", 'w'),
	ROW("change", "futimens", 'i', "fN", "@F", 'w'),
	ROW("change", "futimes", 'i', "fN", "@F", 'w'),
	ROW("change", "setxattr", 'i', "ssszi", "@F user.cordon v 1 0", 'w'),
	ROW("change", "lsetxattr", 'i', "ssszi", "@F user.cordon v 1 0", 'w'),
	ROW("change", "fsetxattr", 'i', "fsszi", "@F user.cordon v 1 0", 'w'),
	ROW("change", "removexattr", 'i', "ss", "@F user.orig", 'w'),
	ROW("change", "lremovexattr", 'i', "ss", "@F user.orig", 'w'),
	ROW("change", "fremovexattr", 'i', "fs", "@F user.orig", 'w'),
	/* stat family: probing a path the policy hides */
	ROW("stat", "stat", 'i', "sB", "@F", 'r'),
	ROW("stat", "stat64", 'i', "sB", "@F", 'r'),
	ROW("stat", "lstat", 'i', "sB", "@L", 'r'),
	ROW("stat", "lstat64", 'i', "sB", "@L", 'r'),
	ROW("stat", "fstatat", 'i', "dsBi", "AT_FDCWD @F 0", 'r'),
	ROW("stat", "fstatat64", 'i', "dsBi", "@D file AT_SYMLINK_NOFOLLOW",
	    'r'),
	ROW("stat", "__xstat", 'i', "isB", "1 @F", 'r'),
	ROW("stat", "__xstat64", 'i', "isB", "1 @F", 'r'),
	ROW("stat", "__lxstat", 'i', "isB", "1 @L", 'r'),
	ROW("stat", "__lxstat64", 'i', "isB", "1 @L", 'r'),
	ROW("stat", "__fxstatat", 'i', "idsBi", "1 AT_FDCWD @F 0", 'r'),
	ROW("stat", "__fxstatat64", 'i', "idsBi", "1 AT_FDCWD @F 0", 'r'),
	ROW("stat", "statx", 'i', "dsiuB", "AT_FDCWD @F 0 STATX_BASIC_STATS",
	    'r'),
	ROW("stat", "access", 'i', "si", "@F R_OK", 'r'),
	ROW("stat", "faccessat", 'i', "dsii", "AT_FDCWD @F R_OK 0", 'r'),
	ROW("stat", "euidaccess", 'i', "si", "@F R_OK", 'r'),
	ROW("stat", "eaccess", 'i', "si", "@F R_OK", 'r'),
	ROW("stat", "readlink", 'l', "sBZ", "@L", 'r'),
	ROW("stat", "readlinkat", 'l', "dsBZ", "AT_FDCWD @L", 'r'),
	ROW("stat", "__readlink_chk", 'l', "sBZZ", "@L", 'r'),
	ROW("stat", "__readlinkat_chk", 'l', "dsBZZ", "AT_FDCWD @L", 'r'),
	ROW("stat", "realpath", 'p', "sB", "@F", 'r'),
	ROW("stat", "__realpath_chk", 'p', "sBZ", "@F", 'r'),
	ROW("stat", "canonicalize_file_name", 'p', "s", "@F", 'r'),
	ROW("stat", "getxattr", 'l', "ssBZ", "@F user.orig", 'r'),
	ROW("stat", "lgetxattr", 'l', "ssBZ", "@F user.orig", 'r'),
	ROW("stat", "listxattr", 'l', "sBZ", "@F", 'r'),
	ROW("stat", "llistxattr", 'l', "sBZ", "@F", 'r'),
	ROW("stat", "statfs", 'i', "sB", "@F", 'r'),
	ROW("stat", "statfs64", 'i', "sB", "@F", 'r'),
	ROW("stat", "statvfs", 'i', "sB", "@F", 'r'),
	ROW("stat", "statvfs64", 'i', "sB", "@F", 'r'),
	/* entering a directory needs no right: only noted (hook_cwd.c) */
	ROWX("stat", "chdir", "chdir", 'i', "s", "@D", 'r', "allow", NULL),
	ROWX("stat", "fchdir", "fchdir", 'i', "d", "@D", 'r', "allow", NULL),
	ROW("stat", "pathconf", 'l', "si", "@F _PC_NAME_MAX", 'r'),
	/* exec family: @X writes a marker next to itself when it runs */
	ROW("exec", "execve", 'x', "svE", "@X @X", 'w'),
	ROW("exec", "execv", 'x', "sv", "@X @X", 'w'),
	ROW("exec", "execvp", 'x', "sv", "@X @X", 'w'),
	ROW("exec", "execvpe", 'x', "svE", "@X @X", 'w'),
	ROW("exec", "execl", 'x', "ss.N", "@X @X", 'w'),
	ROW("exec", "execlp", 'x', "ss.N", "@X @X", 'w'),
	ROW("exec", "execle", 'x', "ss.NE", "@X @X", 'w'),
	ROW("exec", "execveat", 'x', "dsvEi", "AT_FDCWD @X @X 0", 'w'),
	ROW("exec", "fexecve", 'x', "dvE", "@X @X", 'w'),
	ROW("exec", "posix_spawn", 'e', "BsNNvE", "@X @X", 'w'),
	ROW("exec", "posix_spawnp", 'e', "BsNNvE", "@X @X", 'w'),
	/* the shell runs @X: its own execve is what the shim refuses */
	ROWX("exec", "system", "system", 's', "s", "@X", 'w', "ret=32256",
	     "execve"),
	ROWX("exec", "popen", "popen", 'P', "ss", "@X w", 'w', "ok", "execve"),
	ROWX("exec", "wordexp", "wordexp", 'n', "sBi", "$(@X) WRDE_SHOWERR",
	     'w', "ok", "execve"),
	/* net family: network off, and UNIX sockets are files */
	ROWX("net", "connect", "connect", 'i', "kaL", "tcp:127.0.0.1:@P", 'r',
	     NULL, NULL),
	ROWX("net", "connect/unix", "connect", 'i', "kaL", "unix:@U", 'r', NULL,
	     NULL),
	ROWX("net", "__connect", "__connect", 'i', "kaL", "tcp:127.0.0.1:@P",
	     'r', NULL, NULL),
	ROWX("net", "bind", "bind", 'i', "kaL", "unix:@N", 'w', NULL, NULL),
	ROWX("net", "sendto", "sendto", 'l', "kqniaL", "0 udp:127.0.0.1:@P",
	     'r', NULL, NULL),
	ROWX("net", "sendmsg", "sendmsg", 'l', "kMi", "udp:127.0.0.1:@P 0", 'r',
	     NULL, NULL),
	ROWX("net", "sendmmsg", "sendmmsg", 'i', "kWui", "udp:127.0.0.1:@P 1 0",
	     'r', NULL, NULL),
	/* they decide nothing: they explain what the kernel refused
	 * (t_net_explain.sh); here, that they change nothing */
	ROWX("net", "socket", "socket", 'i', "iii", "AF_UNIX SOCK_STREAM 0",
	     'r', "allow", NULL),
	ROWX("net", "getaddrinfo", "getaddrinfo", 'n', "ssNB", "localhost 80",
	     'r', "allow", NULL),
	/* not interposed: a raw system call the shim cannot see (D-9) */
	/* env family: shim/hook_env.c; a variable the scrub kept answers
	 * as libc does (the removed ones: t_tools.sh) */
	ROWX("env", "getenv", "getenv", 'p', "s", "HOME", 'r', "allow", NULL),
	ROWX("env", "secure_getenv", "secure_getenv", 'p', "s", "HOME", 'r',
	     "allow", NULL),
	ROWX("raw", "syscall", "syscall", 'l', "o.dsi",
	     "257 AT_FDCWD @F O_RDONLY", 'r', "EACCES", NULL),
};

#define NROWS (sizeof(rows) / sizeof(rows[0]))

#endif
