/* SPDX-License-Identifier: MIT */
/*
 * The ELF notes each library's table object (shim/tables/tables.c) carries, so
 * that a program linked with the archive says, without being run, what it
 * can load and what it was compiled with:
 *
 * - .note.dlopen (the UAPI group's "ELF dlopen metadata": owner "FDO",
 *   type 0x407c0c0a, a NUL-terminated JSON array), one entry per library,
 *   read by dh-dlopenlibdeps, systemd-analyze dlopen-metadata, RPM;
 * - .note.verbshim (owner "verbshim", type 1): the library's version nodes
 *   and each compiled-in function with its node, for verbshim-info
 *   --binary (text, one record a line: "lib NAME SONAME", "node ID NAME
 *   RELEASE", "sym FUNCTION ID").
 *
 * Both are allocated, 4-byte aligned and zero padded, as the spec asks, so
 * that strip leaves them in place.  Written here rather than through
 * systemd's sd-dlopen.h: no build dependency on libsystemd's headers.
 */
#ifndef VS_NOTES_H
#define VS_NOTES_H

#include <stdint.h>

#define VS_NOTE_DLOPEN_OWNER "FDO"
#define VS_NOTE_DLOPEN_TYPE UINT32_C(0x407c0c0a)
#define VS_NOTE_TABLE_OWNER "verbshim"
#define VS_NOTE_TABLE_TYPE UINT32_C(1)

/* One ELF note: the header, the owner and the text, each part 4-byte
 * aligned; static storage zeroes the padding. */
#define VS_ELF_NOTE(var, section_, owner, type_, text)                         \
	__attribute__((used, aligned(4), section(section_))) static const struct {       \
		uint32_t namesz, descsz, type;                                 \
		char name[sizeof(owner)];                                      \
		_Alignas(4) char desc[sizeof(text)];                           \
	} var = {                                                              \
		.namesz = sizeof(owner),                                       \
		.descsz = sizeof(text),                                        \
		.type = type_,                                                 \
		.name = owner,                                                 \
		.desc = text,                                                  \
	};

/* The library's entry: its soname, the feature named as the docs and
 * VERBSHIM_LIB<LIB> name it, and the row's priority. */
#define VS_NOTE_DLOPEN(lib, soname, family, priority)                          \
	VS_ELF_NOTE(vs__##lib##_note_dlopen, ".note.dlopen",                   \
		    VS_NOTE_DLOPEN_OWNER, VS_NOTE_DLOPEN_TYPE,                  \
		    "[{\"soname\":[\"" soname "\"],\"feature\":\"lib" #lib      \
		    "\",\"description\":\"rdma-core's lib" #lib ", loaded by "  \
		    "verbshim at the first " family " call\",\"priority\":\""   \
		    priority "\"}]")

#define VS_NOTE_NODE(id, name, release) "node " #id " " name " " #release "\n"
/* (a row's further columns, the prototype onwards, do not matter here) */
#define VS_NOTE_SYM(node, name, ...) "sym " #name " " #node "\n"
#define VS_NOTE_TABLE(lib, LIB, soname)                                        \
	VS_ELF_NOTE(vs__##lib##_note_table, ".note.verbshim",                  \
		    VS_NOTE_TABLE_OWNER, VS_NOTE_TABLE_TYPE,                    \
		    "lib lib" #lib " " soname "\n"                              \
		    VS_##LIB##_NODES(VS_NOTE_NODE)                              \
		    VS_##LIB##_SYMBOLS(VS_NOTE_SYM))

#endif /* VS_NOTES_H */
