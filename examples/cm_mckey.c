/* SPDX-License-Identifier: MIT */
/*
 * cm_mckey: UD multicast through the connection manager (in the manner of
 * librdmacm's mckey).
 *
 *   receiver:  cm_mckey -m group -b local_address [-n messages]
 *   sender:    cm_mckey -m group [-n messages] [-r rounds] local_address
 *
 * Both join the group (vs_cm_join attaches the QP; the join's answer is
 * the group's address handle, QPN 0xffffff and Q_Key).  The sender sends
 * messages 0..n-1 once per round (a receiver may join late); the receiver
 * waits until it has each of them once, bytes checked.
 */
#include <getopt.h>
#include <string.h>
#include <unistd.h>

#include "common/ex_common.h"

#define SIZE 64

struct side {
	struct vs_cm_id *id;
	struct vs_pd *pd;
	struct vs_cq *cq;
	struct vs_ud_qp *qp;
	struct vs_mr *mr;
};

static int msgs = 10;

static void join(struct side *s, const char *group, const char *local, int slots)
{
	struct vs_context *ctx;

	ex_check(vs_cm_resolve(group, "0", &(struct vs_cm_config){
		.transport = VS_TRANSPORT_UD, .src = local }, &s->id), "vs_cm_resolve");
	ctx = vs_cm_context(s->id);
	if (!ctx)
		ex_die("vs_cm_context");
	ex_check(vs_pd_alloc(ctx, &s->pd), "vs_pd_alloc");
	ex_check(vs_cq_create(ctx, NULL, &s->cq), "vs_cq_create");
	ex_check(vs_cm_ud_qp_create(s->id, s->pd, &(struct vs_ud_config){
		.send_cq = s->cq, .caps = { .max_recv_wr = (uint32_t)slots } }, &s->qp),
		 "vs_cm_ud_qp_create");
	ex_check(vs_mr_alloc(s->pd, (size_t)slots * (VS_UD_GRH_BYTES + SIZE), 0, &s->mr),
		 "vs_mr_alloc");
}

static void leave(struct side *s)
{
	ex_check(vs_cm_leave(s->id), "vs_cm_leave");
	ex_check(vs_cm_close(s->id), "vs_cm_close");
	ex_check(vs_ud_qp_close(s->qp), "vs_ud_qp_close");
	ex_check(vs_mr_close(s->mr), "vs_mr_close");
	ex_check(vs_cq_close(s->cq), "vs_cq_close");
	ex_check(vs_pd_close(s->pd), "vs_pd_close");
}

static void post_recv(struct side *s, uint64_t slot)
{
	struct vs_recv_batch rb;
	struct ibv_sge g = vs_mr_sge(s->mr, slot * (VS_UD_GRH_BYTES + SIZE),
				     VS_UD_GRH_BYTES + SIZE);

	ex_check(vs_ud_recv_start(s->qp, &rb), "vs_ud_recv_start");
	ex_check(vs_recv_add(&rb, slot, &g, 1), "vs_recv_add");
	ex_check(vs_recv_submit(&rb), "vs_recv_submit");
}

static int receive(const char *group, const char *local)
{
	struct side s;
	int slots = 32, got = 0;
	char seen[256] = { 0 };
	const uint8_t *m;

	join(&s, group, local, slots);
	for (int i = 0; i < slots; i++)
		post_recv(&s, (uint64_t)i);
	ex_check(vs_cm_join(s.id, group, 0), "vs_cm_join");
	printf("cm_mckey: joined %s on %s, waiting for %d messages\n", group, local, msgs);
	fflush(stdout);
	m = vs_mr_ptr(s.mr, 0);
	while (got < msgs) {
		struct vs_wc wc;
		const uint8_t *p;

		if (ex_wait(s.cq, &wc, 1, 30000) != 1 || wc.status != IBV_WC_SUCCESS)
			ex_die("a multicast receive");
		p = m + wc.wr_id * (VS_UD_GRH_BYTES + SIZE) + VS_UD_GRH_BYTES;
		for (int k = 1; k < SIZE; k++)
			if (p[k] != (uint8_t)(p[0] * 3 + k)) {
				fprintf(stderr, "cm_mckey: byte %d of message %u is wrong\n",
					k, p[0]);
				return 1;
			}
		if (p[0] < msgs && !seen[p[0]]) {
			seen[p[0]] = 1;
			got++;
		}
		post_recv(&s, wc.wr_id);
	}
	printf("cm_mckey: %d distinct messages received, bytes checked\n", got);
	leave(&s);
	return 0;
}

static int send_all(const char *group, const char *local, int rounds)
{
	struct side s;
	struct vs_ud_dest dest;
	uint8_t *m;

	join(&s, group, local, 1);
	ex_check(vs_cm_join(s.id, group, 0), "vs_cm_join");
	ex_check(vs_cm_ud_dest(s.id, &dest), "vs_cm_ud_dest");
	printf("cm_mckey: sending to %s (QPN 0x%x, Q_Key 0x%x), %d rounds\n", group,
	       dest.remote_qpn, dest.remote_qkey, rounds);
	m = vs_mr_ptr(s.mr, 0);
	for (int r = 0; r < rounds; r++) {
		for (int i = 0; i < msgs; i++) {
			struct vs_ud_batch b;
			struct vs_wc wc;
			struct ibv_sge g = vs_mr_sge(s.mr, 0, SIZE);

			/* byte 0 is the message number, byte k is 3 * number + k */
			m[0] = (uint8_t)i;
			for (int k = 1; k < SIZE; k++)
				m[k] = (uint8_t)(i * 3 + k);
			ex_check(vs_ud_batch_start(s.qp, &b), "vs_ud_batch_start");
			ex_check(vs_ud_send(&b, (uint64_t)i, VS_WR_SIGNALED, &dest, &g, 1),
				 "vs_ud_send");
			ex_check(vs_ud_batch_submit(&b), "vs_ud_batch_submit");
			if (ex_wait(s.cq, &wc, 1, 5000) != 1 || wc.status != IBV_WC_SUCCESS)
				ex_die("a multicast send");
		}
		usleep(100000);
	}
	printf("cm_mckey: %d rounds of %d messages sent\n", rounds, msgs);
	ex_check(vs_ud_dest_release(&dest), "vs_ud_dest_release");
	leave(&s);
	return 0;
}

int main(int argc, char **argv)
{
	const char *group = NULL, *bind = NULL;
	int rounds = 10, c;

	setvbuf(stdout, NULL, _IOLBF, 0); /* the last line a failure prints is its reason */
	while ((c = getopt(argc, argv, "m:b:n:r:h")) != -1) {
		switch (c) {
		case 'm': group = optarg; break;
		case 'b': bind = optarg; break;
		case 'n': msgs = atoi(optarg); break;
		case 'r': rounds = atoi(optarg); break;
		default:
			goto usage;
		}
	}
	if (!group || msgs < 1 || msgs > 255 || (!bind && optind >= argc))
		goto usage;
	return optind < argc ? send_all(group, argv[optind], rounds) :
			       receive(group, bind);
usage:
	fprintf(stderr, "usage: %s -m group -b local_address [-n messages]   (receiver)\n"
		"       %s -m group [-n messages] [-r rounds] local_address   (sender)\n",
		argv[0], argv[0]);
	return 2;
}
