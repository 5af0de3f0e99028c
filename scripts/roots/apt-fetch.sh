#!/usr/bin/env bash
# Project-local apt: download .deb files of any Debian suite into the cache,
# without touching (or depending on) the system's apt configuration.
#
#   scripts/roots/apt-fetch.sh [--arch ARCH] SUITE PKG...  prints one .deb path per PKG
#   scripts/roots/apt-fetch.sh [--arch ARCH] --update      refresh the package lists now
#   scripts/roots/apt-fetch.sh [--arch ARCH] --closure SUITE PKG...
#                        prints the names of PKG and of every package they
#                        need (no recommends) on an empty system, all from
#                        SUITE: the package list of a root too large to
#                        write by hand (scripts/roots/packaging-root.sh)
#
# ARCH: Debian's spelling, amd64 (the default) or arm64; another
# architecture's lists, state and downloads live apart, in apt-ARCH.
#
# SUITE is bullseye, bookworm, trixie, sid (or bookworm-updates).  PKG may be
# NAME or NAME=VERSION.  Everything lives under ${VERBSHIM_CACHE:-.cache}/apt;
# the archive URI is taken from the system's own apt sources.  Lists are
# refreshed when older than a day (VERBSHIM_APT_MAX_AGE seconds).
set -euo pipefail

me="apt-fetch"
die() { echo "$me.sh: error: $*" >&2; exit 1; }

repo=$(cd "$(dirname "$0")/../.." && pwd)
cache=${VERBSHIM_CACHE:-$repo/.cache}
arch=amd64
if [ "${1:-}" = --arch ]; then
	arch=${2:-}
	shift 2 || true
fi
case $arch in
amd64) apt=$cache/apt ;;
arm64) apt=$cache/apt-$arch ;;
*) die "--arch $arch: amd64 or arm64" ;;
esac
max_age=${VERBSHIM_APT_MAX_AGE:-86400}
suites="bullseye bookworm bookworm-updates trixie sid"

command -v apt-get >/dev/null || die "apt-get not found (this needs a Debian-like host)"

# The archive URI from the system's sources: deb822 (*.sources) "URIs:" or
# one-line "deb URI suite ..." entries; the first one naming /debian wins.
archive_uri() {
	local f uri
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -r "$f" ] || continue
		uri=$(awk 'tolower($1) == "uris:" { for (i = 2; i <= NF; i++)
			if ($i ~ /\/debian\/?$/) { print $i; exit } }' "$f")
		[ -n "$uri" ] && { echo "${uri%/}"; return; }
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -r "$f" ] || continue
		uri=$(awk '$1 == "deb" { for (i = 2; i <= NF; i++) {
				if ($i ~ /^\[/) { while ($i !~ /\]$/) i++; continue }
				if ($i ~ /\/debian\/?$/) print $i; break } }' "$f" | head -n 1)
		[ -n "$uri" ] && { echo "${uri%/}"; return; }
	done
	echo http://deb.debian.org/debian
}

uri=${VERBSHIM_APT_URI:-$(archive_uri)}
mkdir -p "$apt"/{state/lists/partial,cache/archives/partial,debs,etc/trusted.gpg.d}
: >>"$apt/state/status"

# One apt at a time on this cache (other scripts may run us concurrently).
exec 9>"$apt/lock"
flock 9

# The system's archive keyring, or a newer one we fetched when it lacked
# the keys of trixie or sid (see update).
keyring=${VERBSHIM_APT_KEYRING:-/usr/share/keyrings/debian-archive-keyring.gpg}
[ -s "$apt/etc/archive-keyring.gpg" ] && keyring=$apt/etc/archive-keyring.gpg
[ -r "$keyring" ] || die "$keyring missing: install debian-archive-keyring"

# Our own sources.list; rewriting it when it changes forces an update.
write_sources() {
	local want
	want=$(for s in $suites; do echo "deb [signed-by=$keyring] $uri $s main"; done)
	if [ "$(cat "$apt/etc/sources.list" 2>/dev/null)" != "$want" ]; then
		echo "$want" >"$apt/etc/sources.list"
		rm -f "$apt/updated"
	fi
}
write_sources

# Isolated from /etc/apt: our list, state, cache; no preferences, no hooks.
opts=(
	-o "Dir::Etc::SourceList=$apt/etc/sources.list"
	-o "Dir::Etc::SourceParts=/dev/null"
	-o "Dir::Etc::Preferences=/dev/null"
	-o "Dir::Etc::PreferencesParts=/dev/null"
	-o "Dir::Etc::TrustedParts=$apt/etc/trusted.gpg.d"
	-o "Dir::State=$apt/state"
	-o "Dir::State::status=$apt/state/status"
	-o "Dir::Cache=$apt/cache"
	-o "APT::Architecture=$arch"
	-o "APT::Architectures=$arch"
	-o "Acquire::Check-Valid-Until=false"
	-o "Acquire::Languages=none"
	-o "Acquire::Retries=3"
	-o "APT::Get::List-Cleanup=false"
	-o "Debug::NoLocking=true"
	-o "APT::Sandbox::User=root"
)

