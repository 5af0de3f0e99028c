/* SPDX-License-Identifier: MIT */
/*
 * Soak: a typed connection-manager server (this process) serves client
 * processes one after another, round after round, and must stay flat:
 *  - most clients connect (steps: resolve, QP, connect with private data
 *    naming their round), send MSGS messages of SIZE bytes that the server
 *    checks byte by byte and echoes transformed, check every echo,
 *    disconnect and exit 0;
 *  - every KILL_EVERY-th client is killed (SIGKILL, by itself) after half
 *    its messages: it never disconnects; the server sees the kernel's
 *    disconnect, accounts for every completion (the last echo's send and
 *    the receive it posted, flushed) and goes on;
 *  - every HALF_EVERY-th client never finishes the handshake: it sends
 *    the request (.no_wait), waits until the server's reply is readable
 *    on its CM fd and is killed before answering it (no RTU); the
 *    server's accept fails (explained) and the server goes on.  On iWARP
 *    the accept completes as its MPA reply leaves (no RTU there): the
 *    client's death is a disconnect, its receive flushed.
 * A client process makes up to PER_CLIENT connections in a row (the
 * vanishing kinds end theirs).  Per connection the server makes and
 * closes a CM id, a CQ, a QP and an MR (the PD is shared): the churn of a
 * long-running server.  The handles' quarantine (docs/API.md, Lifetimes,
 * rule 7) is shortened to VS_SOAK_QUARANTINE (16) closes per size class,
 * so that the warm-up fills it (0: the library's 4096, which only a
 * warm-up of more than 4096 rounds fills: VS_SOAK_WARMUP).  After the
 * warm-up (VS_SOAK_WARMUP, 20 rounds) it samples its own VmRSS
 * (/proc/self/status), open fds (/proc/self/fd) and handle arena after
 * every round: the fds must be exactly those of the warm-up's end, so
 * must the arena's bytes (with a quarantine the warm-up filled), and the
 * RSS may not rise more than VS_SOAK_RSS_KB (default 512) above it,
 * whatever the round count (a growth per connection shows in a long run).  Nothing lost: every message and echo
 * checked, every client's exit status the one its kind must have.
 *
 *   build/test/device/cm_soak                 VS_SOAK_ROUNDS (default 40): make check
 *   VS_SOAK_ROUNDS=1000 ... (make soak)    the long run
 * Prints the cycles per second, RSS / fds at the warm-up's end and at
 * the end, and the heap's bytes in use (malloc's count: what of the RSS's
 * growth is allocations kept) (docs/soak.md).
 */
#include <fcntl.h>
#include <malloc.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../common/vs_typed.h"

#define MSGS 8
#define SIZE 1024
#define KILL_EVERY 7
#define HALF_EVERY 11
#define WARMUP 20
#define PER_CLIENT 5

extern char **environ;

/* lib/base/handle.c (private, for the tests) */
size_t vs__handle_arena_bytes(void);
void vs__handle_quarantine_set(size_t closes);

enum kind { FULL, KILLED, HALF };

static enum kind kind_of(int round)
{
	if (round % HALF_EVERY == HALF_EVERY - 1)
		return HALF;
	if (round % KILL_EVERY == KILL_EVERY - 1)
		return KILLED;
	return FULL;
}

static const char *kind_name(enum kind k)
{
	return k == FULL ? "full" : k == KILLED ? "killed" : "half-open";
}

/* message k of round r, from the client, and the server's echo of it */
static int seed_msg(int r, int k)
{
	return r * MSGS + k;
}

static int seed_echo(int r, int k)
{
	return -(r * MSGS + k) - 1;
}

struct hello {
	uint32_t round;
	uint32_t kind;
};

/* ---- the client process ---- */

static void client_post_recv(struct vs_rc_qp *qp, struct vs_mr *mr)
{
	vs_t_rc_recv(qp, 1, vs_mr_sge(mr, SIZE, SIZE));
}

/*
 * siw's accept window (test/common/vs_siw_window.h): on iWARP the server
 * writes a byte to this pipe once its accept of a connection that will
 * send has returned, and the client reads it before its first message
 * (-1 elsewhere: the client sends at once).
 */
