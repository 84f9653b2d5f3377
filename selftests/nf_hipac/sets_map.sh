#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sets_map.sh - a verdict map of a named set: one rule per value, one
# lookup per packet, on real packets.
#
# The topology of lib.sh.  The router's FORWARD maps the value of the
# client's entry in the set "map" to a verdict with four rules
# ("--set-value 1 -j ACCEPT" ... "--set-value 4 -j ACCEPT", 3 drops),
# then drops what none of them took, in a rule of its own that counts
# what fell through.  Checks:
#   - the entry's value picks the verdict, and a new value changes it at
#     once, with no commit;
#   - a packet that reaches the four rules looks the set up once
#     (/proc/net/nf-hipac/sets counts the lookups), and the set's
#     counters count it at each rule, as ipset counts in iptables-legacy
#     (compared with the real ipset in the server's INPUT when there);
#   - while the value flips between 1 and 2 as fast as adds go
#     (tools/nl_set_flip.py), every datagram meets rule 1 or rule 2:
#     none falls through to the drop.
# nfhp-timeout: 300

. "$(dirname "$0")/lib.sh"

nfhp_require_hipac
nfhp_require_cmd python3
nf_hipac_setup || { nfhp_log "FAIL: topology setup"; exit 1; }
tmp=$(mktemp -d /tmp/nfhp-setmap.XXXXXX)
trap 'nfhp_cleanup; rm -rf $tmp' EXIT

IN=$ROUTER_CLIENT_IF
# lookups SET - the lookups /proc/net/nf-hipac/sets counts for SET.
lookups() { in_ns $ns_router awk -v s="$1" '$1 == s { print $8 }' /proc/net/nf-hipac/sets; }
# pkts NUM - the packet counter of FORWARD's rule NUM.
pkts() { r4 -L FORWARD -n -v -x | awk -v n="$1" 'NR == n + 2 { print $1 }'; }
# member KEY - KEY's line in the listing of "map".
member() { S list map | grep "^$1 "; }
# value V - the client's entry takes value V.
value() { S add map $CLIENT_IP value "$1" -exist; }

# send N - N datagrams of 100 bytes of payload from the client to the
# server's udp/9999 (the server has no socket there: nothing comes back
# through the map).
sender='
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(int(sys.argv[2])):
    s.sendto(b"x" * 100, (sys.argv[1], 9999))
'
send() { in_ns $ns_client python3 -c "$sender" $SERVER_IP "$1"; }

nfhp_check "create map hash:ip counters; the client with value 4" bash -c "
	ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' create map hash:ip counters &&
	ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' add map $CLIENT_IP value 4"
map_rules()
{
	r4 -A FORWARD -i $IN -p udp -m set --match-set map src --set-value 1 -j ACCEPT &&
	r4 -A FORWARD -i $IN -p udp -m set --match-set map src --set-value 2 -j ACCEPT &&
	r4 -A FORWARD -i $IN -p udp -m set --match-set map src --set-value 3 -j DROP &&
	r4 -A FORWARD -i $IN -p udp -m set --match-set map src --set-value 4 -j ACCEPT &&
	r4 -A FORWARD -i $IN -p udp -j DROP
}
nfhp_check "FORWARD: values 1, 2 and 4 accept, 3 drops, then a drop" map_rules

nfhp_check "value 4: udp passes" udp_ok 7000
nfhp_check "value 3" value 3
nfhp_check "  udp dropped, with no commit" udp_fail 7000
nfhp_check "value 1" value 1
nfhp_check "  udp passes" udp_ok 7000
nfhp_check "value 5" value 5
nfhp_check "  none of the map: the last rule drops udp" udp_fail 7000

# One lookup for the four rules; four counts, as ipset's.
have_ipset=
if command -v ipset >/dev/null 2>&1 &&
   command -v iptables-legacy >/dev/null 2>&1 &&
   in_ns $ns_server ipset create ipc hash:ip counters 2>/dev/null &&
   in_ns $ns_server ipset add ipc $CLIENT_IP; then
	have_ipset=1
	for i in 1 2 3; do
		in_ns $ns_server iptables-legacy -A INPUT -p udp \
			-m set --match-set ipc src
	done
	in_ns $ns_server iptables-legacy -A INPUT -p udp \
		-m set --match-set ipc src -j DROP
fi
nfhp_check "value 4, counts zeroed (flush, add, -Z)" bash -c "
	ip netns exec $ns_router '$NFHP_BIN/nf-hipac' -Z FORWARD &&
	ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' flush map &&
	ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' add map $CLIENT_IP value 4"
[ -n "$have_ipset" ] && in_ns $ns_server iptables-legacy -Z INPUT
before=$(lookups map)
nfhp_check "200 datagrams" send 200
after=$(lookups map)
nfhp_check "  one lookup each: $before -> $after" \
	[ "$((after - before))" = 200 ]
nfhp_check "  rule 4 took them all" [ "$(pkts 4)" = 200 ]
# 100 bytes of payload, 8 of UDP, 20 of IPv4: 128 bytes a packet.
nfhp_check "  counted at each of the 4 rules: packets 800 bytes 102400" \
	[ "$(member $CLIENT_IP)" = "$CLIENT_IP value 4 packets 800 bytes 102400" ] ||
	nfhp_log "  $(member $CLIENT_IP)"
if [ -n "$have_ipset" ]; then
	nfhp_check "  ipset counts the same in 4 rules of iptables-legacy" \
		bash -c "ip netns exec $ns_server ipset list ipc |
			 grep -qx '$CLIENT_IP packets 800 bytes 102400'" ||
		in_ns $ns_server ipset list ipc | nfhp_log "$(cat)"
else
	nfhp_log "  (no ipset or iptables-legacy: no comparison)"
fi

# The value flips while datagrams go: each meets one map rule.
# tools/nl_set_flip.py sends an add of its own for each flip, as fast as
# the kernel acks them (a restore would be one transaction: one change).
flip=$(dirname "$0")/tools/nl_set_flip.py
nfhp_check "-Z FORWARD" r4 -Z FORWARD
nfhp_check "value 1" value 1
in_ns $ns_router python3 "$flip" map $CLIENT_IP $tmp/stop 1 2 \
	> $tmp/flips 2>&1 &
flipper=$!
for i in $(seq "$(nfhp_scaled 60)"); do
	grep -q flipping $tmp/flips && break
	sleep 0.5
done
nfhp_check "20,000 datagrams while the value flips" send 20000
touch $tmp/stop
wait $flipper
flip_rc=$?
flips=$(tail -n 1 $tmp/flips)
one=$(pkts 1) two=$(pkts 2) fell=$(pkts 5)
nfhp_log "  $flips flips; rule 1 took $one, rule 2 $two, fell through $fell"
nfhp_check "  the flips ran: $flips" [ "$flip_rc" = 0 -a "${flips:-0}" -gt 100 ]
nfhp_check "  both values were seen" [ "${one:-0}" -gt 0 -a "${two:-0}" -gt 0 ]
nfhp_check "  none fell through the map" [ "$fell" = 0 ]
nfhp_check "  each datagram met one rule: $one + $two = 20000" \
	[ "$((one + two))" = 20000 ]

nfhp_check "-F FORWARD, destroy map" bash -c "
	ip netns exec $ns_router '$NFHP_BIN/nf-hipac' -F FORWARD &&
	ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' destroy map"

exit $nfhp_rc
