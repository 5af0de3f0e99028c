// SPDX-License-Identifier: MIT
/*
 * The typed API's tests of one port: the RC suite over a QP connected to
 * itself and over a CM connection by IP address, UD, an SRQ, completion
 * events, SRD on EFA and a dmabuf MR.  What the port's link cannot do is a
 * skip that says why (iWARP connects only through the CM).
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/udmabuf.h>

#include "selftest.h"
#include "ud_self_lost.h"

/* What the typed RC suite posts on. */
struct typed_rc {
	struct vs_rc_qp *qp;
	struct vs_cq *cq;
	struct vs_mr *mr;
	size_t base;		/* the local area's offset in mr */
	int timeout_ms;
};

static void vs_err(char *err, size_t len, const char *what)
{
	char msg[VS_ERROR_MSG_MAX + 64];

	snprintf(err, len, "%s: %s", what,
		 vs_format_error(vs_last_error(), msg, sizeof(msg)));
}

/* One receive of s, posted. */
static int post_recv(struct vs_recv_batch *rb, uint64_t id, const struct ibv_sge *s)
{
	int ret = vs_recv_add(rb, id, s, 1);

	return ret ? ret : vs_recv_submit(rb);
}

static int typed_post(void *c, enum rc_op op, uint64_t wr_id, uint32_t off,
		      uint32_t len, uint64_t raddr, uint32_t rkey, uint64_t cmp_add,
		      uint64_t swap, char *err, size_t errlen)
{
	struct typed_rc *t = c;
	struct ibv_sge s = vs_mr_sge(t->mr, t->base + off, len);
	struct vs_remote rem = { .addr = raddr, .rkey = rkey };
	struct vs_rc_batch b;
	int ret = vs_rc_batch_start(t->qp, &b);

	if (ret) {
		vs_err(err, errlen, "vs_rc_batch_start");
		return ret;
	}
	switch (op) {
	case OP_SEND:
		ret = vs_rc_send(&b, wr_id, VS_WR_SIGNALED, &s, 1);
		break;
	case OP_WRITE:
		ret = vs_rc_write(&b, wr_id, VS_WR_SIGNALED, &s, 1, rem);
		break;
	case OP_READ:
		ret = vs_rc_read(&b, wr_id, VS_WR_SIGNALED, &s, 1, rem);
		break;
	case OP_CAS:
		ret = vs_rc_cas(&b, wr_id, VS_WR_SIGNALED, &s, rem, cmp_add, swap);
		break;
	case OP_FAA:
		ret = vs_rc_faa(&b, wr_id, VS_WR_SIGNALED, &s, rem, cmp_add);
		break;
	}
	if (ret) {
		vs_err(err, errlen, "adding the work request");
		vs_rc_batch_abort(&b);
		return ret;
	}
	ret = vs_rc_batch_submit(&b);
	if (ret)
		vs_err(err, errlen, "vs_rc_batch_submit");
	return ret;
}

static int typed_post_recv(void *c, uint64_t wr_id, uint32_t off, uint32_t len,
			   char *err, size_t errlen)
{
	struct typed_rc *t = c;
	struct ibv_sge s = vs_mr_sge(t->mr, t->base + off, len);
	struct vs_recv_batch rb;
	int ret = vs_rc_recv_start(t->qp, &rb);

	if (!ret)
		ret = post_recv(&rb, wr_id, &s);
	if (ret)
		vs_err(err, errlen, "posting a receive");
	return ret;
}

/* One completion within timeout_ms (polled). */
static int poll_one(struct vs_cq *cq, struct vs_wc *wc, int timeout_ms,
		    char *err, size_t errlen)
{
	uint64_t end = now_ns() + (uint64_t)timeout_ms * 1000000u;

	for (;;) {
		int n = vs_cq_poll(cq, wc, 1);

		if (n == 1)
			return 0;
		if (n < 0) {
			vs_err(err, errlen, "vs_cq_poll");
			return n;
		}
		if (now_ns() > end) {
			snprintf(err, errlen, "no completion within %d ms", timeout_ms);
			return -ETIMEDOUT;
		}
	}
}

