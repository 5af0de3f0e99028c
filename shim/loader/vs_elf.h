/* SPDX-License-Identifier: MIT */
/*
 * A loaded library's own dynamic tables, read in place: its mapped
 * segments, version definitions and symbols (shim/loader/elf_image.c).
 * The loader reads which nodes a library defines from here, and resolves
 * a slot from the library's GNU hash table where it can: one hash and a
 * short chain instead of dlvsym()'s ~1.1k instructions, the same answer
 * (test/unit/release_probe.c compares every slot with dlvsym() on each
 * release).
 */
#ifndef VS_ELF_H
#define VS_ELF_H

#include <elf.h>
#include <link.h>
#include <stddef.h>
#include <stdint.h>

#define VS_ELF_MAX_SEGMENTS 16
/* Nodes whose definition index is kept: as many as vs_lib_state's
 * nodes_found has bits; a library's later nodes are asked of dlvsym(). */
#define VS_ELF_MAX_NODES 64

struct vs_elf {
	ElfW(Addr) bias;
	const void *dynamic;
	unsigned int nseg;
	struct {
		uintptr_t start, end;
	} seg[VS_ELF_MAX_SEGMENTS];
	uintptr_t strtab, verdef;
	size_t strsz, verdefnum;
	/* the symbol lookup; gnu_hash 0: none, every slot asks dlvsym() */
	const uint32_t *gnu_hash, *buckets, *chain;
	const ElfW(Addr) *bloom;
	const ElfW(Sym) *symtab;
	const ElfW(Half) *versym;
	uint32_t nbuckets, symoffset, bloom_words, bloom_shift;
	size_t nsyms, nchain;	/* entries inside the mapped memory */
	/* the definition index (vd_ndx) of the library's known node i; 0:
	 * not defined */
	ElfW(Half) node_ndx[VS_ELF_MAX_NODES];
};

/* Read the object whose dynamic section lm names: 0, or -1 when it is
 * not among the loaded objects or has no string table. */
int vs__elf_open(struct vs_elf *e, const struct link_map *lm);

/* [addr, addr + len) inside the mapped memory, or NULL. */
const void *vs__elf_ptr(const struct vs_elf *e, uintptr_t addr, size_t len);
/* A NUL-terminated string at addr inside the mapped memory, or NULL. */
const char *vs__elf_str(const struct vs_elf *e, uintptr_t addr);

/* Returned by vs__elf_symbol() when the tables cannot answer (no GNU hash,
 * an indirect function, an absolute symbol): ask dlvsym(). */
#define VS_ELF_ASK ((void *)-1)

/*
 * The address of name defined at version definition index ndx by the
 * object itself, NULL when it defines no such name@version, or
 * VS_ELF_ASK.
 */
void *vs__elf_symbol(const struct vs_elf *e, const char *name, ElfW(Half) ndx);

#endif
