#!/usr/bin/env bash
# Boot Debian's kernel in qemu (TCG) with SoftRoCE and run one command in it.
#
#   scripts/vm-run.sh [options] -- CMD [ARGS...]
#
#   --kernel bullseye|bookworm|trixie  guest kernel (default bookworm: 6.1;
#                              bullseye 5.10, trixie 6.12)
#   --arch x86_64|arm64        the guest's architecture (default x86_64);
#                              arm64: Debian's arm64 kernel under
#                              qemu-system-aarch64 (-M virt -cpu max, TCG),
#                              always in an arm64 release root
#                              (--rdma-core, default 44.0: the host root's
#                              release); bookworm only with siw (a
#                              cross-built siw.ko)
#   --provider rxe|siw|both    the RDMA device(s) (default $VS_VM_PROVIDER,
#                              else rxe): SoftRoCE rxe0, soft-iWARP siw0
#                              (scripts/vm/siw-build.sh), or both (siw0 on
#                              dummy1, 192.168.78.1/24)
#   --rdma-core VERSION        run CMD chrooted into that release's root
#                              (scripts/rdma-core-root.sh: 17.1 22.4 28.0 32.0
#                              33.2 39.0 44.0 56.1 65.0)
#                              instead of the host's / (read-only over 9p)
#   --root DIR                 run CMD chrooted into DIR, a whole root of
#                              the guest's architecture (e.g.
#                              scripts/roots/packaging-root.sh --for pyverbs:
#                              Python beside a release's rdma-core), as
#                              --rdma-core's roots are
#   --timeout SEC              whole run, boot included (default 600)
#   --netdev-socket listen:PORT|connect:PORT|udp:LPORT:RPORT
#                              rxe on a virtio eth0 joined to another VM by
#                              qemu's socket netdev on 127.0.0.1 (TCP listen/
#                              connect, or UDP from LPORT to RPORT)
#                              (default: rxe on a dummy0, no NIC)
#   --ip ADDR/PREFIX           the guest's address (default 192.168.77.1/24)
#   --name NAME                console prefix (for two VMs side by side)
#   --hostname NAME            the guest's hostname (default: NAME of --name,
#                              else vsvm); /etc/hosts maps it to the --ip
#   --mem MIB                  guest memory (default $VS_VM_MEM, else 2048)
#   --smp N                    guest CPUs (default $VS_VM_SMP, else 2, or
#                              1 with --icount; two VMs share 2 cores
#                              better with 1 each)
#   --env NAME=VALUE           set NAME in the guest (repeatable)
#   --env-pass GLOB[,GLOB...]  pass the caller's variables whose names match
#                              ('FI_*,UCX_*,OMPI_*'; also $VS_VM_ENV_PASS)
#   --log FILE                 also save the raw console to FILE
#   --icount SHIFT             deterministic guest time (default
#                              $VS_VM_ICOUNT, else off): one vCPU thread,
#                              each guest instruction 2^SHIFT ns of guest
#                              time, idle time skipped.  For benchmarks:
#                              the guest's clock then counts the work done
#                              (kernel included), not the host's load;
#                              one vCPU only
#
# In the guest CMD runs with cwd = this repo, mounted read-write at the same
# path, with VERBSHIM_IN_VM=1, VS_PROVIDER, VS_RXE_DEV (the device under
# test: rxe0, or siw0 with --provider siw), VS_RXE_GID_INDEX, VS_RXE_IP,
# VS_SIW_DEV and VS_SIW_IP (--provider both), VS_GUEST_HOSTNAME,
# VS_GUEST_MEM (MiB), VS_GUEST_SMP (plus the caller's
# VERBSHIM_*/VS_* variables and those of --env/--env-pass).  Exit status:
# CMD's; 124 on timeout; 125 when the VM could not be brought up.
set -euo pipefail

me=vm-run.sh
die() { echo "$me: error: $*" >&2; exit 125; }

