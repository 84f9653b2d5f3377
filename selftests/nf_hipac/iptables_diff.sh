#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# iptables_diff.sh - nf-hipac against the real iptables, packet for packet.
#
# Two identical routers (diff/topo.sh): A runs each rule set in
# iptables-legacy, B the same text loaded with nf-hipac-restore.  A tester
# namespace sends the same raw frames through both (TCP with every kind of
# flags, UDP, ICMP types and codes, fragments, truncated headers, TTL,
# length and mark variants, NEW/ESTABLISHED/RELATED/INVALID/UNTRACKED
# flows, on four input interfaces) and compares what arrives behind each
# router, frame by frame, and every rule and policy counter.  Any
# difference prints the rule set, the packet and both outcomes, and fails.
# iptables_diff6.sh is the IPv6 run (ip6tables-legacy against nf-hipac6).
#
# Rule sets: the control sets (traffic must pass, then die), the corpus
# in diff/corpus/*.rules, the university firewall of diff/real-world/
# (2,784 rules in 60 chains, with mac, recent, limit, sctp, LOG and
# REJECT), NFHP_DIFF_RULESETS random ones (diff/gen.py), and the
# ClassBench 1k sets converted by bench/classbench2ipt.py, probed with
# their traces (skipped when NFHP_DIFF_CLASSBENCH_DIR is absent).
#
# The firewall names its own interfaces and the MACs of its hosts:
# diff/realworld.py renames four of its vlans to the routers' interfaces
# and routes their nets there, and sends frames from its hosts with the
# MACs its mac chains expect (or others), so that packets meet its user
# chains; the test fails if they did not (iptables' counters).  The other
# vlans' chains are loaded but no packet reaches them: four interfaces
# are what the topology has.  LOG writes nothing from a network namespace
# (nf_log_all_netns is 0); its rules' counters are compared.  Its
# "-m limit --limit 100/min" becomes "--limit 1/hour --limit-burst 3":
# the two routers see a frame microseconds apart, and a refill of the
# rate between them would make them differ; with no refill during the
# test both match the first three packets of each limit rule (how often
# the match runs is compared, the rate is not).  -m recent's windows (60
# and 360 s) outlast the test, and its hits come from the same frames in
# the same order in both routers.
#
#   NFHP_DIFF_RULESETS=N   random rule sets (default 50)
#   NFHP_DIFF_PACKETS=N    packets per random rule set (default 80)
#   NFHP_DIFF_SEED=N       generator seed (default 1)
#   NFHP_DIFF_ONLY=I       only random rule set I (to reproduce one)
#   NFHP_DIFF_CB_SETS=a,b  ClassBench sets (default acl1_1k,fw1_1k; "all")
#   NFHP_DIFF_TRACE=N      trace packets per ClassBench set (default 200)
#   NFHP_DIFF_REAL_WORLD=0 leave the university firewall out
#   NFHP_DIFF_RW_PACKETS=N its packets (default 600, and a quarter more
#                          of diff/gen.py's probes on its values)
#   NFHP_DIFF_NO_ODD=1     no fragments/truncated headers/bad checksums
#   NFHP_DIFF_HOTDROP=0    no packets that iptables' tcp/udp/icmp/multiport
#                          matches drop outright (truncated transport
#                          headers, TCP fragments at offset 8); by default
#                          (1) they are sent too
#   NFHP_DIFF_LONG=1       the long run: 300 rule sets, 150 packets each,
#                          every ClassBench set with 1000 trace packets
#   NFHP_DIFF_DUMP=DIR     write each random rule set to DIR
#   NFHP_DIFF_REDUCE=1     shrink the packets of a mismatching random rule
#                          set to a minimal list (with NFHP_DIFF_ONLY)
#   NFHP_DIFF_VERBOSE=1    print iptables' counters after every rule set
#   NFHP_DIFF_REPORTS=N    rule sets whose mismatches are shown in full
#                          (default 8; the rest are one line each)
#
# nfhp-timeout: 800

