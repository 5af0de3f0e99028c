// SPDX-License-Identifier: MIT
/*
 * One binary, every release: functions added after rdma-core 33, across
 * libibverbs, librdmacm, libefa, libmlx5 and libibumad (at least one per
 * version node a soft device can answer), called on rxe/siw through the
 * drop-ins of a binary built once (make oldest: Debian 11, the pinned
 * rdma-core headers), and compared with the same call made straight into
 * the release's own library (dlvsym of the function at its node, on the
 * same objects).  Where the release has the node the two results must be
 * the same; where it lacks it, the drop-in must give the function's
 * documented not-supported result (its failure value and EOPNOTSUPP, or
 * the documented fallback) and the library has nothing to call.
 *
 * Each call runs in a child process (the objects inherited), so a call
 * that crashes is reported as such, and no call's side effect reaches the
 * next.  One line per function, "| fn | node | here | drop-in | library |
 * verdict |", for scripts/build/newest-api-table.sh.  Then the typed dmabuf
 * registration: where the release lacks IBVERBS_1.12 it must say which
 * release added the verb and which node is here; where it has it, the
 * release's own refusal (rxe has no dmabuf MRs) must come through.  Exit 0
 * when every row is "same" or "not supported" and the typed call says
 * that, 1 otherwise.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <infiniband/efadv.h>
#include <infiniband/mlx5dv.h>
#include <infiniband/umad.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include <rdma/rsocket.h>

#include "verbshim.h"
#include "vs_test.h"

struct rig {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	void *buf;
	int memfd;		/* a file, for the dmabuf registrations */
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id;
	const char *dev;
};

/* The documented not-supported result of a missing node, per convention. */
enum conv { PTR, ERRNO, NEG1, NEGERR, INT0, VOID, FORK };

typedef void (*run_fn)(struct rig *r, void *f, char *out, size_t len);

static void res_ptr(char *out, size_t len, const void *p, int err)
{
	if (p)
		snprintf(out, len, "object");
	else
		snprintf(out, len, "NULL, errno %d (%s)", err, strerror(err));
}

static void res_neg1(char *out, size_t len, int ret, int err)
{
	if (ret == -1)
		snprintf(out, len, "-1, errno %d (%s)", err, strerror(err));
	else if (ret >= 0)
		snprintf(out, len, "an fd or 0 (>= 0)");
	else
		snprintf(out, len, "%d", ret);
}

static void res_errno(char *out, size_t len, int ret)
{
	if (ret > 0)
		snprintf(out, len, "%d (%s)", ret, strerror(ret));
	else if (ret < 0)
		snprintf(out, len, "%d (-%s)", ret, strerror(-ret));
	else
		snprintf(out, len, "0");
}

#define FN(name) __typeof__(&name) fn = (__typeof__(&name))f

/* ---- libibverbs ---- */
static void t_reg_dmabuf_mr(struct rig *r, void *f, char *out, size_t len)
{
	FN(ibv_reg_dmabuf_mr);
	struct ibv_mr *mr;

	errno = 0;
	mr = fn(r->pd, 0, 4096, 0, r->memfd, IBV_ACCESS_LOCAL_WRITE);
	res_ptr(out, len, mr, errno);
	if (mr)
		ibv_dereg_mr(mr);
}

static void t_is_fork_initialized(struct rig *r, void *f, char *out, size_t len)
{
	FN(ibv_is_fork_initialized);

	(void)r;
	snprintf(out, len, "%d", (int)fn());
}

static void t_import_dm(struct rig *r, void *f, char *out, size_t len)
{
	FN(ibv_import_dm);
	struct ibv_dm *dm;

	errno = 0;
	dm = fn(r->ctx, 1);
	res_ptr(out, len, dm, errno);
	if (dm)
		ibv_unimport_dm(dm);
}

static void t_data_in_order(struct rig *r, void *f, char *out, size_t len)
{
	FN(ibv_query_qp_data_in_order);

	snprintf(out, len, "%d", fn(r->qp, IBV_WR_RDMA_WRITE, 0));
}

