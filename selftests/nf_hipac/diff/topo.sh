#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# topo.sh - the two identical router topologies of iptables_diff.sh.
# Source it; diff_topo_setup builds, diff_topo_cleanup tears down.
#
#                 tester namespace (raw frames only, no addresses)
#    a_c0 a_c1 a_c2 a_s                           b_c0 b_c1 b_c2 b_s
#     |    |    |    |                             |    |    |    |
#   veth0 veth10 eth1 srv0                      veth0 veth10 eth1 srv0
#        router A: iptables-legacy                   router B: nf-hipac
#
# Both routers have the same interface names, addresses, routes and static
# neighbours, so a frame sent on a_X and the same frame sent on b_X cross
# the FORWARD hook of their router with exactly the same key.  The routers
# forward 10.1/16, 10.2/16 and 10.3/16 to the three client-side interfaces
# and everything else to srv0; the next hops are permanent neighbours (the
# tester's MACs), so no ARP is ever needed and any source address works
# (rp_filter off).  Redirects are off and ICMP errors unlimited (the global
# limit, which both routers share, too: its burst is 50), so the
# little traffic the routers make themselves is deterministic too.
#
# Both routers set the packet mark in mangle PREROUTING from the TOS bits
# 2-5 (iptables-legacy mangle in both: nf-hipac only replaces filter) and
# NOTRACK packets whose TOS low bits are 01 (raw table), so the mark and the
# UNTRACKED state are chosen by the sender.  The MARK table below must match
# MARKS in gen.py.
#
# diff_topo_setup 6 makes them dual-stack for iptables_diff6.sh: IPv6
# forwarding, fd00:100::/64 .. fd00:103::/64 on the four links (no DAD),
# 2001:db8:1::/48, :2::/48 and :3::/48 routed to the client side and the
# rest to srv0 via permanent neighbours, and the same mark and NOTRACK
# rules from the traffic class in ip6tables-legacy's mangle and raw.  The
# IPv4 client nets made IPv6 by bench/ipv4to6.py (10.1.0.0/16 becomes
# fd00:a:100::/40, ...: pkt.MAPPED_NETS6) go where their originals go, so
# that the ClassBench sets, mapped, leave by the same interfaces.  IPv4
# stays: the ARP barrier of driver.py needs it.

diff_ns_t=nfhp-dt-$$
diff_ns_a=nfhp-dra-$$
diff_ns_b=nfhp-drb-$$

# Router interface names, in the order of the tester's _c0 _c1 _c2 _s.
diff_rifs="veth0 veth10 eth1 srv0"
diff_tifs="c0 c1 c2 s"
# Marks selected by TOS bits 2-5 (index 1..15; index 0 is no mark).
diff_marks="0x1 0x2 0x3 0x4 0x10 0x11 0xff 0x100 0x1000 0xffff 0x10000 0x7fffffff 0x80000000 0xfffffffe 0xffffffff"

# diff_mac TOPO IDX SIDE - the MAC of interface IDX (0-3) of topology TOPO
# (1 = A, 2 = B); SIDE 1 is the router end, 2 the tester end.
diff_mac()
{
	printf '02:00:00:%02x:%02x:%02x' "$1" "$2" "$3"
}

