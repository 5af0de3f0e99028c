/* SPDX-License-Identifier: MIT */
/*
 * verbshim loader introspection: which rdma-core libraries were found at
 * run time, where, how new they are, and which symbols resolved.
 *
 * Nothing is loaded before first use: the first call into a library (an
 * ibv_* / rdma_* / efadv_* / mlx5dv_* / mlx4dv_* / umad_* function, or
 * vs_library_load()) loads it, once, thread-safely.  Every call here returns 0 or a negative errno.
 */
#ifndef VERBSHIM_LOADER_H
#define VERBSHIM_LOADER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum vs_library {
	VS_LIB_IBVERBS = 0,	/* libibverbs.so.1, VERBSHIM_LIBIBVERBS */
	VS_LIB_RDMACM = 1,	/* librdmacm.so.1,  VERBSHIM_LIBRDMACM */
	VS_LIB_EFA = 2,		/* libefa.so.1,     VERBSHIM_LIBEFA */
	VS_LIB_MLX5 = 3,	/* libmlx5.so.1,    VERBSHIM_LIBMLX5 */
	VS_LIB_MLX4 = 4,	/* libmlx4.so.1,    VERBSHIM_LIBMLX4 */
	VS_LIB_IBUMAD = 5,	/* libibumad.so.3,  VERBSHIM_LIBIBUMAD */
};
#define VS_LIB_COUNT 6

struct vs_library_info {
	uint64_t comp_mask;		/* none defined yet: set to 0 */
	const char *name;		/* "libibverbs" */
	int loaded;			/* 1 when loaded and recognised */
	int load_errno;			/* why not: ENOENT, ELIBBAD, ... */
	const char *path;		/* the file actually loaded, or NULL */
	const char *error;		/* what went wrong, in words, or NULL */
	const char *highest_node;	/* "IBVERBS_1.14"; "" if unversioned */
	int min_release;		/* rdma-core >= this (36); 0 unknown */
	int provider_abi;		/* N of IBVERBS_PRIVATE_N; -1 if none */
	unsigned int symbols_known;	/* rows compiled into the table */
	unsigned int symbols_resolved;	/* of those, found in the library */
};

/**
 * vs_library_load() - load an rdma-core library now
 * @lib: which library
 *
 * A library is otherwise loaded at its first call.  Any drop-in called
 * back from inside the load fails in its own convention with EDEADLK
 * ("libibverbs called back into ibv_* while loading" in
 * vs_library_query()'s error); other threads wait for the load.
 *
 * Return: 0, or -ENOENT not found, -ELIBBAD found but not usable (not the
 * expected library, missing dependency), -EINVAL unknown library,
 * -EDEADLK called from inside that load (a constructor of the library
 * calling back: refused rather than waiting for itself).
 */
int vs_library_load(enum vs_library lib);

/**
 * vs_library_query() - describe a library, loading it first if needed
 * @lib: which library
 * @info: where the description goes (strings live as long as the process)
 *
 * From inside the load: loaded 0, load_errno EDEADLK, error says who
 * called back.
 *
 * Return: 0 whether or not it loaded (see @info->loaded), or -EINVAL for a
 * NULL @info or an unknown library.
 */
int vs_library_query(enum vs_library lib, struct vs_library_info *info);

/**
 * vs_symbol_resolved() - whether an rdma-core function resolved at run time
 * @name: the function's name ("ibv_post_send")
 *
 * Return: 1 yes, 0 no (old library, or none), -ENOENT not a symbol this
 * build of verbshim knows (misspelt, or absent from the headers it was
 * built with) or of a library this program never calls (its table is not
 * linked in: see docs/shipping.md, "What a binary can load"), -EINVAL NULL
 * @name, -EDEADLK from inside its library's load.
 */
int vs_symbol_resolved(const char *name);

/**
 * vs_symbol_node() - the version node a symbol is pinned to
 * @name: the function's name
 *
 * Return: the node ("IBVERBS_1.1"), or NULL for an unknown name or one of
 * a library this program never calls.
 */
const char *vs_symbol_node(const char *name);

/* What this copy of verbshim was built with: the version nodes whose
 * functions it defines, and those the rdma-core headers it was compiled
 * against lacked (their functions are not defined at all), as ranges per
 * library in node order: "IBVERBS_1.0-1.14 RDMACM_1.0-1.3 EFA_1.0-1.2";
 * "" when there are none. */
