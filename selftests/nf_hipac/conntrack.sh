#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The conntrack state dimension: with FORWARD policy DROP, a stateful rule
# set lets replies of accepted connections back in and admits new
# connections only from the client side to tcp/8080.  This needs conntrack
# running in the router's namespace, which nf-hipac enables itself once a
# rule matches on the state, and keeps enabled only while one does.
#
# nfhp-timeout: 300

source "$(dirname "$0")/lib.sh"

nfhp_require_hipac
nfhp_require_cmd python3
nf_hipac_setup || { nfhp_log "FAIL: topology setup"; exit 1; }

r() { nfhp_in $ns_router "$@"; }

nfhp_check "-P FORWARD DROP" r -P FORWARD DROP
nfhp_check "-A state ESTABLISHED,RELATED ACCEPT" \
	r -A FORWARD -m state --state ESTABLISHED,RELATED -j ACCEPT
nfhp_check "-A -i $ROUTER_CLIENT_IF tcp/8080 NEW ACCEPT" \
	r -A FORWARD -i $ROUTER_CLIENT_IF -p tcp --dport 8080 \
	-m state --state NEW -j ACCEPT
nfhp_check "new tcp/8080 accepted, replies established" tcp_ok 8080
nfhp_check "new tcp/8081 dropped" tcp_fail 8081
nfhp_check "new udp dropped" udp_fail 5353
nfhp_check "new icmp dropped" ping_fail
nfhp_check "connection from the server side to 8080 on the client dropped" \
	tcp_fail 8080 $ns_server $ns_client $CLIENT_IP

nfhp_check "-A icmp NEW via --ctstate" \
	r -A FORWARD -p icmp -m conntrack --ctstate NEW -j ACCEPT
nfhp_check "echo request NEW, reply ESTABLISHED" ping_ok
nfhp_check "icmp NEW is accepted from either side" \
	ping_ok $ns_server $CLIENT_IP

# The reply direction alone, without ESTABLISHED: replies must die.
nfhp_check "-D the ESTABLISHED,RELATED rule" r -D FORWARD 1
nfhp_check "without ESTABLISHED, tcp replies are dropped" tcp_fail 8080
nfhp_check "-I 1 INVALID DROP, then ESTABLISHED only" \
	bash -c "ip netns exec $ns_router '$NFHP_BIN/nf-hipac' -I FORWARD 1 -m state --state INVALID -j DROP &&
		 ip netns exec $ns_router '$NFHP_BIN/nf-hipac' -I FORWARD 2 -m state --state ESTABLISHED -j ACCEPT"
nfhp_check "tcp/8080 works again" tcp_ok 8080
nfhp_check "udp still dropped" udp_fail 5353

nfhp_check "listing shows the state match" \
	bash -c "ip netns exec $ns_router '$NFHP_BIN/nf-hipac' -S FORWARD |
		 grep -q -- '--state ESTABLISHED'"

exit $nfhp_rc
