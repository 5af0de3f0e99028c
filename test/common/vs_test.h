/* SPDX-License-Identifier: MIT */
/*
 * Shared test helpers: assertions that print both values, skips that say
 * why.  Every test is one program exiting 0 (pass), 1 (fail) or 77 (skip).
 */
#ifndef VS_TEST_H
#define VS_TEST_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VS_EXIT_SKIP 77

#define VS_FAIL(...)                                                          \
	do {                                                                  \
		fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);               \
		fprintf(stderr, __VA_ARGS__);                                 \
		fputc('\n', stderr);                                          \
		exit(1);                                                      \
	} while (0)

#define VS_SKIP(...)                                                          \
	do {                                                                  \
		printf("skip: ");                                             \
		printf(__VA_ARGS__);                                          \
		putchar('\n');                                                \
		exit(VS_EXIT_SKIP);                                           \
	} while (0)

#define VS_ASSERT(cond)                                                       \
	do {                                                                  \
		if (!(cond))                                                  \
			VS_FAIL("assertion failed: %s", #cond);               \
	} while (0)

/* Integer comparison printing both sides. */
#define VS_ASSERT_CMP(a, op, b)                                               \
	do {                                                                  \
		long long vs_a_ = (long long)(a), vs_b_ = (long long)(b);     \
		if (!(vs_a_ op vs_b_))                                        \
			VS_FAIL("%s %s %s: %lld vs %lld", #a, #op, #b, vs_a_, \
				vs_b_);                                       \
	} while (0)
#define VS_ASSERT_EQ(a, b) VS_ASSERT_CMP(a, ==, b)
#define VS_ASSERT_NE(a, b) VS_ASSERT_CMP(a, !=, b)

#define VS_ASSERT_PTR_EQ(a, b)                                                \
	do {                                                                  \
		const void *vs_a_ = (a), *vs_b_ = (b);                        \
		if (vs_a_ != vs_b_)                                           \
			VS_FAIL("%s == %s: %p vs %p", #a, #b, vs_a_, vs_b_);  \
	} while (0)

#define VS_ASSERT_STREQ(a, b)                                                 \
	do {                                                                  \
		const char *vs_a_ = (a), *vs_b_ = (b);                        \
		if (!vs_a_ || !vs_b_ || strcmp(vs_a_, vs_b_))                 \
			VS_FAIL("%s == %s: \"%s\" vs \"%s\"", #a, #b,         \
				vs_a_ ? vs_a_ : "(null)",                     \
				vs_b_ ? vs_b_ : "(null)");                    \
	} while (0)

#define VS_ASSERT_MEMEQ(a, b, n)                                              \
	do {                                                                  \
		const unsigned char *vs_a_ = (const void *)(a);               \
		const unsigned char *vs_b_ = (const void *)(b);               \
		for (size_t vs_i_ = 0; vs_i_ < (size_t)(n); vs_i_++)          \
			if (vs_a_[vs_i_] != vs_b_[vs_i_])                     \
				VS_FAIL("%s vs %s differ at byte %zu: "       \
					"0x%02x vs 0x%02x", #a, #b, vs_i_,    \
					vs_a_[vs_i_], vs_b_[vs_i_]);          \
	} while (0)

/* The whole of a file, NUL-terminated (free() it), or NULL when it cannot
 * be opened. */
static inline char *vs_t_slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (!f)
		return NULL;
	do {
		if (cap - len < 4096) {
			char *more = (char *)realloc(buf, cap = cap * 2 + 4096);

			if (!more)
				VS_FAIL("reading %s: out of memory", path);
			buf = more;
		}
		n = fread(buf + len, 1, cap - len - 1, f);
		len += n;
	} while (n);
	fclose(f);
	buf[len] = '\0';
	return buf;
}

/* Tests under test/device need a device: outside the VM they skip. */
static inline void vs_test_require_device(void)
{
	if (!getenv("VERBSHIM_IN_VM"))
		VS_SKIP("needs an RDMA device: runs in the SoftRoCE VM (make check-rxe)");
}

#endif /* VS_TEST_H */
