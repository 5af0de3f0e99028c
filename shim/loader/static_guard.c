// SPDX-License-Identifier: MIT
/*
 * Fully static programs (-static, -static-pie) are refused.  glibc's
 * dlopen() inside a static program is a second dynamic loader that needs,
 * at run time, the exact glibc the program was linked with, and
 * rdma-core's libraries would bring the machine's libc.so.6 next to the
 * static one: no binary built that way runs "on every Linux".
 *
 * - At link time: on x86_64 and aarch64 the archive's libc references are
 *   pinned to version nodes (shim/loader/glibc_floor.h) that libc.a does not
 *   have, so a static link fails; the warning below, printed by GNU ld
 *   only when libc.a's static startup code is linked, says why.
 * - At first use (elsewhere, or an archive built without the pins): the
 *   library is not loaded and vs_library_query() says why.
 */
#include <link.h>
#include <stdio.h>

#include "vs_shim.h"

#define VS_STATIC_WHY \
	"verbshim: a statically linked program (-static) cannot load " \
	"rdma-core: glibc's static dlopen needs the exact glibc it was " \
	"linked with at run time. Link glibc dynamically: drop -static " \
	"(-static-libgcc is fine); the binary then needs only libc.so.6"

/* __libc_setup_tls is referenced only by libc.a's startup code. */
__asm__(".pushsection .gnu.warning.__libc_setup_tls,\"\",%progbits\n\t"
	".string \"" VS_STATIC_WHY "\"\n\t.popsection");

/* The program itself is the first object; a dynamic one has PT_INTERP
 * (even when started as "ld.so PROGRAM"). */
static int vs_first_has_interp(struct dl_phdr_info *info, size_t size,
			       void *arg)
{
	int *interp = arg;
	ElfW(Half) i;

	(void)size;
	for (i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_INTERP)
			*interp = 1;
	return 1;
}

int vs__static_refused(const struct vs_lib_desc *desc, struct vs_lib_state *st)
{
	int interp = 0;

	dl_iterate_phdr(vs_first_has_interp, &interp);
	if (interp)
		return 0;
	snprintf(st->error, sizeof(st->error), "%s not loaded: %s", desc->name,
		 VS_STATIC_WHY);
	st->load_errno = ELIBACC;
	return 1;
}
