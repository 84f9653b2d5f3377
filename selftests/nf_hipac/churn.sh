#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Lifecycle churn.
#
# Namespaces: NFHP_CHURN_NETNS (default 8) network namespaces are created
# one after the other, at most four alive at a time.  Each gets a rule set
# (OUTPUT drops udp/9999, counts udp/9998), local traffic to itself
# through those rules, and is destroyed while the traffic still runs (the
# sender is killed and the namespace deleted at once, so its rule set goes
# with the namespace exit).  Every new namespace must start empty, load
# its rules and act on them.
#
# Module: NFHP_CHURN_RELOADS (default 2) times, with rules loaded in the
# router and in two spare namespaces and datagrams flowing through the
# router, rmmod nf_hipac must succeed, traffic must flow unfiltered, and
# after insmod (NFHP_MODULE, as unload.sh) the rule sets must start empty
# and new rules must act again.
#
# nfhp-timeout: 600

source "$(dirname "$0")/lib.sh"

nfhp_require_hipac
nfhp_require_cmd python3 rmmod insmod
nf_hipac_setup || { nfhp_log "FAIL: topology setup"; exit 1; }

module=${NFHP_MODULE:-$NFHP_TOP/nf_hipac.ko}
[ -f "$module" ] || nfhp_skip "$module not built"
NNETNS=${NFHP_CHURN_NETNS:-8}
NRELOADS=${NFHP_CHURN_RELOADS:-2}
tmp=$(mktemp -d /tmp/nfhp-churn.XXXXXX)
prefix=nfhp-churn-$$
alive=()
trap 'for ns in ${alive[@]} $prefix-spare1 $prefix-spare2; do
	for p in $(ip netns pids $ns 2>/dev/null); do kill -9 $p; done
	ip netns del $ns 2>/dev/null; done
      [ -d /sys/module/nf_hipac ] || nfhp_insmod "$module"
      nfhp_cleanup; rm -rf $tmp' EXIT

# Local traffic in a namespace: udp to 127.0.0.1 ports 9998 and 9999
# every 10 ms, forever; errors (EPERM from the OUTPUT drop) are ignored.
sender='
import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
while True:
    for port in (9998, 9999):
        try:
            s.sendto(b"x", ("127.0.0.1", port))
        except OSError:
            pass
    time.sleep(0.01)
'

ns_rules()
{
	cat <<-EOF
	*filter
	:INPUT ACCEPT [0:0]
	:FORWARD DROP [0:0]
	:OUTPUT ACCEPT [0:0]
	:count - [0:0]
	-A OUTPUT -p udp --dport 9998 -j count
	-A OUTPUT -p udp --dport 9999 -j DROP
	-A count -j ACCEPT
	-A INPUT -s 172.16.$1.0/24 -j DROP
	COMMIT
	EOF
}

# packets NS CHAIN - packet count of the first rule of CHAIN in NS.
packets()
{
	ip netns exec "$1" "$NFHP_BIN/nf-hipac" -L "$2" -v -x -n |
		awk 'NR > 2 { print $1; exit }'
}

# new_ns I - create namespace number I with rules and traffic; 0 if it
# all works.
new_ns()
{
	local ns=$prefix-$1 p

	ip netns add $ns || return 1
	alive+=($ns)
	ip -n $ns link set lo up || return 1
	[ "$(nfhp_in $ns -S | grep -c '^-[AN]')" = 0 ] ||
		{ nfhp_log "$ns does not start empty"; return 1; }
	ns_rules $1 | nfhp_restore_in $ns || return 1
	nfhp_bg_in $ns python3 -c "$sender"
	# The drop acts on local output: the sender gets EPERM.
	in_ns $ns bash -c 'echo x >/dev/udp/127.0.0.1/9999' 2>$tmp/err &&
		{ nfhp_log "$ns: udp/9999 not dropped"; return 1; }
	grep -q 'not permitted' $tmp/err ||
		{ nfhp_log "$ns: udp/9999: $(cat $tmp/err)"; return 1; }
	for p in $(seq 50); do
		[ "$(packets $ns count)" -gt 0 ] 2>/dev/null && return 0
		sleep 0.1
	done
	nfhp_log "$ns: the sender's packets are not counted"
	return 1
}

