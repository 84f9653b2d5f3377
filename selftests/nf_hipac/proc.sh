#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# /proc/net/nf-hipac of the router: info shows the memory bound and use,
# chain and rule counts, the commits and how long the last one took, the
# commits a signal stopped and the tree builds cut short (none here:
# bounded.sh makes both), and the hook order; writing N sets the bound to N
# MiB, a bound below the current use is refused; "iptables-first" and
# "nf-hipac-first" move the hooks, which is visible with an iptables rule
# that drops what an nf-hipac counting rule would see.  statistics/* show
# the trees.  Without CAP_NET_ADMIN they can be neither written nor read
# (perm.sh tests the reading in full).
#
# nfhp-timeout: 300

source "$(dirname "$0")/lib.sh"

nfhp_require_hipac
nf_hipac_setup || { nfhp_log "FAIL: topology setup"; exit 1; }

r() { nfhp_in $ns_router "$@"; }
info() { in_ns $ns_router cat /proc/net/nf-hipac/info; }

# field NAME - the number after "NAME:" in info.
field()
{
	info | awk -v k="$1:" 'index($0, k) == 1 {
		$0 = substr($0, length(k) + 1); print $1; exit }'
}

# fails CMD... - CMD must fail.
fails() { ! "$@" 2>/dev/null; }

# write_info STRING - write STRING to the router's info file.
write_info() { in_ns $ns_router sh -c "echo '$1' > /proc/net/nf-hipac/info"; }

ram=$(awk '/^MemTotal:/ { print $2 * 1024 }' /proc/meminfo)

nfhp_check "info is readable" [ -n "$(info)" ]
for k in "maximum memory bound" "total memory (used)" \
	 "total memory (allocated)" "total number of chains" \
	 "total number of rules" "commits" "last commit took" \
	 "commits stopped by signal" "last commit flattened" \
	 "splits built by two CPUs" "tree updates given up" \
	 "tree builds cut short" "memory of counters"; do
	nfhp_check "info has '$k:'" [ -n "$(field "$k")" ]
done
nfhp_check "no commit stopped by a signal yet" \
	[ "$(field "commits stopped by signal")" = 0 ]
nfhp_check "no tree build cut short yet" \
	[ "$(field "tree builds cut short")" = 0 ]
nfhp_check "default bound is about half of the RAM" \
	awk -v b="$(field "maximum memory bound")" -v r="$ram" \
	'BEGIN { exit !(b > r * 0.4 && b <= r * 0.5) }'
nfhp_check "invoked before iptables by default" \
	bash -c "ip netns exec $ns_router cat /proc/net/nf-hipac/info |
		 grep -qx 'nf-hipac is invoked before iptables'"
nfhp_check "no rules at first" [ "$(field "total number of rules")" = 0 ]
nfhp_check "no counters at first" [ "$(field "memory of counters")" = 0 ]

nfhp_check "three rules and a chain" \
	bash -c "ip netns exec $ns_router '$NFHP_BIN/nf-hipac' -N c &&
		 ip netns exec $ns_router '$NFHP_BIN/nf-hipac' -A c -j RETURN &&
		 ip netns exec $ns_router '$NFHP_BIN/nf-hipac' -A FORWARD -p tcp -j c &&
		 ip netns exec $ns_router '$NFHP_BIN/nf-hipac' -A FORWARD -s 10.9.0.0/16 -j DROP"
nfhp_check "3 rules counted" [ "$(field "total number of rules")" = 3 ]
nfhp_check "4 chains counted" [ "$(field "total number of chains")" = 4 ]
nfhp_check "memory in use" [ "$(field "total memory (used)")" -gt 0 ]
nfhp_check "counters take memory" [ "$(field "memory of counters")" -gt 0 ]
commits=$(field "commits")
nfhp_check "the four changes were commits" [ "$commits" -ge 4 ]
nfhp_check "the last one took a time" [ "$(field "last commit took")" -gt 0 ]
nfhp_check "a loop is refused at the commit" \
	bash -c "! ip netns exec $ns_router '$NFHP_BIN/nf-hipac' -A c -j c 2>/dev/null"
nfhp_check "commits unchanged" [ "$(field "commits")" = "$commits" ]

nfhp_check "write 64 (MiB)" write_info 64
nfhp_check "bound is 64 MiB" \
	[ "$(field "maximum memory bound")" = $((64 << 20)) ]
