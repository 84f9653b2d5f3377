#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check-packaging.sh [--no-vm] - check the packages of "make deb" (the
# nf-hipac*_VERSION_*.deb at the top) in a clean Debian 12 root, then the
# boot service's commands in the VM.  "make check-packaging" builds the
# packages and runs this, as root.
#
# 1. A root debootstrapped from the host's Debian mirror into
#    build/pkgtest/base (once; kept, keyed by KVER), with Debian's
#    linux-headers-KVER, the kernel the VM boots, and the packages' other
#    dependencies.  Each run copies it to build/pkgtest/root.
# 2. In that root: lintian; apt installs the two packages; DKMS built
#    nf_hipac.ko for KVER with the version of VERSION; every file of
#    dpkg -L is there; nf-hipac --version; completion loads;
#    systemd-analyze verify passes on nf-hipac.service, which is enabled;
#    DKMS builds the module again when the kernel's headers are installed
#    (again).
# 3. In the VM (selftests/vm/run-vm.sh, unless --no-vm):
#    selftests/packaging/vm-service.sh loads the module DKMS built and runs
#    the service's start and save commands in the root, with real rules
#    files.  Systemd is not booted (too slow under TCG): its unit is
#    checked by systemd-analyze in step 2.
# 4. Remove, then purge, with apt: the module and the files are gone, the
#    saved rules stay until the purge, and after it the root holds no file
#    it did not hold before the install (depmod's indexes of KVER aside).
#
# Prints "ok N - ..." / "not ok N - ..." and "N passed, N failed" with the
# time taken.  Time limits scale with the host's load (NFHP_TIMEOUT_SCALE,
# see selftests/vm/timeout-scale.sh).
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
work=$top/build/pkgtest
base=$work/base
root=$work/root
vm=1
[ "${1:-}" != --no-vm ] || vm=

version=$(cat "$top/VERSION")
kver=${KVER:-}
if [ -z "$kver" ]; then
	if [ -d "/lib/modules/$(uname -r)/build" ]; then
		kver=$(uname -r)
	else
		kver=$(ls -d /lib/modules/*/build 2>/dev/null | sort -V |
		       tail -1 | xargs -r dirname | xargs -r basename)
	fi
fi
[ -n "$kver" ] || { echo "check-packaging: no KVER (run 'make deps')" >&2; exit 2; }
debs=("$top/nf-hipac_${version}_"*.deb "$top/nf-hipac-dkms_${version}_all.deb")
for d in "${debs[@]}"; do
	[ -f "$d" ] || { echo "check-packaging: no $d (make deb)" >&2; exit 2; }
done
[ "$(id -u)" = 0 ] || { echo "check-packaging: needs root" >&2; exit 2; }

scale=$("$top/selftests/vm/timeout-scale.sh" 1)
# limit SECONDS - SECONDS stretched by the host's load
limit() { awk -v s="$1" -v f="$scale" 'BEGIN { print int(s * f + 0.5) }'; }

start=$(date +%s)
n=0
passed=0
failed=0
log=$work/check-packaging.log

ok()
{
	n=$((n + 1))
	passed=$((passed + 1))
	echo "ok $n - $*"
}

not_ok()
{
	n=$((n + 1))
	failed=$((failed + 1))
	echo "not ok $n - $*"
}

# t NAME CMD... - a test: CMD's exit status, its output in the log
t()
{
	local name=$1

	shift
	echo "=== $name: $*" >> "$log"
	if "$@" >> "$log" 2>&1; then ok "$name"; else not_ok "$name (see $log)"; fi
}

# inroot CMD... - run CMD in the root
inroot()
{
	chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8 "$@"
}

mounts()
{
	mount -t proc proc "$1/proc" &&
	mount --bind /dev "$1/dev" &&
	mount --bind /dev/pts "$1/dev/pts"
}

umounts()
{
	local m

	for m in dev/pts dev proc; do
		! mountpoint -q "$1/$m" || umount "$1/$m"
	done
}

# wipe DIR - remove a root, never through a mount point
wipe()
{
	umounts "$1"
	! grep -q " $1/" /proc/mounts || {
		echo "check-packaging: $1 still has mounts" >&2
		exit 1
	}
	rm -rf --one-file-system "$1"
}

cleanup()
{
	umounts "$root" 2>/dev/null
	umounts "$base.tmp" 2>/dev/null
}
trap cleanup EXIT

# The host's Debian mirror, from its apt sources.
mirror_of()
{
	cat /etc/apt/sources.list /etc/apt/sources.list.d/*.sources \
	    /etc/apt/sources.list.d/*.list 2>/dev/null | grep -v '^[[:space:]]*#' |
	grep -o "https\?://[^ ]*/$1\\b" | head -1
}

