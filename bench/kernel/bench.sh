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
# Named sets (issue 44): bench/kernel/setkeys.py's blocklists of
# NFHP_BK_SET_ENTRIES (100000) hosts and prefixes, which the traffic never
# hits, are the rows bl-hosts and bl-prefixes (NFHP_BK_SETS="hosts
# prefixes"), measured in the same VM run against none, iptables-legacy
# with ipset, nft with a set, the keys as nf-hipac rules and nf-hipac-set
# (run.sh's header); their in/list lines end in "set".  report.py writes
# them to bench/results/sets-throughput.md, with the single and batched
# updates of bench/kernel/set-memory.sh's last run when
# build/set-memory/rows.txt is there.  NFHP_BK_SETS_ONLY=1 runs these rows
# alone (make bench-sets-kernel does, after set-memory.sh) into
# build/bench-kernel-sets, in 5 rounds (NFHP_BK_ROUNDS) within a budget of
# 1800 s (NFHP_BK_BUDGET), and writes sets-throughput.md only.
#
# Dynamic states (issue 45): for N in NFHP_BK_STATES (10000), the row
# st-N is seed-N under FORWARD policy DROP with the flow accepted in five
# ways (run.sh's header): nf-hipac stateless (seed-N as is: both
# directions accepted), nf-hipac states (the two accepts replaced by one
# keep-state rule for client -> server, after the N rules: NAME.ks.ipt),
# the same with -j CHECK-STATE first (NAME.cs.ipt), iptables-legacy with
# -m conntrack --ctstate ESTABLISHED,RELATED -j ACCEPT first and the
# client -> server accept last (NAME.ct.ipt), nft with ct state
# established,related accept first (NAME.ct.nft); st-mem.{ks,ct}.ipt are
# the same without the N rules, for filling the tables with 10^6 states.
# Their in/list lines end in "state".  report.py writes them to
# bench/results/states-throughput.md.  NFHP_BK_STATES_ONLY=1 runs these
# rows alone (make bench-states-kernel) into build/bench-kernel-states,
# in 5 rounds within a budget of 1200 s, then the fill of 10^6 states
# (NFHP_BK_STATE_FILL, at most NFHP_BK_STATE_FILL_SECS, 300, each), and
# writes states-throughput.md only.
#
# -q (or NFHP_BK_QUICK=1): quick mode for development: seed 0 and 10000
# (NFHP_BK_SEEDS), seed6 10000 (NFHP_BK_SEEDS6), acl1_1k (NFHP_BK_CB), sets
# of 1000 entries, 1 round of 2 s (a knob set empty, NFHP_BK_CB=, runs
# none of its sets), 50,000 states filled within 60 s; results go to
# build/bench-kernel-quick and bench/results is left alone.
# NFHP_BK_ROUNDS, NFHP_BK_SECS, NFHP_BK_LOAD_TMO, NFHP_BK_CONTENDERS,
# NFHP_BK_SET_CONTENDERS, NFHP_BK_STATE_CONTENDERS, NFHP_BK_STATE_FILL
# and NFHP_BK_STATE_FILL_SECS pass through to run.sh.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
data=${CLASSBENCH_DIR:-$top/../shared/classbench-data}
[ -d "$data/lyxocs-ruleSet" ] || data=/work/shared/classbench-data
quick=${NFHP_BK_QUICK:-0}
[ "${1:-}" = -q ] && quick=1
sets_only=${NFHP_BK_SETS_ONLY:-0}
states_only=${NFHP_BK_STATES_ONLY:-0}
cmdline="make bench-kernel"
[ "$sets_only$states_only" = 00 ] || cmdline="bench/kernel/bench.sh"
for v in $(env | sed -n 's/^\(NFHP_BK_[A-Z_]*\)=.*/\1/p' | sort); do
	cmdline="$v=${!v} $cmdline"
done

if [ "$quick" = 1 ]; then
	out=$top/build/bench-kernel-quick
	# set but empty: none of that kind
	seeds=${NFHP_BK_SEEDS-"0 10000"}
	seeds6=${NFHP_BK_SEEDS6-"10000"}
	cbsets=${NFHP_BK_CB-"acl1_1k"}
	nset=${NFHP_BK_SET_ENTRIES:-1000}
	export NFHP_BK_ROUNDS=${NFHP_BK_ROUNDS:-1}
	export NFHP_BK_SECS=${NFHP_BK_SECS:-2}
	export NFHP_BK_STATE_FILL=${NFHP_BK_STATE_FILL:-50000}
	export NFHP_BK_STATE_FILL_SECS=${NFHP_BK_STATE_FILL_SECS:-60}
	results=$out/results
	vm_timeout=1800
else
	out=$top/build/bench-kernel
	seeds="0 100 1000 10000 100000"
	seeds6="10000 100000"
	cbsets="acl1_1k acl1_10k fw1_1k fw1_10k ipc1_1k ipc1_10k"
	nset=${NFHP_BK_SET_ENTRIES:-100000}
	results=$top/bench/results
	vm_timeout=$(( ${NFHP_BK_BUDGET:-2400} + 1800 ))
