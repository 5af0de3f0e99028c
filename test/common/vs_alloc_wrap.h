/* SPDX-License-Identifier: MIT */
/*
 * The library's heap, seen and failed on demand: a test that includes
 * this (one .c file) and is linked with VS_ALLOC_WRAP_LDFLAGS (Makefile:
 * -Wl,--wrap=malloc,... for the tests in ALLOC_WRAP_TESTS) gets every
 * malloc, calloc, realloc, posix_memalign and free of the objects in its
 * link, the archive's included, through these.  Calls inside libc and in
 * dlopened libraries (the fake provider) are not seen.  __real_* reach
 * the allocator in use (glibc's, ASan's or valgrind's), so the sanitizer
 * and valgrind stages still check every block.
 *
 *   vs_alloc_live()        blocks allocated and not yet freed
 *   vs_alloc_live_bytes()  their usable bytes
 *   vs_alloc_fail_nth(n)   the nth allocation from now fails (ENOMEM);
 *                          0 disarms
 *   vs_alloc_failed()      whether the armed failure happened
 */
#ifndef VS_ALLOC_WRAP_H
#define VS_ALLOC_WRAP_H

#include <errno.h>
#include <malloc.h>
#include <stdbool.h>
#include <stddef.h>

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
int __real_posix_memalign(void **p, size_t align, size_t n);
void __real_free(void *p);

void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t n);
int __wrap_posix_memalign(void **p, size_t align, size_t n);
void __wrap_free(void *p);

static long vs_alloc_blocks, vs_alloc_bytes, vs_alloc_countdown;
static bool vs_alloc_hit;

/* true when this allocation is the one armed to fail */
static bool vs_alloc_fails(void)
{
	if (__atomic_load_n(&vs_alloc_countdown, __ATOMIC_RELAXED) <= 0)
		return false;
	if (__atomic_sub_fetch(&vs_alloc_countdown, 1, __ATOMIC_RELAXED))
		return false;
	__atomic_store_n(&vs_alloc_hit, true, __ATOMIC_RELAXED);
	return true;
}

static void vs_alloc_count(void *p, long sign)
{
	if (!p)
		return;
	__atomic_add_fetch(&vs_alloc_blocks, sign, __ATOMIC_RELAXED);
	__atomic_add_fetch(&vs_alloc_bytes, sign * (long)malloc_usable_size(p),
			   __ATOMIC_RELAXED);
}

void *__wrap_malloc(size_t n)
{
	void *p;

	if (vs_alloc_fails()) {
		errno = ENOMEM;
		return NULL;
	}
	p = __real_malloc(n);
	vs_alloc_count(p, 1);
	return p;
}

void *__wrap_calloc(size_t n, size_t size)
{
	void *p;

	if (vs_alloc_fails()) {
		errno = ENOMEM;
		return NULL;
	}
	p = __real_calloc(n, size);
	vs_alloc_count(p, 1);
	return p;
}

void *__wrap_realloc(void *old, size_t n)
{
	long before = old ? (long)malloc_usable_size(old) : 0;
	void *p;

	if (vs_alloc_fails()) {
		errno = ENOMEM;
		return NULL; /* old stays */
	}
	p = __real_realloc(old, n);
	if (!p)
		return NULL;
	if (!old)
		__atomic_add_fetch(&vs_alloc_blocks, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&vs_alloc_bytes, (long)malloc_usable_size(p) - before,
			   __ATOMIC_RELAXED);
	return p;
}

int __wrap_posix_memalign(void **p, size_t align, size_t n)
{
	int ret;

	if (vs_alloc_fails())
		return ENOMEM;
	ret = __real_posix_memalign(p, align, n);
	if (!ret)
		vs_alloc_count(*p, 1);
	return ret;
}

void __wrap_free(void *p)
{
	vs_alloc_count(p, -1);
	__real_free(p);
}

static inline long vs_alloc_live(void)
{
	return __atomic_load_n(&vs_alloc_blocks, __ATOMIC_RELAXED);
}

static inline long vs_alloc_live_bytes(void)
{
	return __atomic_load_n(&vs_alloc_bytes, __ATOMIC_RELAXED);
}

static inline void vs_alloc_fail_nth(long n)
{
	__atomic_store_n(&vs_alloc_hit, false, __ATOMIC_RELAXED);
	__atomic_store_n(&vs_alloc_countdown, n, __ATOMIC_RELAXED);
}

static inline bool vs_alloc_failed(void)
{
	return __atomic_load_n(&vs_alloc_hit, __ATOMIC_RELAXED);
}

#endif /* VS_ALLOC_WRAP_H */