static void t_alloc_dmah(struct rig *r, void *f, char *out, size_t len)
{
	FN(ibv_alloc_dmah);
	struct ibv_dmah_init_attr a = { .comp_mask = 0 };
	struct ibv_dmah *d;

	errno = 0;
	d = fn(r->ctx, &a);
	res_ptr(out, len, d, errno);
	if (d)
		ibv_dealloc_dmah(d);
}

static void t_reg_mr_ex(struct rig *r, void *f, char *out, size_t len)
{
	FN(ibv_reg_mr_ex);
	struct ibv_mr_init_attr a = {
		.length = 4096, .access = IBV_ACCESS_LOCAL_WRITE,
		.comp_mask = IBV_REG_MR_MASK_ADDR, .addr = r->buf,
	};
	struct ibv_mr *mr;

	errno = 0;
	mr = fn(r->pd, &a);
	res_ptr(out, len, mr, errno);
	if (mr) {
		snprintf(out + strlen(out), len - strlen(out), ", length %zu",
			 mr->length);
		ibv_dereg_mr(mr);
	}
}

static void t_query_port_speed(struct rig *r, void *f, char *out, size_t len)
{
	FN(ibv_query_port_speed);
	uint64_t speed = 0;
	int ret = fn(r->ctx, 1, &speed);

	res_errno(out, len, ret);
	if (!ret)
		snprintf(out, len, "0, speed %llu", (unsigned long long)speed);
}

static void t_alloc_buf(struct rig *r, void *f, char *out, size_t len)
{
	FN(ibv_alloc_buf);
	struct ibv_buf *b = NULL;
	void *p;

	errno = 0;
	p = fn(r->pd, 4096, &b);
	res_ptr(out, len, p, errno);
	if (p)
		ibv_free_buf(b);
}

static void t_reg_buf_mr(struct rig *r, void *f, char *out, size_t len)
{
	FN(ibv_reg_buf_mr);
	struct ibv_buf *b = NULL;
	struct ibv_mr *mr;
	void *p = ibv_alloc_buf(r->pd, 4096, &b);

	if (!p && vs_symbol_resolved("ibv_reg_buf_mr") == 1) {
		snprintf(out, len, "no buffer to register");
		return;
	}
	errno = 0;
	mr = fn(r->pd, b, p, 4096, IBV_ACCESS_LOCAL_WRITE);
	res_ptr(out, len, mr, errno);
	if (mr)
		ibv_dereg_mr(mr);
	if (p)
		ibv_free_buf(b);
}

static void t_free_buf(struct rig *r, void *f, char *out, size_t len)
{
	FN(ibv_free_buf);
	struct ibv_buf *b = NULL;
	void *p = ibv_alloc_buf(r->pd, 4096, &b);

	if (!p && vs_symbol_resolved("ibv_free_buf") == 1) {
		snprintf(out, len, "no buffer to free");
		return;
	}
	fn(b);
	snprintf(out, len, "returns");
}

static void t_comp_cntr_caps(struct rig *r, void *f, char *out, size_t len)
{
	FN(_ibv_query_comp_cntr_caps);
	struct ibv_comp_cntr_caps caps = { 0 };

	res_errno(out, len, fn(r->ctx, &caps, sizeof(caps)));
}

static void t_create_comp_cntr(struct rig *r, void *f, char *out, size_t len)
{
	FN(ibv_create_comp_cntr);
	struct ibv_comp_cntr_init_attr a = { .comp_mask = 0 };
	struct ibv_comp_cntr *c;

	errno = 0;
	c = fn(r->ctx, &a);
	res_ptr(out, len, c, errno);
	if (c)
		ibv_destroy_comp_cntr(c);
}

/* ---- librdmacm ---- */
static void t_query_addrinfo(struct rig *r, void *f, char *out, size_t len)
{
	FN(rdma_query_addrinfo);
	struct rdma_addrinfo *ai = NULL;
	int ret;

	errno = 0;
	ret = fn(r->id, &ai);
	res_neg1(out, len, ret, errno);
	if (!ret && ai)
		rdma_freeaddrinfo(ai);
}