static int typed_poll(void *c, struct rc_wc *out, int timeout_ms, char *err,
		      size_t errlen)
{
	struct typed_rc *t = c;
	struct vs_wc wc;
	int ret = poll_one(t->cq, &wc, timeout_ms ? timeout_ms : t->timeout_ms,
			   err, errlen);

	if (!ret)
		*out = (struct rc_wc){ .wr_id = wc.wr_id, .status = wc.status,
				       .opcode = wc.opcode, .byte_len = wc.byte_len };
	return ret;
}

static struct rc_api typed_api(struct typed_rc *t)
{
	return (struct rc_api){ .name = "typed", .ctx = t,
				.local = (uint8_t *)vs_mr_ptr(t->mr, t->base),
				.post = typed_post, .post_recv = typed_post_recv,
				.poll = typed_poll };
}

/* The objects every loopback test of a port shares. */
struct rig {
	struct vs_context *ctx;
	struct vs_pd *pd;
	struct vs_cq *cq;
	struct vs_mr *mr;
};

static int rig_open(struct run *r, const struct port_under_test *p,
		    struct rig *g, struct vs_channel *ch)
{
	struct result *res = result_begin(r, p, "typed", "open");
	int ret;

	*g = (struct rig){ 0 };
	if ((ret = vs_device_open(p->device, &g->ctx)) ||
	    (ret = vs_pd_alloc(g->ctx, &g->pd)) ||
	    (ret = vs_cq_create(g->ctx, &(struct vs_cq_config){ .depth = 64,
				.channel = ch }, &g->cq)) ||
	    (ret = vs_mr_alloc(g->pd, REMOTE_SIZE + LOCAL_SIZE, 0, &g->mr))) {
		result_fail_vs(res, "device, PD, CQ and MR", ret);
		return ret;
	}
	result_end(res, PASS, "device, PD, %s CQ, %d-byte MR",
		   vs_cq_is_extended(g->cq) ? "extended" : "legacy",
		   REMOTE_SIZE + LOCAL_SIZE);
	return 0;
}

/* Closing in any order is the typed API's promise: the references hold.
 * Each close is checked (a failure is a failed row: selftest.h). */
static void rig_close(struct run *r, const struct port_under_test *p, struct rig *g)
{
	if (g->mr)
		TEARDOWN(r, p, vs_mr_close, g->mr);
	if (g->cq)
		TEARDOWN(r, p, vs_cq_close, g->cq);
	if (g->pd)
		TEARDOWN(r, p, vs_pd_close, g->pd);
	if (g->ctx)
		TEARDOWN(r, p, vs_device_close, g->ctx);
	*g = (struct rig){ 0 };
}

/* A QP connected to itself (RoCE and InfiniBand; iWARP has no such thing). */
static int self_rc(struct rig *g, struct vs_srq *srq, struct vs_rc_qp **qp)
{
	struct vs_endpoint ep;
	int ret = vs_rc_qp_create(g->pd, &(struct vs_rc_config){
		.send_cq = g->cq, .srq = srq,
		.caps = { .max_send_wr = 32, .max_recv_wr = 32 } }, qp);

	if (!ret)
		ret = vs_rc_endpoint(*qp, &ep);
	if (!ret)
		ret = vs_rc_handshake(*qp, &ep);
	return ret;
}

static void rc_loopback(struct run *r, const struct port_under_test *p, struct rig *g)
{
	struct result *res = result_begin(r, p, "typed", "rc-connect");
	struct typed_rc t = { .cq = g->cq, .mr = g->mr, .base = REMOTE_SIZE,
			      .timeout_ms = r->opt.timeout_ms };
	struct rc_api api;
	int ret = self_rc(g, NULL, &t.qp);

	if (ret) {
		result_fail_vs(res, "an RC QP connected to itself", ret);
		return;
	}
	result_end(res, PASS, "an RC QP (%s) connected to itself by its endpoint",
		   vs_rc_qp_is_extended(t.qp) ? "ibv_wr_*" : "ibv_post_send");
	responder_init(vs_mr_ptr(g->mr, 0));
	api = typed_api(&t);
	rc_suite(r, p, &api, "", vs_mr_remote(g->mr, 0).addr,
		 vs_mr_remote(g->mr, 0).rkey);
	TEARDOWN(r, p, vs_rc_qp_close, t.qp);
}

