/*
 * session_note.c - what a call of a session says as a plain run would:
 * the proxy's denial lines while it runs, and the summary of its own
 * denials when it ends, both sent to its caller (who prints them on its
 * stderr), never written by the supervisor to the caller's terminal or
 * pipe (a reader that stops would hold up the whole session).
 *
 * The supervisor's loop, the broker's threads and the proxy's note each
 * record here (supervise.h, "note"), once tagged with its call; a line
 * is queued for the call, and the loop, woken by s->wake, sends it.
 * s->mu guards each client's note and what the tag reads of a client.
 *
 * Which call a record is of (session_tag()): the one whose command is
 * the report's sender or its ancestor, or leads its process group, by
 * the kernel's word on the sender (SO_PASSCRED) and /proc; a record the
 * kernel did not vouch for (the broker's, the proxy's) goes by the pid
 * it names, or to the one call running.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "enforce/linux/linux.h"
#include "enforce/base/base.h"
#include "enforce/session/session_note.h"
#include "enforce/report/report.h"

/* A call's share of the records: its own tally (570 KB, touched only
 * where a report needs it: calloc'd pages are the kernel's zero pages
 * until then), and the proxy's lines, once per destination. */
struct session_note {
	struct tally tally;
	size_t own; /* of tally.denials, the supervisor's */
	size_t nsaid, npending;
	char said[SESSION_LINES_KEPT][PROXY_DEST_MAX];
	char pending[SESSION_LINES_KEPT][SESSION_NOTE_LINE];
};

static bool said_before(struct session_note *n, const char *dest)
{
	for (size_t i = 0; i < n->nsaid; i++)
		if (strcmp(n->said[i], dest) == 0)
			return true;
	if (n->nsaid == SESSION_LINES_KEPT)
		return true; /* past the lines kept: the summary says it */
	snprintf(n->said[n->nsaid++], PROXY_DEST_MAX, "%s", dest);
	return false;
}

/* A refusal of the proxy (conn_refuse()), which a plain run's
 * supervisor says on its stderr: queued for the caller. */
static void queue_line(struct session *s, struct session_note *n,
		       const json_t *rec)
{
	const char *allow = json_string_value(json_object_get(rec, "allow"));
	const char *dest =
		json_string_value(json_object_get(rec, "destination"));
	static const uint64_t one = 1;

	if (!allow || strncmp(allow, "with --allow-host ", 18) != 0 || !dest ||
	    n->npending == SESSION_LINES_KEPT || said_before(n, dest))
		return;
	if (!hostgate_line(rec, n->pending[n->npending], SESSION_NOTE_LINE))
		return;
	n->npending++;
	if (write(s->wake, &one, sizeof(one)) < 0)
		(void)0; /* the counter is set already */
}

void session_note(void *arg, json_t *rec, bool own)
{
	struct session *s = arg;
	json_int_t call = json_integer_value(json_object_get(rec, "call"));
	struct client *k = NULL;
	size_t before;

	if (call <= 0 || s->c->policy.quiet)
		return;
	pthread_mutex_lock(&s->mu);
	for (size_t i = 0; i < SESSION_CLIENTS_MAX && !k; i++)
		if (s->clients[i].running && s->clients[i].call == call)
			k = &s->clients[i];
	if (k && !k->note) {
		k->note = calloc(1, sizeof(*k->note));
		if (k->note) {
			tally_init(&k->note->tally);
			k->note->tally.policy = &s->c->policy;
		}
	}
	if (k && k->note) {
		before = k->note->tally.denials;
		tally_note(&k->note->tally, rec);
		if (own)
			k->note->own += k->note->tally.denials - before;
		if (own && k->note->tally.denials > before)
			queue_line(s, k->note, rec);
	}
	pthread_mutex_unlock(&s->mu);
}