static int go_fd = -1;
static int go_pipe[2] = { -1, -1 }; /* the server's: read end, write end */
#define GO_FD 100 /* the read end's number in a client */

static void client_one(const char *ip, const char *port, int r)
{
	enum kind kind = kind_of(r);
	struct hello h = { .round = (uint32_t)r, .kind = kind };
	struct vs_cm_id *id;
	struct vs_context *ctx;
	struct vs_pd *pd;
	struct vs_cq *cq;
	struct vs_rc_qp *qp;
	struct vs_mr *mr;
	uint8_t *m;

	VS_OK(vs_cm_resolve(ip, port, NULL, &id));
	ctx = vs_cm_context(id);
	VS_ASSERT(ctx);
	VS_OK(vs_pd_alloc(ctx, &pd));
	VS_OK(vs_cq_create(ctx, &(struct vs_cq_config){ .depth = 32 }, &cq));
	VS_OK(vs_cm_rc_qp_create(id, pd, &(struct vs_rc_config){
		.send_cq = cq, .caps = { .max_send_wr = 8, .max_recv_wr = 8,
					 .max_send_sge = 1, .max_recv_sge = 1 } },
		&qp));
	VS_OK(vs_mr_alloc(pd, 2 * SIZE, 0, &mr));
	m = vs_mr_ptr(mr, 0);
	client_post_recv(qp, mr);
	if (kind == HALF) {
		struct pollfd p = { .fd = vs_cm_fd(id), .events = POLLIN };

		VS_OK(vs_cm_connect(id, &(struct vs_cm_conn_config){
			.private_data = &h, .private_data_len = sizeof(h),
			.no_wait = true }));
		/* the server's reply is there: vanish without answering it */
		VS_ASSERT_EQ(poll(&p, 1, 10000), 1);
		raise(SIGKILL);
	}
	VS_OK(vs_cm_connect(id, &(struct vs_cm_conn_config){
		.private_data = &h, .private_data_len = sizeof(h),
		.timeout_ms = 10000 }));
	if (go_fd >= 0) {
		char g;

		VS_ASSERT_EQ(read(go_fd, &g, 1), 1);
	}
	for (int k = 0; k < MSGS; k++) {
		struct vs_wc wc[2];
		int sends = 0, recvs = 0;

		vs_t_fill(m, SIZE, seed_msg(r, k));
		vs_t_rc_send(qp, 2, vs_mr_sge(mr, 0, SIZE));
		while (sends < 1 || recvs < 1) {
			vs_t_wait_ms(cq, wc, 1, 10000);
			if (wc[0].opcode == IBV_WC_RECV) {
				vs_t_expect_wc(&wc[0], 1, IBV_WC_RECV, SIZE);
				recvs++;
			} else {
				vs_t_expect_wc(&wc[0], 2, IBV_WC_SEND, UINT32_MAX);
				sends++;
			}
		}
		vs_t_check(m + SIZE, SIZE, seed_echo(r, k));
		if (kind == KILLED && k == MSGS / 2 - 1)
			raise(SIGKILL); /* mid-connection, no disconnect */
		if (k + 1 < MSGS)
			client_post_recv(qp, mr);
	}
	VS_OK(vs_cm_disconnect(id));
	VS_OK(vs_mr_close(mr));
	VS_OK(vs_rc_qp_close(qp));
	VS_OK(vs_cq_close(cq));
	VS_OK(vs_pd_close(pd));
	VS_OK(vs_cm_close(id));
}

/* Connections first..last, one after another (the last may end it). */
static int client(const char *ip, const char *port, int first, int last, int go)
{
	go_fd = go;
	for (int r = first; r <= last; r++)
		client_one(ip, port, r);
	return 0;
}

/* ---- the server ---- */

struct stats {
	int processes, full, killed, half;
	long messages; /* checked at the server, each echoed */
};

