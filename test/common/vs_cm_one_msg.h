/* SPDX-License-Identifier: MIT */
/*
 * The rig of the CM close tests (cm_close_retry, cm_close_race): a server
 * thread that receives one message of VS_T_CM_MSG bytes through the
 * one-call server, checks its bytes, and closes its side only after the
 * client's close; and the count of calls of a function so far
 * (VERBSHIM_STATS), by which those tests see what a close called.
 */
#ifndef VS_CM_ONE_MSG_H
#define VS_CM_ONE_MSG_H

#include <pthread.h>
#include <semaphore.h>

#include "vs_cm_rig.h"

/* got: the server has the message; closed: the client's close is done */
struct vs_t_one_msg {
	struct vs_cm_id *l;
	sem_t got, closed;
};

/* Calls of name in this process so far (0: none, or not counted). */
static inline uint64_t vs_t_calls(const char *name)
{
	struct vs_call_stat st[160];
	size_t n;

	VS_OK(vs_call_stats(st, 160, &n));
	for (size_t i = 0; i < n && i < 160; i++)
		if (!strcmp(st[i].name, name))
			return st[i].calls;
	return 0;
}

static inline int vs_t_one_msg_post(struct vs_cm_id *c, void *arg)
{
	struct vs_mr **mr = arg;
	int ret = vs_mr_alloc(vs_cm_pd(c), VS_T_CM_MSG, 0, mr);

	if (!ret)
		vs_t_rc_recv(vs_cm_rc_qp(c), 1, vs_mr_sge(*mr, 0, VS_T_CM_MSG));
	return ret;
}

/* The server thread (arg: struct vs_t_one_msg): the client's id closes
 * (and, in these tests, fails) first, so that its deregistrations are the
 * process's first. */
static inline void *vs_t_one_msg_server(void *arg)
{
	struct vs_t_one_msg *r = arg;
	struct vs_cm_id *c;
	struct vs_mr *mr;
	struct vs_wc wc;

	VS_OK(vs_cm_rc_serve(r->l, &(struct vs_cm_conn_config){
		.comp_mask = VS_CM_CONN_BEFORE_ACCEPT, .timeout_ms = 10000,
		.before_accept = vs_t_one_msg_post, .before_accept_arg = &mr },
		NULL, &c));
	vs_t_wait(vs_cm_cq(c), &wc, 1);
	vs_t_expect_wc(&wc, 1, IBV_WC_RECV, VS_T_CM_MSG);
	vs_t_check(vs_mr_ptr(mr, 0), VS_T_CM_MSG, 5);
	sem_post(&r->got);
	while (sem_wait(&r->closed))
		;
	VS_OK(vs_mr_close(mr));
	VS_OK(vs_cm_close(c));
	return NULL;
}

/*
 * The client side of the rig: a listener on ip, the server thread (*t),
 * a one-call client (*id) that sends the message from an MR of its own
 * (*mr) as work request 2 and sees it complete; returns once the server
 * has the message.  The listener is r->l.
 */
static inline void vs_t_one_msg_connect(struct vs_t_one_msg *r,
					const char *ip, pthread_t *t,
					struct vs_cm_id **id,
					struct vs_mr **mr)
{
	char port[16];
	struct vs_wc wc;

	VS_ASSERT_EQ(sem_init(&r->got, 0, 0), 0);
	VS_ASSERT_EQ(sem_init(&r->closed, 0, 0), 0);
	VS_OK(vs_cm_listen(ip, "0", NULL, &r->l));
	snprintf(port, sizeof(port), "%u", vs_cm_port(r->l));
	VS_ASSERT_EQ(pthread_create(t, NULL, vs_t_one_msg_server, r), 0);
	VS_OK(vs_cm_rc_client(ip, port, NULL, NULL, NULL, id));
	VS_OK(vs_mr_alloc(vs_cm_pd(*id), VS_T_CM_MSG, 0, mr));
	vs_t_fill(vs_mr_ptr(*mr, 0), VS_T_CM_MSG, 5);
	/* rxe's QP sends through its bounce ring: its MR, the third */
	vs_t_rc_send(vs_cm_rc_qp(*id), 2, vs_mr_sge(*mr, 0, VS_T_CM_MSG));
	vs_t_wait(vs_cm_cq(*id), &wc, 1);
	vs_t_expect_wc(&wc, 2, IBV_WC_SEND, UINT32_MAX);
	while (sem_wait(&r->got))
		;
}

/* Whether the client's QP made a bounce ring: three registrations by
 * now (the server's MR, the client's and the ring), else two. */
static inline bool vs_t_one_msg_ring_made(void)
{
	return vs_t_calls("ibv_reg_mr") + vs_t_calls("ibv_reg_mr_iova2") +
	       vs_t_calls("ibv_reg_mr_iova") >= 3;
}

#endif
