/* SPDX-License-Identifier: MIT */
/*
 * Forced into every object of libverbshim.a (-include, see the Makefile):
 * the archive must not raise the glibc a program needs, whatever glibc
 * builds it.  Floor: GLIBC_2.17 on x86_64 and aarch64 (secure_getenv is
 * the newest symbol; test/shell/glibc_floor.sh checks it).
 *
 * - Symbols that glibc 2.34 moved from libdl/libpthread into libc got a
 *   new default node there (dlopen@@GLIBC_2.34).  Each is pinned to the
 *   oldest node that has it, which libdl.so.2/libpthread.so.0 define on
 *   older glibc and libc.so.6 keeps as an alias on newer.  A pin costs
 *   nothing in an object that does not reference the symbol.
 * - memcpy@@GLIBC_2.14 (the non-overlapping one) is pinned to 2.2.5.
 * - glibc >= 2.38 redirects strtol/sscanf to __isoc23_* when _GNU_SOURCE
 *   asks for C2x: switched back to the C99 entry points (the archive never
 *   parses "0b" numbers).
 * - getrandom (GLIBC_2.25) goes through syscall(2), and so does fstat
 *   (GLIBC_2.33; before it, an inline of libc_nonshared over __fxstat):
 *   the kernel's struct stat is glibc's on x86_64 and aarch64.
 *
 * Only pins whose oldest node has the same ABI belong here
 * (pthread_cond_* of 2.2.5, for one, does not).  Not for public headers.
 */
#ifndef VS_GLIBC_FLOOR_H
#define VS_GLIBC_FLOOR_H

#include <features.h>

#if defined(__GLIBC__) && !defined(VS_NO_GLIBC_FLOOR)

#undef __GLIBC_USE_C2X_STRTOL
#define __GLIBC_USE_C2X_STRTOL 0
#undef __GLIBC_USE_C23_STRTOL
#define __GLIBC_USE_C23_STRTOL 0

#if defined(__x86_64__) && !defined(__ILP32__)
#define VS_GLIBC_PIN(sym, node) __asm__(".symver " #sym "," #sym "@" node)
#define VS_GLIBC_BASE "GLIBC_2.2.5"
#elif defined(__aarch64__) && !defined(__ILP32__) && \
	(defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__))
/* No pins in sanitizer builds on aarch64 (never shipped): binutils 2.40's
 * aarch64 ld, given memcpy@GLIBC_2.17 while libasan.so defines memcpy
 * unversioned, leaves an R_AARCH64_NONE in .rela.plt and a zeroed PLT
 * entry: lazy binding stops at "unexpected PLT reloc type 0x00", eager
 * binding runs into SIGILL at the first call (vs__errorv's memcpy). */
#elif defined(__aarch64__) && !defined(__ILP32__)
/* GLIBC_2.17 is aarch64's first node: every pin is that. */
#define VS_GLIBC_PIN(sym, node) __asm__(".symver " #sym "," #sym "@GLIBC_2.17")
#define VS_GLIBC_BASE "GLIBC_2.17"
#endif

