#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# list-latency.sh - listing and -C against iptables-legacy, same rule set
#
#	bench/kernel/list-latency.sh [-q] [-r ROUNDS] [SIZES...]
#	bench/kernel/list-latency.sh --table ROWS
#
# On the host (the default): boots the test VM once and runs itself there
# with --guest.  In the guest, for each size N (default 1000 10000 100000
# kube:5000) it loads bench/seed.py's N-rule set, or for kube:N
# bench/kube.py N (FORWARD jumping to N service chains of two rules), into
# nf-hipac (nf-hipac-restore) and into iptables-legacy
# (iptables-legacy-restore), runs every command below once with each tool
# to warm the caches, then times ROUNDS (default 9) interleaved rounds: in
# each round every command runs once with nf-hipac and once with
# iptables-legacy, the one first in odd rounds second in even ones.  The
# commands, the same words for both tools:
#
#	-L -n, -L -n -v, -S, save (nf-hipac-save, iptables-legacy-save),
#	-C FORWARD RULE with RULE the last of the N rules (the chain's
#	last but two; kube:N: the last jump), and -L INPUT -n, an empty
#	chain: the cost of starting the program and asking once.
#
# The time is the wall time of the whole process, output to /dev/null.  A
# command that fails fails the run.  Writes the medians, the minimums and
# their ratios per size and command to bench/results/kernel-list.md (the
# rows to build/list-latency/rows.txt).  Under TCG the absolute times mean
# little and drift from boot to boot: the ratio of one run is the result.
# A host busy with other work slows single runs by up to seconds; the
# minimum is the run it left alone.
#
# -q: quick mode for development: 5 rounds of 1000 and 10000 unless told
# otherwise; the table goes to build/list-latency/ only and bench/results
# is left alone.  --table ROWS prints the table of a rows.txt again.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/bench/kernel/lib.sh"
rounds=
quick=0
guest=0
table_of=
while [ $# -gt 0 ]; do
	case $1 in
	-r) rounds=$2; shift 2 ;;
	-q) quick=1; shift ;;
	--guest) guest=1; shift ;;
	--table) table_of=$2; shift 2 ;;
	*) break ;;
	esac
done
if [ "$quick" = 1 ]; then
	rounds=${rounds:-5}
	sizes=${*:-"1000 10000"}
else
	rounds=${rounds:-9}
	sizes=${*:-"1000 10000 100000 kube:5000"}
fi

cmds="list list-v rules save check empty"

# table ROWS - the medians and the minimums of each size, command and tool
# of the rows "N CMD TOOL ROUND MS", and their ratios, as a Markdown table.
table()
{
	awk -v cmds="$cmds" '
	function sorted(s, v,  n, i, j, x) {
		n = split(s, v, " ")
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; j--) {
				x = v[j]; v[j] = v[j - 1]; v[j - 1] = x
			}
		return n
	}
	function med(s,  v, n) {
		n = sorted(s, v)
		return v[int((n + 1) / 2)]
	}
	function least(s,  v) {
		sorted(s, v)
		return v[1]
	}
	{
		t[$1 " " $2 " " $3] = t[$1 " " $2 " " $3] " " $5
		if (!($1 in seen)) {
			seen[$1] = 1
			sz[++ns] = $1
		}
	}
	END {
		w["list"] = "-L -n"; w["list-v"] = "-L -n -v"; w["rules"] = "-S"
		w["save"] = "save"; w["check"] = "-C FORWARD (last rule)"
		w["empty"] = "-L INPUT -n (empty chain)"
		print "| rules | command | nf-hipac [ms] | iptables-legacy [ms] | ratio | fastest: nf-hipac [ms] | iptables-legacy [ms] | ratio |"
		print "|---:|---|---:|---:|---:|---:|---:|---:|"
		nc = split(cmds, cm, " ")
		for (i = 1; i <= ns; i++)
			for (j = 1; j <= nc; j++) {
				h = t[sz[i] " " cm[j] " nf-hipac"]
				l = t[sz[i] " " cm[j] " iptables-legacy"]
				if (h == "" || l == "")
					continue
				printf "| %s | %s | %.0f | %.0f | %.2f | %.0f | %.0f | %.2f |\n",
				       sz[i], w[cm[j]], med(h), med(l),
				       med(h) / med(l), least(h), least(l),
				       least(h) / least(l)
			}
	}' "$1"
}

if [ -n "$table_of" ]; then
	table "$table_of"
	exit 0
fi

