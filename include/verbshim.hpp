// SPDX-License-Identifier: MIT
/*
 * verbshim for C++17: owners over the typed C API (verbshim.h) and nothing
 * else.  Header only; docs/API.md ("C++") has the reference.
 *
 *  - vs::owner<H>: one move-only owner per handle type (vs::context,
 *    vs::pd, vs::mr, vs::cq, vs::channel, vs::srq, vs::ah, vs::rc_qp,
 *    vs::uc_qp, vs::ud_qp, vs::srd_qp, vs::cm_id, vs::cm_channel) whose
 *    destructor closes it; close() gives the close's error and keeps the
 *    handle when it failed (the C rule: close it again to retry).
 *    vs::ud_dest and vs::srd_dest own a destination (its AH).
 *  - vs::result<T> (vs::status for no value): the value or a copy of the
 *    thread's error record (vs_last_error()) taken when the call failed
 *    (out of line: a status is two words); code() is its std::error_code.  Nothing throws unless asked:
 *    value() throws vs::error (a std::system_error whose what() is the
 *    record's line) when there is no value.
 *  - vs::rc_batch, uc_batch, ud_batch, srd_batch, recv_batch: a batch
 *    that its destructor aborts unless it was submitted.
 *  - vs::span<T> (vs::sges: SGE lists): a pointer and a count, from one
 *    element, an array, a braced list (as an argument), or any contiguous
 *    container with data() and size() (std::vector, std::array, C++20
 *    std::span).
 *  - vs::ref<H>: a borrowed handle, from an owner or a raw pointer (the
 *    handles a CM id owns: vs_cm_pd(), vs_cm_rc_qp(), ...).  Every raw
 *    handle is .get() of its owner, for the C calls this layer leaves
 *    alone (the data path inlines: vs_mr_sge, vs_cq_poll, ...).
 */
#ifndef VERBSHIM_HPP
#define VERBSHIM_HPP

#if !defined(__cplusplus) || __cplusplus < 201703L
#error "verbshim.hpp needs C++17 or later"
#endif

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <atomic>
#include <cstring>
#include <initializer_list>
#include <new>
#include <optional>
#include <system_error>
#include <type_traits>
#include <utility>

#include "verbshim.h"

namespace vs {

/* ---- errors ------------------------------------------------------------ */

namespace detail {
/*
 * A failure's copy of the error record, out of line: made on the failure
 * path only, never changed after, shared by the failure's copies.
 */
struct failure_rec {
	mutable std::atomic<unsigned int> refs;
	vs_error rec;
};
} // namespace detail

#if defined(__GNUC__)
#define VS__CXX_COLD __attribute__((cold, noinline))
#else
#define VS__CXX_COLD
#endif

/*
 * A failed call: its error record (call, verb, errno, the sentences), or
 * nothing (ok()) after a success.  Two words, so that a result of the
 * data path (a batch's add, a poll) stays small: the errno, and the
 * record copied at the failure into a block of its own (copies of the
 * failure share it).  What a failure reads is what the thread's record
 * said when the call failed, whatever failed after.  If that block
 * cannot be allocated (out of memory) the failure keeps the errno and the
 * call only (see message()).
 */
class failure {
public:
	failure() noexcept : err_(0), kept_(false), p_(nullptr) {}
	failure(const failure &o) noexcept : err_(o.err_), kept_(o.kept_), p_(o.p_)
	{
		if (kept_)
			rec()->refs.fetch_add(1, std::memory_order_relaxed);
	}
	failure(failure &&o) noexcept : err_(o.err_), kept_(o.kept_), p_(o.p_)
	{
		o.forget();
	}
	failure &operator=(const failure &o) noexcept
	{
		failure c(o);

		swap(c);
		return *this;
	}
	failure &operator=(failure &&o) noexcept
	{
		failure c(std::move(o));

		swap(c);
		return *this;
	}
	~failure() { drop(); }

