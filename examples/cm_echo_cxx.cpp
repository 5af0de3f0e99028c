// SPDX-License-Identifier: MIT
/*
 * cm_echo_cxx: examples/cm_echo.c in C++ (include/verbshim.hpp): an RC
 * echo server and client connected by address through the typed
 * connection manager, every handle in an owner.
 *
 *   server:  cm_echo_cxx [-p port] [-c clients] [-n messages] [-s size]
 *   client:  cm_echo_cxx [-p port] [-n messages] [-s size] server_host
 *
 * No close is written out: each id, QP, MR, CQ and PD closes when its
 * owner leaves its scope (children first: they are declared after their
 * parents), also when an error leaves it.  Errors come back as results;
 * value() turns one into a vs::error exception, which main prints (the
 * C error record's line) before it exits 1.  The client checks every
 * byte that comes back.
 */
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <getopt.h>
#include <sched.h>

#include <verbshim.hpp>

namespace {

int size = 64, msgs = 100;

void post_recv(vs::ref<vs_rc_qp> qp, const vs::ref<vs_mr> mr, std::uint64_t off)
{
	vs::recv_batch rb;

	rb.start(qp).value();
	rb.add(off, vs_mr_sge(mr.get(), off, (std::uint32_t)size)).value();
	rb.submit().value();
}

void post_send(vs::ref<vs_rc_qp> qp, const vs::ref<vs_mr> mr, std::uint64_t off)
{
	vs::rc_batch b;

	b.start(qp).value();
	b.send(off, VS_WR_SIGNALED, vs_mr_sge(mr.get(), off, (std::uint32_t)size)).value();
	b.submit().value();
}

[[noreturn]] void die(const char *what)
{
	std::fprintf(stderr, "cm_echo_cxx: %s\n", what);
	std::exit(1);
}

/*
 * Counts completions off until want receives are there and (sends_too) no
 * send is outstanding (one CQ takes both queues: each completion is counted as
 * what it is).
 */
void settle(vs::ref<vs_cq> cq, int &recvs, int want, int &sends, bool sends_too = true)
{
	auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
	vs_wc wc;

	while (recvs < want || (sends_too && sends)) {
		if (vs::cq_poll(cq, wc).value() == 0) {
			if (std::chrono::steady_clock::now() > deadline) {
				std::fprintf(stderr, "cm_echo_cxx: no completion within 5 s (%d of %d "
					     "receives there, %d sends outstanding)\n", recvs, want, sends);
				std::exit(1);
			}
			sched_yield(); /* let a software provider's threads run */
			continue;
		}
		if (wc.status != IBV_WC_SUCCESS) {
			std::fprintf(stderr, "cm_echo_cxx: %s completion status %s\n",
				     wc.opcode == IBV_WC_RECV ? "receive" : "send",
				     ibv_wc_status_str(wc.status));
			std::exit(1);
		}
		if (wc.opcode == IBV_WC_RECV)
			++recvs;
		else
			--sends;
	}
}

void await_disconnect(vs::ref<vs_cm_id> id)
{
	while (vs::cm_next(id, 60000).value().ev.type != RDMA_CM_EVENT_DISCONNECTED)
		;
}

/*
 * The client's last message: its echo proves the send arrived, but the
 * send's completion may come only at the server's close (examples/
 * cm_echo.c's settle_last says why); the close is answered here and the
 * completion taken in whatever status it leaves.
 */
void settle_last(vs::ref<vs_cm_id> id, vs::ref<vs_cq> cq, int &recvs, int &sends)
{
	settle(cq, recvs, 1, sends, false);
	await_disconnect(id);
	vs::cm_disconnect(id).value();
	if (!sends)
		return;
	auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
	vs_wc wc;
	while (vs::cq_poll(cq, wc).value() == 0) {
		if (std::chrono::steady_clock::now() > deadline) {
			std::printf("cm_echo_cxx: the last send had no completion by the close; "
				    "its echo had come back\n");
			sends = 0;
			return;
		}
		sched_yield();
	}
	if (wc.status != IBV_WC_SUCCESS)
		std::printf("cm_echo_cxx: the last send completed %s at the close; its echo had "
			    "come back\n", ibv_wc_status_str(wc.status));
	sends = 0;
}

int serve(const char *port, int clients)
{
	vs::cm_id l = vs::cm_listen(nullptr, port).value();
	/* made at the first request, on its context; outlive every QP */
	vs::pd pd;
	vs::cq cq;
	vs::mr mr;

	std::printf("cm_echo_cxx: listening on port %u\n", vs_cm_port(l.get()));
	std::fflush(stdout);
	for (int c = 0; c < clients; c++) {
		auto req = vs::cm_get_request(l, 60000);
		if (!req && (req.code() == std::errc::timed_out ||
			     req.code() == std::errc::resource_unavailable_try_again))
			die("no client came within 60 s");
		vs::cm_id id = std::move(req).value();
		std::uint8_t len;
		const char *hello = static_cast<const char *>(vs_cm_private_data(id.get(), &len));
		int recvs = 0, sends = 0;

		std::printf("cm_echo_cxx: request from %s: \"%.*s\"\n", vs_cm_peer(id.get()),
			    (int)len, hello ? hello : "");
		if (!pd) {
			vs_context *ctx = vs_cm_context(id.get()); /* the id's, borrowed */

			pd = vs::pd_alloc(ctx).value();
			cq = vs::cq_create(ctx).value();
			mr = vs::mr_alloc(pd, 2 * (std::size_t)size).value();
		}
		vs_rc_config cfg{};
		cfg.send_cq = cq.get();
		vs::rc_qp qp = vs::cm_rc_qp_create(id, pd, cfg).value();
		post_recv(qp, mr, 0); /* before the accept: the client may send at once */
		vs_cm_conn_config conn{};
		conn.private_data = "cm_echo_cxx says hello";
		conn.private_data_len = 23;
		vs::cm_accept(id, conn).value();
		for (int i = 0; i < msgs; i++) {
			std::uint64_t slot = (std::uint64_t)(i % 2) * (std::uint64_t)size;

			settle(cq, recvs, 1, sends);
			recvs--;
			/* the next receive goes up before the echo leaves */
			if (i + 1 < msgs)
				post_recv(qp, mr, (std::uint64_t)size - slot);
			post_send(qp, mr, slot);
			sends++;
			/* the slot is reused two messages on */
			settle(cq, recvs, 0, sends);
		}
		/* the server ends it, its last echo acked (examples/cm_echo.c says why) */
		vs::cm_disconnect(id).value();
		await_disconnect(id);
		/* the QP, then the id: their owners' close, errors wanted here */
		qp.close().value();
		id.close().value();
		std::printf("cm_echo_cxx: client %d: %d messages echoed, disconnected\n", c + 1, msgs);
	}
	return 0;
}

int client(const char *host, const char *port)
{
	vs_cm_conn_config conn{};
	conn.private_data = "cm_echo_cxx client";
	conn.private_data_len = 19;
	vs::cm_id id = vs::cm_rc_client(host, port, {}, conn).value();
	std::uint8_t len;
	const char *hello = static_cast<const char *>(vs_cm_private_data(id.get(), &len));
	/* what the id owns (vs_cm_rc_client made them), borrowed */
	vs_rc_qp *qp = vs_cm_rc_qp(id.get());
	vs_cq *cq = vs_cm_cq(id.get());

	std::printf("cm_echo_cxx: connected to %s: \"%.*s\"\n", vs_cm_peer(id.get()), (int)len,
		    hello ? hello : "");
	vs::mr mr = vs::mr_alloc(vs_cm_pd(id.get()), 2 * (std::size_t)size).value();
	auto *m = static_cast<std::uint8_t *>(vs_mr_ptr(mr.get(), 0));
	auto t0 = std::chrono::steady_clock::now();
	for (int i = 0; i < msgs; i++) {
		int recvs = 0, sends = 1;

		for (int k = 0; k < size; k++)
			m[k] = (std::uint8_t)(i * 7 + k);
		std::memset(m + size, 0xee, (std::size_t)size);
		post_recv(qp, mr, (std::uint64_t)size);
		post_send(qp, mr, 0);
		if (i + 1 < msgs)
			settle(cq, recvs, 1, sends);
		else
			settle_last(id, cq, recvs, sends); /* answers the server's close */
		if (std::memcmp(m, m + size, (std::size_t)size)) {
			std::fprintf(stderr, "cm_echo_cxx: message %d came back different\n", i);
			return 1;
		}
	}
	std::chrono::duration<double, std::micro> us = std::chrono::steady_clock::now() - t0;
	std::printf("cm_echo_cxx: %d messages of %d bytes echoed and checked, %.1f us per "
		    "round trip\n", msgs, size, us.count() / msgs);
	return 0;
}

} // namespace

int main(int argc, char **argv)
{
	const char *port = "7471";
	int clients = 1, c;

	std::setvbuf(stdout, NULL, _IOLBF, 0); /* the last line a failure prints is its reason */
	while ((c = getopt(argc, argv, "p:c:n:s:h")) != -1) {
		switch (c) {
		case 'p': port = optarg; break;
		case 'c': clients = std::atoi(optarg); break;
		case 'n': msgs = std::atoi(optarg); break;
		case 's': size = std::atoi(optarg); break;
		default:
			std::fprintf(stderr, "usage: %s [-p port] [-c clients] [-n messages] "
				     "[-s size] [server_host]\n", argv[0]);
			return 2;
		}
	}
	if (msgs < 1 || size < 1 || clients < 1) {
		std::fprintf(stderr, "cm_echo_cxx: -n, -s and -c must be positive\n");
		return 2;
	}
	try {
		return optind < argc ? client(argv[optind], port) : serve(port, clients);
	} catch (const vs::error &e) {
		/* the owners in the scopes it left have closed what they held */
		die(e.what());
	}
}