# kill_ns - destroy the oldest namespace with its traffic still running.
kill_ns()
{
	local ns=${alive[0]} p

	alive=("${alive[@]:1}")
	for p in $(ip netns pids $ns); do
		kill -9 $p
	done
	ip netns del $ns
}

ok=0
for ((i = 0; i < NNETNS; i++)); do
	new_ns $i && ok=$((ok + 1))
	[ ${#alive[@]} -lt 4 ] || kill_ns
done
while [ ${#alive[@]} -gt 0 ]; do
	kill_ns
done
nfhp_check "$ok of $NNETNS namespaces started empty, loaded and acted" \
	[ $ok = $NNETNS ]
# Let the namespace exits run, then a namespace must still work.
sleep 1
nfhp_check "a namespace after the churn" new_ns $NNETNS
kill_ns

# --- module unload and reload with rules and traffic ------------------------

router_rules()
{
	cat <<-EOF
	*filter
	:FORWARD DROP [0:0]
	:allow - [0:0]
	-A FORWARD -m state --state ESTABLISHED,RELATED -j ACCEPT
	-A FORWARD -p tcp --dport 8080 -j allow
	-A FORWARD -p udp --dport 6000 -j ACCEPT
	-A allow -j ACCEPT
	COMMIT
	EOF
}

# The count file is replaced whole (rename), never read half written.
nfhp_bg_in $ns_server python3 -c '
import os, socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("0.0.0.0", 6000))
n = 0
while True:
    s.recv(64)
    n += 1
    if n % 50 == 0:
        open(sys.argv[1] + ".new", "w").write("%d\n" % n)
        os.replace(sys.argv[1] + ".new", sys.argv[1])
' $tmp/udp-count
nfhp_bg_in $ns_client python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
while True:
    s.sendto(b"x", (sys.argv[1], 6000))
    time.sleep(0.01)
' $SERVER_IP

udp_count() { cat $tmp/udp-count 2>/dev/null || echo 0; }

reload_ok=0
for ((i = 0; i < NRELOADS; i++)); do
	step=true
	router_rules | nfhp_restore_in $ns_router && tcp_fail 8081 ||
		{ step=false; nfhp_log "reload $i: rules do not act before rmmod"; }
	for s in spare1 spare2; do
		ip netns add $prefix-$s 2>/dev/null
		ns_rules 200 | nfhp_restore_in $prefix-$s || step=false
	done
	before=$(udp_count)
	rmmod nf_hipac || { step=false; nfhp_log "reload $i: rmmod failed"; }
	[ ! -d /sys/module/nf_hipac ] || step=false
	tcp_ok 8081 || { step=false; nfhp_log "reload $i: no traffic without the module"; }
	nfhp_insmod "$module" || { step=false; nfhp_log "reload $i: insmod failed"; }
	for ns in $ns_router $prefix-spare1 $prefix-spare2; do
		[ "$(nfhp_in $ns -S | grep -c '^-[AN]')" = 0 ] ||
			{ step=false; nfhp_log "reload $i: $ns not empty"; }
	done
	router_rules | nfhp_restore_in $ns_router && tcp_fail 8081 ||
		{ step=false; nfhp_log "reload $i: rules do not act after insmod"; }
	[ "$(udp_count)" -gt "$before" ] ||
		{ step=false; nfhp_log "reload $i: udp/6000 stopped flowing"; }
	# Keep the spares for the next rmmod: with rules, without flushing.
	$step && reload_ok=$((reload_ok + 1))
done
nfhp_check "$reload_ok of $NRELOADS unload/reload rounds with rules and traffic" \
	[ $reload_ok = $NRELOADS ]
nfhp_check "module loaded at the end" [ -d /sys/module/nf_hipac ]
nfhp_check "the last rule set accepts tcp/8080" tcp_ok 8080
nfhp_check "router: flush" nfhp_in $ns_router -F

exit $nfhp_rc
