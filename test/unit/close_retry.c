/* SPDX-License-Identifier: MIT */
/*
 * A close that fails part-way keeps the first failure, names what is
 * still alive, and a close again finishes the job (issue 50, 3).  Against
 * the fake provider dressed as rxe (VS_FAKE_VENDOR: the QP's bounce ring,
 * an MR of its own on the QP's PD):
 *  - the ring's ibv_dereg_mr fails: vs_rc_qp_close says so (the QP is
 *    destroyed, the MR and the PD stay), does not go on to the PD (whose
 *    EBUSY would bury the cause), frees no registered memory; the same
 *    close again finishes, and nothing is left;
 *  - a later step failing (the CQ the user closed before the QP) is
 *    named, with what to retry (the CQ's close: its handle is open
 *    again), and that object's close again ends it; the QP's close again
 *    is a double close (its object is gone), and an MR's close that
 *    frees its PD likewise;
 *  - ibv_get_device_name returning NULL (what a drop-in whose symbol is
 *    missing returns; rdma-core's never does) is an error naming it, never
 *    a NULL into strcmp or printf; the CM's causes that name a device
 *    (lib/cm/cm_env.c) name it in words.
 * On the code before, the first case returned 0 with the MR leaked and
 * its memory freed, and the third handed NULL to strcmp.
 */
#include <arpa/inet.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/vs_fake.h"

/* lib/cm/cm_env.c (internal): why a local address's netdev fails the CM */
const char *vs__cm_netdev_why(const struct sockaddr *sa, char *buf, size_t len);

static struct {
	char verb[48];
	int err;
} *fail_next;
static int *live; /* ctx pd mr cq qp srq ah */

enum { LIVE_CTX, LIVE_PD, LIVE_MR, LIVE_CQ, LIVE_QP };

static void fail_once(const char *verb, int err)
{
	snprintf(fail_next->verb, sizeof(fail_next->verb), "%s", verb);
	fail_next->err = err;
}

static struct vs_rc_qp *rc_up(struct vs_pd *pd, struct vs_cq *cq)
{
	struct vs_rc_qp *qp;
	struct vs_endpoint ep;

	VS_OK(vs_rc_qp_create(pd, &(struct vs_rc_config){
		.send_cq = cq,
		.caps = { .max_send_wr = 4, .max_recv_wr = 4,
			  .max_send_sge = 2, .max_recv_sge = 1 } }, &qp));
	VS_OK(vs_rc_endpoint(qp, &ep));
	VS_OK(vs_rc_handshake(qp, &ep));
	return qp;
}

/* A QP with its bounce ring made (one MR more), its PD and CQ closed by
 * the user: the QP's close is the one that tears all of them down. */
static struct vs_rc_qp *last_holder(struct vs_context *ctx, struct vs_mr **mr,
				    struct vs_cq **cq)
{
	struct vs_pd *pd;
	struct vs_rc_qp *qp;
	struct vs_rc_batch b;
	int mrs;

	VS_OK(vs_pd_alloc(ctx, &pd));
	VS_OK(vs_cq_create(ctx, NULL, cq));
	VS_OK(vs_mr_alloc(pd, 4096, 0, mr));
	qp = rc_up(pd, *cq);
	mrs = live[LIVE_MR];
	VS_OK(vs_rc_batch_start(qp, &b));	/* makes the ring */
	vs_rc_batch_abort(&b);
	VS_ASSERT_EQ(live[LIVE_MR], mrs + 1);
	VS_OK(vs_cq_close(*cq));
	VS_OK(vs_pd_close(pd));
	return qp;
}