/* A client process for connections first..last. */
static pid_t spawn_client(const char *self, const char *ip, const char *port,
			  int first, int last)
{
	char from[16], to[16], go[16];
	char *argv[] = { (char *)self, "client", (char *)ip, (char *)port,
			 from, to, go, NULL };
	pid_t pid;

	snprintf(from, sizeof(from), "%d", first);
	snprintf(to, sizeof(to), "%d", last);
	snprintf(go, sizeof(go), "%d", go_pipe[0] < 0 ? -1 : GO_FD);
	if (go_pipe[0] < 0) {
		VS_ASSERT_EQ(posix_spawn(&pid, self, NULL, NULL, argv, environ), 0);
	} else {
		posix_spawn_file_actions_t fa;

		/* the pipe's read end as the client's GO_FD */
		VS_ASSERT_EQ(posix_spawn_file_actions_init(&fa), 0);
		VS_ASSERT_EQ(posix_spawn_file_actions_adddup2(&fa, go_pipe[0], GO_FD), 0);
		VS_ASSERT_EQ(posix_spawn(&pid, self, &fa, NULL, argv, environ), 0);
		posix_spawn_file_actions_destroy(&fa);
	}
	return pid;
}

/*
 * The heap's bytes in use (malloc's count, not the pages): what of the
 * RSS's growth is allocations kept.  mallinfo() is deprecated from glibc
 * 2.33 on, mallinfo2() missing before it (the oldest build's 2.31); the
 * counts fit its ints here.
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
static long heap_kb(void)
{
	return (long)(unsigned int)mallinfo().uordblks / 1024;
}
#pragma GCC diagnostic pop

static long rss_kb(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kb = -1;

	VS_ASSERT(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld kB", &kb) == 1)
			break;
	fclose(f);
	VS_ASSERT(kb > 0);
	return kb;
}

/*
 * Every completion of one connection accounted for: its receives (a
 * message, or flushed once the peer is gone) and its sends (the echoes:
 * done, or flushed when the peer vanished before acknowledging).
 */
struct conn {
	struct vs_cm_id *c;
	struct vs_cq *cq;
	struct vs_rc_qp *qp;
	struct vs_mr *mr;
	int round, got, recvs_posted, recvs_done, sends_posted, sends_done;
	bool gone;
	bool iwarp;
};

static void post_recv(struct conn *n)
{
	vs_t_rc_recv(n->qp, 1, vs_mr_sge(n->mr, 0, SIZE));
	n->recvs_posted++;
}

/* One completion of n's CQ, polled: a message checked and echoed. */
static void take(struct conn *n, const struct vs_wc *wc, bool may_flush)
{
	uint8_t *m = vs_mr_ptr(n->mr, 0);

	if (wc->status == IBV_WC_WR_FLUSH_ERR && may_flush) {
		if (wc->wr_id == 1)
			n->recvs_done++;
		else
			n->sends_done++;
		return;
	}
	/*
	 * siw's close window (test/common/vs_siw_window.h): the last echo,
	 * delivered to the client inside this process's send call, can end
	 * with a local QP operation error when the client's close (a full
	 * one's disconnect once it checked the echo, a killed one's death
	 * after it) comes before siw looked at the send's last segment.
	 * The client checked those bytes: a full one exits 0 (reap).
	 */
	if (wc->status == IBV_WC_LOC_QP_OP_ERR && may_flush && n->iwarp &&
	    wc->wr_id == 2 && n->sends_done + 1 == n->sends_posted &&
	    n->got == n->sends_posted) {
		n->sends_done++;
		return;
	}
	if (wc->opcode != IBV_WC_RECV) {
		vs_t_expect_wc(wc, 2, IBV_WC_SEND, UINT32_MAX);
		n->sends_done++;
		return;
	}
	vs_t_expect_wc(wc, 1, IBV_WC_RECV, SIZE);
	n->recvs_done++;
	vs_t_check(m, SIZE, seed_msg(n->round, n->got));
	vs_t_fill(m + SIZE, SIZE, seed_echo(n->round, n->got));
	n->got++;
	if (n->got < MSGS)
		post_recv(n);
	vs_t_rc_send(n->qp, 2, vs_mr_sge(n->mr, SIZE, SIZE));
	n->sends_posted++;
}

