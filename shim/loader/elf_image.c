// SPDX-License-Identifier: MIT
/*
 * A loaded object's dynamic tables, read the way the dynamic loader reads
 * them.  glibc relocates some d_ptr entries in place and not others
 * (DT_VERDEF stays a link-time address), and which ones differs between
 * versions and architectures; the load bias (l_addr) is added modulo 2^64,
 * so that an object linked above the user address space and mapped lower
 * has a "negative" one.  Every address read is checked against the mapped
 * segments before it is dereferenced.
 */
#include <string.h>

#include "vs_elf.h"

static int vs_find_image(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct vs_elf *e = arg;
	unsigned int i;

	(void)size;
	for (i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_DYNAMIC &&
		    (const void *)(uintptr_t)(info->dlpi_addr +
					      info->dlpi_phdr[i].p_vaddr) ==
			    e->dynamic)
			break;
	if (i == info->dlpi_phnum)
		return 0;
	for (i = 0; i < info->dlpi_phnum && e->nseg < VS_ELF_MAX_SEGMENTS; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD)
			continue;
		e->seg[e->nseg].start = info->dlpi_addr + ph->p_vaddr;
		e->seg[e->nseg].end = e->seg[e->nseg].start + ph->p_memsz;
		e->nseg++;
	}
	return 1;
}

/* How many bytes from addr on are mapped, in addr's segment (0: none). */
static size_t vs_elf_room(const struct vs_elf *e, uintptr_t addr)
{
	unsigned int i;

	for (i = 0; i < e->nseg; i++)
		if (addr >= e->seg[i].start && addr < e->seg[i].end)
			return e->seg[i].end - addr;
	return 0;
}

const void *vs__elf_ptr(const struct vs_elf *e, uintptr_t addr, size_t len)
{
	size_t room = vs_elf_room(e, addr);

	return room && len <= room ? (const void *)addr : NULL;
}

const char *vs__elf_str(const struct vs_elf *e, uintptr_t addr)
{
	size_t room = vs_elf_room(e, addr);

	return room && memchr((const void *)addr, '\0', room) ?
		       (const char *)addr : NULL;
}

/* A d_ptr value, relocated in place or not: the reading that lands inside
 * the object, trying first the one glibc uses for this tag on x86. */
static uintptr_t vs_dyn_addr(const struct vs_elf *e, ElfW(Addr) value,
			     int relocated_first)
{
	uintptr_t as_is = value, biased = value + e->bias;

	if (relocated_first && vs__elf_ptr(e, as_is, 1))
		return as_is;
	if (vs__elf_ptr(e, biased, 1))
		return biased;
	return vs__elf_ptr(e, as_is, 1) ? as_is : 0;
}

/*
 * The GNU hash table's header, bloom words, buckets and chain, each inside
 * the mapped memory; the symbol and version arrays bounded by their
 * segments (the dynamic section does not say how many symbols there are).
 * Anything amiss leaves gnu_hash 0: every lookup then asks dlvsym().
 */
static void vs_elf_hash_tables(struct vs_elf *e, uintptr_t hash,
			       uintptr_t symtab, uintptr_t versym)
{
	const uint32_t *h = vs__elf_ptr(e, hash, 4 * sizeof(uint32_t));
	uintptr_t bloom, buckets, chain;
	size_t nsyms, nver;

	if (!h || !symtab || !versym || !h[0] || !h[2] ||
	    h[2] & (h[2] - 1) || h[3] >= 8 * sizeof(ElfW(Addr)))
		return;
	bloom = hash + 4 * sizeof(uint32_t);
	buckets = bloom + (size_t)h[2] * sizeof(ElfW(Addr));
	chain = buckets + (size_t)h[0] * sizeof(uint32_t);
	if (!vs__elf_ptr(e, bloom, (size_t)h[2] * sizeof(ElfW(Addr))) ||
	    !vs__elf_ptr(e, buckets, (size_t)h[0] * sizeof(uint32_t)))
		return;
	nsyms = vs_elf_room(e, symtab) / sizeof(ElfW(Sym));
	nver = vs_elf_room(e, versym) / sizeof(ElfW(Half));
	e->nsyms = nsyms < nver ? nsyms : nver;
	e->nchain = vs_elf_room(e, chain) / sizeof(uint32_t);
	e->nbuckets = h[0];
	e->symoffset = h[1];
	e->bloom_words = h[2];
	e->bloom_shift = h[3];
	e->bloom = (const ElfW(Addr) *)bloom;
	e->buckets = (const uint32_t *)buckets;
	e->chain = (const uint32_t *)chain;
	e->symtab = (const ElfW(Sym) *)symtab;
	e->versym = (const ElfW(Half) *)versym;
	e->gnu_hash = h;
}

