/* SPDX-License-Identifier: MIT */
/*
 * verbshim-info: what verbshim found at run time (which rdma-core
 * libraries, how new, which provider ABI), the RDMA devices with their
 * ports and GID tables, and, when nothing usable is there, why.
 *
 * Everything is gathered into one struct report first (gather.c), judged
 * (diagnose.c) and printed after (text.c, json.c), so that the text and
 * the JSON output cannot disagree.
 */
#ifndef VERBSHIM_INFO_H
#define VERBSHIM_INFO_H

#include <elf.h>
#include <limits.h>
#include <net/if.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include <infiniband/verbs.h>

#include "verbshim/loader.h"
#include "verbshim/names.h"
#include "verbshim/srd.h"

/* --binary: EXIT_RUNS_OLDER, it runs, its newer verbs answer "not supported" */
enum { EXIT_USABLE = 0, EXIT_USAGE = 1, EXIT_NODEV = 2, EXIT_RUNS_OLDER = 3 };

struct gid_row {
	uint32_t index;
	union ibv_gid gid;
	enum vs_gid_type type;
	char netdev[IF_NAMESIZE];	/* "" when the entry has none */
};

struct port_row {
	uint32_t num;
	int err;			/* ibv_query_port() failed: errno */
	struct ibv_port_attr attr;
	enum vs_link_kind kind;		/* the typed API's word (vs_port_info) */
	ssize_t expect;			/* valid GIDs per the table; -1 unknown */
	struct gid_row *gids;
	size_t ngids;
	int gid_err;			/* the GID scan stopped on this errno */
};

struct dev_row {
	char name[IBV_SYSFS_NAME_MAX];
	uint64_t guid;			/* host order */
	int err;			/* open or query failed: errno */
	const char *err_what;		/* which call */
	struct port_row *ports;
	unsigned int nports;
	bool efa;			/* an EFA device: efa_caps hold its caps */
	struct vs_efa_caps efa_caps;
};

struct report {
	struct vs_build_info build;	/* what the archive was built with */
	struct vs_library_info libs[VS_LIB_COUNT];
	/* VERBSHIM_TRACE, VERBSHIM_STATS, VERBSHIM_FAULT, VERBSHIM_TRACE_FILE
	 * as this process sees them (secure_getenv), NULL when unset */
	const char *knobs[4];
	/* per library: the nodes compiled in, and those the machine has */
	char nodes_in[VS_LIB_COUNT][96], nodes_here[VS_LIB_COUNT][96];
	struct vs_feature_info features[VS_FEATURE_COUNT];
	int list_err;			/* ibv_get_device_list() gave NULL */
	struct dev_row *devs;
	size_t ndevs;
	bool usable;			/* some listed port is ACTIVE */
	char diagnosis[1024];		/* "" when there is nothing to say */
};

/* The debugging knobs of docs/trace.md, in report.knobs' order. */
extern const char *const knob_names[4];

/* Where rdma-core looks, each prefixed by VERBSHIM_INFO_ROOT. */
struct options {
	const char *device;		/* -d, or NULL for all */
	const char *binary;		/* --binary FILE, or NULL */
	const char *root;		/* VERBSHIM_INFO_ROOT, or "" */
	bool json;
	char sysfs[PATH_MAX], devdir[PATH_MAX], confdir[PATH_MAX];
};

/* gather.c: the build, the libraries (loading each now), the devices.
 * 0, or ENOMEM; a device that cannot be opened is reported, not fatal. */
int gather_report(struct report *r, const struct options *o);
void report_free(struct report *r);

/* diagnose.c: sets r->usable, and r->diagnosis when nothing is usable. */
void diagnose(struct report *r, const struct options *o);

/* text.c, json.c */
void print_text(const struct report *r);
void print_json(FILE *f, const struct report *r);

/* elf.c: a 64-bit little-endian ELF file, mapped, never run. */
struct elf_file {
	const char *path;
	const unsigned char *data;
	size_t size;
	uint16_t machine;		/* EM_X86_64, EM_AARCH64, ... */
	const Elf64_Shdr *shdr, *shstr;
	unsigned int nsections;
};
int elf_open(struct elf_file *e, const char *path);
void elf_close(struct elf_file *e);
const char *elf_machine_name(uint16_t machine);
/* "x86_64-linux-gnu", or NULL for an architecture verbshim does not build */
const char *elf_multiarch(uint16_t machine);
/* fn for each note of the named sections; stops at fn's first non-zero */
int elf_notes(const struct elf_file *e, const char *section,
	      int (*fn)(void *arg, const char *owner, uint32_t type,
			const char *desc, uint32_t descsz),
	      void *arg);
/* fn for each version node a shared library defines */
int elf_version_nodes(const struct elf_file *e,
		      void (*fn)(void *arg, const char *node), void *arg);

/* binary.c: --binary FILE; root prefixes where libraries are looked for.
 * EXIT_USABLE all there; EXIT_RUNS_OLDER it runs, with less: some of its
 * functions answer "not supported" (nodes the installed rdma-core lacks,
 * a suggested library absent); EXIT_NODEV a library it needs (dlopen
 * priority recommended) missing or unusable; EXIT_USAGE not readable or
 * not linked with verbshim. */
int binary_report(const char *path, const char *root);

/* format.c: what the outputs and the diagnosis share. */
void __attribute__((format(printf, 3, 4)))
fmt(char *buf, size_t size, const char *f, ...);
const char *port_state_name(enum ibv_port_state s);
int mtu_bytes(enum ibv_mtu mtu);
double port_gbps(const struct ibv_port_attr *a);
const char *link_layer_name(uint8_t ll);
void gid_str(const union ibv_gid *gid, char *buf, size_t size);
void guid_str(uint64_t guid, char *buf, size_t size);

#endif /* VERBSHIM_INFO_H */
