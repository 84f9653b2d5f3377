#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A Kubernetes node's shape on real packets: FORWARD jumps to a service
# chain per port, each chain RETURNs early for some packets, and single
# rules come and go in the chains and between the jumps.  With more than
# 32 chains the module finds a jump's chain by its name's hash and tells
# from the hash table whether it changed; with a RETURN in every chain
# each update sets the RETURNs' scopes near the change.  Every verdict
# is checked after each update, on the neighbours of the change too, and
# each update must have been an update, not a rebuild.
#
# nfhp-timeout: 300

source "$(dirname "$0")/lib.sh"

nfhp_require_hipac
nfhp_require_cmd python3
nf_hipac_setup || { nfhp_log "FAIL: topology setup"; exit 1; }

NSVC=64
r() { nfhp_in $ns_router "$@"; }

# Service i: tcp to $SERVER_IP port 9000 + i.  Its chain returns packets
# from source ports 40000-40099 (they then meet FORWARD's DROP), accepts
# the client and drops the rest.
kube_rules()
{
	local i

	echo "*filter"
	echo ":FORWARD ACCEPT [0:0]"
	for i in $(seq 0 $((NSVC - 1))); do echo ":SVC$i - [0:0]"; done
	for i in $(seq 0 $((NSVC - 1))); do
		echo "-A FORWARD -d $SERVER_IP/32 -p tcp --dport $((9000 + i)) -j SVC$i"
		echo "-A SVC$i -p tcp --sport 40000:40099 -j RETURN"
		echo "-A SVC$i -s $CLIENT_IP/32 -j ACCEPT"
		echo "-A SVC$i -j DROP"
	done
	echo "-A FORWARD -p tcp --dport 9000:9099 -j DROP"
	echo "COMMIT"
}

# from_sport PORT CHECK ARGS... - CHECK with the client's source port fixed.
from_sport() { local NFHP_SPORT=$1; shift; export NFHP_SPORT; "$@"; }

# flattened_at_most N - the last commit flattened at most N entries: it
# updated the trees rather than rebuilding them.
flattened_at_most()
{
	local n

	n=$(in_ns $ns_router awk '/last commit flattened/ { print $4 }' \
		/proc/net/nf-hipac/info)
	[ -n "$n" ] && [ "$n" -le "$1" ] ||
		{ nfhp_log "last commit flattened ${n:-?} entries"; return 1; }
}

nfhp_check "restore $NSVC service chains with RETURNs" \
	bash -c "$(declare -f kube_rules); NSVC=$NSVC SERVER_IP=$SERVER_IP \
		 CLIENT_IP=$CLIENT_IP kube_rules |
		 ip netns exec $ns_router '$NFHP_BIN/nf-hipac-restore'"
nfhp_check "service 5 accepts the client" tcp_ok 9005
nfhp_check "service 5 returns sport 40005 to the DROP" \
	from_sport 40005 tcp_fail 9005

nfhp_check "-I SVC7 2 -s client -j DROP" \
	r -I SVC7 2 -s $CLIENT_IP/32 -j DROP
nfhp_check "an update, not a rebuild" flattened_at_most 4
nfhp_check "service 7 now drops the client" tcp_fail 9007
nfhp_check "service 8 still accepts it" tcp_ok 9008
nfhp_check "service 6 still returns sport 40006" \
	from_sport 40006 tcp_fail 9006

nfhp_check "-D SVC9 1: service 9 returns nothing" r -D SVC9 1
nfhp_check "an update, not a rebuild" flattened_at_most 4
nfhp_check "service 9 accepts sport 40009" from_sport 40009 tcp_ok 9009
nfhp_check "service 10 still returns sport 40010" \
	from_sport 40010 tcp_fail 9010

nfhp_check "-I FORWARD 21 drops port 9020 before its jump" \
	r -I FORWARD 21 -p tcp --dport 9020 -j DROP
nfhp_check "an update, not a rebuild" flattened_at_most 4
nfhp_check "port 9020 dropped" tcp_fail 9020
nfhp_check "port 9019 still accepted" tcp_ok 9019
nfhp_check "port 9021 still accepted" tcp_ok 9021

nfhp_check "-D SVC3 1 and -I SVC3 1 a RETURN for 40003 only" \
	bash -c "ip netns exec $ns_router '$NFHP_BIN/nf-hipac' -D SVC3 1 &&
		 ip netns exec $ns_router '$NFHP_BIN/nf-hipac' -I SVC3 1 -p tcp --sport 40003 -j RETURN"
nfhp_check "service 3 returns sport 40003" from_sport 40003 tcp_fail 9003
nfhp_check "service 3 accepts sport 40004" from_sport 40004 tcp_ok 9003

nfhp_check "port 9064 has no service yet" tcp_fail 9064
nfhp_check "-N SVC64 and its rules and jump" \
	bash -c "ip netns exec $ns_router '$NFHP_BIN/nf-hipac' -N SVC64 &&
		 ip netns exec $ns_router '$NFHP_BIN/nf-hipac' -A SVC64 -p tcp --sport 40000:40099 -j RETURN &&
		 ip netns exec $ns_router '$NFHP_BIN/nf-hipac' -A SVC64 -j ACCEPT &&
		 ip netns exec $ns_router '$NFHP_BIN/nf-hipac' -I FORWARD 1 -d $SERVER_IP/32 -p tcp --dport 9064 -j SVC64"
nfhp_check "service 64 accepts the client" tcp_ok 9064
nfhp_check "service 64 returns sport 40064" from_sport 40064 tcp_fail 9064
nfhp_check "-I SVC64 2 after the hash table was made anew" \
	r -I SVC64 2 -s $CLIENT_IP/32 -j DROP
nfhp_check "an update, not a rebuild" flattened_at_most 4
nfhp_check "service 64 now drops the client" tcp_fail 9064
nfhp_check "service 63 still accepts it" tcp_ok 9063

exit $nfhp_rc
