/*
 * proxy_fixture.h - for test_proxy*.c: an origin server on loopback (a
 * thread answering each request with "hello" and keeping the head it
 * got), a proxy started on a loopback listener with an injected
 * resolver, a record collector, and small blocking clients.
 */
#ifndef CORDON_PROXY_FIXTURE_H
#define CORDON_PROXY_FIXTURE_H

#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "enforce/proxy/proxy.h"
#include "enforce/base/base.h"

static int origin_fd = -1, origin_port;
/* a listener that never accepts: its peers' bytes pile up */
static int sink_fd = -1, sink_port;
static pthread_t origin_thread;
static char origin_head[4096];
static pthread_mutex_t fx_mu = PTHREAD_MUTEX_INITIALIZER;
static struct proxy *px;
static int proxy_port;
static char records[16][1024];
static int nrecords;

static int listen_loopback(int *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	cr_assert_geq(fd, 0);
	cr_assert_eq(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	cr_assert_eq(listen(fd, 512), 0);
	getsockname(fd, (struct sockaddr *)&a, &len);
	*port = ntohs(a.sin_port);
	return fd;
}

static void *origin(void *arg)
{
	static const char answer[] = "HTTP/1.1 200 OK\r\nContent-Length: 5"
				     "\r\nConnection: close\r\n\r\nhello";
	char buf[4096];
	size_t got;
	ssize_t n;
	int c;

	(void)arg;
	while ((c = accept(origin_fd, NULL, NULL)) >= 0) {
		got = 0;
		while (got < sizeof(buf) - 1 &&
		       (n = read(c, buf + got, sizeof(buf) - 1 - got)) > 0) {
			got += (size_t)n;
			buf[got] = '\0';
			if (strstr(buf, "\r\n\r\n"))
				break;
		}
		buf[got] = '\0';
		pthread_mutex_lock(&fx_mu);
		memcpy(origin_head, buf, got + 1);
		pthread_mutex_unlock(&fx_mu);
		if (write(c, answer, sizeof(answer) - 1) < 0)
			perror("origin");
		close(c);
	}
	return NULL;
}

/* Names of the tests: allowed.test, localhost, *.wild.test, all on
 * loopback; anything else does not exist. */
static int fake_resolve(void *arg, const char *host, uint16_t port,
			struct sockaddr_storage *out, size_t max)
{
	struct sockaddr_in *a = (struct sockaddr_in *)out;
	size_t h = strlen(host);

	(void)arg;
	if (max < 1)
		return -ENOSPC;
	if (strcmp(host, "allowed.test") && strcmp(host, "localhost") &&
	    (h < 10 || strcmp(host + h - 10, ".wild.test")))
		return -ENOENT;
	memset(out, 0, sizeof(*out));
	a->sin_family = AF_INET;
	a->sin_port = htons(port);
	a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return 1;
}

static void collect(void *arg, json_t *rec)
{
	size_t len;
	char *line = record_dump(rec, &len);

	(void)arg;
	pthread_mutex_lock(&fx_mu);
	if (line && nrecords < 16)
		snprintf(records[nrecords++], sizeof(records[0]), "%s", line);
	pthread_mutex_unlock(&fx_mu);
	free(line);
	json_decref(rec);
}

static void start_proxy(struct proxy_policy *pol)
{
	static struct proxy_rule rules[5];
	char spec[64];
	int fd = listen_loopback(&proxy_port);

	snprintf(spec, sizeof(spec), "allowed.test:%d", origin_port);
	cr_assert_eq(proxy_rule_parse(spec, &rules[0]), 0);
	snprintf(spec, sizeof(spec), "*.wild.test:%d", origin_port);
	cr_assert_eq(proxy_rule_parse(spec, &rules[1]), 0);
	snprintf(spec, sizeof(spec), "localhost:%d", origin_port);
	cr_assert_eq(proxy_rule_parse(spec, &rules[2]), 0);
	snprintf(spec, sizeof(spec), "localhost:%d", sink_port);
	cr_assert_eq(proxy_rule_parse(spec, &rules[3]), 0);
	snprintf(spec, sizeof(spec), "127.0.0.1:%d", sink_port);
	cr_assert_eq(proxy_rule_parse(spec, &rules[4]), 0);
	pol->rules = rules;
	pol->nrules = 5;
	pol->resolve = fake_resolve;
	cr_assert_eq(proxy_start(&px, fd, pol, collect, NULL), 0);
}

static void fx_setup(void)
{
	struct proxy_policy pol = { .header_ms = 1000, .connect_ms = 2000 };

	nrecords = 0;
	origin_fd = listen_loopback(&origin_port);
	sink_fd = listen_loopback(&sink_port);
	pthread_create(&origin_thread, NULL, origin, NULL);
	start_proxy(&pol);
}

static void fx_teardown(void)
{
	proxy_stop(px);
	px = NULL;
	shutdown(origin_fd, SHUT_RDWR);
	pthread_join(origin_thread, NULL);
	close(origin_fd);
	close(sink_fd);
}

static int dial(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons((uint16_t)proxy_port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	cr_assert_eq(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	return fd;
}

static void say(int fd, const void *buf, size_t len)
{
	cr_assert_eq(write(fd, buf, len), (ssize_t)len);
}

/* Read until EOF (or @len - 1 bytes, or 5 s): what came, NUL-ended. */
static size_t hear(int fd, char *buf, size_t len)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	size_t got = 0;
	ssize_t n;

	while (got < len - 1 && poll(&p, 1, 5000) == 1) {
		n = read(fd, buf + got, len - 1 - got);
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	buf[got] = '\0';
	return got;
}

/* @req to the proxy on a new connection; its answer until EOF. */
static inline size_t ask(const char *req, char *buf, size_t len)
{
	int fd = dial();
	size_t n;

	say(fd, req, strlen(req));
	n = hear(fd, buf, len);
	close(fd);
	return n;
}

/* Read exactly @len bytes (5 s at most). */
static void hear_exactly(int fd, void *buf, size_t len)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	size_t got = 0;
	ssize_t n;

	while (got < len) {
		cr_assert_eq(poll(&p, 1, 5000), 1, "timed out");
		n = read(fd, (char *)buf + got, len - got);
		cr_assert_gt(n, 0);
		got += (size_t)n;
	}
}

static bool has_record(const char *needle)
{
	bool found = false;

	pthread_mutex_lock(&fx_mu);
	for (int i = 0; i < nrecords; i++)
		found = found || strstr(records[i], needle);
	pthread_mutex_unlock(&fx_mu);
	return found;
}

#endif
