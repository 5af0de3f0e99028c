/* SPDX-License-Identifier: MIT */
/*
 * cm_udaddy: UD datagrams to an address resolved by the connection
 * manager (in the manner of librdmacm's udaddy).
 *
 *   server:  cm_udaddy [-p port] [-n messages]
 *   client:  cm_udaddy [-p port] [-n messages] server_host
 *
 * The client's UD connect (SIDR) returns the server QP's number and Q_Key;
 * vs_cm_ud_dest() makes the address handle.  The server checks the bytes
 * and the sender's QPN of every message.
 */
#include <getopt.h>
#include <string.h>

#include "common/ex_common.h"

#define SIZE 64

static int msgs = 10;

static void build(struct vs_cm_id *id, struct vs_pd **pd, struct vs_cq **cq,
		  struct vs_ud_qp **qp, struct vs_mr **mr)
{
	struct vs_context *ctx = vs_cm_context(id);

	if (!ctx)
		ex_die("vs_cm_context");
	ex_check(vs_pd_alloc(ctx, pd), "vs_pd_alloc");
	ex_check(vs_cq_create(ctx, NULL, cq), "vs_cq_create");
	ex_check(vs_cm_ud_qp_create(id, *pd, &(struct vs_ud_config){ .send_cq = *cq }, qp),
		 "vs_cm_ud_qp_create");
	ex_check(vs_mr_alloc(*pd, (size_t)msgs * (VS_UD_GRH_BYTES + SIZE), 0, mr),
		 "vs_mr_alloc");
}

static void teardown(struct vs_cm_id *id, struct vs_pd *pd, struct vs_cq *cq,
		     struct vs_ud_qp *qp, struct vs_mr *mr)
{
	ex_check(vs_cm_close(id), "vs_cm_close");
	ex_check(vs_ud_qp_close(qp), "vs_ud_qp_close");
	ex_check(vs_mr_close(mr), "vs_mr_close");
	ex_check(vs_cq_close(cq), "vs_cq_close");
	ex_check(vs_pd_close(pd), "vs_pd_close");
}

static int serve(const char *port)
{
	struct vs_cm_id *l, *id;
	struct vs_pd *pd;
	struct vs_cq *cq;
	struct vs_ud_qp *qp;
	struct vs_mr *mr;
	struct vs_recv_batch rb;
	uint32_t from;
	const uint8_t *m;

	ex_check(vs_cm_listen(NULL, port, &(struct vs_cm_config){
		.transport = VS_TRANSPORT_UD }, &l), "vs_cm_listen");
	printf("cm_udaddy: listening on port %u\n", vs_cm_port(l));
	fflush(stdout);
	ex_check(vs_cm_get_request(l, 60000, &id), "vs_cm_get_request");
	memcpy(&from, vs_cm_private_data(id, &(uint8_t){ 0 }), sizeof(from));
	build(id, &pd, &cq, &qp, &mr);
	ex_check(vs_ud_recv_start(qp, &rb), "vs_ud_recv_start");
	for (int i = 0; i < msgs; i++) {
		struct ibv_sge s = vs_mr_sge(mr, (uint64_t)i * (VS_UD_GRH_BYTES + SIZE),
					     VS_UD_GRH_BYTES + SIZE);

		ex_check(vs_recv_add(&rb, (uint64_t)i, &s, 1), "vs_recv_add");
	}
	ex_check(vs_recv_submit(&rb), "vs_recv_submit");
	ex_check(vs_cm_accept(id, NULL), "vs_cm_accept");
	m = vs_mr_ptr(mr, 0);
	for (int i = 0; i < msgs; i++) {
		struct vs_wc wc;
		const uint8_t *p;

		if (ex_wait(cq, &wc, 1, 10000) != 1 || wc.status != IBV_WC_SUCCESS)
			ex_die("a receive");
		p = m + wc.wr_id * (VS_UD_GRH_BYTES + SIZE) + VS_UD_GRH_BYTES;
		for (int k = 0; k < SIZE; k++)
			if (p[k] != (uint8_t)(p[0] + k)) {
				fprintf(stderr, "cm_udaddy: byte %d of a message is wrong\n", k);
				return 1;
			}
		if (wc.src_qp != from) {
			fprintf(stderr, "cm_udaddy: from QPN 0x%x, the request said 0x%x\n",
				wc.src_qp, from);
			return 1;
		}
	}
	printf("cm_udaddy: %d datagrams from QPN 0x%x, bytes checked\n", msgs, from);
	teardown(id, pd, cq, qp, mr);
	ex_check(vs_cm_close(l), "vs_cm_close");
	return 0;
}

static int client(const char *host, const char *port)
{
	struct vs_cm_id *id;
	struct vs_pd *pd;
	struct vs_cq *cq;
	struct vs_ud_qp *qp;
	struct vs_mr *mr;
	struct vs_ud_dest dest;
	uint8_t *m;
	uint32_t me;

	ex_check(vs_cm_resolve(host, port, &(struct vs_cm_config){
		.transport = VS_TRANSPORT_UD }, &id), "vs_cm_resolve");
	build(id, &pd, &cq, &qp, &mr);
	me = vs_ud_qp_num(qp); /* the server checks each datagram's sender */
	ex_check(vs_cm_connect(id, &(struct vs_cm_conn_config){
		.private_data = &me, .private_data_len = sizeof(me) }), "vs_cm_connect");
	ex_check(vs_cm_ud_dest(id, &dest), "vs_cm_ud_dest");
	printf("cm_udaddy: %s is QPN 0x%x, Q_Key 0x%x\n", vs_cm_peer(id),
	       dest.remote_qpn, dest.remote_qkey);
	m = vs_mr_ptr(mr, 0);
	for (int i = 0; i < msgs; i++) {
		struct vs_ud_batch b;
		struct vs_wc wc;
		struct ibv_sge s = vs_mr_sge(mr, 0, SIZE);

		for (int k = 0; k < SIZE; k++)
			m[k] = (uint8_t)(i * 11 + k);
		ex_check(vs_ud_batch_start(qp, &b), "vs_ud_batch_start");
		ex_check(vs_ud_send(&b, (uint64_t)i, VS_WR_SIGNALED, &dest, &s, 1),
			 "vs_ud_send");
		ex_check(vs_ud_batch_submit(&b), "vs_ud_batch_submit");
		if (ex_wait(cq, &wc, 1, 5000) != 1 || wc.status != IBV_WC_SUCCESS)
			ex_die("a send");
	}
	printf("cm_udaddy: %d datagrams sent\n", msgs);
	ex_check(vs_ud_dest_release(&dest), "vs_ud_dest_release");
	teardown(id, pd, cq, qp, mr);
	return 0;
}

int main(int argc, char **argv)
{
	const char *port = "7472";
	int c;

	setvbuf(stdout, NULL, _IOLBF, 0); /* the last line a failure prints is its reason */
	while ((c = getopt(argc, argv, "p:n:h")) != -1) {
		switch (c) {
		case 'p': port = optarg; break;
		case 'n': msgs = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: %s [-p port] [-n messages] [server_host]\n",
				argv[0]);
			return 2;
		}
	}
	if (msgs < 1)
		msgs = 1;
	return optind < argc ? client(argv[optind], port) : serve(port);
}