nfhp_check "a bound below the use is refused" fails write_info 0
nfhp_check "bound unchanged after the refusal" \
	[ "$(field "maximum memory bound")" = $((64 << 20)) ]
nfhp_check "garbage is refused" fails write_info "lots"
nfhp_check "write 999999999 is capped at the RAM" write_info 999999999
nfhp_check "bound capped" [ "$(field "maximum memory bound")" -le "$ram" ]
nfhp_check "rules still load" r -A FORWARD -s 10.8.0.0/16 -j DROP

nfhp_check "statistics/forward" \
	bash -c "ip netns exec $ns_router cat /proc/net/nf-hipac/statistics/forward |
		 grep -q 'root chain: FORWARD'"
# stat NAME - the number after "NAME:" in statistics/forward.
stat()
{
	in_ns $ns_router cat /proc/net/nf-hipac/statistics/forward |
		awk -v k="$1:" '{ sub(/^ +/, "") } index($0, k) == 1 {
			$0 = substr($0, length(k) + 1); print $1; exit }'
}
# A bounded build's tested leaves (bounded.sh makes some): none here.
for k in "of which tested" "tested entries" "largest tested leaf"; do
	nfhp_check "statistics/forward has '$k:', 0" [ "$(stat "$k")" = 0 ]
done
nfhp_check "FORWARD's entries take memory" [ "$(stat "memory of entries")" -gt 0 ]
nfhp_check "statistics/input" \
	in_ns $ns_router cat /proc/net/nf-hipac/statistics/input >/dev/null
nfhp_check "statistics/output" \
	in_ns $ns_router cat /proc/net/nf-hipac/statistics/output >/dev/null
nfhp_check "statistics/shadowed" \
	in_ns $ns_router cat /proc/net/nf-hipac/statistics/shadowed >/dev/null
nfhp_check "-A a rule shadowed by its twin" \
	r -A FORWARD -s 10.8.0.0/16 -j DROP
nfhp_check "shadowed lists FORWARD 4" \
	bash -c "ip netns exec $ns_router cat /proc/net/nf-hipac/statistics/shadowed |
		 grep -qx 'FORWARD 4'"

# List nodes (kernel/tree.c): a restore builds the tree afresh, and the
# client's region, with the echo-request rule, its short-header entry and
# the policy, becomes one list node.  Pings must still be dropped by it,
# and pass once a delete has cut the list.
lists()
{
	in_ns $ns_router cat /proc/net/nf-hipac/statistics/forward |
		awk '/of which lists:/ { print $4 }'
}
ping_passes() { in_ns $ns_client $NFHP_PING -q -c1 -W1 $SERVER_IP >/dev/null 2>&1; }
listrules=$(mktemp)
{
	echo "*filter"
	echo ":FORWARD ACCEPT [0:0]"
	echo "-A FORWARD -s $CLIENT_IP/32 -p icmp -m icmp --icmp-type 8 -j DROP"
	for i in $(seq 1 100); do echo "-A FORWARD -s 10.9.0.$i/32 -j DROP"; done
	echo "COMMIT"
} > "$listrules"
nfhp_check "restore of 101 rules" nfhp_restore_in $ns_router < "$listrules"
rm -f "$listrules"
nfhp_check "statistics/forward counts list nodes" [ "$(lists)" -ge 1 ]
nfhp_check "the list node drops the ping" fails ping_passes
nfhp_check "-D FORWARD 1 cuts the list" r -D FORWARD 1
nfhp_check "the ping passes after the delete" ping_passes
r -F FORWARD

# Folding (kernel/group.c): /16 sources share the tree of the /32 ones
# unless they nest many of them.  50 /16 rules beside 150 /32 outside them
# make two trees with the policy's; with the /32 inside (7,500 copies, 37
# an entry, past NFHP_FOLD_COPIES), three.
trees()
{
	in_ns $ns_router cat /proc/net/nf-hipac/statistics/forward |
		awk '/number of trees:/ { print $4 }'
}

