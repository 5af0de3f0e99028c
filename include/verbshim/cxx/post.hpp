// SPDX-License-Identifier: MIT
/*
 * verbshim for C++17 (verbshim.hpp): send batches (vs::rc_batch,
 * uc_batch, ud_batch, srd_batch), aborted by their destructor unless
 * submitted.
 */
#ifndef VERBSHIM_CXX_POST_HPP
#define VERBSHIM_CXX_POST_HPP

#include "verbshim/cxx/owner.hpp"
#include "verbshim/cxx/span.hpp"

namespace vs {

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

} // namespace vs

#endif /* VERBSHIM_CXX_POST_HPP */
