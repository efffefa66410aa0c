/*
 * supervise.c - stay outside the sandbox while the command runs, and
 * keep what the shims of its process tree report.
 *
 * The launcher forks: the child installs the boundary and execs the
 * command; the parent never restricts itself.  It owns a datagram
 * socket that every shim of the tree sends its audit records to (found
 * by path, so a program that closes all its descriptors or clears its
 * environment still reaches it), and the log file, which the command
 * cannot reach: records already written cannot be erased from inside.
 *
 * Whatever comes over the socket is the command's to forge: each
 * datagram is validated and re-serialised with "source": "shim"
 * (record.c).  Every record on its way to the log, the command's
 * reports and the supervisor's own (the broker's and the proxy's
 * refusals, the launcher's notes) alike, goes through one budget
 * (budget.h): what a source may write in a run, a call, a session; the
 * rest is still read, so no sender waits on a full queue, and counted,
 * and what each source lost is said in a record of its own ("dropped")
 * and in the summary.  The log file itself is bounded by its rotation
 * (auditlog.h).  Records of its own say "launcher" or "kernel".  When
 * the command ends it drains the socket and returns the command's
 * status as env(1) would.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "enforce/policy/policy.h"
#include "enforce/base/base.h"
#include "enforce/report/report.h"

/* Datagrams read at once before the command's state is looked at. */
#define DRAIN_BATCH 4096

static pid_t child;

static void forward(int sig)
{
	if (child > 0)
		kill(child, sig);
}

int supervise_default_log(char out[PATH_BUF])
{
	char dir[PATH_BUF];
	int ret = home_state_make(dir);

	if (ret)
		return ret;
	if (snprintf(out, PATH_BUF, "%s/audit.jsonl", dir) >= PATH_BUF)
		return -ENAMETOOLONG;
	return 0;
}

/*
 * The report sockets that runs killed before they could clean up left
 * in the directory @dir (cordon-PID.sock of a PID that no longer
 * lives): removed, so that nothing is left behind for long, whatever
 * ended cordon.
 */
static void remove_stale(int dir)
{
	int fd = openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	struct dirent *e;
	int pid, end;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((e = readdir(d))) {
		end = 0;
		if (sscanf(e->d_name, "cordon-%d.sock%n", &pid, &end) != 1 ||
		    e->d_name[end] || pid <= 0 ||
		    (kill(pid, 0) == 0 || errno != ESRCH))
			continue;
		unlinkat(dir, e->d_name, 0);
	}
	closedir(d);
}

/* The report socket, in rundir_report()'s directory, bound through
 * the directory's descriptor; its file's identity kept for the shim. */
