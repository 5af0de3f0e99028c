#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# The plain-verbs drop-in program (test/dropin/plain_verbs.c, linked with
# -lverbshim and no -libverbs) on the rxe device: ibv_reg_mr through
# ibv_reg_mr_iova2, ibv_query_port, ibv_query_gid_ex/table, rdmacm bind
# and rsockets; and the release probe, which must see the device too.
set -euo pipefail
# shellcheck source=lib/common.bash
. "$(dirname "$0")/lib/common.bash"
need_vm
cd "$(dirname "$0")/../.."
build/dropin/plain_verbs
build/test/unit/release_probe
