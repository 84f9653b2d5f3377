# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
#
# The ClassBench sets the benchmarks run, sourced by run-core-bench.sh and
# lookup-counts.sh: each prints one "NAME RULEFILE TRACEFILE|synth" line a
# set, and nfhp_classbench_packets converts a trace, or draws a synthetic
# one, so that both scripts measure the same packets.

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