/*
 * The end of a send-to-a-receive test: the two completions (the send's
 * and recv_id's, either order), successful, the receive of recv_len
 * bytes, and n bytes at got equal to those at sent.  Ends the row.
 */
/*
 * lost: why a datagram to this machine is known to be lost here (a skip
 * that says so when no completion comes), or NULL.
 */
static void finish_send_recv(struct run *r, struct result *res, struct vs_cq *cq,
			     uint64_t recv_id, uint32_t recv_len, const uint8_t *got,
			     const uint8_t *sent, size_t n, const char *passed,
			     const char *lost)
{
	char err[VS_ERROR_MSG_MAX + 64];
	struct vs_wc wc;

	/*
	 * Where the datagram is known lost (LOST), waiting the whole run's
	 * timeout for it proves nothing more: a datagram to this machine
	 * arrives within milliseconds when it arrives at all, so 10 s (a
	 * loaded, emulated machine included) is enough to see it does not.
	 */
	int timeout_ms = lost && r->opt.timeout_ms > 10000 ? 10000 : r->opt.timeout_ms;

	for (int i = 0; i < 2; i++) {
		int ret = poll_one(cq, &wc, timeout_ms, err, sizeof(err));

		if (ret == -ETIMEDOUT && lost) {
			result_end(res, SKIP, "%s: %s", err, lost);
			return;
		}
		if (ret) {
			result_end(res, FAIL, "%s", err);
			return;
		}
		if (wc.status || (wc.wr_id == recv_id && wc.byte_len != recv_len)) {
			result_end(res, FAIL, "completion %llu: %s, %u bytes",
				   (unsigned long long)wc.wr_id,
				   ibv_wc_status_str(wc.status), wc.byte_len);
			return;
		}
	}
	if (memcmp(got, sent, n))
		result_end(res, FAIL, "the receive holds other bytes than sent");
	else
		result_end(res, PASS, "%s", passed);
}

/* An RC QP on an SRQ connected to itself: the send lands in the SRQ's receive. */
static void srq_loopback(struct run *r, const struct port_under_test *p, struct rig *g)
{
	struct result *res = result_begin(r, p, "typed", "srq");
	uint8_t *m = vs_mr_ptr(g->mr, 0);
	struct ibv_sge src = vs_mr_sge(g->mr, 0, 512), dst = vs_mr_sge(g->mr, 4096, 4096);
	struct vs_recv_batch rb;
	struct vs_rc_batch b;
	struct vs_rc_qp *qp = NULL;
	struct vs_srq *srq;
	int ret;

	ret = vs_srq_create(g->pd, &(struct vs_srq_config){ .max_wr = 16 }, &srq);
	if (ret) {
		result_fail_vs(res, "vs_srq_create", ret);
		return;
	}
	ret = self_rc(g, srq, &qp);
	for (int i = 0; i < 512; i++)
		m[i] = (uint8_t)(i ^ 0x5a);
	memset(m + 4096, 0, 4096);
	if (!ret)
		ret = vs_srq_recv_start(srq, &rb);
	if (!ret)
		ret = post_recv(&rb, 21, &dst);
	if (!ret)
		ret = vs_rc_batch_start(qp, &b);
	if (!ret)
		ret = vs_rc_send(&b, 20, VS_WR_SIGNALED, &src, 1);
	if (!ret)
		ret = vs_rc_batch_submit(&b);
	if (ret)
		result_fail_vs(res, "an RC QP on an SRQ, its receive and send", ret);
	else
		finish_send_recv(r, res, g->cq, 21, 512, m + 4096, m, 512,
				 "512 bytes received through the SRQ, compared", NULL);
	if (qp)
		TEARDOWN(r, p, vs_rc_qp_close, qp);
	TEARDOWN(r, p, vs_srq_close, srq);
}

