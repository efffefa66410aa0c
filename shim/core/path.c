/*
 * path.c - resolve a path the way the kernel's path walk does.
 *
 * The path is made absolute (from the cwd or from a dirfd's
 * /proc/self/fd link), then walked one component at a time.  The prefix
 * walked so far is kept canonical, so ".." just drops its last component
 * and is never applied lexically across a symlink.  A symlink's target is
 * spliced in front of what is left to walk, as the kernel does, at most
 * PATH_MAX_HOPS times.  Once a component is missing, the rest can only be
 * created, so it is normalised lexically.
 *
 * It runs inside the shim's hooks, in signal handlers and between vfork
 * and exec.  It must never allocate, take a lock, use stdio, keep
 * mutable global or static state, or call a libc wrapper the shim
 * interposes (open, stat, readlink, getcwd, realpath...): it uses only
 * the stack (one PATH_BUF besides the caller's) and raw syscalls through
 * syscall(2).  syscall(2) sets errno when it fails, so the exported
 * functions save errno and restore it: callers see 0 or -errno and an
 * unchanged errno.
 */
#include "shim/core/path.h"
#include "shim/core/strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <unistd.h>

struct walk {
	char *res; /* the canonical prefix; "" stands for "/" */
	size_t rlen;
	char todo[PATH_BUF]; /* still to walk, from todo + pos */
	size_t pos;
	size_t end; /* strlen(todo) */
	unsigned int hops;
	bool missing; /* past a missing component: lexical */
	bool unseen;  /* past a component it cannot look up: lexical */
	bool nofollow;
	bool unseen_ok; /* PATH_UNSEEN_LEXICAL */
};

static long sys_ret(long r)
{
	return r < 0 ? -errno : r;
}

static int sys_lstat(const char *path, struct stat *st)
{
	return (int)sys_ret(syscall(SYS_newfstatat, AT_FDCWD, path, st,
				    AT_SYMLINK_NOFOLLOW));
}

static int sys_stat(const char *path, struct stat *st)
{
	return (int)sys_ret(syscall(SYS_newfstatat, AT_FDCWD, path, st, 0));
}

static int sys_fdstat(int fd, struct stat *st)
{
	return (int)sys_ret(syscall(SYS_newfstatat, fd, "", st, AT_EMPTY_PATH));
}

static int sys_statfs(const char *path, struct statfs *sf)
{
	return (int)sys_ret(syscall(SYS_statfs, path, sf));
}

static long sys_readlink(const char *path, char *buf, size_t size)
{
	return sys_ret(syscall(SYS_readlinkat, AT_FDCWD, path, buf, size));
}

static long sys_getcwd(char *buf, size_t size)
{
	return sys_ret(syscall(SYS_getcwd, buf, size));
}

static bool is_dot(const char *name, size_t len)
{
	return len == 1 && name[0] == '.';
}

static bool is_dotdot(const char *name, size_t len)
{
	return len == 2 && name[0] == '.' && name[1] == '.';
}

/* The resolved prefix as a path the kernel accepts. */
static const char *prefix(const struct walk *w)
{
	return w->rlen ? w->res : "/";
}

static int push(struct walk *w, const char *name, size_t len)
{
	if (len >= PATH_BUF - 1 - w->rlen)
		return -ENAMETOOLONG;
	w->res[w->rlen++] = '/';
	memcpy(w->res + w->rlen, name, len);
	w->rlen += len;
	w->res[w->rlen] = '\0';
	return 0;
}

static void pop(struct walk *w)
{
	while (w->rlen && w->res[w->rlen - 1] != '/')
		w->rlen--;
	if (w->rlen)
		w->rlen--;
	w->res[w->rlen] = '\0';
}

/* Take a base the kernel produced (d_path: canonical, absolute). */
static int set_base(struct walk *w, size_t len)
{
	w->res[len] = '\0';
	/* "pipe:[42]", "(unreachable)/x": no path to start from */
	if (w->res[0] != '/')
		return -ENOENT;
	w->rlen = len == 1 ? 0 : len;
	w->res[w->rlen] = '\0';
	return 0;
}

static int cwd_base(struct walk *w)
{
	long n = sys_getcwd(w->res, PATH_BUF);

	if (n == -ERANGE)
		return -ENAMETOOLONG;
	if (n < 0)
		return (int)n;
	return set_base(w, strnlen(w->res, PATH_BUF - 1));
}