make_base()
{
	local b=$base.tmp mirror security

	mirror=$(mirror_of debian)
	security=$(mirror_of debian-security)
	[ -n "$mirror" ] || { echo "no Debian mirror in the apt sources"; return 1; }
	wipe "$b"
	rm -rf "$base"
	timeout "$(limit 1800)" debootstrap --variant=minbase bookworm "$b" \
		"$mirror" || return 1
	{
		echo "deb $mirror bookworm main"
		echo "deb $mirror bookworm-updates main"
		[ -z "$security" ] || echo "deb $security bookworm-security main"
	} > "$b/etc/apt/sources.list"
	# No service starts in here.
	printf '#!/bin/sh\nexit 101\n' > "$b/usr/sbin/policy-rc.d"
	chmod +x "$b/usr/sbin/policy-rc.d"
	mounts "$b" || return 1
	root=$b
	inroot timeout "$(limit 600)" apt-get update -q &&
	inroot timeout "$(limit 3600)" apt-get install -y -q \
		--no-install-recommends "linux-headers-$kver" dkms kmod \
		systemd iptables libmnl0 libnftnl11 libxtables12 bash-completion
	local rc=$?
	root=$work/root
	umounts "$b"
	[ $rc = 0 ] || return 1
	echo "$kver" > "$b/.nfhp-base"
	mv "$b" "$base"
}

# files - the paths of the root, but those apt, dpkg and the run change
files()
{
	(cd "$root" && find . -xdev \( -path ./proc -o -path ./dev -o \
		-path ./sys -o -path ./run -o -path ./tmp -o -path ./var/tmp \
		-o -path ./var/cache -o -path ./var/lib/apt -o \
		-path ./var/lib/dpkg -o -path ./var/log -o \
		-path ./etc/ld.so.cache \) -prune -o -print) | LC_ALL=C sort
}

# ---------------------------------------------------------------------------
mkdir -p "$work"
: > "$log"
echo "check-packaging: KVER $kver, version $version, time limits x$scale," \
     "log $log"

if [ "$(cat "$base/.nfhp-base" 2>/dev/null)" != "$kver" ]; then
	echo "check-packaging: building the clean root $base (once)"
	t "a clean Debian 12 root with linux-headers-$kver" make_base
	[ -d "$base" ] || { echo "$passed passed, $failed failed"; exit 1; }
fi

t "lintian finds nothing" sh -c "lintian $(printf '%q ' "${debs[@]}") |
	grep -v 'running with root privileges' | { ! grep .; }"

wipe "$root"
cp -a "$base" "$root"
mounts "$root"
files > "$work/files-before"
mkdir -p "$root/tmp/debs"
cp "${debs[@]}" "$root/tmp/debs/"

t "apt installs the packages" inroot timeout "$(limit 1800)" apt-get \
	install -y -q --no-install-recommends \
	/tmp/debs/"$(basename "${debs[0]}")" /tmp/debs/"$(basename "${debs[1]}")"

ko=/lib/modules/$kver/updates/dkms/nf_hipac.ko
t "DKMS built and installed nf_hipac for $kver" \
	sh -c "chroot $root dkms status -k $kver | grep -x 'nf-hipac/$version, $kver, x86_64: installed' && test -f $root$ko"
t "the module carries version $version" \
	sh -c "test \"\$(modinfo -F version $root$ko)\" = $version"
t "the module is built for $kver" \
	sh -c "modinfo -F vermagic $root$ko | grep -q '^$kver '"

missing()
{
	local p f

	for p in nf-hipac nf-hipac-dkms; do
		inroot dpkg -L "$p" | while read -r f; do
			[ -e "$root$f" ] || [ -L "$root$f" ] || echo "$p: no $f"
		done
	done | { ! grep .; }
}
t "every file of dpkg -L is there" missing
t "nf-hipac --version says $version" \
	sh -c "chroot $root nf-hipac --version | grep -x 'nf-hipac v$version'"