# diff_router_setup NS TOPO PREFIX [FAMILY] - create router namespace NS
# joined to the tester by four veth pairs PREFIX_c0.. and configure it;
# FAMILY 6 adds IPv6.
diff_router_setup()
{
	local ns=$1 topo=$2 p=$3 fam=${4:-4} i=0 rif tif conf

	ip netns add "$ns" || return 1
	ip -n "$ns" link set lo up || return 1
	# Interfaces take the defaults as they are made: no DAD, no RAs.
	[ "$fam" != 6 ] || ip netns exec "$ns" sh -c '
		echo 0 > /proc/sys/net/ipv6/conf/default/accept_dad
		echo 0 > /proc/sys/net/ipv6/conf/default/dad_transmits
		echo 0 > /proc/sys/net/ipv6/conf/default/accept_ra
	' || return 1
	set -- $diff_tifs
	for rif in $diff_rifs; do
		tif=${p}_$1
		shift
		ip link add "$rif" netns "$ns" address "$(diff_mac "$topo" $i 1)" \
			type veth peer name "$tif" netns $diff_ns_t \
			address "$(diff_mac "$topo" $i 2)" || return 1
		ip -n "$ns" addr add 192.168.$((100 + i)).1/24 dev "$rif" ||
			return 1
		ip -n "$ns" neigh add 192.168.$((100 + i)).2 dev "$rif" \
			lladdr "$(diff_mac "$topo" $i 2)" nud permanent ||
			return 1
		if [ "$fam" = 6 ]; then
			ip -n "$ns" addr add fd00:$((100 + i))::1/64 dev "$rif" \
				nodad &&
			ip -n "$ns" neigh add fd00:$((100 + i))::2 dev "$rif" \
				lladdr "$(diff_mac "$topo" $i 2)" nud permanent ||
				return 1
		fi
		ip -n "$ns" link set "$rif" up || return 1
		ip -n $diff_ns_t link set "$tif" up || return 1
		i=$((i + 1))
	done
	ip -n "$ns" route add 10.1.0.0/16 via 192.168.100.2 dev veth0 &&
	ip -n "$ns" route add 10.2.0.0/16 via 192.168.101.2 dev veth10 &&
	ip -n "$ns" route add 10.3.0.0/16 via 192.168.102.2 dev eth1 &&
	ip -n "$ns" route add default via 192.168.103.2 dev srv0 || return 1
	if [ "$fam" = 6 ]; then
		ip -n "$ns" route add 2001:db8:1::/48 via fd00:100::2 dev veth0 &&
		ip -n "$ns" route add 2001:db8:2::/48 via fd00:101::2 dev veth10 &&
		ip -n "$ns" route add 2001:db8:3::/48 via fd00:102::2 dev eth1 &&
		ip -n "$ns" route add fd00:a:100::/40 via fd00:100::2 dev veth0 &&
		ip -n "$ns" route add fd00:a:200::/40 via fd00:101::2 dev veth10 &&
		ip -n "$ns" route add fd00:a:300::/40 via fd00:102::2 dev eth1 &&
		ip -n "$ns" route add default via fd00:103::2 dev srv0 ||
			return 1
	fi

	conf=/proc/sys/net/ipv4/conf
	ip netns exec "$ns" sh -c "
		echo 1 > /proc/sys/net/ipv4/ip_forward
		echo 0 > /proc/sys/net/ipv4/icmp_ratelimit
		echo 1000000 > /proc/sys/net/ipv4/icmp_msgs_per_sec
		echo 1000000 > /proc/sys/net/ipv4/icmp_msgs_burst
		for d in $conf/*; do
			echo 0 > \$d/rp_filter
			echo 0 > \$d/send_redirects
		done
	" || return 1
	if [ "$fam" = 6 ]; then
		ip netns exec "$ns" sh -c '
			echo 1 > /proc/sys/net/ipv6/conf/all/forwarding
			echo 0 > /proc/sys/net/ipv6/icmp/ratelimit
		' || return 1
	else
		ip netns exec "$ns" sh -c '
			echo 1 > /proc/sys/net/ipv6/conf/all/disable_ipv6
			echo 1 > /proc/sys/net/ipv6/conf/default/disable_ipv6
		' || return 1
	fi

	# The mark from TOS bits 2-5, NOTRACK from TOS bits 0-1 == 01 (in
	# IPv6 the traffic class).
	diff_mark_rules | ip netns exec "$ns" iptables-legacy-restore ||
		return 1
	[ "$fam" != 6 ] ||
		diff_mark_rules | ip netns exec "$ns" ip6tables-legacy-restore ||
		return 1
}

# diff_mark_rules - the mangle and raw tables of both routers.
diff_mark_rules()
{
	local m idx

	{
		echo "*mangle"
		idx=1
		for m in $diff_marks; do
			printf -- '-A PREROUTING -m tos --tos 0x%02x/0x3c -j MARK --set-xmark %s/0xffffffff\n' \
				$((idx << 2)) "$m"
			idx=$((idx + 1))
		done
		echo "COMMIT"
		echo "*raw"
		echo "-A PREROUTING -m tos --tos 0x01/0x03 -j CT --notrack"
		echo "COMMIT"
	}
}

# diff_topo_setup [FAMILY] - the tester namespace and both routers;
# installs the cleanup trap.  FAMILY 6 makes the routers dual-stack.
diff_topo_setup()
{
	trap diff_topo_cleanup EXIT
	ip netns add $diff_ns_t || return 1
	ip -n $diff_ns_t link set lo up || return 1
	ip netns exec $diff_ns_t sh -c '
		echo 1 > /proc/sys/net/ipv6/conf/all/disable_ipv6
		echo 1 > /proc/sys/net/ipv6/conf/default/disable_ipv6
	' || return 1
	diff_router_setup $diff_ns_a 1 a "${1:-4}" || return 1
	diff_router_setup $diff_ns_b 2 b "${1:-4}" || return 1
}

# diff_topo_cleanup - kill what runs in the namespaces and delete them.
diff_topo_cleanup()
{
	nfhp_netns_destroy $diff_ns_t $diff_ns_a $diff_ns_b
	[ -z "${diff_tmp:-}" ] || rm -rf "$diff_tmp"
	return 0
}
