#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Built-in chain policies in the router's FORWARD chain: DROP blocks ping,
# TCP and UDP between client and server, ACCEPT lets them through again, and
# the router's own INPUT is not affected by FORWARD.  Also a flush that
# leaves only a DROP policy keeps blocking (an empty chain with a DROP
# policy is not an empty rule set).
#
# nfhp-timeout: 300

source "$(dirname "$0")/lib.sh"

nfhp_require_hipac
nfhp_require_cmd python3
nf_hipac_setup || { nfhp_log "FAIL: topology setup"; exit 1; }

r() { nfhp_in $ns_router "$@"; }

# shows PATTERN ARGS... - the router's nf-hipac ARGS prints PATTERN.
shows() { local p=$1; shift; r "$@" 2>&1 | grep -q -- "$p"; }

# refused ARGS... - the router's nf-hipac ARGS must fail.
refused() { ! r "$@" >/dev/null 2>&1; }

nfhp_check "ping passes without rules" ping_ok
nfhp_check "-P FORWARD DROP" r -P FORWARD DROP
nfhp_check "policy DROP blocks ping" ping_fail
nfhp_check "policy DROP blocks tcp" tcp_fail 8080
nfhp_check "policy DROP blocks udp" udp_fail 5353
nfhp_check "router INPUT still reachable" ping_ok $ns_client $ROUTER_CLIENT_IP
nfhp_check "listing shows policy DROP" \
	shows "Chain FORWARD (policy DROP" -L FORWARD -n
nfhp_check "-F keeps the policy" r -F
nfhp_check "still blocked after -F" ping_fail
nfhp_check "-P FORWARD ACCEPT" r -P FORWARD ACCEPT
nfhp_check "policy ACCEPT passes ping" ping_ok
nfhp_check "policy ACCEPT passes tcp" tcp_ok 8080
nfhp_check "policy ACCEPT passes udp" udp_ok 5353

nfhp_check "-P INPUT DROP" r -P INPUT DROP
nfhp_check "INPUT DROP blocks the router itself" \
	ping_fail $ns_client $ROUTER_CLIENT_IP
nfhp_check "INPUT DROP leaves forwarding alone" ping_ok
nfhp_check "-P OUTPUT DROP" r -P OUTPUT DROP
nfhp_check "OUTPUT DROP blocks the router's own pings" \
	ping_fail $ns_router $SERVER_IP
nfhp_check "-P INPUT ACCEPT" r -P INPUT ACCEPT
nfhp_check "-P OUTPUT ACCEPT" r -P OUTPUT ACCEPT
nfhp_check "router reachable again" ping_ok $ns_client $ROUTER_CLIENT_IP
nfhp_check "policy RETURN refused" refused -P FORWARD RETURN
nfhp_check "policy of a user chain refused" refused -P nosuchchain DROP

exit $nfhp_rc
