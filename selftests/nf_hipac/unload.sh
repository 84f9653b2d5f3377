#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rmmod with rule sets loaded in two namespaces (one with a conntrack state
# rule and a keep-state rule with its state, one in the middle of an open
# transaction held by a sleeping restore) must succeed and leave traffic flowing; the module is then
# inserted again for the tests that follow, with empty rule sets.  It
# does not link against nf_conntrack: with nf_conntrack unloaded first,
# nf_hipac loads and keeps states without it, and the first rule that
# matches on conntrack's state loads it.
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

# mod_unload MODULE - rmmod MODULE and, first, every module holding it.
# The namespaces of earlier tests go in the background, and with them
# the tables that keep such modules in use: try for a while.
mod_unload()
{
	local holder try

	[ -d /sys/module/$1 ] || return 0
	for holder in /sys/module/"$1"/holders/*; do
		[ -e "$holder" ] || continue
		mod_unload "${holder##*/}" || return 1
	done
	for try in $(seq 20); do
		rmmod "$1" 2>/dev/null && return 0
		sleep 0.5
	done
	rmmod "$1"
}

# A module has an initstate; nf_conntrack built into the kernel (the
# debug kernel's) cannot go, and what follows checks the rest.
ct_module=1
if grep -qs '/nf_conntrack\.ko$' "/lib/modules/$(uname -r)/modules.builtin" ||
   { [ -d /sys/module/nf_conntrack ] &&
     [ ! -e /sys/module/nf_conntrack/initstate ]; }; then
	ct_module=0
	nfhp_log "nf_conntrack is built into this kernel: not unloaded"
fi
[ $ct_module = 0 ] ||
	nfhp_check "nf_conntrack unloaded, and the modules holding it" \
		mod_unload nf_conntrack
nfhp_check "insmod again" nfhp_insmod "$module"
[ $ct_module = 0 ] ||
	nfhp_check "nf_hipac loaded no nf_conntrack" \
		[ ! -d /sys/module/nf_conntrack ]
nfhp_check "rule sets start empty" \
	[ "$(r -S | grep -c '^-[AN]')" = 0 ]
nfhp_check "policies start ACCEPT" \
	bash -c "ip netns exec $ns_router '$NFHP_BIN/nf-hipac' -S |
		 grep -qx -- '-P FORWARD ACCEPT'"
nfhp_check "traffic flows with empty rule sets" tcp_ok 8080
nfhp_check "new rules work after reinsertion" r -A FORWARD -p tcp -j DROP
nfhp_check "tcp blocked again" tcp_fail 8080
nfhp_check "flush" r -F

cif=$ROUTER_CLIENT_IF
nfhp_check "router: -P FORWARD DROP, keep-state for udp/5353" \
	bash -c "ip netns exec $ns_router '$NFHP_BIN/nf-hipac' -P FORWARD DROP &&
		 ip netns exec $ns_router '$NFHP_BIN/nf-hipac' -A FORWARD -i $cif -p udp --dport 5353 -m keep-state -j ACCEPT"
nfhp_check "keep-state without nf_conntrack: the reply comes back" \
	udp_ok 5353
[ $ct_module = 0 ] ||
	nfhp_check "nf_conntrack still not loaded" \
		[ ! -d /sys/module/nf_conntrack ]
nfhp_check "tcp/8080 blocked: no rule, no state" tcp_fail 8080
nfhp_check "a conntrack state rule and tcp/8080 from the client" \
	bash -c "ip netns exec $ns_router '$NFHP_BIN/nf-hipac' -I FORWARD 1 -m state --state ESTABLISHED -j ACCEPT &&
		 ip netns exec $ns_router '$NFHP_BIN/nf-hipac' -A FORWARD -i $cif -p tcp --dport 8080 -j ACCEPT"
[ $ct_module = 0 ] ||
	nfhp_check "the state rule loaded nf_conntrack" \
		[ -d /sys/module/nf_conntrack ]
nfhp_check "conntrack lets the replies of tcp/8080 back" tcp_ok 8080
nfhp_check "flush, policy ACCEPT" \
	bash -c "ip netns exec $ns_router '$NFHP_BIN/nf-hipac' -F &&
		 ip netns exec $ns_router '$NFHP_BIN/nf-hipac' -P FORWARD ACCEPT"

exit $nfhp_rc
