// SPDX-License-Identifier: MIT
/*
 * verbshim for C++17 (verbshim.hpp): the connection manager.
 */
#ifndef VERBSHIM_CXX_CM_HPP
#define VERBSHIM_CXX_CM_HPP

#include "verbshim/cxx/owner.hpp"

namespace vs {

/* ---- connection manager ------------------------------------------------ */

inline result<cm_channel> cm_channel_create() noexcept
{
	return detail::make<cm_channel>("vs_cm_channel_create",
					[](vs_cm_channel **o) { return vs_cm_channel_create(o); });
}

inline result<cm_id> cm_resolve(const char *host, const char *port,
				const vs_cm_config &cfg = {}) noexcept
{
	return detail::make<cm_id>("vs_cm_resolve", [&](vs_cm_id **o) {
		return vs_cm_resolve(host, port, &cfg, o);
	});
}

inline result<cm_id> cm_resolve_addr(const sockaddr *dst, const vs_cm_config &cfg = {}) noexcept
{
	return detail::make<cm_id>("vs_cm_resolve_addr", [&](vs_cm_id **o) {
		return vs_cm_resolve_addr(dst, &cfg, o);
	});
}

inline result<cm_id> cm_listen(const char *host, const char *port,
			       const vs_cm_config &cfg = {}) noexcept
{
	return detail::make<cm_id>("vs_cm_listen", [&](vs_cm_id **o) {
		return vs_cm_listen(host, port, &cfg, o);
	});
}

inline result<cm_id> cm_create_ep(const char *host, const char *port,
				  const rdma_addrinfo *hints,
				  const vs_cm_config &cfg = {}) noexcept
{
	return detail::make<cm_id>("vs_cm_create_ep", [&](vs_cm_id **o) {
		return vs_cm_create_ep(host, port, hints, &cfg, o);
	});
}

/* A connect request to listener (a timeout is a failure). */
inline result<cm_id> cm_get_request(ref<vs_cm_id> listener, int timeout_ms) noexcept
{
	vs_cm_id *id = nullptr;
	int ret = vs_cm_get_request(listener.get(), timeout_ms, &id);

	if (ret)
		return detail::waited(ret, "vs_cm_get_request", timeout_ms);
	return cm_id(id);
}

inline result<cm_id> cm_rc_client(const char *host, const char *port,
				  const vs_cm_config &cfg = {},
				  const vs_cm_conn_config &conn = {},
				  const vs_rc_config &qp_cfg = {}) noexcept
{
	return detail::make<cm_id>("vs_cm_rc_client", [&](vs_cm_id **o) {
		return vs_cm_rc_client(host, port, &cfg, &conn, &qp_cfg, o);
	});
}

inline result<cm_id> cm_rc_serve(ref<vs_cm_id> listener, const vs_cm_conn_config &conn = {},
				 const vs_rc_config &qp_cfg = {}) noexcept
{
	return detail::make<cm_id>("vs_cm_rc_serve", [&](vs_cm_id **o) {
		return vs_cm_rc_serve(listener.get(), &conn, &qp_cfg, o);
	});
}

/*
 * cm_rc_serve with a step before the accept: before_accept(ref<vs_cm_id>)
 * returns 0, or a negative errno that rejects the client; it runs once
 * the id's PD, CQ and QP exist (vs_cm_pd(), vs_cm_rc_qp()), the place to
 * post the first receives (iWARP has no RNR retry).  It must not throw:
 * it is called from C (an exception there ends the program).
 */
template <class F,
	  class = std::enable_if_t<std::is_invocable_r_v<int, F &, ref<vs_cm_id>>>>
inline result<cm_id> cm_rc_serve(ref<vs_cm_id> listener, F &&before_accept,
				 vs_cm_conn_config conn = {},
				 const vs_rc_config &qp_cfg = {}) noexcept
{
	using fn = std::remove_reference_t<F>;

	conn.comp_mask |= VS_CM_CONN_BEFORE_ACCEPT;
	conn.before_accept = [](vs_cm_id *id, void *arg) noexcept -> int {
		return (*static_cast<fn *>(arg))(ref<vs_cm_id>(id));
	};
	conn.before_accept_arg = const_cast<void *>(static_cast<const void *>(&before_accept));
	return detail::make<cm_id>("vs_cm_rc_serve", [&](vs_cm_id **o) {
		return vs_cm_rc_serve(listener.get(), &conn, &qp_cfg, o);
	});
}

inline result<rc_qp> cm_rc_qp_create(ref<vs_cm_id> id, ref<vs_pd> p, const vs_rc_config &cfg) noexcept
{
	return detail::make<rc_qp>("vs_cm_rc_qp_create", [&](vs_rc_qp **o) {
		return vs_cm_rc_qp_create(id.get(), p.get(), &cfg, o);
	});
}

inline result<ud_qp> cm_ud_qp_create(ref<vs_cm_id> id, ref<vs_pd> p, const vs_ud_config &cfg) noexcept
{
	return detail::make<ud_qp>("vs_cm_ud_qp_create", [&](vs_ud_qp **o) {
		return vs_cm_ud_qp_create(id.get(), p.get(), &cfg, o);
	});
}

inline result<ud_dest> cm_ud_dest(ref<vs_cm_id> id) noexcept
{
	return detail::make_dest<vs_ud_dest>("vs_cm_ud_dest", [&](vs_ud_dest *d) {
		return vs_cm_ud_dest(id.get(), d);
	});
}

inline status cm_connect(ref<vs_cm_id> id, const vs_cm_conn_config &cfg = {}) noexcept
{
	return detail::check(vs_cm_connect(id.get(), &cfg), "vs_cm_connect");
}

inline status cm_accept(ref<vs_cm_id> id, const vs_cm_conn_config &cfg = {}) noexcept
{
	return detail::check(vs_cm_accept(id.get(), &cfg), "vs_cm_accept");
}

inline status cm_reject(ref<vs_cm_id> id, const void *private_data = nullptr,
			std::uint8_t len = 0) noexcept
{
	return detail::check(vs_cm_reject(id.get(), private_data, len), "vs_cm_reject");
}

inline status cm_disconnect(ref<vs_cm_id> id) noexcept
{
	return detail::check(vs_cm_disconnect(id.get()), "vs_cm_disconnect");
}

inline status cm_join(ref<vs_cm_id> id, const char *group, int timeout_ms) noexcept
{
	return detail::check(vs_cm_join(id.get(), group, timeout_ms), "vs_cm_join");
}

inline status cm_leave(ref<vs_cm_id> id) noexcept
{
	return detail::check(vs_cm_leave(id.get()), "vs_cm_leave");
}

/*
 * A CM event.  ev is the C event; for RDMA_CM_EVENT_CONNECT_REQUEST the
 * new id (ev.id) is the caller's, owned by request.
 */
struct cm_event {
	vs_cm_event ev;
	cm_id request;
};

namespace detail {
inline result<cm_event> cm_event_of(int ret, const vs_cm_event &ev, const char *call,
				    int timeout_ms) noexcept
{
	if (ret)
		return waited(ret, call, timeout_ms);

	cm_event e{ ev, cm_id() };

	if (ev.type == RDMA_CM_EVENT_CONNECT_REQUEST)
		e.request = cm_id(ev.id);
	return e;
}
} // namespace detail

/* The id's next event (a timeout is a failure). */
inline result<cm_event> cm_next(ref<vs_cm_id> id, int timeout_ms) noexcept
{
	vs_cm_event ev;
	int ret = vs_cm_next(id.get(), timeout_ms, &ev);

	return detail::cm_event_of(ret, ev, "vs_cm_next", timeout_ms);
}

/* The next event of any id on ch (a timeout is a failure). */
inline result<cm_event> cm_channel_next(ref<vs_cm_channel> ch, int timeout_ms) noexcept
{
	vs_cm_event ev;
	int ret = vs_cm_channel_next(ch.get(), timeout_ms, &ev);

	return detail::cm_event_of(ret, ev, "vs_cm_channel_next", timeout_ms);
}

} // namespace vs

#endif /* VERBSHIM_CXX_CM_HPP */
