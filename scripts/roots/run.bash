# shellcheck shell=bash
# SPDX-License-Identifier: MIT
#
# How a command runs in a root (sourced): the one chroot runner of
# scripts/build-root.sh and scripts/roots/packaging-root.sh.  Not part of
# any root's recipe: nothing here changes what is in a root, only how a
# command runs in it, so editing it rebuilds no root.
#
#   root_run [--overlay DIR] [--bind DIR]... [--bind-ro DIR]...
#            [--env NAME=VALUE]... [--cwd DIR] ROOT -- CMD [ARGS...]
#
# Execs CMD (never returns) chrooted into ROOT, in a private mount
# namespace (nothing stays mounted when it ends), as root: the host's
# /dev, a tmpfs /tmp and a proc, then each --bind DIR read-write and each
# --bind-ro DIR read-only at its own path (after the tmpfs: a DIR under
# /tmp stays seen), cwd DIR (default /tmp), and a clean environment:
# PATH, HOME=/tmp, TERM and the --env ones.  --overlay DIR: ROOT is the
# lower layer of an overlay whose changes go to DIR/upper, never to ROOT.
# The caller's name for errors is $me.

root_run() {
	local ovl='' cwd=/tmp root mounts=() envs=() who=${me:-root_run}
	while [ $# -gt 0 ]; do
		case $1 in
		--overlay) ovl=$2; shift 2 ;;
		--bind) mounts+=("rw:$2"); shift 2 ;;
		--bind-ro) mounts+=("ro:$2"); shift 2 ;;
		--env) envs+=("$2"); shift 2 ;;
		--cwd) cwd=$2; shift 2 ;;
		*) break ;;
		esac
	done
	root=$1
	if [ "${2:-}" != -- ] || [ $# -lt 3 ]; then
		echo "$who: root_run: ROOT -- CMD" >&2
		exit 2
	fi
	shift 2
	[ "$(id -u)" -eq 0 ] || { echo "$who: error: running in ${root##*/} needs root (chroot, mount namespace)" >&2; exit 1; }
	command -v unshare >/dev/null || { echo "$who: error: unshare not found (util-linux)" >&2; exit 1; }
	# shellcheck disable=SC2016 # (expanded by that shell)
	exec unshare -m --propagation private -- /bin/sh -c '
		set -e
		root=$1 ovl=$2
		shift 2
		if [ -n "$ovl" ]; then
			mkdir -p "$ovl/upper" "$ovl/work" "$ovl/merged"
			mount -t overlay overlay -o "lowerdir=$root,upperdir=$ovl/upper,workdir=$ovl/work" "$ovl/merged"
			root=$ovl/merged
		fi
		mount --bind /dev "$root/dev"
		mount -t tmpfs tmp "$root/tmp"
		mount -t proc proc "$root/proc"
		while [ "$1" != -- ]; do
			d=${1#??:}
			mkdir -p "$root$d"
			mount --bind "$d" "$root$d"
			case $1 in ro:*) mount -o remount,bind,ro "$root$d" ;; esac
			shift
		done
		shift
		exec chroot "$root" "$@"
	' root-run "$root" "$ovl" "${mounts[@]}" -- \
		/usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/tmp TERM="${TERM:-dumb}" "${envs[@]}" \
		/bin/sh -c 'cd "$0" && exec "$@"' "$cwd" "$@"
}
