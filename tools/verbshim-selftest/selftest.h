/* SPDX-License-Identifier: MIT */
/*
 * verbshim-selftest: qualify verbshim on this machine's RDMA devices.
 *
 * For each device and active port (main.c) it runs the operations the
 * port's link layer and transport offer, once through the typed API
 * (typed.c) and once through the plain ibv_* / rdma_* drop-ins
 * (dropin.c).  The RC operations are one suite (rc_suite.c) run over
 * either API against a responder: the QP itself (loopback), or a CM peer
 * that serves a fixed memory layout and echoes one message (server.c),
 * in a thread of this process or, with --server / --client, on another
 * machine.  Every test is one row (report.c): the table a person reads,
 * the JSON a bug report carries (docs/selftest.md, docs/selftest.schema.json).
 */
#ifndef VERBSHIM_SELFTEST_H
#define VERBSHIM_SELFTEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <verbshim.h>

enum { EXIT_PASS = 0, EXIT_FAIL = 1, EXIT_USAGE = 2, EXIT_NOTHING = 77 };

enum verdict { PASS, FAIL, SKIP };

/* One row of the report. */
struct result {
	char name[48];		/* "rc-write" */
	char api[8];		/* "typed", "dropin", "-" */
	char device[64];	/* "" for the machine-wide rows */
	unsigned int port;
	enum verdict verdict;
	char reason[384];	/* what was checked, or what failed / why skipped */
	double ms;
};

/* One port under test, with what the run learnt about it. */
struct port_under_test {
	char device[64];
	unsigned int port;
	enum vs_link_kind kind;
	const char *link_layer;		/* "InfiniBand", "Ethernet" */
	char provider[64];
	char firmware[64];
	uint32_t vendor_id, vendor_part_id;
	bool atomics;			/* atomic_cap is not NONE */
	bool efa;
	char addr[64];			/* the port's IP address (the CM binds it), "" none */
	char addr_err[192];		/* a call that failed looking for it, "" none */
};

struct options {
	const char *device;		/* -d: only this one */
	const char *json;		/* --json FILE */
	const char *client;		/* --client HOST */
	bool server;
	const char *cm_port;		/* --port, "7490" */
	int timeout_ms;			/* each wait's hang guard */
	int wait_ms;			/* --wait: for the peer; 0 the default */
};

struct run {
	struct options opt;
	struct result *results;
	size_t nresults, cap;
	struct port_under_test *ports;
	size_t nports;
	char nothing[256];		/* why nothing was tested ("" when something was) */
	bool discovery_failed;		/* a call failed while ports were looked for */
};

/* report.c: the rows, the table, the JSON. */
struct result *result_begin(struct run *r, const struct port_under_test *p,
			    const char *api, const char *name);
void __attribute__((format(printf, 3, 4)))
result_end(struct result *res, enum verdict v, const char *fmt, ...);
/* The thread's last verbshim error, formatted, as the failure's reason. */
void result_fail_vs(struct result *res, const char *what, int ret);
void print_table(FILE *f, const struct run *r);
int write_json(const char *path, const struct run *r);
int run_exit_code(const struct run *r);

/*
 * rc_suite.c: the RC operations over any API.  The responder's memory
 * (struct layout) is at remote_addr/rkey: PATTERN bytes to read, a zeroed
 * area to write, a zeroed atomic word.  The local buffer (LOCAL_SIZE) holds
 * the source, the read destination, the atomic result and the receive.
 */
enum layout {
	R_PATTERN = 0, R_WRITE = 4096, R_ATOMIC = 8192, R_RECV = 12288,
	REMOTE_SIZE = 16384,
	L_SRC = 0, L_READ = 4096, L_RESULT = 8192, L_RECV = 12288,
	LOCAL_SIZE = 16384, MSG_BYTES = 1024,
};
uint8_t pattern_byte(size_t i);		/* the responder's PATTERN bytes */
void responder_init(uint8_t *remote);	/* the layout above, set up */

/* What the suite needs from an API: post one work request, wait for one
 * completion, post one receive.  0 or an error; each says what failed in
 * err (the verb and errno, or the completion's status). */
