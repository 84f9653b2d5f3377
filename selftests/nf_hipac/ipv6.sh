#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ipv6.sh - the IPv6 rule set (nf-hipac6, nf-hipac -6) on real packets.
#
# The topology of lib.sh, dual-stack: fd00:1::/64 between client and
# router, fd00:2::/64 between router and server.  Checked: ICMPv6, TCP and
# UDP over IPv6 get the verdicts of the rules; prefixes and "!"; counters
# grow by exactly the packets sent; neighbour discovery works behind an
# INPUT DROP policy with the usual ICMPv6 accept rule; the IPv4 and the
# IPv6 rule sets stay apart, in rules, listings and /proc; the kernel's
# xtables modules run IPv6 rules' other matches and targets (REJECT's
# IPv6 variant, limit, frag, ipv6header, iprange); 10,000 rules restored
# under traffic; a netns with rules in both families goes away cleanly.
# nfhp-timeout: 600

. "$(dirname "$0")/lib.sh"

nfhp_require_hipac
nfhp_require_cmd python3
nf_hipac_setup || { nfhp_log "FAIL: topology setup"; exit 1; }

nf_hipac_setup6 || { nfhp_log "FAIL: IPv6 setup"; exit 1; }

# r6 ARGS... - nf-hipac6 in the router; r4 the IPv4 nf-hipac there.
r6() { in_ns $ns_router "$NFHP_BIN/nf-hipac6" "$@"; }
r4() { in_ns $ns_router "$NFHP_BIN/nf-hipac" "$@"; }

ping6_ok() { in_ns "${1:-$ns_client}" $NFHP_PING -6 -q -c1 -W"$NFHP_WAIT" "${2:-$SERVER6}" >/dev/null 2>&1; }
ping6_fail() { ! ping6_ok "$@"; }

# conn6 PROTO PORT - client to server over IPv6; succeeds iff answered.
conn6() { nfhp_conn "$1" "$2" $ns_client $ns_server $SERVER6; }
conn6_fail() { ! conn6 "$@"; }

# pkts6 CHAIN NUM - the packet counter of rule NUM of CHAIN (IPv6).
pkts6()
{
	r6 -L "$1" -n -v -x | awk -v n="$2" 'NR == n + 2 { print $1 }'
}

# info6 LABEL - a figure of /proc/net/nf-hipac/info6.
info6()
{
	in_ns $ns_router cat /proc/net/nf-hipac/info6 |
		awk -v k="$1:" 'index($0, k) == 1 {
			$0 = substr($0, length(k) + 1); print $1; exit }'
}

nfhp_check "ping6 passes with no rules" ping6_ok
nfhp_check "ping (IPv4) passes with no rules" ping_ok

nfhp_check "-A FORWARD -p ipv6-icmp -j DROP" \
	r6 -A FORWARD -p ipv6-icmp -j DROP
nfhp_check "ping6 dropped" ping6_fail
nfhp_check "ping (IPv4) still passes: the families are apart" ping_ok
nfhp_check "the IPv4 rule set has no rule" \
	bash -c "[ -z \"\$(ip netns exec $ns_router '$NFHP_BIN/nf-hipac' -S FORWARD | grep -- -A)\" ]"
nfhp_check "-Z" r6 -Z FORWARD
in_ns $ns_client $NFHP_PING -6 -q -c3 -i0.2 -W1 $SERVER6 >/dev/null 2>&1
nfhp_check "three echo requests counted, no more" \
	[ "$(pkts6 FORWARD 1)" = 3 ]
nfhp_check "-D by rule" r6 -D FORWARD -p ipv6-icmp -j DROP
nfhp_check "ping6 passes again" ping6_ok

nfhp_check "-A FORWARD -s $CLIENT6/128 -p tcp --dport 8080 -j DROP" \
	r6 -A FORWARD -s $CLIENT6/128 -p tcp --dport 8080 -j DROP
nfhp_check "TCP/8080 over IPv6 dropped" conn6_fail tcp 8080
nfhp_check "TCP/8081 over IPv6 passes" conn6 tcp 8081
nfhp_check "IPv4 TCP/8080 passes" nfhp_conn tcp 8080
nfhp_check "-S prints it as ip6tables-save" \
	bash -c "ip netns exec $ns_router '$NFHP_BIN/nf-hipac6' -S FORWARD |
		 grep -qx -- '-A FORWARD -s $CLIENT6/128 -p tcp -m tcp --dport 8080 -j DROP'"
