// SPDX-License-Identifier: MIT
/*
 * vs::cm_rc_serve with a before_accept callable (include/verbshim.hpp) on
 * the device under test (rxe or siw):
 *  - a lambda posts the server's receives on the new id's own PD and QP
 *    (its MR kept in an owner the lambda captured); the one-call client
 *    sends BURST messages at once after its connect (on iWARP once the
 *    serve returned: test/common/vs_siw_window.h); every byte checked
 *    at the server and in the echo; every completion a success (on
 *    iWARP the server leaves once the client has them: the close window);
 *  - a lambda returning -EPERM: the serve's result carries EPERM and the
 *    sentence naming before_accept, the client's is ECONNREFUSED.
 */
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <future>
#include <string>
#include <thread>

#include <verbshim.hpp>

namespace {

constexpr int MSG = 64, BURST = 4;
const char *ip;
char port[16];

[[noreturn]] void fail(int line, const char *what)
{
	std::printf("%s:%d: %s\n", __FILE__, line, what);
	std::exit(1);
}
#define CHECK(c) ((c) ? (void)0 : fail(__LINE__, #c))

std::uint8_t byte(int k, int seed)
{
	return (std::uint8_t)(seed * 131 + k * 7 + 1);
}

void post_recv(vs::ref<vs_rc_qp> qp, vs::ref<vs_mr> mr, std::uint64_t off)
{
	vs::recv_batch rb;

	rb.start(qp).value();
	rb.add(off, vs_mr_sge(mr.get(), off, MSG)).value();
	rb.submit().value();
}

void post_send(vs::ref<vs_rc_qp> qp, vs::ref<vs_mr> mr, std::uint64_t off)
{
	vs::rc_batch b;

	b.start(qp).value();
	b.send(off, VS_WR_SIGNALED, vs_mr_sge(mr.get(), off, MSG)).value();
	b.submit().value();
}

/* n successful completions of cq within 20 s */
void wait_ok(vs::ref<vs_cq> cq, int n)
{
	auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
	vs_wc wc;

	while (n > 0) {
		if (vs::cq_poll(cq, wc).value() == 0) {
			if (std::chrono::steady_clock::now() > deadline)
				fail(__LINE__, "completions missing after 20 s");
			std::this_thread::yield();
			continue;
		}
		if (wc.status != IBV_WC_SUCCESS)
			fail(__LINE__, ibv_wc_status_str(wc.status));
		n--;
	}
}

void await_disconnect(vs::ref<vs_cm_id> id)
{
	while (vs::cm_next(id, 20000).value().ev.type != RDMA_CM_EVENT_DISCONNECTED)
		;
}

/*
 * siw's accept window (test/common/vs_siw_window.h): on iWARP the client's
 * burst waits until the serve returned
 */
bool iwarp(vs::ref<vs_cm_id> id)
{
	struct vs_port_info pi;

	CHECK(vs_port_info(vs_cm_context(id.get()), 1, &pi) == 0);
	return pi.kind == VS_LINK_IWARP;
}

void server(vs::ref<vs_cm_id> l, std::promise<void> *accepted, std::future<void> *completed)
{
	vs::mr mr;
	int calls = 0;
	vs_cm_conn_config conn{};
	conn.timeout_ms = 20000;
	auto posted = [&](vs::ref<vs_cm_id> id) noexcept -> int {
		auto m = vs::mr_alloc(vs_cm_pd(id.get()), (BURST + 1) * MSG);

		calls++;
		if (!m)
			return -m.code().value();
		mr = std::move(m).value();
		for (int k = 0; k < BURST; k++) {
			vs::recv_batch rb;

			if (!rb.start(vs_cm_rc_qp(id.get())) ||
			    !rb.add((std::uint64_t)k, vs_mr_sge(mr.get(), (std::uint64_t)k * MSG, MSG)) ||
			    !rb.submit())
				return -EIO;
		}
		return 0;
	};
	vs::cm_id c = vs::cm_rc_serve(l, posted, conn).value();
	accepted->set_value();
	auto *m = static_cast<std::uint8_t *>(vs_mr_ptr(mr.get(), 0));

	CHECK(calls == 1);
	wait_ok(vs_cm_cq(c.get()), BURST);
	for (int k = 0; k < BURST * MSG; k++)
		CHECK(m[k] == byte(k % MSG, k / MSG));
	for (int k = 0; k < MSG; k++)
		m[BURST * MSG + k] = (std::uint8_t)~byte(k, 9);
	post_send(vs_cm_rc_qp(c.get()), mr, BURST * MSG);
	wait_ok(vs_cm_cq(c.get()), 1);
	/*
	 * the server ends it once its echo is acked; on iWARP once the client
	 * has its completions too: siw fails a delivered send whose sender
	 * sees the close before its completion (test/common/vs_siw_window.h)
	 */
	if (iwarp(c) && completed->wait_for(std::chrono::seconds(20)) !=
				std::future_status::ready)
		fail(__LINE__, "the client did not have its completions within 20 s");
	vs::cm_disconnect(c).value();
	await_disconnect(c);
}

void test_burst(vs::ref<vs_cm_id> l)
{
	std::promise<void> accepted, completed;
	std::future<void> serve_returned = accepted.get_future();
	std::future<void> client_completed = completed.get_future();
	std::thread t(server, l, &accepted, &client_completed);
	vs_cm_conn_config conn{};
	conn.timeout_ms = 20000;
	vs::cm_id id = vs::cm_rc_client(ip, port, {}, conn).value();
	vs::mr mr = vs::mr_alloc(vs_cm_pd(id.get()), (BURST + 1) * MSG).value();
	auto *m = static_cast<std::uint8_t *>(vs_mr_ptr(mr.get(), 0));
	vs_rc_qp *qp = vs_cm_rc_qp(id.get());

	post_recv(qp, mr, BURST * MSG);
	if (iwarp(id) && serve_returned.wait_for(std::chrono::seconds(20)) !=
			 std::future_status::ready)
		fail(__LINE__, "the serve did not return within 20 s");
	for (int k = 0; k < BURST * MSG; k++)
		m[k] = byte(k % MSG, k / MSG);
	for (int k = 0; k < BURST; k++)
		post_send(qp, mr, (std::uint64_t)k * MSG);
	wait_ok(vs_cm_cq(id.get()), BURST + 1);
	completed.set_value();
	for (int k = 0; k < MSG; k++)
		CHECK(m[BURST * MSG + k] == (std::uint8_t)~byte(k, 9));
	await_disconnect(id);
	vs::cm_disconnect(id).value();
	t.join();
	std::printf("burst: %d messages sent at once after the connect, into receives "
		    "a lambda posted; bytes and the echo checked\n", BURST);
}

void test_refusal(vs::ref<vs_cm_id> l)
{
	std::error_code served;
	std::string msg;
	std::thread t([&] {
		auto r = vs::cm_rc_serve(l, [](vs::ref<vs_cm_id>) noexcept { return -EPERM; });

		CHECK(!r);
		served = r.code();
		msg = vs_last_error()->message;
	});
	vs_cm_conn_config conn{};
	conn.timeout_ms = 20000;
	auto c = vs::cm_rc_client(ip, port, {}, conn);

	t.join();
	CHECK(!c);
	CHECK(c.code() == std::errc::connection_refused);
	CHECK(served == std::errc::operation_not_permitted);
	CHECK(msg.find("before_accept failed") != std::string::npos);
	std::printf("refusal: the lambda's -EPERM is the serve's, the client refused\n");
}

} // namespace

int main()
{
	ip = std::getenv("VS_RXE_IP");
	if (!std::getenv("VERBSHIM_IN_VM") || !ip) {
		std::printf("skip: needs the SoftRoCE VM (VS_RXE_IP): run it with scripts/vm-run.sh\n");
		return 77;
	}
	std::setvbuf(stdout, nullptr, _IOLBF, 0);
	vs::cm_id l = vs::cm_listen(ip, "0").value();
	std::snprintf(port, sizeof(port), "%u", vs_cm_port(l.get()));
	test_burst(l);
	test_refusal(l);
	std::printf("ok\n");
	return 0;
}