/* The peer's disconnect (DISCONNECTED), seen by a look at the id's events. */
static bool peer_gone(struct conn *n, int timeout_ms)
{
	struct vs_cm_event ev;
	int ret = vs_cm_next(n->c, timeout_ms, &ev);

	if (ret == -EAGAIN || ret == -ETIMEDOUT)
		return false;
	VS_OK(ret);
	if (ev.type == RDMA_CM_EVENT_ESTABLISHED)
		return false;
	if (ev.type != RDMA_CM_EVENT_DISCONNECTED)
		VS_FAIL("round %d: CM event %s (err %d: %s)", n->round, ev.name,
			ev.err, vs_t_err());
	VS_ASSERT_EQ(ev.err, ECONNRESET);
	return true;
}

/*
 * The peer's disconnect, then ours; every WR posted comes back: done, or
 * flushed by the disconnect.
 */
static void end_connection(struct conn *n, uint64_t deadline)
{
	struct vs_wc wc;

	while (!n->gone) {
		n->gone = peer_gone(n, 1000);
		if (vs_t_now_ms() > deadline)
			VS_FAIL("round %d: no disconnect after 20 s", n->round);
	}
	VS_OK(vs_cm_disconnect(n->c));
	while (n->recvs_done < n->recvs_posted || n->sends_done < n->sends_posted) {
		int r = vs_cq_poll(n->cq, &wc, 1);

		VS_ASSERT(r >= 0);
		if (r)
			take(n, &wc, true);
		else if (vs_t_now_ms() > deadline)
			VS_FAIL("round %d: %d/%d receives, %d/%d sends completed",
				n->round, n->recvs_done, n->recvs_posted,
				n->sends_done, n->sends_posted);
	}
}

static void serve_connected(struct conn *n, enum kind kind)
{
	uint64_t deadline = vs_t_now_ms() + 20000;
	struct vs_wc wc;

	/* the messages, until all came or the peer went */
	while (n->got < MSGS && !n->gone) {
		int r = vs_cq_poll(n->cq, &wc, 1);

		VS_ASSERT(r >= 0);
		if (r) {
			take(n, &wc, kind == KILLED);
			continue;
		}
		n->gone = peer_gone(n, 0);
		if (vs_t_now_ms() > deadline)
			VS_FAIL("round %d (%s): %d of %d messages after 20 s", n->round,
				kind_name(kind), n->got, MSGS);
	}
	/* a full client disconnects once its last echo came */
	end_connection(n, deadline);
	if (kind == KILLED)
		VS_ASSERT_EQ(n->got, MSGS / 2);
	else
		VS_ASSERT_EQ(n->got, MSGS);
}

/*
 * iWARP's half-open client: MPA has no ready-to-use message, so the
 * accept completed when its reply left; the client's death is then the
 * peer's disconnect, and the receive posted for it is flushed.
 */
static void serve_vanished(struct conn *n)
{
	end_connection(n, vs_t_now_ms() + 20000);
	VS_ASSERT_EQ(n->got, 0); /* its receive came back flushed, no message */
	VS_ASSERT_EQ(n->sends_posted, 0);
}

static void serve_one(struct vs_cm_id *l, struct vs_pd *pd, int r,
		      struct stats *st, bool iwarp)
{
	enum kind kind = kind_of(r);
	const void *pdata;
	struct hello h;
	struct conn n = { .round = r, .iwarp = iwarp };
	uint8_t len;
	int ret;

