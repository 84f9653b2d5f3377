#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Native matches on real packets crossing the router's FORWARD chain: drop
# by source address, by protocol, by TCP and UDP destination port (and a
# multiport list, --ports), by input interface wildcard, by an exact input
# interface with an ICMP type and by a negated output interface.  Each
# rule is checked against a flow it must block and one it must leave
# alone, then removed again.
#
# nfhp-timeout: 600

source "$(dirname "$0")/lib.sh"

nfhp_require_hipac
nfhp_require_cmd python3
nf_hipac_setup || { nfhp_log "FAIL: topology setup"; exit 1; }

r() { nfhp_in $ns_router "$@"; }

# flushed - the router's rule set is empty again and traffic passes.
flushed() { r -F && ping_ok && tcp_ok 8080; }

nfhp_check "-A -s client -j DROP" r -A FORWARD -s $CLIENT_IP -j DROP
nfhp_check "source drop blocks ping" ping_fail
nfhp_check "source drop blocks tcp" tcp_fail 8080
nfhp_check "other sources pass (router -> server)" \
	ping_ok $ns_router $SERVER_IP
nfhp_check "flush" flushed

nfhp_check "-A -s 10.0.1.0/24 -j DROP" r -A FORWARD -s 10.0.1.0/24 -j DROP
nfhp_check "prefix drop blocks ping" ping_fail
nfhp_check "-R 1 with ! -s 10.0.1.0/24" \
	r -R FORWARD 1 ! -s 10.0.1.0/24 -p tcp -j DROP
nfhp_check "inverted prefix blocks the server's tcp replies" tcp_fail 8080
nfhp_check "inverted prefix leaves ping" ping_ok
nfhp_check "flush" flushed

nfhp_check "-A -p icmp -j DROP" r -A FORWARD -p icmp -j DROP
nfhp_check "protocol drop blocks ping" ping_fail
nfhp_check "protocol drop leaves tcp" tcp_ok 8080
nfhp_check "protocol drop leaves udp" udp_ok 5353
nfhp_check "-D by rule" r -D FORWARD -p icmp -j DROP
nfhp_check "ping passes after -D" ping_ok

nfhp_check "-A -p tcp --dport 8080 -j DROP" \
	r -A FORWARD -p tcp --dport 8080 -j DROP
nfhp_check "dport drop blocks tcp/8080" tcp_fail 8080
nfhp_check "dport drop leaves tcp/8081" tcp_ok 8081
nfhp_check "dport drop leaves udp/8080" udp_ok 8080
nfhp_check "-I 1 -p udp --dport 5353 -j DROP" \
	r -I FORWARD 1 -p udp --dport 5353 -j DROP
nfhp_check "udp dport drop blocks udp/5353" udp_fail 5353
nfhp_check "udp dport drop leaves udp/5354" udp_ok 5354
nfhp_check "-D 1 by position" r -D FORWARD 1
nfhp_check "udp/5353 passes after -D 1" udp_ok 5353
nfhp_check "flush" flushed

nfhp_check "multiport --dports 22,8000:8090" \
	r -A FORWARD -p tcp -m multiport --dports 22,8000:8090 -j DROP
nfhp_check "multiport blocks tcp/8085" tcp_fail 8085
nfhp_check "multiport leaves tcp/8091" tcp_ok 8091
nfhp_check "flush" flushed

# --ports: either port in the set; a packet matching both counts once.
nfhp_check "multiport --ports 40020,5354" \
	r -A FORWARD -p udp -m multiport --ports 40020,5354 -j DROP
NFHP_SPORT=40020 nfhp_check "--ports blocks udp from 40020" udp_fail 5353
nfhp_check "--ports blocks udp to 5354" udp_fail 5354
NFHP_SPORT=40021 nfhp_check "--ports leaves udp 40021 -> 5353" udp_ok 5353
nfhp_check "flush" flushed

nfhp_check "-A -p udp --sport 40000:40010 -j DROP" \
	r -A FORWARD -p udp --sport 40000:40010 -j DROP
NFHP_SPORT=40005 nfhp_check "sport drop blocks udp from 40005" udp_fail 5353
NFHP_SPORT=40011 nfhp_check "sport drop leaves udp from 40011" udp_ok 5353
nfhp_check "flush" flushed

nfhp_check "-A -i veth+ -p icmp -j DROP" r -A FORWARD -i veth+ -p icmp -j DROP
nfhp_check "interface wildcard blocks ping" ping_fail
nfhp_check "interface wildcard blocks ping from the server" \
	ping_fail $ns_server $CLIENT_IP
nfhp_check "-R 1 -i eth+" r -R FORWARD 1 -i eth+ -p icmp -j DROP
nfhp_check "non-matching wildcard leaves ping" ping_ok
nfhp_check "-R 1 -i $ROUTER_CLIENT_IF --icmp-type echo-request" \
	r -R FORWARD 1 -i $ROUTER_CLIENT_IF -p icmp --icmp-type echo-request \
	-j DROP
nfhp_check "exact input interface blocks client pings" ping_fail
nfhp_check "server pings pass: their replies are echo-replies" \
	ping_ok $ns_server $CLIENT_IP
nfhp_check "flush" flushed

# Requests leave through veth1 and pass; replies leave through veth0.
nfhp_check "-A ! -o $ROUTER_SERVER_IF -p icmp -j DROP" \
	r -A FORWARD ! -o $ROUTER_SERVER_IF -p icmp -j DROP
nfhp_check "negated output interface drops the replies" ping_fail
nfhp_check "negated output interface leaves tcp" tcp_ok 8080
nfhp_check "-I 1 -o $ROUTER_CLIENT_IF -p icmp -j ACCEPT" \
	r -I FORWARD 1 -o $ROUTER_CLIENT_IF -p icmp -j ACCEPT
nfhp_check "first match wins: the earlier ACCEPT lets replies out" ping_ok
nfhp_check "flush" flushed

exit $nfhp_rc
