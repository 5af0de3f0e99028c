#!/usr/bin/env bash
# The rdma-core releases verbshim is proven on, defined once (issue 49):
# the tests that cover every release take their list from here.
#
#   scripts/rdma-core-releases.sh            the nine, oldest first
#   scripts/rdma-core-releases.sh source     those built from their upstream
#                                            tags (scripts/roots/rdma-core-build.sh)
#   scripts/rdma-core-releases.sh debian     Debian's four (its packages)
#   scripts/rdma-core-releases.sh check      those the host tests of make check
#                                            read (cross_version, build_root,
#                                            verbshim_info_binary): $VS_RELEASES
#                                            when set (make check-releases sets
#                                            it to the nine or RELEASES), else
#                                            the two oldest (17.1, 22.4, also
#                                            booted in make check) and Debian's
#                                            four: 28.0, 32.0 and 39.0's roots
#                                            cost make check 3-5 more minutes
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
check)
	if [ -z "${VS_RELEASES:-}" ]; then
		printf '%s\n' 17.1 22.4 $debian | sort -V | paste -sd' '
		exit 0
	fi
	for v in $VS_RELEASES; do
		[[ " $debian $source " == *" $v "* ]] ||
			{ echo "rdma-core-releases.sh: VS_RELEASES: no release '$v': the nine are $("$0")" >&2; exit 2; }
	done
	echo "$VS_RELEASES" ;;
*) echo "usage: rdma-core-releases.sh [source|debian|check]" >&2; exit 2 ;;
esac
