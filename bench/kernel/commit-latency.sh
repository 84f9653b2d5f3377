#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# commit-latency.sh - how long the kernel takes to commit one rule
#
#	bench/kernel/commit-latency.sh [-k INSERTS] [SIZES...]
#
# On the host (the default): boots the test VM once and runs itself there
# with --guest.  In the guest, for each size N (default 1000 10000 100000)
# it loads bench/seed.py's N-rule set with nf-hipac-restore, then inserts
# INSERTS (default 20) single rules at position 1, each its own commit,
# and reads after each how long the kernel took for it: "last commit
# took" in /proc/net/nf-hipac/info, nfhp_txn_commit() alone, without the
# program start and the netlink round trip around it.  Writes a table of
# median, min and max per size to bench/results/kernel-commit.md.  Under
# TCG absolute times are inflated by the emulation (the classifier core's
# own update times are in bench/results/core.md).
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
inserts=20
guest=0
while [ $# -gt 0 ]; do
	case $1 in
	-k) inserts=$2; shift 2 ;;
	--guest) guest=1; shift ;;
	*) break ;;
	esac
done
sizes=${*:-"1000 10000 100000"}

if [ "$guest" = 0 ]; then
	out=$top/build/commit-latency
	rm -rf "$out"
	mkdir -p "$out"
	for n in $sizes; do
		"$top/bench/seed.py" "$n" > "$out/seed-$n.rules"
	done
	"$top/selftests/vm/run-vm.sh" --timeout 1800 --mem 2G --out "$out" \
		-- bench/kernel/commit-latency.sh --guest -k "$inserts" $sizes
	res=$top/bench/results/kernel-commit.md
	{
		echo "# Single-rule commit time in the kernel"
		echo
		echo "Command: \`bench/kernel/commit-latency.sh -k $inserts" \
		     "$sizes\` (make bench-commit)  "
		echo "Date: $(date -u '+%Y-%m-%d %H:%M UTC')  "
		echo "Commit: $(git -C "$top" rev-parse --short HEAD)  "
		echo "Machine: QEMU TCG, 2 vCPUs, Debian's 6.1 kernel"
		echo
		echo "bench/seed.py's N rules loaded, then single-rule inserts" \
		     "at FORWARD 1, each its own commit; the time is" \
		     "nfhp_txn_commit() alone (\"last commit took\" in" \
		     "/proc/net/nf-hipac/info).  TCG inflates the compute" \
		     "several times over."
		echo
		cat "$out/table.md"
	} > "$res"
	cat "$res"
	exit 0
fi

out=${NFHP_VM_OUT:?run me on the host}
. "$top/selftests/nf_hipac/lib.sh"
[ -d /sys/module/nf_hipac ] || nfhp_insmod "$top/nf_hipac.ko"

# took - "last commit took" in ns.
took()
{
	awk '/^last commit took:/ { print $4 }' /proc/net/nf-hipac/info
}

{
	echo "| rules | commits | median [ms] | min [ms] | max [ms] |"
	echo "|---:|---:|---:|---:|---:|"
} > "$out/table.md"
for n in $sizes; do
	"$top/user/build/nf-hipac-restore" < "$out/seed-$n.rules"
	: > "$out/commit-$n.txt"
	for i in $(seq "$inserts"); do
		"$top/user/build/nf-hipac" -I FORWARD 1 \
			-s "10.250.$((i / 250)).$((i % 250))" -j ACCEPT
		took >> "$out/commit-$n.txt"
	done
	sort -n "$out/commit-$n.txt" | awk -v n="$n" '{ v[NR] = $1 / 1e6 }
		END { printf "| %d | %d | %.2f | %.2f | %.2f |\n", n, NR,
		      v[int((NR + 1) / 2)], v[1], v[NR] }' >> "$out/table.md"
done