nfhp_check "nf-hipac -6 lists the same rule" \
	bash -c "ip netns exec $ns_router '$NFHP_BIN/nf-hipac' -6 -S FORWARD |
		 grep -qx -- '-A FORWARD -s $CLIENT6/128 -p tcp -m tcp --dport 8080 -j DROP'"
nfhp_check "-L -n shows the addresses, and no -f column" \
	bash -c "ip netns exec $ns_router '$NFHP_BIN/nf-hipac6' -L FORWARD -n |
		 grep -Eqx 'DROP +(6|tcp) +$CLIENT6 +::/0 +tcp dpt:8080 *'"
nfhp_check "-F FORWARD" r6 -F FORWARD

# A prefix, and "!" of one.
nfhp_check "-A FORWARD -d fd00:2::/64 -p udp --dport 5353 -j DROP" \
	r6 -A FORWARD -d fd00:2::/64 -p udp --dport 5353 -j DROP
nfhp_check "UDP/5353 into fd00:2::/64 dropped" conn6_fail udp 5353
nfhp_check "UDP/5354 passes" conn6 udp 5354
nfhp_check "-R 1 ! -d fd00:2::/64" \
	r6 -R FORWARD 1 ! -d fd00:2::/64 -p udp --dport 5353 -j DROP
nfhp_check "UDP/5353 into fd00:2::/64 passes under ! -d" conn6 udp 5353
nfhp_check "-F FORWARD" r6 -F FORWARD

# Neighbour discovery behind a DROP policy: the router's own INPUT.
nfhp_check "-P INPUT DROP, ICMPv6 accepted" \
	bash -c "ip netns exec $ns_router '$NFHP_BIN/nf-hipac6' -A INPUT -p ipv6-icmp -j ACCEPT &&
		 ip netns exec $ns_router '$NFHP_BIN/nf-hipac6' -P INPUT DROP"
ip -n $ns_client -6 neigh flush dev veth0
ip -n $ns_router -6 neigh flush dev veth0
nfhp_check "ping6 of the router, neighbours resolved anew" \
	ping6_ok $ns_client $ROUTER_CLIENT6
nfhp_check "TCP to the router dropped by the policy" \
	eval "! nfhp_conn tcp 22 $ns_client $ns_router $ROUTER_CLIENT6"
nfhp_check "-D the ICMPv6 accept" r6 -D INPUT 1
ip -n $ns_client -6 neigh flush dev veth0
ip -n $ns_router -6 neigh flush dev veth0
nfhp_check "without it, neither neighbour discovery nor ping6" \
	ping6_fail $ns_client $ROUTER_CLIENT6
nfhp_check "IPv4 ping of the router passes: INPUT DROP is IPv6's" \
	ping_ok $ns_client $ROUTER_CLIENT_IP
nfhp_check "-P INPUT ACCEPT" r6 -P INPUT ACCEPT

# The usual ip6tables INPUT: neighbour discovery and echo by ICMPv6 type.
nfhp_check "ND and echo accepted by type, policy DROP" \
	bash -c "ip netns exec $ns_router '$NFHP_BIN/nf-hipac6' -A INPUT -p ipv6-icmp --icmpv6-type neighbour-solicitation -j ACCEPT &&
		 ip netns exec $ns_router '$NFHP_BIN/nf-hipac6' -A INPUT -p ipv6-icmp --icmpv6-type neighbour-advertisement -j ACCEPT &&
		 ip netns exec $ns_router '$NFHP_BIN/nf-hipac6' -A INPUT -p ipv6-icmp --icmpv6-type echo-request -j ACCEPT &&
		 ip netns exec $ns_router '$NFHP_BIN/nf-hipac6' -P INPUT DROP"
ip -n $ns_client -6 neigh flush dev veth0
ip -n $ns_router -6 neigh flush dev veth0
nfhp_check "ping6 of the router through ND by type" \
	ping6_ok $ns_client $ROUTER_CLIENT6
nfhp_check "-L names the types as ip6tables does" \
	bash -c "ip netns exec $ns_router '$NFHP_BIN/nf-hipac6' -L INPUT |
		 grep -q 'ipv6-icmp neighbour-solicitation'"
nfhp_check "-S prints the type numbers" \
	bash -c "ip netns exec $ns_router '$NFHP_BIN/nf-hipac6' -S INPUT |
		 grep -qx -- '-A INPUT -p ipv6-icmp -m icmp6 --icmpv6-type 128 -j ACCEPT'"
