/* SPDX-License-Identifier: MIT */
/*
 * EFA SRD on a device that is not EFA (rxe), with the real libefa of the
 * rdma-core under test: every SRD entry point fails with its clear error
 * and nothing crashes.  The creation and the caps query name the device
 * ("device rxe0 is not an EFA device: SRD needs the efa provider", and
 * the loader's reason when libefa did not load); efadv_query_ah on an rxe
 * address handle is refused by libefa itself; the calls on handles that
 * cannot exist refuse NULL.  Then examples/srd_pingpong must say why it
 * cannot run and exit 77 without touching the network.
 */
#include <libgen.h>
#include <limits.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../common/vs_typed.h"

static void not_efa_message(const char *dev)
{
	char want[128];

	snprintf(want, sizeof(want),
		 "device %s is not an EFA device: SRD needs the efa provider", dev);
	if (!strstr(vs_last_error()->message, want))
		VS_FAIL("message \"%s\" lacks \"%s\"", vs_last_error()->message, want);
	VS_ASSERT_STREQ(vs_last_error()->verb, "efadv_query_device");
	printf("  %s\n", vs_t_err());
}

static void entry_points(void)
{
	struct vs_context *ctx;
	struct vs_pd *pd;
	struct vs_cq *cq;
	struct vs_mr *mr;
	struct vs_ud_qp *ud = NULL;
	struct vs_srd_qp *srd = (struct vs_srd_qp *)1;
	struct vs_efa_caps caps = { 0 };
	struct vs_endpoint ep;
	struct vs_srd_dest sdest = { { 0 } };
	struct vs_srd_batch sb = { { 0 } };
	struct vs_recv_batch rb;
	struct vs_efa_wqs wqs = { 0 };
	struct ibv_sge sge;
	struct vs_remote rem;
	int ret;

	VS_OK(vs_device_open(vs_t_dev(), &ctx));
	VS_OK(vs_pd_alloc(ctx, &pd));
	VS_OK(vs_cq_create(ctx, NULL, &cq));
	VS_OK(vs_mr_alloc(pd, 4096, 0, &mr));
	sge = vs_mr_sge(mr, 0, 64);
	rem = vs_mr_remote(mr, 2048);

	VS_ASSERT_EQ(vs_efa_query_caps(ctx, &caps), -EOPNOTSUPP);
	not_efa_message(ctx->name);
	VS_ASSERT_EQ(caps.comp_mask, 0);
	ret = vs_srd_qp_create(pd, &(struct vs_srd_config){ .send_cq = cq }, &srd);
	VS_ASSERT_EQ(ret, -EOPNOTSUPP);
	VS_ASSERT(srd == NULL);
	not_efa_message(ctx->name);

	/* a real rxe AH as an SRD destination: libefa refuses it (iWARP has no UD, no AH) */
	if (!vs_t_iwarp()) {
		VS_OK(vs_ud_qp_create(pd, &(struct vs_ud_config){ .send_cq = cq }, &ud));
		VS_OK(vs_ud_endpoint(ud, &ep));
		VS_OK(vs_ud_handshake(ud, &ep, &sdest.base));
		ret = vs_srd_dest_query(&sdest, &(struct vs_efa_ah_info){ 0 });
		VS_ASSERT(ret < 0);
		VS_ASSERT_STREQ(vs_last_error()->call, "vs_srd_dest_query");
		printf("  %s\n", vs_t_err());
		/* an SRD endpoint cannot be handshaken by a UD QP */
		ep.transport = VS_TRANSPORT_SRD;
		VS_ASSERT_EQ(vs_ud_handshake(ud, &ep, &(struct vs_ud_dest){ 0 }), -EINVAL);
		VS_OK(vs_srd_dest_release(&sdest));
	}

	/* the calls on an SRD QP that could not be created: clean refusals */
	VS_ASSERT_EQ(vs_srd_qp_close(srd), -EINVAL);
	VS_ASSERT_EQ(vs_srd_endpoint(srd, &ep), -EINVAL);
	VS_ASSERT_EQ(vs_srd_handshake(srd, &ep, &sdest), -EINVAL);
	VS_ASSERT_EQ(vs_srd_qp_modify(srd, &(struct ibv_qp_attr){ 0 }, IBV_QP_STATE), -EINVAL);
	VS_ASSERT_EQ(vs_srd_qp_query_wqs(srd, &wqs), -EINVAL);
	VS_ASSERT_EQ(vs_srd_recv_start(srd, &rb), -EINVAL);
	VS_ASSERT_EQ(vs_srd_batch_start(srd, &sb), -EINVAL);
	VS_ASSERT_EQ(vs_srd_send(&sb, 1, 0, &sdest, &sge, 1), -EINVAL);
	VS_ASSERT_EQ(vs_srd_send_imm(&sb, 1, 0, &sdest, 2, &sge, 1), -EINVAL);
	VS_ASSERT_EQ(vs_srd_write(&sb, 1, 0, &sdest, &sge, 1, rem), -EINVAL);
	VS_ASSERT_EQ(vs_srd_write_imm(&sb, 1, 0, &sdest, 2, &sge, 1, rem), -EINVAL);
	VS_ASSERT_EQ(vs_srd_read(&sb, 1, 0, &sdest, &sge, 1, rem), -EINVAL);
	VS_ASSERT_EQ(vs_srd_batch_submit(&sb), -EINVAL);
	vs_srd_batch_abort(&sb);
	VS_ASSERT_EQ(vs_srd_dest_query(&sdest, &(struct vs_efa_ah_info){ 0 }), -EINVAL);
	VS_ASSERT(vs_srd_qp_raw(srd) == NULL);
	VS_ASSERT_EQ(vs_srd_qp_num(srd), 0);
	VS_ASSERT(!vs_srd_qp_is_extended(srd));
	VS_ASSERT(vs_srd_qp_caps(srd) == NULL);

	if (ud)
		VS_OK(vs_ud_qp_close(ud));
	VS_OK(vs_mr_close(mr));
	VS_OK(vs_cq_close(cq));
	VS_OK(vs_pd_close(pd));
	VS_OK(vs_device_close(ctx));
}

