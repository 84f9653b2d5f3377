#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# keep-state and check-state on real packets (issue 45).  With FORWARD's
# policy DROP and keep-state rules for the client's side only, the replies
# of TCP, UDP and ICMP come back through nf-hipac's own states, with
# conntrack not running in the namespace, and the server cannot open a
# flow of its own.
# A state's packets count on its rule.  A UDP state dies after its
# lifetime, which /proc sets; deleting a rule ends its states at once; a
# limit of two states per source refuses a third flow, and the rule then
# does not match; a restore of the same rules keeps their states.
# CHECK-STATE moves the check point before a rule that would drop the
# replies, and so does a keep-state rule that no packet can reach.  An
# ICMP error about a flow with a state gets the state's verdict: a
# datagram to a closed port is refused, and a forged error passes only
# about a flow with a state.  Each namespace has its own states.  IPv6
# too.
#
# nfhp-timeout: 1200

source "$(dirname "$0")/lib.sh"

nfhp_require_hipac
nfhp_require_cmd python3 ping
nf_hipac_setup || { nfhp_log "FAIL: topology setup"; exit 1; }
nf_hipac_setup6 || { nfhp_log "FAIL: IPv6 setup"; exit 1; }

r() { nfhp_in $ns_router "$@"; }
r6() { in_ns $ns_router "$NFHP_BIN/nf-hipac6" "$@"; }
file=/proc/net/nf-hipac/states

# field NAME [NS] - what /proc shows for NAME in NS (default the router).
field() { in_ns "${2:-$ns_router}" awk -v n="$1:" '$1 == n { print $2 }' $file; }
refused_limit() { in_ns $ns_router awk '/^refused \(limit\)/ { print $3 }' $file; }

# set_lifetime NAME SECONDS - a lifetime of the router's states.
set_lifetime() { in_ns $ns_router sh -c "echo '$1 $2' > $file"; }

# icmp_tool NS ARGS... - tools/icmp_error.py in NS
icmp_tool()
{
	local ns=$1

	shift
	ip netns exec "$ns" python3 "$(dirname "$0")/tools/icmp_error.py" "$@"
}

# forged SPORT - the server forges a port unreachable about the client's
# datagram SPORT -> 7000; the client's status: 0 got it, 3 did not in the
# 2 s after it was sent
forged()
{
	local ready done pid i

	ready=$(mktemp -u /tmp/keep_state.XXXXXX)
	done=$ready.done
	icmp_tool $ns_client listen "$1" 7000 "$ready" "$done" &
	pid=$!
	for i in $(seq 600); do
		[ -e "$ready" ] && break
		sleep 0.1
	done
	icmp_tool $ns_server forge $CLIENT_IP $SERVER_IP "$1" 7000
	touch "$done"
	wait $pid
	i=$?
	rm -f "$ready" "$done"
	return $i
}

# from SPORT CMD... - CMD with the client's source port SPORT.
from() { local NFHP_SPORT=$1; shift; "$@"; }

# back_ok CPORT SPORT - a datagram from the server's SPORT to the client's
# CPORT, and its answer: the reverse of the client's flow CPORT -> SPORT,
# which only a state lets through.
back_ok() { NFHP_SPORT=$2 nfhp_conn udp "$1" $ns_server $ns_client $CLIENT_IP; }
back_fail() { back_ok "$@"; [ $? -eq 1 ]; }

# No conntrack: the states are nf-hipac's own.  nf_conntrack may be
# loaded by other tests, but its hooks run in a namespace only once
# something there asks for them, and nothing here does: the router's
# conntrack table stays empty.  (unload.sh checks that nf_hipac works
# with nf_conntrack not loaded at all.)
ct_idle() { ! in_ns $ns_router grep -q . /proc/net/nf_conntrack 2>/dev/null; }

cif=$ROUTER_CLIENT_IF
nfhp_check "-P FORWARD DROP" r -P FORWARD DROP
nfhp_check "keep-state rules for the client's udp 9000:9010 (limit 2), udp 5353, tcp, icmp" \
	bash -c "ip netns exec $ns_router '$NFHP_BIN/nf-hipac-restore' <<EOF
