#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# The rxe device as the stock ibv_devinfo sees it: port active, Ethernet.
set -euo pipefail
# shellcheck source=lib/common.bash
. "$(dirname "$0")/lib/common.bash"
need_vm
# Which libibverbs this root has (the release matrix swaps it).
lib=none
for f in /usr/lib/*-linux-gnu/libibverbs.so.1.*; do lib=$f; done
echo "libibverbs: ${lib##*/}"
out=$(ibv_devinfo -d "$VS_RXE_DEV" -v)
echo "$out" | head -n 30
echo "$out" | grep -q 'state:.*PORT_ACTIVE' || { echo "port not active"; exit 1; }
echo "$out" | grep -q 'link_layer:.*Ethernet' || { echo "link layer not Ethernet"; exit 1; }
if [ "${VS_PROVIDER:-rxe}" = siw ]; then
	# iWARP: one GID, from the MAC; the address is the netdev's, not a GID's
	echo "$out" | grep -q 'transport:.*iWARP' || { echo "transport not iWARP"; exit 1; }
	echo "ok: $VS_RXE_DEV active, iWARP"
	exit 0
fi
# The address as newer releases print it (::ffff:192.168.77.1), or as
# 17.1's and 22.4's print the raw GID, in hex only
# (0000:0000:0000:0000:0000:ffff:c0a8:4d01)
IFS=. read -r b1 b2 b3 b4 <<<"$VS_RXE_IP"
hex=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' "$b1" "$b2" "$b3" "$b4")
echo "$out" | grep -qE "GID\[ *$VS_RXE_GID_INDEX\]:.*($VS_RXE_IP|$hex)" ||
	{ echo "GID $VS_RXE_GID_INDEX does not carry $VS_RXE_IP ($hex)"; exit 1; }
echo "ok: $VS_RXE_DEV active, GID $VS_RXE_GID_INDEX = $VS_RXE_IP"