static void dereg_fails(struct vs_context *ctx)
{
	struct vs_mr *mr;
	struct vs_cq *cq;
	struct vs_rc_qp *qp = last_holder(ctx, &mr, &cq);
	int mrs, pds = live[LIVE_PD], cqs = live[LIVE_CQ], qps = live[LIVE_QP];

	VS_OK(vs_mr_close(mr));
	mrs = live[LIVE_MR];	/* the ring's */
	fail_once("ibv_dereg_mr", EBUSY);
	VS_FAILS(vs_rc_qp_close(qp), EBUSY, "would not deregister");
	VS_ASSERT_STREQ(vs_last_error()->call, "vs_rc_qp_close");
	VS_ASSERT_STREQ(vs_last_error()->verb, "ibv_dereg_mr");
	VS_ASSERT(strstr(vs_last_error()->message, "close the QP again"));
	/* the QP is gone; the ring's MR, the PD and the CQ stay */
	VS_ASSERT_EQ(live[LIVE_QP], qps - 1);
	VS_ASSERT_EQ(live[LIVE_MR], mrs);
	VS_ASSERT_EQ(live[LIVE_PD], pds);
	VS_ASSERT_EQ(live[LIVE_CQ], cqs);
	/* closed to everything else */
	VS_FAILS(vs_rc_qp_modify(qp, &(struct ibv_qp_attr){
		.qp_state = IBV_QPS_ERR }, IBV_QP_STATE), EINVAL, "already closed");
	/* the close again finishes: the MR, the CQ, the PD */
	VS_OK(vs_rc_qp_close(qp));
	VS_ASSERT_EQ(live[LIVE_MR], mrs - 1);
	VS_ASSERT_EQ(live[LIVE_PD], pds - 1);
	VS_ASSERT_EQ(live[LIVE_CQ], cqs - 1);
	/* and a third is the plain misuse of a closed handle */
	VS_FAILS(vs_rc_qp_close(qp), EINVAL, "already closed");
}

/* A later step fails (the CQ the user closed before the QP): the QP's
 * close says which object stays, and that object's close again ends it. */
static void cq_stays(struct vs_context *ctx)
{
	struct vs_mr *mr;
	struct vs_cq *cq;
	struct vs_rc_qp *qp = last_holder(ctx, &mr, &cq);
	int cqs = live[LIVE_CQ], qps = live[LIVE_QP];

	fail_once("ibv_destroy_cq", EIO);
	VS_FAILS(vs_rc_qp_close(qp), EIO, "the CQ stays open");
	VS_ASSERT_STREQ(vs_last_error()->call, "vs_rc_qp_close");
	VS_ASSERT_STREQ(vs_last_error()->verb, "ibv_destroy_cq");
	VS_ASSERT_EQ(live[LIVE_QP], qps - 1);
	VS_ASSERT_EQ(live[LIVE_CQ], cqs);
	/* what to retry, said: the parent, not the child that is gone */
	VS_ASSERT(strstr(vs_last_error()->message, "retry with vs_cq_close on "
			 "the CQ, whose handle is open again"));
	VS_FAILS(vs_rc_qp_close(qp), EINVAL, "already closed");
	VS_OK(vs_cq_close(cq));
	VS_ASSERT_EQ(live[LIVE_CQ], cqs - 1);
	VS_OK(vs_mr_close(mr));
}

/*
 * An MR's close that frees the PD closed before it (rule 4): the PD's
 * dealloc failing is the MR's close's failure, saying to retry the PD's
 * close (its handle open again); the MR's handle is gone with its object,
 * so its close again is a double close (rule 3), by design: its slot
 * cannot stay for a retry the user may make on the PD instead.
 */
static void deferred_pd(struct vs_context *ctx)
{
	struct vs_pd *pd;
	struct vs_mr *mr;
	int pds = live[LIVE_PD], mrs = live[LIVE_MR];

	VS_OK(vs_pd_alloc(ctx, &pd));
	VS_OK(vs_mr_alloc(pd, 4096, 0, &mr));
	VS_OK(vs_pd_close(pd));
	fail_once("ibv_dealloc_pd", EBUSY);
	VS_FAILS(vs_mr_close(mr), EBUSY, "retry with vs_pd_close on the PD, "
		 "whose handle is open again");
	printf("  %s\n", vs_t_err());
	VS_ASSERT_STREQ(vs_last_error()->verb, "ibv_dealloc_pd");
	VS_ASSERT_EQ(live[LIVE_MR], mrs);
	VS_ASSERT_EQ(live[LIVE_PD], pds + 1);
	VS_FAILS(vs_mr_close(mr), EINVAL, "already closed");
	VS_OK(vs_pd_close(pd));
	VS_ASSERT_EQ(live[LIVE_PD], pds);
	/* the PD's own close failing says nothing of a deferral */
	VS_OK(vs_pd_alloc(ctx, &pd));
	fail_once("ibv_dealloc_pd", EBUSY);
	VS_FAILS(vs_pd_close(pd), EBUSY, "close it again to retry");
	VS_ASSERT(!strstr(vs_last_error()->message, "deferred"));
	VS_OK(vs_pd_close(pd));
}

