/* SPDX-License-Identifier: MIT */
/*
 * verbshim: portable RDMA verbs (the shim) and a typed safe C API on top
 * (prefix vs_).  This umbrella header brings in every family; each
 * include/verbshim/NAME.h also compiles on its own.  docs/API.md has the
 * reference.
 */
#ifndef VERBSHIM_H
#define VERBSHIM_H

#include "verbshim/loader.h"
#include "verbshim/trace.h"
#include "verbshim/common.h"
#include "verbshim/error.h"
#include "verbshim/device.h"
#include "verbshim/names.h"
#include "verbshim/mem.h"
#include "verbshim/cq.h"
#include "verbshim/cq_iter.h"
#include "verbshim/srq.h"
#include "verbshim/qp_config.h"
#include "verbshim/qp_rules.h"
#include "verbshim/qp.h"
#include "verbshim/ah.h"
#include "verbshim/endpoint.h"
#include "verbshim/batch.h"
#include "verbshim/post_rc.h"
#include "verbshim/post_uc.h"
#include "verbshim/post_ud.h"
#include "verbshim/post.h"
#include "verbshim/recv.h"
#include "verbshim/ffi.h"
#include "verbshim/event.h"
#include "verbshim/cm.h"
#include "verbshim/cm_connect.h"
#include "verbshim/cm_event.h"
#include "verbshim/cm_ud.h"
#include "verbshim/cm_oneshot.h"
#include "verbshim/cm_ep.h"
#include "verbshim/scope.h"
#include "verbshim/srd.h"
#include "verbshim/post_srd.h"

#endif /* VERBSHIM_H */
