// SPDX-License-Identifier: MIT
/*
 * verbshim for C++17 (verbshim.hpp): SRQs and QPs, their endpoints and
 * bring-up.
 */
#ifndef VERBSHIM_CXX_QP_HPP
#define VERBSHIM_CXX_QP_HPP

#include "verbshim/cxx/owner.hpp"

namespace vs {

inline result<srq> srq_create(ref<vs_pd> p, const vs_srq_config &cfg = {}) noexcept
{
	return detail::make<srq>("vs_srq_create", [&](vs_srq **o) { return vs_srq_create(p.get(), &cfg, o); });
}

inline result<rc_qp> rc_qp_create(ref<vs_pd> p, const vs_rc_config &cfg) noexcept
{
	return detail::make<rc_qp>("vs_rc_qp_create", [&](vs_rc_qp **o) {
		return vs_rc_qp_create(p.get(), &cfg, o);
	});
}

inline result<uc_qp> uc_qp_create(ref<vs_pd> p, const vs_uc_config &cfg) noexcept
{
	return detail::make<uc_qp>("vs_uc_qp_create", [&](vs_uc_qp **o) {
		return vs_uc_qp_create(p.get(), &cfg, o);
	});
}

inline result<ud_qp> ud_qp_create(ref<vs_pd> p, const vs_ud_config &cfg) noexcept
{
	return detail::make<ud_qp>("vs_ud_qp_create", [&](vs_ud_qp **o) {
		return vs_ud_qp_create(p.get(), &cfg, o);
	});
}

inline result<srd_qp> srd_qp_create(ref<vs_pd> p, const vs_srd_config &cfg) noexcept
{
	return detail::make<srd_qp>("vs_srd_qp_create", [&](vs_srd_qp **o) {
		return vs_srd_qp_create(p.get(), &cfg, o);
	});
}

/* ---- endpoints and bring-up -------------------------------------------- */

#define VS__CXX_ENDPOINT(T)                                                   \
	inline result<vs_endpoint> T##_endpoint(ref<vs_##T##_qp> qp) noexcept \
	{                                                                     \
		vs_endpoint ep;                                               \
		int ret = vs_##T##_endpoint(qp.get(), &ep);                   \
		if (ret)                                                      \
			return failure::last(ret, "vs_" #T "_endpoint");      \
		return ep;                                         \
	}
VS__CXX_ENDPOINT(rc)
VS__CXX_ENDPOINT(uc)
VS__CXX_ENDPOINT(ud)
VS__CXX_ENDPOINT(srd)
#undef VS__CXX_ENDPOINT

inline status rc_handshake(ref<vs_rc_qp> qp, const vs_endpoint &remote) noexcept
{
	return detail::check(vs_rc_handshake(qp.get(), &remote), "vs_rc_handshake");
}

inline status uc_handshake(ref<vs_uc_qp> qp, const vs_endpoint &remote) noexcept
{
	return detail::check(vs_uc_handshake(qp.get(), &remote), "vs_uc_handshake");
}

inline result<ud_dest> ud_handshake(ref<vs_ud_qp> qp, const vs_endpoint &remote) noexcept
{
	return detail::make_dest<vs_ud_dest>("vs_ud_handshake", [&](vs_ud_dest *d) {
		return vs_ud_handshake(qp.get(), &remote, d);
	});
}

inline result<srd_dest> srd_handshake(ref<vs_srd_qp> qp, const vs_endpoint &remote) noexcept
{
	return detail::make_dest<vs_srd_dest>("vs_srd_handshake", [&](vs_srd_dest *d) {
		return vs_srd_handshake(qp.get(), &remote, d);
	});
}

} // namespace vs

#endif /* VERBSHIM_CXX_QP_HPP */
