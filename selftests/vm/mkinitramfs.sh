#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkinitramfs.sh MODDIR OUT - build the test VM's initramfs.
#
# The image holds only busybox-static, the virtio/9p modules the kernel
# builds as modules (so /init can mount the host root over 9p) and
# selftests/vm/init.  Everything else - bash, iproute2, iptables, our own
# module and tools - comes from the host filesystem at run time, so the
# image stays small and only needs rebuilding when the kernel or these
# scripts change.  MODDIR is the kernel's /lib/modules/RELEASE tree (with
# modules.dep; see vm-kernel.sh), anywhere; the modules it has built in
# are skipped.  MODDIR "none" builds an image without modules, for kernels
# that have virtio-pci, 9p and its virtio transport built in (run-vm.sh
# --kernel without --modules).
set -euo pipefail

if [ $# -ne 2 ]; then
	echo "usage: $0 MODDIR OUT" >&2
	exit 2
fi
moddir=$1
out=$2
here=$(cd "$(dirname "$0")" && pwd)
busybox=$(command -v busybox || true)

if [ -z "$busybox" ] || ! file -L "$busybox" | grep -q 'statically linked'; then
	echo "mkinitramfs: need a static busybox (apt-get install busybox-static)" >&2
	exit 1
fi
if [ "$moddir" != none ] && [ ! -f "$moddir/modules.dep" ]; then
	echo "mkinitramfs: $moddir has no modules.dep" >&2
	exit 1
fi

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage"/{bin,dev,proc,sys,mnt,modules}
# modprobe -d ROOT reads ROOT/lib/modules/RELEASE: a link puts MODDIR there.
if [ "$moddir" != none ]; then
	rel=$(basename "$moddir")
	mkdir -p "$stage/kroot/lib/modules"
	ln -s "$(cd "$moddir" && pwd)" "$stage/kroot/lib/modules/$rel"
fi
cp "$busybox" "$stage/bin/busybox"
install -m 0755 "$here/init" "$stage/init"

# --show-depends takes one module at a time and lists its dependencies
# first; keep the first occurrence of each so the load order stays valid.
declare -A seen=()
n=0
mods="virtio_pci 9pnet_virtio 9p"
[ "$moddir" != none ] || mods=
for m in $mods; do
	deps=$(modprobe -d "$stage/kroot" -S "$rel" --show-depends "$m") || {
		echo "mkinitramfs: $m: not in $moddir" >&2
		exit 1
	}
	while read -r verb path _; do
		[ "$verb" = insmod ] || continue	# "builtin NAME"
		[ -z "${seen[$path]:-}" ] || continue
		seen[$path]=1
		name=$(printf '%02d-%s' "$n" "$(basename "$path")")
		case $path in
		*.ko.xz)  xz -dc "$path" > "$stage/modules/${name%.xz}";;
		*.ko.zst) zstd -qdc "$path" > "$stage/modules/${name%.zst}";;
		*.ko.gz)  gzip -dc "$path" > "$stage/modules/${name%.gz}";;
		*)        cp "$path" "$stage/modules/$name";;
		esac
		n=$((n + 1))
	done <<< "$deps"
done
rm -rf "$stage/kroot"

# The kernel opens /dev/console for init before devtmpfs is mounted.
mknod -m 600 "$stage/dev/console" c 5 1 2>/dev/null || true
mknod -m 666 "$stage/dev/null" c 1 3 2>/dev/null || true

mkdir -p "$(dirname "$out")"
(cd "$stage" && find . -print0 | LC_ALL=C sort -z |
	cpio --null -o -H newc --quiet -R 0:0) | gzip -1 > "$out.tmp.$$"
mv "$out.tmp.$$" "$out"
