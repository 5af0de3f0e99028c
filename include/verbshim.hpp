// SPDX-License-Identifier: MIT
/*
 * verbshim for C++17: owners over the typed C API (verbshim.h) and nothing
 * else.  Header only, one header per object under include/verbshim/cxx/
 * (each usable on its own); docs/API.md ("C++") has the reference.
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

/* One header per object, as the C API's (include/verbshim/cxx/) */
#include "verbshim/cxx/error.hpp"
#include "verbshim/cxx/span.hpp"
#include "verbshim/cxx/owner.hpp"
#include "verbshim/cxx/device.hpp"
#include "verbshim/cxx/mem.hpp"
#include "verbshim/cxx/cq.hpp"
#include "verbshim/cxx/qp.hpp"
#include "verbshim/cxx/post.hpp"
#include "verbshim/cxx/recv.hpp"
#include "verbshim/cxx/cm.hpp"

#endif /* VERBSHIM_HPP */
