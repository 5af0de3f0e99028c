#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# Stock ibv_srq_pingpong (shared receive queue) on the same rxe.
set -euo pipefail
# shellcheck source=lib/common.bash
. "$(dirname "$0")/lib/common.bash"
need_vm
skip_on_iwarp "the stock ibv_srq_pingpong exchanges addresses by TCP and brings its QPs up itself; iWARP QPs connect only through rdma_cm (test/vm/rping.sh runs there)"
# --chk, not -c: 17.1's ibv_srq_pingpong has "c:" in its short options (a bug fixed
# by 22.4; its long option --chk takes no argument on every release), so
# -c before the server's address ate it and the client waited as a second
# server.
a=(-d "$VS_RXE_DEV" -g "$VS_RXE_GID_INDEX" -n 200 -q 4 --chk)
pair ibv_srq_pingpong "${a[@]}" -- ibv_srq_pingpong "${a[@]}" "$VS_RXE_IP"
