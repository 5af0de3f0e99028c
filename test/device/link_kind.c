/* SPDX-License-Identifier: MIT */
/*
 * What the typed API does by the port's kind, on the device under test
 * (rxe0: RoCE; siw0: iWARP), with the bytes that arrive checked:
 *  - vs_port_info says the kind the device's transport and link layer make;
 *  - a pair of RC QPs connected by the CM moves a send, an RDMA write
 *    and an RDMA read (its sink an MR of the default access, which grants
 *    the remote write iWARP's read response needs), each checked where it
 *    lands;
 *  - RoCE: a fetch-and-add's old value and the new one checked;
 *    iWARP (siw has no atomics): the add refused naming the device, a QP
 *    outside the CM refused naming the CM, and UC/UD refused naming iWARP.
 */
#include "../common/vs_cm_rig.h"

#define LEN 256

static void post_one(struct vs_rc_qp *qp, int op, uint64_t wr_id,
		     struct ibv_sge sge, struct vs_remote remote)
{
	struct vs_rc_batch b;

	VS_OK(vs_rc_batch_start(qp, &b));
	if (op == 'w')
		VS_OK(vs_rc_write(&b, wr_id, VS_WR_SIGNALED, &sge, 1, remote));
	else
		VS_OK(vs_rc_read(&b, wr_id, VS_WR_SIGNALED, &sge, 1, remote));
	VS_OK(vs_rc_batch_submit(&b));
}

static void wait_wr(struct vs_cq *cq, uint64_t wr_id, enum ibv_wc_opcode op)
{
	struct vs_wc wc;

	vs_t_wait(cq, &wc, 1);
	vs_t_expect_wc(&wc, wr_id, op, UINT32_MAX);
}

static void data_path(const char *ip, enum vs_link_kind kind)
{
	struct vs_t_cm_pair p;
	struct vs_mr *src, *dst;
	uint8_t *s, *d;
	struct vs_rc_batch b;
	struct ibv_sge word_sge;

	vs_t_cm_pair_connect(&p, ip); /* one send each way, checked */
	VS_OK(vs_mr_alloc(p.pd, LEN, 0, &src));
	VS_OK(vs_mr_alloc(p.pd, LEN, 0, &dst));
	s = vs_mr_ptr(src, 0);
	d = vs_mr_ptr(dst, 0);

	/* client writes src into the server's dst */
	vs_t_fill(s, LEN, 11);
	memset(d, 0, LEN);
	post_one(p.cqp, 'w', 21, vs_mr_sge(src, 0, LEN), vs_mr_remote(dst, 0));
	wait_wr(p.cq, 21, IBV_WC_RDMA_WRITE);
	vs_t_check(d, LEN, 11);
	/* client reads the server's dst (now seed 12) back into src */
	vs_t_fill(d, LEN, 12);
	memset(s, 0, LEN);
	post_one(p.cqp, 'r', 22, vs_mr_sge(src, 0, LEN), vs_mr_remote(dst, 0));
	wait_wr(p.cq, 22, IBV_WC_RDMA_READ);
	vs_t_check(s, LEN, 12);
	printf("%s: CM-connected RC: send, RDMA write and RDMA read of %d bytes checked\n",
	       vs_link_kind_name(kind), LEN);

	word_sge = vs_mr_sge(src, 0, 8);
	VS_OK(vs_rc_batch_start(p.cqp, &b));
	if (kind == VS_LINK_IWARP) {
		VS_FAILS(vs_rc_faa(&b, 23, VS_WR_SIGNALED, &word_sge,
				   vs_mr_remote(dst, 0), 1),
			 EOPNOTSUPP, "has no atomics (atomic_cap NONE)");
		vs_rc_batch_abort(&b);
		printf("  %s\n", vs_t_err());
	} else {
		uint64_t *old = (uint64_t *)s, *word = (uint64_t *)d;

		*word = 40;
		*old = 0;
		VS_OK(vs_rc_faa(&b, 23, VS_WR_SIGNALED, &word_sge,
				vs_mr_remote(dst, 0), 2));
		VS_OK(vs_rc_batch_submit(&b));
		wait_wr(p.cq, 23, IBV_WC_FETCH_ADD);
		VS_ASSERT_EQ(*old, 40);
		VS_ASSERT_EQ(*word, 42);
		printf("%s: fetch-and-add: old 40, new 42\n", vs_link_kind_name(kind));
	}
	VS_OK(vs_mr_close(src));
	VS_OK(vs_mr_close(dst));
	vs_t_cm_pair_close(&p);
}