void session_note_flush(struct session *s)
{
	char line[SESSION_NOTE_LINE + 1];
	uint64_t count;
	size_t len;

	if (read(s->wake, &count, sizeof(count)) < 0 && errno != EAGAIN)
		return;
	for (size_t i = 0; i < SESSION_CLIENTS_MAX; i++) {
		struct client *k = &s->clients[i];

		for (;;) {
			pthread_mutex_lock(&s->mu);
			len = 0;
			if (k->note && k->note->npending) {
				struct session_note *n = k->note;

				len = strlen(n->pending[0]);
				memcpy(line, n->pending[0], len + 1);
				memmove(n->pending[0], n->pending[1],
					--n->npending * SESSION_NOTE_LINE);
			}
			pthread_mutex_unlock(&s->mu);
			if (!len)
				break;
			if (line[len - 1] == '\n')
				line[--len] = '\0';
			session_reply(k, json_pack("{s:s}", "line", line));
		}
	}
}

char *session_note_take(struct session *s, struct client *k)
{
	struct budget_count lost[BUDGET_SOURCES];
	struct session_note *n;
	char *text;

	pthread_mutex_lock(&s->mu);
	n = k->note;
	k->note = NULL;
	pthread_mutex_unlock(&s->mu);
	/* what the log lacks of the call: in the log, and said to it */
	supervise_note_call_losses(&s->sup, k->call, lost);
	text = summary_of_call(&s->sup, n ? &n->tally : NULL, n ? n->own : 0,
			       s->id, k->call, lost);
	if (n)
		tally_free(&n->tally);
	free(n);
	return text;
}

/* The pid, as this process sees it, of pid 1's child whose pid in the
 * namespace is @ns_pid, or 0. */
static pid_t host_pid_of(struct session *s, pid_t ns_pid)
{
	pid_t kids[1024];
	int n = procfs_children(s->pid1, kids, 1024), levels;

	for (int i = 0; i < n; i++)
		if (procfs_ns_pid(kids[i], &levels) == ns_pid)
			return kids[i];
	return 0;
}

/* The running call whose command is @pid, or one of its ancestors, or
 * leads its process group (an orphan of the call's, reparented to pid
 * 1, keeps it); pids as this process sees them, the kernel's word
 * (SO_PASSCRED), never the record's.  With s->mu held. */
static struct client *call_of_sender(struct session *s, pid_t pid)
{
	struct procfs_stat st;

	for (size_t i = 0; i < SESSION_CLIENTS_MAX; i++) {
		struct client *k = &s->clients[i];

		if (k->running && k->pid && !k->host_pid)
			k->host_pid = host_pid_of(s, k->pid);
	}
	for (int depth = 0; depth < 64 && pid > 1 && pid != s->pid1; depth++) {
		if (procfs_stat(pid, &st) < 0)
			return NULL;
		for (size_t i = 0; i < SESSION_CLIENTS_MAX; i++) {
			struct client *k = &s->clients[i];

			if (k->running && k->host_pid &&
			    (k->host_pid == pid || k->host_pid == st.pgrp))
				return k;
		}
		pid = st.ppid;
	}
	return NULL;
}

/* The socket inode of the connection from @port to the proxy, in the
 * network namespace of pid 1 (/proc/PID/net/tcp and tcp6 are its), or
 * 0.  Any connected socket of that port: a captured one names the
 * address it dialed, not the proxy's.  @udp: a UDP socket bound to
 * @port (udp, udp6), connected or not: a query's. */
static unsigned long proxy_client_inode(struct session *s, unsigned int port,
					bool udp)
{
	static const char *const files[] = { "tcp", "tcp6", "udp", "udp6" };
	char path[64], line[512];
	unsigned long inode = 0;

	for (size_t i = udp ? 2 : 0; i < (udp ? 4u : 2u) && !inode; i++) {
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/net/%s", (int)s->pid1,
			 files[i]);
		f = fopen(path, "re");
		if (!f)
			continue;
		/* "sl local:PORT rem:PORT st tx:rx tr:when retr uid tmo inode"
		 */
		while (!inode && fgets(line, sizeof(line), f)) {
			unsigned int lport, rport;
			unsigned long ino;

			if (sscanf(line,
				   " %*u: %*[0-9A-Fa-f]:%x %*[0-9A-Fa-f]:%x "
				   "%*x "
				   "%*x:%*x %*x:%*x %*x %*u %*u %lu",
				   &lport, &rport, &ino) == 3 &&
			    lport == port && (udp || rport != 0))
				inode = ino;
		}
		fclose(f);
	}
	return inode;
}

