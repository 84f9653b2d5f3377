#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# iptables_diff6.sh - nf-hipac6 against the real ip6tables, packet for
# packet: iptables_diff.sh for IPv6.
#
# The routers of diff/topo.sh made dual-stack: A runs each rule set in
# ip6tables-legacy, B the same text loaded with nf-hipac6-restore.  The
# tester sends the same raw IPv6 frames through both and compares what
# arrives behind each router, frame by frame (filed under the flow
# label), and every rule and policy counter (ip6tables-legacy-save -c
# against nf-hipac6-save -c).  Frames the routers send to multicast MACs
# (DAD, MLD) are not compared.
#
# The rule sets use what nf-hipac6 evaluates natively (diff/gen.py,
# gen_rule6): -s/-d prefixes /0../128 and !, -i/-o with + and !, -p by
# name and number (also 44 and 60, which ip6tables' -p never sees) and !,
# tcp/udp ports and ranges, multiport, --tcp-flags/--syn, icmp6 types,
# codes and names, hl, length, mark, state or conntrack, ACCEPT, DROP,
# RETURN, -j and -g into user chains, either FORWARD policy.  Forms
# ip6tables takes and nf-hipac6 refuses are probed once and listed
# (REFUSED6 in diff/driver.py).  Packets: TCP with every kind of flags,
# UDP, ICMPv6 types and codes, hop limits, lengths, marks and NOTRACK
# (from the traffic class, as in IPv4), NEW/ESTABLISHED/RELATED/INVALID/
# UNTRACKED flows, extension headers (hop-by-hop, destination options,
# routing type 0 with no segments left) before the upper layer, first,
# later and atomic fragments and truncated transport headers.  Rule sets:
# the control sets, diff/corpus6/*.rules (with their "# packet:" lines),
# the university firewall of diff/real-world/, NFHP_DIFF6_RULESETS random
# ones and the ClassBench 1k sets, probed with their traces (skipped when
# NFHP_DIFF_CLASSBENCH_DIR is absent).
#
# The firewall and the ClassBench sets are iptables_diff.sh's, made IPv6
# by bench/ipv4to6.py: a.b.c.d/p becomes its 32 bits after fd00::/24 as
# /(24 + p) (131.159.20.0/24 is fd00:83:9f14::/48), -p icmp becomes
# -p ipv6-icmp; their packets, the firewall's routes and hosts are mapped alike, and
# topo.sh routes the images of 10.1/16, 10.2/16 and 10.3/16 as IPv4 does
# the originals.  ip6tables refuses the firewall's REJECT
# --reject-with icmp-port-unreachable (17 rules): diff/realworld.py makes
# it icmp6-port-unreachable, and would drop rules of IPv4-only forms
# (-f, -m realm, ...; it has none); the driver prints what it changed and
# dropped.  The firewall keeps everything else (mac, recent, limit, sctp,
# LOG), adapted as in iptables_diff.sh.  ClassBench's "-p 1" stays
# protocol 1 (ipv4to6.py renames -p icmp only), and so do its ICMP trace
# packets; trace packets of protocol 0 (in IPv6 a hop-by-hop header) get
# one that can be walked (gen.trace_packets()).  Trace addresses IPv4
# leaves out as martians (224/4, 127/8) are ordinary ones in fd00::/24
# and are sent.
#
# Packets whose extension headers cannot be walked (a destination options
# header longer than the packet, a later fragment followed by another
# extension header) are left out unless NFHP_DIFF6_UNWALKABLE=1:
# ip6tables drops them only in a rule with -p (ip6_packet_match() sets
# hotdrop there) and lets rules without -p and the policies see them,
# while nf-hipac6 drops them before any rule (kernel/hooks.c), so they
# differ in most rule sets.
#
#   NFHP_DIFF6_RULESETS=N  random rule sets (default 30)
#   NFHP_DIFF6_PACKETS=N   packets per random rule set (default 80)
#   NFHP_DIFF6_LONG=1      300 rule sets of 150 packets, every ClassBench
#                          set with 1000 trace packets
#   NFHP_DIFF_CB_SETS=a,b  ClassBench sets (default acl1_1k,fw1_1k; "all")
#   NFHP_DIFF_TRACE=N      trace packets per ClassBench set (default 200)
#   NFHP_DIFF_REAL_WORLD=0 leave the university firewall out
#   NFHP_DIFF_RW_PACKETS=N its packets (default 600, and a quarter more
#                          of diff/gen.py's probes on its values)
#   NFHP_DIFF_CLASSBENCH_DIR  where the ClassBench sets are
#   NFHP_DIFF6_UNWALKABLE=1  send unwalkable headers too (see above)
#   NFHP_DIFF6_XT=0        random rule sets without xtables extensions
#                          (by default, 1, some rules have REJECT, LOG,
#                          limit, frag, ipv6header...: gen.XT6)
#   NFHP_DIFF_SEED, NFHP_DIFF_ONLY, NFHP_DIFF_NO_ODD, NFHP_DIFF_HOTDROP,
#   NFHP_DIFF_DUMP, NFHP_DIFF_REDUCE, NFHP_DIFF_VERBOSE,
#   NFHP_DIFF_REPORTS      as in iptables_diff.sh (so are the NFHP_DIFF_
#                          knobs above: one variable for both scripts)
#
# nfhp-timeout: 600

