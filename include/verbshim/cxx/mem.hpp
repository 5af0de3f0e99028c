// SPDX-License-Identifier: MIT
/*
 * verbshim for C++17 (verbshim.hpp): memory regions.
 */
#ifndef VERBSHIM_CXX_MEM_HPP
#define VERBSHIM_CXX_MEM_HPP

#include "verbshim/cxx/owner.hpp"

namespace vs {

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

} // namespace vs

#endif /* VERBSHIM_CXX_MEM_HPP */
