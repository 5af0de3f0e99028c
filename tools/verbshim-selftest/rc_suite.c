// SPDX-License-Identifier: MIT
/*
 * The RC operations, the same over the typed API and the drop-ins: each
 * posts, waits for its completions and checks the bytes that arrived.  A
 * write is checked by reading the written area back, once the read of the
 * responder's known pattern has been proven; each atomic by the old value
 * it returns and the word read back.
 */
#include <endian.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "selftest.h"

#define SWAP_VALUE 0x5e1f7e57c0ffee00ull
#define ADD_VALUE 7ull

uint8_t pattern_byte(size_t i)
{
	return (uint8_t)(i * 31 + (i >> 8) + 3);
}

void responder_init(uint8_t *remote)
{
	memset(remote, 0, REMOTE_SIZE);
	for (size_t i = 0; i < 4096; i++)
		remote[R_PATTERN + i] = pattern_byte(i);
}

/* One completion of wr_id with opcode, successful.  0 or -1, said in res. */
static int expect(const struct rc_api *a, struct result *res, uint64_t wr_id,
		  int opcode, struct rc_wc *wc)
{
	char err[256] = "";

	if (a->poll(a->ctx, wc, 0, err, sizeof(err))) {
		result_end(res, FAIL, "%s", err);
		return -1;
	}
	if (wc->status != IBV_WC_SUCCESS || wc->wr_id != wr_id ||
	    wc->opcode != opcode) {
		result_end(res, FAIL, "completion wr_id %llu opcode %d status %s, "
			   "expected wr_id %llu opcode %d success",
			   (unsigned long long)wc->wr_id, wc->opcode,
			   ibv_wc_status_str((enum ibv_wc_status)wc->status),
			   (unsigned long long)wr_id, opcode);
		return -1;
	}
	return 0;
}

/* Posts one operation and waits for its completion. */
static int one_op(const struct rc_api *a, struct result *res, enum rc_op op,
		  int opcode, uint64_t wr_id, uint32_t local_off, uint32_t len,
		  uint64_t raddr, uint32_t rkey, uint64_t cmp_add, uint64_t swap)
{
	char err[256] = "";
	struct rc_wc wc;

	if (a->post(a->ctx, op, wr_id, local_off, len, raddr, rkey, cmp_add,
		    swap, err, sizeof(err))) {
		result_end(res, FAIL, "%s", err);
		return -1;
	}
	return expect(a, res, wr_id, opcode, &wc);
}

/* The first byte where got differs from want, or -1. */
static long first_diff(const uint8_t *got, const uint8_t *want, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (got[i] != want[i])
			return (long)i;
	return -1;
}

static uint64_t word_at(const struct rc_api *a, uint32_t off)
{
	uint64_t v;

	memcpy(&v, a->local + off, sizeof(v));
	return v;
}

/* Reads the 8-byte atomic word back into L_RESULT. */
static int read_word(const struct rc_api *a, struct result *res, uint64_t wr_id,
		     uint64_t raddr, uint32_t rkey)
{
	memset(a->local + L_RESULT, 0xee, 8);
	return one_op(a, res, OP_READ, IBV_WC_RDMA_READ, wr_id, L_RESULT, 8,
		      raddr + R_ATOMIC, rkey, 0, 0);
}

static void test_send(const struct rc_api *a, struct result *res)
{
	char err[256] = "";
	struct rc_wc wc[2];
	long d;

	for (size_t i = 0; i < MSG_BYTES; i++)
		a->local[L_SRC + i] = (uint8_t)(i * 7 + 1);
	memset(a->local + L_RECV, 0, MSG_BYTES + 16);
	if (a->post_recv(a->ctx, 2, L_RECV, 4096, err, sizeof(err)) ||
	    a->post(a->ctx, OP_SEND, 1, L_SRC, MSG_BYTES, 0, 0, 0, 0, err,
		    sizeof(err))) {
		result_end(res, FAIL, "%s", err);
		return;
	}
	/* the send's and the receive's (the echo, or our own), either order */
	for (int i = 0; i < 2; i++)
		if (a->poll(a->ctx, &wc[i], 0, err, sizeof(err))) {
			result_end(res, FAIL, "%s", err);
			return;
		}
	if (wc[0].wr_id == 2) {
		struct rc_wc t = wc[0];

		wc[0] = wc[1];
		wc[1] = t;
	}
	if (wc[0].status || wc[0].wr_id != 1 || wc[0].opcode != IBV_WC_SEND ||
	    wc[1].status || wc[1].wr_id != 2 || wc[1].opcode != IBV_WC_RECV) {
		result_end(res, FAIL, "completions %llu/%s/%d and %llu/%s/%d, "
			   "expected the send (1) and the receive (2), successful",
			   (unsigned long long)wc[0].wr_id,
			   ibv_wc_status_str((enum ibv_wc_status)wc[0].status),
			   wc[0].opcode, (unsigned long long)wc[1].wr_id,
			   ibv_wc_status_str((enum ibv_wc_status)wc[1].status),
			   wc[1].opcode);
		return;
	}
	d = first_diff(a->local + L_RECV, a->local + L_SRC, MSG_BYTES);
	if (wc[1].byte_len != MSG_BYTES || d >= 0 || a->local[L_RECV + MSG_BYTES]) {
		result_end(res, FAIL, "received %u bytes (sent %d), first wrong "
			   "byte at %ld", wc[1].byte_len, MSG_BYTES, d);
		return;
	}
	result_end(res, PASS, "%d bytes sent, the received copy compared", MSG_BYTES);
}