static int bind_socket(struct supervisor *s, char *err, size_t errlen)
{
	struct sockaddr_un sa;
	/* room for the directory: "/cordon-PID.sock" and the NUL */
	size_t room = sizeof(sa.sun_path) - sizeof("/cordon-4194304.sock");
	char dir[PATH_BUF], name[32];
	struct stat st;
	int len, ret = rundir_report(room, dir, &s->sockdir, err, errlen);

	if (ret)
		return ret;
	remove_stale(s->sockdir);
	snprintf(name, sizeof(name), "cordon-%d.sock", (int)getpid());
	if (snprintf(s->sockpath, sizeof(s->sockpath), "%s/%s", dir, name) >=
	    (int)sizeof(s->sockpath))
		return -ENAMETOOLONG;
	len = rundir_addr(s->sockdir, name, &sa);
	if (len < 0)
		return len;
	s->sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (s->sock < 0)
		return -errno;
	unlinkat(s->sockdir, name, 0);
	if (bind(s->sock, (struct sockaddr *)&sa, (socklen_t)len) < 0 ||
	    fstatat(s->sockdir, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	s->sock_dev = st.st_dev;
	s->sock_ino = st.st_ino;
	return 0;
}

int supervise_socket_dir(const struct supervisor *s, char out[PATH_BUF])
{
	char *slash;

	if (s->sock < 0 || !s->sockpath[0])
		return -ENOENT;
	snprintf(out, PATH_BUF, "%s", s->sockpath);
	slash = strrchr(out, '/');
	if (!slash || slash == out)
		return -ENOENT;
	*slash = '\0';
	return 0;
}

/* supervise_prepare() clears what comes before the tally: nothing may
 * come after it. */
_Static_assert(sizeof(struct supervisor) - offsetof(struct supervisor, tally) -
			       sizeof(struct tally) <
		       _Alignof(struct supervisor),
	       "the tally is the supervisor's last member");

int supervise_prepare(struct supervisor *s, const char *log, char *err,
		      size_t errlen)
{
	char def[PATH_BUF];
	int ret;

	/* all but the tally, which clears only its counts (tally.h) */
	memset(s, 0, offsetof(struct supervisor, tally));
	tally_init(&s->tally);
	budget_init(&s->budget, 1);
	s->sock = -1;
	s->log = AUDITLOG_NONE;
	if (!log) {
		ret = supervise_default_log(def);
		log = def;
	} else {
		ret = 0;
	}
	if (!ret)
		ret = auditlog_open(&s->log, log);
	if (ret) {
		snprintf(err, errlen, "cannot open the audit log '%s': %s%s",
			 log, strerror(-ret),
			 ret == -ELOOP ? " (a symbolic link: cordon never "
					 "follows one there; give the file it "
					 "names)"
				       : "");
		return ret;
	}
	snprintf(s->logpath, sizeof(s->logpath), "%s", log);
	err[0] = '\0';
	ret = bind_socket(s, err, errlen);
	if (ret && !err[0])
		snprintf(err, errlen,
			 "cannot create the report socket '%s': %s",
			 s->sockpath, strerror(-ret));
	return ret;
}

/* Append @line (@len bytes, NULL: out of memory) to the log; count it
 * as recorded, or not. */
static int log_line(struct supervisor *s, const char *line, size_t len)
{
	size_t wrote = 0;
	int ret = line ? auditlog_append(&s->log, line, len, &wrote) : -ENOMEM;

	if (ret) {
		s->unwritten++;
		s->write_err = -ret;
		return ret;
	}
	s->records++;
	return 0;
}

/* The log and the tally are written by the supervisor's loop and by
 * the broker's threads (supervise_broker_record). */
static pthread_mutex_t writing = PTHREAD_MUTEX_INITIALIZER;

/* One datagram from inside: validated, within the budget, re-written
 * with its source, then noted for the summary. */
static void keep_locked(struct supervisor *s, const char *buf, size_t len)
{
	size_t denials = s->tally.denials;
	json_t *rec;
	char *line;

	if (budget_full(&s->budget, BUDGET_SHIM)) {
		budget_over(&s->budget, BUDGET_SHIM); /* not even parsed */
		return;
	}
	rec = record_parse(buf, len, NULL);
	if (!rec) {
		budget_reject(&s->budget, BUDGET_SHIM);
		return;
	}
	if (s->tag)
		s->tag(s->tag_arg, rec);
	line = record_dump(rec, &len);
	if (budget_take(&s->budget, BUDGET_SHIM, rec, line ? len : 0) ==
	    BUDGET_WRITE) {
		tally_note(&s->tally, rec);
		if (s->note)
			s->note(s->tag_arg, rec, false);
		if (log_line(s, line, len) && s->tally.denials > denials)
			s->denials_unwritten++;
	}
	free(line);
	json_decref(rec);
}

static void keep(struct supervisor *s, const char *buf, size_t len,
		 pid_t sender)
{
	pthread_mutex_lock(&writing);
	s->sender = sender;
	keep_locked(s, buf, len);
	s->sender = 0;
	pthread_mutex_unlock(&writing);
}

/* A record of the supervisor's own, within its source's budget (every
 * refusal is counted for the summary all the same); @tally: a denial,
 * for the summary too. */
static void log_own(struct supervisor *s, json_t *rec, bool tally)
{
	size_t len = 0, before = s->tally.denials;
	enum budget_verdict v;
	char *line;

	if (!rec)
		return;
	/* tagged under the lock: s->sender is a report's meanwhile */
	pthread_mutex_lock(&writing);
	if (s->tag)
		s->tag(s->tag_arg, rec);
	if (tally) {
		tally_note(&s->tally, rec);
		s->own_denials += s->tally.denials - before;
		if (s->note)
			s->note(s->tag_arg, rec, true);
	}
	line = record_dump(rec, &len);
	v = budget_take(&s->budget, budget_source_of(rec), rec, line ? len : 0);
	if (v != BUDGET_WRITE ||
	    (s->log.fd >= 0 && log_line(s, line, len) != 0))
		s->denials_unwritten += s->tally.denials - before;
	pthread_mutex_unlock(&writing);
	free(line);
	json_decref(rec);
}

/* A record of what was lost, outside every budget (one per source and
 * call at most), tagged, then given @call when it is a call's. */
static void log_dropped(struct supervisor *s, json_t *rec, uint32_t call)
{
	size_t len = 0;
	char *line;

	if (!rec)
		return;
	if (s->tag)
		s->tag(s->tag_arg, rec);
	if (call)
		json_object_set_new(rec, "call", json_integer(call));
	else
		json_object_del(rec, "call"); /* the tag's guess: all calls */
	line = record_dump(rec, &len);
	if (s->log.fd >= 0)
		log_line(s, line, len);
	free(line);
	json_decref(rec);
}

void supervise_record(struct supervisor *s, json_t *rec)
{
	log_own(s, rec, false);
}

void supervise_broker_record(void *arg, json_t *rec)
{
	log_own(arg, rec, true);
}

/* One datagram into @buf, and with creds, its sender's pid in @pid
 * (0 when the kernel said none). */
static ssize_t receive(struct supervisor *s, char *buf, size_t cap, pid_t *pid)
{
	union {
		struct cmsghdr h;
		char space[CMSG_SPACE(sizeof(struct ucred))];
	} ctl;
	struct iovec iov = { buf, cap };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct ucred uc;
	ssize_t n;

	*pid = 0;
	if (!s->creds)
		return recv(s->sock, buf, cap, MSG_TRUNC);
	mh.msg_control = ctl.space;
	mh.msg_controllen = sizeof(ctl.space);
	n = recvmsg(s->sock, &mh, MSG_TRUNC | MSG_CMSG_CLOEXEC);
	for (struct cmsghdr *c = n >= 0 ? CMSG_FIRSTHDR(&mh) : NULL; c;
	     c = CMSG_NXTHDR(&mh, c))
		if (c->cmsg_level == SOL_SOCKET &&
		    c->cmsg_type == SCM_CREDENTIALS &&
		    c->cmsg_len == CMSG_LEN(sizeof(uc))) {
			memcpy(&uc, CMSG_DATA(c), sizeof(uc));
			*pid = uc.pid;
		} else if (c->cmsg_level == SOL_SOCKET &&
			   c->cmsg_type == SCM_RIGHTS) {
			/* descriptors sent along: not wanted */
			int *fd = (int *)(void *)CMSG_DATA(c);
			size_t nfd = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);

			for (size_t i = 0; i < nfd; i++)
				close(fd[i]);
		}
	return n;
}

/* What is queued, a batch at most: a sender that never stops (the
 * command's orphan, outside a PID namespace) cannot hold the
 * supervisor here. */
void supervise_drain(struct supervisor *s)
{
	static char buf[RECORD_DATAGRAM_MAX];
	ssize_t n;
	pid_t pid;

	for (int i = 0; i < DRAIN_BATCH; i++) {
		/* MSG_TRUNC: the datagram's real length, to refuse a cut one */
		n = receive(s, buf, sizeof(buf), &pid);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		keep(s, buf, (size_t)n, pid);
	}
}

int supervise_want_creds(struct supervisor *s)
{
	int on = 1;

	if (setsockopt(s->sock, SOL_SOCKET, SO_PASSCRED, &on, sizeof(on)) < 0)
		return -errno;
	s->creds = true;
	return 0;
}

static int exit_status(int st)
{
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return EXIT_CORDON;
}

static void handle_signals(void)
{
	static const int fwd[] = { SIGTERM, SIGHUP, SIGUSR1, SIGUSR2 };
	struct sigaction sa = { .sa_handler = forward };

	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(fwd) / sizeof(fwd[0]); i++)
		sigaction(fwd[i], &sa, NULL);
	/* The terminal sends these to the whole foreground group: the
	 * command gets them itself, as under system(3). */
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
}

