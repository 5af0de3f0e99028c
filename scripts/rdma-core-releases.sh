#!/usr/bin/env bash
# The rdma-core releases verbshim is proven on, defined once (issue 49):
# the tests that cover every release take their list from here.
#
#   scripts/rdma-core-releases.sh            the nine, oldest first
#   scripts/rdma-core-releases.sh source     those built from their upstream
#                                            tags (scripts/roots/rdma-core-build.sh)
#   scripts/rdma-core-releases.sh debian     Debian's four (its packages)
#
# scripts/rdma-core-root.sh makes the root of each; its usage message names
# the same nine (its text is part of every root's recipe: editing it
# rebuilds them all, so it is not made to read this file).
set -euo pipefail
debian="33.2 44.0 56.1 65.0"
source="17.1 22.4 28.0 32.0 39.0"
case ${1:-} in
'') printf '%s\n' $debian $source | sort -V | paste -sd' ' ;;
source) echo "$source" ;;
debian) echo "$debian" ;;
*) echo "usage: rdma-core-releases.sh [source|debian]" >&2; exit 2 ;;
esac
