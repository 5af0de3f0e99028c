// SPDX-License-Identifier: MIT
/*
 * verbshim for C++17 (verbshim.hpp): receive batches (vs::recv_batch),
 * aborted by their destructor unless submitted.
 */
#ifndef VERBSHIM_CXX_RECV_HPP
#define VERBSHIM_CXX_RECV_HPP

#include "verbshim/cxx/owner.hpp"
#include "verbshim/cxx/span.hpp"

namespace vs {

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

} // namespace vs

#endif /* VERBSHIM_CXX_RECV_HPP */
