// SPDX-License-Identifier: MIT
/*
 * verbshim for C++17 (verbshim.hpp): the errors.  vs::failure (a copy of
 * the thread's error record, out of line), vs::error (the exception
 * value() throws), vs::result<T> and vs::status.
 */
#ifndef VERBSHIM_CXX_ERROR_HPP
#define VERBSHIM_CXX_ERROR_HPP

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

#undef VS__CXX_COLD

} // namespace vs

#endif /* VERBSHIM_CXX_ERROR_HPP */