int vs__elf_open(struct vs_elf *e, const struct link_map *lm)
{
	uintptr_t hash = 0, symtab = 0, versym = 0;
	const ElfW(Dyn) *d;

	memset(e, 0, sizeof(*e));
	e->bias = lm->l_addr;
	e->dynamic = lm->l_ld;
	if (!dl_iterate_phdr(vs_find_image, e))
		return -1;
	for (d = lm->l_ld; d->d_tag != DT_NULL; d++) {
		switch (d->d_tag) {
		case DT_STRTAB:
			e->strtab = vs_dyn_addr(e, d->d_un.d_ptr, 1);
			break;
		case DT_STRSZ:
			e->strsz = d->d_un.d_val;
			break;
		case DT_VERDEF:
			e->verdef = vs_dyn_addr(e, d->d_un.d_ptr, 0);
			break;
		case DT_VERDEFNUM:
			e->verdefnum = d->d_un.d_val;
			break;
		case DT_GNU_HASH:
			hash = vs_dyn_addr(e, d->d_un.d_ptr, 1);
			break;
		case DT_SYMTAB:
			symtab = vs_dyn_addr(e, d->d_un.d_ptr, 1);
			break;
		case DT_VERSYM:
			versym = vs_dyn_addr(e, d->d_un.d_ptr, 1);
			break;
		}
	}
	if (!e->strtab)
		return -1;
	if (!vs__elf_ptr(e, e->strtab, e->strsz))
		e->strsz = 0;
	if (e->strsz)
		vs_elf_hash_tables(e, hash, symtab, versym);
	return 0;
}

void *vs__elf_symbol(const struct vs_elf *e, const char *name, ElfW(Half) ndx)
{
	const unsigned int bits = 8 * sizeof(ElfW(Addr));
	const unsigned char *p = (const unsigned char *)name;
	uint32_t h = 5381, i;
	size_t len;
	ElfW(Addr) word, mask;

	if (!e->gnu_hash || !ndx)
		return VS_ELF_ASK;
	for (; *p; p++)
		h = h * 33 + *p;
	len = (size_t)(p - (const unsigned char *)name);
	/* The bloom filter: two bits of the hash that every defined name sets */
	word = e->bloom[(h / bits) & (e->bloom_words - 1)];
	mask = (ElfW(Addr))1 << (h % bits) |
	       (ElfW(Addr))1 << ((h >> e->bloom_shift) % bits);
	if ((word & mask) != mask)
		return NULL;
	i = e->buckets[h % e->nbuckets];
	if (i < e->symoffset)
		return NULL;
	for (; i < e->nsyms && i - e->symoffset < e->nchain; i++) {
		uint32_t c = e->chain[i - e->symoffset];
		const ElfW(Sym) *s = &e->symtab[i];

		if ((c | 1) == (h | 1) && s->st_name < e->strsz &&
		    len < e->strsz - s->st_name &&
		    !memcmp((const char *)e->strtab + s->st_name, name,
			    len + 1) &&
		    (e->versym[i] & 0x7fff) == ndx &&
		    s->st_shndx != SHN_UNDEF && s->st_value) {
			/* what the dynamic loader computes, not reads (the
			 * type is the low nibble in both ELF classes) */
			if (ELF64_ST_TYPE(s->st_info) == STT_GNU_IFUNC ||
			    ELF64_ST_TYPE(s->st_info) == STT_TLS ||
			    s->st_shndx == SHN_ABS)
				return VS_ELF_ASK;
			return (void *)(uintptr_t)(e->bias + s->st_value);
		}
		if (c & 1)
			return NULL;
	}
	/* ran off the mapped tables: let the dynamic loader answer */
	return VS_ELF_ASK;
}
