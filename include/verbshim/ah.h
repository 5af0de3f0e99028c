/* SPDX-License-Identifier: MIT */
/*
 * Address handles and UD destinations: where a UD send goes.  A
 * destination comes from vs_ud_handshake() (include/verbshim/endpoint.h).
 */
#ifndef VERBSHIM_AH_H
#define VERBSHIM_AH_H

#include "verbshim/mem.h"

VS_BEGIN_DECLS

/* An address handle (reference counted, keeps its PD). */
struct vs_ah {
	struct vs_handle h; /* private */
	struct ibv_ah *ah;
	struct vs_pd *pd;
};

/**
 * vs_ah_close() - the user's close of an address handle
 * @ah: an open AH
 *
 * Return: 0 or -errno: -EINVAL NULL, closed or other-kind handle; the
 * provider's error when the destroy fails (the object then stays open:
 * close it again to retry).
 */
int vs_ah_close(struct vs_ah *ah);
/**
 * vs_ah_raw() - the ibv_ah behind an AH
 * @ah: an open AH
 *
 * Return: it, or NULL for a NULL, closed or other-kind handle.
 */
struct ibv_ah *vs_ah_raw(const struct vs_ah *ah);

/* Where a UD send goes: all three are always required. */
struct vs_ud_dest {
	struct vs_ah *ah;
	uint32_t remote_qpn;
	uint32_t remote_qkey;
};

/**
 * vs_ud_dest_release() - close a destination's address handle and clear it
 * @dest: what vs_ud_handshake() filled; a cleared one is accepted
 *
 * Return: 0, or -errno (-EINVAL for NULL or a closed AH; the provider's
 * error when the AH cannot be destroyed: @dest then stays, to retry).
 */
int vs_ud_dest_release(struct vs_ud_dest *dest);

#ifdef VS__TYPE_GUARDS
#define vs_ah_close(ah) vs_ah_close(VS__IS(struct vs_ah, ah))
#define vs_ah_raw(ah) vs_ah_raw(VS__IS_C(struct vs_ah, ah))
#define vs_ud_dest_release(dest) vs_ud_dest_release(VS__IS(struct vs_ud_dest, dest))
#endif

VS_END_DECLS

#endif /* VERBSHIM_AH_H */
