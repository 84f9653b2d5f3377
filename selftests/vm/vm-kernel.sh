#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vm-kernel.sh [KVER] - fetch Debian's kernel KVER for the test VM without
# installing it, and print the directory that holds it (progress goes to
# standard error).
#
# Installing linux-image-KVER would repoint /vmlinuz and could change the
# kernel the host boots next; the VM needs only the image and the module
# tree.  So the package is downloaded (apt-get download) and unpacked
# (dpkg-deb -x) into a cache outside the clone,
#
#	$NFHP_VM_CACHE/KVER/	(default /var/cache/nf-hipac/vm-kernel)
#		vmlinuz		-> root/boot/vmlinuz-KVER
#		modules		-> root/lib/modules/KVER (depmod run)
#		root/		the package's files
#		complete	stamp: package and version, written last
#
# KVER defaults to $KVER (the Makefile exports the release of the headers
# it builds nf_hipac.ko against), else the Makefile's own rule: the
# running kernel's headers if installed, else the newest
# /lib/modules/*/build.  The image is the build of the installed headers
# package linux-headers-KVER (same Debian version), and its version string
# is checked against both, so the module always matches the kernel it is
# loaded into.  A lock serialises concurrent runs; a cache entry without
# the stamp is fetched again.  Another kernel: run-vm.sh --kernel/--modules
# (or NFHP_VM_KERNEL/NFHP_VM_MODULES).
set -euo pipefail

cache_root=${NFHP_VM_CACHE:-/var/cache/nf-hipac/vm-kernel}

msg() { echo "vm-kernel: $*" >&2; }
die() { msg "$*"; exit 1; }

# default_kver - the Makefile's KVER rule.
default_kver()
{
	local b

	if [ -d "/lib/modules/$(uname -r)/build" ]; then
		uname -r
		return
	fi
	b=$(ls -d /lib/modules/*/build 2>/dev/null | sort -V | tail -1)
	[ -n "$b" ] || die "no kernel headers under /lib/modules/*/build" \
			   "(run 'make deps')"
	b=${b%/build}
	echo "${b##*/}"
}

kver=${1:-${KVER:-$(default_kver)}}
dir=$cache_root/$kver
pkg=linux-image-$kver

if [ -f "$dir/complete" ]; then
	echo "$dir"
	exit 0
fi

ver=$(dpkg-query -W -f='${Status} ${Version}\n' "linux-headers-$kver" \
      2>/dev/null | awk '$3 == "installed" { print $4 }')
[ -n "$ver" ] || die "linux-headers-$kver is not an installed Debian" \
		     "package: no image to match it; set NFHP_VM_KERNEL and" \
		     "NFHP_VM_MODULES to a kernel for these headers"

mkdir -p "$cache_root" ||
	die "cannot create $cache_root (NFHP_VM_CACHE= picks another place)"
exec 9> "$dir.lock"
flock -n 9 || {
	msg "waiting for the fetch of $dir in progress elsewhere"
	flock 9
}
if [ -f "$dir/complete" ]; then
	echo "$dir"
	exit 0
fi

tmp=$dir.tmp
rm -rf "$tmp"
mkdir -p "$tmp/deb"
# apt drops root to _apt for the download when it can write there.
chown _apt "$tmp/deb" 2>/dev/null || true
msg "fetching $pkg $ver (not installed: unpacked into $dir)"
# A fresh machine may have stale package lists: update once and retry.
if ! (cd "$tmp/deb" && apt-get download -q "$pkg=$ver" >&2); then
	msg "apt-get download failed; apt-get update and once more"
	apt-get update -q >&2 || true
	(cd "$tmp/deb" && apt-get download -q "$pkg=$ver" >&2) ||
		die "cannot download $pkg=$ver (is linux-headers-$kver older" \
		    "than the archive? apt-get install linux-headers-amd64)"
fi
dpkg-deb -x "$tmp"/deb/*.deb "$tmp/root" || die "dpkg-deb -x failed"
rm -rf "$tmp/deb"

image=$tmp/root/boot/vmlinuz-$kver
mods=$tmp/root/lib/modules/$kver
[ -f "$image" ] || die "$pkg has no /boot/vmlinuz-$kver"
[ -f "$mods/modules.builtin" ] || die "$pkg has no /lib/modules/$kver"
# The release and the Debian version in the image's version string, e.g.
# "version 6.1.0-57-amd64 (...) #1 SMP PREEMPT_DYNAMIC Debian 6.1.192-3".
info=$(file -b "$image")
case $info in
*"version $kver "*"Debian $ver "*) ;;
*) die "$image is not $kver $ver: $info";;
esac
# Debian's postinst runs depmod; dpkg-deb -x does not.
depmod -b "$tmp/root" -F "$tmp/root/boot/System.map-$kver" "$kver" ||
	die "depmod failed"
ln -s "root/boot/vmlinuz-$kver" "$tmp/vmlinuz"
ln -s "root/lib/modules/$kver" "$tmp/modules"
echo "$pkg $ver" > "$tmp/complete"
rm -rf "$dir"
mv "$tmp" "$dir"
msg "$pkg $ver ready in $dir"
echo "$dir"