# Shadowed by two trees between them (kernel/stats.c): -d 10.32.0.0/12
# lies in the tree of wide sources, the /24 source's rule in that of
# narrow ones; -s 192.0.2.1 -d 10.32.0.0/11 is covered by the two, half
# each; -s 192.0.2.1 -d 10.32.0.0/10 is not.
shadowrules=$(mktemp)
cat > "$shadowrules" <<'EOF'
*filter
:FORWARD ACCEPT [0:0]
-A FORWARD -d 10.32.0.0/12 -j DROP
-A FORWARD -s 192.0.2.0/24 -d 10.48.0.0/12 -j DROP
-A FORWARD -s 192.0.2.1/32 -d 10.32.0.0/11 -j DROP
-A FORWARD -s 192.0.2.1/32 -d 10.32.0.0/10 -j DROP
COMMIT
EOF
nfhp_check "restore: a rule two others cover from two trees" \
	nfhp_restore_in $ns_router < "$shadowrules"
rm -f "$shadowrules"
nfhp_check "statistics/forward shows the two trees" \
	[ "$(trees)" -ge 2 ]
nfhp_check "shadowed lists the rule the two cover, not its wider twin" \
	[ "$(in_ns $ns_router cat /proc/net/nf-hipac/statistics/shadowed)" = \
	  "FORWARD 3" ]
r -F FORWARD

# fold_rules NET - 50 rules -s 10.9.0.0/16, then 150 -s NET.N/32.
fold_rules()
{
	echo "*filter"
	echo ":FORWARD ACCEPT [0:0]"
	for i in $(seq 1 50); do echo "-A FORWARD -s 10.9.0.0/16 -j DROP"; done
	for i in $(seq 1 150); do echo "-A FORWARD -s $1.$i/32 -j DROP"; done
	echo "COMMIT"
}
foldrules=$(mktemp)
fold_rules 10.8.0 > "$foldrules"
nfhp_check "restore of /16 rules beside /32 ones" \
	nfhp_restore_in $ns_router < "$foldrules"
nfhp_check "they share a tree: two in all" [ "$(trees)" = 2 ]
fold_rules 10.9.0 > "$foldrules"
nfhp_check "restore of /16 rules over /32 ones" \
	nfhp_restore_in $ns_router < "$foldrules"
nfhp_check "the /16 get a tree of their own: three" [ "$(trees)" = 3 ]
rm -f "$foldrules"
r -F FORWARD

# Narrow sources share one tree whatever their destination (group.c).
nfhp_check "-s 10.1.1.1 -j DROP" r -A FORWARD -s 10.1.1.1 -j DROP
nfhp_check "-s 10.1.1.2 -d 10.2.2.2 -j DROP" \
	r -A FORWARD -s 10.1.1.2 -d 10.2.2.2 -j DROP
nfhp_check "narrow sources, wide and narrow destinations: one tree, two in all" \
	[ "$(trees)" = 2 ]
r -F FORWARD

# Updates of a hook with user chains (nfhp_update_rules()): a rule put
# into one of 20 chains of 30 rules is flattened alone, the other 620
# entries carried over, and packets see it at once; with a RETURN too.
chainrules=$(mktemp)
{
	echo "*filter"
	echo ":FORWARD ACCEPT [0:0]"
	for i in $(seq 0 19); do echo ":c$i - [0:0]"; done
	for i in $(seq 0 19); do
		n=$((100 + i))
		echo "-A FORWARD -s 10.$n.0.0/16 -j c$i"
		for j in $(seq 1 30); do echo "-A c$i -s 10.$n.$j.0/24 -j DROP"; done
	done
	echo "-A FORWARD -j c19"
	echo "COMMIT"
} > "$chainrules"
nfhp_check "restore of 20 chains of 30 rules" \
	nfhp_restore_in $ns_router < "$chainrules"
rm -f "$chainrules"
nfhp_check "the restore flattened them all" \
	[ "$(field "last commit flattened")" -gt 600 ]
# update_round POS WHAT - -I c19 POS drops the ping, flattening one entry;
# -D c19 POS flattens none and lets it pass again.
update_round()
{
	nfhp_check "$2: -I c19 $1 drops the ping" \
		r -I c19 "$1" -s $CLIENT_IP/32 -p icmp -j DROP
	nfhp_check "$2: that commit flattened one entry" \
		[ "$(field "last commit flattened")" = 1 ]
	nfhp_check "$2: the ping is dropped" fails ping_passes
	nfhp_check "$2: -D c19 $1" r -D c19 "$1"
	nfhp_check "$2: that commit flattened none" \
		[ "$(field "last commit flattened")" = 0 ]
	nfhp_check "$2: the ping passes" ping_passes
}
update_round 5 "chains"
# A RETURN merges the hook's trees into one, rebuilt once; then updates
# place new entries around the RETURN's scope (nfhp_flat_scopes()).
nfhp_check "-I c19 1 -p udp -j RETURN" r -I c19 1 -p udp -j RETURN
nfhp_check "the first RETURN rebuilt the hook" \
	[ "$(field "last commit flattened")" -gt 600 ]
