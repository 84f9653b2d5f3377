#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Every network namespace has its own rule set: rules in one neither show
# up in nor act on another, and deleting a namespace with rules loaded
# leaves the others alone.
#
# nfhp-timeout: 300

source "$(dirname "$0")/lib.sh"

nfhp_require_hipac
nf_hipac_setup || { nfhp_log "FAIL: topology setup"; exit 1; }

ns_extra=nfhp-extra-$$
trap 'ip netns del $ns_extra 2>/dev/null; nfhp_cleanup' EXIT

# rules NS - the number of rules nf-hipac lists in NS.
rules() { nfhp_in "$1" -S | grep -c '^-A'; }

nfhp_check "server: -A INPUT -p icmp -j DROP" \
	nfhp_in $ns_server -A INPUT -p icmp -j DROP
nfhp_check "server drops pings to itself" ping_fail
nfhp_check "the router still answers" ping_ok $ns_client $ROUTER_CLIENT_IP
nfhp_check "the router lists no rules" [ "$(rules $ns_router)" = 0 ]
nfhp_check "the server lists its rule" [ "$(rules $ns_server)" = 1 ]

nfhp_check "router: -P FORWARD DROP" nfhp_in $ns_router -P FORWARD DROP
nfhp_check "client: -A OUTPUT -d router -j ACCEPT" \
	nfhp_in $ns_client -A OUTPUT -d $ROUTER_CLIENT_IP -j ACCEPT
nfhp_check "the server's policy is still ACCEPT" \
	bash -c "ip netns exec $ns_server '$NFHP_BIN/nf-hipac' -L FORWARD -n |
		 grep -q 'policy ACCEPT'"
nfhp_check "-F in the server leaves the router's policy" \
	nfhp_in $ns_server -F
nfhp_check "forwarding still blocked by the router" ping_fail
nfhp_check "router: -P FORWARD ACCEPT" nfhp_in $ns_router -P FORWARD ACCEPT
nfhp_check "forwarding passes again" ping_ok

nfhp_check "a new namespace starts empty" \
	bash -c "ip netns add $ns_extra &&
		 [ \$(ip netns exec $ns_extra '$NFHP_BIN/nf-hipac' -S | grep -c '^-A') = 0 ]"
nfhp_check "extra: rules loaded" \
	bash -c "ip netns exec $ns_extra '$NFHP_BIN/nf-hipac' -A INPUT -j DROP &&
		 ip netns exec $ns_extra '$NFHP_BIN/nf-hipac' -N c &&
		 ip netns exec $ns_extra '$NFHP_BIN/nf-hipac' -A c -j ACCEPT"
nfhp_check "deleting a namespace with rules loaded" ip netns del $ns_extra
nfhp_check "the client's rule survives" [ "$(rules $ns_client)" = 1 ]
nfhp_check "traffic unaffected" ping_ok

exit $nfhp_rc
