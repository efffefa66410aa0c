/*
 * session_ask.c - --ask in a session: before the proxy refuses a host,
 * the caller of the call that caused it is asked, through the protocol
 * (doc/session-protocol.md), never the command: {"ask": "HOST[:PORT]",
 * "id": N} on the call's connection, answered by {"op": "answer", "id":
 * N, "allow": "yes" | "no" | "always"}.
 *
 * The question comes from the proxy's asker thread (one at a time, it
 * blocks); the supervisor's loop sends it and reads the answer.  They
 * meet in s->q under s->mu: the asker sets the question and wakes the
 * loop (s->wake), then waits on the condition until answered, the
 * call's connection gone, the session over or SESSION_ASK_SECONDS
 * passed (no).  The call is the one whose process holds the
 * connection's client port, or a name's query's socket (session_note.c;
 * a call pid 1 has not yet said started is waited for up to
 * SESSION_STARTED_SECONDS); no such process, no call to ask: no.  Only a
 * caller that said it answers ("ask": true in its run) is asked; any
 * other call's refusal is final.  "always" merges the host into the
 * profile --ask=PROFILE named, through its directory held at the
 * session's start (ask.c, learn.h).  A yes is the proxy's rule for the
 * rest of the session: every later call of it reaches the host too.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "enforce/base/base.h"
#include "enforce/session/session_ask.h"
#include "enforce/session/session_note.h"

#define SESSION_ASK_SECONDS	30
#define SESSION_STARTED_SECONDS 2

static struct session *asking;

static void after(struct timespec *t, time_t sec)
{
	clock_gettime(CLOCK_MONOTONIC, t);
	t->tv_sec += sec;
}

static bool passed(const struct timespec *end)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec > end->tv_sec ||
	       (now.tv_sec == end->tv_sec && now.tv_nsec >= end->tv_nsec);
}

/* With s->mu held: wait for the answer to the question just set. */
static int wait_answer(struct session *s, struct client *k)
{
	struct session_question *q = &s->q;
	struct timespec end, tick;

	after(&end, SESSION_ASK_SECONDS);
	while (q->answer < 0 && !q->over && !passed(&end) && k->fd >= 0 &&
	       k->call == q->call) {
		/* a dropped connection says nothing to the condition */
		after(&tick, 1);
		pthread_cond_timedwait(&q->answered, &s->mu, &tick);
	}
	return q->answer < 0 ? ASK_NO : q->answer;
}

/* With s->mu held: is a call running whose command pid 1 has not yet
 * said it started (its pid unknown, so no socket can be its)? */
static bool unreported(struct session *s)
{
	for (size_t i = 0; i < SESSION_CLIENTS_MAX; i++)
		if (s->clients[i].running && !s->clients[i].pid)
			return true;
	return false;
}

/* With s->mu held: the call holding @client_port.  A command quick to
 * ask (a static binary's first query) can come before the loop has read
 * pid 1's word that it started: its call is waited for, a little. */
static struct client *asking_call(struct session *s, unsigned int client_port,
				  bool udp)
{
	struct client *k = session_note_call_of_port(s, client_port, udp);
	struct timespec end, tick;

	after(&end, SESSION_STARTED_SECONDS);
	while (!k && unreported(s) && !s->q.over && !passed(&end)) {
		clock_gettime(CLOCK_MONOTONIC, &tick);
		tick.tv_nsec += 50 * 1000000L;
		if (tick.tv_nsec >= 1000000000L) {
			tick.tv_sec++;
			tick.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&s->q.answered, &s->mu, &tick);
		k = session_note_call_of_port(s, client_port, udp);
	}
	return k;
}

/* The proxy's asker (platform_hosts_ask()): nonzero to allow @spec. */
static int ask_call(const char *spec, unsigned int client_port, bool udp)
{
	static const uint64_t one = 1;
	struct session *s = asking;
	struct session_question *q = &s->q;
	struct client *k;
	int answer = ASK_NO;

	if (!client_port)
		return 0; /* no asker's port: no call to ask */
	pthread_mutex_lock(&s->mu);
	k = asking_call(s, client_port, udp);
	if (k && k->asks && k->fd >= 0 && !q->over) {
		q->id = q->id + 1 ? q->id + 1 : 1;
		q->client = (int)(k - s->clients);
		q->call = k->call;
		q->sent = false;
		q->answer = -1;
		snprintf(q->spec, sizeof(q->spec), "%s", spec);
		if (write(s->wake, &one, sizeof(one)) < 0)
			(void)0; /* the counter is set already */
		answer = wait_answer(s, k);
		q->client = -1;
	}
	pthread_mutex_unlock(&s->mu);
	if (answer == ASK_ALWAYS && ask_save(spec))
		answer = ASK_YES; /* no profile, or not written */
	return answer != ASK_NO;
}

void session_ask_start(struct session *s)
{
	pthread_condattr_t attr;

	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&s->q.answered, &attr);
	pthread_condattr_destroy(&attr);
	s->q.client = -1;
	asking = s;
	platform_hosts_ask(ask_call);
}

void session_ask_flush(struct session *s)
{
	struct client *k = NULL;
	json_t *doc = NULL;

	if (!asking)
		return;
	pthread_mutex_lock(&s->mu);
	if (s->q.client >= 0 && !s->q.sent) {
		k = &s->clients[s->q.client];
		doc = json_pack("{s:s, s:I}", "ask", s->q.spec, "id",
				(json_int_t)s->q.id);
		s->q.sent = true;
	}
	pthread_mutex_unlock(&s->mu);
	if (doc)
		session_reply(k, doc);
}

static int answer_of(const char *allow)
{
	if (!allow)
		return -1;
	if (strcmp(allow, "yes") == 0)
		return ASK_YES;
	if (strcmp(allow, "no") == 0)
		return ASK_NO;
	if (strcmp(allow, "always") == 0)
		return ASK_ALWAYS;
	return -1;
}

const char *session_ask_answer(struct session *s, struct client *k, json_t *req)
{
	json_t *id = json_object_get(req, "id");
	int answer =
		answer_of(json_string_value(json_object_get(req, "allow")));

	if (!json_is_integer(id) || answer < 0)
		return "\"answer\" has the question's \"id\" and \"allow\": "
		       "yes, no or always";
	if (!asking)
		return NULL;
	pthread_mutex_lock(&s->mu);
	if (s->q.client == (int)(k - s->clients) && s->q.sent &&
	    json_integer_value(id) == (json_int_t)s->q.id && s->q.answer < 0) {
		s->q.answer = answer;
		pthread_cond_broadcast(&s->q.answered);
	}
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

void session_ask_started(struct session *s)
{
	if (asking)
		pthread_cond_broadcast(&s->q.answered);
}

void session_ask_stop(struct session *s)
{
	if (!asking)
		return;
	pthread_mutex_lock(&s->mu);
	s->q.over = true;
	pthread_cond_broadcast(&s->q.answered);
	pthread_mutex_unlock(&s->mu);
}