#ifdef VS_GLIBC_PIN
VS_GLIBC_PIN(dlopen, VS_GLIBC_BASE);
VS_GLIBC_PIN(dlclose, VS_GLIBC_BASE);
VS_GLIBC_PIN(dlsym, VS_GLIBC_BASE);
VS_GLIBC_PIN(dlvsym, VS_GLIBC_BASE);
VS_GLIBC_PIN(dlerror, VS_GLIBC_BASE);
VS_GLIBC_PIN(dladdr, VS_GLIBC_BASE);
VS_GLIBC_PIN(dladdr1, "GLIBC_2.3.3");
VS_GLIBC_PIN(dlinfo, "GLIBC_2.3.3");
VS_GLIBC_PIN(dlmopen, "GLIBC_2.3.4");
VS_GLIBC_PIN(pthread_once, VS_GLIBC_BASE);
VS_GLIBC_PIN(pthread_create, VS_GLIBC_BASE);
VS_GLIBC_PIN(pthread_join, VS_GLIBC_BASE);
VS_GLIBC_PIN(pthread_detach, VS_GLIBC_BASE);
VS_GLIBC_PIN(pthread_kill, VS_GLIBC_BASE);
VS_GLIBC_PIN(pthread_key_create, VS_GLIBC_BASE);
VS_GLIBC_PIN(pthread_key_delete, VS_GLIBC_BASE);
VS_GLIBC_PIN(pthread_getspecific, VS_GLIBC_BASE);
VS_GLIBC_PIN(pthread_setspecific, VS_GLIBC_BASE);
VS_GLIBC_PIN(pthread_mutex_trylock, VS_GLIBC_BASE);
VS_GLIBC_PIN(pthread_mutexattr_init, VS_GLIBC_BASE);
VS_GLIBC_PIN(pthread_mutexattr_destroy, VS_GLIBC_BASE);
VS_GLIBC_PIN(pthread_mutexattr_settype, VS_GLIBC_BASE);
VS_GLIBC_PIN(pthread_rwlock_init, VS_GLIBC_BASE);
VS_GLIBC_PIN(pthread_rwlock_destroy, VS_GLIBC_BASE);
VS_GLIBC_PIN(pthread_rwlock_rdlock, VS_GLIBC_BASE);
VS_GLIBC_PIN(pthread_rwlock_wrlock, VS_GLIBC_BASE);
VS_GLIBC_PIN(pthread_rwlock_unlock, VS_GLIBC_BASE);
VS_GLIBC_PIN(pthread_spin_init, VS_GLIBC_BASE);
VS_GLIBC_PIN(pthread_spin_destroy, VS_GLIBC_BASE);
VS_GLIBC_PIN(pthread_spin_lock, VS_GLIBC_BASE);
VS_GLIBC_PIN(pthread_spin_unlock, VS_GLIBC_BASE);
VS_GLIBC_PIN(pthread_barrier_init, VS_GLIBC_BASE);
VS_GLIBC_PIN(pthread_barrier_destroy, VS_GLIBC_BASE);
VS_GLIBC_PIN(pthread_barrier_wait, VS_GLIBC_BASE);
VS_GLIBC_PIN(sem_init, VS_GLIBC_BASE);
VS_GLIBC_PIN(sem_destroy, VS_GLIBC_BASE);
VS_GLIBC_PIN(sem_post, VS_GLIBC_BASE);
VS_GLIBC_PIN(sem_wait, VS_GLIBC_BASE);
VS_GLIBC_PIN(sem_trywait, VS_GLIBC_BASE);
VS_GLIBC_PIN(sem_timedwait, VS_GLIBC_BASE);
VS_GLIBC_PIN(memcpy, VS_GLIBC_BASE);
/* moved from librt into libc in 2.17 (default node GLIBC_2.17 there),
 * which keeps the old node as the same function (shim/trace/trace.c's counters
 * want the vDSO one, not the system call) */
VS_GLIBC_PIN(clock_gettime, VS_GLIBC_BASE);
/* moved from libpthread in 2.34 (new default node there), same ABI */
VS_GLIBC_PIN(pthread_condattr_setclock, "GLIBC_2.3.3");
#endif /* VS_GLIBC_PIN */

#ifdef __linux__
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>
#ifdef SYS_getrandom
/* A later <sys/random.h> declaration of it keeps this internal linkage. */
#define getrandom vs_floor_getrandom
static inline ssize_t vs_floor_getrandom(void *buf, size_t len,
					 unsigned int flags)
{
	return syscall(SYS_getrandom, buf, len, flags);
}
#endif
#ifdef SYS_fstat
#include <sys/stat.h>
#define fstat vs_floor_fstat
static inline int vs_floor_fstat(int fd, struct stat *st)
{
	return (int)syscall(SYS_fstat, fd, st);
}
#endif
#endif /* __linux__ */

#endif /* __GLIBC__ && !VS_NO_GLIBC_FLOOR */
#endif /* VS_GLIBC_FLOOR_H */
