/* SPDX-License-Identifier: MIT */
/*
 * A failed RoCE RTR (and a failed address handle) is explained by its
 * errno (lib/core/qp_explain.c): a route or address errno (EINVAL,
 * ENETUNREACH, ETIMEDOUT, ...) describes the route ("no RoCE route to
 * dgid ..."); any other (ENOMEM, EIO, EAGAIN) says the call, the step and
 * the errno plainly, without a route the failure had nothing to do with.
 * Against the fake provider (its port is Ethernet: RoCE).  On the code
 * before, ENOMEM at RTR said "failed: no RoCE route to dgid ...".
 */
#include "../common/vs_fake.h"

static struct {
	char verb[48];
	int err;
} *fail_next;

static void fail_once(const char *verb, int err)
{
	snprintf(fail_next->verb, sizeof(fail_next->verb), "%s", verb);
	fail_next->err = err;
}

static const char *msg(void)
{
	return vs_last_error()->message;
}

/* An RC QP's INIT->RTR (the handshake's first modify) failing with err */
static void rtr_fails(struct vs_pd *pd, struct vs_cq *cq, int err, bool route)
{
	struct vs_rc_qp *qp;
	struct vs_endpoint ep;

	VS_OK(vs_rc_qp_create(pd, &(struct vs_rc_config){ .send_cq = cq }, &qp));
	VS_OK(vs_rc_endpoint(qp, &ep));
	fail_once("ibv_modify_qp", err);
	VS_ASSERT_EQ(vs_rc_handshake(qp, &ep), -err);
	printf("  %s\n", vs_t_err());
	VS_ASSERT_STREQ(vs_last_error()->verb, "ibv_modify_qp");
	VS_ASSERT_EQ(vs_last_error()->err, err);
	VS_ASSERT(strstr(msg(), "INIT->RTR"));
	VS_ASSERT_EQ(strstr(msg(), "no RoCE route") != NULL, route);
	VS_ASSERT(strstr(vs_t_err(), strerror(err)));
	VS_OK(vs_rc_qp_close(qp));
}

/* A UD QP's address handle failing with err */
static void ah_fails(struct vs_pd *pd, struct vs_cq *cq, int err, bool route)
{
	struct vs_ud_qp *qp;
	struct vs_endpoint ep;
	struct vs_ud_dest dest;

	VS_OK(vs_ud_qp_create(pd, &(struct vs_ud_config){ .send_cq = cq }, &qp));
	VS_OK(vs_ud_endpoint(qp, &ep));
	fail_once("ibv_create_ah", err);
	VS_ASSERT_EQ(vs_ud_handshake(qp, &ep, &dest), -err);
	printf("  %s\n", vs_t_err());
	VS_ASSERT_STREQ(vs_last_error()->verb, "ibv_create_ah");
	VS_ASSERT_EQ(vs_last_error()->err, err);
	VS_ASSERT_EQ(strstr(msg(), "no RoCE route") != NULL, route);
	VS_OK(vs_ud_qp_close(qp));
}

int main(void)
{
	static const int plain[] = { ENOMEM, EIO, EAGAIN, EPERM };
	static const int routes[] = { EINVAL, ENETUNREACH, EHOSTUNREACH,
				      ETIMEDOUT, ENODEV, EADDRNOTAVAIL };
	struct vs_context *ctx;
	struct vs_pd *pd;
	struct vs_cq *cq;
	void *fail;
	int *live;

	vs_t_use_fake(&fail, &live);
	fail_next = fail;
	VS_OK(vs_device_open("fake0", &ctx));
	VS_OK(vs_pd_alloc(ctx, &pd));
	VS_OK(vs_cq_create(ctx, NULL, &cq));
	for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++) {
		rtr_fails(pd, cq, plain[i], false);
		ah_fails(pd, cq, plain[i], false);
	}
	for (size_t i = 0; i < sizeof(routes) / sizeof(routes[0]); i++) {
		rtr_fails(pd, cq, routes[i], true);
		ah_fails(pd, cq, routes[i], true);
	}
	VS_OK(vs_cq_close(cq));
	VS_OK(vs_pd_close(pd));
	VS_OK(vs_device_close(ctx));
	for (int i = 0; i < 7; i++)
		VS_ASSERT_EQ(live[i], 0);
	printf("a failed RTR or address handle names the route only for a "
	       "route's errno\n");
	return 0;
}