*filter
:INPUT ACCEPT [0:0]
:FORWARD DROP [0:0]
:OUTPUT ACCEPT [0:0]
-A FORWARD -i $cif -p udp -m udp --dport 9000:9010 -m keep-state --state-limit 2 --state-limit-by src-addr -j ACCEPT
-A FORWARD -i $cif -p udp -m udp --dport 5353 -m keep-state -j ACCEPT
-A FORWARD -i $cif -p tcp -m keep-state -j ACCEPT
-A FORWARD -i $cif -p icmp -m keep-state -j ACCEPT
COMMIT
EOF"
nfhp_check "no states yet" [ "$(field states)" = 0 ]
nfhp_check "tcp/8080: the replies come back" tcp_ok 8080
nfhp_check "udp/5353: the reply comes back" udp_ok 5353
nfhp_check "ping: the echo reply comes back" ping_ok
nfhp_check "states were made" [ "$(field created)" -ge 3 ]
nfhp_check "the server cannot open a tcp flow to the client" \
	tcp_fail 8080 $ns_server $ns_client $CLIENT_IP
nfhp_check "nor ping it" ping_fail $ns_server $CLIENT_IP
nfhp_check "conntrack tracked none of it in the router" ct_idle
nfhp_check "the client's namespace has no states" \
	[ "$(field states $ns_client)" = 0 ]

nfhp_check "-S prints keep-state back" \
	bash -c "ip netns exec $ns_router '$NFHP_BIN/nf-hipac' -S FORWARD |
		 grep -qx -- '-A FORWARD -i $cif -p tcp -m keep-state -j ACCEPT'"
nfhp_check "-S prints the limit back" \
	bash -c "ip netns exec $ns_router '$NFHP_BIN/nf-hipac' -S FORWARD |
		 grep -q -- '--state-limit 2 --state-limit-by src-addr'"
# The tcp rule counted the client's packets and, through the state, the
# server's: at least the two SYNs and the data both ways.
tcp_pkts=$(r -L FORWARD -n -v -x |
	   awk '$3 == "ACCEPT" && ($4 == "tcp" || $4 == "6") { print $1 }')
nfhp_check "the tcp rule counts both ways ($tcp_pkts packets)" \
	[ "${tcp_pkts:-0}" -ge 6 ]

# Lifetimes: a UDP state lives udp_lifetime after its last packet, the
# lifetime its last renewal found.  An exchange takes seconds of Python
# starts in a slow guest: the state is made and proven alive with a long
# lifetime, then renewed with 2 s (the server answers at once), and it
# must be dead 5 s later.
nfhp_check "udp_lifetime 600" set_lifetime udp_lifetime 600
nfhp_check "udp 40001 -> 5353 makes a state" from 40001 udp_ok 5353
nfhp_check "5353 -> 40001, the flow's reverse, passes" back_ok 40001 5353
nfhp_check "udp_lifetime 2" set_lifetime udp_lifetime 2
nfhp_check "udp 40001 -> 5353 renews it for 2 s" from 40001 udp_ok 5353
sleep 5
nfhp_check "5 s later the state is dead: 5353 -> 40001 dropped" \
	back_fail 40001 5353
nfhp_check "udp_lifetime 600 for the rest" \
	set_lifetime udp_lifetime 600

# Deleting a rule ends its states at once.
nfhp_check "udp 40002 -> 5353" from 40002 udp_ok 5353
nfhp_check "udp 40002 -> 5353: its reverse passes" back_ok 40002 5353
before=$(field states)
nfhp_check "-D the udp/5353 rule" r -D FORWARD 2
after=$(field states)
nfhp_check "its states went with it ($before, then $after)" \
	[ "$after" -lt "$before" ]
nfhp_check "5353 -> 40002 dropped now" back_fail 40002 5353
nfhp_check "the tcp rule's states stay: tcp/8080 still works" tcp_ok 8080

# A limit: two states per client address, then the rule does not match.
refused=$(refused_limit)
nfhp_check "udp 41000 -> 9000 passes (state 1 of 2)" from 41000 udp_ok 9000
nfhp_check "udp 41001 -> 9001 passes (state 2 of 2)" from 41001 udp_ok 9001
nfhp_check "udp 41002 -> 9002 dropped: a third state refused" \
	from 41002 udp_fail 9002
nfhp_check "refused (limit) counted" [ "$(refused_limit)" -gt "$refused" ]
nfhp_check "udp 41001 -> 9001 again: its state is there" \
	from 41001 udp_ok 9001

# The same rules sent again are carried over, their states with them.
nfhp_check "nf-hipac-save | nf-hipac-restore" \
	bash -c "ip netns exec $ns_router '$NFHP_BIN/nf-hipac-save' |
		 ip netns exec $ns_router '$NFHP_BIN/nf-hipac-restore'"
nfhp_check "9001 -> 41001, the reverse, passes: the state stayed" \
	back_ok 41001 9001
nfhp_check "udp 41002 -> 9002 still refused: so did the limit's count" \
	from 41002 udp_fail 9002

