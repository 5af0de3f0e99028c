// SPDX-License-Identifier: MIT
/*
 * The drop-in's tests: what an unchanged verbs program calls, plain
 * rdma_getaddrinfo / rdma_create_ep / rdma_connect and ibv_reg_mr /
 * ibv_post_send / ibv_post_recv / ibv_poll_cq, here resolved by verbshim's
 * drop-ins.  The RC suite runs over them against the same responder as
 * the typed API's.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

#include "selftest.h"

struct plain_rc {
	struct rdma_cm_id *id;
	struct ibv_mr *mr;
	uint8_t *buf;
	int timeout_ms;
};

static int plain_post(void *c, enum rc_op op, uint64_t wr_id, uint32_t off,
		      uint32_t len, uint64_t raddr, uint32_t rkey, uint64_t cmp_add,
		      uint64_t swap, char *err, size_t errlen)
{
	static const enum ibv_wr_opcode opcodes[] = {
		[OP_SEND] = IBV_WR_SEND, [OP_WRITE] = IBV_WR_RDMA_WRITE,
		[OP_READ] = IBV_WR_RDMA_READ, [OP_CAS] = IBV_WR_ATOMIC_CMP_AND_SWP,
		[OP_FAA] = IBV_WR_ATOMIC_FETCH_AND_ADD,
	};
	struct plain_rc *t = c;
	struct ibv_sge s = { .addr = (uintptr_t)(t->buf + off), .length = len,
			     .lkey = t->mr->lkey };
	struct ibv_send_wr wr = { .wr_id = wr_id, .sg_list = &s, .num_sge = 1,
				  .opcode = opcodes[op],
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	int ret;

	if (op == OP_CAS || op == OP_FAA) {
		wr.wr.atomic.remote_addr = raddr;
		wr.wr.atomic.rkey = rkey;
		wr.wr.atomic.compare_add = cmp_add;
		wr.wr.atomic.swap = swap;
	} else {
		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = rkey;
	}
	ret = ibv_post_send(t->id->qp, &wr, &bad);
	if (ret)
		snprintf(err, errlen, "ibv_post_send: %s", strerror(ret));
	return ret ? -ret : 0;
}

static int plain_post_recv(void *c, uint64_t wr_id, uint32_t off, uint32_t len,
			   char *err, size_t errlen)
{
	struct plain_rc *t = c;
	struct ibv_sge s = { .addr = (uintptr_t)(t->buf + off), .length = len,
			     .lkey = t->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &s, .num_sge = 1 }, *bad;
	int ret = ibv_post_recv(t->id->qp, &wr, &bad);

	if (ret)
		snprintf(err, errlen, "ibv_post_recv: %s", strerror(ret));
	return ret ? -ret : 0;
}

/* The send CQ and the receive CQ rdma_create_ep made, polled in turn. */
static int plain_poll(void *c, struct rc_wc *out, int timeout_ms, char *err,
		      size_t errlen)
{
	struct plain_rc *t = c;
	uint64_t end = now_ns() +
		(uint64_t)(timeout_ms ? timeout_ms : t->timeout_ms) * 1000000u;
	struct ibv_cq *cqs[2] = { t->id->send_cq, t->id->recv_cq };

	for (unsigned int i = 0;; i++) {
		struct ibv_cq *cq = cqs[i % 2];
		struct ibv_wc wc;
		int n;

		if (!cq)
			continue;
		n = ibv_poll_cq(cq, 1, &wc);
		if (n < 0) {
			snprintf(err, errlen, "ibv_poll_cq: %d", n);
			return -EIO;
		}
		if (n == 1) {
			*out = (struct rc_wc){ .wr_id = wc.wr_id, .status = wc.status,
					       .opcode = wc.opcode,
					       .byte_len = wc.byte_len };
			return 0;
		}
		if (now_ns() > end) {
			snprintf(err, errlen, "no completion within %d ms",
				 timeout_ms ? timeout_ms : t->timeout_ms);
			return -ETIMEDOUT;
		}
	}
}

void dropin_tests(struct run *r, const struct port_under_test *p,
		  const char *host, const char *port)
{
	struct result *res = result_begin(r, p, "dropin", "cm-connect");
	struct rdma_addrinfo hints = { .ai_port_space = RDMA_PS_TCP }, *ai = NULL;
	struct ibv_qp_init_attr attr = {
		.cap = { .max_send_wr = 32, .max_recv_wr = 32, .max_send_sge = 1,
			 .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	struct rdma_conn_param param = { .initiator_depth = 1,
					 .responder_resources = 1,
					 .retry_count = 7, .rnr_retry_count = 7 };
	struct plain_rc t = { .timeout_ms = r->opt.timeout_ms };
	struct peer_info peer;
	struct rc_api api;
	int ret;

	ret = rdma_getaddrinfo(host, port, &hints, &ai);
	if (ret) {
		result_end(res, FAIL, "rdma_getaddrinfo(%s, %s): %s", host, port,
			   strerror(errno));
		return;
	}
	if (rdma_create_ep(&t.id, ai, NULL, &attr)) {
		result_end(res, FAIL, "rdma_create_ep to %s: %s", host, strerror(errno));
		goto out_ai;
	}
	t.buf = aligned_alloc(4096, LOCAL_SIZE);
	t.mr = t.buf ? ibv_reg_mr(t.id->pd, t.buf, LOCAL_SIZE, IBV_ACCESS_LOCAL_WRITE |
				  IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
				  IBV_ACCESS_REMOTE_ATOMIC) : NULL;
	if (!t.mr) {
		result_end(res, FAIL, "ibv_reg_mr of %d bytes: %s", LOCAL_SIZE,
			   strerror(errno));
		goto out_ep;
	}
	if (rdma_connect(t.id, &param)) {
		result_end(res, FAIL, "rdma_connect to %s port %s: %s", host, port,
			   strerror(errno));
		goto out_mr;
	}
	if (!t.id->event || t.id->event->param.conn.private_data_len < sizeof(peer)) {
		result_end(res, FAIL, "the accept carried no verbshim-selftest "
			   "server's private data");
		goto out_disc;
	}
	memcpy(&peer, t.id->event->param.conn.private_data, sizeof(peer));
	if (be32toh(peer.magic) != PEER_MAGIC) {
		result_end(res, FAIL, "%s:%s is not a verbshim-selftest server", host, port);
		goto out_disc;
	}
	result_end(res, PASS, "rdma_create_ep, ibv_reg_mr, rdma_connect to %s "
		   "port %s through %s", host, port,
		   ibv_get_device_name(t.id->verbs->device));
	api = (struct rc_api){ .name = "dropin", .ctx = &t, .local = t.buf,
			       .post = plain_post, .post_recv = plain_post_recv,
			       .poll = plain_poll };
	rc_suite(r, p, &api, "cm-", be64toh(peer.addr), be32toh(peer.rkey));
out_disc:
	errno = 0;
	if (rdma_disconnect(t.id))
		teardown_plain(r, p, "rdma_disconnect", errno ? errno : EIO);
out_mr:
	/* checked, and tried once more as a program that retries would: an
	 * MR that will not go keeps its memory (the device may reach it) */
	ret = ibv_dereg_mr(t.mr);
	if (ret) {
		struct result *row = teardown_plain(r, p, "ibv_dereg_mr", ret);

		ret = ibv_dereg_mr(t.mr);
		teardown_retried(row, -ret);
	}
	if (!ret)
		free(t.buf);
out_ep:
	if (!t.mr)
		free(t.buf);
	rdma_destroy_ep(t.id);	/* void: it cannot say */
out_ai:
	rdma_freeaddrinfo(ai);
}
