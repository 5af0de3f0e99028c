/* SPDX-License-Identifier: MIT */
/*
 * Names the library prints: handle kinds, QP states and
 * IBV_QP_* attribute-mask bits.  One place, so every message says a thing
 * the same way and no object depends on another just for a name.  A
 * transport's name is its row's (lib/transport/transports.c).
 */
#include <ctype.h>
#include <strings.h>

#include "base.h"

static const struct {
	uint32_t kind;
	const char *name, *closed;
} kinds[] = {
	{ VS_KIND_CONTEXT, "device context", "closed device context" },
	{ VS_KIND_PD, "PD", "closed PD" },
	{ VS_KIND_MR, "MR", "closed MR" },
	{ VS_KIND_CQ, "CQ", "closed CQ" },
	{ VS_KIND_SRQ, "SRQ", "closed SRQ" },
	{ VS_KIND_AH, "AH", "closed AH" },
	{ VS_KIND_RC_QP, "RC QP", "closed RC QP" },
	{ VS_KIND_UC_QP, "UC QP", "closed UC QP" },
	{ VS_KIND_UD_QP, "UD QP", "closed UD QP" },
	{ VS_KIND_SRD_QP, "SRD QP", "closed SRD QP" },
	{ VS_KIND_CHANNEL, "completion channel", "closed completion channel" },
	{ VS_KIND_CM_ID, "CM id", "closed CM id" },
	{ VS_KIND_CM_CHANNEL, "CM event channel", "closed CM event channel" },
};

const char *vs_kind_name(uint32_t magic)
{
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		if (magic == kinds[i].kind)
			return kinds[i].name;
		if (magic == (kinds[i].kind | VS__CLOSED))
			return kinds[i].closed;
	}
	return "unknown handle";
}

const char *vs_qp_state_name(enum ibv_qp_state state)
{
	switch (state) {
	case IBV_QPS_RESET: return "RESET";
	case IBV_QPS_INIT: return "INIT";
	case IBV_QPS_RTR: return "RTR";
	case IBV_QPS_RTS: return "RTS";
	case IBV_QPS_SQD: return "SQD";
	case IBV_QPS_SQE: return "SQE";
	case IBV_QPS_ERR: return "ERR";
	default: return "UNKNOWN";
	}
}

static const struct {
	int bit;
	const char *name;
} mask_names[] = {
	{ IBV_QP_STATE, "IBV_QP_STATE" },
	{ IBV_QP_CUR_STATE, "IBV_QP_CUR_STATE" },
	{ IBV_QP_EN_SQD_ASYNC_NOTIFY, "IBV_QP_EN_SQD_ASYNC_NOTIFY" },
	{ IBV_QP_ACCESS_FLAGS, "IBV_QP_ACCESS_FLAGS" },
	{ IBV_QP_PKEY_INDEX, "IBV_QP_PKEY_INDEX" },
	{ IBV_QP_PORT, "IBV_QP_PORT" },
	{ IBV_QP_QKEY, "IBV_QP_QKEY" },
	{ IBV_QP_AV, "IBV_QP_AV" },
	{ IBV_QP_PATH_MTU, "IBV_QP_PATH_MTU" },
	{ IBV_QP_TIMEOUT, "IBV_QP_TIMEOUT" },
	{ IBV_QP_RETRY_CNT, "IBV_QP_RETRY_CNT" },
	{ IBV_QP_RNR_RETRY, "IBV_QP_RNR_RETRY" },
	{ IBV_QP_RQ_PSN, "IBV_QP_RQ_PSN" },
	{ IBV_QP_MAX_QP_RD_ATOMIC, "IBV_QP_MAX_QP_RD_ATOMIC" },
	{ IBV_QP_ALT_PATH, "IBV_QP_ALT_PATH" },
	{ IBV_QP_MIN_RNR_TIMER, "IBV_QP_MIN_RNR_TIMER" },
	{ IBV_QP_SQ_PSN, "IBV_QP_SQ_PSN" },
	{ IBV_QP_MAX_DEST_RD_ATOMIC, "IBV_QP_MAX_DEST_RD_ATOMIC" },
	{ IBV_QP_PATH_MIG_STATE, "IBV_QP_PATH_MIG_STATE" },
	{ IBV_QP_CAP, "IBV_QP_CAP" },
	{ IBV_QP_DEST_QPN, "IBV_QP_DEST_QPN" },
	{ IBV_QP_RATE_LIMIT, "IBV_QP_RATE_LIMIT" },
};