/* rxe of 17.1 and 22.4 loses datagrams to this machine (ud_self_lost.h) */
static const char *ud_self_lost(const struct port_under_test *p)
{
	return vs_ud_self_lost(p->provider);
}

/* Two UD QPs, a datagram from one to the other (its GRH ahead of the bytes). */
static void ud_loopback(struct run *r, const struct port_under_test *p, struct rig *g)
{
	struct result *res = result_begin(r, p, "typed", "ud");
	uint8_t *m = vs_mr_ptr(g->mr, 0);
	struct ibv_sge src = vs_mr_sge(g->mr, 0, 256);
	struct ibv_sge dst = vs_mr_sge(g->mr, 8192, VS_UD_GRH_BYTES + 1024);
	struct vs_ud_qp *a = NULL, *b = NULL;
	struct vs_endpoint eb;
	struct vs_ud_dest to_b = { 0 };
	struct vs_recv_batch rb;
	struct vs_ud_batch ub;
	int ret;
	bool dest = false;

	for (int i = 0; i < 256; i++)
		m[i] = (uint8_t)(i * 3 + 9);
	memset(m + 8192, 0, VS_UD_GRH_BYTES + 1024);
	ret = vs_ud_qp_create(g->pd, &(struct vs_ud_config){ .send_cq = g->cq }, &a);
	if (!ret)
		ret = vs_ud_qp_create(g->pd, &(struct vs_ud_config){ .send_cq = g->cq }, &b);
	if (!ret)
		ret = vs_ud_endpoint(b, &eb);
	if (!ret) {
		struct vs_endpoint ea;
		struct vs_ud_dest to_a;

		ret = vs_ud_endpoint(a, &ea);
		if (!ret)
			ret = vs_ud_handshake(b, &ea, &to_a);
		if (!ret)
			TEARDOWN(r, p, vs_ud_dest_release, &to_a);
	}
	if (!ret && !(ret = vs_ud_handshake(a, &eb, &to_b)))
		dest = true;
	if (!ret)
		ret = vs_ud_recv_start(b, &rb);
	if (!ret)
		ret = post_recv(&rb, 31, &dst);
	if (!ret)
		ret = vs_ud_batch_start(a, &ub);
	if (!ret)
		ret = vs_ud_send(&ub, 30, VS_WR_SIGNALED, &to_b, &src, 1);
	if (!ret)
		ret = vs_ud_batch_submit(&ub);
	if (ret)
		result_fail_vs(res, "two UD QPs, a destination, a receive and a send", ret);
	else
		finish_send_recv(r, res, g->cq, 31, VS_UD_GRH_BYTES + 256,
				 m + 8192 + VS_UD_GRH_BYTES, m, 256,
				 "a 256-byte datagram between two QPs, compared",
				 ud_self_lost(p));
	if (dest)
		TEARDOWN(r, p, vs_ud_dest_release, &to_b);
	if (a)
		TEARDOWN(r, p, vs_ud_qp_close, a);
	if (b)
		TEARDOWN(r, p, vs_ud_qp_close, b);
}

