// SPDX-License-Identifier: MIT
/*
 * verbshim for C++17 (verbshim.hpp): vs::span<T>, a pointer and a count
 * (vs::sges: SGE lists).
 */
#ifndef VERBSHIM_CXX_SPAN_HPP
#define VERBSHIM_CXX_SPAN_HPP

#include "verbshim/cxx/error.hpp"

namespace vs {

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

} // namespace vs

#endif /* VERBSHIM_CXX_SPAN_HPP */