static void t_repoll_create(struct rig *r, void *f, char *out, size_t len)
{
	FN(repoll_create);
	int ret;

	(void)r;
	errno = 0;
	ret = fn(0);
	res_neg1(out, len, ret, errno);
}

/* ---- libefa (rxe is not EFA: the library's own refusal) ---- */
static void t_efadv_create_cq(struct rig *r, void *f, char *out, size_t len)
{
	FN(efadv_create_cq);
	struct ibv_cq_init_attr_ex a = { .cqe = 16 };
	struct efadv_cq_init_attr e = { 0 };
	struct ibv_cq_ex *cq;

	errno = 0;
	cq = fn(r->ctx, &a, &e, sizeof(e));
	res_ptr(out, len, cq, errno);
	if (cq)
		ibv_destroy_cq(ibv_cq_ex_to_cq(cq));
}

static void t_efadv_query_mr(struct rig *r, void *f, char *out, size_t len)
{
	FN(efadv_query_mr);
	struct efadv_mr_attr a = { 0 };

	res_errno(out, len, fn(r->mr, &a, sizeof(a)));
}

static void t_efadv_query_cq(struct rig *r, void *f, char *out, size_t len)
{
	FN(efadv_query_cq);
	struct efadv_cq_attr a = { 0 };

	res_errno(out, len, fn(r->cq, &a, sizeof(a)));
}

static void t_efadv_sq_depth(struct rig *r, void *f, char *out, size_t len)
{
	FN(efadv_get_max_sq_depth);
	struct efadv_sq_depth_attr a = { 0 };

	res_errno(out, len, fn(r->ctx, &a, sizeof(a)));
}

static void t_efadv_comp_cntr(struct rig *r, void *f, char *out, size_t len)
{
	FN(efadv_create_comp_cntr);
	struct ibv_comp_cntr_init_attr a = { .comp_mask = 0 };
	struct efadv_comp_cntr_init_attr e = { 0 };
	struct ibv_comp_cntr *c;

	errno = 0;
	c = fn(r->ctx, &a, &e, sizeof(e));
	res_ptr(out, len, c, errno);
	if (c)
		ibv_destroy_comp_cntr(c);
}

/* ---- libmlx5 (rxe is not mlx5: the library's own refusal) ---- */
static void t_mlx5_qpn_alloc(struct rig *r, void *f, char *out, size_t len)
{
	FN(mlx5dv_reserved_qpn_alloc);
	uint32_t qpn = 0;

	res_errno(out, len, fn(r->ctx, &qpn));
}

static void t_mlx5_login_state(struct rig *r, void *f, char *out, size_t len)
{
	FN(mlx5dv_crypto_login_query_state);
	enum mlx5dv_crypto_login_state s = MLX5DV_CRYPTO_LOGIN_STATE_VALID;

	res_errno(out, len, fn(r->ctx, &s));
}

static void t_mlx5_anchor(struct rig *r, void *f, char *out, size_t len)
{
	FN(mlx5dv_create_steering_anchor);
	struct mlx5dv_steering_anchor_attr a = { .ft_type = MLX5DV_FLOW_TABLE_TYPE_NIC_RX };
	struct mlx5dv_steering_anchor *sa;

	errno = 0;
	sa = fn(r->ctx, &a);
	res_ptr(out, len, sa, errno);
	if (sa)
		mlx5dv_destroy_steering_anchor(sa);
}

static void t_mlx5_reg_dmabuf_mr(struct rig *r, void *f, char *out, size_t len)
{
	FN(mlx5dv_reg_dmabuf_mr);
	struct ibv_mr *mr;

	errno = 0;
	mr = fn(r->pd, 0, 4096, 0, r->memfd, IBV_ACCESS_LOCAL_WRITE, 0);
	res_ptr(out, len, mr, errno);
	if (mr)
		ibv_dereg_mr(mr);
}

static void t_mlx5_data_direct(struct rig *r, void *f, char *out, size_t len)
{
	FN(mlx5dv_get_data_direct_sysfs_path);
	char path[256] = "";

	res_errno(out, len, fn(r->ctx, path, sizeof(path)));
}