/* A CQ on a completion channel: the RDMA write's completion wakes the wait. */
static void events_loopback(struct run *r, const struct port_under_test *p)
{
	struct result *res = result_begin(r, p, "typed", "events");
	struct vs_channel *ch = NULL;
	struct rig g = { 0 };
	struct vs_rc_qp *qp = NULL;
	struct vs_rc_batch b;
	struct vs_wc wc;
	int ret = vs_device_open(p->device, &g.ctx);

	if (!ret)
		ret = vs_channel_create(g.ctx, &ch);
	if (!ret)
		ret = vs_pd_alloc(g.ctx, &g.pd);
	if (!ret)
		ret = vs_cq_create(g.ctx, &(struct vs_cq_config){ .depth = 16,
				   .channel = ch }, &g.cq);
	if (!ret)
		ret = vs_mr_alloc(g.pd, 8192, 0, &g.mr);
	if (!ret)
		ret = self_rc(&g, NULL, &qp);
	if (ret) {
		result_fail_vs(res, "a CQ on a channel, an RC QP to itself", ret);
		goto out;
	}
	memset(vs_mr_ptr(g.mr, 0), 0x3c, 64);
	{
		struct ibv_sge s = vs_mr_sge(g.mr, 0, 64);

		ret = vs_rc_batch_start(qp, &b);
		if (!ret)
			ret = vs_rc_write(&b, 40, VS_WR_SIGNALED, &s, 1,
					  vs_mr_remote(g.mr, 4096));
		if (!ret)
			ret = vs_rc_batch_submit(&b);
	}
	if (!ret)
		ret = vs_cq_wait(g.cq, r->opt.timeout_ms, &wc, 1);
	if (ret < 0) {
		result_fail_vs(res, "a write, then sleeping on the channel", ret);
		goto out;
	}
	if (wc.status || wc.wr_id != 40 || memcmp(vs_mr_ptr(g.mr, 4096),
						  vs_mr_ptr(g.mr, 0), 64))
		result_end(res, FAIL, "woken with completion %llu %s, bytes %s",
			   (unsigned long long)wc.wr_id, ibv_wc_status_str(wc.status),
			   memcmp(vs_mr_ptr(g.mr, 4096), vs_mr_ptr(g.mr, 0), 64) ?
			   "differ" : "match");
	else
		result_end(res, PASS, "slept on the channel, woken by the write's "
			   "completion, 64 bytes compared");
out:
	/* children first: each close is then its object's last reference,
	 * so a close that fails leaves that object open for its close again */
	if (qp)
		TEARDOWN(r, p, vs_rc_qp_close, qp);
	if (g.mr)
		TEARDOWN(r, p, vs_mr_close, g.mr);
	if (g.cq)
		TEARDOWN(r, p, vs_cq_close, g.cq);
	g.mr = NULL;
	g.cq = NULL;
	if (ch)
		TEARDOWN(r, p, vs_channel_close, ch);
	rig_close(r, p, &g);
}

/* A dmabuf from /dev/udmabuf (a memfd's pages), registered, written into. */
static void dmabuf_mr(struct run *r, const struct port_under_test *p, struct rig *g)
{
	struct result *res = result_begin(r, p, "typed", "dmabuf-mr");
	struct vs_feature_info fi;
	struct vs_mr *mr = NULL;
	int dev, mem = -1, buf = -1, ret;
	const size_t size = 65536;

	vs_feature_query(VS_FEATURE_DMABUF_MR, &fi);
	if (!fi.available) {
		result_end(res, SKIP, "%s not in this rdma-core (%s; rdma-core %d added it)",
			   fi.verb, fi.found, fi.release);
		return;
	}
	dev = open("/dev/udmabuf", O_RDWR | O_CLOEXEC);
	if (dev < 0) {
		result_end(res, SKIP, "no dmabuf exporter to test with: /dev/udmabuf: "
			   "%s (modprobe udmabuf)", strerror(errno));
		return;
	}
	mem = memfd_create("verbshim-selftest", MFD_ALLOW_SEALING);
	if (mem < 0 || ftruncate(mem, (off_t)size) ||
	    fcntl(mem, F_ADD_SEALS, F_SEAL_SHRINK) < 0) {
		result_end(res, FAIL, "a sealed memfd for udmabuf: %s", strerror(errno));
		goto out;
	}
	buf = ioctl(dev, UDMABUF_CREATE, &(struct udmabuf_create){
		.memfd = (uint32_t)mem, .offset = 0, .size = size });
	if (buf < 0) {
		result_end(res, SKIP, "UDMABUF_CREATE: %s: no dmabuf to register",
			   strerror(errno));
		goto out;
	}
	ret = vs_mr_register_dmabuf(g->pd, buf, 0, size, 0, 0, &mr);
	if (ret) {
		result_fail_vs(res, "vs_mr_register_dmabuf", ret);
		goto out;
	}
	result_end(res, PASS, "a %zu-byte udmabuf registered (lkey 0x%x)", size,
		   vs_mr_raw(mr)->lkey);
	TEARDOWN(r, p, vs_mr_close, mr);
out:
	if (buf >= 0)
		close(buf);
	if (mem >= 0)
		close(mem);
	close(dev);
}

