#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The classifier core benchmark: every ClassBench 10k set of
# lyxocs-ruleSet/, the three generated 100k sets, and acl1 at 10k and 100k
# spread over user chains (classbench2ipt.py --chains, also --returns), through
# nf-hipac-sim --bench (tree vs. the naive linear reference, build time,
# memory, single-rule insert/delete at the loaded size).
#
#   bench/run-core-bench.sh [-d CLASSBENCH_DIR] [-p PACKETS] [-r REPRO_DIR]
#                           [-t SECONDS]
#
# -p: packets per set, taken from the start of the trace (default 100000)
# -r: the real rule sets of ../shared/repro, run whole when there
# -t: time limit per set in wall-clock seconds (default 120); a set that does not finish in time
#     is reported as such.
# Writes bench/results/core.md and bench/results/core.csv.  Converted
# files go to a temporary directory, never into the repository.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
data=${CLASSBENCH_DIR:-$top/../shared/classbench-data}
repro=${REPRO_DIR:-$top/../shared/repro}
npkts=100000
limit=120
while getopts "d:p:r:t:" opt; do
	case $opt in
	d) data=$OPTARG ;;
	p) npkts=$OPTARG ;;
	r) repro=$OPTARG ;;
	t) limit=$OPTARG ;;
	*) echo "usage: $0 [-d DIR] [-p PACKETS] [-r DIR] [-t SECONDS]" >&2; exit 2 ;;
	esac
done
cmdline="bench/run-core-bench.sh -d $data -p $npkts -r $repro -t $limit"
sim=$top/user/build/nf-hipac-sim
res=$top/bench/results
tmp=$(mktemp -d /tmp/nfhp-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

make -s -C "$top/user" build/nf-hipac-sim || exit 1
mkdir -p "$res"
[ -d "$data/lyxocs-ruleSet" ] || { echo "no ClassBench data in $data" >&2; exit 1; }

# name rulefile tracefile|synth [converter options]
. "$top/bench/classbench-sets.sh"
mapfile -t sets < <(nfhp_classbench_10k "$data"; nfhp_classbench_100k "$data")
sets+=("acl1_10k_chains $data/lyxocs-ruleSet/acl1_10k $data/generated/acl1_10k_trace.xz --chains")
sets+=("acl1_100k_chains $data/generated/acl1_100k.xz $data/generated/acl1_100k_trace.xz --chains")
sets+=("acl1_10k_returns $data/lyxocs-ruleSet/acl1_10k $data/generated/acl1_10k_trace.xz --chains --returns")
sets+=("acl1_100k_returns $data/generated/acl1_100k.xz $data/generated/acl1_100k_trace.xz --chains --returns")
# Real rule sets, whole, their extensions opaque tests (--opaque-xt),
# packets drawn inside their rules; their updates build hooks anew.
for rf in "$repro"/real-world-2784.rules "$repro"/slow-compile-170.rules; do
	[ -f "$rf" ] && sets+=("$(basename "$rf" .rules) $rf rules2pkt")
done

csv=$res/core.csv
echo "set,rules,skipped,packets,trace,build_ms,memory_mib,lookup_ns,linear_ns,speedup,insert_us_p50,insert_us_p99,delete_us_p50,delete_us_p99,status,lookup_memory_mib" > "$csv"
start=$(date +%s)
for entry in "${sets[@]}"; do
	read -r name rf tf opts <<<"$entry"
	simopts=
	if [ "$tf" = rules2pkt ]; then
		cp "$rf" "$tmp/$name.ipt"
		"$top/bench/rules2pkt.py" -n "$npkts" --seed 1 "$rf" > "$tmp/$name.pkt"
		: > "$tmp/$name.conv"
		simopts="--opaque-xt --updates 50"
	else
		# $opts: converter options, one word each.
		# shellcheck disable=SC2086
		nfhp_classbench_convert "$tmp" "$name" "$rf" "$tf" "$npkts" $opts
	fi
	skipped=$(sed -n 's/.* \([0-9]*\) skipped$/\1/p' "$tmp/$name.conv")
	case $tf in
	synth) trace=synthetic ;;
	rules2pkt) trace=rules2pkt.py ;;
	*) trace=$(basename "$tf") ;;
	esac
	pk=$(wc -l < "$tmp/$name.pkt")
	echo "== $name: $(grep -c '^-A' "$tmp/$name.ipt") rules, $pk packets ($trace)" >&2
	# shellcheck disable=SC2086
	timeout "$limit" "$sim" --bench $simopts "$tmp/$name.ipt" "$tmp/$name.pkt" > "$tmp/$name.out" 2> "$tmp/$name.err"
	rc=$?
	if [ $rc -eq 0 ]; then
		status=ok
	elif [ $rc -eq 124 ]; then
		status="timeout >${limit}s"
	else
		status="failed ($(head -c 80 "$tmp/$name.err" | tr '\n,' '  '))"
	fi
	get() { sed -n "s/^$1=//p" "$tmp/$name.out"; }
	rules=$(get rules); rules=${rules:-$(grep -c '^-A' "$tmp/$name.ipt")}
	lk=$(get lookup_ns); ln=$(get linear_lookup_ns)
	mem=$(get memory_bytes); lmem=$(get lookup_memory_bytes)
	awk -v n="$name" -v r="$rules" -v sk="${skipped:-0}" -v pk="$pk" \
	    -v tr="$trace" -v b="$(get build_ms)" -v m="$mem" -v lk="$lk" \
	    -v ln="$ln" -v i5="$(get insert_us_p50)" -v i9="$(get insert_us_p99)" \
	    -v d5="$(get delete_us_p50)" -v d9="$(get delete_us_p99)" -v st="$status" \
	    -v lm="$lmem" \
	    'BEGIN { printf "%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", n, r, sk, pk, tr, b,
		     m == "" ? "" : sprintf("%.2f", m / 1048576), lk, ln,
		     (lk > 0 && ln != "") ? sprintf("%.0f", ln / lk) : "",
		     i5, i9, d5, d9, st,
		     lm == "" ? "" : sprintf("%.2f", lm / 1048576) }' >> "$csv"
	tail -n +2 "$csv" | tail -1 >&2
