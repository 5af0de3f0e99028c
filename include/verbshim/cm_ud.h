/* SPDX-License-Identifier: MIT */
/*
 * UD through the connection manager: the destination the CM resolved,
 * multicast join and leave.  docs/API.md, "Connection manager".
 */
#ifndef VERBSHIM_CM_UD_H
#define VERBSHIM_CM_UD_H

#include "verbshim/cm.h"

VS_BEGIN_DECLS

/**
 * vs_cm_ud_dest() - the UD destination the CM resolved
 * @id: a UD id, connected (client side), or joined to a multicast group
 * @dest: where the destination goes (an AH of the id's QP's PD, the
 *	remote QPN and Q_Key from the CM); release it with vs_ud_dest_release()
 *
 * Return: 0, -EINVAL when the id has no UD QP or no answer yet, or the
 * error of ibv_create_ah.
 */
VS_MUST_CHECK
int vs_cm_ud_dest(struct vs_cm_id *id, struct vs_ud_dest *dest);

/**
 * vs_cm_join() - join a multicast group with the id's UD QP
 * @id: a UD id with its QP (created by vs_cm_resolve() toward the group,
 *	or vs_cm_listen() on a local address)
 * @group: the group's address (IPv4 224.0.0.0/4 or IPv6 ff00::/8)
 * @timeout_ms: the limit for the join ([2000] when 0)
 *
 * Attaches the QP to the group; then vs_cm_ud_dest() sends to it.
 *
 * Return: 0, or -errno explained.
 */
int vs_cm_join(struct vs_cm_id *id, const char *group, int timeout_ms);

/**
 * vs_cm_leave() - leave the group of vs_cm_join()
 * @id: the id
 *
 * Return: 0, or -errno; -EINVAL when not joined.
 */
int vs_cm_leave(struct vs_cm_id *id);

#ifdef VS__TYPE_GUARDS
#define vs_cm_ud_dest(id, ...) vs_cm_ud_dest(VS__IS(struct vs_cm_id, id), __VA_ARGS__)
#define vs_cm_join(id, ...) vs_cm_join(VS__IS(struct vs_cm_id, id), __VA_ARGS__)
#define vs_cm_leave(id) vs_cm_leave(VS__IS(struct vs_cm_id, id))
#endif

VS_END_DECLS

#endif /* VERBSHIM_CM_UD_H */