/*
 * Is @pid pid 1 of a PID namespace of its own (ns_fork)?  Then its exit
 * status relays the command's (pid1_relay): a signal N as exit 128+N.
 * Read before it is reaped; /proc/PID/status needs no ptrace access.
 */
static bool is_ns_init(pid_t pid)
{
	int levels;

	/* "NSpid:\tOUTER\t1": two levels at least, 1 in the innermost */
	return procfs_ns_pid(pid, &levels) == 1 && levels >= 2;
}

/*
 * The seccomp filter kills a process that makes a system call of
 * another architecture (sysfilter.c: SIGSYS).  When the wait status
 * says so, the kernel said so: one record of its own.  Relayed from
 * the namespace's pid 1, it is only exit 128+SIGSYS, which the command
 * can also exit with: the launcher says what it saw, not more.
 */
static void note_sigsys(struct supervisor *s, pid_t pid, int st, bool relayed)
{
	json_t *more;

	if (WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS)
		s->sigsys = SUPERVISE_KILLED_BY_SIGSYS;
	else if (relayed && WIFEXITED(st) && WEXITSTATUS(st) == 128 + SIGSYS)
		s->sigsys = SUPERVISE_EXIT_159;
	else
		return;
	if (s->sigsys == SUPERVISE_KILLED_BY_SIGSYS) {
		more = json_pack("{s:i, s:s, s:s}", "pid", (int)pid, "signal",
				 "SIGSYS", "layer", "kernel");
		log_own(s,
			record_new(RECORD_KERNEL, "syscall", "deny",
				   SUPERVISE_SIGSYS_RULE, more),
			false);
	} else {
		more = json_pack("{s:i, s:i}", "pid", (int)pid, "status",
				 128 + SIGSYS);
		log_own(s,
			record_new(RECORD_LAUNCHER, "syscall", "note",
				   SUPERVISE_SIGSYS_RELAYED, more),
			false);
	}
	json_decref(more);
}

