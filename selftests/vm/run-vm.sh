#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run-vm.sh [options] -- CMD [ARGS...]
#
# Boot Debian's own kernel in QEMU with the host root mounted read-only over
# 9p and run CMD (as root, from the repository top) inside it.  The kernel
# is not the host's installed one: vm-kernel.sh unpacks the linux-image
# package of the headers nf_hipac.ko is built against into a cache
# (/var/cache/nf-hipac/vm-kernel/KVER) without installing it.  A single
# CMD argument is run as a bash command line, so shell syntax works:
#
#	selftests/vm/run-vm.sh -- 'ip netns add a && ip netns list'
#	selftests/vm/run-vm.sh -- selftests/nf_hipac/run_tests.sh
#
# Options:
#	--timeout SEC	kill QEMU after SEC seconds (default 900; a timeout
#			fails with exit code 124)
#	--watchdog SEC	also kill it (exit code 124) when the guest
#			overruns its own deadline: $NFHP_VM_OUT/deadline
#			holds "SECONDS WHAT", the time allowed from the
#			file's last change; run-vm.sh writes "SEC boot"
#			before the boot, the guest's command rewrites it
#			for each step (selftests/nf_hipac/run_tests.sh
#			does), so a hung guest is stopped long before a
#			generous --timeout
#	--mem SIZE	guest memory (default 1G)
#	--smp N		guest CPUs (default 2)
#	--cpu MODEL	QEMU CPU model and flags (default max)
#	--accel A	kvm or tcg (default: probe KVM once, cache the answer;
#			also NFHP_VM_ACCEL=)
#	--kver KVER	Debian kernel release to boot from vm-kernel.sh's
#			cache, fetched if missing (default: $KVER, which
#			the Makefile sets to the release of the headers it
#			builds against, else the Makefile's rule)
#	--kernel IMAGE	boot IMAGE instead (also NFHP_VM_KERNEL=); without
#			--modules it must have virtio-pci, 9p and its
#			virtio transport built in (the initramfs then holds
#			no modules), e.g. the debug kernel of
#			selftests/debug/build-kernel.sh
#	--modules DIR	IMAGE's /lib/modules/RELEASE tree (modules.builtin,
#			modules.dep...; also NFHP_VM_MODULES=): the
#			initramfs takes the virtio/9p modules from it, and
#			the guest sees it (a read-only 9p share) at
#			/lib/modules/RELEASE on a tmpfs that hides the
#			host's /lib/modules, so modprobe works for IMAGE.
#			The installed kernel, say: --kernel
#			/boot/vmlinuz-KVER --modules /lib/modules/KVER
#	--append ARGS	more kernel command line arguments
#	--strict	also fail on RCU stalls, hung tasks and lockups
#			(a loaded host can fake those under TCG: meant for
#			kernels with long stall timeouts, as the debug one)
#	--out DIR	keep the result share in DIR (default: temp dir,
#			removed afterwards); the guest sees it as
#			$NFHP_VM_OUT (/run/nfhp-out)
#	--log FILE	console log (default build/vm/console-TIME-PID.log,
#			symlinked from build/vm/last-run.log; the newest
#			20 are kept)
#
# Environment variables TESTS, V and NFHP_* (except NFHP_VM_*) are passed
# into the guest if set, e.g. NFHP_DEMO_RULES for selftests/demo.sh.
#
# Exit code: CMD's exit code as written by the guest into the result share;
# 1 if CMD succeeded but the kernel log shows an oops/BUG/WARNING/...;
# 124 on timeout; 125 if the guest died without reporting a result.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
vmdir=$top/selftests/vm
timeout=900
mem=1G
smp=2
cpu=max
accel=${NFHP_VM_ACCEL:-}
kver=
image=${NFHP_VM_KERNEL:-}
moddir=${NFHP_VM_MODULES:-}
extra_append=
strict=
watchdog=
keep_out=
log=

usage() {
	sed -n '4,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'
	exit 2
}