nfhp_check "-D the echo-request rule" r6 -D INPUT 3
nfhp_check "ping6 of the router dropped, ND still answered" \
	ping6_fail $ns_client $ROUTER_CLIENT6
nfhp_check "the client resolved the router (an lladdr entry)" \
	bash -c "ip -n $ns_client -6 neigh show dev veth0 | grep -q '^$ROUTER_CLIENT6 .*lladdr'"
nfhp_check "-F INPUT, -P INPUT ACCEPT" \
	bash -c "ip netns exec $ns_router '$NFHP_BIN/nf-hipac6' -F INPUT &&
		 ip netns exec $ns_router '$NFHP_BIN/nf-hipac6' -P INPUT ACCEPT"

# refused6 PROTO PORT - the server listens, yet the request is refused.
refused6() { nfhp_refused "$1" "$2" $ns_client $ns_server $SERVER6; }

# A module that is not loaded is built in (the debug kernel's).
refcnt() { cat /sys/module/"$1"/refcnt 2>/dev/null || echo 0; }
held() { ! grep -q "^$1 " /proc/modules || [ "$(refcnt "$1")" -gt 0 ]; }
unheld() { ! grep -q "^$1 " /proc/modules || [ "$(refcnt "$1")" -eq 0 ]; }

# pings6 N [SIZE] - how many of N single ping6s of SIZE bytes are answered.
pings6()
{
	local i n=0

	for i in $(seq "$1"); do
		in_ns $ns_client $NFHP_PING -6 -q -c1 -s "${2:-56}" \
			-W"$NFHP_WAIT" $SERVER6 >/dev/null 2>&1 && n=$((n + 1))
	done
	echo $n
}

# The xtables fallback, IPv6 variants: REJECT answers with ICMPv6.
nfhp_check "REJECT --reject-with tcp-reset for TCP/8080" \
	r6 -A FORWARD -p tcp --dport 8080 -j REJECT --reject-with tcp-reset
nfhp_check "TCP/8080 over IPv6 is reset" refused6 tcp 8080
nfhp_check "REJECT (icmp6-port-unreachable) for UDP/5353" \
	r6 -I FORWARD 1 -p udp --dport 5353 -j REJECT
nfhp_check "UDP/5353 gets port unreachable" refused6 udp 5353
nfhp_check "TCP/8081 passes" conn6 tcp 8081
nfhp_check "-S prints REJECT as ip6tables-save" \
	bash -c "ip netns exec $ns_router '$NFHP_BIN/nf-hipac6' -S FORWARD |
		 grep -qx -- '-A FORWARD -p udp -m udp --dport 5353 -j REJECT --reject-with icmp6-port-unreachable'"
nfhp_check "-L shows IPv6's reject type" \
	bash -c "ip netns exec $ns_router '$NFHP_BIN/nf-hipac6' -L FORWARD -n |
		 grep -q 'reject-with icmp6-port-unreachable'"
nfhp_check "the IPv6 REJECT module is held" held ip6t_REJECT
nfhp_check "-F FORWARD" r6 -F FORWARD
nfhp_check "flush lets ip6t_REJECT go" unheld ip6t_REJECT
nfhp_check "TCP/8080 passes again" conn6 tcp 8080

# Echo requests only: the replies cross FORWARD too.
nfhp_check "limit 2 then DROP" \
	bash -c "ip netns exec $ns_router '$NFHP_BIN/nf-hipac6' -A FORWARD -p ipv6-icmp --icmpv6-type echo-request -m limit --limit 1/hour --limit-burst 2 -j ACCEPT &&
		 ip netns exec $ns_router '$NFHP_BIN/nf-hipac6' -A FORWARD -p ipv6-icmp --icmpv6-type echo-request -j DROP"
n=$(pings6 5)
nfhp_check "2 of 5 ping6s pass the limit ($n)" test "$n" -eq 2
nfhp_check "-F FORWARD" r6 -F FORWARD

# Fragments: a 3,000-byte echo request leaves the client in three.
nfhp_check "-A FORWARD -m ipv6header --header ipv6-frag --soft -j DROP" \
	r6 -A FORWARD -m ipv6header --header ipv6-frag --soft -j DROP
