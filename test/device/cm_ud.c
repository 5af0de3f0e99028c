/* SPDX-License-Identifier: MIT */
/*
 * UD through the typed connection manager on rxe (docs/API.md,
 * "Connection manager"):
 *  - UD over CM (SIDR): the client's destination (address handle, remote
 *    QPN, Q_Key) comes from the CM's answer and equals the server QP's;
 *    messages sent with it arrive with their bytes checked and the
 *    sender's QPN; private data both ways;
 *  - multicast: a receiver and a sender join one group (IPv4); the
 *    sender's destination from the join (QPN 0xffffff, the group's
 *    Q_Key) reaches the receiver's QP, bytes checked; leave, then a
 *    second leave is refused;
 *  - a UD connect nobody listens for: refused, the SIDR status in words;
 *  - bad input: join on an RC id, UD destination before the answer.
 */
#include <pthread.h>
#include <unistd.h>

#include "../common/vs_typed.h"

#define MSG 64
#define NMSG 8

static const char *ip;
static char port[16];
static uint32_t server_qpn, server_qkey;
static volatile int server_ready;

static void post_recvs(struct vs_ud_qp *qp, struct vs_mr *mr, int n)
{
	struct vs_recv_batch rb;

	VS_OK(vs_ud_recv_start(qp, &rb));
	for (int i = 0; i < n; i++) {
		struct ibv_sge s = vs_mr_sge(mr, (uint64_t)i * (VS_UD_GRH_BYTES + MSG),
					     VS_UD_GRH_BYTES + MSG);

		VS_OK(vs_recv_add(&rb, (uint64_t)i, &s, 1));
	}
	VS_OK(vs_recv_submit(&rb));
}

static void send_msgs(struct vs_ud_qp *qp, struct vs_cq *cq, struct vs_mr *mr,
		      const struct vs_ud_dest *dest, int n, int seed)
{
	uint8_t *m = vs_mr_ptr(mr, 0);
	struct vs_wc wc[NMSG];

	for (int i = 0; i < n; i++) {
		struct vs_ud_batch b;
		struct ibv_sge s = vs_mr_sge(mr, (uint64_t)i * MSG, MSG);

		for (int k = 0; k < MSG; k++)
			m[i * MSG + k] = (uint8_t)(seed + i * 13 + k);
		VS_OK(vs_ud_batch_start(qp, &b));
		VS_OK(vs_ud_send(&b, 100 + (uint64_t)i, VS_WR_SIGNALED, dest, &s, 1));
		VS_OK(vs_ud_batch_submit(&b));
	}
	vs_t_wait(cq, wc, n);
	for (int i = 0; i < n; i++)
		VS_ASSERT_EQ(wc[i].status, IBV_WC_SUCCESS);
}

/* n messages of seed arrive (any order), from src_qpn when non-zero */
static void recv_msgs(struct vs_cq *cq, struct vs_mr *mr, int n, int seed,
		      uint32_t src_qpn)
{
	const uint8_t *m = vs_mr_ptr(mr, 0);
	struct vs_wc wc[NMSG];
	bool seen[NMSG] = { false };

	vs_t_wait(cq, wc, n);
	for (int i = 0; i < n; i++) {
		const uint8_t *p = m + wc[i].wr_id * (VS_UD_GRH_BYTES + MSG) + VS_UD_GRH_BYTES;
		int idx = -1;

		VS_ASSERT_EQ(wc[i].status, IBV_WC_SUCCESS);
		VS_ASSERT_EQ(wc[i].byte_len, VS_UD_GRH_BYTES + MSG);
		if (src_qpn)
			VS_ASSERT_EQ(wc[i].src_qp, src_qpn);
		for (int j = 0; j < n; j++)
			if (p[0] == (uint8_t)(seed + j * 13))
				idx = j;
		VS_ASSERT(idx >= 0 && !seen[idx]);
		seen[idx] = true;
		for (int k = 0; k < MSG; k++)
			if (p[k] != (uint8_t)(seed + idx * 13 + k))
				VS_FAIL("message %d byte %d: 0x%02x, expected 0x%02x",
					idx, k, p[k], (uint8_t)(seed + idx * 13 + k));
	}
}

