#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build-kernel.sh - build, or reuse, the debug kernel of "make check-debug"
# and print the path of its bzImage on standard output (progress goes to
# standard error).
#
#	selftests/debug/build-kernel.sh [--deps]
#
# --deps only installs the packages the build needs, and exits.
#
# The kernel is Debian's linux-source-6.1 configured as "make defconfig
# kvm_guest.config" plus selftests/debug/debug.config (KASAN, lockdep,
# kmemleak, UBSAN, fault injection; the VM harness and the selftests' needs
# built in).  It is built out of tree in a cache outside the clone,
#
#	$NFHP_DEBUG_CACHE/KEY/	(default /var/cache/nf-hipac/debug-kernel)
#		bzImage			-> obj/arch/x86/boot/bzImage
#		obj/			O= tree, ready for "make M=" modules
#		modroot/lib/modules/R/	modules_install (modules.builtin...)
#		kernel.release		R
#		complete		stamp: written last, after a full build
#
# KEY hashes the linux-source version (its dpkg version, else the tarball's
# sha256), debug.config and this script, so a second run reuses the kernel
# and a change of any of them builds a new one; a new KEY's tree starts as
# a copy of the newest tree built from the same source version, so Kbuild
# recompiles only what the changed options touch.  A cache without the
# stamp is never used: the build resumes in it.  A lock serialises concurrent
# runs.  Missing build packages (and linux-source-6.1) are installed with
# apt-get; if /usr/src/linux-source-6.1 is not unpacked, the tarball is
# unpacked into the cache.  The build runs under nice 10 (NFHP_DEBUG_NICE=
# overrides; .ci/run builds at 19 while "make check" runs) with -j$(nproc)
# (NFHP_DEBUG_JOBS= overrides).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
frag=$here/debug.config
cache_root=${NFHP_DEBUG_CACHE:-/var/cache/nf-hipac/debug-kernel}
jobs=${NFHP_DEBUG_JOBS:-$(nproc)}
niceness=${NFHP_DEBUG_NICE:-10}
pkg=linux-source-6.1
tarball=/usr/src/$pkg.tar.xz

msg() { echo "build-kernel: $*" >&2; }
die() { msg "$*"; exit 1; }