t "nf-hipac-save and -restore are the tool" sh -c \
	"chroot $root nf-hipac-restore --version | grep -qx 'nf-hipac-restore v$version'"
t "bash completion loads for nf-hipac-set" inroot bash -c \
	'. /usr/share/bash-completion/completions/nf-hipac-set &&
	 complete -p nf-hipac-set | grep -q _nf_hipac'
t "the man pages are there" sh -c \
	"test -f $root/usr/share/man/man8/nf-hipac.8.gz && test -L $root/usr/share/man/man8/nf-hipac6.8.gz"
t "systemd-analyze verify nf-hipac.service" inroot systemd-analyze verify \
	--man=no /lib/systemd/system/nf-hipac.service
t "nf-hipac.service is enabled" test -L \
	"$root/etc/systemd/system/multi-user.target.wants/nf-hipac.service"
t "the unit restores before network-pre.target" grep -qx \
	"Before=network-pre.target.*" "$root/lib/systemd/system/nf-hipac.service"

rebuild()
{
	inroot dkms unbuild -m nf-hipac -v "$version" -k "$kver" &&
	! [ -e "$root$ko" ] &&
	inroot timeout "$(limit 1800)" apt-get install -y -q --reinstall \
		"linux-headers-$kver" &&
	[ -f "$root$ko" ] &&
	inroot dkms status -k "$kver" | grep -q "nf-hipac/$version.*installed"
}
t "installing the kernel's headers builds the module again" rebuild

if [ -n "$vm" ]; then
	umounts "$root"
	echo "check-packaging: the service's commands in the VM"
	vmout=$work/vm-out
	rm -rf "$vmout"
	NFHP_PKG_ROOT=$root NFHP_PKG_KVER=$kver NFHP_PKG_VERSION=$version \
		"$top/selftests/vm/run-vm.sh" --kver "$kver" --out "$vmout" \
		--timeout "$(limit 900)" -- selftests/packaging/vm-service.sh \
		>> "$log" 2>&1
	rc=$?
	if [ -s "$vmout/service.tap" ]; then
		while read -r line; do
			case $line in
			"ok "*) ok "VM: ${line#ok * - }";;
			"not ok "*) not_ok "VM: ${line#not ok * - }";;
			esac
		done < "$vmout/service.tap"
	fi
	[ $rc = 0 ] && [ -s "$vmout/service.tap" ] || not_ok "the VM run (exit $rc, see $log)"
	mounts "$root"
fi

# The saved rules outlive a removal, not a purge.
mkdir -p "$root/etc/nf-hipac"
echo "*filter" > "$root/etc/nf-hipac/rules.v4"
t "apt removes the packages" inroot timeout "$(limit 600)" apt-get remove \
	-y -q nf-hipac nf-hipac-dkms
t "the module and its DKMS tree are gone" sh -c \
	"! test -e $root$ko && ! test -e $root/var/lib/dkms/nf-hipac && ! test -e $root/usr/src/nf-hipac-$version"
t "the tools are gone, the saved rules kept" sh -c \
	"! test -e $root/usr/sbin/nf-hipac && test -f $root/etc/nf-hipac/rules.v4"
t "apt purges the packages" inroot timeout "$(limit 600)" apt-get purge \
	-y -q nf-hipac nf-hipac-dkms
t "dpkg knows neither package" sh -c \
	"! chroot $root dpkg-query -W -f='\${Status}\\n' nf-hipac nf-hipac-dkms 2>/dev/null | grep -q installed"
rm -rf "$root/tmp/debs"
# depmod's indexes, which a root with the kernel's image has anyway
depmod_files="/lib/modules/$kver/modules\.[a-z.]*$"
files | grep -v "$depmod_files" > "$work/files-after"
grep -v "$depmod_files" "$work/files-before" |
	diff - "$work/files-after" > "$work/files.diff"
t "the purge leaves nothing behind" sh -c "cat $work/files.diff; ! test -s $work/files.diff"

umounts "$root"
echo "$passed passed, $failed failed ($(($(date +%s) - start)) s)"
[ "$failed" = 0 ]