/* ---- libibumad ---- */
static void t_umad_smi_port(struct rig *r, void *f, char *out, size_t len)
{
	FN(umad_open_smi_port);
	int ret = fn(r->dev, 1);

	if (ret >= 0) {
		snprintf(out, len, "an fd (>= 0)");
		umad_close_port(ret);
	} else {
		res_errno(out, len, ret);
	}
}

static void t_umad_pairs(struct rig *r, void *f, char *out, size_t len)
{
	FN(umad_get_smi_gsi_pairs);
	struct umad_ca_pair cas[8];
	int n;

	(void)r;
	n = fn(cas, 8);
	if (n >= 0)	/* how many pairs */
		snprintf(out, len, "%d pairs", n);
	else
		res_errno(out, len, n);
}

static void t_umad_pair_by_name(struct rig *r, void *f, char *out, size_t len)
{
	FN(umad_get_smi_gsi_pair_by_ca_name);
	struct umad_ca_pair p;

	res_errno(out, len, fn(r->dev, 1, &p, 0));
}

#define ROW(name, conv, run) { #name, (void *)&name, conv, run }
static const struct row {
	const char *name;
	void *dropin;
	enum conv conv;
	run_fn run;
} rows[] = {
	ROW(ibv_reg_dmabuf_mr, PTR, t_reg_dmabuf_mr),
	ROW(ibv_is_fork_initialized, FORK, t_is_fork_initialized),
	ROW(ibv_import_dm, PTR, t_import_dm),
	ROW(ibv_query_qp_data_in_order, INT0, t_data_in_order),
	ROW(ibv_alloc_dmah, PTR, t_alloc_dmah),
	ROW(ibv_reg_mr_ex, PTR, t_reg_mr_ex),
	ROW(ibv_query_port_speed, ERRNO, t_query_port_speed),
	ROW(ibv_alloc_buf, PTR, t_alloc_buf),
	ROW(ibv_reg_buf_mr, PTR, t_reg_buf_mr),
	ROW(ibv_free_buf, VOID, t_free_buf),
	ROW(_ibv_query_comp_cntr_caps, ERRNO, t_comp_cntr_caps),
	ROW(ibv_create_comp_cntr, PTR, t_create_comp_cntr),
	ROW(rdma_query_addrinfo, NEG1, t_query_addrinfo),
	ROW(repoll_create, NEG1, t_repoll_create),
	ROW(efadv_create_cq, PTR, t_efadv_create_cq),
	ROW(efadv_query_mr, ERRNO, t_efadv_query_mr),
	ROW(efadv_query_cq, ERRNO, t_efadv_query_cq),
	ROW(efadv_get_max_sq_depth, NEGERR, t_efadv_sq_depth),
	ROW(efadv_create_comp_cntr, PTR, t_efadv_comp_cntr),
	ROW(mlx5dv_reserved_qpn_alloc, ERRNO, t_mlx5_qpn_alloc),
	ROW(mlx5dv_crypto_login_query_state, ERRNO, t_mlx5_login_state),
	ROW(mlx5dv_create_steering_anchor, PTR, t_mlx5_anchor),
	ROW(mlx5dv_reg_dmabuf_mr, PTR, t_mlx5_reg_dmabuf_mr),
	ROW(mlx5dv_get_data_direct_sysfs_path, ERRNO, t_mlx5_data_direct),
	ROW(umad_open_smi_port, NEGERR, t_umad_smi_port),
	ROW(umad_get_smi_gsi_pairs, NEGERR, t_umad_pairs),
	ROW(umad_get_smi_gsi_pair_by_ca_name, NEGERR, t_umad_pair_by_name),
};

