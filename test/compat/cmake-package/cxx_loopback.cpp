// SPDX-License-Identifier: MIT
/*
 * cxx_loopback: a C++17 program that uses verbshim's C API through
 * <verbshim.h>, as a C++ user of the installed package would: one RC QP
 * connected to itself, a SEND (with immediate) and an RDMA WRITE, every
 * byte that arrived checked.  The handles are held by std::unique_ptr with
 * the vs_*_close() functions as deleters.
 *
 *   cxx_loopback [-d DEV]      (default: $VS_RXE_DEV, else the first)
 *
 * Exit: 0 every byte matched, 1 failure, 77 no RDMA device.
 */
#include <verbshim.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>

namespace {

template <typename T, int (*Close)(T *)> struct closer {
	void operator()(T *p) const { Close(p); }
};
template <typename T, int (*Close)(T *)> using owner = std::unique_ptr<T, closer<T, Close>>;

[[noreturn]] void die(const char *what)
{
	char buf[600];

	std::fprintf(stderr, "%s failed: %s\n", what, vs_format_error(vs_last_error(), buf, sizeof(buf)));
	std::exit(1);
}

void check(int ret, const char *what)
{
	if (ret < 0)
		die(what);
}

int wait(vs_cq *cq, vs_wc *wc, int n)
{
	auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
	int got = 0;

	while (got < n) {
		int r = vs_cq_poll(cq, wc + got, n - got);

		if (r < 0)
			die("vs_cq_poll");
		got += r;
		if (!r && std::chrono::steady_clock::now() > deadline)
			break;
		if (!r)
			std::this_thread::yield();
	}
	return got;
}

} // namespace

int main(int argc, char **argv)
{
	const char *env = std::getenv("VS_RXE_DEV");
	const char *dev = env && *env ? env : nullptr;

	if (argc == 3 && std::strcmp(argv[1], "-d") == 0)
		dev = argv[2];

	vs_context *c;
	int rc = vs_device_open(dev, &c);
	if (rc == -ENODEV || rc == -ENOSYS || rc == -EOPNOTSUPP) {
		std::printf("no RDMA device here: %s\n", std::strerror(-rc));
		return 77;
	}
	check(rc, "vs_device_open");
	owner<vs_context, vs_device_close> ctx(c);

	vs_pd *p;
	check(vs_pd_alloc(ctx.get(), &p), "vs_pd_alloc");
	owner<vs_pd, vs_pd_close> pd(p);
	vs_cq *q;
	vs_cq_config cqc{};
	cqc.depth = 16;
	check(vs_cq_create(ctx.get(), &cqc, &q), "vs_cq_create");
	owner<vs_cq, vs_cq_close> cq(q);
	vs_mr *m;
	check(vs_mr_alloc(pd.get(), 4096, 0, &m), "vs_mr_alloc");
	owner<vs_mr, vs_mr_close> mr(m);
	vs_rc_qp *r;
	vs_rc_config rcc{};
	rcc.send_cq = cq.get();
	check(vs_rc_qp_create(pd.get(), &rcc, &r), "vs_rc_qp_create");
	owner<vs_rc_qp, vs_rc_qp_close> qp(r);

	vs_endpoint ep;
	check(vs_rc_endpoint(qp.get(), &ep), "vs_rc_endpoint");
	check(vs_rc_handshake(qp.get(), &ep), "vs_rc_handshake");

	auto *mem = static_cast<unsigned char *>(vs_mr_ptr(mr.get(), 0));
	for (int i = 0; i < 256; i++)
		mem[i] = static_cast<unsigned char>(i * 7 + 1);
	std::memset(mem + 1024, 0, 512);

	// SEND with immediate into a posted receive.
	ibv_sge rsge = vs_mr_sge(mr.get(), 1024, 256);
	ibv_sge ssge = vs_mr_sge(mr.get(), 0, 256);
	vs_recv_batch rb;
	check(vs_rc_recv_start(qp.get(), &rb), "vs_rc_recv_start");
	check(vs_recv_add(&rb, 1, &rsge, 1), "vs_recv_add");
	check(vs_recv_submit(&rb), "vs_recv_submit");
	vs_rc_batch b;
	check(vs_rc_batch_start(qp.get(), &b), "vs_rc_batch_start");
	check(vs_rc_send_imm(&b, 2, VS_WR_SIGNALED, 0xC0FFEE, &ssge, 1), "vs_rc_send_imm");
	check(vs_rc_batch_submit(&b), "vs_rc_batch_submit");
	vs_wc wc[2];
	if (wait(cq.get(), wc, 2) != 2) {
		std::fprintf(stderr, "send: completions missing\n");
		return 1;
	}
	for (const vs_wc &w : wc)
		if (w.status != IBV_WC_SUCCESS) {
			std::fprintf(stderr, "send: wr %llu status %s\n", static_cast<unsigned long long>(w.wr_id),
				     ibv_wc_status_str(w.status));
			return 1;
		}
	if (std::memcmp(mem, mem + 1024, 256) != 0) {
		std::fprintf(stderr, "send: the bytes that arrived differ\n");
		return 1;
	}

	// RDMA WRITE to the MR's other half.
	check(vs_rc_batch_start(qp.get(), &b), "vs_rc_batch_start");
	check(vs_rc_write(&b, 3, VS_WR_SIGNALED, &ssge, 1, vs_mr_remote(mr.get(), 2048)), "vs_rc_write");
	check(vs_rc_batch_submit(&b), "vs_rc_batch_submit");
	if (wait(cq.get(), wc, 1) != 1 || wc[0].status != IBV_WC_SUCCESS || wc[0].wr_id != 3) {
		std::fprintf(stderr, "write: no successful completion\n");
		return 1;
	}
	if (std::memcmp(mem, mem + 2048, 256) != 0) {
		std::fprintf(stderr, "write: the bytes that arrived differ\n");
		return 1;
	}
	std::printf("cxx_loopback: %s: send (imm) and write, every byte matched\n",
		    dev ? dev : "first device");
	return 0;
}