update_round 6 "with a RETURN"
# The ping RETURNs from c19 over a rule that drops it.  A rule then put
# behind the last jump to c19 but before another must end the RETURN's
# scope: an update that left the end where it was (at the other rule)
# would skip the new rule too, and the ping would pass.
nfhp_check "-I c19 1 the ping RETURNs" \
	r -I c19 1 -s $CLIENT_IP/32 -p icmp -j RETURN
nfhp_check "-I c19 2 drops the ping" \
	r -I c19 2 -s $CLIENT_IP/32 -p icmp -j DROP
nfhp_check "the RETURN skips it: the ping passes" ping_passes
nfhp_check "-A FORWARD -p udp -j DROP" r -A FORWARD -p udp -j DROP
nfhp_check "-I FORWARD 22 drops the ping" \
	r -I FORWARD 22 -s $CLIENT_IP/32 -p icmp -j DROP
nfhp_check "that commit flattened one entry" \
	[ "$(field "last commit flattened")" = 1 ]
nfhp_check "the RETURN's scope ends at it: the ping is dropped" \
	fails ping_passes
nfhp_check "-F and -X" bash -c "ip netns exec $ns_router '$NFHP_BIN/nf-hipac' -F &&
	ip netns exec $ns_router '$NFHP_BIN/nf-hipac' -X"

# Shadowed across trees (kernel/stats.c): a /32 rule is in a tree of its
# own, yet the wide rule before it decides every packet it could match.
shadowed()
{
	in_ns $ns_router cat /proc/net/nf-hipac/statistics/shadowed |
		tr '\n' ' '
}
nfhp_check "-A -p udp -j DROP" r -A FORWARD -p udp -j DROP
nfhp_check "-A -s 10.9.0.1 -p udp -j DROP" \
	r -A FORWARD -s 10.9.0.1/32 -p udp -j DROP
nfhp_check "-A -s 10.9.0.1 -j DROP" r -A FORWARD -s 10.9.0.1/32 -j DROP
nfhp_check "only the /32 UDP rule is shadowed" \
	[ "$(shadowed)" = "FORWARD 2 " ]
r -F FORWARD

# Hook order, seen through an iptables rule that drops pings: an nf-hipac
# counting rule sees them only when nf-hipac runs first.
if command -v iptables >/dev/null 2>&1 &&
   in_ns $ns_router iptables -A FORWARD -p icmp -j DROP 2>/dev/null; then
	pings()
	{
		r -L FORWARD -n -v -x | awk 'NR == 3 { print $1; exit }'
	}
	r -F FORWARD
	r -A FORWARD -p icmp
	in_ns $ns_client $NFHP_PING -q -c1 -W1 $SERVER_IP >/dev/null 2>&1
	nfhp_check "nf-hipac-first: nf-hipac counted the ping" [ "$(pings)" = 1 ]
	nfhp_check "write iptables-first" write_info iptables-first
	nfhp_check "info says after iptables" \
		bash -c "ip netns exec $ns_router cat /proc/net/nf-hipac/info |
			 grep -qx 'nf-hipac is invoked after iptables'"
	in_ns $ns_client $NFHP_PING -q -c1 -W1 $SERVER_IP >/dev/null 2>&1
	nfhp_check "iptables-first: iptables dropped it before nf-hipac" \
		[ "$(pings)" = 1 ]
	nfhp_check "write nf-hipac-first" write_info nf-hipac-first
	in_ns $ns_client $NFHP_PING -q -c1 -W1 $SERVER_IP >/dev/null 2>&1
	nfhp_check "nf-hipac-first again: counted" [ "$(pings)" = 2 ]
	in_ns $ns_router iptables -F FORWARD
else
	nfhp_log "iptables unusable, hook order not tested"
fi

nfhp_check "nobody cannot write info" \
	fails in_ns $ns_router setpriv --reuid=65534 --regid=65534 \
		--clear-groups sh -c "echo 1000 > /proc/net/nf-hipac/info"
nfhp_check "nobody cannot read info" \
	fails in_ns $ns_router setpriv --reuid=65534 --regid=65534 \
		--clear-groups cat /proc/net/nf-hipac/info

exit $nfhp_rc