/* What the drop-in of a function whose node is missing must give. */
static void not_supported(const struct row *w, char *out, size_t len)
{
	switch (w->conv) {
	case PTR: res_ptr(out, len, NULL, EOPNOTSUPP); break;
	case ERRNO: res_errno(out, len, EOPNOTSUPP); break;
	case NEG1: res_neg1(out, len, -1, EOPNOTSUPP); break;
	case NEGERR: res_errno(out, len, -EOPNOTSUPP); break;
	case INT0: snprintf(out, len, "0"); break;
	case VOID: snprintf(out, len, "returns"); break;
	/* the fallback (IBV_FORK_DISABLED: nothing asked for it here) */
	case FORK: snprintf(out, len, "%d", (int)IBV_FORK_DISABLED); break;
	}
}

/* Runs one call in a child; its result, or how it died. */
static void in_child(struct rig *r, const struct row *w, void *f, char *out,
		     size_t len)
{
	int fds[2], status;
	ssize_t n;
	pid_t pid;

	VS_ASSERT(pipe(fds) == 0);
	fflush(stdout);
	pid = fork();
	VS_ASSERT(pid >= 0);
	if (!pid) {
		char res[200] = "";

		close(fds[0]);
		w->run(r, f, res, sizeof(res));
		if (write(fds[1], res, strlen(res)) < 0)
			_exit(2);
		_exit(0);
	}
	close(fds[1]);
	n = read(fds[0], out, len - 1);
	out[n > 0 ? n : 0] = '\0';
	close(fds[0]);
	VS_ASSERT(waitpid(pid, &status, 0) == pid);
	if (WIFSIGNALED(status))
		snprintf(out, len, "crashed (signal %d)", WTERMSIG(status));
	else if (WEXITSTATUS(status))
		snprintf(out, len, "child exit %d", WEXITSTATUS(status));
}

static const char *lib_path(const char *node)
{
	static const struct { const char *prefix; enum vs_library lib; } map[] = {
		{ "IBVERBS_", VS_LIB_IBVERBS }, { "RDMACM_", VS_LIB_RDMACM },
		{ "EFA_", VS_LIB_EFA }, { "MLX5_", VS_LIB_MLX5 },
		{ "IBUMAD_", VS_LIB_IBUMAD },
	};
	struct vs_library_info info;

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (!strncmp(node, map[i].prefix, strlen(map[i].prefix)))
			return vs_library_query(map[i].lib, &info) == 0 &&
			       info.loaded ? info.path : NULL;
	return NULL;
}

static void rig_up(struct rig *r)
{
	struct ibv_device **list;
	int n;

	memset(r, 0, sizeof(*r));
	list = ibv_get_device_list(&n);
	VS_ASSERT(list && n > 0);
	r->dev = getenv("VS_RXE_DEV");
	for (int i = 0; i < n; i++)
		if (!r->dev || !strcmp(ibv_get_device_name(list[i]), r->dev)) {
			r->ctx = ibv_open_device(list[i]);
			r->dev = strdup(ibv_get_device_name(list[i]));
			break;
		}
	ibv_free_device_list(list);
	VS_ASSERT(r->ctx != NULL);
	VS_ASSERT((r->pd = ibv_alloc_pd(r->ctx)) != NULL);
	VS_ASSERT((r->cq = ibv_create_cq(r->ctx, 16, NULL, NULL, 0)) != NULL);
	r->qp = ibv_create_qp(r->pd, &(struct ibv_qp_init_attr){
		.send_cq = r->cq, .recv_cq = r->cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1,
			 .max_recv_sge = 1 } });
	VS_ASSERT(r->qp != NULL);
	VS_ASSERT(posix_memalign(&r->buf, 4096, 8192) == 0);
	VS_ASSERT((r->mr = ibv_reg_mr(r->pd, r->buf, 4096, IBV_ACCESS_LOCAL_WRITE)) != NULL);
	r->memfd = memfd_create("newest_api", 0);
	VS_ASSERT(r->memfd >= 0 && ftruncate(r->memfd, 4096) == 0);
	VS_ASSERT((r->ch = rdma_create_event_channel()) != NULL);
	VS_ASSERT(rdma_create_id(r->ch, &r->id, NULL, RDMA_PS_TCP) == 0);
}