/* Does process @pid hold the socket "socket:[@inode]"? */
static bool holds(pid_t pid, const char *want)
{
	char path[64], link[64];
	struct dirent *e;
	bool found = false;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	d = opendir(path);
	if (!d)
		return false;
	while (!found && (e = readdir(d))) {
		ssize_t n =
			readlinkat(dirfd(d), e->d_name, link, sizeof(link) - 1);

		if (n > 0) {
			link[n] = '\0';
			found = strcmp(link, want) == 0;
		}
	}
	closedir(d);
	return found;
}

/* The process of the session (pid 1's descendants, breadth first, a
 * bounded number) holding the socket of the connection from @port to
 * the proxy, or 0. */
static pid_t proxy_client(struct session *s, unsigned int port, bool udp)
{
	enum { MAX = 4096 };
	static pid_t queue[MAX];
	unsigned long inode = proxy_client_inode(s, port, udp);
	char want[64];
	size_t head = 0, tail = 0;

	if (!inode)
		return 0;
	snprintf(want, sizeof(want), "socket:[%lu]", inode);
	queue[tail++] = s->pid1;
	while (head < tail) {
		pid_t p = queue[head++];
		int n;

		if (p != s->pid1 && holds(p, want))
			return p;
		/* the children of its main thread: a program's threads
		 * rarely fork, and a miss is an untagged record */
		n = procfs_children(p, queue + tail, MAX - tail);
		if (n > 0)
			tail += (size_t)n;
	}
	return 0;
}

struct client *session_note_call_of_port(struct session *s, unsigned int port,
					 bool udp)
{
	pid_t holder =
		port > 0 && port < 65536 ? proxy_client(s, port, udp) : 0;

	return holder ? call_of_sender(s, holder) : NULL;
}

void session_tag(void *arg, json_t *rec)
{
	struct session *s = arg;
	json_int_t pid = json_integer_value(json_object_get(rec, "pid"));
	json_int_t ppid = json_integer_value(json_object_get(rec, "ppid"));
	json_int_t pgid = json_integer_value(json_object_get(rec, "pgid"));
	struct client *only = NULL, *k;
	size_t running = 0;

	json_object_set_new(rec, "session", json_string(s->id));
	pthread_mutex_lock(&s->mu);
	k = s->sup.sender > 0 ? call_of_sender(s, s->sup.sender) : NULL;
	/* the proxy's refusal, with several calls running: the process
	 * whose connection it is, while it waits for the answer */
	if (!k && s->running > 1 &&
	    json_is_integer(json_object_get(rec, "client_port"))) {
		json_int_t port =
			json_integer_value(json_object_get(rec, "client_port"));

		k = port > 0 && port < 65536
			    ? session_note_call_of_port(s, (unsigned int)port,
							false)
			    : NULL;
	}
	if (k) {
		json_object_set_new(rec, "call", json_integer(k->call));
		pthread_mutex_unlock(&s->mu);
		return;
	}
	for (size_t i = 0; i < SESSION_CLIENTS_MAX; i++) {
		k = &s->clients[i];
		if (!k->running)
			continue;
		running++;
		only = k;
		/* a sender gone before its report was read, or a report the
		 * kernel did not vouch for: its own claim */
		if (k->pid &&
		    (k->pid == pid || k->pid == ppid || k->pid == pgid)) {
			only = k;
			running = 1;
			break;
		}
	}
	/* the one call that runs: its descendants' records are its own */
	if (running == 1)
		json_object_set_new(rec, "call", json_integer(only->call));
	pthread_mutex_unlock(&s->mu);
}