fi
setkinds=${NFHP_BK_SETS-"hosts prefixes"}
stsizes=${NFHP_BK_STATES-"10000"}
families=${NFHP_BK_FAMILIES:-"4 6"}
[[ " $families " == *" 4 "* ]] || { seeds=; cbsets=; setkinds=; stsizes=; }
[[ " $families " == *" 6 "* ]] || seeds6=
report=()
if [ "$sets_only" != 0 ]; then
	seeds= seeds6= cbsets=
	report=(--sets-only)
	if [ "$quick" != 1 ]; then
		# two rows only: more rounds against the noise, within 30 min
		out=$top/build/bench-kernel-sets
		export NFHP_BK_ROUNDS=${NFHP_BK_ROUNDS:-5}
		export NFHP_BK_BUDGET=${NFHP_BK_BUDGET:-1800}
		vm_timeout=$((NFHP_BK_BUDGET + 1800))
	fi
	stsizes=
fi
if [ "$states_only" != 0 ]; then
	seeds= seeds6= cbsets= setkinds=
	report=(--states-only)
	if [ "$quick" != 1 ]; then
		out=$top/build/bench-kernel-states
		export NFHP_BK_ROUNDS=${NFHP_BK_ROUNDS:-5}
		export NFHP_BK_BUDGET=${NFHP_BK_BUDGET:-1200}
		vm_timeout=$((NFHP_BK_BUDGET + 1800))
	fi
fi
[ -z "$setkinds" ] || [ ! -s "$top/build/set-memory/rows.txt" ] ||
	report+=(--updates "$top/build/set-memory/rows.txt")
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
if [ -n "$setkinds" ]; then
	"$top/bench/kernel/setkeys.py" -n "$nset" "$in/sets"
	printf '*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n-A FORWARD -m set --match-set bl src -j DROP\nCOMMIT\n' \
		> "$in/set-match.ipt"
fi
for k in $setkinds; do
	s=$in/sets/$k
	mv "$s.ipt" "$in/bl-$k.ipt"
	mv "$s.ipset" "$in/bl-$k.ipset"
	mv "$s.nfhp" "$in/bl-$k.nfhp"
	mv "$s.near" "$in/bl-$k.near"
	{
		cat "$s.nft"
		echo "add chain ip bench forward" \
		     "{ type filter hook forward priority 0; policy accept; }"
		echo "add rule ip bench forward ip saddr @bl drop"
	} > "$in/bl-$k.set.nft"
	echo "bl-$k $nset set" >> "$in/list"
done
rm -rf "$in/sets"
# stateful NAME SEEDFILE - the keep-state, CHECK-STATE and conntrack
# versions of a seed set: its last two rules (client <-> server accepts)
# give way to one rule for client -> server.
stateful()
{
	local n=$1 ks="-s 10.0.1.0/24 -d 10.0.2.0/24"
	local ct="-m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT"
	local body=$in/$n.body

	grep -v -e "^-A FORWARD $ks -j ACCEPT" \
		-e '^-A FORWARD -s 10.0.2.0/24 -d 10.0.1.0/24 -j ACCEPT' \
		-e '^COMMIT' "$2" > "$body"
	{ cat "$body"; echo "-A FORWARD $ks -m keep-state -j ACCEPT"
	  echo COMMIT; } > "$in/$n.ks.ipt"
	sed '/^:OUTPUT/a -A FORWARD -j CHECK-STATE' "$in/$n.ks.ipt" \
		> "$in/$n.cs.ipt"
	{ cat "$body"; echo "-A FORWARD $ks -j ACCEPT"; echo COMMIT; } \
		> "$in/$n.acc.ipt"
	sed "/^:OUTPUT/a -A FORWARD $ct" "$in/$n.acc.ipt" > "$in/$n.ct.ipt"
	"$top/bench/kernel/ipt2nft.py" "$in/$n.acc.ipt" |
		sed '/type filter hook forward/a \	\tct state established,related accept' \
		> "$in/$n.ct.nft"
	rm "$body" "$in/$n.acc.ipt"
}
for n in $stsizes; do
	"$top/bench/seed.py" "$n" > "$in/st-$n.ipt"
	stateful "st-$n" "$in/st-$n.ipt"
	echo "st-$n $n state" >> "$in/list"
done
if [ -n "$stsizes" ]; then
	"$top/bench/seed.py" 0 > "$in/st-mem.ipt"
	stateful st-mem "$in/st-mem.ipt"
	rm "$in/st-mem.ipt"
fi
[ ! -f "$in/list.last" ] || cat "$in/list.last" >> "$in/list"
cat "$in/list"

start=$(date +%s)
load0=$(cut -d' ' -f1-3 /proc/loadavg)
rc=0
"$top/selftests/vm/run-vm.sh" --timeout "$vm_timeout" --mem 3G --smp 2 \
	--out "$out" -- bench/kernel/run.sh || rc=$?
echo "bench-kernel: VM run took $(( $(date +%s) - start )) s, exit $rc"
[ -s "$out/raw.csv" ] || { echo "bench-kernel: no results" >&2; exit 1; }
"$top/bench/kernel/report.py" --cmd "$cmdline" --in "$out" --out "$results" \
	--load "$load0 at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end" \
	${report[@]+"${report[@]}"}
exit $rc
