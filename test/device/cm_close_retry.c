/* SPDX-License-Identifier: MIT */
/*
 * A CM id's close that fails part-way keeps the first failure, names what
 * stays, and a close again finishes the job (issue 50, 3), on a real
 * device.  The one-call client's id owns its QP, CQ and PD; a send makes
 * the QP's bounce ring (rxe's quirk), and the ring's ibv_dereg_mr, the
 * process's first deregistration, is made to fail once
 * (VERBSHIM_FAULT=ibv_dereg_mr:EBUSY:1):
 *  - vs_cm_close returns -EBUSY naming ibv_dereg_mr and the ring, and says
 *    the id is closed but holds its QP; every other call refuses the id;
 *  - vs_cm_close again finishes: the ring's MR deregistered and the CQ
 *    destroyed (counted by VERBSHIM_STATS), then the PD with the user's
 *    MR on it; a third close is "already closed".
 * On the code before, the first close freed the id: the second said
 * "already closed", and the ring's MR, the QP's CQ and its PD leaked.
 *
 * First, a request nobody could take (its id's move to a channel of its
 * own fails: rdma_migrate_id:ENOMEM:1) is rejected and its raw id
 * destroyed; that destroy failing (rdma_destroy_id:EBUSY:1) is said with
 * the request's failure and the raw id kept: the listener's close
 * destroys it.  On the code before, the destroy's failure was dropped
 * and the raw id lost.
 * A QP without the ring (siw, the legacy verbs) has nothing to fail
 * there: a skip, saying so.
 */
#include <pthread.h>
#include <semaphore.h>

#include "../common/vs_cm_rig.h"

enum { MSG = 64 };

static const char *ip;
static char port[16];
static sem_t got, closed;

static uint64_t calls(const char *name)
{
	struct vs_call_stat st[160];
	size_t n;

	VS_OK(vs_call_stats(st, 160, &n));
	for (size_t i = 0; i < n && i < 160; i++)
		if (!strcmp(st[i].name, name))
			return st[i].calls;
	return 0;
}

static int post_first(struct vs_cm_id *c, void *arg)
{
	struct vs_mr **mr = arg;
	int ret = vs_mr_alloc(vs_cm_pd(c), MSG, 0, mr);

	if (!ret)
		vs_t_rc_recv(vs_cm_rc_qp(c), 1, vs_mr_sge(*mr, 0, MSG));
	return ret;
}

/* The server: one message received and checked; closes after the client. */
static void *server(void *arg)
{
	struct vs_cm_id *l = arg, *c;
	struct vs_mr *mr;
	struct vs_wc wc;

	VS_OK(vs_cm_rc_serve(l, &(struct vs_cm_conn_config){
		.comp_mask = VS_CM_CONN_BEFORE_ACCEPT, .timeout_ms = 10000,
		.before_accept = post_first, .before_accept_arg = &mr }, NULL, &c));
	vs_t_wait(vs_cm_cq(c), &wc, 1);
	vs_t_expect_wc(&wc, 1, IBV_WC_RECV, MSG);
	vs_t_check(vs_mr_ptr(mr, 0), MSG, 5);
	sem_post(&got);
	/* the client's id closes (and fails) first: its ring's is the first
	 * deregistration of the process */
	while (sem_wait(&closed))
		;
	VS_OK(vs_mr_close(mr));
	VS_OK(vs_cm_close(c));
	return NULL;
}

/* A request whose id cannot be wrapped, and whose destroy fails once. */
static void orphan_kept(void)
{
	struct vs_cm_id *l, *c, *s = (struct vs_cm_id *)&s;
	struct vs_pd *pd;
	struct vs_cq *cq;
	struct vs_rc_qp *qp;
	struct vs_cm_event ev;
	char p[16];

	VS_OK(vs_cm_listen(ip, "0", NULL, &l));
	snprintf(p, sizeof(p), "%u", vs_cm_port(l));
	VS_OK(vs_cm_resolve(ip, p, NULL, &c));
	VS_OK(vs_pd_alloc(vs_cm_context(c), &pd));
	VS_OK(vs_cq_create(vs_cm_context(c), NULL, &cq));
	VS_OK(vs_cm_rc_qp_create(c, pd, &(struct vs_rc_config){ .send_cq = cq }, &qp));
	VS_OK(vs_cm_connect(c, &(struct vs_cm_conn_config){ .no_wait = true }));
	VS_ASSERT_EQ(calls("rdma_destroy_id"), 0);
	VS_FAILS(vs_cm_get_request(l, 5000, &s), ENOMEM,
		 "and the request's CM id could not be destroyed "
		 "(rdma_destroy_id: Device or resource busy), kept for the "
		 "listener's close");
	printf("the request: %s\n", vs_t_err());
	VS_ASSERT_STREQ(vs_last_error()->verb, "rdma_migrate_id");
	VS_ASSERT_PTR_EQ(s, NULL);
	VS_ASSERT_EQ(calls("rdma_destroy_id"), 1);
	/* the reject went out before the destroy */
	vs_t_cm_next_type(c, RDMA_CM_EVENT_REJECTED, 5000, &ev);
	VS_OK(vs_cm_close(c));
	VS_OK(vs_rc_qp_close(qp));
	VS_OK(vs_cq_close(cq));
	VS_OK(vs_pd_close(pd));
	VS_ASSERT_EQ(calls("rdma_destroy_id"), 2);
	/* the kept raw id, then the listener's */
	VS_OK(vs_cm_close(l));
	VS_ASSERT_EQ(calls("rdma_destroy_id"), 4);
	printf("the kept request's id destroyed by the listener's close\n");
}