	/*
	 * The failure ret (a negative errno) of a call that recorded it: a
	 * copy of the thread's record, or, if the record does not hold this
	 * errno (a call that does not record, as a timeout), one naming only
	 * call and the errno.
	 */
	VS__CXX_COLD static failure last(int ret, const char *call) noexcept
	{
		const vs_error *e = vs_last_error();

		if (e->err == -ret && e->call)
			return failure(*e);
		return made(-ret, call, "");
	}

	/* A failure this layer finds itself (no C call made). */
	VS__CXX_COLD static failure made(int err, const char *call, const char *message) noexcept
	{
		vs_error e;

		e.call = call;
		e.verb = nullptr;
		e.err = err;
		e.batch_posted = 0;
		std::strncpy(e.message, message, sizeof(e.message) - 1);
		e.message[sizeof(e.message) - 1] = 0;
		return failure(e);
	}

	bool ok() const noexcept { return err_ == 0; }
	/* The errno, in std::generic_category(); empty when ok(). */
	std::error_code code() const noexcept
	{
		return std::error_code(err_, std::generic_category());
	}
	/* The vs_ call that failed, the provider function (or nullptr). */
	const char *call() const noexcept { return kept_ ? rec()->rec.call : static_cast<const char *>(p_); }
	const char *verb() const noexcept { return kept_ ? rec()->rec.verb : nullptr; }
	/*
	 * The record's sentences ("" when ok(), or when none was recorded;
	 * without a copy of the record, out of memory: a sentence saying so).
	 */
	const char *message() const noexcept
	{
		if (kept_)
			return rec()->rec.message;
		return ok() ? "" : "(this failure's error record was not kept: out of memory)";
	}
	/*
	 * After a failed submit: its first WRs that went out (vs_error); -1
	 * ("the provider did not say") without a copy of the record.
	 */
	long batch_posted() const noexcept
	{
		if (kept_)
			return rec()->rec.batch_posted;
		return ok() ? 0 : -1;
	}
	/*
	 * The whole record, as vs_last_error() gave it (its message: only
	 * when !ok()).  Without a copy of the record (out of memory) one of
	 * the thread's, remade from call(), code() and message() at each
	 * call: valid until the thread's next record() of such a failure.
	 */
	const vs_error &record() const noexcept
	{
		static const vs_error none = vs_error();

		if (kept_)
			return rec()->rec;
		if (ok())
			return none;
		return unkept();
	}
	/* One line: "call: verb: strerror: message" (vs_format_error). */
	const char *format(char *buf, std::size_t len) const noexcept
	{
		return vs_format_error(ok() ? nullptr : &record(), buf, len);
	}

private:
	/* the failure path: the record copied out of line */
	explicit failure(const vs_error &e) noexcept : err_(e.err), kept_(false), p_(e.call)
	{
		detail::failure_rec *r = new (std::nothrow) detail::failure_rec;

		if (!r)
			return;
		r->refs.store(1, std::memory_order_relaxed);
		r->rec = e;
		kept_ = true;
		p_ = r;
	}
	VS__CXX_COLD const vs_error &unkept() const noexcept
	{
		static thread_local vs_error scratch;

		scratch.call = call();
		scratch.verb = nullptr;
		scratch.err = err_;
		scratch.batch_posted = -1;
		std::snprintf(scratch.message, sizeof(scratch.message), "%s", message());
		return scratch;
	}
	void swap(failure &o) noexcept
	{
		std::swap(err_, o.err_);
		std::swap(kept_, o.kept_);
		std::swap(p_, o.p_);
	}
	void forget() noexcept
	{
		err_ = 0;
		kept_ = false;
		p_ = nullptr;
	}
	const detail::failure_rec *rec() const noexcept
	{
		return static_cast<const detail::failure_rec *>(p_);
	}
	void drop() noexcept
	{
		if (kept_ && rec()->refs.fetch_sub(1, std::memory_order_acq_rel) == 1)
			delete rec();
	}