struct side {
	struct vs_cm_id *id;
	struct vs_pd *pd;
	struct vs_cq *cq;
	struct vs_ud_qp *qp;
	struct vs_mr *mr;
};

static void side_build(struct side *s, struct vs_cm_id *id)
{
	struct vs_context *ctx = vs_cm_context(id);

	VS_ASSERT(ctx);
	s->id = id;
	VS_OK(vs_pd_alloc(ctx, &s->pd));
	VS_OK(vs_cq_create(ctx, NULL, &s->cq));
	VS_OK(vs_cm_ud_qp_create(id, s->pd, &(struct vs_ud_config){ .send_cq = s->cq }, &s->qp));
	VS_OK(vs_mr_alloc(s->pd, NMSG * (VS_UD_GRH_BYTES + MSG), 0, &s->mr));
}

static void side_close(struct side *s)
{
	VS_OK(vs_cm_close(s->id));
	VS_OK(vs_ud_qp_close(s->qp));
	VS_OK(vs_mr_close(s->mr));
	VS_OK(vs_cq_close(s->cq));
	VS_OK(vs_pd_close(s->pd));
}

static void *ud_server(void *arg)
{
	struct vs_cm_id *l = arg, *c;
	struct side s;
	uint8_t len;

	VS_OK(vs_cm_get_request(l, 10000, &c));
	VS_ASSERT_STREQ(vs_cm_private_data(c, &len), "ud hello");
	side_build(&s, c);
	post_recvs(s.qp, s.mr, NMSG);
	server_qpn = vs_ud_qp_num(s.qp);
	server_qkey = s.qp->base.qkey;
	__atomic_store_n(&server_ready, 1, __ATOMIC_RELEASE);
	VS_OK(vs_cm_accept(c, &(struct vs_cm_conn_config){
		.private_data = "ud welcome", .private_data_len = 11 }));
	VS_ASSERT_EQ(vs_cm_state(c), VS_CM_CONNECTED);
	recv_msgs(s.cq, s.mr, NMSG, 40, 0);
	side_close(&s);
	return NULL;
}

static void test_ud_connect(void)
{
	struct vs_cm_id *l, *id;
	struct vs_ud_dest dest;
	struct side s;
	pthread_t t;
	uint8_t len;

	VS_OK(vs_cm_listen(ip, "0", &(struct vs_cm_config){ .transport = VS_TRANSPORT_UD }, &l));
	snprintf(port, sizeof(port), "%u", vs_cm_port(l));
	VS_ASSERT_EQ(pthread_create(&t, NULL, ud_server, l), 0);
	VS_OK(vs_cm_resolve(ip, port, &(struct vs_cm_config){ .transport = VS_TRANSPORT_UD }, &id));
	side_build(&s, id);
	VS_FAILS(vs_cm_ud_dest(id, &dest), EINVAL, "not answered yet");
	VS_FAILS(vs_cm_join(id, "239.77.0.9", 0), EINVAL, "");
	{
		uint8_t big[VS_CM_UD_CONNECT_DATA_MAX + 1] = { 0 };

		VS_FAILS(vs_cm_connect(id, &(struct vs_cm_conn_config){
			.private_data = big, .private_data_len = sizeof(big) }),
			EINVAL, "exceeds the 180 bytes a UD connect request (SIDR REQ)");
	}
	VS_OK(vs_cm_connect(id, &(struct vs_cm_conn_config){
		.private_data = "ud hello", .private_data_len = 9 }));
	VS_ASSERT_EQ(vs_cm_state(id), VS_CM_CONNECTED);
	VS_ASSERT_STREQ(vs_cm_private_data(id, &len), "ud welcome");
	VS_OK(vs_cm_ud_dest(id, &dest));
	VS_ASSERT(__atomic_load_n(&server_ready, __ATOMIC_ACQUIRE));
	VS_ASSERT_EQ(dest.remote_qpn, server_qpn);
	VS_ASSERT_EQ(dest.remote_qkey, server_qkey);
	VS_ASSERT_EQ(s.qp->base.qkey, server_qkey); /* both from the CM */
	printf("ud: remote QPN 0x%x, Q_Key 0x%x from the CM\n", dest.remote_qpn,
	       dest.remote_qkey);
	send_msgs(s.qp, s.cq, s.mr, &dest, NMSG, 40);
	pthread_join(t, NULL);
	VS_OK(vs_ud_dest_release(&dest));
	side_close(&s);
	VS_OK(vs_cm_close(l));
	printf("ud: %d messages over a CM-resolved destination, bytes checked\n", NMSG);
}