int main(void)
{
	struct vs_cm_id *l, *id;
	struct vs_mr *mr;
	struct vs_wc wc;
	pthread_t t;
	uint64_t dereg, cq, pd;

	ip = getenv("VS_RXE_IP");
	if (!getenv("VERBSHIM_IN_VM") || !ip)
		VS_SKIP("needs the SoftRoCE VM (VS_RXE_IP): run it with scripts/vm-run.sh");
	/* read at the first load: set before any verbshim call */
	setenv("VERBSHIM_FAULT", "ibv_dereg_mr:EBUSY:1,rdma_migrate_id:ENOMEM:1,"
	       "rdma_destroy_id:EBUSY:1", 1);
	setenv("VERBSHIM_STATS", "1", 1);
	VS_ASSERT_EQ(sem_init(&got, 0, 0), 0);
	VS_ASSERT_EQ(sem_init(&closed, 0, 0), 0);
	orphan_kept();
	VS_OK(vs_cm_listen(ip, "0", NULL, &l));
	snprintf(port, sizeof(port), "%u", vs_cm_port(l));
	VS_ASSERT_EQ(pthread_create(&t, NULL, server, l), 0);
	VS_OK(vs_cm_rc_client(ip, port, NULL, NULL, NULL, &id));
	VS_OK(vs_mr_alloc(vs_cm_pd(id), MSG, 0, &mr));
	vs_t_fill(vs_mr_ptr(mr, 0), MSG, 5);
	vs_t_rc_send(vs_cm_rc_qp(id), 2, vs_mr_sge(mr, 0, MSG)); /* the ring */
	vs_t_wait(vs_cm_cq(id), &wc, 1);
	vs_t_expect_wc(&wc, 2, IBV_WC_SEND, UINT32_MAX);
	while (sem_wait(&got))
		;
	/* the server's MR, the client's and the ring: none without the ring */
	if (calls("ibv_reg_mr") + calls("ibv_reg_mr_iova2") + calls("ibv_reg_mr_iova") < 3)
		VS_SKIP("the QP made no bounce ring (a provider without rxe's "
			"quirk, or the legacy verbs): no deregistration in the "
			"id's close to fail");
	dereg = calls("ibv_dereg_mr");
	cq = calls("ibv_destroy_cq");
	pd = calls("ibv_dealloc_pd");
	VS_ASSERT_EQ(dereg, 0);

	VS_FAILS(vs_cm_close(id), EBUSY, "the CM id is closed but holds its QP");
	printf("first close: %s\n", vs_t_err());
	VS_ASSERT_STREQ(vs_last_error()->call, "vs_cm_close");
	VS_ASSERT_STREQ(vs_last_error()->verb, "ibv_dereg_mr");
	VS_ASSERT(strstr(vs_last_error()->message, "bounce ring"));
	VS_ASSERT(strstr(vs_last_error()->message, "close the id again"));
	VS_ASSERT_EQ(calls("ibv_dereg_mr"), dereg + 1);
	VS_ASSERT_EQ(calls("ibv_destroy_cq"), cq);	/* the QP holds it */
	/* closed to everything else */
	VS_FAILS(vs_cm_connect(id, NULL), EINVAL, "already closed");
	VS_ASSERT_PTR_EQ(vs_cm_rc_qp(id), NULL);

	VS_OK(vs_cm_close(id));
	printf("second close: the ring's MR deregistered, the CQ destroyed\n");
	VS_ASSERT_EQ(calls("ibv_dereg_mr"), dereg + 2);
	VS_ASSERT_EQ(calls("ibv_destroy_cq"), cq + 1);
	VS_FAILS(vs_cm_close(id), EINVAL, "already closed");
	/* the PD goes with the user's MR on it */
	VS_ASSERT_EQ(calls("ibv_dealloc_pd"), pd);
	VS_OK(vs_mr_close(mr));
	VS_ASSERT_EQ(calls("ibv_dealloc_pd"), pd + 1);

	sem_post(&closed);
	VS_ASSERT_EQ(pthread_join(t, NULL), 0);
	VS_OK(vs_cm_close(l));
	printf("ok: a CM id's close that stopped at its QP's bounce ring is "
	       "finished by its close again\n");
	return 0;
}
