/* SPDX-License-Identifier: MIT */
/*
 * The typed API on an InfiniBand port: NOT A DATA-PATH TEST.  No soft
 * InfiniBand device exists, so this program runs the typed calls against
 * the fake provider with VS_FAKE_LINK=ib (test/stubs/stub_fake_ibverbs.c:
 * LID 0x11, SM LID 0x1, active MTU 2048, IB GIDs at 0 and 1) and checks
 * what the library hands the provider where IB differs from RoCE:
 * vs_port_info's kind and LID; vs_gid_pick's port GID (index 0); RC and
 * UD endpoints by LID without a GID; the RC RTR's address vector (dlid,
 * no GRH) and path MTU (the smaller of both ends); a UD address handle
 * (dlid, no GRH); the refusal of a RoCE peer; a port that no subnet
 * manager configured yet (LID 0: the endpoint refused, then the LID the
 * SM gave).  Last, without the knob, fake0 is RoCE.
 */
#include "../common/vs_fake.h"

/* what the fake provider recorded (vs_stub_modify, vs_stub_last_ah) */
static struct {
	int mask[IBV_QPS_ERR + 1];
	struct ibv_qp_attr attr[IBV_QPS_ERR + 1];
} *modify;
static struct ibv_ah_attr *last_ah;
static int *live;

static const uint8_t port_gid[16] = {
	0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x00, 0x02, 0xc9, 0x03, 0x00, 0x11, 0x22, 0x33,
};

struct rig {
	struct vs_context *ctx;
	struct vs_pd *pd;
	struct vs_cq *cq;
};

static void rig_up(struct rig *r)
{
	VS_OK(vs_device_open("fake0", &r->ctx));
	VS_OK(vs_pd_alloc(r->ctx, &r->pd));
	VS_OK(vs_cq_create(r->ctx, NULL, &r->cq));
}

static void rig_down(struct rig *r)
{
	VS_OK(vs_cq_close(r->cq));
	VS_OK(vs_pd_close(r->pd));
	VS_OK(vs_device_close(r->ctx));
	vs_t_fake_all_gone(live);
}

/* A peer on the same subnet: another LID, no GID. */
static struct vs_endpoint ib_peer(enum vs_transport t, uint16_t lid, enum ibv_mtu mtu)
{
	return (struct vs_endpoint){
		.transport = t,
		.qpn = 0x777,
		.psn = 0x4242,
		.qkey = t == VS_TRANSPORT_UD ? VS_DEFAULT_QKEY : 0,
		.lid = lid,
		.port = 1,
		.mtu = mtu,
	};
}

static void port(struct rig *r)
{
	struct vs_port_info pi;

	VS_OK(vs_port_info(r->ctx, 1, &pi));
	VS_ASSERT_EQ(pi.kind, VS_LINK_IB);
	VS_ASSERT_STREQ(vs_link_kind_name(pi.kind), "InfiniBand");
	VS_ASSERT_EQ(pi.link_layer, IBV_LINK_LAYER_INFINIBAND);
	VS_ASSERT_EQ(pi.lid, 0x11);
	VS_ASSERT_EQ(pi.raw.sm_lid, 0x1);
	VS_ASSERT_EQ(pi.state, IBV_PORT_ACTIVE);
	VS_ASSERT_EQ(pi.active_mtu, IBV_MTU_2048);
}

static void gids(struct rig *r)
{
	struct vs_gid_info t[4], g;
	size_t n;

	VS_OK(vs_gid_table(r->ctx, 1, t, 4, &n));
	VS_ASSERT_EQ(n, 2);
	for (size_t i = 0; i < n; i++) {
		VS_ASSERT_EQ(t[i].index, i);
		VS_ASSERT_EQ(t[i].type, VS_GID_IB);
		VS_ASSERT_STREQ(t[i].netdev, "");
	}
	/* the port GID, not the alias at 1 (RoCE's pick would find neither) */
	VS_OK(vs_gid_pick(r->ctx, 1, &g));
	VS_ASSERT_EQ(g.index, 0);
	VS_ASSERT_EQ(g.type, VS_GID_IB);
	VS_ASSERT_MEMEQ(g.gid.raw, port_gid, 16);
}