repo=$(cd "$(dirname "$0")/.." && pwd -P)
cache=${VERBSHIM_CACHE:-$repo/.cache}
kernel=bookworm arch=x86_64 provider=${VS_VM_PROVIDER:-rxe} icount=${VS_VM_ICOUNT:-} smp=${VS_VM_SMP:-} mem=${VS_VM_MEM:-2048} rdma_core='' root_dir='' timeout=600
netsock='' ip=192.168.77.1/24 name='' log='' hostname='' envs=() env_pass=${VS_VM_ENV_PASS:-}
boot_timeout=${VS_BOOT_TIMEOUT:-180}
argv=("$@") # for the one boot retry below
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kernel=$2; shift 2 ;;
	--arch) arch=$2; shift 2 ;;
	--rdma-core) rdma_core=$2; shift 2 ;;
	--root) root_dir=$2; shift 2 ;;
	--provider) provider=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--netdev-socket) netsock=$2; shift 2 ;;
	--ip) ip=$2; shift 2 ;;
	--name) name=$2; shift 2 ;;
	--smp) smp=$2; shift 2 ;;
	--mem) mem=$2; shift 2 ;;
	--hostname) hostname=$2; shift 2 ;;
	--env) envs+=("$2"); shift 2 ;;
	--env-pass) env_pass+=${env_pass:+,}$2; shift 2 ;;
	--log) log=$2; shift 2 ;;
	--icount) icount=$2; shift 2 ;;
	--) shift; break ;;
	-h | --help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "$me: unknown option $1 (see --help)" >&2; exit 2 ;;
	esac
done
[ $# -gt 0 ] || { echo "usage: $me [options] -- CMD [ARGS...]" >&2; exit 2; }
case $arch in
x86_64 | amd64) arch=x86_64 ;;
arm64 | aarch64)
	arch=arm64
	# The host's / holds x86-64 programs: an arm64 guest runs in an arm64
	# release root, 44.0 (bookworm, the host root's release) unless told.
	[ -n "$rdma_core" ] || [ -n "$root_dir" ] || rdma_core=44.0
	# siw.ko is cross-built for the arm64 6.1 only (scripts/vm/siw-build.sh)
	[ "$provider" = rxe ] || [ "$kernel" = bookworm ] || die "--arch arm64 --provider $provider: bookworm only (siw.ko is cross-built for the arm64 6.1 kernel, not $kernel's)"
	# TCG emulating another architecture: 94-130 s to /init's ready with
	# the host at load ~20 (once more than 180 s)
	boot_timeout=${VS_BOOT_TIMEOUT:-420}
	;;
*) die "--arch $arch: x86_64 or arm64" ;;
esac
# The repo may live anywhere (it reaches the guest through a file, not the
# kernel command line); the cache is named in apt's sources.list.
case $repo in *$'\n'*) die "the repository's path contains a newline: $(printf %q "$repo")" ;; esac
case $cache in *[[:space:]]*) die "the cache path contains white space (apt's sources.list cannot name files there): set VERBSHIM_CACHE to another directory: $cache" ;; esac
if ! [[ $mem =~ ^[0-9]+$ ]] || [ "$mem" -lt 256 ]; then die "--mem $mem: a size in MiB, at least 256"; fi
host_mib=$(($(awk '/^MemTotal:/ {print $2}' /proc/meminfo) / 1024))
[ "$mem" -le "$host_mib" ] || die "--mem $mem: more than this host's $host_mib MiB"
[ -n "$smp" ] || smp=$([ -n "$icount" ] && echo 1 || echo 2)
[[ $smp =~ ^[1-9][0-9]*$ ]] || die "--smp $smp: a number of CPUs"
[[ $icount =~ ^([0-9]|10)?$ ]] || die "--icount $icount: a shift of 0 to 10 (2^SHIFT ns per instruction)"
# measured: under icount Debian's 6.1 hangs bringing up its second vCPU
[ -z "$icount" ] || [ "$smp" = 1 ] || die "--icount needs --smp 1 (with more vCPUs the guest hangs at 'Booting SMP configuration' under qemu's icount)"
case $provider in
rxe | siw) ;;
both) [ -z "$netsock" ] || die "--provider both puts siw0 on a second dummy netdev: not with --netdev-socket" ;;
*) die "--provider $provider: rxe, siw or both" ;;
esac
valid_host() { [[ $1 =~ ^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$ ]]; }
if [ -z "$hostname" ]; then
	hostname=vsvm
	valid_host "$name" && hostname=$name
fi
valid_host "$hostname" || die "--hostname $hostname: letters, digits and inner '-', at most 63"
# Set by the guest itself: not to be overridden.
guest_var() {
	case $1 in VERBSHIM_IN_VM | VS_PROVIDER | VS_RXE_* | VS_SIW_* | VS_GUEST_*) return 0 ;; esac
	return 1
}
for e in "${envs[@]}"; do
	if ! [[ $e =~ ^[A-Za-z_][A-Za-z0-9_]*= ]]; then die "--env $e: NAME=VALUE expected"; fi
	guest_var "${e%%=*}" && die "--env $e: ${e%%=*} is set by the guest"
