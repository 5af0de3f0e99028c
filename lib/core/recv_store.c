/* SPDX-License-Identifier: MIT */
/*
 * The receive store of a QP or an SRQ: the WR and SGE arrays a receive
 * batch fills before one ibv_post_recv / ibv_post_srq_recv.
 */
#include "core.h"

int vs__recv_store_init(struct vs__recv_store *st, uint32_t cap, uint32_t max_sge)
{
	memset(st, 0, sizeof(*st));
	if (!cap)
		return 0;
	st->wr = calloc(cap, sizeof(*st->wr));
	st->sge = calloc((size_t)cap * (max_sge ? max_sge : 1), sizeof(*st->sge));
	if (!st->wr || !st->sge) {
		vs__recv_store_free(st);
		return -ENOMEM;
	}
	st->cap = cap;
	st->max_sge = max_sge;
	return 0;
}

void vs__recv_store_free(struct vs__recv_store *st)
{
	free(st->wr);
	free(st->sge);
	memset(st, 0, sizeof(*st));
}