# need_pkgs PKG... - apt-get install those of PKG that are not installed.
need_pkgs()
{
	local p missing=() sudo=

	for p in "$@"; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
			grep -q ' ok installed$' || missing+=("$p")
	done
	[ ${#missing[@]} -gt 0 ] || return 0
	msg "installing ${missing[*]}"
	if [ "$(id -u)" -ne 0 ]; then
		command -v sudo >/dev/null || die "need root to install packages"
		sudo=sudo
	fi
	DEBIAN_FRONTEND=noninteractive $sudo apt-get update -q >&2
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q \
		--no-install-recommends "${missing[@]}" >&2
}

need_pkgs bc flex bison libelf-dev libssl-dev dwarves build-essential \
	kmod cpio xz-utils util-linux "$pkg"
[ "${1:-}" != --deps ] || exit 0

ver=$(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null || true)
[ -n "$ver" ] || ver=$(sha256sum "$tarball" | cut -d' ' -f1)
key=$( { echo "$pkg $ver"; cat "$frag" "$0"; } | sha256sum | cut -c1-16)
dir=$cache_root/$key
obj=$dir/obj

mkdir -p "$cache_root"
exec 9> "$dir.lock"
flock -n 9 || {
	msg "waiting for the build of $dir in progress elsewhere"
	flock 9
}

if [ -f "$dir/complete" ] && [ -f "$obj/arch/x86/boot/bzImage" ]; then
	msg "reusing $dir ($(cat "$dir/kernel.release"))"
	echo "$dir/bzImage"
	exit 0
fi

# The source: Debian's unpacked tree, else the tarball unpacked into the
# cache (renamed into place only when complete).
src=/usr/src/$pkg
if [ ! -f "$src/Makefile" ]; then
	src=$cache_root/src-$ver/$pkg
	if [ ! -f "$src/Makefile" ]; then
		[ -f "$tarball" ] || die "$tarball missing (apt-get install $pkg)"
		msg "unpacking $tarball into $cache_root/src-$ver"
		rm -rf "$cache_root/src-$ver.tmp"
		mkdir -p "$cache_root/src-$ver.tmp"
		tar -C "$cache_root/src-$ver.tmp" -xJf "$tarball"
		rm -rf "$cache_root/src-$ver"
		mv "$cache_root/src-$ver.tmp" "$cache_root/src-$ver"
	fi
fi

mkdir -p "$dir"
rm -f "$dir/complete"
seeded=
if [ ! -d "$obj" ]; then
	# Under the seed's lock: never copy a tree that is being built.
	for o in $(ls -td "$cache_root"/*/obj 2>/dev/null); do
		[ "$(cat "${o%/obj}/source-version" 2>/dev/null)" = "$ver" ] ||
			continue
		rm -rf "$obj.tmp"
		flock -n "${o%/obj}.lock" cp -a "$o" "$obj.tmp" || continue
		msg "starting from a copy of $o"
		mv "$obj.tmp" "$obj"
		seeded=" (started from a copy of $o)"
		break
	done
	rm -rf "$obj.tmp"
fi
mkdir -p "$obj"
echo "$ver" > "$dir/source-version"
log=$dir/build.log
: > "$log"
# make runs in its own session, so that stopping this script (signal or
# timeout) stops the whole build instead of orphaning sub-makes that still
# hold the lock.
kpid=
trap '[ -z "$kpid" ] || kill -- -"$kpid" 2>/dev/null; exit 143' TERM INT HUP
# The new session is also a new scheduler autogroup, which competes with
# the others as a whole whatever its tasks' nice: set the group's nice too
# (/proc/self/autogroup), so that a build at nice 19 yields to the VM.
kmake()
{
	setsid bash -c 'echo "$0" > /proc/self/autogroup 2>/dev/null
			exec nice -n "$0" make "$@"' "$niceness" \
		-C "$src" O="$obj" "$@" >> "$log" 2>&1 &
	kpid=$!
	wait "$kpid"
}

msg "building in $dir with -j$jobs (log $log)"
start=$(date +%s)
kmake defconfig kvm_guest.config ||
	die "defconfig failed; see $log"
"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "$frag" \
	>> "$log" 2>&1 || die "merge_config failed; see $log"
kmake olddefconfig || die "olddefconfig failed; see $log"

# Every line of the fragment must have survived olddefconfig: "=value"
# lines literally, "is not set" lines as not =y/=m.
bad=0
while IFS= read -r line; do
	case $line in
	CONFIG_*=*)
		grep -qxF -- "$line" "$obj/.config" && continue
		msg "config: wanted $line, got:" \
		    "$(grep -E "^(# )?${line%%=*}[= ]" "$obj/.config" ||
		       echo "(absent)")"
		bad=1;;
	"# CONFIG_"*" is not set")
		sym=${line#\# }
		sym=${sym%% *}
		grep -qE "^$sym=[ym]$" "$obj/.config" || continue
		msg "config: wanted $sym off, got $(grep -E "^$sym=" "$obj/.config")"
		bad=1;;
	esac
done < "$frag"
[ $bad -eq 0 ] || die "olddefconfig dropped options of $frag (fix its dependencies)"

kmake -j"$jobs" bzImage modules || {
	tail -n 40 "$log" >&2
	die "kernel build failed; see $log"
}
rm -rf "$dir/modroot"
kmake INSTALL_MOD_PATH="$dir/modroot" INSTALL_MOD_STRIP=1 modules_install ||
	die "modules_install failed; see $log"
cp "$obj/include/config/kernel.release" "$dir/kernel.release"
ln -sfn obj/arch/x86/boot/bzImage "$dir/bzImage"
secs=$(($(date +%s) - start))
echo "$secs" > "$dir/build-seconds"
# CPU seconds of the build (children's user + system): wall time on a
# loaded host says little; cpu / CPUs is what an idle machine would take.
# times runs in this shell: in $(...) it would report the subshell's.
times > "$dir/times"
cpu=$(awk 'NR == 2 {
	for (i = 1; i <= 2; i++) {
		split($i, t, "m"); sub("s", "", t[2]); s += t[1] * 60 + t[2]
	}
	printf "%d", s }' "$dir/times")
{
	echo "source $pkg $ver ($src)"
	echo "built $(date -u +%FT%TZ) in ${secs}s (${cpu} CPU-s) with -j$jobs on $(nproc) CPUs$seeded"
} > "$dir/complete"
msg "built $(cat "$dir/kernel.release") in ${secs}s, ${cpu} CPU-s"
echo "$dir/bzImage"