/* What the log lacks of each source, said in the log too. */
void supervise_note_losses(struct supervisor *s)
{
	pthread_mutex_lock(&writing);
	for (int src = 0; src < BUDGET_SOURCES; src++)
		log_dropped(s, budget_dropped(&s->budget, src, 0), 0);
	pthread_mutex_unlock(&writing);
}

void supervise_note_call_losses(struct supervisor *s, uint32_t call,
				struct budget_count lost[BUDGET_SOURCES])
{
	memset(lost, 0, BUDGET_SOURCES * sizeof(*lost));
	if (!call)
		return; /* no call: nothing of its own */
	pthread_mutex_lock(&writing);
	for (int src = 0; src < BUDGET_SOURCES; src++) {
		const struct budget_count *c = budget_of(&s->budget, src, call);

		lost[src] = c ? *c : (struct budget_count){ 0 };
		log_dropped(s, budget_dropped(&s->budget, src, call), call);
	}
	budget_end_call(&s->budget, call);
	pthread_mutex_unlock(&writing);
}

int supervise_wait(struct supervisor *s, pid_t pid)
{
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	struct pollfd fds[2] = { { .fd = s->sock, .events = POLLIN },
				 { .fd = pidfd, .events = POLLIN } };
	bool relayed = is_ns_init(pid), reaped = false;
	int st = 0;

	child = pid;
	handle_signals();
	while (!reaped) {
		/* Without a pidfd (Linux < 5.3), poll in steps. */
		int n = poll(fds, pidfd >= 0 ? 2 : 1, pidfd >= 0 ? -1 : 100);

		if (n < 0 && errno != EINTR)
			break;
		if (n > 0 && (fds[0].revents & POLLIN))
			supervise_drain(s);
		reaped = waitpid(pid, &st, WNOHANG) == pid;
	}
	if (!reaped)
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
	if (pidfd >= 0)
		close(pidfd);
	supervise_drain(s);
	note_sigsys(s, pid, st, relayed);
	supervise_note_losses(s);
	supervise_report_check(s);
	return exit_status(st);
}

void supervise_close(struct supervisor *s)
{
	if (s->sock >= 0) {
		close(s->sock);
		unlinkat(s->sockdir, strrchr(s->sockpath, '/') + 1, 0);
	}
	auditlog_close(&s->log);
	budget_free(&s->budget);
	s->sock = -1;
}

/* What the sweep after the run moved aside: one line each, and a
 * record of the launcher's own. */
static void swept(const struct gitguard_event *e, void *arg)
{
	json_t *more;

	if (e->moved)
		fprintf(stderr,
			"cordon: WARNING: moved '%s' to '%s': %s; allow it "
			"with --write %s\n",
			e->path, e->moved, e->why, e->allow);
	else
		fprintf(stderr,
			"cordon: WARNING: cannot move '%s' aside (%s): %s; "
			"remove it before running git there\n",
			e->path, strerror(e->err), e->why);
	more = json_pack("{s:s, s:s, s:s, s:s}", "path", e->path, "resolved",
			 e->path, "moved", e->moved ? e->moved : "", "allow",
			 e->allow);
	supervise_record(arg, record_new(RECORD_LAUNCHER, "git-plant", "deny",
					 e->why, more));
	json_decref(more);
}

void supervise_sweep(struct supervisor *s, const struct policy *p)
{
	gitguard_sweep(p, swept, s);
}

void supervise_report_check(struct supervisor *s)
{
	char rule[PATH_BUF + 160];
	const char *name;
	struct stat st;
	json_t *more;

	if (s->sock < 0 || !s->sock_ino || !(name = strrchr(s->sockpath, '/')))
		return;
	if (fstatat(s->sockdir, name + 1, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    st.st_dev == s->sock_dev && st.st_ino == s->sock_ino)
		return;
	snprintf(rule, sizeof(rule),
		 "the report socket '%s' was moved or replaced during the "
		 "run: the shims sent nothing after that, and this log lacks "
		 "their reports",
		 s->sockpath);
	fprintf(stderr, "cordon: %s\n", rule);
	more = json_pack("{s:s}", "path", s->sockpath);
	supervise_record(s, record_new(RECORD_LAUNCHER, "report-socket", "note",
				       rule, more));
	json_decref(more);
}