struct vs_build_info {
	uint64_t comp_mask;		/* none defined yet: set to 0 */
	const char *nodes_in;		/* compiled in */
	const char *nodes_out;		/* left out */
};

/**
 * vs_build_query() - what this copy of verbshim was built with
 * @info: where the answer goes (static strings)
 *
 * Return: 0, or -EINVAL for a NULL @info.
 */
int vs_build_query(struct vs_build_info *info);

/**
 * vs_library_nodes() - the version nodes a library on this machine defines
 * @lib: which library (loaded first if needed)
 * @buf: where the answer goes: the nodes this build knows that the
 *       library defines, as ranges ("IBVERBS_1.0-1.11"); "" when the
 *       library did not load or defines no version node
 * @len: size of @buf (64 bytes hold any answer)
 *
 * Return: the length of the answer (cut to fit @buf), -EINVAL for an
 * unknown library, a NULL @buf or a @len of 0, -EDEADLK from inside its
 * load.
 */
int vs_library_nodes(enum vs_library lib, char *buf, size_t len);

/* What the typed API (and programs) may ask the machine for, each one
 * version node of rdma-core newer than the oldest it supports. */
enum vs_feature {
	VS_FEATURE_DMABUF_MR = 0,	/* ibv_reg_dmabuf_mr: vs_mr_register_dmabuf */
	VS_FEATURE_GID_TABLE = 1,	/* _ibv_query_gid_table (emulated before) */
	VS_FEATURE_ECE = 2,		/* ibv_query_ece, ibv_set_ece */
	VS_FEATURE_CM_ECE = 3,		/* rdma_set_local_ece, rdma_get_remote_ece */
	VS_FEATURE_FORK_STATUS = 4,	/* ibv_is_fork_initialized (emulated before) */
	VS_FEATURE_DATA_IN_ORDER = 5,	/* ibv_query_qp_data_in_order */
	VS_FEATURE_MR_EX = 6,		/* ibv_reg_mr_ex, ibv_alloc_dmah */
	VS_FEATURE_PORT_SPEED = 7,	/* ibv_query_port_speed */
	VS_FEATURE_BUF = 8,		/* ibv_alloc_buf, ibv_reg_buf_mr */
	VS_FEATURE_COMP_CNTR = 9,	/* ibv_create_comp_cntr */
	VS_FEATURE_CM_ADDRINFO = 10,	/* rdma_resolve_addrinfo */
	VS_FEATURE_SRD_WQS = 11,	/* efadv_query_qp_wqs: vs_srd_qp_query_wqs */
	VS_FEATURE_MLX5_DMABUF_MR = 12,	/* mlx5dv_reg_dmabuf_mr */
};
#define VS_FEATURE_COUNT 13

struct vs_feature_info {
	uint64_t comp_mask;		/* none defined yet: set to 0 */
	const char *name;		/* "dmabuf memory regions" */
	const char *verb;		/* "ibv_reg_dmabuf_mr" */
	const char *node;		/* its version node: "IBVERBS_1.12" */
	int release;			/* the rdma-core release that added it: 34 */
	int compiled_in;		/* 1: this build defines @verb */
	int available;			/* 1: the machine's library defines @verb */
	/* what the machine has: "IBVERBS_1.11 (rdma-core 32/33)", or why
	 * none: "libibverbs not found (...)" */
	char found[160];
};

/**
 * vs_feature_query() - whether this machine's rdma-core provides a feature
 * @feature: which one
 * @info: where the answer goes
 *
 * Loads the feature's library if needed.  @info->available says whether
 * the machine's library defines the verb; where it does not, the verb's
 * drop-in returns its not-supported result (its failure value, errno
 * EOPNOTSUPP) and the typed call that needs it fails with a record naming
 * @info->verb, @info->release and @info->found.  A verb that exists may
 * still be refused by the provider or the kernel (rxe has no dmabuf MRs).
 *
 * Return: 0 (whether or not the feature is there), -EINVAL for an unknown
 * @feature or a NULL @info.
 */
int vs_feature_query(enum vs_feature feature, struct vs_feature_info *info);

#ifdef __cplusplus
}
#endif

#endif /* VERBSHIM_LOADER_H */
