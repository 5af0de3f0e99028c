#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# Stock ibv_ud_pingpong (address handles, GRH) on the same rxe.
set -euo pipefail
# shellcheck source=lib/common.bash
. "$(dirname "$0")/lib/common.bash"
need_vm
skip_on_iwarp "the stock ibv_ud_pingpong exchanges addresses by TCP and brings its QPs up itself; iWARP QPs connect only through rdma_cm (test/vm/rping.sh runs there)"
a=(-d "$VS_RXE_DEV" -g "$VS_RXE_GID_INDEX" -n 200 -s 1024 -c)
VS_PAIR_UD=1 pair ibv_ud_pingpong "${a[@]}" -- ibv_ud_pingpong "${a[@]}" "$VS_RXE_IP"
