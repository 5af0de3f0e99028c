#!/bin/busybox sh
# shellcheck shell=dash
# /init of the test VM's initramfs (busybox ash; copied in by vm-run.sh).
# Loads the modules, brings up the netdev and the device(s) of vs_prov:
# rxe0 (waiting for its RoCE v2 GID), siw0, or both (siw0 then on dummy1,
# a subnet of its own, so the CM maps each address to one device); mounts the host's shares and runs the command of /vsrun/cmd.sh in a
# chroot.  Talks to vm-run.sh through marker lines on the console:
#   @@VSRUN-READY@@  @@VSRUN-EXIT n@@  @@VSRUN-FAIL reason@@
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
exec >/dev/console 2>&1 </dev/console

fail() {
	echo "@@VSRUN-FAIL $*@@"
	dmesg | tail -n 20
	poweroff -f
	sleep 10
}
say() { echo "vm: $*"; }

# Parameters from the kernel command line: vs_net, vs_ip, vs_root, vs_host,
# vs_mem, vs_prov.  The repo's path comes in /vsrun/repo (it may have spaces).
vs_net=dummy vs_ip=192.168.77.1/24 vs_root=host vs_host=vsvm vs_mem= vs_prov=rxe
# shellcheck disable=SC2013 # (words, not lines)
for a in $(cat /proc/cmdline); do
	case $a in
	vs_net=*) vs_net=${a#*=} ;;
	vs_ip=*) vs_ip=${a#*=} ;;
	vs_root=*) vs_root=${a#*=} ;;
	vs_host=*) vs_host=${a#*=} ;;
	vs_mem=*) vs_mem=${a#*=} ;;
	vs_prov=*) vs_prov=${a#*=} ;;
	esac
done

hostname "$vs_host"
say "loading $(wc -l </lib/modules/order) modules"
while read -r m; do
	case $m in
	dummy.ko) args=numdummies=1 ;;
	bonding.ko) args=max_bonds=0 ;; # no bond0: tests make their own
	*) args= ;;
	esac
	# shellcheck disable=SC2086
	insmod "/lib/modules/$m" $args || fail "module load failed: insmod $m"
done </lib/modules/order

p9="trans=virtio,version=9p2000.L,msize=262144"
mkdir -p /mnt/host /mnt/rel /vsrun
mount -t 9p -o "$p9,ro,cache=loose" hostroot /mnt/host || fail "cannot mount the host root over 9p"
mount -t 9p -o "$p9,ro" vsrun /vsrun || fail "cannot mount the run dir over 9p"
vs_repo=$(cat /vsrun/repo)
[ -n "$vs_repo" ] || fail "no repo path in /vsrun/repo"
# The guest's name resolves to its address (MPI and friends look it up).
printf '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n%s\t%s\n' \
	"${vs_ip%/*}" "$vs_host" >/tmp/vs-hosts
roots=/mnt/host
if [ "$vs_root" = rel ]; then
	mount -t 9p -o "$p9,ro,cache=loose" relroot /mnt/rel || fail "cannot mount the rdma-core root over 9p"
	roots="/mnt/host /mnt/rel"
fi
for r in $roots; do
	# shellcheck disable=SC2015 # (fail never returns)
	mount -t proc proc "$r/proc" &&
		mount -t sysfs sys "$r/sys" &&
		mount -t devtmpfs dev "$r/dev" &&
		mkdir -p "$r/dev/pts" "$r/dev/shm" &&
		ln -sfn /proc/self/fd "$r/dev/fd" &&
		ln -sfn /proc/self/fd/0 "$r/dev/stdin" &&
		ln -sfn /proc/self/fd/1 "$r/dev/stdout" &&
		ln -sfn /proc/self/fd/2 "$r/dev/stderr" &&
		mount -t devpts devpts "$r/dev/pts" &&
		mount -t tmpfs tmp "$r/dev/shm" &&
		mount -t tmpfs tmp "$r/tmp" &&
		mount -t tmpfs run "$r/run" || fail "cannot set up the chroot $r"
	# Over the host's own file when there is one (a release root has none).
	if [ -f "$r/etc/hosts" ]; then
		mount -o bind /tmp/vs-hosts "$r/etc/hosts" || fail "cannot bind /etc/hosts in $r"
	fi
done

ip link set lo up
case $vs_net in
dummy) dev=dummy0 ;;
eth0)
	dev=eth0
	# No SLAAC: extra GIDs would shift the table.
	echo 0 >/proc/sys/net/ipv6/conf/eth0/autoconf
	echo 0 >/proc/sys/net/ipv6/conf/eth0/accept_ra
	;;
*) fail "unknown vs_net=$vs_net" ;;
esac
[ -e "/sys/class/net/$dev" ] || fail "no netdev $dev"
ip addr add "$vs_ip" dev "$dev" || fail "cannot configure $dev"
ip link set "$dev" up || fail "cannot bring up $dev"

