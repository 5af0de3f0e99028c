#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# The guest as a user's workload sees it: a hostname (MPI refuses
# "(none)"), which /etc/hosts maps to the guest's address when the root
# has an /etc/hosts (a release root has none), the memory and CPUs that
# vm-run.sh gave it, and the repo mounted at its own path.  VS_EXPECT_MEM,
# VS_EXPECT_HOSTNAME and VS_EXPECT_VAR=NAME=VALUE (set with vm-run.sh
# --env by a caller that chose them) are checked as well.
set -u
# shellcheck source=lib/common.bash
. "$(dirname "$0")/lib/common.bash"
need_vm
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

h=$(hostname)
echo "hostname: $h; /proc/sys/kernel/hostname: $(cat /proc/sys/kernel/hostname)"
case $h in '' | '(none)') fail "no hostname" ;; esac
[ "$h" = "${VS_GUEST_HOSTNAME:-}" ] || fail "hostname $h, vm-run.sh set '${VS_GUEST_HOSTNAME:-}'"
[ -z "${VS_EXPECT_HOSTNAME:-}" ] || [ "$h" = "$VS_EXPECT_HOSTNAME" ] ||
	fail "hostname $h, expected $VS_EXPECT_HOSTNAME"
if [ -f /etc/hosts ]; then
	grep -qE "^${VS_RXE_IP//./\\.}[[:space:]]+$h([[:space:]]|\$)" /etc/hosts ||
		fail "/etc/hosts does not map $h to $VS_RXE_IP: $(tr '\n' ';' </etc/hosts)"
fi

# MemTotal: what qemu's -m gave, less what the kernel keeps for itself.
kb=$(awk '/^MemTotal:/ {print $2}' /proc/meminfo)
mib=$((kb / 1024))
want=${VS_GUEST_MEM:-}
echo "memory: MemTotal $mib MiB; vm-run.sh gave ${want:-?} MiB"
if [ -z "$want" ]; then
	fail "VS_GUEST_MEM not set"
elif [ "$mib" -gt "$want" ] || [ "$mib" -lt $((want - 256)) ]; then
	fail "MemTotal $mib MiB is not within 256 MiB below $want MiB"
fi
[ -z "${VS_EXPECT_MEM:-}" ] || [ "$want" = "$VS_EXPECT_MEM" ] ||
	fail "vm-run.sh gave $want MiB, expected $VS_EXPECT_MEM"

cpus=$(grep -c '^processor' /proc/cpuinfo)
echo "CPUs: $cpus"
[ "$cpus" = "${VS_GUEST_SMP:-}" ] || fail "$cpus CPUs, VS_GUEST_SMP '${VS_GUEST_SMP:-}'"

if [ -n "${VS_EXPECT_VAR:-}" ]; then
	name=${VS_EXPECT_VAR%%=*}
	if [ "${!name-unset}" = "${VS_EXPECT_VAR#*=}" ]; then
		echo "environment: $name has the value the caller set"
	else
		fail "$name is '${!name-unset}', expected '${VS_EXPECT_VAR#*=}'"
	fi
fi

# The repo: the working directory, at the host's path, writable.
repo=$(cd "$(dirname "$0")/../.." && pwd -P)
[ "$(pwd -P)" = "$repo" ] || fail "cwd $(pwd -P) is not the repo $repo"
probe=$repo/build/.guest-write.$$
mkdir -p "$repo/build" && echo ok >"$probe"
[ "$(cat "$probe" 2>/dev/null)" = ok ] || fail "cannot write into the repo at $repo"
rm -f "$probe"
echo "repo: $repo"

[ $fails -eq 0 ] && echo "ok: hostname $h, $mib of $want MiB, $cpus CPUs"
[ $fails -eq 0 ]