static void unnamed_device(void)
{
	struct vs_context *ctx = (struct vs_context *)1;
	struct vs_device_entry e[2];
	size_t n = 0;

	fail_once("ibv_get_device_name", ENODEV);
	VS_FAILS(vs_device_open("fake0", &ctx), ENODEV, "has no name");
	VS_ASSERT_STREQ(vs_last_error()->verb, "ibv_get_device_name");
	VS_ASSERT(ctx == NULL);
	fail_once("ibv_get_device_name", ENODEV);
	VS_FAILS(vs_device_open(NULL, &ctx), ENODEV, "has no name");
	fail_once("ibv_get_device_name", ENODEV);
	VS_FAILS(vs_device_list(e, 2, &n), ENODEV, "has no name");
	fail_next->verb[0] = 0;
}

static void put_file(const char *dir, const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	VS_ASSERT(f);
	fputs(text, f);
	VS_ASSERT_EQ(fclose(f), 0);
}

/*
 * The CM's causes name devices too (lib/cm/cm_env.c): a device on lo's
 * netdev whose port is down, whose name ibv_get_device_name does not give,
 * is named in words, never by a NULL into printf ("(null)" from glibc).
 */
static void unnamed_cm_device(void)
{
	char dir[] = "/tmp/vs_close_retry.XXXXXX", sub[64], buf[512];
	struct sockaddr_in lo = { .sin_family = AF_INET };

	VS_ASSERT(mkdtemp(dir));
	put_file(dir, "parent", "lo\n");
	snprintf(sub, sizeof(sub), "%s/ports", dir);
	VS_ASSERT_EQ(mkdir(sub, 0700), 0);
	snprintf(sub, sizeof(sub), "%s/ports/1", dir);
	VS_ASSERT_EQ(mkdir(sub, 0700), 0);
	put_file(sub, "state", "1: DOWN\n");
	setenv("VS_FAKE_IBDEV_PATH", dir, 1);
	lo.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fail_once("ibv_get_device_name", ENODEV);
	VS_ASSERT(vs__cm_netdev_why((struct sockaddr *)&lo, buf, sizeof(buf)));
	printf("  %s\n", buf);
	VS_ASSERT(strstr(buf, "on its netdev lo has no port up"));
	VS_ASSERT(strstr(buf, "ibv_get_device_name gives no name"));
	VS_ASSERT(!strstr(buf, "(null)"));
	fail_next->verb[0] = 0;
	unsetenv("VS_FAKE_IBDEV_PATH");
	snprintf(sub, sizeof(sub), "%s/ports/1/state", dir);
	unlink(sub);
	snprintf(sub, sizeof(sub), "%s/ports/1", dir);
	rmdir(sub);
	snprintf(sub, sizeof(sub), "%s/ports", dir);
	rmdir(sub);
	snprintf(sub, sizeof(sub), "%s/parent", dir);
	unlink(sub);
	rmdir(dir);
}

int main(void)
{
	struct vs_context *ctx;
	void *fail;

	setenv("VS_FAKE_VENDOR", "0xffffff", 1); /* rxe: the bounce ring */
	unsetenv("VERBSHIM_TRUST_WR_SGE");
	vs_t_use_fake(&fail, &live);
	fail_next = fail;

	unnamed_device();
	unnamed_cm_device();
	VS_OK(vs_device_open("fake0", &ctx));
	dereg_fails(ctx);
	cq_stays(ctx);
	deferred_pd(ctx);
	VS_OK(vs_device_close(ctx));
	for (int i = 0; i < 7; i++)
		VS_ASSERT_EQ(live[i], 0);
	printf("a close that fails part-way keeps its first failure and a close "
	       "again finishes it; a device without a name is an error\n");
	return 0;
}