# iproute2's rdma lives in the host root; the arm64 guest's (whose host
# root is x86-64) in /tools of the initramfs, with its libraries.
rdma_link_add() {
	if [ -x /tools/rdma ]; then
		/tools/lib/ld-linux-aarch64.so.1 --library-path /tools/lib /tools/rdma link add "$1" type "$2" netdev "$3" ||
			fail "rdma link add $1 type $2 netdev $3 failed"
		return
	fi
	PATH=/usr/sbin:/usr/bin:/sbin:/bin chroot /mnt/host rdma link add "$1" type "$2" netdev "$3" ||
		fail "rdma link add $1 type $2 netdev $3 failed"
}

# The RoCE v2 GID of rxe0 carrying our IPv4 address: ::ffff:a.b.c.d.
rxe_up() {
	rdma_link_add rxe0 rxe "$dev"
	gids=/sys/class/infiniband/rxe0/ports/1
	idx='' i=0
	while [ $i -lt 100 ] && [ -z "$idx" ]; do
		n=0
		while [ $n -lt 16 ]; do
			g=$(cat "$gids/gids/$n" 2>/dev/null)
			case $g in
			0000:0000:0000:0000:0000:ffff:*)
				t=$(cat "$gids/gid_attrs/types/$n" 2>/dev/null)
				h=${g#0000:0000:0000:0000:0000:ffff:}
				a=${h%:*} b=${h#*:}
				addr=$((0x${a%??})).$((0x${a#??})).$((0x${b%??})).$((0x${b#??}))
				if [ "$t" = "RoCE v2" ] && [ "$addr" = "$want" ]; then
					idx=$n
					break
				fi
				;;
			esac
			n=$((n + 1))
		done
		[ -n "$idx" ] || sleep 0.1
		i=$((i + 1))
	done
	[ -n "$idx" ] || fail "no RoCE v2 GID for $want on rxe0 after 10s"
	say "rxe0 on $dev: RoCE v2 GID index $idx ($want)"
}

# siw0 on netdev $1: iWARP has one GID (from the MAC) and no RoCE types;
# it is ready when its port is.
siw_up() {
	rdma_link_add siw0 siw "$1"
	i=0
	until grep -q ACTIVE /sys/class/infiniband/siw0/ports/1/state 2>/dev/null; do
		[ $i -lt 100 ] || fail "siw0 on $1: port not ACTIVE after 10s"
		sleep 0.1
		i=$((i + 1))
	done
	say "siw0 (iWARP) on $1 ($2)"
}

want=${vs_ip%/*}
case $vs_prov in
rxe)
	rxe_up
	export VS_RXE_DEV=rxe0 VS_RXE_GID_INDEX=$idx
	;;
siw)
	siw_up "$dev" "$want"
	export VS_RXE_DEV=siw0 VS_RXE_GID_INDEX=0
	;;
both)
	# siw beside rxe: its own netdev and subnet (a dummy only).
	[ "$dev" = dummy0 ] || fail "vs_prov=both needs the dummy netdev"
	siw_ip=192.168.78.1
	ip link add dummy1 type dummy && ip addr add $siw_ip/24 dev dummy1 &&
		ip link set dummy1 up || fail "cannot configure dummy1 for siw0"
	rxe_up
	siw_up dummy1 $siw_ip
	export VS_RXE_DEV=rxe0 VS_RXE_GID_INDEX=$idx VS_SIW_DEV=siw0 VS_SIW_IP=$siw_ip
	;;
*) fail "unknown vs_prov=$vs_prov (rxe, siw or both)" ;;
esac

if [ "$vs_root" = rel ]; then nr=/mnt/rel; else nr=/mnt/host; fi
# Its mount point may be hidden under the chroot's own tmpfs (/tmp, /run,
# /dev/shm): made there.
if [ ! -d "$nr$vs_repo" ]; then
	mkdir -p "$nr$vs_repo" 2>/dev/null ||
		fail "cannot mount the repo at $vs_repo: no such directory in the guest, and its parent is read-only there (the host's / over 9p)"
fi
mount -t 9p -o "$p9" repo "$nr$vs_repo" || fail "cannot mount the repo at $vs_repo"

export VERBSHIM_IN_VM=1 VS_RXE_IP="$want" VS_PROVIDER="$vs_prov"
cpus=$(grep -c ^processor /proc/cpuinfo)
export VS_GUEST_HOSTNAME="$vs_host" VS_GUEST_MEM="$vs_mem" VS_GUEST_SMP="$cpus"
export HOME=/tmp PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
echo 4 >/proc/sys/kernel/printk
echo "@@VSRUN-READY@@"
chroot "$nr" /bin/sh -c "$(cat /vsrun/cmd.sh)"
rc=$?
sync
umount "$nr$vs_repo" 2>/dev/null
echo "@@VSRUN-EXIT $rc@@"
poweroff -f
sleep 10