if [ "$guest" = 0 ]; then
	out=$top/build/list-latency
	rm -rf "$out"
	mkdir -p "$out"
	for n in $sizes; do
		case $n in
		kube:*) "$top/bench/kube.py" "${n#kube:}" ;;
		*) "$top/bench/seed.py" "$n" ;;
		esac > "$out/seed-$n.rules"
	done
	"$top/selftests/vm/run-vm.sh" --timeout 3600 --mem 2G --out "$out" \
		-- bench/kernel/list-latency.sh --guest -r "$rounds" $sizes
	table "$out/rows.txt" > "$out/table.md"
	res=$top/bench/results/kernel-list.md
	[ "$quick" = 1 ] && res=$out/kernel-list.md
	{
		echo "# Listing and -C against iptables-legacy"
		echo
		echo "Command: \`bench/kernel/list-latency.sh" \
		     "$([ "$quick" = 1 ] && echo "-q ")-r $rounds" \
		     "$sizes\` (make bench-commit)  "
		nfhp_bench_stamp
		echo
		echo "bench/seed.py's N rules loaded into nf-hipac and into" \
		     "iptables-legacy, then $rounds interleaved rounds of each" \
		     "command with each tool (after one untimed round); the" \
		     "times are the medians of the wall time of the whole" \
		     "process, output to /dev/null, then the fastest of the" \
		     "rounds (a run the busy host left alone), and the ratios" \
		     "are nf-hipac's over iptables-legacy's.  \"save\" is" \
		     "nf-hipac-save against iptables-legacy-save; -C looks" \
		     "for the last of the N rules (the chain's last but two);" \
		     "kube:N is bench/kube.py N, FORWARD jumping to N service" \
		     "chains of two rules, and -C looks for the last jump;" \
		     "-L INPUT -n lists an empty chain, the cost of starting" \
		     "and asking once.  TCG inflates every time several" \
		     "times over and drifts from boot to boot: the ratios" \
		     "are the result."
		echo
		cat "$out/table.md"
	} > "$res"
	cat "$res"
	exit 0
fi

nfhp_bench_guest
bin=$top/user/build

# run TOOL CMD - run CMD with TOOL (nf-hipac or iptables-legacy), output
# to /dev/null.
run()
{
	local tool=$1 cmd=$2 save=$bin/nf-hipac-save

	[ "$tool" = nf-hipac ] || save=iptables-legacy-save
	[ "$tool" = nf-hipac ] && tool=$bin/nf-hipac
	case $cmd in
	list) "$tool" -L -n ;;
	list-v) "$tool" -L -n -v ;;
	rules) "$tool" -S ;;
	save) "$save" ;;
	check) "$tool" -C FORWARD $check ;;
	empty) "$tool" -L INPUT -n ;;
	esac > /dev/null
}

# timed N CMD TOOL ROUND - run, and append a row "N CMD TOOL ROUND MS".
timed()
{
	local s e

	s=$EPOCHREALTIME
	if ! run "$3" "$2"; then
		echo "list-latency: $3 $2 failed at $1 rules" >&2
		exit 1
	fi
	e=$EPOCHREALTIME
	echo "$1 $2 $3 $4 $(awk -v s="$s" -v e="$e" \
		'BEGIN { printf "%.1f", (e - s) * 1000 }')" >> "$out/rows.txt"
}

: > "$out/rows.txt"
for n in $sizes; do
	"$bin/nf-hipac-restore" < "$out/seed-$n.rules"
	iptables-legacy-restore < "$out/seed-$n.rules"
	# The last rule of seed.py's N, before its two ACCEPT rules (the
	# last of those when N is 0); kube.py's last jump to a service.
	check=$(awk '/^-A FORWARD / { a = $0 } /^-A FORWARD .* -p / { r = $0 }
		     END { print r ? r : a }' "$out/seed-$n.rules" |
		cut -d' ' -f3-)
	for c in $cmds; do
		run nf-hipac "$c"
		run iptables-legacy "$c"
	done
	for r in $(seq "$rounds"); do
		for c in $cmds; do
			if [ $((r % 2)) = 1 ]; then
				timed "$n" "$c" nf-hipac "$r"
				timed "$n" "$c" iptables-legacy "$r"
			else
				timed "$n" "$c" iptables-legacy "$r"
				timed "$n" "$c" nf-hipac "$r"
			fi
		done
	done
	"$bin/nf-hipac-restore" <<< $'*filter\nCOMMIT'
	iptables-legacy-restore <<< $'*filter\nCOMMIT'
done