/* SRD exists on EFA only; there a datagram between two SRD QPs. */
static void srd_test(struct run *r, const struct port_under_test *p, struct rig *g)
{
	struct result *res = result_begin(r, p, "typed", "srd");
	struct vs_srd_qp *a = NULL, *b = NULL;
	struct vs_endpoint ea, eb;
	struct vs_srd_dest to_b = { 0 }, to_a = { 0 };
	struct ibv_sge src = vs_mr_sge(g->mr, 0, 256), dst = vs_mr_sge(g->mr, 8192, 1024);
	struct vs_recv_batch rb;
	struct vs_srd_batch sb;
	uint8_t *m = vs_mr_ptr(g->mr, 0);
	int ret;

	if (!p->efa) {
		result_end(res, SKIP, "%s is not an EFA device (SRD is EFA's only)",
			   p->device);
		return;
	}
	for (int i = 0; i < 256; i++)
		m[i] = (uint8_t)(i + 77);
	memset(m + 8192, 0, 1024);
	ret = vs_srd_qp_create(g->pd, &(struct vs_srd_config){ .send_cq = g->cq }, &a);
	if (!ret)
		ret = vs_srd_qp_create(g->pd, &(struct vs_srd_config){ .send_cq = g->cq }, &b);
	if (!ret)
		ret = vs_srd_endpoint(a, &ea);
	if (!ret)
		ret = vs_srd_endpoint(b, &eb);
	if (!ret)
		ret = vs_srd_handshake(a, &eb, &to_b);
	if (!ret)
		ret = vs_srd_handshake(b, &ea, &to_a);
	if (!ret)
		ret = vs_srd_recv_start(b, &rb);
	if (!ret)
		ret = post_recv(&rb, 51, &dst);
	if (!ret)
		ret = vs_srd_batch_start(a, &sb);
	if (!ret)
		ret = vs_srd_send(&sb, 50, VS_WR_SIGNALED, &to_b, &src, 1);
	if (!ret)
		ret = vs_srd_batch_submit(&sb);
	if (ret)
		result_fail_vs(res, "two SRD QPs, destinations, a receive and a send", ret);
	else
		finish_send_recv(r, res, g->cq, 51, 256, m + 8192, m, 256,
				 "a 256-byte SRD datagram between two QPs, compared",
				 NULL);
	if (to_b.base.ah)
		TEARDOWN(r, p, vs_srd_dest_release, &to_b);
	if (to_a.base.ah)
		TEARDOWN(r, p, vs_srd_dest_release, &to_a);
	if (a)
		TEARDOWN(r, p, vs_srd_qp_close, a);
	if (b)
		TEARDOWN(r, p, vs_srd_qp_close, b);
}

void typed_tests(struct run *r, const struct port_under_test *p)
{
	static const char *const self_tests[] = { "rc-connect", "srq", "ud", "events" };
	struct rig g;

	if (rig_open(r, p, &g, NULL)) {
		rig_close(r, p, &g);
		return;
	}
	if (p->kind == VS_LINK_IWARP) {
		for (size_t i = 0; i < sizeof(self_tests) / sizeof(self_tests[0]); i++)
			result_end(result_begin(r, p, "typed", self_tests[i]), SKIP,
				   "iWARP: a QP connects only through the CM, never "
				   "to itself by its endpoint%s", i == 2 ?
				   "; and iWARP has no UD" : i == 0 ?
				   " (the cm-rc- rows test RC here)" :
				   " (cm-srq-events tests it here)");
	} else if (p->efa) {
		result_end(result_begin(r, p, "typed", "rc-connect"), SKIP,
			   "EFA has no RC: SRD instead");
	} else {
		rc_loopback(r, p, &g);
		srq_loopback(r, p, &g);
		ud_loopback(r, p, &g);
		events_loopback(r, p);
	}
	srd_test(r, p, &g);
	dmabuf_mr(r, p, &g);
	rig_close(r, p, &g);
}

/* Whether a connect's failure means the server is not up yet. */
static bool not_up_yet(int ret)
{
	return ret == -ECONNREFUSED || ret == -EHOSTUNREACH || ret == -ENETUNREACH ||
	       ret == -ETIMEDOUT || ret == -EADDRNOTAVAIL || ret == -ECONNRESET;
}

