// SPDX-License-Identifier: MIT
/*
 * Reading ELF files without running or loading them (verbshim-info
 * --binary): the notes of a program, the version nodes a library defines.
 * 64-bit little-endian only (x86-64 and arm64, the architectures verbshim
 * builds for), whatever this machine's architecture; every offset is
 * checked against the file's size, as the file may be anything.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "info.h"

/* n bytes at off lie inside the file. */
static bool in_file(const struct elf_file *e, uint64_t off, uint64_t n)
{
	return off <= e->size && n <= e->size - off;
}

int elf_open(struct elf_file *e, const char *path)
{
	const Elf64_Ehdr *h;
	struct stat st;
	/* O_NONBLOCK: a FIFO named by mistake must not block the open */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	*e = (struct elf_file){ .path = path };
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		int err = errno;

		close(fd);
		return -err;
	}
	if (!S_ISREG(st.st_mode) || st.st_size < (off_t)sizeof(*h)) {
		close(fd);
		return S_ISDIR(st.st_mode) ? -EISDIR : -ENOEXEC;
	}
	e->size = (size_t)st.st_size;
	e->data = mmap(NULL, e->size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (e->data == MAP_FAILED) {
		e->data = NULL;
		return -errno;
	}
	h = (const Elf64_Ehdr *)e->data;
	if (memcmp(h->e_ident, ELFMAG, SELFMAG) ||
	    h->e_ident[EI_CLASS] != ELFCLASS64 ||
	    h->e_ident[EI_DATA] != ELFDATA2LSB ||
	    h->e_shentsize != sizeof(Elf64_Shdr) ||
	    !in_file(e, h->e_shoff, (uint64_t)h->e_shnum * sizeof(Elf64_Shdr)) ||
	    h->e_shstrndx >= h->e_shnum) {
		elf_close(e);
		return -ENOEXEC;
	}
	e->machine = h->e_machine;
	e->shdr = (const Elf64_Shdr *)(e->data + h->e_shoff);
	e->nsections = h->e_shnum;
	e->shstr = &e->shdr[h->e_shstrndx];
	return 0;
}

void elf_close(struct elf_file *e)
{
	if (e->data)
		munmap((void *)e->data, e->size);
	e->data = NULL;
}

const char *elf_machine_name(uint16_t machine)
{
	return machine == EM_X86_64 ? "x86-64" :
	       machine == EM_AARCH64 ? "arm64" : "another architecture";
}

const char *elf_multiarch(uint16_t machine)
{
	return machine == EM_X86_64 ? "x86_64-linux-gnu" :
	       machine == EM_AARCH64 ? "aarch64-linux-gnu" : NULL;
}

/* The NUL-terminated string at off of a string section, or NULL. */
static const char *elf_str(const struct elf_file *e, const Elf64_Shdr *strtab,
			   uint64_t off)
{
	const char *s;

	if (off >= strtab->sh_size || !in_file(e, strtab->sh_offset, strtab->sh_size))
		return NULL;
	s = (const char *)e->data + strtab->sh_offset + off;
	return memchr(s, '\0', strtab->sh_size - off) ? s : NULL;
}

int elf_notes(const struct elf_file *e, const char *section,
	      int (*fn)(void *arg, const char *owner, uint32_t type,
			const char *desc, uint32_t descsz),
	      void *arg)
{
	for (unsigned int i = 0; i < e->nsections; i++) {
		const Elf64_Shdr *s = &e->shdr[i];
		const char *name = elf_str(e, e->shstr, s->sh_name);
		uint64_t pos, end;

		if (s->sh_type != SHT_NOTE || !name || strcmp(name, section))
			continue;
		if (!in_file(e, s->sh_offset, s->sh_size))
			return -ENOEXEC;
		pos = s->sh_offset;
		end = pos + s->sh_size;
		while (end - pos >= sizeof(Elf64_Nhdr)) {
			const Elf64_Nhdr *n = (const Elf64_Nhdr *)(e->data + pos);
			uint64_t name_at = pos + sizeof(*n);
			uint64_t desc_at = name_at + (((uint64_t)n->n_namesz + 3) & ~3ULL);
			uint64_t next = desc_at + (((uint64_t)n->n_descsz + 3) & ~3ULL);
			const char *owner = (const char *)e->data + name_at;
			int ret;

			if (next > end || !n->n_namesz || owner[n->n_namesz - 1])
				return -ENOEXEC;
			ret = fn(arg, owner, n->n_type,
				 (const char *)e->data + desc_at, n->n_descsz);
			if (ret)
				return ret;
			pos = next;
		}
	}
	return 0;
}

int elf_version_nodes(const struct elf_file *e,
		      void (*fn)(void *arg, const char *node), void *arg)
{
	for (unsigned int i = 0; i < e->nsections; i++) {
		const Elf64_Shdr *s = &e->shdr[i];
		uint64_t pos;

		if (s->sh_type != SHT_GNU_verdef)
			continue;
		if (s->sh_link >= e->nsections || !in_file(e, s->sh_offset, s->sh_size))
			return -ENOEXEC;
		pos = s->sh_offset;
		for (uint64_t n = 0; n < s->sh_info; n++) {
			const Elf64_Verdef *vd;
			const Elf64_Verdaux *aux;
			const char *node;

			if (!in_file(e, pos, sizeof(*vd)))
				return -ENOEXEC;
			vd = (const Elf64_Verdef *)(e->data + pos);
			if (!in_file(e, pos + vd->vd_aux, sizeof(*aux)))
				return -ENOEXEC;
			aux = (const Elf64_Verdaux *)(e->data + pos + vd->vd_aux);
			node = elf_str(e, &e->shdr[s->sh_link], aux->vda_name);
			/* the first definition is the file's own soname */
			if (node && !(vd->vd_flags & VER_FLG_BASE))
				fn(arg, node);
			if (!vd->vd_next)
				break;
			pos += vd->vd_next;
		}
		return 0;
	}
	return 0;	/* no versions at all: an unversioned library */
}