	VS_OK(vs_cm_get_request(l, 20000, &n.c));
	pdata = vs_cm_private_data(n.c, &len);
	VS_ASSERT(pdata && len >= sizeof(h));
	memcpy(&h, pdata, sizeof(h));
	VS_ASSERT_EQ(h.round, (uint32_t)r);
	VS_ASSERT_EQ(h.kind, (uint32_t)kind);
	VS_OK(vs_cq_create(vs_cm_context(n.c), &(struct vs_cq_config){ .depth = 32 },
			   &n.cq));
	VS_OK(vs_cm_rc_qp_create(n.c, pd, &(struct vs_rc_config){
		.send_cq = n.cq, .caps = { .max_send_wr = 8, .max_recv_wr = 8,
					   .max_send_sge = 1, .max_recv_sge = 1 } },
		&n.qp));
	VS_OK(vs_mr_alloc(pd, 2 * SIZE, 0, &n.mr));
	post_recv(&n);
	ret = vs_cm_accept(n.c, &(struct vs_cm_conn_config){ .timeout_ms = 10000 });
	/* on iWARP: the client may send now (a half-open one never reads) */
	if (go_pipe[1] >= 0 && ret == 0 && kind != HALF)
		VS_ASSERT_EQ(write(go_pipe[1], "g", 1), 1);
	if (kind == HALF && iwarp) {
		VS_OK(ret);
		if (st->half == 0)
			printf("  half-open client (iWARP): accepted as its request "
			       "came, then gone: a disconnect\n");
		serve_vanished(&n);
		st->half++;
	} else if (kind == HALF) {
		struct vs_wc wc;

		/* the client vanished before the ready-to-use: explained */
		if (ret == 0)
			VS_FAIL("round %d: a client that never answered was "
				"accepted", r);
		if (st->half == 0)
			printf("  half-open client: %s\n", vs_t_err());
		VS_ASSERT(ret == -ECONNREFUSED || ret == -ETIMEDOUT ||
			  ret == -ECONNABORTED || ret == -EHOSTUNREACH);
		/* its receive never ran: flushed, or still posted at close */
		while (vs_cq_poll(n.cq, &wc, 1) == 1)
			VS_ASSERT(wc.status == IBV_WC_WR_FLUSH_ERR);
		st->half++;
	} else {
		VS_OK(ret);
		serve_connected(&n, kind);
		st->messages += n.got;
		if (kind == KILLED)
			st->killed++;
		else
			st->full++;
	}
	VS_OK(vs_mr_close(n.mr));
	VS_OK(vs_rc_qp_close(n.qp));
	VS_OK(vs_cq_close(n.cq));
	VS_OK(vs_cm_close(n.c));
}

/* The process that made connections ..r: its status is the last one's kind's. */
static void reap(pid_t pid, int r)
{
	enum kind kind = kind_of(r);
	int status;

	VS_ASSERT_EQ(waitpid(pid, &status, 0), pid);
	if (kind == FULL) {
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			VS_FAIL("round %d: the client's status is 0x%x", r, status);
	} else if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL) {
		VS_FAIL("round %d (%s): the client was to die of SIGKILL, status 0x%x",
			r, kind_name(kind), status);
	}
}

