// SPDX-License-Identifier: MIT
/*
 * Where the trace and the counters go (docs/trace.md, "Where it goes"):
 * stderr, or the one file of VERBSHIM_TRACE_FILE, opened once per process
 * by whichever copy of the shim comes first (the hub, shim/trace/trace_hub.c)
 * and never anything else.  A program may close every descriptor and get
 * the file's number back for a file of its own: before each write the
 * descriptor must still be the file that was opened (device and inode),
 * else the trace stops with one line on stderr.  The descriptor is moved
 * high (half the descriptor limit and up), out of the way of a program's
 * lowest-free numbering, and is close-on-exec.  Stderr is checked the
 * same way (shim/trace/trace_text.c, vs__tstderr_ok).  Nothing here
 * changes errno.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vs_trace.h"

/* the attempts at PREFIX.<pid>, PREFIX.<pid>.2, ... */
#define VS_TFILE_TRIES 16

/* The lowest free descriptor from half the limit up, close-on-exec, in
 * place of fd; fd itself when there is none. */
static int vs_tfile_high(int fd)
{
	struct rlimit rl;
	long lo = 3;
	int high;

	if (!getrlimit(RLIMIT_NOFILE, &rl))
		lo = rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > 65536 ?
			     32768 : (long)rl.rlim_cur / 2;
	if (lo <= fd)
		return fd;
	high = fcntl(fd, F_DUPFD_CLOEXEC, (int)lo);
	if (high < 0)
		return fd;
	close(fd);
	return high;
}

/* PREFIX.<pid>, or the next free PREFIX.<pid>.N: a new file, never
 * through a link and never over an existing one. */
static void vs_tfile_create(struct vs_thub *h, const char *prefix)
{
	char path[sizeof(h->path)], first[sizeof(h->path)];
	long pid = (long)getpid();
	struct stat st;
	int fd = -1, n, err = 0;

	for (n = 1; n <= VS_TFILE_TRIES; n++) {
		int len = n == 1 ? snprintf(path, sizeof(path), "%s.%ld", prefix, pid)
				 : snprintf(path, sizeof(path), "%s.%ld.%d",
					    prefix, pid, n);

		if (len < 0 || (size_t)len >= sizeof(path)) {
			vs__tsay("verbshim: VERBSHIM_TRACE_FILE=%s is too "
				     "long (%ld bytes at most with its "
				     "suffix); the trace and the counters are "
				     "off", prefix, (long)sizeof(path) - 1);
			h->file = VS_TFILE_OFF;
			return;
		}
		if (n == 1)
			memcpy(first, path, sizeof(first));
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
					O_APPEND | O_CLOEXEC, 0600);
		if (fd >= 0 || errno != EEXIST)
			break;
	}
	err = errno;
	if (fd >= 0 && fstat(fd, &st)) {
		err = errno;
		close(fd);
		fd = -1;
	}
	if (fd < 0) {
		if (n > VS_TFILE_TRIES)
			vs__tsay("verbshim: VERBSHIM_TRACE_FILE: %s and the "
				     "next %d names exist (an existing file is "
				     "never written over); the trace and the "
				     "counters are off", first,
				     VS_TFILE_TRIES - 1);
		else
			vs__tsay("verbshim: VERBSHIM_TRACE_FILE: cannot "
				     "create %s (%s); the trace and the "
				     "counters are off", path, strerror(err));
		h->file = VS_TFILE_OFF;
		return;
	}
	if (n > 1)
		vs__tsay("verbshim: VERBSHIM_TRACE_FILE: %s exists (an "
			     "existing file is never written over); tracing "
			     "to %s", first, path);
	h->fd = vs_tfile_high(fd);
	h->dev = (uint64_t)st.st_dev;
	h->ino = (uint64_t)st.st_ino;
	memcpy(h->path, path, sizeof(h->path));
	h->file = VS_TFILE_FILE;
}

void vs__tfile_open(const char *prefix)
{
	struct vs_thub *h = vs__thub();
	int saved = errno, taken = vs__thub_lock(h);

	if (h->file == VS_TFILE_UNSET) {
		if (prefix && *prefix)
			vs_tfile_create(h, prefix);
		else
			h->file = VS_TFILE_STDERR;
	}
	vs__thub_unlock(h, taken);
	errno = saved;
}

/* The file is no longer the descriptor: stop, said once per process. */
static void vs_tfile_lost(struct vs_thub *h)
{
	int zero = 0;

	if (__atomic_compare_exchange_n(&h->stopped, &zero, 1, 0,
					__ATOMIC_RELAXED, __ATOMIC_RELAXED))
		vs__tsay("verbshim: the trace file %s is no longer "
			     "descriptor %ld (the program closed it, or put "
			     "another file there): the trace stops here, and "
			     "the counters are not written at exit", h->path,
			     (long)h->fd);
}

int vs__tfile_fd(void)
{
	struct vs_thub *h = vs__thub();
	struct stat st;
	int saved = errno;

	if (__atomic_load_n(&h->stopped, __ATOMIC_RELAXED))
		return -1;
	switch (h->file) {
	case VS_TFILE_FILE:
		break;
	case VS_TFILE_OFF:
		return -1;
	default:
		/* stderr, while descriptor 2 is the file it was when the
		 * trace started: closed then, or another file now (the
		 * program's own, landed on 2), gets nothing */
		errno = saved;
		return vs__tstderr_ok() ? 2 : -1;
	}
	if (fstat(h->fd, &st) || (uint64_t)st.st_dev != h->dev ||
	    (uint64_t)st.st_ino != h->ino) {
		vs_tfile_lost(h);
		errno = saved;
		return -1;
	}
	return h->fd;
}

void vs__tfile_write(const char *line, size_t len)
{
	int saved = errno, fd = vs__tfile_fd();

	if (fd >= 0 && write(fd, line, len) < 0) {
		/* a trace must not change what the program sees */
	}
	errno = saved;
}
