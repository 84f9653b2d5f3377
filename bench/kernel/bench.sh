#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh - the in-kernel benchmark (make bench-kernel), host side.
#
#	bench/kernel/bench.sh [-q]
#
# Prepares every ruleset on the host (bench/seed.py, bench/classbench2ipt.py,
# bench/kernel/ipt2nft.py for the native nft and the concatenated-set nft
# versions, bench/kernel/prepare.py for the ClassBench trace flows) into
# build/bench-kernel/in, runs bench/kernel/run.sh in ONE VM run with 2 vCPUs,
# then writes bench/results/kernel.{md,csv,png} with bench/kernel/report.py.
# The ClassBench data is read from /work/shared/classbench-data (or
# $CLASSBENCH_DIR) and never copied into the repository.
#
# IPv6 rows (issue 43): seed6-N is seed-N made IPv6 by bench/ipv4to6.py
# (same rules, same intervals; the addresses 72 bits up in fd00::/24), for
# N in NFHP_BK_SEEDS6 (10000 100000), and ipt2nft.py --family 6 writes its
# nft version; no nft-set version.  Their in/list lines end in "6", which
# makes run.sh measure them over IPv6 in the same VM run.
# NFHP_BK_FAMILIES (4 6) picks the families: NFHP_BK_FAMILIES=6 bench.sh -q
# runs seed6-10000 alone.
#
# -q (or NFHP_BK_QUICK=1): quick mode for development: seed 0 and 10000
# (NFHP_BK_SEEDS), seed6 10000 (NFHP_BK_SEEDS6), acl1_1k (NFHP_BK_CB), 1
# round of 2 s (a knob set empty, NFHP_BK_CB=, runs none of its sets);
# results go to build/bench-kernel-quick and
# bench/results is left alone.  NFHP_BK_ROUNDS, NFHP_BK_SECS,
# NFHP_BK_LOAD_TMO and NFHP_BK_CONTENDERS pass through to run.sh.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
data=${CLASSBENCH_DIR:-$top/../shared/classbench-data}
[ -d "$data/lyxocs-ruleSet" ] || data=/work/shared/classbench-data
quick=${NFHP_BK_QUICK:-0}
[ "${1:-}" = -q ] && quick=1
cmdline="make bench-kernel"
for v in $(env | sed -n 's/^\(NFHP_BK_[A-Z_]*\)=.*/\1/p' | sort); do
	cmdline="$v=${!v} $cmdline"
done

if [ "$quick" = 1 ]; then
	out=$top/build/bench-kernel-quick
	# set but empty: none of that kind
	seeds=${NFHP_BK_SEEDS-"0 10000"}
	seeds6=${NFHP_BK_SEEDS6-"10000"}
	cbsets=${NFHP_BK_CB-"acl1_1k"}
	export NFHP_BK_ROUNDS=${NFHP_BK_ROUNDS:-1}
	export NFHP_BK_SECS=${NFHP_BK_SECS:-2}
	results=$out/results
	vm_timeout=1800
else
	out=$top/build/bench-kernel
	seeds="0 100 1000 10000 100000"
	seeds6="10000 100000"
	cbsets="acl1_1k acl1_10k fw1_1k fw1_10k ipc1_1k ipc1_10k"
	results=$top/bench/results
	vm_timeout=$(( ${NFHP_BK_BUDGET:-2400} + 1800 ))
fi
families=${NFHP_BK_FAMILIES:-"4 6"}
[[ " $families " == *" 4 "* ]] || { seeds=; cbsets=; }
[[ " $families " == *" 6 "* ]] || seeds6=
in=$out/in
rm -rf "$out"
mkdir -p "$in" "$results"

