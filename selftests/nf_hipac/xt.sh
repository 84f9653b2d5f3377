#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# xtables matches and targets on real packets crossing the router's
# FORWARD chain, run by the kernel's own modules (xt_run.c): REJECT with a
# TCP reset and with an ICMP error, LOG going on to the next rule, limit,
# a jump taken on every second packet (statistic), MARK followed by a
# native mark match that must see the new mark (also a rule the jump to
# its chain excludes by mark), -m owner in a user chain
# reached from OUTPUT but not from INPUT.  Then the listing and
# save format, a save/restore round trip, refusals (unknown extension,
# a checkentry that says no) that leave the rule set as it was, and the
# modules' reference counts going back to where they were after a flush.
#
# nfhp-timeout: 600

source "$(dirname "$0")/lib.sh"

nfhp_require_hipac
nfhp_require_cmd python3
nf_hipac_setup || { nfhp_log "FAIL: topology setup"; exit 1; }

r() { nfhp_in $ns_router "$@"; }
flushed() { r -F && r -X && ping_ok && tcp_ok 8080; }

# refused PROTO PORT - the server listens, yet the request is refused at
# once: a TCP reset or an ICMP port unreachable came back, not a timeout.
refused() { nfhp_refused "$1" "$2"; }

# pings N - how many of N single pings are answered.
pings()
{
	local i n=0

	for i in $(seq "$1"); do
		ping_ok && n=$((n + 1))
	done
	echo $n
}

refcnt() { cat /sys/module/"$1"/refcnt 2>/dev/null || echo 0; }

# held NAME / unheld NAME... - rules hold the module NAME, or no longer
# do.  A module that is not loaded is built in (the debug kernel's), as
# the rules using it loaded: nothing to count then.
loaded() { grep -q "^$1 " /proc/modules; }
held() { ! loaded "$1" || [ "$(refcnt "$1")" -gt 0 ]; }
unheld()
{
	local m

	for m in "$@"; do
		! loaded "$m" || [ "$(refcnt "$m")" -eq 0 ] || return 1
	done
}

nfhp_check "REJECT --reject-with tcp-reset" \
	r -A FORWARD -p tcp --dport 8080 -j REJECT --reject-with tcp-reset
nfhp_check "tcp/8080 is reset" refused tcp 8080
nfhp_check "tcp/8081 passes" tcp_ok 8081
nfhp_check "REJECT (icmp-port-unreachable) for udp/5353" \
	r -I FORWARD 1 -p udp --dport 5353 -j REJECT
nfhp_check "udp/5353 gets port unreachable" refused udp 5353
nfhp_check "udp/5354 passes" udp_ok 5354
list=$(r -L FORWARD -n 2>&1)
nfhp_check "-L shows the reject type" \
	grep -q "REJECT .*tcp dpt:8080 reject-with tcp-reset" <<<"$list"
nfhp_check "-L shows the default reject type" \
	grep -q "REJECT .*udp dpt:5353 reject-with icmp-port-unreachable" \
	<<<"$list"
save=$(nfhp_save_in $ns_router 2>&1)
nfhp_check "save prints iptables' form" grep -qx -- \
	"-A FORWARD -p tcp -m tcp --dport 8080 -j REJECT --reject-with tcp-reset" \
	<<<"$save"
nfhp_check "the REJECT module is held" held ipt_REJECT
nfhp_check "flush" flushed
nfhp_check "flush lets the REJECT module go" unheld ipt_REJECT

# LOG logs and lets the next rule decide.
echo 1 >/proc/sys/net/netfilter/nf_log_all_netns
nfhp_check "LOG then DROP for tcp/8080" eval \
	'r -A FORWARD -p icmp -j LOG --log-prefix "nfhp-xt-$$ " &&
	 r -A FORWARD -p tcp --dport 8080 -j LOG --log-prefix "nfhp-xt-$$ " &&
	 r -A FORWARD -p tcp --dport 8080 -j DROP'
nfhp_check "ping passes the LOG rule" ping_ok
nfhp_check "tcp/8080 is logged, then dropped" tcp_fail 8080
nfhp_check "the kernel log has the prefix" \
	eval "dmesg | grep -q 'nfhp-xt-$$ IN=veth0 OUT=veth1'"
cnt=$(r -L FORWARD -v -x -n | awk '$3 == "LOG" { print $1 }' | head -1)
nfhp_check "the LOG rule counted the ping ($cnt packets)" test "${cnt:-0}" -ge 1
nfhp_check "flush" flushed

