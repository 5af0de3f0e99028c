#!/usr/bin/env bash
# Every public function symbol that the installed libibverbs, librdmacm,
# libefa, libmlx5, libmlx4, libibumad (and libhns, libmana, libionic where
# installed) export (every node but
# IBVERBS_PRIVATE_*, and not the no-op ibv_register_driver) is defined in
# lib/libverbshim.a.
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=lib/exports.bash
. test/shell/lib/exports.bash
archive=lib/libverbshim.a
[ -f "$archive" ] || { echo "no $archive: run make"; exit 1; }

defined=$(defined_functions "$archive")
status=0 summary=
for lib in libibverbs.so.1 librdmacm.so.1 libefa.so.1 libmlx5.so.1 libmlx4.so.1 libibumad.so.3 \
	libhns.so.1 libmana.so.1 libionic.so.1; do
	path=$(ldconfig -p | awk -v l="$lib" '$1 == l && /x86-64|x86_64/ && !p {p = $NF} END {print p}')
	# Newer than some releases (libmana 41, libhns 51, libionic 59).
	if [ -z "$path" ] && [[ $lib == lib@(hns|mana|ionic).so.1 ]]; then
		summary="$summary ${lib%%.so.*}=(not installed)"
		continue
	fi
	if [ -z "$path" ]; then
		echo "skip: $lib is not installed (apt-get install ibverbs-providers librdmacm1 libibumad3)"
		exit 77
	fi
	exported=$(public_functions "$path")
	missing=$(comm -23 <(echo "$exported") <(echo "$defined"))
	count=$(echo "$exported" | wc -l)
	summary="$summary ${lib%%.so.*}=$count"
	if [ -n "$missing" ]; then
		echo "$path exports, $archive does not define:"
		echo "$missing" | sed 's/^/    /'
		status=1
	fi
done
echo "public functions exported and defined:$summary"
exit $status