static void fd_link(int fd, char buf[32])
{
	static const char dir[] = "/proc/self/fd/";
	char digits[12];
	unsigned int u = (unsigned int)fd;
	size_t n = 0;
	char *p = buf + sizeof(dir) - 1;

	memcpy(buf, dir, sizeof(dir) - 1);
	do {
		digits[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	while (n)
		*p++ = digits[--n];
	*p = '\0';
}

/*
 * The path of @fd.  A deleted file or directory (no links left) has no
 * path; its link would read "/x (deleted)", a name that is not its own.
 */
static int fd_base(struct walk *w, int fd, bool need_dir)
{
	struct stat st;
	char link[32];
	long n;
	int ret = sys_fdstat(fd, &st);

	if (ret)
		return ret;
	if (need_dir && !S_ISDIR(st.st_mode))
		return -ENOTDIR;
	if (st.st_nlink == 0)
		return -ENOENT;
	fd_link(fd, link);
	n = sys_readlink(link, w->res, PATH_BUF);
	if (n < 0)
		return (int)n;
	if (n >= PATH_BUF)
		return -ENAMETOOLONG;
	return set_base(w, (size_t)n);
}

static int start(struct walk *w, int dirfd, const char *path, int flags)
{
	size_t len;

	if (flags & ~(PATH_NOFOLLOW | PATH_EMPTY_OK | PATH_UNSEEN_LEXICAL))
		return -EINVAL;
	if (!path && !(flags & PATH_EMPTY_OK))
		return -EFAULT;
	if (!path)
		path = "";
	len = strnlen(path, PATH_BUF);
	if (len == PATH_BUF)
		return -ENAMETOOLONG;
	if (!len && !(flags & PATH_EMPTY_OK))
		return -ENOENT;
	/* Copy first: @path may be the caller's @out, which is w->res. */
	memcpy(w->todo, path, len + 1);
	w->pos = 0;
	w->end = len;
	w->hops = 0;
	w->missing = false;
	w->unseen = false;
	w->nofollow = flags & PATH_NOFOLLOW;
	w->unseen_ok = flags & PATH_UNSEEN_LEXICAL;
	if (w->todo[0] == '/') {
		w->rlen = 0;
		w->res[0] = '\0';
		return 0;
	}
	if (dirfd == AT_FDCWD)
		return cwd_base(w);
	return fd_base(w, dirfd, len != 0);
}

/*
 * /proc magic links to objects that have no path read as "pipe:[42]",
 * "socket:[7]", "anon_inode:[eventfd]", "net:[4026531840]".  No genuine
 * relative link in /proc ("self/net", "1234") has a ':' in its first
 * component, and elsewhere "a:b" is an ordinary name.
 */
static int check_pathless(struct walk *w, size_t n)
{
	struct statfs sf;
	size_t first = strcspn(w->todo, "/");
	int ret;

	if (!memchr(w->todo, ':', first < n ? first : n))
		return 0;
	ret = sys_statfs(prefix(w), &sf);
	if (ret)
		return ret;
	return sf.f_type == PROC_SUPER_MAGIC ? -ENOENT : 0;
}

/*
 * A /proc magic link to an unlinked file (or a memfd) reads
 * "/tmp/x (deleted)": a name that is not the file's.  A genuine file of
 * that name has links; through a magic link an unlinked one has none.
 */
static int check_deleted(struct walk *w, size_t n)
{
	static const char mark[] = " (deleted)";
	size_t m = sizeof(mark) - 1;
	struct stat st;

	if (n < m || memcmp(w->todo + n - m, mark, m))
		return 0;
	if (sys_stat(w->res, &st))
		return 0;
	return st.st_nlink ? 0 : -ENOENT;
}

/*
 * w->res names a symlink: put its target in front of what is left to
 * walk, and go on from its directory (or from "/" for an absolute one).
 */
static int follow(struct walk *w)
{
	size_t rest = w->end - w->pos;
	size_t cap = PATH_BUF - 1 - rest;
	long n;
	int ret;

	if (++w->hops > PATH_MAX_HOPS)
		return -ELOOP;
	/* Park the rest (and its NUL) at the end; read the target before. */
	memmove(w->todo + cap, w->todo + w->pos, rest + 1);
	n = sys_readlink(w->res, w->todo, cap);
	if (n < 0)
		return (int)n;
	if ((size_t)n >= cap)
		return -ENAMETOOLONG;
	if (n == 0)
		return -ENOENT;
	ret = check_deleted(w, (size_t)n);
	if (ret)
		return ret;
	memmove(w->todo + n, w->todo + cap, rest + 1);
	w->pos = 0;
	w->end = (size_t)n + rest;
	pop(w);
	if (w->todo[0] == '/') {
		w->rlen = 0;
		w->res[0] = '\0';
		return 0;
	}
	return check_pathless(w, (size_t)n);
}

/* w->res ends with a new component: look at what it is. */
static int look(struct walk *w)
{
	bool more = w->todo[w->pos] != '\0';
	struct stat st;
	int ret = sys_lstat(w->res, &st);

	if (ret == -ENOENT) {
		w->missing = true;
		return 0;
	}
	/* A directory on the way that it may not search: what lies past
	 * it is known only from the path (and the links read before). */
	if (ret == -EACCES && w->unseen_ok) {
		w->missing = w->unseen = true;
		return 0;
	}
	if (ret)
		return ret;
	if (!S_ISLNK(st.st_mode))
		return more && !S_ISDIR(st.st_mode) ? -ENOTDIR : 0;
	/* A trailing slash makes the kernel follow even under NOFOLLOW. */
	if (!more && w->nofollow)
		return 0;
	return follow(w);
}

static int step(struct walk *w, const char *name, size_t len)
{
	int ret;

	if (is_dot(name, len))
		return 0;
	if (is_dotdot(name, len)) {
		/* The kernel needs the directory ".." leaves. */
		if (w->missing && !w->unseen)
			return -ENOENT;
		pop(w);
		return 0;
	}
	ret = push(w, name, len);
	if (ret || w->missing)
		return ret;
	return look(w);
}

static bool next_name(struct walk *w, const char **name, size_t *len)
{
	while (w->todo[w->pos] == '/')
		w->pos++;
	if (!w->todo[w->pos])
		return false;
	*name = w->todo + w->pos;
	*len = strcspn(*name, "/");
	w->pos += *len;
	return true;
}

static int walk_all(struct walk *w)
{
	const char *name;
	size_t len;
	int ret = 0;

	while (!ret && next_name(w, &name, &len))
		ret = step(w, name, len);
	return ret;
}

/**
 * path_resolve - make @path absolute and canonical as the kernel sees it.
 * @dirfd: AT_FDCWD, or the fd that a relative or empty @path starts from.
 * @path: the path as the program gave it.
 * @flags: PATH_NOFOLLOW, PATH_EMPTY_OK.
 * @out: PATH_BUF bytes; receives the result, "" on error.  May be @path.
 *
 * See path.h for the full contract.  errno is left unchanged.
 *
 * Return: 0, or -ENOENT, -ENOTDIR, -ELOOP, -ENAMETOOLONG, -EBADF,
 * -EINVAL (unknown flag), -EFAULT (NULL @path) or a syscall's error.
 */
int path_resolve(int dirfd, const char *path, int flags, char out[PATH_BUF])
{
	struct walk w;
	int saved = errno;
	int ret;

	w.res = out;
	ret = start(&w, dirfd, path, flags);
	if (!ret)
		ret = walk_all(&w);
	if (ret)
		out[0] = '\0';
	else if (!w.rlen)
		memcpy(out, "/", 2);
	errno = saved;
	return ret;
}

/**
 * path_normalize - lexical normalisation of an absolute path.
 * @in: an absolute path.
 * @out: PATH_BUF bytes; receives the result.  May be @in.
 *
 * Collapses "//" and ".", applies ".." (never above "/") and drops a
 * trailing slash, without touching the filesystem.
 *
 * Return: 0, -EINVAL when @in is not absolute, -EFAULT when it is NULL,
 * -ENAMETOOLONG when it does not fit in PATH_BUF.
 */
/* True when @s (absolute) is normal already: no "//", no "." or ".."
 * component, no trailing slash but for "/" itself; its length in @len.
 * Most paths programs pass are: one scan, and no rewriting. */
static bool is_normal(const char *s, size_t *len)
{
	size_t i;

	if (s[1] == '\0') { /* "/" itself */
		*len = 1;
		return true;
	}
	for (i = 0; s[i] && i < PATH_BUF; i++) {
		const char *c = s + i + 1; /* the component after a slash */

		if (s[i] != '/')
			continue;
		if (c[0] == '\0' || c[0] == '/' ||
		    (c[0] == '.' && (c[1] == '/' || !c[1])) ||
		    (c[0] == '.' && c[1] == '.' && (c[2] == '/' || !c[2])))
			return false;
	}
	*len = i;
	return i < PATH_BUF;
}

int path_normalize(const char *in, char out[PATH_BUF])
{
	size_t i = 0, o = 0, len;

	if (!in)
		return -EFAULT;
	if (in[0] != '/')
		return -EINVAL;
	if (is_normal(in, &len)) {
		if (out != in)
			memmove(out, in, len + 1);
		return 0;
	}
	if (strnlen(in, PATH_BUF) == PATH_BUF)
		return -ENAMETOOLONG;
	/* Writes stay behind reads (o <= i), so @in may be @out. */
	for (;;) {
		while (in[i] == '/')
			i++;
		len = strcspn(in + i, "/");
		if (!len)
			break;
		if (is_dotdot(in + i, len)) {
			while (o && out[o - 1] != '/')
				o--;
			if (o)
				o--;
		} else if (!is_dot(in + i, len)) {
			out[o++] = '/';
			memmove(out + o, in + i, len);
			o += len;
		}
		i += len;
	}
	if (!o)
		out[o++] = '/';
	out[o] = '\0';
	return 0;
}

bool path_exists(const char *path)
{
	struct stat st;
	int saved = errno;
	bool ret = sys_lstat(path, &st) == 0;

	errno = saved;
	return ret;
}

bool path_is_absent(const char *path)
{
	struct stat st;
	int saved = errno;
	int ret = sys_lstat(path, &st);

	errno = saved;
	return ret == -ENOENT || ret == -ENOTDIR;
}

bool path_search_next(const char **cursor, const char *file, char out[PATH_BUF])
{
	while (*cursor) {
		const char *p = *cursor;
		size_t len = strcspn(p, ":");
		struct strbuf sb = STRBUF(out, PATH_BUF);

		*cursor = p[len] ? p + len + 1 : NULL;
		sb_put(&sb, p, len);
		sb_puts(&sb, len ? "/" : "./");
		sb_puts(&sb, file);
		if (!sb.full)
			return true;
	}
	return false;
}