/* The RC endpoint: LID, no GID, the port's MTU; its bytes parse back. */
static void rc_endpoint(struct rig *r)
{
	struct vs_rc_qp *qp;
	struct vs_endpoint ep, back;
	uint8_t wire[VS_ENDPOINT_WIRE_SIZE];

	VS_OK(vs_rc_qp_create(r->pd, &(struct vs_rc_config){ .send_cq = r->cq }, &qp));
	VS_OK(vs_rc_endpoint(qp, &ep));
	VS_ASSERT_EQ(ep.flags, 0); /* neither ETHERNET nor GID_VALID */
	VS_ASSERT_EQ(ep.lid, 0x11);
	VS_ASSERT_EQ(ep.mtu, IBV_MTU_2048);
	VS_ASSERT_EQ(ep.port, 1);
	for (int i = 0; i < 16; i++)
		VS_ASSERT_EQ(ep.gid.raw[i], 0);
	VS_OK(vs_endpoint_to_bytes(&ep, wire));
	VS_OK(vs_endpoint_from_bytes(wire, sizeof(wire), &back));
	VS_ASSERT_EQ(back.lid, 0x11);
	VS_ASSERT_EQ(back.flags, 0);
	VS_OK(vs_rc_qp_close(qp));

	/* a smaller MTU asked for is what the endpoint offers */
	VS_OK(vs_rc_qp_create(r->pd, &(struct vs_rc_config){ .send_cq = r->cq,
							      .mtu = IBV_MTU_1024 }, &qp));
	VS_OK(vs_rc_endpoint(qp, &ep));
	VS_ASSERT_EQ(ep.mtu, IBV_MTU_1024);
	VS_OK(vs_rc_qp_close(qp));
}

/* RTR toward a peer of MTU mtu: LID-addressed, path MTU the smaller. */
static void rc_rtr(struct rig *r, enum ibv_mtu mtu, enum ibv_mtu want)
{
	struct vs_endpoint peer = ib_peer(VS_TRANSPORT_RC, 0x2a, mtu);
	struct ibv_qp_attr *a = &modify->attr[IBV_QPS_RTR];
	struct vs_rc_qp *qp;
	static const uint8_t zero[sizeof(a->ah_attr.grh)];

	memset(modify, 0, sizeof(*modify));
	VS_OK(vs_rc_qp_create(r->pd, &(struct vs_rc_config){ .send_cq = r->cq }, &qp));
	VS_OK(vs_rc_handshake(qp, &peer));
	VS_ASSERT(modify->mask[IBV_QPS_RTR] & IBV_QP_AV);
	VS_ASSERT(modify->mask[IBV_QPS_RTR] & IBV_QP_PATH_MTU);
	VS_ASSERT_EQ(a->ah_attr.dlid, 0x2a);
	VS_ASSERT_EQ(a->ah_attr.is_global, 0);
	VS_ASSERT_MEMEQ(&a->ah_attr.grh, zero, sizeof(zero));
	VS_ASSERT_EQ(a->ah_attr.port_num, 1);
	VS_ASSERT_EQ(a->ah_attr.src_path_bits, 0);
	VS_ASSERT_EQ(a->path_mtu, want);
	VS_ASSERT_EQ(a->dest_qp_num, 0x777);
	VS_ASSERT_EQ(a->rq_psn, 0x4242);
	VS_ASSERT_EQ(modify->attr[IBV_QPS_RTS].qp_state, IBV_QPS_RTS);
	VS_OK(vs_rc_qp_close(qp));
}

static void rc_handshake(struct rig *r)
{
	struct vs_endpoint roce = ib_peer(VS_TRANSPORT_RC, 0, IBV_MTU_1024);
	struct vs_rc_qp *qp;

	rc_rtr(r, IBV_MTU_4096, IBV_MTU_2048); /* this end's 2048 */
	rc_rtr(r, IBV_MTU_512, IBV_MTU_512);   /* the peer's 512 */
	rc_rtr(r, IBV_MTU_2048, IBV_MTU_2048);

	/* a RoCE peer cannot be reached from an IB port */
	roce.flags = VS_EP_ETHERNET | VS_EP_GID_VALID;
	memcpy(roce.gid.raw, port_gid, 16);
	VS_OK(vs_rc_qp_create(r->pd, &(struct vs_rc_config){ .send_cq = r->cq }, &qp));
	VS_FAILS(vs_rc_handshake(qp, &roce), EINVAL,
		 "mismatched link layers: the remote endpoint is on Ethernet "
		 "(RoCE), this QP's port is on InfiniBand");
	VS_OK(vs_rc_qp_close(qp));
}

