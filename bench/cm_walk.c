/* SPDX-License-Identifier: MIT */
/*
 * cm_walk: one connection through the typed connection manager's steps,
 * server and client in one process, for bench/cm_walk.sh to follow one
 * vs_cm_accept (or vs_cm_connect) line by line under gdb.  Every wait is
 * long (300 s): stepping the server under gdb is slow, and a client that
 * gave up would send the accept down its failure path instead.
 *
 *   cm_walk [-u] ADDRESS   (an address of this host's RDMA device; -u: UD)
 *
 * The server: listen, get_request, its QP (PD and CQ of its own), accept.
 * The client (a thread): resolve, its QP, connect.  Both close.  Exit 0
 * when both sides connected.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <verbshim.h>

#define WAIT_MS 300000

static const char *addr;
static char port[16];
static bool ud;

static int fail(const char *what, int ret)
{
	const struct vs_error *e = vs_last_error();

	fprintf(stderr, "cm_walk: %s: %s: %s\n", what, strerror(-ret),
		e->message);
	return 1;
}

struct side {
	struct vs_cm_id *id;
	struct vs_pd *pd;
	struct vs_cq *cq;
	struct vs_rc_qp *rc;
	struct vs_ud_qp *ud;
};

/* A QP on s->id's device, with a PD and CQ of its own. */
static int make_qp(struct side *s)
{
	int ret = vs_pd_alloc(vs_cm_context(s->id), &s->pd);

	if (!ret)
		ret = vs_cq_create(vs_cm_context(s->id), NULL, &s->cq);
	if (ret)
		return ret;
	if (ud)
		return vs_cm_ud_qp_create(s->id, s->pd, &(struct vs_ud_config){
			.send_cq = s->cq }, &s->ud);
	return vs_cm_rc_qp_create(s->id, s->pd, &(struct vs_rc_config){
		.send_cq = s->cq }, &s->rc);
}

static void close_all(struct side *s)
{
	if (s->id)
		vs_cm_close(s->id);
	if (s->ud)
		vs_ud_qp_close(s->ud);
	if (s->rc)
		vs_rc_qp_close(s->rc);
	if (s->cq)
		vs_cq_close(s->cq);
	if (s->pd)
		vs_pd_close(s->pd);
}

static void *client(void *arg)
{
	struct vs_cm_config cc = {
		.transport = ud ? VS_TRANSPORT_UD : VS_TRANSPORT_RC,
		.timeout_ms = WAIT_MS,
	};
	struct side c = { 0 };
	int ret;

	(void)arg;
	ret = vs_cm_resolve(addr, port, &cc, &c.id);
	if (ret)
		return (void *)(long)fail("vs_cm_resolve", ret);
	ret = make_qp(&c);
	if (!ret)
		ret = vs_cm_connect(c.id, &(struct vs_cm_conn_config){
			.timeout_ms = WAIT_MS });
	if (ret)
		fail("the client's QP or connect", ret);
	close_all(&c);
	return (void *)(long)(ret != 0);
}

int main(int argc, char **argv)
{
	struct vs_cm_id *l;
	struct side sv = { 0 };
	void *cret;
	pthread_t t;
	int ret;

	if (argc > 1 && !strcmp(argv[1], "-u")) {
		ud = true;
		argv++;
		argc--;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: cm_walk [-u] ADDRESS\n");
		return 2;
	}
	addr = argv[1];
	ret = vs_cm_listen(addr, "0", &(struct vs_cm_config){
		.transport = ud ? VS_TRANSPORT_UD : VS_TRANSPORT_RC }, &l);
	if (ret)
		return fail("vs_cm_listen", ret);
	snprintf(port, sizeof(port), "%u", vs_cm_port(l));
	if (pthread_create(&t, NULL, client, NULL))
		return fail("pthread_create", -EAGAIN);
	ret = vs_cm_get_request(l, WAIT_MS, &sv.id);
	if (!ret)
		ret = make_qp(&sv);
	if (!ret)
		ret = vs_cm_accept(sv.id, &(struct vs_cm_conn_config){
			.timeout_ms = WAIT_MS });
	if (ret)
		fail("the server's request, QP or accept", ret);
	pthread_join(t, &cret);
	close_all(&sv);
	vs_cm_close(l);
	if (ret || cret)
		return 1;
	printf("cm_walk: %s connection made\n", ud ? "UD" : "RC");
	return 0;
}
