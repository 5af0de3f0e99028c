// SPDX-License-Identifier: MIT
/*
 * verbshim for C++17 (verbshim.hpp): a device and its protection domains
 * (vs_NAME(args, &out) is vs::NAME(args)).
 */
#ifndef VERBSHIM_CXX_DEVICE_HPP
#define VERBSHIM_CXX_DEVICE_HPP

#include "verbshim/cxx/owner.hpp"

namespace vs {

/* ---- creates: vs_NAME(args, &out) is vs::NAME(args) -------------------- */

inline result<context> device_open(const char *name = nullptr) noexcept
{
	return detail::make<context>("vs_device_open", [&](vs_context **o) {
		return vs_device_open(name, o);
	});
}

inline result<pd> pd_alloc(ref<vs_context> ctx) noexcept
{
	return detail::make<pd>("vs_pd_alloc", [&](vs_pd **o) { return vs_pd_alloc(ctx.get(), o); });
}

} // namespace vs

#endif /* VERBSHIM_CXX_DEVICE_HPP */
