#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rmmod with rule sets loaded in two namespaces (one with a conntrack state
# rule and a keep-state rule with its state, one in the middle of an open
# transaction held by a sleeping restore) must succeed and leave traffic flowing; the module is then
# inserted again for the tests that follow, with empty rule sets.
#
# nfhp-timeout: 300

source "$(dirname "$0")/lib.sh"

nfhp_require_hipac
nfhp_require_cmd python3 rmmod insmod
nf_hipac_setup || { nfhp_log "FAIL: topology setup"; exit 1; }

module=${NFHP_MODULE:-$NFHP_TOP/nf_hipac.ko}
[ -f "$module" ] || nfhp_skip "$module not built"

r() { nfhp_in $ns_router "$@"; }

nfhp_check "router: -P FORWARD DROP" r -P FORWARD DROP
nfhp_check "router: state rule" \
	r -A FORWARD -m state --state ESTABLISHED,RELATED -j ACCEPT
nfhp_check "router: -N c" r -N c
nfhp_check "router: -A FORWARD -p icmp -j c" r -A FORWARD -p icmp -j c
nfhp_check "router: -A c -j ACCEPT" r -A c -j ACCEPT
nfhp_check "router: keep-state for udp/5353" \
	r -A FORWARD -p udp --dport 5353 -m keep-state -j ACCEPT
nfhp_check "server: -A INPUT -p udp -j DROP" \
	nfhp_in $ns_server -A INPUT -p udp -j DROP
nfhp_check "rules act: tcp blocked" tcp_fail 8080
nfhp_check "rules act: ping passes" ping_ok
# The server's INPUT drops it, but the router made its state.
udp_ok 5353
nfhp_check "udp/5353 made a state in the router's table" \
	[ "$(in_ns $ns_router awk '$1 == "states:" { print $2 }' \
	     /proc/net/nf-hipac/states)" -ge 1 ]

# An open transaction: restore reads its input from a pipe that stays
# open, so the transaction is still pending at rmmod time.
fifo=$(mktemp -u /tmp/nfhp-unload.XXXXXX)
mkfifo $fifo
trap 'rm -f $fifo; nfhp_cleanup' EXIT
nfhp_restore_in $ns_client <$fifo >/dev/null 2>&1 &
restore_pid=$!
exec 3>$fifo
printf '*filter\n:OUTPUT DROP [0:0]\n' >&3
sleep 1

nfhp_check "rmmod nf_hipac with rules in two namespaces" rmmod nf_hipac
nfhp_check "module gone" [ ! -d /sys/module/nf_hipac ]
exec 3>&-
wait $restore_pid 2>/dev/null
nfhp_check "traffic flows without the module" tcp_ok 8080
nfhp_check "udp to the server flows" udp_ok 5353

nfhp_check "insmod again" nfhp_insmod "$module"
nfhp_check "rule sets start empty" \
	[ "$(r -S | grep -c '^-[AN]')" = 0 ]
nfhp_check "policies start ACCEPT" \
	bash -c "ip netns exec $ns_router '$NFHP_BIN/nf-hipac' -S |
		 grep -qx -- '-P FORWARD ACCEPT'"
nfhp_check "traffic flows with empty rule sets" tcp_ok 8080
nfhp_check "new rules work after reinsertion" r -A FORWARD -p tcp -j DROP
nfhp_check "tcp blocked again" tcp_fail 8080
nfhp_check "flush" r -F

exit $nfhp_rc