/* vs_cm_rc_client, retried for --wait while the server is not up yet. */
static int cm_connect(struct run *r, const char *host, const char *port,
		      struct vs_cm_id **id)
{
	uint64_t end = now_ns() + (uint64_t)r->opt.wait_ms * 1000000u;
	int ret;

	for (;;) {
		ret = vs_cm_rc_client(host, port, &(struct vs_cm_config){
			.timeout_ms = r->opt.timeout_ms }, &(struct vs_cm_conn_config){
			.timeout_ms = r->opt.timeout_ms }, &(struct vs_rc_config){
			.caps = { .max_send_wr = 32, .max_recv_wr = 32 } }, id);
		if (!ret || !not_up_yet(ret) || now_ns() >= end)
			return ret;
		sleep(1);
	}
}

/* The RC suite over a CM connection to host:port (a verbshim-selftest server). */
void typed_cm_tests(struct run *r, const struct port_under_test *p,
		    const char *host, const char *port)
{
	struct result *res = result_begin(r, p, "typed", "cm-connect");
	struct vs_cm_id *id = NULL;
	struct typed_rc t = { .timeout_ms = r->opt.timeout_ms };
	struct peer_info peer;
	const void *data;
	struct rc_api api;
	uint8_t len = 0;
	int ret;

	ret = cm_connect(r, host, port, &id);
	if (ret) {
		result_fail_vs(res, "vs_cm_rc_client", ret);
		return;
	}
	data = vs_cm_private_data(id, &len);
	if (!data || len < sizeof(peer)) {
		result_end(res, FAIL, "the server's accept carried %u bytes of "
			   "private data, not a verbshim-selftest server's %zu",
			   len, sizeof(peer));
		goto out;
	}
	memcpy(&peer, data, sizeof(peer));
	if (be32toh(peer.magic) != PEER_MAGIC) {
		result_end(res, FAIL, "%s:%s is not a verbshim-selftest server", host, port);
		goto out;
	}
	t.qp = vs_cm_rc_qp(id);
	t.cq = vs_cm_cq(id);
	ret = vs_mr_alloc(vs_cm_pd(id), LOCAL_SIZE, 0, &t.mr);
	if (ret) {
		result_fail_vs(res, "vs_mr_alloc", ret);
		goto out;
	}
	result_end(res, PASS, "vs_cm_rc_client to %s through %s",
		   vs_cm_peer(id), vs_cm_context(id)->name);
	api = typed_api(&t);
	rc_suite(r, p, &api, "cm-", be64toh(peer.addr), be32toh(peer.rkey));
	TEARDOWN(r, p, vs_mr_close, t.mr);
out:
	TEARDOWN(r, p, vs_cm_close, id);
}

/* What the SRQ-and-events connection holds. */
struct cm_rig {
	struct vs_cm_id *id;
	struct vs_channel *ch;
	struct rig g;
	struct vs_srq *srq;
	struct vs_rc_qp *qp;	/* the id's; the id holds it */
};

/*
 * Our own CQ (on a completion channel) and SRQ under a CM connection: the
 * way iWARP, which has no loopback QP, tests them, and the steps of the
 * typed CM beside vs_cm_rc_client's one call.  The server's echo must
 * land in the SRQ's receive and wake the wait on the channel.
 */
static int cm_rig_open(struct run *r, const char *host, const char *port,
		       struct cm_rig *c)
{
	struct ibv_sge dst;
	struct vs_recv_batch rb;
	int ret = vs_cm_resolve(host, port, &(struct vs_cm_config){
		.timeout_ms = r->opt.timeout_ms }, &c->id);

