#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# cost-probe.sh MODULE - time the kernel paths the selftests lean on, to
# compare kernels and boot options under TCG (Documentation/testing.md has
# figures).
# Run inside a VM from the repository top, e.g.:
#
#	K=/var/cache/nf-hipac/debug-kernel/KEY
#	selftests/vm/run-vm.sh --kernel $K/bzImage \
#		--modules $K/modroot/lib/modules/$(cat $K/kernel.release) \
#		--mem 2G --append "kmemleak=off" \
#		-- selftests/debug/cost-probe.sh build/debug-module/nf_hipac.ko
#	selftests/vm/run-vm.sh -- selftests/debug/cost-probe.sh ./nf_hipac.ko
#
# Prints "PROBE NAME MS" lines: the uptime when it starts (boot), 40
# fork+exec of /bin/true, 5 python3 starts, 10 netns add+del, 5 veth
# pairs between two new namespaces, 10 iptables-legacy and 10 nf-hipac
# calls in a namespace, a 1,000-rule nf-hipac-restore and its listing,
# 200 pings over veth.
set -u
. "$(dirname "$0")/../nf_hipac/lib.sh"

mod=$1
ms() { echo $(($(date +%s%N) / 1000000)); }
tm()
{
	local name=$1 start

	shift
	start=$(ms)
	"$@"
	echo "PROBE $name $(($(ms) - start))ms"
}

exec40() { for _ in $(seq 40); do /bin/true; done; }
py5() { for _ in 1 2 3 4 5; do python3 -c pass; done; }
netns10()
{
	for i in $(seq 10); do ip netns add p$i; done
	for i in $(seq 10); do ip netns del p$i; done
}
pair_up()
{
	ip netns add a && ip netns add b &&
	ip link add va netns a type veth peer vb netns b &&
	ip -n a link set va up && ip -n b link set vb up
}
pair_down() { ip netns del a; ip netns del b; }
veth5() { for _ in 1 2 3 4 5; do pair_up; pair_down; done; }
calls10()
{
	ip netns add q
	for i in $(seq 10); do
		ip netns exec q "$@" -A INPUT -s 10.0.0.$i -j DROP
	done
	ip netns del q
}
restore1k()
{
	local i

	ip netns add s
	{
		echo '*filter'
		for i in $(seq 1000); do
			echo "-A FORWARD -s 10.$((i / 250)).$((i % 250)).0/24 -p tcp --dport $i -j DROP"
		done
		echo COMMIT
	} > /tmp/cost-probe.rules
	tm restore1k ip netns exec s user/build/nf-hipac-restore \
		/tmp/cost-probe.rules
	tm list1k sh -c 'ip netns exec s user/build/nf-hipac -L -n -v >/dev/null'
	ip netns del s
}
ping200()
{
	pair_up
	ip -n a addr add 10.9.0.1/24 dev va
	ip -n b addr add 10.9.0.2/24 dev vb
	sleep 1
	tm ping200 sh -c 'ip netns exec a ping -q -c 200 -i 0.002 10.9.0.2 >/dev/null'
	pair_down
}

echo "PROBE uptime $(cut -d' ' -f1 /proc/uptime)s"
tm exec40 exec40
tm py5 py5
tm netns10 netns10
tm veth5 veth5
tm ipt10 calls10 iptables-legacy
nfhp_insmod "$mod" || exit 1
tm nfhp10 calls10 user/build/nf-hipac
restore1k
ping200
rmmod nf_hipac