/* UD: the endpoint by LID with its Q_Key; the AH addressed by LID. */
static void ud(struct rig *r)
{
	struct vs_endpoint ep, peer = ib_peer(VS_TRANSPORT_UD, 0x2b, IBV_MTU_4096);
	struct vs_ud_dest dest;
	struct vs_ud_qp *qp;
	static const uint8_t zero[sizeof(last_ah->grh)];

	VS_OK(vs_ud_qp_create(r->pd, &(struct vs_ud_config){ .send_cq = r->cq }, &qp));
	VS_OK(vs_ud_endpoint(qp, &ep));
	VS_ASSERT_EQ(ep.flags, 0);
	VS_ASSERT_EQ(ep.lid, 0x11);
	VS_ASSERT_EQ(ep.qkey, VS_DEFAULT_QKEY);
	memset(last_ah, 0x5a, sizeof(*last_ah));
	VS_OK(vs_ud_handshake(qp, &peer, &dest));
	VS_ASSERT_EQ(last_ah->dlid, 0x2b);
	VS_ASSERT_EQ(last_ah->is_global, 0);
	VS_ASSERT_MEMEQ(&last_ah->grh, zero, sizeof(zero));
	VS_ASSERT_EQ(last_ah->port_num, 1);
	VS_ASSERT_EQ(last_ah->sl, 0);
	VS_ASSERT_EQ(dest.remote_qpn, 0x777);
	VS_ASSERT_EQ(dest.remote_qkey, VS_DEFAULT_QKEY);
	VS_OK(vs_ud_dest_release(&dest));
	VS_OK(vs_ud_qp_close(qp));
}

/*
 * A port no subnet manager configured yet (LID 0, INIT): the QP is made,
 * its endpoint refused naming the cause; once the SM gave the port a LID,
 * the same QP's endpoint carries it.
 */
static void no_sm(struct rig *r)
{
	struct vs_endpoint ep = { .qpn = 0x5c };
	struct vs_port_info pi;
	struct vs_ud_qp *qp;

	setenv("VS_FAKE_LID", "0", 1);
	VS_OK(vs_port_info(r->ctx, 1, &pi));
	VS_ASSERT_EQ(pi.lid, 0);
	VS_ASSERT_EQ(pi.state, IBV_PORT_INIT);
	VS_OK(vs_ud_qp_create(r->pd, &(struct vs_ud_config){ .send_cq = r->cq }, &qp));
	VS_FAILS(vs_ud_endpoint(qp, &ep), ENETDOWN,
		 "fake0 port 1 (InfiniBand) has no LID yet (port INIT): no subnet "
		 "manager has configured it");
	VS_ASSERT_EQ(ep.qpn, 0x5c); /* untouched */
	setenv("VS_FAKE_LID", "0x15", 1);
	VS_OK(vs_ud_endpoint(qp, &ep));
	VS_ASSERT_EQ(ep.lid, 0x15);
	VS_ASSERT_EQ(ep.flags, 0);
	unsetenv("VS_FAKE_LID");
	VS_OK(vs_ud_qp_close(qp));
}

/* Without the knob fake0 is the RoCE port every other test sees. */
static void default_is_roce(void)
{
	struct vs_context *ctx;
	struct vs_port_info pi;
	struct vs_gid_info g;

	unsetenv("VS_FAKE_LINK");
	VS_OK(vs_device_open("fake0", &ctx));
	VS_OK(vs_port_info(ctx, 1, &pi));
	VS_ASSERT_EQ(pi.kind, VS_LINK_ROCE);
	VS_ASSERT_EQ(pi.link_layer, IBV_LINK_LAYER_ETHERNET);
	VS_ASSERT_EQ(pi.lid, 0);
	VS_ASSERT_EQ(pi.active_mtu, IBV_MTU_1024);
	VS_OK(vs_gid_pick(ctx, 1, &g));
	VS_ASSERT_EQ(g.index, 1);
	VS_ASSERT_EQ(g.type, VS_GID_ROCE_V2);
	VS_OK(vs_device_close(ctx));
}

int main(void)
{
	void *fail;
	struct rig r;

	setenv("VS_FAKE_LINK", "ib", 1);
	vs_t_use_fake(&fail, &live);
	modify = vs_t_fake_sym("vs_stub_modify");
	last_ah = vs_t_fake_sym("vs_stub_last_ah");

	static void (*const cases[])(struct rig *) = {
		port, gids, rc_endpoint, rc_handshake, ud, no_sm,
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		rig_up(&r);
		cases[i](&r);
		rig_down(&r);
	}
	default_is_roce();
	printf("InfiniBand port on the fake provider: %zu cases and the RoCE "
	       "default passed (NOT a data-path test: no IB device)\n",
	       sizeof(cases) / sizeof(cases[0]));
	return 0;
}
