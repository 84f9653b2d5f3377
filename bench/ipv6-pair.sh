#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# IPv6 lookups against IPv4 ones, on the same rule sets: each ClassBench
# set is classified as converted (bench/classbench-sets.sh) and twice as
# bench/ipv4to6.py makes it IPv6: every address moved 72 bits up below
# fd00::/24 (prefixes of /56 and shorter), and with --low into the last
# 32 bits of 2001:db8::/96 (hosts), by nf-hipac-sim and nf-hipac-sim -6
# in turn within each round; the table has the medians of the rounds.
# What differs is the width of the address keys: RLP64 nodes and windowed
# list tests for the first layout, RLP128 nodes for the second.
#
#   bench/ipv6-pair.sh [-d CLASSBENCH_DIR] [-p PACKETS] [-r ROUNDS]
#                      [-s "SET..."]
#
# Writes bench/results/ipv6-lookup.md.  Default: every 10k set, 5 rounds
# of 100000 packets.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
data=${CLASSBENCH_DIR:-$top/../shared/classbench-data}
npkts=100000
rounds=5
want=
while getopts "d:p:r:s:" opt; do
	case $opt in
	d) data=$OPTARG ;;
	p) npkts=$OPTARG ;;
	r) rounds=$OPTARG ;;
	s) want=$OPTARG ;;
	*) echo "usage: $0 [-d DIR] [-p PACKETS] [-r ROUNDS] [-s SETS]" >&2
	   exit 2 ;;
	esac
done
cmdline="bench/ipv6-pair.sh -p $npkts -r $rounds${want:+ -s \"$want\"}"
sim=$top/user/build/nf-hipac-sim
res=$top/bench/results
[ -d "$data/lyxocs-ruleSet" ] || { echo "no ClassBench data in $data" >&2; exit 1; }
make -s -C "$top/user" build/nf-hipac-sim || exit 1
tmp=$(mktemp -d /tmp/nfhp-ipv6.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

. "$top/bench/classbench-sets.sh"
# get KEY FILE - the value of a key=value line of nf-hipac-sim --bench
get() { sed -n "s/^$1=//p" "$2"; }
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

start=$(date +%s)
rows=
while read -r name rf tf; do
	[ -z "$want" ] || [[ " $want " == *" $name "* ]] || continue
	nfhp_classbench_convert "$tmp" "$name" "$rf" "$tf" "$npkts" ||
		{ echo "$name: conversion failed" >&2; continue; }
	"$top/bench/ipv4to6.py" rules "$tmp/$name.ipt" > "$tmp/$name.ip6t"
	"$top/bench/ipv4to6.py" packets "$tmp/$name.pkt" > "$tmp/$name.pkt6"
	"$top/bench/ipv4to6.py" --low rules "$tmp/$name.ipt" > "$tmp/$name.low6t"
	"$top/bench/ipv4to6.py" --low packets "$tmp/$name.pkt" \
		> "$tmp/$name.low6p"
	for r in $(seq "$rounds"); do
		"$sim" --bench "$tmp/$name.ipt" "$tmp/$name.pkt" \
			> "$tmp/$name.v4.$r" 2>&1
		"$sim" -6 --bench "$tmp/$name.ip6t" "$tmp/$name.pkt6" \
			> "$tmp/$name.v6.$r" 2>&1
		"$sim" -6 --bench "$tmp/$name.low6t" "$tmp/$name.low6p" \
			> "$tmp/$name.lo.$r" 2>&1
	done
	for fam in v4 v6 lo; do
		for k in lookup_ns build_ms lookup_memory_bytes; do
			eval "${fam}_$k=\$(for r in \$(seq $rounds); do get $k $tmp/$name.$fam.\$r; done | median)"
		done
	done
	row=$(awk -v n="$name" -v l4="$v4_lookup_ns" -v l6="$v6_lookup_ns" \
		-v b4="$v4_build_ms" -v b6="$v6_build_ms" \
		-v m4="$v4_lookup_memory_bytes" -v m6="$v6_lookup_memory_bytes" \
		-v ll="$lo_lookup_ns" -v bl="$lo_build_ms" \
		-v ml="$lo_lookup_memory_bytes" \
		'BEGIN { printf "| %s | %.1f | %.1f | %.2f | %.1f | %.1f | %.2f | %.2f | %.1f | %.2f | %.1f | %.2f |\n",
			 n, l4, l6, l6 / l4, b4, b6, m4 / 1048576, m6 / 1048576,
			 ll, ll / l4, bl, ml / 1048576 }')
	echo "$row" >&2
	rows+="$row"$'\n'
done < <(nfhp_classbench_10k "$data")
elapsed=$(($(date +%s) - start))

{
	echo "# IPv6 lookups against IPv4, same rule sets"
	echo
	echo "Command: \`$cmdline\` (from the repository root)  "
	echo "Date: $(date -u '+%Y-%m-%d %H:%M UTC')  "
	echo "Machine: $(uname -m), $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), $(nproc) CPUs  "
	echo "Commit: $(git -C "$top" rev-parse --short HEAD 2>/dev/null)  "
	echo "Run time: ${elapsed} s"
	echo
	echo "Each ClassBench 10k set as bench/classbench-sets.sh converts it, and the"
	echo "same set made IPv6 by bench/ipv4to6.py: a.b.c.d/p moves 72 bits up,"
	echo "below fd00::/24, as /(24+p), so both have the same intervals in the same"
	echo "order.  \"low\": the same set with --low, its addresses the last 32"
	echo "bits below 2001:db8::/96, /p as /(96+p), a layout of hosts.  The three"
	echo "runs of \`nf-hipac-sim --bench\` and \`nf-hipac-sim -6 --bench\` take turns,"
	echo "$rounds rounds; medians of the thread CPU time per lookup over the first"
	echo "$npkts packets of the trace.  \"lookup MiB\": trees, entries and counters."
	echo
	echo "| set | IPv4 ns | IPv6 ns | IPv6/IPv4 | IPv4 build ms | IPv6 build ms | IPv4 lookup MiB | IPv6 lookup MiB | low ns | low/IPv4 | low build ms | low lookup MiB |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
	printf '%s' "$rows"
} > "$res/ipv6-lookup.md"
echo "wrote $res/ipv6-lookup.md" >&2
