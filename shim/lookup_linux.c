/*
 * lookup_linux.c - does a host name need a name server (lookup.h)?
 *
 * libc answers a numeric address itself and a name /etc/hosts lists
 * from the file ("files" comes first in every usual nsswitch.conf);
 * anything else goes to a name server, over UDP (DNS, or through
 * systemd-resolved, whose socket under /run is covered in the sandbox).
 * The file is read in pieces through one stack buffer, a line at a time:
 * no allocation, no stdio.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <stddef.h>
#include <string.h>
#include <strings.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "shim/lookup.h"

#define CHUNK	 4096
#define LINE_CAP 1024 /* longer lines are skipped */

static bool is_numeric(const char *node)
{
	unsigned char addr[16];

	return inet_pton(AF_INET, node, addr) == 1 ||
	       inet_pton(AF_INET6, node, addr) == 1;
}

/* Does the hosts line @line (NUL-terminated, no newline) name @node? */
static bool line_names(char *line, const char *node)
{
	char *hash = strchr(line, '#'), *tok, *save = NULL;
	bool first = true;

	if (hash)
		*hash = '\0';
	for (tok = strtok_r(line, " \t\r", &save); tok;
	     tok = strtok_r(NULL, " \t\r", &save)) {
		if (!first && strcasecmp(tok, node) == 0)
			return true;
		first = false; /* the address */
	}
	return false;
}

static bool hosts_has(int fd, const char *node)
{
	char buf[CHUNK + 1], line[LINE_CAP + 1];
	size_t len = 0;
	bool skip = false;
	ssize_t n;

	while ((n = syscall(SYS_read, fd, buf, CHUNK)) > 0) {
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i] != '\n') {
				if (len < LINE_CAP)
					line[len++] = buf[i];
				else
					skip = true;
				continue;
			}
			line[len] = '\0';
			if (!skip && line_names(line, node))
				return true;
			len = 0;
			skip = false;
		}
	}
	line[len] = '\0';
	return !skip && line_names(line, node);
}

bool lookup_needs_dns(const char *node, const char *hosts)
{
	int fd;
	bool found;

	if (!node || !*node || is_numeric(node))
		return false;
	fd = (int)syscall(SYS_openat, AT_FDCWD, hosts, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return true;
	found = hosts_has(fd, node);
	syscall(SYS_close, fd);
	return !found;
}
