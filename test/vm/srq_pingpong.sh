#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# Stock ibv_srq_pingpong (shared receive queue) on the same rxe.
set -euo pipefail
# shellcheck source=lib/common.bash
. "$(dirname "$0")/lib/common.bash"
need_vm
a=(-d "$VS_RXE_DEV" -g "$VS_RXE_GID_INDEX" -n 200 -q 4 -c)
pair ibv_srq_pingpong "${a[@]}" -- ibv_srq_pingpong "${a[@]}" "$VS_RXE_IP"
