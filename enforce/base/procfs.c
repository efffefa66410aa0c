/*
 * procfs.c - what the launcher reads of a process in /proc (procfs.h).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "enforce/base/base.h"

/* /proc/@pid/@what (@pid 0: self) into @buf, NUL-ended; its length,
 * or -1. */
static ssize_t slurp(pid_t pid, const char *what, char *buf, size_t cap)
{
	char path[64];
	ssize_t n;
	int fd;

	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, what);
	else
		snprintf(path, sizeof(path), "/proc/self/%s", what);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, cap - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return n;
}

int procfs_stat(pid_t pid, struct procfs_stat *out)
{
	char buf[1024], *p;
	int ppid, pgrp;

	if (slurp(pid, "stat", buf, sizeof(buf)) < 0)
		return -1;
	/* "PID (COMM) S PPID PGRP SESSION TTY_NR ...": COMM may hold
	 * anything, ')' too: the fields follow the last one */
	p = strrchr(buf, ')');
	if (!p ||
	    sscanf(p + 1,
		   " %*c %d %d %*d %llu %*d %*u %*u %*u %*u %*u %*u %*u %*d "
		   "%*d %*d %*d %*d %*d %llu",
		   &ppid, &pgrp, &out->tty, &out->start) != 4)
		return -1;
	out->ppid = ppid;
	out->pgrp = pgrp;
	return 0;
}

pid_t procfs_ns_pid(pid_t pid, int *levels)
{
	char buf[4096], *line, *tok, *save = NULL;
	long v = -1;

	*levels = 0;
	if (slurp(pid, "status", buf, sizeof(buf)) < 0)
		return -1;
	line = strstr(buf, "\nNSpid:");
	if (!line)
		return -1;
	line[strcspn(line + 1, "\n") + 1] = '\0';
	for (tok = strtok_r(line + 7, " \t", &save); tok;
	     tok = strtok_r(NULL, " \t", &save)) {
		char *end;

		v = strtol(tok, &end, 10);
		if (*end || v < 0)
			return -1;
		++*levels;
	}
	return *levels ? (pid_t)v : -1;
}

int procfs_children(pid_t pid, pid_t *out, size_t cap)
{
	char what[32], buf[4096], *tok, *save = NULL, *end;
	int n = 0;

	snprintf(what, sizeof(what), "task/%d/children", (int)pid);
	if (slurp(pid, what, buf, sizeof(buf)) < 0)
		return -1;
	for (tok = strtok_r(buf, " \n", &save); tok && (size_t)n < cap;
	     tok = strtok_r(NULL, " \n", &save)) {
		long c = strtol(tok, &end, 10);

		if (!*end && c > 0)
			out[n++] = (pid_t)c;
	}
	return n;
}

unsigned long long procfs_start(pid_t pid)
{
	char buf[1024], *p;
	unsigned long long start;

	if (slurp(pid, "stat", buf, sizeof(buf)) < 0)
		return 0;
	/* starttime is field 22; the fields after COMM start at 3 */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1,
			 " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u"
			 " %*u %*d %*d %*d %*d %*d %*d %llu",
			 &start) != 1)
		return 0;
	return start;
}

int procfs_boot_ns(char *out, size_t len)
{
	char id[64], *w = id;
	struct stat st;
	int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, id, sizeof(id) - 1);
	close(fd);
	if (n <= 0 || stat("/proc/self/ns/pid", &st) < 0)
		return -1;
	id[n] = '\0';
	/* the uuid's hex digits alone: a name of [0-9a-f.] */
	for (char *r = id; *r; r++)
		if ((*r >= '0' && *r <= '9') || (*r >= 'a' && *r <= 'f'))
			*w++ = *r;
	*w = '\0';
	if (w - id != 32)
		return -1;
	n = snprintf(out, len, "%s.%llu", id, (unsigned long long)st.st_ino);
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

int procfs_mnt_id(int fd, unsigned long long *id)
{
	char what[48], buf[512], *line;

	snprintf(what, sizeof(what), "fdinfo/%d", fd);
	if (slurp(0, what, buf, sizeof(buf)) < 0)
		return -1;
	line = strstr(buf, "\nmnt_id:");
	return line && sscanf(line + 8, "%llu", id) == 1 ? 0 : -1;
}