done
elapsed=$(($(date +%s) - start))

{
	echo "# nf-hipac classifier core benchmark"
	echo
	echo "Command: \`$cmdline\` (from the repository root)  "
	echo "Date: $(date -u '+%Y-%m-%d %H:%M UTC')  "
	echo "Machine: $(uname -m), $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), $(nproc) CPUs  "
	echo "Commit: $(git -C "$top" rev-parse --short HEAD 2>/dev/null)  "
	echo "Run time: ${elapsed} s, limit ${limit} s per set"
	echo
	echo "Single thread, \`nf-hipac-sim --bench\`: lookups over the first $npkts packets of each"
	echo "trace in trace order, no caching; \"linear\" is the naive first-match reference"
	echo "(user/sim/ref.c) on the same packets.  Each lookup figure is the median of 7"
	echo "rounds of about 0.15 s, the tree's and the linear's taking turns; insert/delete"
	echo "are 1000 single-rule changes at the loaded size, each committed on its own."
	echo "All times are the thread's CPU time (CLOCK_THREAD_CPUTIME_ID), so that other"
	echo "load on the machine does not count; load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)."
	echo "Other tenants of a virtual host still slow it down by up to 2x for minutes; the"
	echo "linear reference's code rarely changes, so its column, compared with an earlier"
	echo "table's, tells whether the host ran at the same speed."
	echo "Rules come from bench/classbench2ipt.py (see its header for the protocol/port"
	echo "mapping; \"skipped\" rules are not expressible in iptables)."
	echo "\"memory\" is all the rule set allocated (glibc's usable sizes); \"lookup"
	echo "memory\" is what lookups read: the trees, the entries and the counters, with"
	echo "one CPU's copy of the counters (\`nf-hipac-sim --stats\`, \"lookup memory\")."
	echo
	echo "| set | rules | skipped | build ms | memory MiB | lookup memory MiB | lookup ns | linear ns | speedup | insert p50/p99 µs | delete p50/p99 µs | status |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
	tail -n +2 "$csv" | awk -F, '{ printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s / %s | %s / %s | %s |\n",
		$1, $2, $3, $6, $7, $16, $8, $9, ($10 == "" ? "" : $10 "x"), $11, $12, $13, $14, $15 }'
	echo
	echo "Traces: lyxocs \`*_10k_trace\`; acl1_10k uses \`generated/acl1_10k_trace.xz\`;"
	echo "sets without a trace (fw5_10k, ipc2_10k) use \`classbench2pkt.py --synth\`"
	echo "(uniform headers inside uniformly drawn rules, seed 1)."
	echo "\`*_chains\`: the set spread over a user chain per source /8, FORWARD jumping"
	echo "to each (\`classbench2ipt.py --chains\`); an update flattens only the"
	echo "rules it adds.  Their insert p99 is the benchmark re-inserting a jump line:"
	echo "a second copy of a whole chain's entries.  \`*_returns\`: the same with"
	echo "\`-p icmp -j RETURN\` atop each chain (\`--chains --returns\`), so that the"
	echo "hook keeps one tree and an update also sets the RETURNs' scopes anew."
	echo "\`real-world-2784\`, \`slow-compile-170\`: the rule sets of ../shared/repro"
	echo "(-r DIR), whole: their extensions (mac, recent, limit, LOG, REJECT...) run as"
	echo "the simulator's opaque tests (\`--opaque-xt\`), their packets come from"
	echo "\`bench/rules2pkt.py -n PACKETS --seed 1\` (inside randomly drawn rules), and"
	echo "50 updates are timed (\`--updates 50\`): each builds the hook anew (their"
	echo "jumps exclude boxes, which updates do not handle)."
} > "$res/core.md"
cat "$res/core.md"