done

# Host tools: installed when root, else named.
if [ "$arch" = arm64 ]; then
	"$repo/scripts/deps.sh" --vm && "$repo/scripts/deps.sh" --arm64 || exit 125
	# Debian's arm64 busybox-static (scripts/roots/root.bash)
	ROOT_ARCH=arm64
	# shellcheck source=scripts/roots/root.bash
	. "$repo/scripts/roots/root.bash"
	busybox=$(root_static_busybox) || die "no arm64 busybox-static"
	kdir=$("$repo/scripts/vm/kernel-fetch.sh" --arch arm64 "$kernel") || die "cannot fetch the $kernel arm64 kernel"
	kimage=$kdir/Image
	rootopt=(--arch arm64)
else
"$repo/scripts/deps.sh" --vm || exit 125
# A static busybox (busybox-static); the dynamic one cannot run in the initramfs.
busybox=/bin/busybox
[ -x "$busybox" ] || die "$busybox not found (apt-get install busybox-static)"
! grep -q /lib64/ld-linux-x86-64.so.2 "$busybox" || die "$busybox is dynamically linked (apt-get install busybox-static)"

kdir=$("$repo/scripts/vm/kernel-fetch.sh" "$kernel") || die "cannot fetch the $kernel kernel"
kimage=$kdir/vmlinux
rootopt=()
fi
kver=$(cat "$kdir/version")
relroot=
if [ -n "$root_dir" ]; then
	[ -z "$rdma_core" ] || die "--root and --rdma-core: one root only"
	[ -x "$root_dir/bin/sh" ] || die "--root $root_dir: not a root (no bin/sh)"
	relroot=$(cd "$root_dir" && pwd -P)
elif [ -n "$rdma_core" ]; then
	relroot=$("$repo/scripts/rdma-core-root.sh" "${rootopt[@]}" "$rdma_core") || die "cannot build the rdma-core $rdma_core${rootopt:+ arm64} root"
fi
# The repo is mounted at its own path inside the chroot.
[ -z "$relroot" ] || mkdir -p "$relroot$repo"

# The initramfs: busybox, /init, the modules in load order; cached by content.
# bonding (no bond until a test makes one): a fail-over is what makes the
# kernel's CM raise RDMA_CM_EVENT_ADDR_CHANGE (test/device/cm_addr_change.c).
modules="virtio_pci virtio_net dummy bonding crc32_generic rdma_rxe rdma_ucm 9pnet_virtio 9p"
# soft-iWARP: Debian builds none; ours needs libcrc32c, which needs crc32c.
siw_ko=
if [ "$provider" != rxe ]; then
	siw_ko=$("$repo/scripts/vm/siw-build.sh" "${rootopt[@]}" "$kernel") || die "cannot build siw.ko for $kver"
	modules+=" crc32c_generic libcrc32c"
