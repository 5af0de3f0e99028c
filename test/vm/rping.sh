#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# Stock rping (librdmacm connection setup, RDMA read/write), data verified.
set -euo pipefail
# shellcheck source=lib/common.bash
. "$(dirname "$0")/lib/common.bash"
need_vm
pair rping -s -a "$VS_RXE_IP" -C 20 -S 256 -V -- rping -c -a "$VS_RXE_IP" -C 20 -S 256 -V
