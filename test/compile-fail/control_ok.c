/* SPDX-License-Identifier: MIT */
/* control: correct use of every typed family must compile cleanly */
/* expect: OK */
#include <verbshim.h>

int use(struct vs_rc_qp *rc, struct vs_uc_qp *uc, struct vs_ud_qp *ud,
	const struct vs_ud_dest *dest, struct ibv_sge *sge, struct vs_remote r);

int use(struct vs_rc_qp *rc, struct vs_uc_qp *uc, struct vs_ud_qp *ud,
	const struct vs_ud_dest *dest, struct ibv_sge *sge, struct vs_remote r)
{
	struct vs_rc_batch rb;
	struct vs_uc_batch ub;
	struct vs_ud_batch db;
	struct vs_rc_config rcfg = { .timeout = 14, .retry_cnt = 7 };
	struct vs_ud_config dcfg = { .qkey = 0x11111111 };
	int ret = 0;

	(void)rcfg;
	(void)dcfg;
	ret |= vs_rc_batch_start(rc, &rb);
	ret |= vs_rc_read(&rb, 1, 0, sge, 1, r);
	ret |= vs_rc_faa(&rb, 2, 0, sge, r, 1);
	ret |= vs_rc_cas(&rb, 3, 0, sge, r, 1, 2);
	ret |= vs_rc_write(&rb, 4, VS_WR_SIGNALED, sge, 1, r);
	ret |= vs_rc_batch_submit(&rb);
	ret |= vs_uc_batch_start(uc, &ub);
	ret |= vs_uc_write(&ub, 5, 0, sge, 1, r);
	ret |= vs_uc_batch_submit(&ub);
	ret |= vs_ud_batch_start(ud, &db);
	ret |= vs_ud_send(&db, 6, 0, dest, sge, 1);
	ret |= vs_ud_batch_submit(&db);
	return ret;
}
