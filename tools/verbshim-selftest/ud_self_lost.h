/* SPDX-License-Identifier: MIT */
/*
 * Whether a datagram to this same machine is known to be lost here: the
 * one rule, and its words, for verbshim-selftest's typed ud row and the
 * UD tests of test/device (test/common/vs_typed.h), so that a boot says
 * the same thing everywhere.
 *
 * rxe's provider of rdma-core 17.1 and 22.4 (its rxe_av, in
 * kernel-headers/rdma/rdma_user_rxe.h, has no dmac; providers/rxe/rxe.c's
 * rxe_create_ah never calls ibv_resolve_eth_l2_from_gid, which 28.0's
 * does) never sets an address vector's destination MAC, and the kernel's
 * rxe tells a datagram to this machine by that MAC (rxe_prepare: the
 * netdev's own address marks it loopback): it goes out by the netdev
 * and is lost.  rdma-core's own ibv_ud_pingpong is lost there the same
 * way; datagrams between two machines are not.  Which release: the
 * libibverbs loaded, by its newest node, as the provider comes from the
 * same release (IBVERBS_1.5 is rdma-core 20 to 23: 23, which nobody
 * boots here, is counted with them unchecked).
 */
#ifndef VS_UD_SELF_LOST_H
#define VS_UD_SELF_LOST_H

#include <string.h>
#include <verbshim.h>

/* a substring of the reason, for a boot that allows this skip */
#define VS_UD_SELF_LOST_TEXT "loses datagrams to this machine"

/* PROVIDER: the device's provider ("rxe"); NULL when not known lost. */
static inline const char *vs_ud_self_lost(const char *provider)
{
	struct vs_library_info li;

	if (!provider || strcmp(provider, "rxe") ||
	    vs_library_query(VS_LIB_IBVERBS, &li) || li.min_release <= 0 ||
	    li.min_release > 22)
		return NULL;
	return "rxe of rdma-core 22 or older " VS_UD_SELF_LOST_TEXT
	       " (its address vectors carry no destination MAC, by which the "
	       "kernel tells loopback); rdma-core's ibv_ud_pingpong is lost "
	       "the same way, and UD between two machines is not affected";
}

#endif /* VS_UD_SELF_LOST_H */