# Echo requests only: the replies cross FORWARD too.
nfhp_check "limit 2 then DROP" eval \
	'r -A FORWARD -p icmp --icmp-type echo-request -m limit --limit 1/hour --limit-burst 2 -j ACCEPT &&
	 r -A FORWARD -p icmp --icmp-type echo-request -j DROP'
n=$(pings 5)
nfhp_check "2 of 5 pings pass the limit ($n)" test "$n" -eq 2
nfhp_check "flush" flushed

# A jump taken on every second packet: the chain's DROP only then.
nfhp_check "statistic --every 2 -j U1, U1 drops" eval \
	'r -N U1 && r -A U1 -p icmp -j DROP &&
	 r -A FORWARD -p icmp --icmp-type echo-request -m statistic --mode nth --every 2 --packet 0 -j U1'
n=$(pings 6)
nfhp_check "3 of 6 pings pass the jump ($n)" test "$n" -eq 3
nfhp_check "flush" flushed

# A mark set by a target is what a later native match sees.
nfhp_check "MARK --set-mark 7, then DROP mark 7 for tcp/8080" eval \
	'r -A FORWARD -p tcp -j MARK --set-mark 7 &&
	 r -A FORWARD -p tcp --dport 8080 -m mark --mark 7 -j DROP'
nfhp_check "tcp/8080 with the new mark is dropped" tcp_fail 8080
nfhp_check "tcp/8081 passes" tcp_ok 8081
nfhp_check "flush" flushed

# In a chain entered with mark 0, a rule for mark 7 is out of every tree
# (the jump excludes it), yet after the chain's MARK it matches.
nfhp_check "-m mark --mark 0 -j M; M: MARK 7, then DROP mark 7 tcp/8082" eval \
	'r -N M && r -A M -j MARK --set-mark 7 &&
	 r -A M -p tcp --dport 8082 -m mark --mark 7 -j DROP &&
	 r -A FORWARD -p tcp -m mark --mark 0 -j M'
nfhp_check "tcp/8082 is dropped after the chain's MARK" tcp_fail 8082
nfhp_check "tcp/8083 passes" tcp_ok 8083
nfhp_check "flush" flushed

# The same for a jump the entry's mark excludes: its chain is walked after
# the MARK, and the jump counts the packet.
nfhp_check "-m mark --mark 0 -j M; M: MARK 7, then mark 7 -j D; D drops tcp/8084" eval \
	'r -N D && r -A D -p tcp --dport 8084 -j DROP &&
	 r -N M && r -A M -j MARK --set-mark 7 &&
	 r -A M -p tcp -m mark --mark 7 -j D &&
	 r -A FORWARD -p tcp -m mark --mark 0 -j M'
nfhp_check "tcp/8084 is dropped in the chain after the MARK" tcp_fail 8084
nfhp_check "tcp/8085 passes" tcp_ok 8085
cnt=$(r -L M -v -x -n | awk '$3 == "D" { print $1 }')
nfhp_check "the jump to D counted both ($cnt packets)" test "${cnt:-0}" -ge 2
nfhp_check "flush" flushed

# -m owner is valid at OUTPUT only: in a user chain, the hooks that reach
# the chain decide, as in iptables.
nfhp_check "owner in a user chain reached from OUTPUT" eval \
	'r -N OWN && r -A OWN -p icmp -m owner --uid-owner 0 -j DROP &&
	 r -A OUTPUT -j OWN'
nfhp_check "the router's own pings are dropped" eval \
	'! in_ns $ns_router ping -c 1 -W 1 -q $SERVER_IP >/dev/null 2>&1'
nfhp_check "forwarded pings pass" ping_ok
r -A INPUT -j OWN >/tmp/xt-out.$$ 2>&1
rc=$?
nfhp_check "a jump to it from INPUT is refused ($rc: $(head -1 /tmp/xt-out.$$))" \
	test $rc -ne 0
nfhp_check "and INPUT stays empty" \
	eval 'test -z "$(r -S INPUT | grep -v "^-P")"'
nfhp_check "flush" flushed

# Round trip and refusals.
rules='*filter
:INPUT ACCEPT [0:0]
:FORWARD DROP [0:0]
:OUTPUT ACCEPT [0:0]
-A FORWARD -p icmp -m limit --limit 5/sec -j ACCEPT
-A FORWARD -p tcp -m tcp --dport 22 -m conntrack --ctstate NEW -m recent --set --name ssh --mask 255.255.255.255 --rsource
-A FORWARD -m pkttype --pkt-type unicast -m string --string "x" --algo bm --to 65535 -j LOG --log-prefix "p "
-A FORWARD -p udp -m udp --dport 53 -j REJECT --reject-with icmp-host-prohibited
COMMIT'
nfhp_check "restore a rule set of extensions" \
	nfhp_restore_in $ns_router <<<"$rules"