	if (!ret)
		ret = vs_channel_create(vs_cm_context(c->id), &c->ch);
	if (!ret)
		ret = vs_pd_alloc(vs_cm_context(c->id), &c->g.pd);
	if (!ret)
		ret = vs_cq_create(vs_cm_context(c->id), &(struct vs_cq_config){
			.depth = 16, .channel = c->ch }, &c->g.cq);
	if (!ret)
		ret = vs_mr_alloc(c->g.pd, 8192, 0, &c->g.mr);
	if (!ret)
		ret = vs_srq_create(c->g.pd, &(struct vs_srq_config){ .max_wr = 8 },
				    &c->srq);
	dst = ret ? (struct ibv_sge){ 0 } : vs_mr_sge(c->g.mr, 4096, 4096);
	if (!ret)
		ret = vs_srq_recv_start(c->srq, &rb);
	if (!ret)
		ret = post_recv(&rb, 61, &dst);
	if (!ret)
		ret = vs_cm_rc_qp_create(c->id, c->g.pd, &(struct vs_rc_config){
			.send_cq = c->g.cq, .srq = c->srq,
			.caps = { .max_send_wr = 8 } }, &c->qp);
	if (!ret)
		ret = vs_cm_connect(c->id, &(struct vs_cm_conn_config){
			.timeout_ms = r->opt.timeout_ms });
	return ret;
}

static void cm_rig_close(struct run *r, const struct port_under_test *p,
			 struct cm_rig *c)
{
	if (c->id)
		TEARDOWN(r, p, vs_cm_close, c->id);
	if (c->srq)
		TEARDOWN(r, p, vs_srq_close, c->srq);
	if (c->g.mr)
		TEARDOWN(r, p, vs_mr_close, c->g.mr);
	if (c->g.cq)
		TEARDOWN(r, p, vs_cq_close, c->g.cq);
	c->g.mr = NULL;
	c->g.cq = NULL;
	if (c->ch)
		TEARDOWN(r, p, vs_channel_close, c->ch);
	rig_close(r, p, &c->g);
}

void typed_cm_srq_events(struct run *r, const struct port_under_test *p,
			 const char *host, const char *port)
{
	struct result *res = result_begin(r, p, "typed", "cm-srq-events");
	struct cm_rig c = { 0 };
	struct vs_rc_batch b;
	struct ibv_sge src;
	struct vs_wc wc[2];
	uint8_t *m;
	int ret = cm_rig_open(r, host, port, &c), got = 0;

	if (ret) {
		result_fail_vs(res, "a CM connection with our CQ on a channel and an SRQ", ret);
		goto out;
	}
	m = vs_mr_ptr(c.g.mr, 0);
	for (int i = 0; i < MSG_BYTES; i++)
		m[i] = (uint8_t)(i * 5 + 11);
	src = vs_mr_sge(c.g.mr, 0, MSG_BYTES);
	ret = vs_rc_batch_start(c.qp, &b);
	if (!ret)
		ret = vs_rc_send(&b, 60, VS_WR_SIGNALED, &src, 1);
	if (!ret)
		ret = vs_rc_batch_submit(&b);
	while (!ret && got < 2) {	/* each wait sleeps on the channel */
		ret = vs_cq_wait(c.g.cq, r->opt.timeout_ms, wc + got, 2 - got);
		if (ret > 0) {
			got += ret;
			ret = 0;
		}
	}
	if (ret) {
		result_fail_vs(res, "the send, then sleeping on the channel", ret);
		goto out;
	}
	if (wc[0].status || wc[1].status || wc[0].wr_id + wc[1].wr_id != 121 ||
	    (wc[0].wr_id == 61 ? wc[0] : wc[1]).byte_len != MSG_BYTES)
		result_end(res, FAIL, "completions %llu (%s) and %llu (%s), expected "
			   "the send (60) and the SRQ's receive (61) of %d bytes",
			   (unsigned long long)wc[0].wr_id, ibv_wc_status_str(wc[0].status),
			   (unsigned long long)wc[1].wr_id, ibv_wc_status_str(wc[1].status),
			   MSG_BYTES);
	else if (memcmp(m + 4096, m, MSG_BYTES))
		result_end(res, FAIL, "the echo in the SRQ's receive differs from what was sent");
	else
		result_end(res, PASS, "%d bytes echoed into the SRQ's receive, "
			   "woken on the channel, compared", MSG_BYTES);
out:
	cm_rig_close(r, p, &c);
}
