/* SPDX-License-Identifier: MIT */
/*
 * cm_echo: an RC echo server and client connected by address through the
 * typed connection manager.
 *
 *   server:  cm_echo [-p port] [-c clients] [-n messages] [-s size]
 *   client:  cm_echo [-p port] [-n messages] [-s size] server_host
 *
 * The server serves its clients one after the other with the steps
 * (a request, a QP on one shared PD and CQ, receives posted before the
 * accept); the client connects in one call (vs_cm_rc_client) and checks
 * every byte that comes back.  Private data both ways says hello.  The
 * server ends each connection once its last echo is acked; the client
 * answers the disconnect (settle_last says why its last send may
 * complete only then).
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <string.h>

#include "common/ex_common.h"

static int size = 64, msgs = 100;

static void post_recv(struct vs_rc_qp *qp, struct vs_mr *mr, uint64_t off)
{
	struct vs_recv_batch rb;
	struct ibv_sge s = vs_mr_sge(mr, off, (uint32_t)size);

	ex_check(vs_rc_recv_start(qp, &rb), "vs_rc_recv_start");
	ex_check(vs_recv_add(&rb, off, &s, 1), "vs_recv_add");
	ex_check(vs_recv_submit(&rb), "vs_recv_submit");
}

static void post_send(struct vs_rc_qp *qp, struct vs_mr *mr, uint64_t off)
{
	struct vs_rc_batch b;
	struct ibv_sge s = vs_mr_sge(mr, off, (uint32_t)size);

	ex_check(vs_rc_batch_start(qp, &b), "vs_rc_batch_start");
	ex_check(vs_rc_send(&b, off, VS_WR_SIGNALED, &s, 1), "vs_rc_send");
	ex_check(vs_rc_batch_submit(&b), "vs_rc_batch_submit");
}

/*
 * Counts completions off until @want receives are there and, with
 * @sends_too, no send is outstanding.  One CQ takes both queues, so the next message's receive
 * may complete before the send that answered the last one: each
 * completion is counted as what it is, never taken for the other.
 */
static void settle(struct vs_cq *cq, int *recvs, int want, int *sends, bool sends_too)
{
	struct vs_wc wc;

	while (*recvs < want || (sends_too && *sends)) {
		if (ex_wait(cq, &wc, 1, 5000) != 1) {
			fprintf(stderr, "cm_echo: no completion within 5 s "
				"(%d of %d receives there, %d sends outstanding)\n",
				*recvs, want, *sends);
			exit(1);
		}
		if (wc.status != IBV_WC_SUCCESS) {
			fprintf(stderr, "cm_echo: %s completion status %s\n",
				wc.opcode == IBV_WC_RECV ? "receive" : "send",
				ibv_wc_status_str(wc.status));
			exit(1);
		}
		if (wc.opcode == IBV_WC_RECV)
			++*recvs;
		else
			--*sends;
	}
}

/*
 * The client's last message.  Its echo proves the send arrived, yet the
 * send's own completion can come only after the server's close: the
 * server's side may post the receive before its ack leaves, the server
 * closes as soon as its echo is acked, and an ack not yet sent is lost
 * with the server's QP (seen on rxe with the host loaded); the
 * retransmission then finds a QP in error.  So the echo is awaited, the
 * server's close answered, and the send's completion taken in whatever
 * status the close leaves it: its delivery was proven by the echo.
 */
static void settle_last(struct vs_cm_id *id, int *recvs, int *sends)
{
	struct vs_wc wc;

	settle(vs_cm_cq(id), recvs, 1, sends, false);
	ex_cm_await_disconnect(id);
	ex_check(vs_cm_disconnect(id), "vs_cm_disconnect");
	if (!*sends)
		return;
	if (ex_wait(vs_cm_cq(id), &wc, 1, 5000) != 1)
		printf("cm_echo: the last send had no completion by the close; its echo had come back\n");
	else if (wc.status != IBV_WC_SUCCESS)
		printf("cm_echo: the last send completed %s at the close; its echo had come back\n",
		       ibv_wc_status_str(wc.status));
	*sends = 0;
}