source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/diff/topo.sh"

nfhp_require_hipac
nfhp_require_cmd python3 iptables-legacy-restore iptables-legacy-save
[ "$(id -u)" -eq 0 ] || nfhp_skip "must run as root"

# The xtables modules the routers use; conntrack netlink for the flush.
for m in iptable_filter iptable_mangle iptable_raw xt_tos xt_MARK xt_CT \
	 nf_conntrack_netlink xt_mac xt_recent xt_limit xt_LOG ipt_REJECT \
	 xt_sctp xt_multiport xt_state; do
	modprobe "$m" 2>/dev/null
done

if [ "${NFHP_DIFF_LONG:-0}" = 1 ]; then
	rulesets=${NFHP_DIFF_RULESETS:-300}
	packets=${NFHP_DIFF_PACKETS:-150}
	cb_sets=${NFHP_DIFF_CB_SETS:-all}
	trace=${NFHP_DIFF_TRACE:-1000}
else
	rulesets=${NFHP_DIFF_RULESETS:-50}
	packets=${NFHP_DIFF_PACKETS:-80}
	cb_sets=${NFHP_DIFF_CB_SETS:-acl1_1k,fw1_1k}
	trace=${NFHP_DIFF_TRACE:-200}
fi
[ "$cb_sets" != all ] || cb_sets=

diff_topo_setup || { nfhp_log "FAIL: topology setup"; exit 1; }

# A private copy of the tools on tmpfs: the repository's user/build may be
# rebuilt while the test runs, and exec over 9p is slow.
diff_tmp=$(mktemp -d /tmp/nfhp-diff.XXXXXX)
cp "$NFHP_BIN/nf-hipac" "$diff_tmp/" &&
ln -s nf-hipac "$diff_tmp/nf-hipac-restore" &&
ln -s nf-hipac "$diff_tmp/nf-hipac-save" ||
	{ nfhp_log "FAIL: cannot copy $NFHP_BIN/nf-hipac"; exit 1; }

dir=$(cd "$(dirname "$0")" && pwd)/diff
args=(--ns-a $diff_ns_a --ns-b $diff_ns_b --bin "$diff_tmp"
      --seed "${NFHP_DIFF_SEED:-1}" --random "$rulesets"
      --packets "$packets" --corpus "$dir/corpus"
      --classbench "${NFHP_DIFF_CLASSBENCH_DIR:-/work/shared/classbench-data/lyxocs-ruleSet}"
      --classbench-sets "$cb_sets" --trace-packets "$trace")
[ "${NFHP_DIFF_REAL_WORLD:-1}" = 0 ] ||
	args+=(--real-world "$dir/real-world/real-world-2784.rules"
	       --real-world-packets "${NFHP_DIFF_RW_PACKETS:-600}")
[ -z "${NFHP_DIFF_ONLY:-}" ] || args+=(--only "$NFHP_DIFF_ONLY")
[ "${NFHP_DIFF_NO_ODD:-0}" = 0 ] || args+=(--no-odd)
[ "${NFHP_DIFF_HOTDROP:-1}" = 1 ] || args+=(--no-hotdrop)
[ -z "${NFHP_DIFF_DUMP:-}" ] || args+=(--dump "$NFHP_DIFF_DUMP")
[ "${NFHP_DIFF_VERBOSE:-0}" = 0 ] || args+=(--verbose)
[ "${NFHP_DIFF_REDUCE:-0}" = 0 ] || args+=(--reduce)
[ -z "${NFHP_DIFF_REPORTS:-}" ] || args+=(--max-reports "$NFHP_DIFF_REPORTS")

ip netns exec $diff_ns_t python3 "$dir/driver.py" "${args[@]}"
rc=$?
[ $rc -eq 0 ] && nfhp_log "ok: iptables and nf-hipac agree" ||
	nfhp_log "FAIL: iptables and nf-hipac disagree (exit $rc)"
exit $rc
