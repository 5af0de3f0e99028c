// SPDX-License-Identifier: MIT
/*
 * verbshim-selftest [-d DEV] [--json FILE] [--server | --client HOST]
 *                   [--port PORT] [--timeout SEC] [--wait SEC]
 *
 * Exit: 0 every test passed (or was skipped, saying why), 1 a test
 * failed, 77 nothing to test (no device, no active port: said why), 2 a
 * usage error.  selftest.h says how the program is put together.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "selftest.h"

/* More than the rows one port's tests make (about 35). */
#define ROWS_PER_PORT 64

static void usage(FILE *f)
{
	fputs("usage: verbshim-selftest [-d DEV] [--json FILE] [--server | --client HOST]\n"
	      "                         [--port PORT] [--timeout SEC] [--wait SEC]\n"
	      "\n"
	      "Runs, on every RDMA device and active port (or DEV), what its link\n"
	      "layer and transport offer, through verbshim's typed API and through\n"
	      "its drop-in ibv_*/rdma_* calls: RC send, read, write and both atomics\n"
	      "(bytes checked), UD, SRQ, completion events, SRD on EFA, a dmabuf MR,\n"
	      "and a CM connection by IP address.  One node loops back; --server on\n"
	      "one machine and --client HOST on another run across the fabric.\n"
	      "\n"
	      "  -d, --device DEV   only this device\n"
	      "  -j, --json FILE    also write the JSON report (-: to stdout, the\n"
	      "                     table then to stderr)\n"
	      "  -s, --server       serve one client run (three connections), then exit\n"
	      "  -c, --client HOST  run the CM tests against HOST's --server\n"
	      "  -p, --port PORT    the CM port (default 7490)\n"
	      "  -t, --timeout SEC  each wait's limit (default 10)\n"
	      "  -w, --wait SEC     --client: retry the first connection while the\n"
	      "                     server is not up yet; --server: wait this long\n"
	      "                     for the client (default: for ever)\n"
	      "  -h, --help         this help\n"
	      "\n"
	      "Exit status: 0 all passed (skips say why), 1 a test failed, 77 nothing\n"
	      "to test, 2 usage.  VERBSHIM_TRACE=failed shows the failing calls,\n"
	      "VERBSHIM_STATS=1 puts the call counters in the report; see\n"
	      "verbshim-selftest(1) and docs/selftest.md.\n", f);
}