static void test_read(const struct rc_api *a, struct result *res,
		      uint64_t raddr, uint32_t rkey)
{
	uint8_t want[4096];
	long d;

	memset(a->local + L_READ, 0, 4096);
	if (one_op(a, res, OP_READ, IBV_WC_RDMA_READ, 3, L_READ, 4096,
		   raddr + R_PATTERN, rkey, 0, 0))
		return;
	for (size_t i = 0; i < sizeof(want); i++)
		want[i] = pattern_byte(i);
	d = first_diff(a->local + L_READ, want, sizeof(want));
	if (d >= 0) {
		result_end(res, FAIL, "read 4096 bytes: byte %ld is 0x%02x, "
			   "expected 0x%02x", d, a->local[L_READ + d], want[d]);
		return;
	}
	result_end(res, PASS, "4096 bytes read, the responder's pattern");
}

static void test_write(const struct rc_api *a, struct result *res,
		       uint64_t raddr, uint32_t rkey)
{
	long d;

	for (size_t i = 0; i < 4096; i++)
		a->local[L_SRC + i] = (uint8_t)(i * 13 + 5);
	if (one_op(a, res, OP_WRITE, IBV_WC_RDMA_WRITE, 4, L_SRC, 4096,
		   raddr + R_WRITE, rkey, 0, 0))
		return;
	memset(a->local + L_READ, 0, 4096);
	if (one_op(a, res, OP_READ, IBV_WC_RDMA_READ, 5, L_READ, 4096,
		   raddr + R_WRITE, rkey, 0, 0))
		return;
	d = first_diff(a->local + L_READ, a->local + L_SRC, 4096);
	if (d >= 0) {
		result_end(res, FAIL, "wrote 4096 bytes, read back byte %ld as "
			   "0x%02x, expected 0x%02x", d, a->local[L_READ + d],
			   a->local[L_SRC + d]);
		return;
	}
	result_end(res, PASS, "4096 bytes written, read back, compared");
}

static void test_cas(const struct rc_api *a, struct result *res,
		     uint64_t raddr, uint32_t rkey)
{
	uint64_t old, now;

	memset(a->local + L_RESULT, 0xee, 8);
	if (one_op(a, res, OP_CAS, IBV_WC_COMP_SWAP, 6, L_RESULT, 8,
		   raddr + R_ATOMIC, rkey, 0, SWAP_VALUE))
		return;
	old = word_at(a, L_RESULT);
	if (read_word(a, res, 7, raddr, rkey))
		return;
	now = word_at(a, L_RESULT);
	if (old != 0 || now != SWAP_VALUE) {
		result_end(res, FAIL, "compare 0 swap 0x%llx: returned 0x%llx "
			   "(expected 0), the word now 0x%llx",
			   (unsigned long long)SWAP_VALUE,
			   (unsigned long long)old, (unsigned long long)now);
		return;
	}
	result_end(res, PASS, "0 -> 0x%llx, old value and word checked",
		   (unsigned long long)SWAP_VALUE);
}

static void test_faa(const struct rc_api *a, struct result *res,
		     uint64_t raddr, uint32_t rkey)
{
	uint64_t old, now;

	memset(a->local + L_RESULT, 0xee, 8);
	if (one_op(a, res, OP_FAA, IBV_WC_FETCH_ADD, 8, L_RESULT, 8,
		   raddr + R_ATOMIC, rkey, ADD_VALUE, 0))
		return;
	old = word_at(a, L_RESULT);
	if (read_word(a, res, 9, raddr, rkey))
		return;
	now = word_at(a, L_RESULT);
	if (old != SWAP_VALUE || now != SWAP_VALUE + ADD_VALUE) {
		result_end(res, FAIL, "add %llu to 0x%llx: returned 0x%llx, the "
			   "word now 0x%llx", (unsigned long long)ADD_VALUE,
			   (unsigned long long)SWAP_VALUE,
			   (unsigned long long)old, (unsigned long long)now);
		return;
	}
	result_end(res, PASS, "+%llu, old value and word checked",
		   (unsigned long long)ADD_VALUE);
}

void rc_suite(struct run *r, const struct port_under_test *p,
	      const struct rc_api *a, const char *prefix, uint64_t raddr,
	      uint32_t rkey)
{
	char name[48];

#define ROW(what) (snprintf(name, sizeof(name), "%s%s", prefix, what), \
		   result_begin(r, p, a->name, name))
	test_send(a, ROW("rc-send"));
	test_read(a, ROW("rc-read"), raddr, rkey);
	test_write(a, ROW("rc-write"), raddr, rkey);
	if (!p->atomics) {
		result_end(ROW("rc-cas"), SKIP, "%s reports no atomics (atomic_cap NONE)",
			   p->device);
		result_end(ROW("rc-faa"), SKIP, "%s reports no atomics (atomic_cap NONE)",
			   p->device);
		return;
	}
	test_cas(a, ROW("rc-cas"), raddr, rkey);
	test_faa(a, ROW("rc-faa"), raddr, rkey);
#undef ROW
}
