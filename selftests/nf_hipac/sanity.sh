#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Test of the selftest harness itself; needs no nf-hipac.  Brings up the
# client/router/server topology, shows traffic crosses the router, then
# blocks it with plain iptables in the router and shows every helper sees
# the block.  If this fails, the other tests' results mean nothing.
#
# nfhp: no-module

source "$(dirname "$0")/lib.sh"

nfhp_require_cmd iptables python3
nf_hipac_setup || { nfhp_log "FAIL: topology setup"; exit 1; }

nfhp_check "ping client->server" ping_ok
nfhp_check "ping server->client" ping_ok $ns_server $CLIENT_IP
nfhp_check "tcp/8080 client->server" tcp_ok 8080
nfhp_check "udp/5353 client->server" udp_ok 5353

in_ns $ns_router iptables -A FORWARD -p icmp -j DROP || exit 1
nfhp_check "ping dropped by iptables" ping_fail
nfhp_check "tcp still passes" tcp_ok 8080
in_ns $ns_router iptables -A FORWARD -p tcp --dport 8080 -j DROP
in_ns $ns_router iptables -A FORWARD -p udp --dport 5353 -j DROP
nfhp_check "tcp/8080 dropped by iptables" tcp_fail 8080
nfhp_check "udp/5353 dropped by iptables" udp_fail 5353
nfhp_check "tcp/8081 passes" tcp_ok 8081
nfhp_check "router itself still reachable" \
	ping_ok $ns_client $ROUTER_CLIENT_IP

in_ns $ns_router iptables -F FORWARD
nfhp_check "ping passes after flush" ping_ok
nfhp_check "tcp/8080 passes after flush" tcp_ok 8080

exit $nfhp_rc