int main(int argc, char **argv)
{
	const char *ip = getenv("VS_RXE_IP"), *e;
	int rounds = (e = getenv("VS_SOAK_ROUNDS")) ? atoi(e) : 40;
	long bound = (e = getenv("VS_SOAK_RSS_KB")) ? atol(e) : 512;
	long rss0 = 0, rss_max = 0, rss_end, heap0 = 0;
	int warmup = (e = getenv("VS_SOAK_WARMUP")) ? atoi(e) : WARMUP;
	size_t q = (e = getenv("VS_SOAK_QUARANTINE")) ? strtoul(e, NULL, 0) : 16;
	size_t arena0 = 0;
	int fds0 = 0, fds_end;
	struct stats st = { 0 };
	struct vs_cm_id *l;
	struct vs_pd *pd;
	char port[16];
	uint64_t t0 = 0;
	int last = -1;
	pid_t pid = -1;
	char self[4096];
	ssize_t n;
	double secs;
	bool iwarp;

	if (argc == 7 && !strcmp(argv[1], "client"))
		return client(argv[2], argv[3], atoi(argv[4]), atoi(argv[5]), atoi(argv[6]));
	if (!getenv("VERBSHIM_IN_VM") || !ip)
		VS_SKIP("needs the SoftRoCE VM (VS_RXE_IP): run it with scripts/vm-run.sh");
	VS_ASSERT(rounds > warmup);
	iwarp = vs_t_iwarp();
	if (iwarp) /* before the warm-up: the fds stay as many */
		VS_ASSERT_EQ(pipe2(go_pipe, O_CLOEXEC), 0);
	/* each round closes one handle of each class: the warm-up fills it */
	if (q)
		vs__handle_quarantine_set(q);
	/* the program's path (under valgrind /proc/self/exe is valgrind's) */
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	VS_ASSERT(n > 0);
	self[n] = 0;
	VS_OK(vs_cm_listen(ip, "0", NULL, &l));
	snprintf(port, sizeof(port), "%u", vs_cm_port(l));
	VS_OK(vs_pd_alloc(vs_cm_context(l), &pd));
	printf("soak: %d rounds on %s:%s (every %dth client killed mid-connection, "
	       "every %dth half-open), %d x %d bytes each way, RSS bound +%ld kB\n",
	       rounds, ip, port, KILL_EVERY, HALF_EVERY, MSGS, SIZE, bound);
	for (int r = 0; r < rounds; r++) {
		if (r == last + 1) {
			/* a process for the next PER_CLIENT, up to a vanishing one */
			last = r;
			while (last + 1 < rounds && last + 1 - r < PER_CLIENT &&
			       kind_of(last) == FULL)
				last++;
			pid = spawn_client(self, ip, port, r, last);
			st.processes++;
		}
		serve_one(l, pd, r, &st, iwarp);
		if (r == last)
			reap(pid, r);
		if (r + 1 == warmup) {
			rss0 = rss_max = rss_kb();
			heap0 = heap_kb();
			arena0 = vs__handle_arena_bytes();
			fds0 = vs_t_count_fds();
			t0 = vs_t_now_ms();
		} else if (r + 1 > warmup) {
			long rss = rss_kb();
			int fds = vs_t_count_fds();

			if (rss > rss_max)
				rss_max = rss;
			if (q && q + 2 < (size_t)warmup &&
			    vs__handle_arena_bytes() != arena0)
				VS_FAIL("round %d: the handle arena holds %zu bytes, "
					"%zu after the warm-up (quarantine %zu)", r,
					vs__handle_arena_bytes(), arena0, q);
			if (fds != fds0)
				VS_FAIL("round %d: %d open fds, %d after the warm-up",
					r, fds, fds0);
			if ((r + 1 - warmup) % ((rounds - warmup + 9) / 10) == 0)
				printf("  round %d: RSS %ld kB, %d fds, heap in use "
				       "%ld kB\n", r + 1, rss, fds, heap_kb());
			if (rss - rss0 > bound)
				VS_FAIL("round %d: RSS %ld kB, %ld kB above the "
					"warm-up's %ld kB (bound %ld kB; %.2f kB per "
					"round; heap in use +%ld kB)", r, rss,
					rss - rss0, rss0, bound,
					(double)(rss - rss0) / (r + 1 - warmup),
					heap_kb() - heap0);
		}
	}
	secs = (double)(vs_t_now_ms() - t0) / 1000;
	rss_end = rss_kb();
	fds_end = vs_t_count_fds();
	printf("soak: %d cycles after the warm-up in %.1f s: %.1f cycles/s; "
	       "%d client processes; connections full %d, killed %d, half-open "
	       "%d; %ld messages checked and echoed\n", rounds - warmup, secs,
	       (rounds - warmup) / secs, st.processes, st.full, st.killed,
	       st.half, st.messages);
	printf("soak: RSS %ld kB after the warm-up, %ld kB at the end (max %ld, "
	       "+%ld kB); heap in use %ld kB and %ld kB (%.0f bytes per cycle); "
	       "open fds %d and %d; handle arena %zu and %zu bytes (quarantine "
	       "%zu)\n", rss0, rss_end, rss_max, rss_end - rss0,
	       heap0, heap_kb(), (double)(heap_kb() - heap0) * 1024 / (rounds - warmup),
	       fds0, fds_end, arena0, vs__handle_arena_bytes(), q);
	VS_OK(vs_pd_close(pd));
	VS_OK(vs_cm_close(l));
	printf("ok\n");
	return 0;
}