static void test_multicast(void)
{
	const char *group = "239.77.0.1";
	struct vs_cm_config cfg = { .transport = VS_TRANSPORT_UD, .src = ip };
	struct vs_cm_id *rid, *sid;
	struct side r, s;
	struct vs_ud_dest dest;
	int ret;

	ret = vs_cm_resolve(group, "0", &cfg, &rid);
	if (ret)
		VS_FAIL("resolving the group %s from %s: %s", group, ip, vs_t_err());
	side_build(&r, rid);
	post_recvs(r.qp, r.mr, NMSG);
	VS_OK(vs_cm_join(rid, group, 3000));
	VS_FAILS(vs_cm_join(rid, group, 3000), EINVAL, "joined a group already");
	VS_OK(vs_cm_resolve(group, "0", &cfg, &sid));
	side_build(&s, sid);
	VS_OK(vs_cm_join(sid, group, 3000));
	VS_OK(vs_cm_ud_dest(sid, &dest));
	VS_ASSERT_EQ(dest.remote_qpn, 0xffffff);
	printf("multicast: group %s, Q_Key 0x%x, receiver's 0x%x\n", group,
	       dest.remote_qkey, r.qp->base.qkey);
	VS_ASSERT_EQ(dest.remote_qkey, r.qp->base.qkey);
	send_msgs(s.qp, s.cq, s.mr, &dest, NMSG, 90);
	recv_msgs(r.cq, r.mr, NMSG, 90, vs_ud_qp_num(s.qp));
	VS_OK(vs_ud_dest_release(&dest));
	VS_OK(vs_cm_leave(rid));
	VS_FAILS(vs_cm_leave(rid), EINVAL, "has not joined");
	side_close(&s); /* closes while joined: the id leaves */
	side_close(&r);
	printf("multicast: %d messages through the group, bytes checked\n", NMSG);
}

static void test_rc_refusals(void)
{
	struct vs_cm_id *id;
	struct vs_ud_dest dest;

	VS_OK(vs_cm_resolve(ip, "7471", NULL, &id));
	VS_FAILS(vs_cm_join(id, "239.77.0.2", 0), EINVAL, "no UD QP");
	VS_FAILS(vs_cm_ud_dest(id, &dest), EINVAL, "no UD QP");
	VS_FAILS(vs_cm_ud_qp_create(id, NULL, NULL, (struct vs_ud_qp **)&dest.ah),
		 EINVAL, "for RC, not UD");
	VS_OK(vs_cm_close(id));
}

/* A UD request nobody listens for: the SIDR answer, explained */
static void test_ud_no_listener(void)
{
	struct vs_cm_config ud = { .transport = VS_TRANSPORT_UD };
	struct vs_cm_id *l, *id;
	struct side s;
	char free_port[16];

	VS_OK(vs_cm_listen(ip, "0", &ud, &l));
	snprintf(free_port, sizeof(free_port), "%u", vs_cm_port(l));
	VS_OK(vs_cm_close(l));
	VS_OK(vs_cm_resolve(ip, free_port, &ud, &id));
	side_build(&s, id);
	VS_FAILS(vs_cm_connect(id, NULL), ECONNREFUSED, "nobody listens on that port there");
	printf("ud, no listener: %s\n", vs_last_error()->message);
	side_close(&s);
}

int main(void)
{
	ip = getenv("VS_RXE_IP");
	if (!getenv("VERBSHIM_IN_VM") || !ip)
		VS_SKIP("needs the SoftRoCE VM (VS_RXE_IP): run it with scripts/vm-run.sh");
	vs_t_skip_on_iwarp("no UD QPs, no multicast (test/device/cm_ep and "
			   "link_kind check the refusal)");
	test_rc_refusals();
	test_ud_no_listener();
	test_multicast();	/* a group's datagrams arrive there too */
	vs_t_skip_if_ud_self_lost("UD over the CM (the refusals and multicast passed)");
	test_ud_connect();
	printf("ok\n");
	return 0;
}