	int err_;       /* 0: ok */
	bool kept_;     /* p_ is the copy of the record, else the call */
	const void *p_;
};

/*
 * Thrown by result::value() without a value, and only there: what() is
 * the record's line (vs_format_error), code() its errno.
 */
class error : public std::system_error {
public:
	explicit error(const vs::failure &f) : std::system_error(f.code()), failure_(f)
	{
		f.format(line_, sizeof(line_));
	}
	const char *what() const noexcept override { return line_; }
	const vs::failure &failure() const noexcept { return failure_; }

private:
	vs::failure failure_;
	char line_[VS_ERROR_MSG_MAX + 128];
};

namespace detail {
[[noreturn]] inline void raise(const failure &f)
{
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
	throw error(f);
#else
	(void)f;
	std::abort();
#endif
}
} // namespace detail

/* The value of a call, or its failure. */
template <class T> class [[nodiscard]] result {
public:
	result(T &&v) noexcept(std::is_nothrow_move_constructible<T>::value)
		: val_(std::move(v))
	{
	}
	result(const T &v) : val_(v) {}
	result(const failure &f) noexcept : err_(f) {}
	result(failure &&f) noexcept : err_(std::move(f)) {}

	bool has_value() const noexcept { return val_.has_value(); }
	explicit operator bool() const noexcept { return has_value(); }
	const failure &error() const noexcept { return err_; }
	std::error_code code() const noexcept { return err_.code(); }

	/* The value; throws vs::error when there is none. */
	T &value() &
	{
		if (!val_)
			detail::raise(err_);
		return *val_;
	}
	T &&value() &&
	{
		if (!val_)
			detail::raise(err_);
		return std::move(*val_);
	}
	const T &value() const &
	{
		if (!val_)
			detail::raise(err_);
		return *val_;
	}
	/* Unchecked, as std::optional's. */
	T &operator*() & noexcept { return *val_; }
	const T &operator*() const & noexcept { return *val_; }
	T &&operator*() && noexcept { return std::move(*val_); }
	T *operator->() noexcept { return &*val_; }
	const T *operator->() const noexcept { return &*val_; }

private:
	std::optional<T> val_;
	failure err_;
};

/* The result of a call without a value. */
template <> class [[nodiscard]] result<void> {
public:
	result() noexcept = default;
	result(const failure &f) noexcept : err_(f) {}
	result(failure &&f) noexcept : err_(std::move(f)) {}

	bool has_value() const noexcept { return err_.ok(); }
	explicit operator bool() const noexcept { return has_value(); }
	const failure &error() const noexcept { return err_; }
	std::error_code code() const noexcept { return err_.code(); }
	/* Throws vs::error when the call failed. */
	void value() const
	{
		if (!err_.ok())
			detail::raise(err_);
	}

private:
	failure err_;
};
using status = result<void>;

namespace detail {
/* 0 or the failure of ret (< 0), recorded by the C call */
inline status check(int ret, const char *call) noexcept
{
	if (VS_LIKELY(ret == 0))
		return status();
	return failure::last(ret, call);
}
} // namespace detail

/* ---- spans ------------------------------------------------------------- */

/* A pointer and a count (C++20: std::span converts to it). */
template <class T> class span {
public:
	constexpr span() noexcept = default;
	constexpr span(T *p, std::size_t n) noexcept : p_(p), n_(n) {}
	/* one element */
	constexpr span(T &one) noexcept : p_(&one), n_(1) {}
	template <std::size_t N>
	constexpr span(T (&a)[N]) noexcept : p_(a), n_(N)
	{
	}
	/* std::vector, std::array, std::span, ...: data() and size() */
	template <class C,
		  class = std::enable_if_t<
			  !std::is_array<std::remove_reference_t<C>>::value &&
			  std::is_convertible<
				  decltype(std::declval<C &>().data()), T *>::value>,
		  class = decltype(std::declval<C &>().size())>
	constexpr span(C &&c) noexcept : p_(c.data()), n_(c.size())
	{
	}
	/*
	 * A braced list, for a call's argument only: the list lives until
	 * the end of the full expression (as C++26 std::span's).
	 */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"
#endif
	template <class U = T, class = std::enable_if_t<std::is_const<U>::value>>
	constexpr span(std::initializer_list<std::remove_const_t<T>> l) noexcept
		: p_(l.begin()), n_(l.size())
	{
	}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

	constexpr T *data() const noexcept { return p_; }
	constexpr std::size_t size() const noexcept { return n_; }
	constexpr bool empty() const noexcept { return n_ == 0; }
	constexpr T *begin() const noexcept { return p_; }
	constexpr T *end() const noexcept { return p_ + n_; }
	constexpr T &operator[](std::size_t i) const noexcept { return p_[i]; }

private:
	T *p_ = nullptr;
	std::size_t n_ = 0;
};
/* An SGE list (vs_mr_sge() makes the entries). */
using sges = span<const ibv_sge>;

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

inline result<mr> mr_alloc(ref<vs_pd> p, std::size_t length, unsigned int access = 0) noexcept
{
	return detail::make<mr>("vs_mr_alloc", [&](vs_mr **o) {
		return vs_mr_alloc(p.get(), length, access, o);
	});
}

inline result<mr> mr_register(ref<vs_pd> p, void *addr, std::size_t length,
			      unsigned int access = 0) noexcept
{
	return detail::make<mr>("vs_mr_register", [&](vs_mr **o) {
		return vs_mr_register(p.get(), addr, length, access, o);
	});
}

inline result<mr> mr_register_dmabuf(ref<vs_pd> p, int fd, std::uint64_t offset,
				     std::size_t length, std::uint64_t iova,
				     unsigned int access = 0) noexcept
{
	return detail::make<mr>("vs_mr_register_dmabuf", [&](vs_mr **o) {
		return vs_mr_register_dmabuf(p.get(), fd, offset, length, iova, access, o);
	});
}

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

/* ---- send batches ------------------------------------------------------ */

namespace detail {
/* The C entry points of each transport's send batch. */
#define VS__CXX_BATCH(T)                                                      \
	struct T##_ops {                                                      \
		using qp = vs_##T##_qp;                                       \
		using batch = vs_##T##_batch;                                 \
		static constexpr const char *start_name = "vs_" #T "_batch_start"; \
		static constexpr const char *submit_name = "vs_" #T "_batch_submit"; \
		static int start(qp *q, batch *b) noexcept                    \
		{                                                             \
			return vs_##T##_batch_start(q, b);                    \
		}                                                             \
		static int submit(batch *b) noexcept                          \
		{                                                             \
			return vs_##T##_batch_submit(b);                      \
		}                                                             \
		static void abort(batch *b) noexcept { vs_##T##_batch_abort(b); } \
	};
VS__CXX_BATCH(rc)
VS__CXX_BATCH(uc)
VS__CXX_BATCH(ud)
VS__CXX_BATCH(srd)
#undef VS__CXX_BATCH

/*
 * A send batch of one transport: started on a QP, then submitted; the
 * destructor aborts it unless it was.  Not copyable nor movable: the
 * batch belongs to the scope that started it.
 */
template <class Ops> class send_batch {
public:
	send_batch() noexcept : b_() {}
	send_batch(const send_batch &) = delete;
	send_batch &operator=(const send_batch &) = delete;
	~send_batch() { abort(); }

	bool is_open() const noexcept { return open_; }
	/* Starts it on qp (refused while this batch is open). */
	status start(ref<typename Ops::qp> qp) noexcept
	{
		if (open_)
			return failure::made(EBUSY, Ops::start_name,
					     "this batch is open: submit or abort it first");
		status s = check(Ops::start(qp.get(), &b_), Ops::start_name);
		open_ = s.has_value();
		return s;
	}
	/* One doorbell for the WRs added; the batch is closed after, posted or not. */
	status submit() noexcept
	{
		open_ = false;
		return check(Ops::submit(&b_), Ops::submit_name);
	}
	/* Drops the WRs added (nothing posted); nothing when not open. */
	void abort() noexcept
	{
		if (open_)
			Ops::abort(&b_);
		open_ = false;
	}
	/* The C batch, for the operations this layer does not wrap. */
	typename Ops::batch *get() noexcept { return &b_; }

protected:
	typename Ops::batch b_;

private:
	bool open_ = false;
};
} // namespace detail

/* RC: sends, writes, reads and atomics. */
class rc_batch : public detail::send_batch<detail::rc_ops> {
public:
	status send(std::uint64_t wr_id, unsigned int flags, sges s) noexcept
	{
		return detail::check(vs_rc_send(&b_, wr_id, flags, s.data(), s.size()), "vs_rc_send");
	}
	status send_imm(std::uint64_t wr_id, unsigned int flags, std::uint32_t imm, sges s) noexcept
	{
		return detail::check(vs_rc_send_imm(&b_, wr_id, flags, imm, s.data(), s.size()),
				     "vs_rc_send_imm");
	}
	status write(std::uint64_t wr_id, unsigned int flags, sges s, vs_remote r) noexcept
	{
		return detail::check(vs_rc_write(&b_, wr_id, flags, s.data(), s.size(), r), "vs_rc_write");
	}
	status write_imm(std::uint64_t wr_id, unsigned int flags, std::uint32_t imm, sges s,
			 vs_remote r) noexcept
	{
		return detail::check(vs_rc_write_imm(&b_, wr_id, flags, imm, s.data(), s.size(), r),
				     "vs_rc_write_imm");
	}
	status read(std::uint64_t wr_id, unsigned int flags, sges s, vs_remote r) noexcept
	{
		return detail::check(vs_rc_read(&b_, wr_id, flags, s.data(), s.size(), r), "vs_rc_read");
	}
	status cas(std::uint64_t wr_id, unsigned int flags, const ibv_sge &result, vs_remote r,
		   std::uint64_t compare, std::uint64_t swap) noexcept
	{
		return detail::check(vs_rc_cas(&b_, wr_id, flags, &result, r, compare, swap), "vs_rc_cas");
	}
	status faa(std::uint64_t wr_id, unsigned int flags, const ibv_sge &result, vs_remote r,
		   std::uint64_t add) noexcept
	{
		return detail::check(vs_rc_faa(&b_, wr_id, flags, &result, r, add), "vs_rc_faa");
	}
};

/* UC: sends and writes. */
class uc_batch : public detail::send_batch<detail::uc_ops> {
public:
	status send(std::uint64_t wr_id, unsigned int flags, sges s) noexcept
	{
		return detail::check(vs_uc_send(&b_, wr_id, flags, s.data(), s.size()), "vs_uc_send");
	}
	status send_imm(std::uint64_t wr_id, unsigned int flags, std::uint32_t imm, sges s) noexcept
	{
		return detail::check(vs_uc_send_imm(&b_, wr_id, flags, imm, s.data(), s.size()),
				     "vs_uc_send_imm");
	}
	status write(std::uint64_t wr_id, unsigned int flags, sges s, vs_remote r) noexcept
	{
		return detail::check(vs_uc_write(&b_, wr_id, flags, s.data(), s.size(), r), "vs_uc_write");
	}
	status write_imm(std::uint64_t wr_id, unsigned int flags, std::uint32_t imm, sges s,
			 vs_remote r) noexcept
	{
		return detail::check(vs_uc_write_imm(&b_, wr_id, flags, imm, s.data(), s.size(), r),
				     "vs_uc_write_imm");
	}
};

/* UD: sends, each to a destination. */
class ud_batch : public detail::send_batch<detail::ud_ops> {
public:
	status send(std::uint64_t wr_id, unsigned int flags, const ud_dest &d, sges s) noexcept
	{
		return detail::check(vs_ud_send(&b_, wr_id, flags, &d.get(), s.data(), s.size()),
				     "vs_ud_send");
	}
	status send_imm(std::uint64_t wr_id, unsigned int flags, const ud_dest &d, std::uint32_t imm,
			sges s) noexcept
	{
		return detail::check(vs_ud_send_imm(&b_, wr_id, flags, &d.get(), imm, s.data(), s.size()),
				     "vs_ud_send_imm");
	}
};

/* SRD: sends, writes and reads, each to a destination. */
class srd_batch : public detail::send_batch<detail::srd_ops> {
public:
	status send(std::uint64_t wr_id, unsigned int flags, const srd_dest &d, sges s) noexcept
	{
		return detail::check(vs_srd_send(&b_, wr_id, flags, &d.get(), s.data(), s.size()),
				     "vs_srd_send");
	}
	status send_imm(std::uint64_t wr_id, unsigned int flags, const srd_dest &d,
			std::uint32_t imm, sges s) noexcept
	{
		return detail::check(vs_srd_send_imm(&b_, wr_id, flags, &d.get(), imm, s.data(), s.size()),
				     "vs_srd_send_imm");
	}
	status write(std::uint64_t wr_id, unsigned int flags, const srd_dest &d, sges s,
		     vs_remote r) noexcept
	{
		return detail::check(vs_srd_write(&b_, wr_id, flags, &d.get(), s.data(), s.size(), r),
				     "vs_srd_write");
	}
	status write_imm(std::uint64_t wr_id, unsigned int flags, const srd_dest &d,
			 std::uint32_t imm, sges s, vs_remote r) noexcept
	{
		return detail::check(vs_srd_write_imm(&b_, wr_id, flags, &d.get(), imm, s.data(),
						      s.size(), r),
				     "vs_srd_write_imm");
	}
	status read(std::uint64_t wr_id, unsigned int flags, const srd_dest &d, sges s,
		    vs_remote r) noexcept
	{
		return detail::check(vs_srd_read(&b_, wr_id, flags, &d.get(), s.data(), s.size(), r),
				     "vs_srd_read");
	}
};

/* ---- receive batches --------------------------------------------------- */

/* Receives for one QP or SRQ; the destructor aborts it unless submitted. */
class recv_batch {
public:
	recv_batch() noexcept : rb_() {}
	recv_batch(const recv_batch &) = delete;
	recv_batch &operator=(const recv_batch &) = delete;
	~recv_batch() { abort(); }