source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/diff/topo.sh"

nfhp_require_hipac
nfhp_require_cmd python3 iptables-legacy-restore ip6tables-legacy-restore \
	ip6tables-legacy-save
[ "$(id -u)" -eq 0 ] || nfhp_skip "must run as root"

for m in iptable_mangle iptable_raw ip6table_filter ip6table_mangle \
	 ip6table_raw xt_tos xt_dscp xt_MARK xt_CT nf_conntrack_netlink \
	 xt_multiport xt_state xt_conntrack xt_hl xt_length xt_mark \
	 xt_comment ip6t_REJECT xt_LOG xt_NFLOG xt_limit xt_statistic \
	 xt_string xt_pkttype xt_addrtype xt_u32 ip6t_frag ip6t_ipv6header \
	 xt_mac xt_recent xt_sctp; do
	modprobe "$m" 2>/dev/null
done

if [ "${NFHP_DIFF6_LONG:-0}" = 1 ]; then
	rulesets=${NFHP_DIFF6_RULESETS:-300}
	packets=${NFHP_DIFF6_PACKETS:-150}
	cb_sets=${NFHP_DIFF_CB_SETS:-all}
	trace=${NFHP_DIFF_TRACE:-1000}
else
	rulesets=${NFHP_DIFF6_RULESETS:-30}
	packets=${NFHP_DIFF6_PACKETS:-80}
	cb_sets=${NFHP_DIFF_CB_SETS:-acl1_1k,fw1_1k}
	trace=${NFHP_DIFF_TRACE:-200}
fi
[ "$cb_sets" != all ] || cb_sets=

# The routers set marks in ip6tables' mangle table and NOTRACK in its raw
# one; the debug kernel has neither (selftests/debug/debug.config).
for t in mangle raw; do
	ip6tables-legacy -t $t -S >/dev/null 2>&1 ||
		nfhp_skip "this kernel has no ip6tables $t table"
done
diff_topo_setup 6 || { nfhp_log "FAIL: topology setup"; exit 1; }

# A private copy of the tools on tmpfs (see iptables_diff.sh).
diff_tmp=$(mktemp -d /tmp/nfhp-diff6.XXXXXX)
cp "$NFHP_BIN/nf-hipac" "$diff_tmp/" &&
ln -s nf-hipac "$diff_tmp/nf-hipac6-restore" &&
ln -s nf-hipac "$diff_tmp/nf-hipac6-save" ||
	{ nfhp_log "FAIL: cannot copy $NFHP_BIN/nf-hipac"; exit 1; }

dir=$(cd "$(dirname "$0")" && pwd)/diff
args=(--family 6 --ns-a $diff_ns_a --ns-b $diff_ns_b --bin "$diff_tmp"
      --seed "${NFHP_DIFF_SEED:-1}" --random "$rulesets"
      --packets "$packets" --corpus "$dir/corpus6"
      --classbench "${NFHP_DIFF_CLASSBENCH_DIR:-/work/shared/classbench-data/lyxocs-ruleSet}"
      --classbench-sets "$cb_sets" --trace-packets "$trace")
[ "${NFHP_DIFF_REAL_WORLD:-1}" = 0 ] ||
	args+=(--real-world "$dir/real-world/real-world-2784.rules"
	       --real-world-packets "${NFHP_DIFF_RW_PACKETS:-600}")
[ -z "${NFHP_DIFF_ONLY:-}" ] || args+=(--only "$NFHP_DIFF_ONLY")
[ "${NFHP_DIFF_NO_ODD:-0}" = 0 ] || args+=(--no-odd)
[ "${NFHP_DIFF_HOTDROP:-1}" = 1 ] || args+=(--no-hotdrop)
[ "${NFHP_DIFF6_UNWALKABLE:-0}" = 0 ] || args+=(--unwalkable)
[ "${NFHP_DIFF6_XT:-1}" = 0 ] || args+=(--xt6)
# The debug kernel has no ip6t_frag (selftests/debug/debug.config).
modinfo ip6t_frag >/dev/null 2>&1 || [ -d /sys/module/ip6t_frag ] ||
	args+=(--xt6-no-frag)
[ -z "${NFHP_DIFF_DUMP:-}" ] || args+=(--dump "$NFHP_DIFF_DUMP")
[ "${NFHP_DIFF_VERBOSE:-0}" = 0 ] || args+=(--verbose)
[ "${NFHP_DIFF_REDUCE:-0}" = 0 ] || args+=(--reduce)
[ -z "${NFHP_DIFF_REPORTS:-}" ] || args+=(--max-reports "$NFHP_DIFF_REPORTS")

ip netns exec $diff_ns_t python3 "$dir/driver.py" "${args[@]}"
rc=$?
[ $rc -eq 0 ] && nfhp_log "ok: ip6tables and nf-hipac6 agree" ||
	nfhp_log "FAIL: ip6tables and nf-hipac6 disagree (exit $rc)"
exit $rc
