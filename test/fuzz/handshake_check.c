/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the struct-based handshake's checks on every bit
 * pattern of a remote endpoint, against the fake provider of test/stubs
 * (build/.../stubs/fake).  A UC and a UD QP (RoCE port) take each remote;
 * the handshake accepts exactly what the wire parser accepts (of this
 * transport and link layer), and an accepted remote round-trips through
 * the wire form.  After a success the QP goes back to RESET for the next.
 */
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <verbshim.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct vs_context *ctx;
static struct vs_pd *pd;
static struct vs_cq *cq;
static struct vs_uc_qp *uc;
static struct vs_ud_qp *ud;
static unsigned long accepted, refused;

/* how often each side was taken: a target that never accepts tests little */
__attribute__((destructor)) static void report(void)
{
	fprintf(stderr, "handshake_check: %lu remotes accepted, %lu refused\n",
		accepted, refused);
}

static void must(int ret, const char *what)
{
	char buf[600];

	if (ret) {
		fprintf(stderr, "%s: %s\n", what,
			vs_format_error(vs_last_error(), buf, sizeof(buf)));
		exit(1);
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char exe[PATH_MAX], fake[PATH_MAX + 32];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	(void)argc;
	(void)argv;
	if (n <= 0)
		exit(1);
	exe[n] = 0;
	/* build/fuzz/fuzz/handshake_check -> build/fuzz/stubs/fake */
	snprintf(fake, sizeof(fake), "%s/../stubs/fake/libibverbs.so.1", dirname(exe));
	setenv("VERBSHIM_LIBIBVERBS", fake, 1);
	must(vs_device_open(NULL, &ctx), "vs_device_open (the fake provider)");
	must(vs_pd_alloc(ctx, &pd), "vs_pd_alloc");
	must(vs_cq_create(ctx, NULL, &cq), "vs_cq_create");
	must(vs_uc_qp_create(pd, &(struct vs_uc_config){ .send_cq = cq }, &uc),
	     "vs_uc_qp_create");
	must(vs_ud_qp_create(pd, &(struct vs_ud_config){ .send_cq = cq }, &ud),
	     "vs_ud_qp_create");
	return 0;
}

/* What the parser says of this struct: 0 when it is well-formed. */
static int parses(const struct vs_endpoint *ep)
{
	uint8_t wire[VS_ENDPOINT_WIRE_SIZE];
	struct vs_endpoint back;

	if (vs_endpoint_to_bytes(ep, wire))
		return -1;
	/* field by field: the fuzzed struct's padding bytes are arbitrary */
	if (vs_endpoint_from_bytes(wire, sizeof(wire), &back) ||
	    back.transport != ep->transport || back.flags != ep->flags ||
	    back.qpn != ep->qpn || back.psn != ep->psn || back.qkey != ep->qkey ||
	    back.lid != ep->lid || back.port != ep->port || back.mtu != ep->mtu ||
	    memcmp(&back.gid, &ep->gid, sizeof(back.gid))) {
		fprintf(stderr, "a well-formed endpoint does not round-trip\n");
		abort();
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ibv_qp_attr reset = { .qp_state = IBV_QPS_RESET };
	struct vs_endpoint ep;
	struct vs_ud_dest dest;
	bool fits, ok;

	if (size < sizeof(ep))
		return 0;
	memcpy(&ep, data, sizeof(ep));
	/* the QPs are on a RoCE port: only RoCE endpoints fit them */
	fits = parses(&ep) == 0 && (ep.flags & VS_EP_ETHERNET);
	if (ep.transport == VS_TRANSPORT_UD) {
		ok = vs_ud_handshake(ud, &ep, &dest) == 0;
		if (ok) {
			must(vs_ud_dest_release(&dest), "vs_ud_dest_release");
			must(vs_ud_qp_modify(ud, &reset, IBV_QP_STATE), "reset UD");
		}
	} else {
		ok = vs_uc_handshake(uc, &ep) == 0;
		fits = fits && ep.transport == VS_TRANSPORT_UC;
		if (ok)
			must(vs_uc_qp_modify(uc, &reset, IBV_QP_STATE), "reset UC");
	}
	if (ok)
		accepted++;
	else
		refused++;
	if (ok != fits) {
		fprintf(stderr, "handshake %s what the parser %s: %s\n",
			ok ? "accepted" : "refused", fits ? "accepts" : "refuses",
			vs_last_error()->message);
		abort();
	}
	return 0;
}
