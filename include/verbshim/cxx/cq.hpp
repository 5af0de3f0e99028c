// SPDX-License-Identifier: MIT
/*
 * verbshim for C++17 (verbshim.hpp): completion queues, completion
 * channels, polls and waits.
 */
#ifndef VERBSHIM_CXX_CQ_HPP
#define VERBSHIM_CXX_CQ_HPP

#include "verbshim/cxx/owner.hpp"
#include "verbshim/cxx/span.hpp"

namespace vs {

inline result<cq> cq_create(ref<vs_context> ctx, const vs_cq_config &cfg = {}) noexcept
{
	return detail::make<cq>("vs_cq_create", [&](vs_cq **o) { return vs_cq_create(ctx.get(), &cfg, o); });
}

inline result<channel> channel_create(ref<vs_context> ctx) noexcept
{
	return detail::make<channel>("vs_channel_create", [&](vs_channel **o) {
		return vs_channel_create(ctx.get(), o);
	});
}

/* ---- completions ------------------------------------------------------- */

/* How many completions went into wc (0: none there). */
inline result<int> cq_poll(ref<vs_cq> c, span<vs_wc> wc) noexcept
{
	int n = vs_cq_poll(c.get(), wc.data(), static_cast<int>(wc.size()));

	if (n < 0)
		return failure::last(n, "vs_cq_poll");
	return n;
}

/* As vs_cq_wait (the CQ needs a channel); a timeout is a failure (ETIMEDOUT, or EAGAIN for 0 ms). */
inline result<int> cq_wait(ref<vs_cq> c, int timeout_ms, span<vs_wc> wc) noexcept
{
	int n = vs_cq_wait(c.get(), timeout_ms, wc.data(), static_cast<int>(wc.size()));

	if (n < 0)
		return detail::waited(n, "vs_cq_wait", timeout_ms);
	return n;
}

} // namespace vs

#endif /* VERBSHIM_CXX_CQ_HPP */
