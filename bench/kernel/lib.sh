# SPDX-License-Identifier: GPL-2.0
#
# What the VM benchmarks of bench/kernel/ share.  Source it with $top set
# to the repository's top.

# nfhp_bench_stamp [MACHINE...] - the Date, Commit and Machine lines of a
# results table, as markdown with hard line breaks; MACHINE defaults to
# the VM that selftests/vm/run-vm.sh boots.
nfhp_bench_stamp()
{
	local vm="QEMU TCG, 2 vCPUs, Debian's 6.1 kernel"

	echo "Date: $(date -u '+%Y-%m-%d %H:%M UTC')  "
	echo "Commit: $(git -C "$top" rev-parse --short HEAD)  "
	echo "Machine: ${*:-$vm}"
}

# nfhp_bench_guest - in the guest: set $out to the host's output folder,
# source the selftests' helpers and load the module unless it is loaded.
nfhp_bench_guest()
{
	out=${NFHP_VM_OUT:?run me on the host}
	. "$top/selftests/nf_hipac/lib.sh"
	[ -d /sys/module/nf_hipac ] || nfhp_insmod "$top/nf_hipac.ko"
}