save=$(nfhp_save_in $ns_router | grep -v '^#')
nfhp_check "save, restore, save gives the same text" eval \
	'nfhp_restore_in $ns_router <<<"$save" &&
	 test "$(nfhp_save_in $ns_router | grep -v "^#")" = "$save"'
r -A FORWARD -m nosuchmatch -j DROP >/tmp/xt-out.$$ 2>&1
rc=$?
nfhp_check "an unknown match exits 2 ($rc)" test $rc -eq 2
nfhp_check "with iptables' message" \
	grep -q "Couldn't load match \`nosuchmatch'" /tmp/xt-out.$$
r -A FORWARD -p udp -j REJECT --reject-with tcp-reset >/tmp/xt-out.$$ 2>&1
rc=$?
nfhp_check "a rule the target's check refuses fails ($rc)" test $rc -ne 0
nfhp_check "and leaves the rule set as it was" eval \
	'test "$(nfhp_save_in $ns_router | grep -v "^#")" = "$save"'
rm -f /tmp/xt-out.$$

# Sent again unchanged, rules whose extensions keep no state are taken back
# (kernel/adopt.c, "Adoption"): the commit flattens nothing.  A limit
# starts afresh, as with iptables-restore: its rule is flattened anew.
flattened()
{
	ip netns exec $ns_router awk '/^last commit flattened:/ { print $4 }' \
		/proc/net/nf-hipac/info
}
stateless='*filter
:INPUT ACCEPT [0:0]
:FORWARD DROP [0:0]
:OUTPUT ACCEPT [0:0]
-A FORWARD -p udp -m udp --dport 53 -j REJECT --reject-with icmp-host-prohibited
-A FORWARD -m pkttype --pkt-type unicast -m string --string "x" --algo bm --to 65535 -j LOG --log-prefix "q "
-A FORWARD -p tcp -m tcp --dport 80 -m conntrack --ctstate NEW -j ACCEPT
COMMIT'
nfhp_check "restore REJECT, LOG, pkttype and string rules twice" eval \
	'nfhp_restore_in $ns_router <<<"$stateless" &&
	 nfhp_restore_in $ns_router <<<"$stateless"'
nfhp_check "the second commit flattened nothing ($(flattened))" \
	test "$(flattened)" = 0
limited=${stateless%COMMIT}'-A FORWARD -p icmp -m limit --limit 5/sec -j ACCEPT
COMMIT'
nfhp_check "restore them with a limit rule twice" eval \
	'nfhp_restore_in $ns_router <<<"$limited" &&
	 nfhp_restore_in $ns_router <<<"$limited"'
nfhp_check "the limit rule was flattened anew ($(flattened))" \
	test "$(flattened)" -ge 1
nfhp_check "policy ACCEPT, flush" eval 'r -P FORWARD ACCEPT && flushed'

# A namespace that dies with rules whose modules keep per-namespace state:
# their destroy runs after their own namespace exit.
ns_doomed=nfhp-xt-doomed-$$
doomed='*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
-A INPUT -p tcp -m hashlimit --hashlimit-upto 5/sec --hashlimit-mode srcip --hashlimit-name nfhp -j ACCEPT
-A INPUT -m recent --set --name nfhp --rsource
-A INPUT -p tcp -m connlimit --connlimit-above 3 -j REJECT --reject-with tcp-reset
-A INPUT -m conntrack --ctstate NEW -j LOG --log-prefix "doomed "
-A INPUT -j NFLOG --nflog-group 3
COMMIT'
dmesg_before=$(dmesg | wc -l)
nfhp_check "rules with per-namespace module state in a new namespace" eval \
	'ip netns add $ns_doomed &&
	 ip -n $ns_doomed link set lo up &&
	 nfhp_restore_in $ns_doomed <<<"$doomed" &&
	 in_ns $ns_doomed ping -c 2 -i 0.2 -q 127.0.0.1 >/dev/null'
nfhp_check "the namespace dies with them" ip netns del $ns_doomed
sleep 2
nfhp_check "without a kernel warning" eval \
	'! dmesg | tail -n +$((dmesg_before + 1)) | grep -E "WARNING|BUG|Oops|refcount"'
nfhp_check "and its modules are let go" \
	unheld xt_hashlimit xt_recent xt_connlimit
nfhp_check "no module is held after the flush" \
	unheld xt_limit xt_recent ipt_REJECT

exit $nfhp_rc
