/* SPDX-License-Identifier: MIT */
/*
 * QP states and transitions without a device: the names of states and
 * transports, and the IB spec's modify-mask rules that vs_*_qp_modify
 * explains a refusal with (lib/transport/qp_rules.c).
 */
#ifndef VERBSHIM_QP_RULES_H
#define VERBSHIM_QP_RULES_H

#include <stddef.h>

#include "verbshim/common.h"

VS_BEGIN_DECLS

/**
 * vs_qp_check_mask() - check a modify mask against the IB spec rules
 * @transport: enum vs_transport
 * @from: the current state
 * @to: the target state
 * @mask: IBV_QP_* bits of @attr to apply
 * @why: where the explanation goes (may be NULL)
 * @len: size of @buf
 *
 * Checks a modify mask against the rules (IB spec / kernel table) for the
 * transport and the transition. 0 when it is complete and allowed, else
 * -EINVAL and a sentence naming the missing and the not-allowed attributes
 * in why. Needs no device.
 *
 * Return: 0 when complete and allowed, else -EINVAL and the sentence in
 * @why; records no error.
 */
int vs_qp_check_mask(enum vs_transport transport, enum ibv_qp_state from,
		     enum ibv_qp_state to, int mask, char *why, size_t len);

/**
 * vs_qp_state_name() - name of a QP state
 * @state: an ibv_qp_state
 *
 * "RESET", "INIT", "RTR", ...
 *
 * Return: "RESET", "INIT", ...; "UNKNOWN" otherwise.
 */
const char *vs_qp_state_name(enum ibv_qp_state state);
/**
 * vs_transport_name() - name of a transport
 * @t: enum vs_transport
 *
 * "RC", "UC", "UD", "SRD"
 *
 * Return: "RC", "UC", "UD", "SRD", or "unknown transport".
 */
const char *vs_transport_name(enum vs_transport t);

VS_END_DECLS

#endif /* VERBSHIM_QP_RULES_H */
