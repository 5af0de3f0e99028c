// SPDX-License-Identifier: MIT
/*
 * The C++ owners (include/verbshim.hpp) against the fake provider: every
 * owner type created, moved, closed by its destructor and by close(); a
 * failed close keeps the handle for the retry; failures carry the error
 * record (call, verb, errno, sentence) and throw only from value();
 * batches abort in their destructor unless submitted; SGE lists from one
 * entry, arrays, containers and braced lists.  After each part the fake
 * has no object left (vs_stub_live), and the ASan and valgrind stages
 * run this binary too (no leak).  The CM owners are checked where the
 * host allows (librdmacm kept away: their failures); on rxe
 * examples/cm_echo_cxx runs them.
 */
#include <array>
#include <dlfcn.h>
#include <new>
#include <libgen.h>
#include <limits.h>
#include <string>
#include <unistd.h>
#include <vector>

#include <verbshim.hpp>

#include "../common/vs_test.h"

/*
 * The allocations of this program, malloc's, so that the failure copy's
 * nothrow new can be made to fail (failure_without_memory()).
 */
static bool nothrow_new_fails;
void *operator new(std::size_t n)
{
	void *p = std::malloc(n ? n : 1);

	if (!p)
		throw std::bad_alloc();
	return p;
}
void *operator new(std::size_t n, const std::nothrow_t &) noexcept
{
	return nothrow_new_fails ? nullptr : std::malloc(n ? n : 1);
}
void operator delete(void *p) noexcept { std::free(p); }
void operator delete(void *p, std::size_t) noexcept { std::free(p); }
void operator delete(void *p, const std::nothrow_t &) noexcept { std::free(p); }

/*
 * Small where it is hot: a status is two words (the errno, the record's
 * out-of-line copy), returned by every add of a batch.
 */
static_assert(sizeof(vs::failure) <= 2 * sizeof(void *), "vs::failure is two words");
static_assert(sizeof(vs::status) == sizeof(vs::failure), "vs::status is a failure");
static_assert(sizeof(vs::result<int>) <= 3 * sizeof(void *), "a poll's result is three words");
static_assert(sizeof(vs::result<vs::rc_qp>) <= 4 * sizeof(void *), "a create's result is four words");
static_assert(sizeof(vs::rc_qp) == sizeof(void *), "a handle's owner is its pointer");
static_assert(sizeof(vs::ud_dest) == sizeof(vs_ud_dest), "a destination's owner is the destination");
/* one owner template for handles and destinations */
static_assert(std::is_same<vs::ud_dest, vs::owner<vs_ud_dest>>::value, "");
static_assert(std::is_same<vs::dest_owner<vs_srd_dest>, vs::srd_dest>::value, "");
static_assert(std::is_same<decltype(vs::rc_qp().get()), vs_rc_qp *>::value, "");
static_assert(std::is_same<decltype(vs::ud_dest().get()), const vs_ud_dest &>::value, "");
static_assert(!std::is_copy_constructible<vs::ud_dest>::value, "");
static_assert(std::is_nothrow_move_constructible<vs::ud_dest>::value, "");

namespace {

struct fail_slot {
	char verb[48];
	int err;
};
fail_slot *fail_next;
int *live;

/* the fake of this build: build/.../test/unit/NAME -> build/.../stubs/fake */
std::string fake_path(const char *lib)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	VS_ASSERT(n > 0);
	exe[n] = 0;
	std::string p = std::string(dirname(exe)) + "/../../stubs/fake/" + lib;
	if (access(p.c_str(), R_OK))
		VS_FAIL("the fake %s is missing (make tests builds it)", p.c_str());
	return p;
}

void *fake_sym(const char *name)
{
	void *h = dlopen(fake_path("libibverbs.so.1").c_str(), RTLD_NOW | RTLD_NOLOAD);
	void *sym;

	VS_ASSERT(h != nullptr);
	sym = dlsym(h, name);
	VS_ASSERT(sym != nullptr);
	dlclose(h);
	return sym;
}

