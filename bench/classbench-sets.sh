# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
#
# The ClassBench sets the benchmarks run, sourced by run-core-bench.sh,
# lookup-counts.sh and lookup-pair.sh: each prints one "NAME RULEFILE
# TRACEFILE|synth" line a set, and nfhp_classbench_convert turns a set into
# the simulator's rules and packets, so that all three measure the same.

nfhp_bench_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# nfhp_classbench_10k DIR - every 10k set of lyxocs-ruleSet/ with its trace
nfhp_classbench_10k()
{
	local s rf tf

	for s in acl1 acl2 acl3 acl4 acl5 fw1 fw2 fw3 fw4 fw5 ipc1 ipc2; do
		rf=$1/lyxocs-ruleSet/${s}_10k
		if [ -f "${rf}_trace" ]; then
			tf=${rf}_trace
		elif [ -f "$1/generated/${s}_10k_trace.xz" ]; then
			tf=$1/generated/${s}_10k_trace.xz
		else
			tf=synth
		fi
		echo "${s}_10k $rf $tf"
	done
}

# nfhp_classbench_100k DIR - the generated 100k sets with their traces
nfhp_classbench_100k()
{
	local s

	for s in acl1 fw1 ipc1; do
		echo "${s}_100k $1/generated/${s}_100k.xz $1/generated/${s}_100k_trace.xz"
	done
}

# nfhp_classbench_packets RULEFILE TRACEFILE|synth COUNT - packet lines
nfhp_classbench_packets()
{
	local conv=$nfhp_bench_dir/classbench2pkt.py

	if [ "$2" = synth ]; then
		"$conv" --synth "$1" --count "$3"
	else
		"$conv" --limit "$3" "$2"
	fi
}

# nfhp_classbench_convert DIR NAME RULEFILE TRACEFILE|synth COUNT [OPTION...]
# - DIR/NAME.ipt (the rules, classbench2ipt.py with OPTIONs), DIR/NAME.conv
# (the converter's messages) and DIR/NAME.pkt (COUNT packets)
nfhp_classbench_convert()
{
	local dir=$1 name=$2 rf=$3 tf=$4 count=$5

	shift 5
	"$nfhp_bench_dir/classbench2ipt.py" "$@" "$rf" > "$dir/$name.ipt" \
		2> "$dir/$name.conv" &&
	nfhp_classbench_packets "$rf" "$tf" "$count" > "$dir/$name.pkt"
}
