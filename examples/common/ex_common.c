/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/socket.h>
#include <sched.h>
#include <stdarg.h>
#include <time.h>
#include <unistd.h>

#include "ex_common.h"

/*
 * Whether this machine has no RDMA device: none listed, or no RDMA at all
 * (rdma-core's ENOSYS: the kernel has none loaded; libibverbs missing).
 * A list that fails otherwise says nothing of the devices: not "none".
 */
static int ex_no_device(void)
{
	size_t n = 0;
	int ret = vs_device_list(NULL, 0, &n);

	if (ret == -ENOSYS)
		return 1;
	return !ret && !n;
}

/* The owned handles, oldest first. */
static struct ex_owned {
	void *h;
	int (*close)(void *);
	const char *what;
} *owned;
static int nowned, cap_owned;

void ex_own_(void *h, int (*close)(void *), const char *what)
{
	if (nowned == cap_owned) {
		int cap = cap_owned ? 2 * cap_owned : 16;
		struct ex_owned *more = realloc(owned, (size_t)cap * sizeof(*more));

		if (!more) {
			fprintf(stderr, "ex_own(%s): out of memory\n", what);
			close(h);
			ex_release();
			exit(1);
		}
		owned = more;
		cap_owned = cap;
	}
	owned[nowned].h = h;
	owned[nowned].close = close;
	owned[nowned].what = what;
	nowned++;
}

/* One close, checked; the handle is forgotten either way (a failed close
 * of the typed API is tried once more, as its record says to). */
static int ex_close_one(int i)
{
	char buf[600];
	int ret = owned[i].close(owned[i].h);

	if (ret) {
		fflush(stdout);
		fprintf(stderr, "closing %s failed: %s\n", owned[i].what,
			vs_format_error(vs_last_error(), buf, sizeof(buf)));
		if (owned[i].close(owned[i].h))
			fprintf(stderr, "closing %s again failed too\n",
				owned[i].what);
	}
	memmove(&owned[i], &owned[i + 1], (size_t)(nowned - i - 1) * sizeof(owned[0]));
	nowned--;
	return ret;
}

void ex_close_(void *h, const char *what)
{
	for (int i = nowned - 1; i >= 0; i--)
		if (owned[i].h == h) {
			if (ex_close_one(i)) {
				ex_release();
				exit(1);
			}
			return;
		}
	fprintf(stderr, "ex_close(%s): not a handle the program owns\n", what);
	ex_release();
	exit(1);
}

int ex_release(void)
{
	int failed = 0;

	while (nowned)
		failed += ex_close_one(nowned - 1) != 0;
	free(owned);
	owned = NULL;
	cap_owned = 0;
	return failed;
}

int ex_exit(int code)
{
	int failed = ex_release();

	return failed && !code ? 1 : code;
}

void ex_fail(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	ex_release();
	exit(1);
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
		ex_release();
		exit(EX_CANNOT_RUN);
	}
	/*
	 * no device at all (a device named wrong on a machine with one is
	 * 1; a call that failed is 1); the record above, the last line,
	 * already says so
	 */
	if (ex_no_device()) {
		ex_release();
		exit(EX_CANNOT_RUN);
	}
	ex_release();
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