static int serve(const char *port, int clients)
{
	struct vs_cm_id *l;
	struct vs_pd *pd = NULL;
	struct vs_cq *cq = NULL;
	struct vs_mr *mr = NULL;

	ex_check(vs_cm_listen(NULL, port, NULL, &l), "vs_cm_listen");
	printf("cm_echo: listening on port %u\n", vs_cm_port(l));
	fflush(stdout);
	for (int c = 0; c < clients; c++) {
		struct vs_cm_id *id;
		struct vs_rc_qp *qp;
		uint8_t len;
		const char *hello;
		int recvs = 0, sends = 0, ret;

		ret = vs_cm_get_request(l, 60000, &id);
		if (ret == -ETIMEDOUT || ret == -EAGAIN) {
			fprintf(stderr, "cm_echo: no client came within 60 s\n");
			return 1;
		}
		ex_check(ret, "vs_cm_get_request");
		hello = vs_cm_private_data(id, &len);
		printf("cm_echo: request from %s: \"%.*s\"\n", vs_cm_peer(id), (int)len,
		       hello ? hello : "");
		if (!pd) {
			ex_check(vs_pd_alloc(vs_cm_context(id), &pd), "vs_pd_alloc");
			ex_check(vs_cq_create(vs_cm_context(id), NULL, &cq), "vs_cq_create");
			ex_check(vs_mr_alloc(pd, 2 * (size_t)size, 0, &mr), "vs_mr_alloc");
		}
		ex_check(vs_cm_rc_qp_create(id, pd, &(struct vs_rc_config){ .send_cq = cq },
					    &qp), "vs_cm_rc_qp_create");
		post_recv(qp, mr, 0); /* before the accept: the client may send at once */
		ex_check(vs_cm_accept(id, &(struct vs_cm_conn_config){
			.private_data = "cm_echo says hello", .private_data_len = 19 }),
			 "vs_cm_accept");
		for (int i = 0; i < msgs; i++) {
			uint64_t slot = (uint64_t)(i % 2) * (uint64_t)size;

			settle(cq, &recvs, 1, &sends, true);
			recvs--;
			/* the next receive goes up before the echo leaves */
			if (i + 1 < msgs)
				post_recv(qp, mr, (uint64_t)size - slot);
			post_send(qp, mr, slot);
			sends++;
			/* the slot is reused two messages on */
			settle(cq, &recvs, 0, &sends, true);
		}
		/*
		 * The server ends it, its last echo acked: a client that left
		 * first could not answer that echo's retransmission, should
		 * the first ack have been lost.
		 */
		ex_check(vs_cm_disconnect(id), "vs_cm_disconnect");
		ex_cm_await_disconnect(id);
		ex_check(vs_rc_qp_close(qp), "vs_rc_qp_close");
		ex_check(vs_cm_close(id), "vs_cm_close");
		printf("cm_echo: client %d: %d messages echoed, disconnected\n", c + 1, msgs);
	}
	if (mr) {
		ex_check(vs_mr_close(mr), "vs_mr_close");
		ex_check(vs_cq_close(cq), "vs_cq_close");
		ex_check(vs_pd_close(pd), "vs_pd_close");
	}
	ex_check(vs_cm_close(l), "vs_cm_close");
	return 0;
}

static int client(const char *host, const char *port)
{
	struct vs_cm_id *id;
	struct vs_mr *mr;
	uint8_t *m, len;
	const char *hello;
	uint64_t t0;

	ex_check(vs_cm_rc_client(host, port, NULL, &(struct vs_cm_conn_config){
		.private_data = "cm_echo client", .private_data_len = 15 }, NULL, &id),
		 "vs_cm_rc_client");
	hello = vs_cm_private_data(id, &len);
	printf("cm_echo: connected to %s: \"%.*s\"\n", vs_cm_peer(id), (int)len,
	       hello ? hello : "");
	ex_check(vs_mr_alloc(vs_cm_pd(id), 2 * (size_t)size, 0, &mr), "vs_mr_alloc");
	m = vs_mr_ptr(mr, 0);
	t0 = ex_now_ns();
	for (int i = 0; i < msgs; i++) {
		int recvs = 0, sends = 1;

		for (int k = 0; k < size; k++)
			m[k] = (uint8_t)(i * 7 + k);
		post_recv(vs_cm_rc_qp(id), mr, (uint64_t)size);
		post_send(vs_cm_rc_qp(id), mr, 0);
		if (i + 1 < msgs)
			settle(vs_cm_cq(id), &recvs, 1, &sends, true);
		else
			settle_last(id, &recvs, &sends); /* answers the server's close */
		if (memcmp(m, m + size, (size_t)size)) {
			fprintf(stderr, "cm_echo: message %d came back different\n", i);
			return 1;
		}
	}
	printf("cm_echo: %d messages of %d bytes echoed and checked, %.1f us per round trip\n",
	       msgs, size, (ex_now_ns() - t0) / 1e3 / msgs);
	ex_check(vs_mr_close(mr), "vs_mr_close");
	ex_check(vs_cm_close(id), "vs_cm_close");
	return 0;
}

int main(int argc, char **argv)
{
	const char *port = "7471";
	int clients = 1, c;

	setvbuf(stdout, NULL, _IOLBF, 0); /* the last line a failure prints is its reason */
	while ((c = getopt(argc, argv, "p:c:n:s:h")) != -1) {
		switch (c) {
		case 'p': port = optarg; break;
		case 'c': clients = atoi(optarg); break;
		case 'n': msgs = atoi(optarg); break;
		case 's': size = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: %s [-p port] [-c clients] [-n messages] "
				"[-s size] [server_host]\n", argv[0]);
			return 2;
		}
	}
	if (msgs < 1 || size < 1 || clients < 1) {
		fprintf(stderr, "cm_echo: -n, -s and -c must be positive\n");
		return 2;
	}
	return optind < argc ? client(argv[optind], port) : serve(port, clients);
}
