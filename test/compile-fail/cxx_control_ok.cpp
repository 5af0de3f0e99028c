/* SPDX-License-Identifier: MIT */
/* control: correct use of the C++ owners must compile cleanly (C++17, C++20) */
/* expect: OK */
#include <array>
#include <vector>

#include <verbshim.hpp>

vs::status use(const vs::rc_qp &rc, const vs::ud_qp &ud, const vs::ud_dest &dest,
	       const vs::mr &mr);

vs::status use(const vs::rc_qp &rc, const vs::ud_qp &ud, const vs::ud_dest &dest,
	       const vs::mr &mr)
{
	ibv_sge one = vs_mr_sge(mr.get(), 0, 64);
	ibv_sge two[2] = { one, one };
	std::vector<ibv_sge> vec(two, two + 2);
	std::array<ibv_sge, 2> arr = { { one, one } };
	vs::rc_batch b;
	vs::ud_batch d;
	vs::recv_batch r;

	if (auto s = b.start(rc); !s)
		return s;
	if (!b.send(1, VS_WR_SIGNALED, one) || !b.send(2, 0, two) || !b.send(3, 0, vec) ||
	    !b.write(4, 0, arr, vs_mr_remote(mr.get(), 0)) || !b.send(5, 0, { one, one }) ||
	    !b.cas(6, 0, one, vs_mr_remote(mr.get(), 8), 1, 2) || !b.send(7, 0, vs::sges(two, 2)))
		return b.submit();
	if (auto s = b.submit(); !s)
		return s;
	if (auto s = d.start(ud); !s)
		return s;
	if (auto s = d.send(8, 0, dest, one); !s)
		return s;
	if (auto s = d.submit(); !s)
		return s;
	if (auto s = r.start(rc); !s)
		return s;
	if (auto s = r.add(9, one); !s)
		return s;
	return r.submit();
}

vs::result<vs::rc_qp> make(const char *dev);

vs::result<vs::rc_qp> make(const char *dev)
{
	auto ctx = vs::device_open(dev);
	if (!ctx)
		return ctx.error();
	vs::pd pd = vs::pd_alloc(*ctx).value();
	vs::cq cq = vs::cq_create(*ctx).value();
	vs::channel ch = vs::channel_create(*ctx).value();
	vs::srq srq = vs::srq_create(pd).value();
	vs::mr mr = vs::mr_alloc(pd, 4096).value();
	vs_rc_config cfg{};
	cfg.send_cq = cq.get();
	cfg.srq = srq.get();
	auto qp = vs::rc_qp_create(pd, cfg);
	if (!qp)
		return qp;
	vs_endpoint ep = vs::rc_endpoint(*qp).value();
	vs::rc_handshake(*qp, ep).value();
	vs_ud_config ucfg{};
	ucfg.send_cq = cq.get();
	vs::ud_qp ud = vs::ud_qp_create(pd, ucfg).value();
	vs::ud_dest dest = vs::ud_handshake(ud, vs::ud_endpoint(ud).value()).value();
	vs_wc wc[4];
	int n = vs::cq_poll(cq, wc).value();
	(void)n;
	vs::ah ah;
	vs::mr moved = std::move(mr);
	(void)moved.close();
	return qp;
}

vs::status cm(const char *host);

vs::status cm(const char *host)
{
	vs::cm_channel ch = vs::cm_channel_create().value();
	vs_cm_config cfg{};
	cfg.comp_mask = VS_CM_CONFIG_CHANNEL;
	cfg.channel = ch.get();
	cfg.no_wait = true;
	vs::cm_id l = vs::cm_listen(nullptr, "7471", cfg).value();
	vs::cm_id c = vs::cm_rc_client(host, "7471").value();
	vs::pd pd = vs::pd_alloc(vs_cm_context(c.get())).value();
	vs::mr mr = vs::mr_alloc(vs_cm_pd(c.get()), 64).value();
	auto ev = vs::cm_channel_next(ch, 0);
	if (ev && ev->ev.type == RDMA_CM_EVENT_CONNECT_REQUEST) {
		vs::cm_id req = std::move(ev->request);
		return vs::cm_reject(req);
	}
	return vs::cm_disconnect(c);
}