# nftconv NAME [WHY] - native and set nft versions of NAME.ipt; a set that
# cannot express the ruleset, or is not to be measured for the reason WHY,
# leaves NAME.set.why instead.
nftconv()
{
	local n=$1

	"$top/bench/kernel/ipt2nft.py" "$in/$n.ipt" > "$in/$n.nft"
	if [ -n "${2:-}" ]; then
		echo "$n: $2" > "$in/$n.set.why"
		return
	fi
	if ! "$top/bench/kernel/ipt2nft.py" --set "$in/$n.ipt" \
			> "$in/$n.set.nft" 2> "$in/$n.set.why"; then
		rm -f "$in/$n.set.nft"
	fi
	[ -s "$in/$n.set.why" ] || rm -f "$in/$n.set.why"
}

echo "bench-kernel: preparing rulesets in $in"
: > "$in/list"
for n in $seeds; do
	"$top/bench/seed.py" "$n" > "$in/seed-$n.ipt"
	if [ "$n" -ge 100000 ]; then
		# pipapo's insertion is quadratic in the set's size: a
		# 100k-element nft -f ran over 15 minutes in the kernel, where
		# the load timeout cannot stop it.
		nftconv "seed-$n" "one pipapo set of $n elements was not measured: its load ran over 15 minutes in the kernel under TCG (insertion is quadratic in the set size) and a timeout cannot interrupt it"
	else
		nftconv "seed-$n"
	fi
	# the largest set last: the run's time budget cuts from the end
	if [ "$n" -ge 100000 ]; then
		echo "seed-$n $n" >> "$in/list.last"
	else
		echo "seed-$n $n" >> "$in/list"
	fi
done
if [[ " $seeds " == *" 10000 "* ]]; then
	"$top/bench/seed.py" 10000 --seed 2 > "$in/seed-10000b.ipt"
	nftconv seed-10000b
fi
for n in $seeds6; do
	"$top/bench/seed.py" "$n" > "$in/seed6-$n.v4"
	"$top/bench/ipv4to6.py" rules "$in/seed6-$n.v4" > "$in/seed6-$n.ipt"
	rm "$in/seed6-$n.v4"
	"$top/bench/kernel/ipt2nft.py" --family 6 "$in/seed6-$n.ipt" \
		> "$in/seed6-$n.nft"
	echo "seed6-$n: nft-set is measured for IPv4 only" \
		> "$in/seed6-$n.set.why"
	if [ "$n" -ge 100000 ]; then
		echo "seed6-$n $n 6" >> "$in/list.last"
	else
		echo "seed6-$n $n 6" >> "$in/list"
	fi
done
for s in $cbsets; do
	rf=$data/lyxocs-ruleSet/$s
	tf=$data/lyxocs-ruleSet/${s}_trace
	[ -f "$tf" ] || tf=$data/generated/${s}_trace.xz
	# Replies come back through veth1; accept them first so that the
	# ClassBench rules classify the forward direction only.
	"$top/bench/classbench2ipt.py" "$rf" 2> "$in/$s.conv" |
		sed '/^:OUTPUT/a -A FORWARD -i veth1 -j ACCEPT' > "$in/$s.ipt"
	nftconv "$s"
	"$top/bench/kernel/prepare.py" "$in/$s.ipt" "$tf" > "$in/$s.flows"
	echo "$s $(grep -c '^-A FORWARD -[sdp]' "$in/$s.ipt")" >> "$in/list"
done
[ ! -f "$in/list.last" ] || cat "$in/list.last" >> "$in/list"
cat "$in/list"

start=$(date +%s)
rc=0
"$top/selftests/vm/run-vm.sh" --timeout "$vm_timeout" --mem 3G --smp 2 \
	--out "$out" -- bench/kernel/run.sh || rc=$?
echo "bench-kernel: VM run took $(( $(date +%s) - start )) s, exit $rc"
[ -s "$out/raw.csv" ] || { echo "bench-kernel: no results" >&2; exit 1; }
"$top/bench/kernel/report.py" --cmd "$cmdline" --in "$out" --out "$results"
exit $rc