# CHECK-STATE: a rule that drops the server's side before the first
# keep-state rule hides the states, unless CHECK-STATE comes first.
nfhp_check "-I 1 -i server side -j DROP" r -I FORWARD 1 -i $ROUTER_SERVER_IF -j DROP
nfhp_check "tcp/8080 fails: its replies die before the check point" tcp_fail 8080
nfhp_check "-I 1 -j CHECK-STATE" r -I FORWARD 1 -j CHECK-STATE
nfhp_check "tcp/8080 works: the check point comes first" tcp_ok 8080
nfhp_check "-L shows CHECK-STATE" \
	bash -c "ip netns exec $ns_router '$NFHP_BIN/nf-hipac' -L FORWARD -n |
		 grep -q '^CHECK-STATE'"
nfhp_check "CHECK-STATE with a match refused" \
	fails 2 "CHECK-STATE" r -A FORWARD -p tcp -j CHECK-STATE
nfhp_check "keep-state with a jump refused" \
	fails 2 "keep-state" r -A FORWARD -p tcp -m keep-state -j RETURN

# ICMP errors: the server's side is dropped before any keep-state rule
# (rule 2), but CHECK-STATE (rule 1) gives an error about a flow with a
# state that state's verdict.
nfhp_check "keep-state for the client's udp 7000, which nobody serves" \
	r -A FORWARD -i $cif -p udp --dport 7000 -m keep-state -j ACCEPT
nfhp_check "udp 42000 -> 7000: the port unreachable comes back" \
	icmp_tool $ns_client refused $SERVER_IP 7000 42000
nfhp_check "a forged error about 42000 -> 7000, which has a state, passes" \
	forged 42000
forged 42001
nfhp_check "one about 42001 -> 7000, which has none, is dropped" [ $? = 3 ]

# A state rule no packet reaches where it stands is the check point all
# the same: inner's rule excludes every source the jump lets in, so it
# has no entry, yet the server's replies are looked up there, before the
# DROP of the server's side that comes after it.
sif=$ROUTER_SERVER_IF
nfhp_check "-F FORWARD, -N inner" bash -c "ip netns exec $ns_router '$NFHP_BIN/nf-hipac' -F FORWARD &&
		 ip netns exec $ns_router '$NFHP_BIN/nf-hipac' -N inner"
nfhp_check "-A FORWARD -s 10.0.0.0/8 -j inner" r -A FORWARD -s 10.0.0.0/8 -j inner
nfhp_check "-A FORWARD -i server side -j DROP" r -A FORWARD -i $sif -j DROP
nfhp_check "-A FORWARD -i client side -p tcp -m keep-state -j ACCEPT" \
	r -A FORWARD -i $cif -p tcp -m keep-state -j ACCEPT
nfhp_check "tcp/8080 fails: the check point is after the DROP" tcp_fail 8080
nfhp_check "-A inner -s 192.168.0.0/16 -m keep-state -j ACCEPT" \
	r -A inner -s 192.168.0.0/16 -m keep-state -j ACCEPT
nfhp_check "tcp/8080 works: the unreachable rule is the check point" tcp_ok 8080
nfhp_check "-D inner 1" r -D inner 1
nfhp_check "tcp/8080 fails again: the check point is rule 3 again" \
	tcp_fail 8080
nfhp_check "-F FORWARD, -X inner" bash -c "ip netns exec $ns_router '$NFHP_BIN/nf-hipac' -F FORWARD &&
		 ip netns exec $ns_router '$NFHP_BIN/nf-hipac' -X inner"

# IPv6: the same table, the flows of both families apart.
nfhp_check "IPv6: -P FORWARD DROP" r6 -P FORWARD DROP
nfhp_check "IPv6: keep-state for the client's side" \
	r6 -A FORWARD -i $cif -m keep-state -j ACCEPT
nfhp_check "IPv6: tcp/8080 replies come back" \
	tcp_ok 8080 $ns_client $ns_server $SERVER6
nfhp_check "IPv6: ping6 answered" ping_ok $ns_client $SERVER6
nfhp_check "IPv6: the server cannot open a flow" \
	tcp_fail 8080 $ns_server $ns_client $CLIENT6
nfhp_check "IPv6: udp 42000 -> 7000: the port unreachable comes back" \
	icmp_tool $ns_client refused $SERVER6 7000 42000

nfhp_check "udp_lifetime 10 again" set_lifetime udp_lifetime 10
nfhp_check "flush both families: no state left" \
	bash -c "ip netns exec $ns_router '$NFHP_BIN/nf-hipac' -F &&
		 ip netns exec $ns_router '$NFHP_BIN/nf-hipac6' -F &&
		 [ \"\$(ip netns exec $ns_router awk '\$1 == \"states:\" { print \$2 }' $file)\" = 0 ]"

exit $nfhp_rc
