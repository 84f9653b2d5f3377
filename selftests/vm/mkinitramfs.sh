#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkinitramfs.sh KVER OUT - build the test VM's initramfs.
#
# The image holds only busybox-static, the virtio/9p modules the Debian
# kernel builds as modules (so /init can mount the host root over 9p) and
# selftests/vm/init.  Everything else - bash, iproute2, iptables, our own
# module and tools - comes from the host filesystem at run time, so the
# image stays small and only needs rebuilding when KVER or these scripts
# change.  KVER "none" builds an image without modules, for kernels that
# have virtio-pci, 9p and its virtio transport built in (run-vm.sh
# --kernel).
set -euo pipefail

if [ $# -ne 2 ]; then
	echo "usage: $0 KVER OUT" >&2
	exit 2
fi
kver=$1
out=$2
here=$(cd "$(dirname "$0")" && pwd)
busybox=$(command -v busybox || true)

if [ -z "$busybox" ] || ! file -L "$busybox" | grep -q 'statically linked'; then
	echo "mkinitramfs: need a static busybox (apt-get install busybox-static)" >&2
	exit 1
fi
if [ "$kver" != none ] && [ ! -d "/lib/modules/$kver" ]; then
	echo "mkinitramfs: /lib/modules/$kver does not exist" >&2
	exit 1
fi

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage"/{bin,dev,proc,sys,mnt,modules}
cp "$busybox" "$stage/bin/busybox"
install -m 0755 "$here/init" "$stage/init"

# --show-depends takes one module at a time and lists its dependencies
# first; keep the first occurrence of each so the load order stays valid.
declare -A seen=()
n=0
mods="virtio_pci 9pnet_virtio 9p"
[ "$kver" != none ] || mods=
for m in $mods; do
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
	done < <(modprobe -S "$kver" --show-depends "$m")
done
if [ "$n" -eq 0 ] && [ "$kver" != none ]; then
	echo "mkinitramfs: no modules found for $kver (all built in?)" >&2
fi

# The kernel opens /dev/console for init before devtmpfs is mounted.
mknod -m 600 "$stage/dev/console" c 5 1 2>/dev/null || true
mknod -m 666 "$stage/dev/null" c 1 3 2>/dev/null || true

mkdir -p "$(dirname "$out")"
(cd "$stage" && find . -print0 | LC_ALL=C sort -z |
	cpio --null -o -H newc --quiet -R 0:0) | gzip -1 > "$out.tmp.$$"
mv "$out.tmp.$$" "$out"