void use_fake()
{
	vs_device_entry e[2];
	size_t count;

	setenv("VERBSHIM_LIBIBVERBS", fake_path("libibverbs.so.1").c_str(), 1);
	setenv("VS_FAKE_EXTENDED", "1", 1);
	setenv("VERBSHIM_LIBRDMACM", "/nonexistent/librdmacm.so.1", 1);
	VS_ASSERT_EQ(vs_device_list(e, 2, &count), 0);
	VS_ASSERT_EQ(count, 1);
	fail_next = static_cast<fail_slot *>(fake_sym("vs_stub_fail"));
	live = static_cast<int *>(fake_sym("vs_stub_live"));
}

void fail_once(const char *verb, int err)
{
	snprintf(fail_next->verb, sizeof(fail_next->verb), "%s", verb);
	fail_next->err = err;
}

enum { CTX, PD, MR, CQ, QP, SRQ, AH };

void all_gone(const char *part)
{
	for (int k = 0; k < 7; k++)
		if (live[k])
			VS_FAIL("%s: %d objects of kind %d left", part, live[k], k);
}

/* r succeeded; else fail printing its record */
#define OK(r)                                                                 \
	do {                                                                  \
		const auto &vs_r_ = (r);                                      \
		if (!vs_r_) {                                                 \
			char b_[512];                                         \
			VS_FAIL("%s: %s", #r, vs_r_.error().format(b_, sizeof(b_))); \
		}                                                             \
	} while (0)

/* r failed with err, naming call, and its message contains text */
void expect_failure(const vs::failure &f, int err, const char *call, const char *text)
{
	if (f.ok())
		VS_FAIL("expected %s to fail with %d", call, err);
	VS_ASSERT_EQ(f.code().value(), err);
	VS_ASSERT(f.code().category() == std::generic_category());
	VS_ASSERT_STREQ(f.call(), call);
	if (!strstr(f.message(), text))
		VS_FAIL("%s: message \"%s\" lacks \"%s\"", call, f.message(), text);
}

template <class R> void expect_fails(const R &r, int err, const char *call, const char *text)
{
	VS_ASSERT(!r);
	VS_ASSERT(!r.has_value());
	if (r.code() != std::error_code(err, std::generic_category()))
		VS_FAIL("%s: failed with %d (%s), expected %d", call, r.code().value(),
			r.error().message(), err);
	expect_failure(r.error(), err, call, text);
}

/* Errors: the record's copy, exceptions only from value(). */
void errors()
{
	auto r = vs::device_open("nosuchdev");
	expect_fails(r, ENODEV, "vs_device_open", "no RDMA device named \"nosuchdev\"");
	VS_ASSERT(r.error().verb() == nullptr);
	VS_ASSERT_STREQ(r.error().record().call, "vs_device_open");

	/* the copy stays when the thread's record moves on */
	vs::failure f = r.error();
	auto other = vs::pd_alloc(nullptr);
	expect_fails(other, EINVAL, "vs_pd_alloc", "is NULL");
	expect_failure(f, ENODEV, "vs_device_open", "nosuchdev");

	bool thrown = false;
	try {
		vs::context c = std::move(r).value();
		(void)c;
	} catch (const vs::error &e) {
		thrown = true;
		VS_ASSERT(e.code() == std::errc::no_such_device);
		VS_ASSERT(strstr(e.what(), "vs_device_open: ") == e.what());
		VS_ASSERT(strstr(e.what(), "nosuchdev") != nullptr);
		expect_failure(e.failure(), ENODEV, "vs_device_open", "nosuchdev");
	}
	VS_ASSERT(thrown);
	/* a status throws the same way; a success does not */
	thrown = false;
	try {
		vs::pd_alloc(nullptr).value();
	} catch (const std::system_error &e) {
		thrown = e.code().value() == EINVAL;
	}
	VS_ASSERT(thrown);
	vs::status ok;
	VS_ASSERT(ok && ok.error().ok() && !ok.code());
	ok.value();
	char buf[64];
	VS_ASSERT_STREQ(ok.error().format(buf, sizeof(buf)), "no error");
	VS_ASSERT(ok.error().call() == nullptr && ok.error().verb() == nullptr);
	VS_ASSERT_STREQ(ok.error().message(), "");
	VS_ASSERT(ok.error().record().call == nullptr && ok.error().record().err == 0);

	/*
	 * Copies share the record's copy and outlive each other, moves leave
	 * an ok failure, assignments over a failure drop its copy (ASan and
	 * valgrind: no leak, no use after free).
	 */
	vs::failure a = vs::pd_alloc(nullptr).error();
	{
		vs::failure b = a, c;
		c = b;
		vs::failure &same = c;
		c = same; /* self-assignment keeps the copy */
		vs::failure d(std::move(b));
		VS_ASSERT(b.ok() && b.call() == nullptr);
		expect_failure(d, EINVAL, "vs_pd_alloc", "is NULL");
		d = f;
		expect_failure(d, ENODEV, "vs_device_open", "nosuchdev");
		c = std::move(d);
		expect_failure(c, ENODEV, "vs_device_open", "nosuchdev");
		VS_ASSERT(d.ok());
	}
	expect_failure(a, EINVAL, "vs_pd_alloc", "is NULL");
	VS_ASSERT(&a.record() != vs_last_error());
	VS_ASSERT_STREQ(a.record().message, a.message());
	/* a failure made here: its own sentence, no C record */
	vs::status busy = vs::failure::made(EBUSY, "vs_x", "made here");
	expect_fails(busy, EBUSY, "vs_x", "made here");
	VS_ASSERT_EQ(busy.error().batch_posted(), 0);
}

/*
 * Without memory for the record's copy: the errno and the call stay, the
 * message says the record was not kept, batch_posted() is -1 (unknown),
 * record() and format() are made from them.
 */
void failure_without_memory()
{
	nothrow_new_fails = true;
	/* valgrind puts its own operator new in place of this program's */
	if (void *p = ::operator new(1, std::nothrow)) {
		nothrow_new_fails = false;
		::operator delete(p);
		printf("note: operator new is not this program's (valgrind?): "
		       "the record's copy failing is not tried\n");
		return;
	}
	auto r = vs::pd_alloc(nullptr);
	nothrow_new_fails = false;
	expect_fails(r, EINVAL, "vs_pd_alloc", "not kept: out of memory");
	VS_ASSERT(r.error().verb() == nullptr);
	VS_ASSERT_EQ(r.error().batch_posted(), -1);
	VS_ASSERT_STREQ(r.error().record().call, "vs_pd_alloc");
	VS_ASSERT_EQ(r.error().record().err, EINVAL);
	char buf[256];
	VS_ASSERT(strstr(r.error().format(buf, sizeof(buf)), "vs_pd_alloc: ") == buf);
	vs::failure copy = r.error();
	expect_failure(copy, EINVAL, "vs_pd_alloc", "out of memory");
}

/* Every verbs owner: create, move, destructor, close, close failures. */
void owners()
{
	{
		vs::context ctx = vs::device_open("fake0").value();
		VS_ASSERT(ctx && ctx.get() != nullptr);
		VS_ASSERT_EQ(live[CTX], 1);

		vs::pd pd = vs::pd_alloc(ctx).value();
		vs::mr mr = vs::mr_alloc(pd, 4096).value();
		static char user[256];
		vs::mr umr = vs::mr_register(pd, user, sizeof(user)).value();
		vs::channel ch = vs::channel_create(ctx).value();
		vs_cq_config ccfg{};
		ccfg.depth = 64;
		ccfg.channel = ch.get();
		vs::cq cq = vs::cq_create(ctx, ccfg).value();
		vs::srq srq = vs::srq_create(pd).value();
		vs_rc_config rcfg{};
		rcfg.send_cq = cq.get();
		vs::rc_qp rc = vs::rc_qp_create(pd, rcfg).value();
		vs_uc_config ucfg{};
		ucfg.send_cq = cq.get();
		vs::uc_qp uc = vs::uc_qp_create(pd, ucfg).value();
		vs_ud_config dcfg{};
		dcfg.send_cq = cq.get();
		dcfg.srq = srq.get();
		vs::ud_qp ud = vs::ud_qp_create(pd, dcfg).value();
		VS_ASSERT_EQ(live[PD], 1);
		VS_ASSERT_EQ(live[MR], 2);
		VS_ASSERT_EQ(live[CQ], 1);
		VS_ASSERT_EQ(live[SRQ], 1);
		VS_ASSERT_EQ(live[QP], 3);

		/* move construction and assignment hand the handle over */
		vs_pd *raw = pd.get();
		vs::pd moved(std::move(pd));
		VS_ASSERT(!pd && pd.get() == nullptr && moved.get() == raw);
		pd = std::move(moved);
		VS_ASSERT(pd.get() == raw && !moved);
		/* moving onto an owner closes what it held */
		vs::pd spare = vs::pd_alloc(ctx).value();
		VS_ASSERT_EQ(live[PD], 2);
		spare = vs::pd_alloc(ctx).value();
		VS_ASSERT_EQ(live[PD], 2);
		spare = vs::pd();
		VS_ASSERT_EQ(live[PD], 1);

		/* a raw handle is borrowed (ref), never closed by the call */
		vs::pd second = vs::pd_alloc(ctx.get()).value();
		VS_ASSERT(second.close());
		VS_ASSERT(!second);
		VS_ASSERT(second.close()); /* empty: nothing to close */

		/* another kind of handle is refused at run time through a raw cast */
		auto bad = vs::pd_alloc(reinterpret_cast<vs_context *>(cq.get()));
		expect_fails(bad, EINVAL, "vs_pd_alloc", "another kind (CQ, expected device context)");

		/* a create's own failure: the provider's */
		fail_once("ibv_alloc_pd", ENOMEM);
		expect_fails(vs::pd_alloc(ctx), ENOMEM, "vs_pd_alloc", "");

		/* a failed close keeps the handle: close() again succeeds */
		vs::mr mr2 = vs::mr_alloc(pd, 64).value();
		fail_once("ibv_dereg_mr", EBUSY);
		vs::status st = mr2.close();
		expect_fails(st, EBUSY, "vs_mr_close", "");
		VS_ASSERT_STREQ(st.error().verb(), "ibv_dereg_mr");
		VS_ASSERT(mr2);
		OK(mr2.close());
		VS_ASSERT(!mr2);

		/* a failed close in a destructor: left in the record, handle open */
		vs_mr *kept;
		{
			vs::mr mr3 = vs::mr_alloc(pd, 64).value();
			kept = mr3.get();
			vs_clear_error();
			fail_once("ibv_dereg_mr", EBUSY);
		}
		VS_ASSERT_STREQ(vs_last_error()->call, "vs_mr_close");
		VS_ASSERT_EQ(vs_last_error()->err, EBUSY);
		vs::mr adopted(kept); /* the C rule: it is open again; close it */
		OK(adopted.close());

		/* release() hands the handle back unclosed */
		vs_mr *rel = umr.release();
		VS_ASSERT(!umr);
		VS_ASSERT_EQ(vs_mr_close(rel), 0);

		/* parents closed before children (the C lifetimes) */
		OK(ctx.close());
		OK(pd.close());
		VS_ASSERT_EQ(live[CTX], 1);
		/* the rest goes by destructors, children before parents or not */
	}
	all_gone("owners");
}

/* Send and receive batches: abort unless submitted; spans of SGEs. */
void batches()
{
	{
		vs::context ctx = vs::device_open().value();
		vs::pd pd = vs::pd_alloc(ctx).value();
		vs::cq cq = vs::cq_create(ctx).value();
		vs::mr mr = vs::mr_alloc(pd, 4096).value();
		vs_rc_config cfg{};
		cfg.send_cq = cq.get();
		vs::rc_qp qp = vs::rc_qp_create(pd, cfg).value();
		vs_endpoint ep = vs::rc_endpoint(qp).value();
		OK(vs::rc_handshake(qp, ep));
		ibv_sge one = vs_mr_sge(mr.get(), 0, 64);
		ibv_sge two[2] = { vs_mr_sge(mr.get(), 0, 32), vs_mr_sge(mr.get(), 64, 32) };
		std::vector<ibv_sge> vec(two, two + 2);
		std::array<ibv_sge, 2> arr = { { two[0], two[1] } };
		vs_wc wc[8];

		{
			vs::rc_batch b;
			VS_ASSERT(!b.is_open());
			OK(b.start(qp));
			VS_ASSERT(b.is_open());
			/* a second start of the same batch is refused, it stays open */
			expect_fails(b.start(qp), EBUSY, "vs_rc_batch_start", "this batch is open");
			VS_ASSERT(b.is_open());
			/* a second batch on the QP: the C refusal */
			vs::rc_batch other;
			expect_fails(other.start(qp), EBUSY, "vs_rc_batch_start", "");
			OK(b.send(1, VS_WR_SIGNALED, one));
			/* the QP cannot close under its open batch */
			expect_fails(qp.close(), EBUSY, "vs_rc_qp_close", "a send batch is open");
			VS_ASSERT(qp);
		} /* aborted here: nothing posted */
		VS_ASSERT_EQ(vs::cq_poll(cq, wc).value(), 0);

		{
			vs::rc_batch b;
			OK(b.start(qp));
			OK(b.send(2, VS_WR_SIGNALED, one));
			OK(b.send(3, VS_WR_SIGNALED, two));
			OK(b.send(4, VS_WR_SIGNALED, vec));
			OK(b.send(5, VS_WR_SIGNALED, arr));
			OK(b.send(6, VS_WR_SIGNALED, { two[0], two[1] }));
			OK(b.send(7, VS_WR_SIGNALED, vs::sges(two, 1)));
			OK(b.write(8, VS_WR_SIGNALED, one, vs_mr_remote(mr.get(), 1024)));
			/* a poisoned SGE (outside the MR) is the C refusal, recorded */
			ibv_sge out = vs_mr_sge(mr.get(), 8192, 8);
			expect_fails(b.send(9, 0, out), EINVAL, "vs_rc_send", "SGE #0");
			OK(b.submit());
			VS_ASSERT(!b.is_open());
			/* submitted: a second submit is refused, the destructor aborts nothing */
			expect_fails(b.submit(), EINVAL, "vs_rc_batch_submit", "");
		}
		int got = 0;
		uint64_t seen = 0;
		while (got < 7) {
			int n = vs::cq_poll(cq, wc).value();
			VS_ASSERT(n > 0);
			for (int i = 0; i < n; i++) {
				VS_ASSERT_EQ(wc[i].status, IBV_WC_SUCCESS);
				seen |= 1ull << wc[i].wr_id;
			}
			got += n;
		}
		VS_ASSERT_EQ(seen, 0x1fcull); /* wr_ids 2 to 8 */
		VS_ASSERT_EQ(vs::cq_poll(cq, wc).value(), 0);

		/* receives: abort unless submitted */
		long *recvs = static_cast<long *>(fake_sym("vs_stub_recvs"));
		long before = *recvs;
		{
			vs::recv_batch rb;
			OK(rb.start(qp));
			OK(rb.add(1, one));
			expect_fails(rb.start(qp), EBUSY, "vs_rc_recv_start", "this batch is open");
		}
		VS_ASSERT_EQ(*recvs, before);
		{
			vs::recv_batch rb;
			OK(rb.start(qp));
			OK(rb.add(1, one));
			OK(rb.add(2, two));
			OK(rb.submit());
		}
		VS_ASSERT_EQ(*recvs, before + 2);

		/* a CQ without a channel cannot wait: the C refusal */
		expect_fails(vs::cq_wait(cq, 0, wc), EINVAL, "vs_cq_wait", "");
		OK(qp.close());
	}
	all_gone("batches");
}

/* UD and UC: destinations owned, released by their destructor. */
void datagrams()
{
	{
		vs::context ctx = vs::device_open().value();
		vs::pd pd = vs::pd_alloc(ctx).value();
		vs::channel ch = vs::channel_create(ctx).value();
		vs_cq_config ccfg{};
		ccfg.channel = ch.get();
		vs::cq cq = vs::cq_create(ctx, ccfg).value();
		vs::mr mr = vs::mr_alloc(pd, 4096).value();
		vs_ud_config dcfg{};
		dcfg.send_cq = cq.get();
		vs::ud_qp ud = vs::ud_qp_create(pd, dcfg).value();
		vs_endpoint ep = vs::ud_endpoint(ud).value();
		ibv_sge one = vs_mr_sge(mr.get(), 0, 64);
		vs_wc wc[4];

		vs::ud_dest dest = vs::ud_handshake(ud, ep).value();
		VS_ASSERT(dest && dest.get().ah != nullptr);
		VS_ASSERT_EQ(dest.get().remote_qpn, vs_ud_qp_num(ud.get()));
		VS_ASSERT_EQ(live[AH], 1);
		vs::ud_dest second = vs::ud_handshake(ud, ep).value();
		VS_ASSERT_EQ(live[AH], 2);
		vs::ud_dest moved(std::move(second));
		VS_ASSERT(!second && moved);
		moved = vs::ud_dest();
		VS_ASSERT_EQ(live[AH], 1);
		{
			vs::ud_batch b;
			OK(b.start(ud));
			OK(b.send(11, VS_WR_SIGNALED, dest, one));
			OK(b.send_imm(12, VS_WR_SIGNALED, dest, 0xabcd, one));
			OK(b.submit());
		}
		/* the channel: the completions wake the wait */
		int got = 0;
		while (got < 2)
			got += vs::cq_wait(cq, 1000, vs::span<vs_wc>(wc)).value();
		VS_ASSERT_EQ(got, 2);
		/* nothing more: a wait of 0 is EAGAIN (not recorded by C: made here) */
		auto none = vs::cq_wait(cq, 0, wc);
		expect_fails(none, EAGAIN, "vs_cq_wait", "nothing there (a wait of 0 ms)");
		/* a timeout is ETIMEDOUT, with the C record */
		vs_clear_error();
		auto late = vs::cq_wait(cq, 20, wc);
		expect_fails(late, ETIMEDOUT, "vs_cq_wait", "");
		VS_ASSERT(late.error().message()[0] != 0);
		VS_ASSERT_STREQ(late.error().message(), vs_last_error()->message);
		/* a bad remote: the C refusal, no destination */
		vs_endpoint bad = ep;
		bad.comp_mask = 1;
		expect_fails(vs::ud_handshake(ud, bad), EINVAL, "vs_ud_handshake", "");
		/* a failed release keeps the destination for the retry */
		fail_once("ibv_destroy_ah", EBUSY);
		expect_fails(dest.close(), EBUSY, "vs_ud_dest_release", "");
		VS_ASSERT(dest);
		OK(dest.close());
		VS_ASSERT(!dest);
		VS_ASSERT_EQ(live[AH], 0);

		vs_uc_config ucfg{};
		ucfg.send_cq = cq.get();
		vs::uc_qp uc = vs::uc_qp_create(pd, ucfg).value();
		OK(vs::uc_handshake(uc, vs::uc_endpoint(uc).value()));
		{
			vs::uc_batch b;
			OK(b.start(uc));
			OK(b.write(13, 0, one, vs_mr_remote(mr.get(), 512)));
		} /* aborted */
		VS_ASSERT_EQ(vs::cq_poll(cq, wc).value(), 0);
		/* SRD needs an EFA device: fake0 is none (test/unit/srd_stub.c has the fake libefa) */
		vs_srd_config scfg{};
		scfg.send_cq = cq.get();
		auto srd = vs::srd_qp_create(pd, scfg);
		VS_ASSERT(!srd);
		VS_ASSERT_STREQ(srd.error().call(), "vs_srd_qp_create");
		VS_ASSERT(srd.code() == std::errc::operation_not_supported);
	}
	all_gone("datagrams");
}

/* CM owners: their refusals, and a create failing for want of librdmacm. */
void cm()
{
	vs_cm_config cfg{};
	cfg.backlog = -1;
	expect_fails(vs::cm_listen(nullptr, "7471", cfg), EINVAL, "vs_cm_listen", "backlog -1");
	expect_fails(vs::cm_get_request(nullptr, 0), EINVAL, "vs_cm_get_request", "");
	expect_fails(vs::cm_next(nullptr, 0), EINVAL, "vs_cm_next", "");
	expect_fails(vs::cm_connect(nullptr), EINVAL, "vs_cm_connect", "");
	/* librdmacm is kept away (its init reads the fake's sysfs paths) */
	auto ch = vs::cm_channel_create();
	/* the cause first: librdmacm did not load, so no channel (issue 36) */
	expect_fails(ch, EOPNOTSUPP, "vs_cm_channel_create", "rdma-core is missing: librdmacm did not load");
	VS_ASSERT_STREQ(ch.error().verb(), "rdma_create_event_channel");
	vs::cm_id none;
	VS_ASSERT(!none);
	OK(none.close());
}

} // namespace

int main()
{
	use_fake();
	errors();
	failure_without_memory();
	owners();
	batches();
	datagrams();
	cm();
	all_gone("the end");
	printf("C++ owners: created, moved, closed and failed as the C API says; "
	       "nothing left on the fake\n");
	return 0;
}
