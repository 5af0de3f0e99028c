/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/socket.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include "ex_common.h"

/* Whether this machine has an RDMA device (false when it cannot list them). */
static int ex_any_device(void)
{
	size_t n = 0;

	return vs_device_list(NULL, 0, &n) == 0 && n > 0;
}

void ex_die(const char *what)
{
	char buf[600];

	/* what stdout holds first: the reason is the last line of a log */
	fflush(stdout);
	fprintf(stderr, "%s failed: %s\n", what,
		vs_format_error(vs_last_error(), buf, sizeof(buf)));
	/* the device (or rdma-core here) cannot do it: iWARP's UD, ... */
	if (vs_last_error()->err == EOPNOTSUPP) {
		fprintf(stderr, "cannot run on this device: %s\n",
			vs_last_error()->message);
		exit(EX_CANNOT_RUN);
	}
	/*
	 * no device at all (a device named wrong on a machine with one is
	 * 1); the record above, the last line, already says so
	 */
	if (!ex_any_device())
		exit(EX_CANNOT_RUN);
	exit(1);
}

void ex_check(int ret, const char *what)
{
	if (ret < 0)
		ex_die(what);
}

uint64_t ex_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void ex_cm_await_disconnect(struct vs_cm_id *id)
{
	struct vs_cm_event ev;

	do
		ex_check(vs_cm_next(id, 60000, &ev), "vs_cm_next");
	while (ev.type != RDMA_CM_EVENT_DISCONNECTED);
}

int ex_wait(struct vs_cq *cq, struct vs_wc *wc, int n, int timeout_ms)
{
	uint64_t deadline = ex_now_ns() + (uint64_t)timeout_ms * 1000000ull;
	int got = 0;

	while (got < n) {
		int r = vs_cq_poll(cq, wc + got, n - got);

		if (r < 0)
			ex_die("vs_cq_poll");
		got += r;
		if (!r && ex_now_ns() > deadline)
			break;
		if (!r)
			sched_yield(); /* let a software provider's threads run */
	}
	return got;
}

const char *ex_default_device(void)
{
	const char *d = getenv("VS_RXE_DEV");

	return d && *d ? d : NULL;
}

int ex_tcp_open(const char *host, int port)
{
	char service[16];
	struct addrinfo hints, *res = NULL, *ai;
	int fd = -1, one = 1;

	snprintf(service, sizeof(service), "%d", port);
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	if (!host) {
		int lfd;

		hints.ai_flags = AI_PASSIVE;
		hints.ai_family = AF_INET;
		if (getaddrinfo(NULL, service, &hints, &res)) {
			fprintf(stderr, "getaddrinfo(port %d) failed\n", port);
			return -1;
		}
		lfd = socket(res->ai_family, res->ai_socktype, 0);
		if (lfd < 0) {
			perror("socket");
			freeaddrinfo(res);
			return -1;
		}
		setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(lfd, res->ai_addr, res->ai_addrlen) || listen(lfd, 1)) {
			fprintf(stderr, "cannot listen on port %d: %s\n", port,
				strerror(errno));
			close(lfd);
			freeaddrinfo(res);
			return -1;
		}
		freeaddrinfo(res);
		fd = accept(lfd, NULL, NULL);
		close(lfd);
		if (fd < 0)
			perror("accept");
		return fd;
	}
	for (int attempt = 0; attempt < 300; attempt++) {
		if (getaddrinfo(host, service, &hints, &res)) {
			fprintf(stderr, "cannot resolve %s\n", host);
			return -1;
		}
		for (ai = res; ai; ai = ai->ai_next) {
			fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
			if (fd < 0)
				continue;
			if (!connect(fd, ai->ai_addr, ai->ai_addrlen))
				break;
			close(fd);
			fd = -1;
		}
		freeaddrinfo(res);
		if (fd >= 0) {
			setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
			return fd;
		}
		usleep(100000); /* the server may not listen yet */
	}
	fprintf(stderr, "cannot connect to %s:%d\n", host, port);
	return -1;
}

static int full_io(int fd, void *buf, size_t len, int writing)
{
	char *p = buf;

	while (len) {
		ssize_t n = writing ? write(fd, p, len) : read(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int ex_tcp_exchange(int fd, const void *out, void *in, size_t len)
{
	if (full_io(fd, (void *)out, len, 1) || full_io(fd, in, len, 0)) {
		fprintf(stderr, "TCP exchange of %zu bytes failed\n", len);
		return -1;
	}
	return 0;
}

void ex_tcp_close(int fd)
{
	if (fd >= 0)
		close(fd);
}