while [ $# -gt 0 ]; do
	case $1 in
	--timeout) timeout=$2; shift 2;;
	--mem) mem=$2; shift 2;;
	--smp) smp=$2; shift 2;;
	--cpu) cpu=$2; shift 2;;
	--accel) accel=$2; shift 2;;
	--kver) kver=$2; shift 2;;
	--kernel) image=$2; shift 2;;
	--modules) moddir=$2; shift 2;;
	--append) extra_append=$2; shift 2;;
	--strict) strict=1; shift;;
	--watchdog) watchdog=$2; shift 2;;
	--out) keep_out=$2; shift 2;;
	--log) log=$2; shift 2;;
	--) shift; break;;
	-h|--help) usage;;
	*) echo "run-vm.sh: unknown option $1" >&2; usage;;
	esac
done
[ $# -gt 0 ] || usage

if [ -z "$image" ]; then
	kdir=$("$vmdir/vm-kernel.sh" $kver) || {
		echo "run-vm.sh: no kernel for the VM (see above)" >&2
		exit 125
	}
	image=$kdir/vmlinuz
	moddir=$kdir/modules
fi
[ -f "$image" ] || { echo "run-vm.sh: no kernel $image" >&2; exit 2; }
kernel=$(realpath "$image")
if [ -n "$moddir" ]; then
	[ -f "$moddir/modules.builtin" ] || {
		echo "run-vm.sh: $moddir has no modules.builtin" >&2
		exit 2
	}
	moddir=$(realpath "$moddir")
fi
# KVER only names the caches (initramfs, accel probe) from here on.
[ -n "$kver" ] || kver=${moddir:+$(basename "$moddir")}
[ -n "$kver" ] || kver=custom-$(echo "$kernel" | sha256sum | cut -c1-8)

# The initramfs is cached under build/vm/, keyed by the module tree and
# the scripts that produce it.
mkdir -p "$top/build/vm"
key=$( { echo "${moddir:-none}"; cat "$vmdir/mkinitramfs.sh" "$vmdir/init"; } |
      sha256sum | cut -c1-12)
initrd=$top/build/vm/initramfs-${moddir:+$kver-}$key.cpio.gz
if [ ! -f "$initrd" ]; then
	echo "run-vm.sh: building $initrd"
	"$vmdir/mkinitramfs.sh" "${moddir:-none}" "$initrd"
fi

# qboot starts faster than SeaBIOS and does not spray escape codes.
bios=
[ ! -f /usr/share/qemu/qboot.rom ] || bios="-bios /usr/share/qemu/qboot.rom"
qemu_base=(qemu-system-x86_64 -cpu "$cpu" -smp "$smp" -m "$mem"
	-nographic -nodefaults -no-reboot -monitor none
	$bios
	-kernel "$kernel" -initrd "$initrd")
append="console=ttyS0 rdinit=/init panic=-1 oops=panic quiet loglevel=4"
[ -z "$strict" ] || append="$append nfhp.strict=1"
[ -z "$extra_append" ] || append="$append $extra_append"

# KVM hangs on some hosts instead of failing, so trust it only after a
# short boot reached the init's marker.  The answer is cached per boot of
# the host (the cache lives in /tmp).
probe_accel() {
	local cache=${TMPDIR:-/tmp}/nfhp-vm-accel-$kver
	local plog

	if [ -f "$cache" ]; then
		cat "$cache"
		return
	fi
	if [ ! -w /dev/kvm ]; then
		echo tcg | tee "$cache"
		return
	fi
	plog=$(mktemp)
	timeout -k 2 20 "${qemu_base[@]}" -accel kvm -serial "file:$plog" \
		-append "$append nfhp.mode=probe" </dev/null >/dev/null 2>&1 || true
	if grep -q NFHP-VM-PROBE-OK "$plog"; then
		echo kvm | tee "$cache"
	else
		echo tcg | tee "$cache"
	fi
	rm -f "$plog"
}
[ -n "$accel" ] || accel=$(probe_accel)
case $accel in
kvm) accel_opt=kvm;;
tcg) accel_opt=tcg,thread=multi;;
*) echo "run-vm.sh: bad accel '$accel'" >&2; exit 2;;
esac

if [ -z "$log" ]; then
	log=$top/build/vm/console-$(date +%Y%m%d-%H%M%S)-$$.log
	ln -sfn "$(basename "$log")" "$top/build/vm/last-run.log"
	ls -t "$top/build/vm/"console-*.log 2>/dev/null | tail -n +20 |
		xargs -r rm -f || true