fi
# The arm64 guest's rdma(8) (the x86-64 guest takes the host's through its
# root): iproute2's, with the libraries it needs, from bookworm's arm64
# packages, into /tools of the initramfs.
tools_debs=()
if [ "$arch" = arm64 ]; then
	mapfile -t tools_debs < <("$repo/scripts/roots/apt-fetch.sh" --arch arm64 bookworm iproute2 libmnl0 libbsd0 libcap2 libmd0 libc6)
	[ ${#tools_debs[@]} -eq 6 ] || die "cannot fetch arm64 iproute2 for the initramfs"
fi
initrd_key=$( {
	cat "$repo/scripts/vm/init.sh"
	echo "$kdir $kver $modules"
	sha256sum "$busybox"
	[ -z "$siw_ko" ] || sha256sum "$siw_ko"
	[ ${#tools_debs[@]} -eq 0 ] || sha256sum "${tools_debs[@]}"
} | sha256sum | cut -c1-16)
initrd=$cache/initramfs/$kernel-$initrd_key.cpio
if [ ! -s "$initrd" ]; then
	echo "$me: building the initramfs for $kver" >&2
	mkdir -p "$cache/initramfs"
	stage=$(mktemp -d "$cache/initramfs/stage.XXXXXX")
	mkdir -p "$stage"/{bin,dev,proc,sys,tmp,mnt,lib/modules}
	cp "$busybox" "$stage/bin/busybox"
	cp "$repo/scripts/vm/init.sh" "$stage/init"
	chmod 755 "$stage/init"
	: >"$stage/lib/modules/order"
	for m in $modules; do
		if ! deps=$(modprobe -d "$kdir/tree" -S "$kver" --show-depends "$m" 2>&1); then
			# crc32_generic went away (into lib/) in later kernels.
			[ "$m" = crc32_generic ] && continue
			rm -rf "$stage"
			die "module $m not found in $kver: $deps"
		fi
		while read -r kind path _; do
			[ "$kind" = insmod ] || continue
			base=$(basename "$path")
			ko=${base%.xz}
			ko=${ko%.zst}
			grep -qx "$ko" "$stage/lib/modules/order" && continue
			case $base in
			*.xz) xz -dc "$path" >"$stage/lib/modules/$ko" ;;
			*.zst) zstd -qdc "$path" >"$stage/lib/modules/$ko" || die "zstd needed for $base" ;;
			*) cp "$path" "$stage/lib/modules/$ko" ;;
			esac
			echo "$ko" >>"$stage/lib/modules/order"
		done <<<"$deps"
	done
	if [ -n "$siw_ko" ]; then
		cp "$siw_ko" "$stage/lib/modules/siw.ko"
		echo siw.ko >>"$stage/lib/modules/order"
	fi
	if [ ${#tools_debs[@]} -gt 0 ]; then
		mkdir -p "$stage/tools/lib" "$stage.x"
		for d in "${tools_debs[@]}"; do dpkg-deb -x "$d" "$stage.x"; done
		for l in bin/rdma ld-linux-aarch64.so.1 libc.so.6 libmnl.so.0 libbsd.so.0 libcap.so.2 libmd.so.0; do
			f=$(find "$stage.x" -path "*/$l" | head -n 1)
			[ -n "$f" ] || { rm -rf "$stage" "$stage.x"; die "no $l in the arm64 packages for rdma(8)"; }
			case $l in
			bin/rdma) cp "$f" "$stage/tools/rdma" ;;
			*) cp -L "$f" "$stage/tools/lib/$l" ;;
			esac
		done
		rm -rf "$stage.x"
	fi
	# Two runs may build the same image at once (the two-VM stage, or
	# checkouts sharing a cache): each writes its own file, and the rename
	# is atomic, so either image is whole when a boot reads it.
	(cd "$stage" && find . | LC_ALL=C sort | cpio -o -H newc --quiet) >"$stage.cpio"
	mv "$stage.cpio" "$initrd"
	rm -rf "$stage"
	# Images of another init or module list: stale once unused for a day
	# (another checkout sharing the cache may still boot one today).
	find "$cache/initramfs" -maxdepth 1 -name "$kernel-*.cpio" ! -name "${initrd##*/}" -mmin +1440 -delete
	# and the stage dirs of builds that were killed
	find "$cache/initramfs" -maxdepth 1 -name 'stage.*' -mmin +1440 -exec rm -rf {} + 2>/dev/null || true
fi

# Per-run dir (shared read-only with the guest): the command to run.
mkdir -p "$cache/run"
# Run dirs of runs that were SIGKILLed (the trap never ran).
find "$cache/run" -mindepth 1 -maxdepth 1 -name 'vm.*' -mmin +1440 -exec rm -rf {} + 2>/dev/null || true
run=$(mktemp -d "$cache/run/vm.XXXXXX")
qpid=''
# qpid is timeout(1)'s: it passes TERM on to qemu; KILL both if that fails.
stop_qemu() {
	kill -TERM "$qpid" 2>/dev/null || return 0
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		kill -0 "$qpid" 2>/dev/null || return 0
		sleep 0.2
	done
	pkill -KILL -P "$qpid" 2>/dev/null
	kill -KILL "$qpid" 2>/dev/null || true
}
# shellcheck disable=SC2317 # (called by the trap)
cleanup() {
	[ -n "$qpid" ] && stop_qemu
	rm -rf "$run"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

q() { printf "'%s'" "${1//\'/\'\\\'\'}"; }
# A value inside a qemu option list: commas doubled.
qarg() { printf '%s' "${1//,/,,}"; }
{
	echo "cd $(q "$repo") || exit 125"
	# Pass the caller's VERBSHIM_*/VS_* knobs, not the ones the guest sets,
	# and the variables --env-pass names.
	IFS=, read -r -a globs <<<"$env_pass"
	for k in $(compgen -e); do
		guest_var "$k" && continue
		case $k in
		VERBSHIM_CACHE | VS_BOOT_TIMEOUT | VS__BOOT_RETRY) continue ;;
		VERBSHIM_* | VS_*) echo "export $k=$(q "${!k}")"; continue ;;
		esac
		for g in "${globs[@]}"; do
			# shellcheck disable=SC2053 # (a glob, on purpose)
			[[ $k == $g ]] && { echo "export $k=$(q "${!k}")"; break; }
		done
	done
	for e in "${envs[@]}"; do echo "export ${e%%=*}=$(q "${e#*=}")"; done
	printf 'exec'
	for a in "$@"; do printf ' %s' "$(q "$a")"; done
	echo
} >"$run/cmd.sh"
# The repo's path, whatever characters it has (the kernel command line
# would split it at spaces).
printf '%s' "$repo" >"$run/repo"

net=(-nic none)
vs_net=dummy
if [ -n "$netsock" ]; then
	mode=${netsock%%:*} port=${netsock#*:}
	case $mode in
	listen | connect) sock="$mode=127.0.0.1:$port" ;;
	# udp:LOCAL:REMOTE: no Nagle/delayed-ACK stalls, no start order.
	udp) sock="udp=127.0.0.1:${port#*:},localaddr=127.0.0.1:${port%%:*}" ;;
	*) die "--netdev-socket listen:PORT, connect:PORT or udp:LOCALPORT:REMOTEPORT" ;;
	esac
	# A MAC of our own per address, so two guests differ.
	last=${ip%/*}
	last=${last##*.}
	mac=$(printf '52:54:00:56:53:%02x' "$last")
	net=(-netdev "socket,id=n0,$sock" -device "virtio-net-pci,netdev=n0,mac=$mac")
	vs_net=eth0
fi
roots=(-virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap")
vs_root=host
if [ -n "$relroot" ]; then
	roots+=(-virtfs "local,path=$(qarg "$relroot"),mount_tag=relroot,security_model=none,readonly=on,multidevs=remap")
	vs_root=rel
fi

# tsc=reliable (x86-64): under TCG a loaded host makes the clocksource watchdog
# call the TSC unstable in the middle of a run; the static-key flip that
# follows patches kernel text with int3 while the other vCPU runs it, and
# the guest dies in "Oops: int3" (sched_clock_cpu; seen on 6.12).  qemu's
# TSC is the host clock, the same for every vCPU: trusting it is right.
# shellcheck disable=SC2054 # (commas are qemu's)
# timeout(1) as well: a qemu orphaned by a SIGKILLed vm-run.sh still dies.
# icount: qemu's deterministic mode runs every vCPU in one host thread and
# advances the guest clock by instructions executed; sleep=off skips idle.
accel=(-accel tcg,thread=multi)
[ -n "$icount" ] && accel=(-accel tcg,thread=single -icount "shift=$icount,sleep=off")
qemu_bin=qemu-system-x86_64 machine=() console="console=ttyS0" archopt="tsc=reliable"
# arm64: qemu's virt board with its newest CPU model, the Image booted directly.
[ "$arch" = arm64 ] && qemu_bin=qemu-system-aarch64 machine=(-M virt) console="console=ttyAMA0" archopt=""
qemu=(timeout -s KILL $((timeout + 60)) "$qemu_bin" "${machine[@]}" "${accel[@]}" -cpu max -smp "$smp" -m "$mem"
	-display none -monitor none -serial stdio -no-reboot
	-kernel "$kimage" -initrd "$initrd"
	-append "$console quiet loglevel=4 panic=-1${archopt:+ $archopt} vs_net=$vs_net vs_ip=$ip vs_root=$vs_root vs_host=$hostname vs_mem=$mem vs_prov=$provider"
	"${net[@]}" "${roots[@]}"
	-virtfs "local,path=$(qarg "$repo"),mount_tag=repo,security_model=none,multidevs=remap"
	-virtfs "local,path=$(qarg "$run"),mount_tag=vsrun,security_model=none,readonly=on")

label=${name:+$name }
# The command on one line, shortened, for the log.
short=$(printf '%s ' "$@" | tr '\n\t' '  ' | tr -s ' ')
[ ${#short} -le 120 ] || short="${short:0:117}..."
what="kernel $kver, host root"
[ -n "$rdma_core" ] && what="kernel $kver, rdma-core $rdma_core root"
[ -n "$root_dir" ] && what="kernel $kver, root $relroot"
[ "$arch" = x86_64 ] || what="$arch $what"
[ "$provider" = rxe ] || what+=", provider $provider"
what+=", $smp vCPU, $mem MiB, hostname $hostname"
[ -n "$icount" ] && what+=", icount shift $icount"
echo "$me: ${label}booting ($what, timeout ${timeout}s): $short" >&2
mkfifo "$run/console"
t0=$EPOCHREALTIME
$qemu_bin --version >/dev/null || die "$qemu_bin does not run"
"${qemu[@]}" </dev/null >"$run/console" 2>&1 &
qpid=$!
exec 3<"$run/console"

elapsed() { awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'; }
secs() { local e=${EPOCHREALTIME%.*} s=${t0%.*}; echo $((e - s)); }

rc='' failmsg='' ready=0 buf='' timedout=''
: >"$run/console.log"
while :; do
	if IFS= read -r -t 1 line <&3; then
		line=$buf$line
		buf=
	else
		st=$?
		if [ $st -gt 128 ]; then
			# No full line this second: keep the partial one, check the clocks.
			buf+=$line
			now=$(secs)
			if [ "$now" -ge "$timeout" ]; then
				timedout="run timed out after ${timeout}s"
			elif [ $ready -eq 0 ] && [ "$now" -ge "$boot_timeout" ]; then
				timedout="VM did not come up within ${boot_timeout}s (boot watchdog)"
			fi
			if [ -n "$timedout" ]; then
				stop_qemu
				break
			fi
			continue
		fi
		[ -z "$buf$line" ] && break # EOF: qemu is gone
		line=$buf$line
		buf=
	fi
	line=${line%$'\r'}
	printf '%s\n' "$line" >>"$run/console.log"
	case $line in
	*@@VSRUN-READY@@*)
		ready=1
		echo "[${label}$(elapsed)s] -- ready; running: $short"
		continue
		;;
	*@@VSRUN-EXIT\ *@@*)
		rc=${line#*@@VSRUN-EXIT }
		rc=${rc%%@@*}
		continue
		;;
	*@@VSRUN-FAIL\ *@@*)
		failmsg=${line#*@@VSRUN-FAIL }
		failmsg=${failmsg%%@@*}
		;;
	esac
	printf '[%s%ss] %s\n' "$label" "$(elapsed)" "$line"
done
wait "$qpid" 2>/dev/null && qrc=0 || qrc=$?
qpid=
[ -n "$log" ] && cp "$run/console.log" "$log"

# A guest kernel that dies or hangs before /init reports (seen under TCG on a
# loaded host: "IO-APIC + timer doesn't work", an Oops in sched_clock_cpu)
# ran nothing yet: boot once more, saying so.  A failure after that, or one
# that /init names (failmsg), is reported as it is.
if [ $ready -eq 0 ] && [ -z "$failmsg" ] && [ -z "$rc" ] && [ -z "${VS__BOOT_RETRY:-}" ]; then
	echo "$me: ${label}the VM did not come up (${timedout:-qemu exited, status $qrc}); console:" >&2
	tail -n 15 "$run/console.log" | sed 's/^/  | /' >&2
	echo "$me: ${label}booting once more" >&2
	cleanup
	trap - EXIT
	VS__BOOT_RETRY=1 exec "$0" "${argv[@]}"
fi
if [ -n "$timedout" ]; then
	echo "$me: ${label}error: $timedout; qemu killed" >&2
	exit 124
fi
if [ -n "$failmsg" ]; then
	echo "$me: ${label}error: VM setup failed: $failmsg" >&2
	exit 125
fi
if [ -z "$rc" ]; then
	if [ $ready -eq 0 ]; then
		echo "$me: ${label}error: qemu exited (status $qrc) before the VM came up; console:" >&2
	else
		echo "$me: ${label}error: qemu exited (status $qrc) while the command ran; console:" >&2
	fi
	tail -n 15 "$run/console.log" | sed 's/^/  | /' >&2
	exit 125
fi
echo "$me: ${label}exit status $rc after $(elapsed)s" >&2
exit "$rc"