# The keyring lacks a newer suite's keys: take debian-archive-keyring from
# the newest suite that did verify (apt checks the .deb against that list).
newer_keyring() {
	local s d deb
	for s in sid trixie bookworm-updates bookworm bullseye; do
		d=$apt/keyring.d
		rm -rf "$d"
		mkdir -p "$d"
		(cd "$d" && apt-get -q "${opts[@]}" download "debian-archive-keyring/$s") >/dev/null 2>&1 || continue
		deb=$(find "$d" -name 'debian-archive-keyring_*.deb' | head -n 1)
		[ -n "$deb" ] || continue
		dpkg-deb -x "$deb" "$d/x" || continue
		[ -s "$d/x/usr/share/keyrings/debian-archive-keyring.gpg" ] || continue
		cp "$d/x/usr/share/keyrings/debian-archive-keyring.gpg" "$apt/etc/archive-keyring.gpg"
		rm -rf "$d"
		echo "$me.sh: using $(basename "$deb") (from $s) as the archive keyring" >&2
		return 0
	done
	rm -rf "$d"
	return 1
}

update() {
	local ok=0
	echo "$me.sh: updating package lists ($uri: $suites)" >&2
	apt-get -q "${opts[@]}" --error-on=any update >"$apt/update.log" 2>&1 && ok=1
	# Each round may verify a newer suite, whose keyring knows the next.
	local round=0 prev
	while [ $ok -eq 0 ] && [ $round -lt 3 ] &&
		grep -qE 'NO_PUBKEY|EXPKEYSIG|is not signed' "$apt/update.log"; do
		round=$((round + 1))
		echo "$me.sh: $keyring lacks the keys of some suite; fetching a newer debian-archive-keyring" >&2
		prev=none
		[ -f "$apt/etc/archive-keyring.gpg" ] && prev=$(sha256sum <"$apt/etc/archive-keyring.gpg")
		newer_keyring || break
		[ "$(sha256sum <"$apt/etc/archive-keyring.gpg")" != "$prev" ] || break
		keyring=$apt/etc/archive-keyring.gpg
		write_sources
		apt-get -q "${opts[@]}" --error-on=any update >"$apt/update.log" 2>&1 && ok=1
	done
	if [ $ok -eq 0 ]; then
		sed 's/^/  | /' "$apt/update.log" >&2
		# Old lists still name the packages already in the cache.
		if [ -s "$apt/updated" ] && [ "${1:-}" != force ]; then
			echo "$me.sh: warning: apt-get update failed (no network to $uri?); using the lists of $(date -d "@$(cat "$apt/updated")")" >&2
			return 0
		fi
		die "apt-get update failed (no network to $uri? see above)"
	fi
	date +%s >"$apt/updated"
}

fresh() {
	local t
	t=$(cat "$apt/updated" 2>/dev/null) || return 1
	[ $(($(date +%s) - t)) -lt "$max_age" ]
}

if [ "${1:-}" = --update ]; then
	update force
	exit 0
fi
closure=0
if [ "${1:-}" = --closure ]; then
	closure=1
	shift
fi
[ $# -ge 2 ] || { echo "usage: $me.sh [--arch amd64|arm64] [--closure] SUITE PKG... | --update" >&2; exit 2; }
suite=$1
shift
case " $suites " in
*" $suite "*) ;;
*) die "unknown suite '$suite' (known: $suites)" ;;
esac
fresh || update

if [ $closure -eq 1 ]; then
	# The state's status file is empty: apt plans the whole closure.
	apt-get -q "${opts[@]}" -o "APT::Default-Release=$suite" -s install \
		--no-install-recommends "${@/%//$suite}" >"$apt/closure.log" 2>&1 ||
		{ sed 's/^/  | /' "$apt/closure.log" >&2; die "cannot resolve in $suite: $*"; }
	awk '$1 == "Inst" { print $2 }' "$apt/closure.log" | sort
	exit 0
fi

out=$apt/debs/$suite
mkdir -p "$out"
# pkg/suite picks that suite's candidate; pkg=ver an exact version.
sels=()
for pkg in "$@"; do
	case $pkg in
	*=*) sels+=("$pkg") ;;
	*) sels+=("$pkg/$suite") ;;
	esac
done

# "'URI' FILE SIZE SHA256:..." per package tells the file names up front.
if ! uris=$(apt-get -q "${opts[@]}" download --print-uris "${sels[@]}" 2>"$apt/err.log"); then
	# Name the culprit(s).
	for sel in "${sels[@]}"; do
		apt-get -q "${opts[@]}" download --print-uris "$sel" >/dev/null 2>&1 ||
			echo "$me.sh: error: package '${sel%/"$suite"}' not found in $suite ($uri)" >&2
	done
	sed 's/^/  | /' "$apt/err.log" >&2
	die "cannot resolve: $*"
fi
uris=$(grep "^'" <<<"$uris")
[ "$(wc -l <<<"$uris")" -eq ${#sels[@]} ] || die "apt resolved a different number of files than asked for: $uris"

# apt lists them in its own order: match files to packages by name.
need=()
files=()
for sel in "${sels[@]}"; do
	name=${sel%%[/=]*}
	file='' size=''
	while read -r _ f sz _; do
		[[ $f == "${name}_"* ]] && { file=$f size=$sz; break; }
	done <<<"$uris"
	[ -n "$file" ] || die "apt did not resolve $sel"
	files+=("$file")
	if [ ! -s "$out/$file" ] || [ "$(stat -c %s "$out/$file")" != "$size" ]; then
		echo "$me.sh: downloading $file" >&2
		need+=("$sel")
	fi
done
if [ ${#need[@]} -gt 0 ] &&
	! (cd "$out" && apt-get -q "${opts[@]}" download "${need[@]}" >"$apt/dl.log" 2>&1); then
	sed 's/^/  | /' "$apt/dl.log" >&2
	die "download from $suite failed: ${need[*]}"
fi
for file in "${files[@]}"; do
	[ -s "$out/$file" ] || die "apt-get download produced no $file"
	echo "$out/$file"
done