fi

mkdir -p "$(dirname "$log")"

if [ -n "$keep_out" ]; then
	out=$(mkdir -p "$keep_out" && cd "$keep_out" && pwd)
	rm -rf "$out/rc" "$out/dmesg-flagged" "$out/modules" "$out/deadline" \
		"$out/watchdog" "$out/qemu.pid"
else
	out=$(mktemp -d "${TMPDIR:-/tmp}/nfhp-vm-out.XXXXXX")
	trap 'rm -rf "$out"' EXIT
fi

echo "$top" > "$out/repo"
# The module tree is a share of its own (tag "modules"), mounted by stage2.
modshare=()
if [ -n "$moddir" ]; then
	echo "$moddir" > "$out/modules"
	modshare=(-virtfs "local,path=$moddir,mount_tag=modules,security_model=none,readonly=on,multidevs=remap")
fi
{
	echo "cd $(printf %q "$top") || exit 125"
	for v in TESTS V $(compgen -e | grep '^NFHP_' | grep -v '^NFHP_VM'); do
		[ -z "${!v+x}" ] || echo "export $v=$(printf %q "${!v}")"
	done
	if [ $# -eq 1 ]; then
		printf '%s\n' "$1"
	else
		printf '%q ' "$@"
		echo
	fi
} > "$out/cmd.sh"

# watch - every 5 s while this script runs, compare the age of
# $out/deadline with the time it allows; past it, note why in
# $out/watchdog and stop QEMU.
watch()
{
	local secs what mtime age

	set +e
	while sleep 5 && kill -0 $$ 2>/dev/null; do
		read -r secs what < "$out/deadline" 2>/dev/null || continue
		mtime=$(stat -c %Y "$out/deadline" 2>/dev/null) || continue
		[[ $secs =~ ^[0-9]+$ ]] || continue
		age=$(($(date +%s) - mtime))
		[ "$age" -gt "$secs" ] || continue
		echo "$what: ${secs}s allowed, ${age}s passed" > "$out/watchdog"
		kill "$(cat "$out/qemu.pid")"
		return
	done
}

echo "run-vm.sh: kernel $kernel${moddir:+ (modules $moddir)}, accel $accel, timeout ${timeout}s${watchdog:+, watchdog}, log $log"
start=$(date +%s)
wpid=
if [ -n "$watchdog" ]; then
	echo "$watchdog boot" > "$out/deadline"
	watch &
	wpid=$!
fi
set +e
timeout -k 5 "$timeout" "${qemu_base[@]}" -accel "$accel_opt" \
	-pidfile "$out/qemu.pid" \
	-chardev "stdio,id=con,logfile=$log,signal=off" -serial chardev:con \
	-virtfs local,path=/,mount_tag=root,security_model=none,readonly=on,multidevs=remap \
	-virtfs "local,path=$out,mount_tag=out,security_model=none,multidevs=remap" \
	-virtfs "local,path=$top,mount_tag=repo,security_model=none,readonly=on,multidevs=remap" \
	"${modshare[@]}" -append "$append" </dev/null
qrc=$?
[ -z "$wpid" ] || { kill "$wpid"; wait "$wpid"; } 2>/dev/null
set -e
echo "run-vm.sh: VM ran $(($(date +%s) - start))s"

if [ -s "$out/watchdog" ]; then
	echo "run-vm.sh: TIMEOUT: the guest overran its deadline" \
	     "($(cat "$out/watchdog")), QEMU killed" >&2
	exit 124
fi
if [ "$qrc" -eq 124 ] || [ "$qrc" -eq 137 ]; then
	echo "run-vm.sh: TIMEOUT after ${timeout}s, QEMU killed" >&2
	exit 124
fi
if [ ! -s "$out/rc" ]; then
	echo "run-vm.sh: the guest reported no result (crash or panic?); see $log" >&2
	exit 125
fi
rc=$(cat "$out/rc")
if [ -s "$out/dmesg-flagged" ]; then
	echo "run-vm.sh: kernel log flagged:" >&2
	cat "$out/dmesg-flagged" >&2
	[ "$rc" -ne 0 ] || rc=1
fi
exit "$rc"