static void rig_down(struct rig *r)
{
	VS_ASSERT(rdma_destroy_id(r->id) == 0);
	rdma_destroy_event_channel(r->ch);
	close(r->memfd);
	VS_ASSERT(ibv_dereg_mr(r->mr) == 0);
	VS_ASSERT(ibv_destroy_qp(r->qp) == 0);
	VS_ASSERT(ibv_destroy_cq(r->cq) == 0);
	VS_ASSERT(ibv_dealloc_pd(r->pd) == 0);
	VS_ASSERT(ibv_close_device(r->ctx) == 0);
	free(r->buf);
	free((void *)r->dev);
}

/* The typed path end to end: vs_mr_register_dmabuf on this release. */
static int typed_dmabuf(const struct rig *r)
{
	struct vs_feature_info fi;
	struct vs_context *ctx;
	struct vs_pd *pd;
	struct vs_mr *mr = NULL;
	char want[256];
	int ret, ok;

	VS_ASSERT(vs_feature_query(VS_FEATURE_DMABUF_MR, &fi) == 0);
	VS_ASSERT(fi.compiled_in);
	if (vs_device_open(r->dev, &ctx) || vs_pd_alloc(ctx, &pd))
		VS_FAIL("typed open: %s", vs_last_error()->message);
	ret = vs_mr_register_dmabuf(pd, r->memfd, 0, 4096, 0, 0, &mr);
	if (!fi.available)
		snprintf(want, sizeof(want), "ibv_reg_dmabuf_mr needs rdma-core 34 "
			 "or later; this machine has %s", fi.found);
	else
		snprintf(want, sizeof(want), "(%s does not)", r->dev);
	ok = ret == -EOPNOTSUPP && mr == NULL &&
	     strstr(vs_last_error()->message, want) != NULL;
	printf("typed: vs_mr_register_dmabuf = %d: %s (%s)\n", ret,
	       vs_last_error()->message, ok ? "as it must" : "WRONG");
	if (mr)
		VS_ASSERT(vs_mr_close(mr) == 0);
	VS_ASSERT(vs_pd_close(pd) == 0);
	VS_ASSERT(vs_device_close(ctx) == 0);
	return !ok;
}

int main(void)
{
	struct vs_library_info ib;
	struct rig r;
	int bad = 0, same = 0, unsup = 0;
	size_t i;

	vs_test_require_device();
	rig_up(&r);
	VS_ASSERT(vs_library_query(VS_LIB_IBVERBS, &ib) == 0 && ib.loaded);
	printf("release: %s (%s), device %s\n", ib.highest_node, ib.path, r.dev);
	printf("| function | node | here | drop-in | library | verdict |\n");
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct row *w = &rows[i];
		const char *node = vs_symbol_node(w->name), *path, *verdict;
		char got[200], want[200] = "";
		void *h = NULL, *real = NULL;

		VS_ASSERT(node != NULL);	/* the pinned headers declare it */
		path = lib_path(node);
		if (path)
			h = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
		if (h)
			real = dlvsym(h, w->name, node);
		in_child(&r, w, w->dropin, got, sizeof(got));
		if (real) {
			in_child(&r, w, real, want, sizeof(want));
			verdict = strcmp(got, want) ? "DIFFERENT" : "same";
		} else {
			char ns[200];

			not_supported(w, ns, sizeof(ns));
			snprintf(want, sizeof(want), "(no %s)", node);
			verdict = strcmp(got, ns) ? "WRONG (not the not-supported result)"
						 : "not supported";
		}
		if (h)
			dlclose(h);	/* only the reference NOLOAD took */
		if (!strcmp(verdict, "same"))
			same++;
		else if (!strcmp(verdict, "not supported"))
			unsup++;
		else
			bad++;
		printf("| %s | %s | %s | %s | %s | %s |\n", w->name, node,
		       real ? "yes" : "no", got, want, verdict);
	}
	bad += typed_dmabuf(&r);
	rig_down(&r);
	printf("%zu functions: %d the same as the release's own library, %d "
	       "not supported (node absent) as documented, %d wrong\n",
	       sizeof(rows) / sizeof(rows[0]), same, unsup, bad);
	return bad ? 1 : 0;
}