/* examples/srd_pingpong on this device: exit 77 and the reason. */
static void example_refuses(const char *dev)
{
	char exe[PATH_MAX], prog[PATH_MAX + 32], out[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int pipefd[2], status;
	size_t got = 0;
	pid_t pid;

	VS_ASSERT(n > 0);
	exe[n] = 0;
	snprintf(prog, sizeof(prog), "%s/../../bin/srd_pingpong", dirname(exe));
	if (access(prog, X_OK))
		VS_FAIL("%s is missing (make examples builds it)", prog);
	VS_ASSERT(pipe(pipefd) == 0);
	pid = fork();
	VS_ASSERT(pid >= 0);
	if (!pid) {
		dup2(pipefd[1], 1);
		dup2(pipefd[1], 2);
		close(pipefd[0]);
		/* a server that would wait for a peer, were it to get that far */
		execl(prog, prog, "-d", dev, "-n", "1", (char *)NULL);
		_exit(127);
	}
	close(pipefd[1]);
	while (got < sizeof(out) - 1 &&
	       (n = read(pipefd[0], out + got, sizeof(out) - 1 - got)) > 0)
		got += (size_t)n;
	out[got] = 0;
	close(pipefd[0]);
	VS_ASSERT_EQ(waitpid(pid, &status, 0), pid);
	printf("  srd_pingpong said:\n%s", out);
	VS_ASSERT(WIFEXITED(status));
	VS_ASSERT_EQ(WEXITSTATUS(status), 77);
	VS_ASSERT(strstr(out, "is not an EFA device: SRD needs the efa provider"));
	VS_ASSERT(strstr(out, "it needs an EFA device"));
}

int main(void)
{
	struct vs_context *ctx;
	char dev[VS_NAME_MAX];

	if (vs_device_open(vs_t_dev(), &ctx))
		VS_SKIP("no RDMA device: %s", vs_t_err());
	snprintf(dev, sizeof(dev), "%s", ctx->name);
	VS_OK(vs_device_close(ctx));
	entry_points();
	example_refuses(dev);
	printf("SRD on %s (not EFA): every entry point refused cleanly, "
	       "srd_pingpong exits 77 with the reason\n", dev);
	return 0;
}