void vs__qp_mask_names(int mask, char *buf, size_t len)
{
	size_t used = 0;

	if (!len)
		return;
	buf[0] = 0;
	for (size_t i = 0; i < sizeof(mask_names) / sizeof(mask_names[0]); i++) {
		if (!(mask & mask_names[i].bit) || used >= len)
			continue;
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
					 used ? "|" : "", mask_names[i].name);
		mask &= ~mask_names[i].bit;
	}
	if (mask && used < len)
		snprintf(buf + used, len - used, "%s0x%x", used ? "|" : "", mask);
}

/* Letters whose spoken name starts with a vowel: an F, an MR, an SRQ. */
static bool letter_vowel(char c)
{
	return strchr("AEFHILMNORSX", toupper((unsigned char)c)) != NULL;
}

/* Lower-case abbreviations said letter by letter (an rdma_cm_id, an mlx5 QP). */
static bool spelled(const char *w, size_t n)
{
	static const char *const ab[] = { "rdma", "mlx4", "mlx5", "srq", "sge",
					  "mr", "rc", "uc", "ud", "qp", "cq",
					  "pd", "ah", "gid", "lid", "psn", "mtu",
					  "srd", "xrc", "fd" };

	for (size_t i = 0; i < sizeof(ab) / sizeof(ab[0]); i++)
		if (strlen(ab[i]) == n && !strncmp(w, ab[i], n))
			return true;
	return false;
}

const char *vs__article(const char *w)
{
	static const char *const said[] = { "NULL", "LID", "GUID", "SIDR", "REQ",
					    "REP", "REJ", "RESET", "SEND", "READ",
					    "WRITE", "DREQ", "DREP", "MRA", "RoCE" };
	size_t n = 0, upper = 0, lower = 0;

	if (!w || !*w)
		return "a";
	/* the first word: up to a space, '-', '_', '/', '(' or '.' */
	while (w[n] && !strchr(" -_/(.,:;\"'", w[n])) {
		upper += isupper((unsigned char)w[n]) != 0;
		lower += islower((unsigned char)w[n]) != 0;
		n++;
	}
	if (isdigit((unsigned char)w[0])) /* an 8-byte, an 11-bit, an 18 */
		return w[0] == '8' || (n == 2 && w[0] == '1' &&
				       (w[1] == '1' || w[1] == '8')) ? "an" : "a";
	for (size_t i = 0; i < sizeof(said) / sizeof(said[0]); i++)
		if (strlen(said[i]) == n && !strncmp(w, said[i], n))
			return strchr("AEIOU", w[0]) ? "an" : "a";
	/* RC, SRQ, RDMA, iWARP, IPv4: said letter by letter */
	/* RESOLVED, REQUEST, ESTABLISHED: all capitals, said as a word */
	if (upper >= 5 && !lower)
		return strchr("AEIOU", w[0]) ? "an" : "a";
	if ((upper >= 2 && !lower) || (upper >= 2 && islower((unsigned char)w[0])) ||
	    (upper && n <= 4 && isupper((unsigned char)w[n - 1])) || spelled(w, n))
		return letter_vowel(w[0]) ? "an" : "a";
	/* words: a union, a unique, a user, a one-call; an hour, an honest */
	if (!strncasecmp(w, "uni", 3) || !strncasecmp(w, "use", 3) ||
	    !strncasecmp(w, "usu", 3) || !strncasecmp(w, "uti", 3) ||
	    !strncasecmp(w, "one", 3) || !strncasecmp(w, "once", 4) ||
	    !strncasecmp(w, "eu", 2))
		return "a";
	if (!strncasecmp(w, "hour", 4) || !strncasecmp(w, "honest", 6))
		return "an";
	return strchr("aeiouAEIOU", w[0]) ? "an" : "a";
}