enum rc_op { OP_SEND, OP_WRITE, OP_READ, OP_CAS, OP_FAA };
struct rc_wc {
	uint64_t wr_id;
	int status;		/* enum ibv_wc_status */
	int opcode;		/* enum ibv_wc_opcode */
	uint32_t byte_len;
};
struct rc_api {
	const char *name;	/* "typed", "dropin" */
	void *ctx;
	uint8_t *local;		/* LOCAL_SIZE bytes, registered */
	int (*post)(void *ctx, enum rc_op op, uint64_t wr_id, uint32_t local_off,
		    uint32_t len, uint64_t remote_addr, uint32_t rkey,
		    uint64_t cmp_add, uint64_t swap, char *err, size_t errlen);
	int (*post_recv)(void *ctx, uint64_t wr_id, uint32_t local_off,
			 uint32_t len, char *err, size_t errlen);
	int (*poll)(void *ctx, struct rc_wc *wc, int timeout_ms, char *err,
		    size_t errlen);
};
/* The rows rc-send, rc-read, rc-write, rc-cas, rc-faa (prefix "cm-" when
 * over a CM connection): each checks the bytes that arrived. */
void rc_suite(struct run *r, const struct port_under_test *p,
	      const struct rc_api *api, const char *prefix,
	      uint64_t remote_addr, uint32_t rkey);

/* What the responder tells the connecting side (CM private data). */
struct peer_info {
	uint64_t addr;		/* big-endian on the wire */
	uint32_t rkey;
	uint32_t magic;		/* PEER_MAGIC: a verbshim-selftest server */
};
#define PEER_MAGIC 0x56535354u	/* "VSST" */

/* The connections one client run makes: the typed RC suite's, the
 * drop-in's, the typed SRQ-and-events one. */
#define CLIENT_CONNS 3

/* server.c: a CM responder serving `conns` connections on host:port
 * (host NULL: every address); in a thread (loopback) or the process
 * (--server).  Its rows go to r. */
struct server;
int server_start(struct run *r, const struct port_under_test *p,
		 const char *host, const char *port, int conns,
		 struct server **out);
int server_finish(struct server *s);	/* joins it: 0 all served well */
void server_run(struct server *s);	/* --server: serve in this thread */

/* typed.c, dropin.c: the tests of one port. */
void typed_tests(struct run *r, const struct port_under_test *p);
void typed_cm_tests(struct run *r, const struct port_under_test *p,
		    const char *host, const char *port);
void typed_cm_srq_events(struct run *r, const struct port_under_test *p,
			 const char *host, const char *port);
void dropin_tests(struct run *r, const struct port_under_test *p,
		  const char *host, const char *port);

/* addr.c: the IPv4 address the CM maps to dev's port, into p->addr; a
 * call that failed on the way (not an address of no RDMA device) into
 * p->addr_err. */
void find_port_addr(struct port_under_test *p);

/*
 * The teardown is part of what is checked: a close or destroy that fails
 * is a failed row "teardown" naming it.  TEARDOWN() runs a typed close;
 * when it fails the row says so with the error record, and the close is
 * made once more, as a program that retries would (the typed API's close
 * again finishes what is left), so that nothing leaks.
 */
#define TEARDOWN(r, p, close, h)                                               \
	do {                                                                   \
		int t_ret_ = close(h);                                         \
		if (t_ret_) {                                                  \
			struct result *t_res_ = teardown_vs(r, p, #close, t_ret_); \
			teardown_retried(t_res_, close(h));                    \
		}                                                              \
	} while (0)
struct result *teardown_vs(struct run *r, const struct port_under_test *p,
			   const char *call, int ret);
void teardown_retried(struct result *res, int ret);
/* A drop-in destroy that failed with err (a positive errno): its row. */
struct result *teardown_plain(struct run *r, const struct port_under_test *p,
			      const char *call, int err);

/* main.c: a hang is never an answer: with no row begun or ended for this
 * long the run ends, the table printed, exit 1 (report.c keeps the time). */
void watchdog_start(struct run *r);
void progress(const char *row);
uint64_t progress_last(const char **row);

uint64_t now_ns(void);

#endif /* VERBSHIM_SELFTEST_H */