	bool is_open() const noexcept { return open_; }
	status start(ref<vs_rc_qp> qp) noexcept
	{
		return start_as("vs_rc_recv_start", vs_rc_recv_start, qp.get());
	}
	status start(ref<vs_uc_qp> qp) noexcept
	{
		return start_as("vs_uc_recv_start", vs_uc_recv_start, qp.get());
	}
	status start(ref<vs_ud_qp> qp) noexcept
	{
		return start_as("vs_ud_recv_start", vs_ud_recv_start, qp.get());
	}
	status start(ref<vs_srd_qp> qp) noexcept
	{
		return start_as("vs_srd_recv_start", vs_srd_recv_start, qp.get());
	}
	status start(ref<vs_srq> s) noexcept
	{
		return start_as("vs_srq_recv_start", vs_srq_recv_start, s.get());
	}
	status add(std::uint64_t wr_id, sges s) noexcept
	{
		return detail::check(vs_recv_add(&rb_, wr_id, s.data(), s.size()), "vs_recv_add");
	}
	/* One post for the receives added; the batch is closed after, posted or not. */
	status submit() noexcept
	{
		open_ = false;
		return detail::check(vs_recv_submit(&rb_), "vs_recv_submit");
	}
	/* Drops the receives added; nothing when not open. */
	void abort() noexcept
	{
		if (open_)
			vs_recv_abort(&rb_);
		open_ = false;
	}
	vs_recv_batch *get() noexcept { return &rb_; }

private:
	template <class Q>
	status start_as(const char *call, int (*start_fn)(Q *, vs_recv_batch *), Q *q) noexcept
	{
		if (open_)
			return failure::made(EBUSY, call, "this batch is open: submit or abort it first");
		status s = detail::check(start_fn(q, &rb_), call);
		open_ = s.has_value();
		return s;
	}

	vs_recv_batch rb_;
	bool open_ = false;
};

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

#undef VS__CXX_COLD

#endif /* VERBSHIM_HPP */
