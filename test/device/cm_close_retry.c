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
 * A QP without the ring (siw, the legacy verbs, as rxe of rdma-core
 * 33.2 and older takes them) has no
 * deregistration there: the same close is stopped at the QP's destroy
 * instead (ibv_destroy_qp:EBUSY:1): -EBUSY naming ibv_destroy_qp, its CQ
 * held, the close again destroying the QP and the CQ.  Which one is
 * known only once a QP is made, and VERBSHIM_FAULT is read at the first
 * load: a child process runs the ring's case (and the request's) and
 * says when there was no ring; this process, which has not loaded the
 * library yet, then runs the QP's.
 */
#include <pthread.h>
#include <semaphore.h>
#include <sys/wait.h>

#include "../common/vs_cm_one_msg.h"

static const char *ip;
static struct vs_t_one_msg rig;

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
	VS_ASSERT_EQ(vs_t_calls("rdma_destroy_id"), 0);
	VS_FAILS(vs_cm_get_request(l, 5000, &s), ENOMEM,
		 "and the request's CM id could not be destroyed "
		 "(rdma_destroy_id: Device or resource busy), kept for the "
		 "listener's close");
	printf("the request: %s\n", vs_t_err());
	VS_ASSERT_STREQ(vs_last_error()->verb, "rdma_migrate_id");
	VS_ASSERT_PTR_EQ(s, NULL);
	VS_ASSERT_EQ(vs_t_calls("rdma_destroy_id"), 1);
	/* the reject went out before the destroy */
	vs_t_cm_next_type(c, RDMA_CM_EVENT_REJECTED, 5000, &ev);
	VS_OK(vs_cm_close(c));
	VS_OK(vs_rc_qp_close(qp));
	VS_OK(vs_cq_close(cq));
	VS_OK(vs_pd_close(pd));
	VS_ASSERT_EQ(vs_t_calls("rdma_destroy_id"), 2);
	/* the kept raw id, then the listener's */
	VS_OK(vs_cm_close(l));
	VS_ASSERT_EQ(vs_t_calls("rdma_destroy_id"), 4);
	printf("the kept request's id destroyed by the listener's close\n");
}

/* the child's exit status when its QP made no bounce ring */
enum { NO_RING = 3 };

/*
 * The one-call client's close stopped once: at its ring's deregistration
 * (ring) or at its QP's destroy.  Returns as main does.
 */
static int close_stops(bool ring)
{
	struct vs_cm_id *id;
	struct vs_mr *mr;
	pthread_t t;
	uint64_t dereg, destroy_qp, cq, pd;

	if (ring)
		orphan_kept();
	vs_t_one_msg_connect(&rig, ip, &t, &id, &mr);
	if (ring && !vs_t_one_msg_ring_made()) {
		printf("the QP made no bounce ring (a provider without rxe's "
		       "quirk, or the legacy verbs): its close is stopped at "
		       "the QP's destroy instead\n");
		exit(NO_RING);
	}
	dereg = vs_t_calls("ibv_dereg_mr");
	destroy_qp = vs_t_calls("ibv_destroy_qp");
	cq = vs_t_calls("ibv_destroy_cq");
	pd = vs_t_calls("ibv_dealloc_pd");
	VS_ASSERT_EQ(dereg, 0);

	VS_FAILS(vs_cm_close(id), EBUSY, "the CM id is closed but holds its QP");
	printf("first close: %s\n", vs_t_err());
	VS_ASSERT_STREQ(vs_last_error()->call, "vs_cm_close");
	VS_ASSERT_STREQ(vs_last_error()->verb, ring ? "ibv_dereg_mr" : "ibv_destroy_qp");
	if (ring)
		VS_ASSERT(strstr(vs_last_error()->message, "bounce ring"));
	VS_ASSERT(strstr(vs_last_error()->message, "close the id again"));
	VS_ASSERT_EQ(vs_t_calls("ibv_dereg_mr"), dereg + ring);
	VS_ASSERT_EQ(vs_t_calls("ibv_destroy_qp"), destroy_qp + 1);
	VS_ASSERT_EQ(vs_t_calls("ibv_destroy_cq"), cq);	/* the QP holds it */
	/* closed to everything else */
	VS_FAILS(vs_cm_connect(id, NULL), EINVAL, "already closed");
	VS_ASSERT_PTR_EQ(vs_cm_rc_qp(id), NULL);

	VS_OK(vs_cm_close(id));
	printf(ring ? "second close: the ring's MR deregistered, the CQ destroyed\n" :
	       "second close: the QP destroyed, then the CQ\n");
	VS_ASSERT_EQ(vs_t_calls("ibv_dereg_mr"), dereg + 2 * ring);
	VS_ASSERT_EQ(vs_t_calls("ibv_destroy_qp"), destroy_qp + 1 + !ring);
	VS_ASSERT_EQ(vs_t_calls("ibv_destroy_cq"), cq + 1);
	VS_FAILS(vs_cm_close(id), EINVAL, "already closed");
	/* the PD goes with the user's MR on it */
	VS_ASSERT_EQ(vs_t_calls("ibv_dealloc_pd"), pd);
	VS_OK(vs_mr_close(mr));
	VS_ASSERT_EQ(vs_t_calls("ibv_dealloc_pd"), pd + 1);

	sem_post(&rig.closed);
	VS_ASSERT_EQ(pthread_join(t, NULL), 0);
	VS_OK(vs_cm_close(rig.l));
	printf("ok: a CM id's close that stopped at its QP's %s is finished "
	       "by its close again\n", ring ? "bounce ring" : "destroy");
	return 0;
}

int main(void)
{
	pid_t pid;
	int st;

	ip = getenv("VS_RXE_IP");
	if (!getenv("VERBSHIM_IN_VM") || !ip)
		VS_SKIP("needs the SoftRoCE VM (VS_RXE_IP): run it with scripts/vm-run.sh");
	setenv("VERBSHIM_STATS", "1", 1);
	/* read at the first load: set before any verbshim call */
	fflush(stdout);
	pid = fork();
	VS_ASSERT(pid >= 0);
	if (!pid) {
		setenv("VERBSHIM_FAULT", "ibv_dereg_mr:EBUSY:1,"
		       "rdma_migrate_id:ENOMEM:1,rdma_destroy_id:EBUSY:1", 1);
		exit(close_stops(true));
	}
	VS_ASSERT_EQ(waitpid(pid, &st, 0), pid);
	VS_ASSERT(WIFEXITED(st));
	if (WEXITSTATUS(st) != NO_RING)
		return WEXITSTATUS(st);
	setenv("VERBSHIM_FAULT", "ibv_destroy_qp:EBUSY:1", 1);
	return close_stops(false);
}