/* iWARP: what it has not is refused at create, naming the device and why */
static void iwarp_refusals(void)
{
	struct vs_context *ctx;
	struct vs_pd *pd;
	struct vs_cq *cq;
	struct vs_rc_qp *rc = (struct vs_rc_qp *)1;
	struct vs_uc_qp *uc = (struct vs_uc_qp *)1;
	struct vs_ud_qp *ud = (struct vs_ud_qp *)1;

	VS_OK(vs_device_open(vs_t_dev(), &ctx));
	VS_OK(vs_pd_alloc(ctx, &pd));
	VS_OK(vs_cq_create(ctx, NULL, &cq));
	VS_FAILS(vs_rc_qp_create(pd, &(struct vs_rc_config){ .send_cq = cq }, &rc),
		 EOPNOTSUPP, "connect only through the connection manager, not by "
		 "endpoint bytes and a handshake: create the QP on a CM id");
	VS_ASSERT(rc == NULL);
	printf("  %s\n", vs_t_err());
	VS_FAILS(vs_uc_qp_create(pd, &(struct vs_uc_config){ .send_cq = cq }, &uc),
		 EOPNOTSUPP, "is an iWARP device: it has no UC QPs");
	VS_ASSERT(uc == NULL);
	VS_FAILS(vs_ud_qp_create(pd, &(struct vs_ud_config){ .send_cq = cq }, &ud),
		 EOPNOTSUPP, "is an iWARP device: it has no UD QPs");
	VS_ASSERT(ud == NULL);
	printf("  %s\n", vs_t_err());
	VS_OK(vs_cq_close(cq));
	VS_OK(vs_pd_close(pd));
	VS_OK(vs_device_close(ctx));
}

int main(void)
{
	const char *ip = getenv("VS_RXE_IP");
	enum vs_link_kind kind;
	struct vs_context *ctx;
	struct vs_port_info pi;

	if (!getenv("VERBSHIM_IN_VM") || !ip)
		VS_SKIP("needs the SoftRoCE VM (VS_RXE_IP): run it with scripts/vm-run.sh");
	setvbuf(stdout, NULL, _IOLBF, 0);
	VS_OK(vs_device_open(vs_t_dev(), &ctx));
	VS_OK(vs_port_info(ctx, 1, &pi));
	kind = pi.kind;
	VS_ASSERT_EQ(pi.link_layer, IBV_LINK_LAYER_ETHERNET);
	/* the device's own word for it, through ibverbs' device list */
	VS_ASSERT_EQ(kind, ctx->ctx->device->transport_type == IBV_TRANSPORT_IWARP ?
		     VS_LINK_IWARP : VS_LINK_ROCE);
	if (getenv("VS_PROVIDER"))
		VS_ASSERT_EQ(kind, !strcmp(getenv("VS_PROVIDER"), "siw") ?
			     VS_LINK_IWARP : VS_LINK_ROCE);
	VS_ASSERT_STREQ(vs_link_kind_name(kind), kind == VS_LINK_IWARP ? "iWARP" : "RoCE");
	printf("%s port 1: %s\n", ctx->name, vs_link_kind_name(kind));
	VS_OK(vs_device_close(ctx));
	if (kind == VS_LINK_IWARP)
		iwarp_refusals();
	data_path(ip, kind);
	printf("ok\n");
	return 0;
}
