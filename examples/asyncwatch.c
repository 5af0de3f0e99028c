/* SPDX-License-Identifier: MIT */
/*
 * asyncwatch: prints a device's asynchronous events (port up/down, QP,
 * CQ and SRQ errors, ...) as they come, each with the typed handle or
 * port it concerns, like rdma-core's ibv_asyncwatch.
 *
 *   asyncwatch [-d device] [-t seconds (default: for ever)] [-n events]
 */
#include <getopt.h>

#include "common/ex_common.h"

static const char *about_name(enum vs_async_about a)
{
	switch (a) {
	case VS_ASYNC_PORT: return "port";
	case VS_ASYNC_QP: return "QP";
	case VS_ASYNC_CQ: return "CQ";
	case VS_ASYNC_SRQ: return "SRQ";
	case VS_ASYNC_DEVICE: break;
	}
	return "device";
}

int main(int argc, char **argv)
{
	const char *dev = ex_default_device();
	int seconds = -1, max = -1, seen = 0, opt;
	struct vs_context *ctx;
	uint64_t deadline;

	setvbuf(stdout, NULL, _IOLBF, 0); /* the last line a failure prints is its reason */
	while ((opt = getopt(argc, argv, "d:t:n:")) != -1) {
		switch (opt) {
		case 'd': dev = optarg; break;
		case 't': seconds = atoi(optarg); break;
		case 'n': max = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: %s [-d dev] [-t seconds] [-n events]\n",
				argv[0]);
			return 2;
		}
	}
	ex_check(vs_device_open(dev, &ctx), "vs_device_open");
	ex_own(ctx);	/* closed on every way out */
	printf("%s: async events (fd %d)\n", dev ? dev : "first device",
	       vs_async_fd(ctx));
	deadline = seconds < 0 ? 0 : ex_now_ns() + (uint64_t)seconds * 1000000000ull;
	while (max < 0 || seen < max) {
		struct vs_async_event ev;
		int left = -1, ret;

		if (deadline) {
			uint64_t now = ex_now_ns();

			if (now >= deadline)
				break;
			left = (int)((deadline - now) / 1000000) + 1;
		}
		ret = vs_async_next(ctx, left, &ev);
		if (ret == -ETIMEDOUT)
			break;
		if (ret)
			ex_die("vs_async_next");
		seen++;
		printf("%s on %s", ev.name, about_name(ev.about));
		if (ev.about == VS_ASYNC_PORT)
			printf(" %u", ev.port);
		else if (ev.about == VS_ASYNC_QP)
			printf(" %p (%s)", ev.rc_qp ? (void *)ev.rc_qp : ev.uc_qp ?
			       (void *)ev.uc_qp : (void *)ev.ud_qp,
			       ev.qp_transport ? vs_transport_name(ev.qp_transport) :
			       "not a typed QP");
		else if (ev.about == VS_ASYNC_CQ)
			printf(" %p", (void *)ev.cq);
		else if (ev.about == VS_ASYNC_SRQ)
			printf(" %p", (void *)ev.srq);
		printf("\n");
	}
	printf("%d event%s\n", seen, seen == 1 ? "" : "s");
	ex_close(ctx);
	return 0;
}