/* 0 run, 1 usage error, -1 help printed. */
static int parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "json", required_argument, NULL, 'j' },
		{ "server", no_argument, NULL, 's' },
		{ "client", required_argument, NULL, 'c' },
		{ "port", required_argument, NULL, 'p' },
		{ "timeout", required_argument, NULL, 't' },
		{ "wait", required_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	long sec;
	int c;

	*o = (struct options){ .cm_port = "7490", .timeout_ms = 10000 };
	while ((c = getopt_long(argc, argv, "d:j:sc:p:t:w:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'd': o->device = optarg; break;
		case 'j': o->json = optarg; break;
		case 's': o->server = true; break;
		case 'c': o->client = optarg; break;
		case 'p': o->cm_port = optarg; break;
		case 't':
		case 'w':
			sec = strtol(optarg, &end, 10);
			if (*end || sec < 1 || sec > 86400) {
				fprintf(stderr, "verbshim-selftest: -%c %s: seconds, "
					"1 to 86400\n", c, optarg);
				return 1;
			}
			*(c == 't' ? &o->timeout_ms : &o->wait_ms) = (int)sec * 1000;
			break;
		case 'h':
			usage(stdout);
			return -1;
		default:
			usage(stderr);
			return 1;
		}
	}
	if (optind < argc || (o->server && o->client)) {
		fprintf(stderr, "verbshim-selftest: %s\n", optind < argc ?
			"unexpected argument" : "--server and --client exclude each other");
		usage(stderr);
		return 1;
	}
	return 0;
}

/* The kernel driver behind the device; for a software device (no PCI
 * parent: rxe, siw) the name rdma-core gave it, without its number. */
static void provider_of(const char *dev, char *buf, size_t len)
{
	char path[PATH_MAX], link[PATH_MAX];
	ssize_t n;

	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/device/driver", dev);
	n = readlink(path, link, sizeof(link) - 1);
	if (n > 0) {
		link[n] = '\0';
		snprintf(buf, len, "%s", basename(link));
		return;
	}
	snprintf(buf, len, "%.*s", (int)strcspn(dev, "0123456789"), dev);
}

/* A machine-wide or device row that failed while the ports were looked
 * for: the call, and its errno. */
static void discovery_failed(struct run *r, const struct port_under_test *p,
			     const char *name, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void discovery_failed(struct run *r, const struct port_under_test *p,
			     const char *name, const char *fmt, ...)
{
	struct result *res = result_begin(r, p, p && p->port && !strcmp(name, "port") ?
					  "typed" : "dropin", name);
	char why[sizeof(res->reason)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	result_end(res, FAIL, "%s", why);
	r->discovery_failed = true;
}

/* A typed call of the port's look failed: its row, with the record. */
static void typed_failed(struct run *r, const struct port_under_test *p,
			 const char *call)
{
	char msg[VS_ERROR_MSG_MAX + 64];

	discovery_failed(r, p, "port", "%s: %s", call,
			 vs_format_error(vs_last_error(), msg, sizeof(msg)));
}

static void add_port(struct run *r, const char *name,
		     const struct ibv_device_attr *da, unsigned int port,
		     const struct ibv_port_attr *pa)
{
	struct port_under_test *p = &r->ports[r->nports++];
	struct vs_context *vc;
	struct vs_port_info pi;
	struct vs_efa_caps caps = { 0 };
	int ret;

	*p = (struct port_under_test){ .port = port,
		.link_layer = pa->link_layer == IBV_LINK_LAYER_ETHERNET ?
			      "Ethernet" : "InfiniBand",
		.vendor_id = da->vendor_id, .vendor_part_id = da->vendor_part_id,
		.atomics = da->atomic_cap != IBV_ATOMIC_NONE };
	snprintf(p->device, sizeof(p->device), "%s", name);
	snprintf(p->firmware, sizeof(p->firmware), "%s", da->fw_ver);
	provider_of(p->device, p->provider, sizeof(p->provider));
	if (vs_device_open(p->device, &vc)) {
		typed_failed(r, p, "vs_device_open");
		return;
	}
	if (vs_port_info(vc, (uint8_t)port, &pi))
		typed_failed(r, p, "vs_port_info");
	else
		p->kind = pi.kind;
	ret = vs_efa_query_caps(vc, &caps);
	p->efa = ret == 0;
	if (ret && ret != -EOPNOTSUPP)	/* not an EFA device: no SRD */
		typed_failed(r, p, "vs_efa_query_caps");
	if (vs_device_close(vc))
		typed_failed(r, p, "vs_device_close");
}

/*
 * Every active port (of DEV, or all).  0, or -1 with r->nothing said when
 * there is truly nothing (no device listed, none named DEV, no port
 * ACTIVE: each decided from what was listed and queried), or with a
 * failed row naming the call and its errno: a call that fails is never
 * "nothing to test".
 */
static int find_ports(struct run *r)
{
	struct ibv_device **list;
	int num = 0, seen = 0, ret = 0;

	errno = 0;
	list = ibv_get_device_list(&num);
	if (!list) {
		struct vs_library_info l = { 0 };
		int err = errno;

		vs_library_query(VS_LIB_IBVERBS, &l);
		if (!l.loaded || err == ENOSYS) {	/* no RDMA here at all */
			snprintf(r->nothing, sizeof(r->nothing), "no RDMA device: %s",
				 !l.loaded ? (l.error ? l.error : "libibverbs not found") :
				 "the kernel has no RDMA support loaded");
			return -1;
		}
		discovery_failed(r, NULL, "devices", "ibv_get_device_list: %s",
				 strerror(err ? err : EIO));
		return -1;
	}
	r->ports = calloc((size_t)num * 4 + 1, sizeof(*r->ports));
	if (!r->ports) {
		discovery_failed(r, NULL, "devices", "out of memory for %d devices", num);
		ibv_free_device_list(list);
		return -1;
	}
	for (int i = 0; i < num; i++) {
		struct ibv_context *ctx;
		struct ibv_device_attr da;
		struct port_under_test dev = { .port = 0 };
		const char *name;

		errno = 0;
		name = ibv_get_device_name(list[i]);
		if (!name) {
			discovery_failed(r, NULL, "devices", "ibv_get_device_name of "
					 "device %d of %d: %s", i + 1, num,
					 strerror(errno ? errno : ENODEV));
			continue;
		}
		if (r->opt.device && strcmp(r->opt.device, name))
			continue;
		seen++;
		snprintf(dev.device, sizeof(dev.device), "%s", name);
		errno = 0;
		ctx = ibv_open_device(list[i]);
		if (!ctx) {
			discovery_failed(r, &dev, "open", "ibv_open_device(%s): %s",
					 name, strerror(errno ? errno : ENODEV));
			continue;
		}
		ret = ibv_query_device(ctx, &da);
		if (ret)
			discovery_failed(r, &dev, "open", "ibv_query_device(%s): %s",
					 name, strerror(ret));
		for (unsigned int p = 1; !ret && p <= da.phys_port_cnt && p <= 4; p++) {
			struct ibv_port_attr pa;
			int err = ibv_query_port(ctx, (uint8_t)p, &pa);

			dev.port = p;
			if (err)
				discovery_failed(r, &dev, "open", "ibv_query_port(%s, "
						 "%u): %s", name, p, strerror(err));
			else if (pa.state == IBV_PORT_ACTIVE)
				add_port(r, name, &da, p, &pa);
		}
		dev.port = 0;
		errno = 0;
		if (ibv_close_device(ctx))
			discovery_failed(r, &dev, "close", "ibv_close_device(%s): %s",
					 name, strerror(errno ? errno : EIO));
	}
	ibv_free_device_list(list);
	if (r->discovery_failed)
		return r->nports ? 0 : -1;	/* the failed rows say it */
	if (r->nports)
		return 0;
	if (r->opt.device && !seen)
		snprintf(r->nothing, sizeof(r->nothing), "no RDMA device named %s "
			 "(%d other%s here)", r->opt.device, num, num == 1 ? "" : "s");
	else if (!num)
		snprintf(r->nothing, sizeof(r->nothing), "no RDMA device (none listed: "
			 "no provider for this hardware, or no RDMA hardware)");
	else
		snprintf(r->nothing, sizeof(r->nothing), "no ACTIVE port on %d "
			 "device%s (link down, or no cable)", seen, seen == 1 ? "" : "s");
	return -1;
}

/* The CM rows, typed and drop-in, against host (our own thread's
 * server on the port's address, or --client's). */
static void cm_tests(struct run *r, struct port_under_test *p, const char *host)
{
	struct server *s = NULL;

	if (!host) {
		static const char *const apis[] = { "typed", "dropin" };

		/* a call that failed while the address was looked up fails
		 * the rows: only a look that ran to its end may say none */
		for (int i = 0; i < 3; i++) {
			struct result *res = result_begin(r, p, apis[i % 2], i < 2 ?
							  "cm-connect" : "cm-srq-events");

			if (p->addr_err[0])
				result_end(res, FAIL, "looking for the IPv4 address "
					   "the CM maps to %s port %u: %s",
					   p->device, p->port, p->addr_err);
			else
				result_end(res, SKIP, "no IPv4 address the CM maps "
					   "to %s port %u: give its netdev an "
					   "address to test the CM", p->device,
					   p->port);
		}
		return;
	}
	if (!r->opt.client && server_start(r, p, host, r->opt.cm_port, CLIENT_CONNS, &s))
		return;
	typed_cm_tests(r, p, host, r->opt.cm_port);
	dropin_tests(r, p, host, r->opt.cm_port);
	typed_cm_srq_events(r, p, host, r->opt.cm_port);
	if (s)
		(void)server_finish(s);
}

static void run_all(struct run *r)
{
	if (r->opt.server) {
		struct server *s;

		/* every address: the client names ours */
		if (!server_start(r, &r->ports[0], NULL, r->opt.cm_port, CLIENT_CONNS, &s)) {
			fprintf(stderr, "verbshim-selftest: serving one client run on "
				"port %s\n", r->opt.cm_port);
			server_run(s);
			(void)server_finish(s);
		}
		return;
	}
	for (size_t i = 0; i < r->nports; i++) {
		struct port_under_test *p = &r->ports[i];

		find_port_addr(p);
		if (p->addr[0] && p->addr_err[0])	/* found, but a call failed */
			result_end(result_begin(r, p, "dropin", "cm-address"), FAIL,
				   "looking for the IPv4 address the CM maps to %s "
				   "port %u (found %s): %s", p->device, p->port,
				   p->addr, p->addr_err);
		typed_tests(r, p);
		if (!r->opt.client)
			cm_tests(r, p, p->addr[0] ? p->addr : NULL);
		else if (i == 0)	/* the server serves one port's run */
			cm_tests(r, p, r->opt.client);
	}
}

/*
 * A hang is never an answer (a destroy that waits for an event nobody
 * acknowledged, a call the kernel never returns from): with no row begun
 * or ended for longer than any wait of the run may take, the run ends
 * with a failed row naming the row it was in, the table and the JSON
 * written, exit 1.
 */
static void *watchdog(void *arg)
{
	struct run *r = arg;
	uint64_t limit = ((uint64_t)r->opt.timeout_ms * 8 + (uint64_t)r->opt.wait_ms +
			  30000) * 1000000u;

	for (;;) {
		const char *row;
		uint64_t last;

		sleep(1);
		last = progress_last(&row);
		if (now_ns() - last < limit)
			continue;
		result_end(result_begin(r, NULL, "dropin", "hang"), FAIL,
			   "nothing happened for %llu s after \"%s\" began or "
			   "ended: a call that does not return (the run ends here; "
			   "VERBSHIM_TRACE=all shows the last calls)",
			   (unsigned long long)(limit / 1000000000u), row);
		print_table(r->opt.json && !strcmp(r->opt.json, "-") ? stderr : stdout, r);
		if (r->opt.json)
			(void)write_json(r->opt.json, r);
		fflush(stdout);
		_exit(EXIT_FAIL);
	}
	return NULL;
}

void watchdog_start(struct run *r)
{
	pthread_t t;

	/* --server without --wait waits for its client for ever, on purpose */
	if (r->opt.server && !r->opt.wait_ms)
		return;
	if (!pthread_create(&t, NULL, watchdog, r))
		pthread_detach(t);
}

int main(int argc, char **argv)
{
	struct run r = { 0 };
	int ret = parse_options(argc, argv, &r.opt);

	if (ret)
		return ret < 0 ? EXIT_PASS : EXIT_USAGE;
	setvbuf(stdout, NULL, _IOLBF, 0);
	progress("looking for ports");
	/* room for the rows of the look for ports (a failed call each) */
	r.cap = ROWS_PER_PORT;
	r.results = calloc(r.cap, sizeof(*r.results));
	if (!r.results) {
		fputs("verbshim-selftest: out of memory\n", stderr);
		return EXIT_FAIL;
	}
	ret = find_ports(&r);
	/* room for every row, made once before any test: the server
	 * thread's rows are added while the client side holds pointers to
	 * its own */
	if (!ret) {
		size_t cap = ROWS_PER_PORT * (r.nports + 2);
		struct result *more = realloc(r.results, cap * sizeof(*more));

		if (!more) {
			fputs("verbshim-selftest: out of memory\n", stderr);
			free(r.results);
			free(r.ports);
			return EXIT_FAIL;
		}
		memset(more + r.cap, 0, (cap - r.cap) * sizeof(*more));
		r.results = more;
		r.cap = cap;
		watchdog_start(&r);
		run_all(&r);
	}
	print_table(r.opt.json && !strcmp(r.opt.json, "-") ? stderr : stdout, &r);
	ret = run_exit_code(&r);
	if (r.opt.json && (ret = write_json(r.opt.json, &r)) < 0) {
		fprintf(stderr, "verbshim-selftest: --json %s: %s\n", r.opt.json,
			strerror(-ret));
		ret = EXIT_FAIL;
	} else {
		ret = run_exit_code(&r);
	}
	free(r.ports);
	free(r.results);
	return ret;
}