nfhp_check "ipv6header: 100 bytes pass" test "$(pings6 1 100)" = 1
nfhp_check "ipv6header: 3,000 bytes dropped" test "$(pings6 1 3000)" = 0
# ip6t_frag is a module of Debian's kernel; the debug kernel has none
# (selftests/debug/debug.config), and ip6tables could not load it either.
if modinfo ip6t_frag >/dev/null 2>&1 || [ -d /sys/module/ip6t_frag ]; then
	nfhp_check "-R 1 -m frag --fragmore -j DROP" \
		r6 -R FORWARD 1 -m frag --fragmore -j DROP
	nfhp_check "frag: 100 bytes pass" test "$(pings6 1 100)" = 1
	nfhp_check "frag: 3,000 bytes lose their first fragments" \
		test "$(pings6 1 3000)" = 0
else
	nfhp_log "SKIP: -m frag: this kernel has no ip6t_frag"
fi
nfhp_check "-D 1: 3,000 bytes pass" \
	bash -c "ip netns exec $ns_router '$NFHP_BIN/nf-hipac6' -D FORWARD 1 &&
		 [ \"\$(ip netns exec $ns_router '$NFHP_BIN/nf-hipac6' -S FORWARD | grep -c -- -A)\" = 0 ]"
nfhp_check "a ping6 of 3,000 bytes passes" test "$(pings6 1 3000)" = 1

# An address range of IPv6's iprange.
nfhp_check "-m iprange --src-range $CLIENT6-fd00:1::9" \
	r6 -A FORWARD -p udp --dport 5353 -m iprange --src-range $CLIENT6-fd00:1::9 -j DROP
nfhp_check "UDP/5353 from the range dropped" conn6_fail udp 5353
nfhp_check "-R 1 with a range past the client" \
	r6 -R FORWARD 1 -p udp --dport 5353 -m iprange --src-range fd00:1::3-fd00:1::9 -j DROP
nfhp_check "UDP/5353 passes" conn6 udp 5353
nfhp_check "-F FORWARD" r6 -F FORWARD

# The hop limit.
nfhp_check "-A FORWARD -p ipv6-icmp -m hl --hl-lt 10 -j DROP" \
	r6 -A FORWARD -p ipv6-icmp -m hl --hl-lt 10 -j DROP
nfhp_check "ping6 with hop limit 64 passes" ping6_ok
nfhp_check "ping6 with hop limit 5 dropped" \
	bash -c "! ip netns exec $ns_client $NFHP_PING -6 -q -c1 -t5 -W$NFHP_WAIT $SERVER6 >/dev/null 2>&1"
nfhp_check "-F FORWARD" r6 -F FORWARD

# /proc: each family's figures.
nfhp_check "an IPv4 rule" r4 -A FORWARD -s 10.9.0.0/16 -j DROP
nfhp_check "two IPv6 rules" \
	bash -c "ip netns exec $ns_router '$NFHP_BIN/nf-hipac6' -A FORWARD -s fd00:9::/48 -j DROP &&
		 ip netns exec $ns_router '$NFHP_BIN/nf-hipac6' -A FORWARD -s fd00:9::/48 -j DROP"
nfhp_check "info: IPv4 counts 1 rule" \
	bash -c "ip netns exec $ns_router cat /proc/net/nf-hipac/info |
		 awk '/^total number of rules:/ { print \$5 }' | grep -qx 1"
nfhp_check "info6: IPv6 counts 2 rules" [ "$(info6 "total number of rules")" = 2 ]
nfhp_check "info6: its commits counted" [ "$(info6 "commits")" -ge 2 ]
nfhp_check "info6: a bound of its own" \
	bash -c "ip netns exec $ns_router sh -c 'echo 64 > /proc/net/nf-hipac/info6' &&
		 ip netns exec $ns_router cat /proc/net/nf-hipac/info6 |
		 awk '/^maximum memory bound:/ { print \$4 }' | grep -qx $((64 << 20)) &&
		 ! ip netns exec $ns_router cat /proc/net/nf-hipac/info |
		 awk '/^maximum memory bound:/ { print \$4 }' | grep -qx $((64 << 20))"
nfhp_check "statistics/forward6 has the IPv6 trees" \
	bash -c "ip netns exec $ns_router cat /proc/net/nf-hipac/statistics/forward6 |
		 grep -qx 'root chain: FORWARD (IPv6)'"
nfhp_check "statistics/forward6 counts 2 rules and the policy" \
	bash -c "ip netns exec $ns_router cat /proc/net/nf-hipac/statistics/forward6 |
		 awk '/^number of rules:/ { print \$4 }' | grep -qx 3"
nfhp_check "statistics/forward keeps IPv4's alone" \
	bash -c "! ip netns exec $ns_router cat /proc/net/nf-hipac/statistics/forward |
		 grep -q IPv6"
nfhp_check "statistics/shadowed: the IPv6 twin" \
	bash -c "ip netns exec $ns_router cat /proc/net/nf-hipac/statistics/shadowed |
		 grep -qx 'FORWARD 2 ipv6'"

# Save and restore of the IPv6 rule set, apart from the IPv4 one.
save6() { in_ns $ns_router "$NFHP_BIN/nf-hipac6-save"; }
restore6() { in_ns $ns_router "$NFHP_BIN/nf-hipac6-restore" "$@"; }
rules6=$(mktemp)
cat > "$rules6" <<EOF6
*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
:web - [0:0]
-A FORWARD -d fd00:2::/64 -p tcp -j web
-A FORWARD -s fd00:1::2/128 -p udp -m udp --dport 5353 -j DROP
-A web -p tcp -m tcp --dport 8080 -j DROP
-A web -j RETURN
COMMIT
EOF6
nfhp_check "nf-hipac6-restore" restore6 "$rules6"
# (The guest has no /dev/fd: no process substitution.)
grep -- '^-A' "$rules6" > "$rules6.want"
save6 | grep -- '^-A' > "$rules6.got"
nfhp_check "nf-hipac6-save prints the rules back as written" \
	diff "$rules6.want" "$rules6.got"
nfhp_check "the IPv4 rule survives the IPv6 restore" \
	bash -c "ip netns exec $ns_router '$NFHP_BIN/nf-hipac-save' |
		 grep -qx -- '-A FORWARD -s 10.9.0.0/16 -j DROP'"
nfhp_check "and nf-hipac-save shows no IPv6 rule" \
	bash -c "! ip netns exec $ns_router '$NFHP_BIN/nf-hipac-save' | grep -q fd00"
nfhp_check "TCP/8080 over IPv6 dropped in the user chain" conn6_fail tcp 8080
nfhp_check "TCP/8081 returns and passes" conn6 tcp 8081
nfhp_check "UDP/5353 from the client dropped" conn6_fail udp 5353
before=$(in_ns $ns_router "$NFHP_BIN/nf-hipac6-save" | grep -- '^-A')
printf '*filter\n-A FORWARD -j DROP\n-A FORWARD -s 10.0.0.1 -j DROP\nCOMMIT\n' > "$rules6"
nfhp_check "a restore with an IPv4 address fails (exit 2)" \
	bash -c "ip netns exec $ns_router '$NFHP_BIN/nf-hipac6-restore' '$rules6' 2>/dev/null; [ \$? = 2 ]"
nfhp_check "and leaves the IPv6 rules as they were" \
	[ "$(in_ns $ns_router "$NFHP_BIN/nf-hipac6-save" | grep -- '^-A')" = "$before" ]

# 10,000 IPv6 rules restored at once while ping6 runs: the allowed flow
# never stops, and the new rules hold after.
{
	echo "*filter"
	echo ":FORWARD ACCEPT [0:0]"
	for i in $(seq 0 9999); do
		printf -- '-A FORWARD -s fd00:%x:%x::/48 -p tcp -m tcp --dport %d -j DROP\n' \
			$((100 + i / 1000)) $((i % 1000)) $((1000 + i % 50))
	done
	echo "-A FORWARD -d fd00:2::2/128 -p udp -m udp --dport 6000 -j DROP"
	echo "COMMIT"
} > "$rules6"
in_ns $ns_client $NFHP_PING -6 -q -i0.1 -c100 -W1 $SERVER6 > "$rules6.ping" 2>&1 &
ping_pid=$!
nfhp_check "restore of 10,001 IPv6 rules under traffic" restore6 "$rules6"
wait $ping_pid
nfhp_check "ping6 lost nothing across the restore" \
	grep -q ' 0% packet loss' "$rules6.ping"
nfhp_check "info6 counts the 10,001 rules (the user chain is gone)" \
	[ "$(info6 "total number of rules")" = 10001 ]
nfhp_check "the last of them drops UDP/6000" conn6_fail udp 6000
nfhp_check "UDP/6001 passes" conn6 udp 6001
rm -f "$rules6" "$rules6".*

# A namespace with rules in both families goes; the module unloads
# after the test (run_tests.sh).
nfhp_check "the router's namespace, rules in both, deleted" \
	nfhp_netns_destroy $ns_router

exit $nfhp_rc
