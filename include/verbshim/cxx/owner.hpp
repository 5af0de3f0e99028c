// SPDX-License-Identifier: MIT
/*
 * verbshim for C++17 (verbshim.hpp): vs::owner<H>, the move-only owner
 * of each handle type whose destructor closes it (vs::context, vs::pd,
 * ...), and vs::ref<H>, a borrowed handle.
 */
#ifndef VERBSHIM_CXX_OWNER_HPP
#define VERBSHIM_CXX_OWNER_HPP

#include "verbshim/cxx/error.hpp"

namespace vs {

/* ---- owners ------------------------------------------------------------ */

/*
 * How each owned type is closed: the one place a close is named.  A
 * handle is held by its pointer; a destination (vs_ud_dest, vs_srd_dest)
 * by value, live while it has an AH, closed by its release.
 */
template <class H> struct closer;
#define VS__CXX_CLOSER(H, CLOSE)                                              \
	template <> struct closer<H> {                                        \
		using value_type = H *;                                       \
		static constexpr const char *name = #CLOSE;                   \
		static bool live(H *h) noexcept { return h != nullptr; }      \
		static int close(H **h) noexcept { return CLOSE(*h); }        \
	};
VS__CXX_CLOSER(vs_context, vs_device_close)
VS__CXX_CLOSER(vs_pd, vs_pd_close)
VS__CXX_CLOSER(vs_mr, vs_mr_close)
VS__CXX_CLOSER(vs_cq, vs_cq_close)
VS__CXX_CLOSER(vs_channel, vs_channel_close)
VS__CXX_CLOSER(vs_srq, vs_srq_close)
VS__CXX_CLOSER(vs_ah, vs_ah_close)
VS__CXX_CLOSER(vs_rc_qp, vs_rc_qp_close)
VS__CXX_CLOSER(vs_uc_qp, vs_uc_qp_close)
VS__CXX_CLOSER(vs_ud_qp, vs_ud_qp_close)
VS__CXX_CLOSER(vs_srd_qp, vs_srd_qp_close)
VS__CXX_CLOSER(vs_cm_id, vs_cm_close)
VS__CXX_CLOSER(vs_cm_channel, vs_cm_channel_close)
#undef VS__CXX_CLOSER
template <> struct closer<vs_ud_dest> {
	using value_type = vs_ud_dest;
	static constexpr const char *name = "vs_ud_dest_release";
	static bool live(const vs_ud_dest &d) noexcept { return d.ah != nullptr; }
	static int close(vs_ud_dest *d) noexcept { return vs_ud_dest_release(d); }
};
template <> struct closer<vs_srd_dest> {
	using value_type = vs_srd_dest;
	static constexpr const char *name = "vs_srd_dest_release";
	static bool live(const vs_srd_dest &d) noexcept { return d.base.ah != nullptr; }
	static int close(vs_srd_dest *d) noexcept { return vs_srd_dest_release(d); }
};

/*
 * The owner of one handle or destination: move-only, closed by its
 * destructor (whose error, if any, is left in vs_last_error()).  get()
 * gives the handle (H *), or the destination by reference.
 */
template <class H> class owner {
	using value = typename closer<H>::value_type;
	using got = std::conditional_t<std::is_pointer<value>::value, value, const value &>;

public:
	using handle_type = H;
	using dest_type = H; /* the name dest_owner<D> had */

	constexpr owner() noexcept : v_() {}
	/* Adopts v (the caller gives up its close). */
	explicit owner(const value &v) noexcept : v_(v) {}
	owner(const owner &) = delete;
	owner &operator=(const owner &) = delete;
	owner(owner &&o) noexcept : v_(std::exchange(o.v_, value())) {}
	owner &operator=(owner &&o) noexcept
	{
		if (this != &o) {
			reset();
			v_ = std::exchange(o.v_, value());
		}
		return *this;
	}
	~owner() { reset(); }

	got get() const noexcept { return v_; }
	explicit operator bool() const noexcept { return closer<H>::live(v_); }

	/*
	 * Closes now: ok, and empty after; on failure the handle is kept (the
	 * C close left it open) so that close() may be called again.  An
	 * empty owner closes to ok.
	 */
	status close() noexcept
	{
		int ret;

		if (!*this)
			return status();
		ret = closer<H>::close(&v_);
		if (ret)
			return failure::last(ret, closer<H>::name);
		v_ = value();
		return status();
	}
	/* Hands the handle back without closing it. */
	[[nodiscard]] value release() noexcept { return std::exchange(v_, value()); }

private:
	void reset() noexcept
	{
		if (*this)
			(void)closer<H>::close(&v_);
		v_ = value();
	}

	value v_;
};
/* The name a destination's owner had: the same template. */
template <class D> using dest_owner = owner<D>;

using context = owner<vs_context>;
using pd = owner<vs_pd>;
using mr = owner<vs_mr>;
using cq = owner<vs_cq>;
using channel = owner<vs_channel>;
using srq = owner<vs_srq>;
using ah = owner<vs_ah>;
using rc_qp = owner<vs_rc_qp>;
using uc_qp = owner<vs_uc_qp>;
using ud_qp = owner<vs_ud_qp>;
using srd_qp = owner<vs_srd_qp>;
using cm_id = owner<vs_cm_id>;
using cm_channel = owner<vs_cm_channel>;

/*
 * A borrowed handle: an owner's, or a raw one (not closed here).  Every
 * call below takes its handles this way, so an owner of another kind
 * does not convert.
 */
template <class H> class ref {
public:
	ref(const owner<H> &o) noexcept : h_(o.get()) {}
	ref(H *h) noexcept : h_(h) {}
	H *get() const noexcept { return h_; }

private:
	H *h_;
};

using ud_dest = owner<vs_ud_dest>;
using srd_dest = owner<vs_srd_dest>;

namespace detail {
/* A create: out is cleared by the C call; the owner adopts it on success. */
template <class O, class F> result<O> make(const char *call, F &&create) noexcept
{
	typename O::handle_type *h = nullptr;
	int ret = create(&h);

	if (ret)
		return failure::last(ret, call);
	return O(h);
}
template <class D, class F> result<owner<D>> make_dest(const char *call, F &&fill) noexcept
{
	D d = D();
	int ret = fill(&d);

	if (ret)
		return failure::last(ret, call);
	return owner<D>(d);
}
/*
 * A wait's failure: -EAGAIN (a timeout of 0 found nothing) is the one the
 * C calls do not record; a stale record must not stand in for it.
 */
inline failure waited(int ret, const char *call, int timeout_ms) noexcept
{
	if (ret == -EAGAIN) {
		char m[64];

		std::snprintf(m, sizeof(m), "nothing there (a wait of %d ms)", timeout_ms);
		return failure::made(EAGAIN, call, m);
	}
	return failure::last(ret, call);
}
} // namespace detail

} // namespace vs

#endif /* VERBSHIM_CXX_OWNER_HPP */
