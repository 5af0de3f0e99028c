/* SPDX-License-Identifier: MIT */
/*
 * verbshim: portable RDMA verbs (the shim) and a typed safe C API on top
 * (prefix vs_).  This umbrella header brings in every family; each
 * include/verbshim/NAME.h also compiles on its own.  docs/API.md has the
 * reference.
 */
#ifndef VERBSHIM_H
#define VERBSHIM_H

#if defined(__has_include)
#if __has_include("verbshim/loader.h")
#include "verbshim/loader.h"
#endif
#else
#include "verbshim/loader.h"
#endif

#include "verbshim/common.h"
#include "verbshim/error.h"
#include "verbshim/device.h"
#include "verbshim/names.h"
#include "verbshim/mem.h"
#include "verbshim/cq.h"
#include "verbshim/qp.h"
#include "verbshim/endpoint.h"
#include "verbshim/post.h"
#include "verbshim/event.h"

#endif /* VERBSHIM_H */
