#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# User chains on real packets: -j into a chain and back with RETURN, -g
# (goto) whose RETURN skips the rest of the calling built-in chain, -E
# renames the target of a jump, -X refuses a referenced chain and deletes
# an unreferenced one.
#
# nfhp-timeout: 300

source "$(dirname "$0")/lib.sh"

nfhp_require_hipac
nfhp_require_cmd python3
nf_hipac_setup || { nfhp_log "FAIL: topology setup"; exit 1; }

r() { nfhp_in $ns_router "$@"; }
refused() { ! r "$@" >/dev/null 2>&1; }

# web: only tcp/8080 (both directions), everything else dropped.
nfhp_check "-N web" r -N web
nfhp_check "-A web dport 8080 ACCEPT" r -A web -p tcp --dport 8080 -j ACCEPT
nfhp_check "-A web sport 8080 ACCEPT" r -A web -p tcp --sport 8080 -j ACCEPT
nfhp_check "-A web DROP" r -A web -j DROP
nfhp_check "-A FORWARD -p tcp -j web" r -A FORWARD -p tcp -j web
nfhp_check "jump: tcp/8080 accepted in web" tcp_ok 8080
nfhp_check "jump: tcp/8081 dropped in web" tcp_fail 8081
nfhp_check "jump: icmp never enters web" ping_ok
nfhp_check "-N duplicate refused" refused -N web
nfhp_check "-X of a referenced chain refused" refused -X web
nfhp_check "-E web www" r -E web www
nfhp_check "the jump follows the rename" tcp_fail 8081
nfhp_check "-S shows the renamed target" \
	bash -c "ip netns exec $ns_router '$NFHP_BIN/nf-hipac' -S FORWARD |
		 grep -q -- '-j www'"
nfhp_check "-F FORWARD" r -F FORWARD
nfhp_check "tcp/8081 passes without the jump" tcp_ok 8081
nfhp_check "-F www" r -F www
nfhp_check "-X www" r -X www
nfhp_check "-X of a missing chain refused" refused -X www

# RETURN: udp/5353 returns to FORWARD (policy ACCEPT), other udp dropped.
nfhp_check "-N udpchk" r -N udpchk
nfhp_check "-A udpchk dport 5353 RETURN" \
	r -A udpchk -p udp --dport 5353 -j RETURN
nfhp_check "-A udpchk sport 5353 RETURN" \
	r -A udpchk -p udp --sport 5353 -j RETURN
nfhp_check "-A udpchk DROP" r -A udpchk -j DROP
nfhp_check "-A FORWARD -p udp -j udpchk" r -A FORWARD -p udp -j udpchk
nfhp_check "RETURN: udp/5353 passes" udp_ok 5353
nfhp_check "RETURN: udp/5354 dropped" udp_fail 5354
nfhp_check "-F" r -F
nfhp_check "-X" r -X

# Jump vs goto: the chain only RETURNs.  After a jump, FORWARD goes on to
# its ACCEPT rule; after a goto, RETURN ends FORWARD and the DROP policy
# decides.
nfhp_check "-N back" r -N back
nfhp_check "-A back -j RETURN" r -A back -j RETURN
nfhp_check "-P FORWARD DROP" r -P FORWARD DROP
nfhp_check "-A FORWARD -p icmp -j back" r -A FORWARD -p icmp -j back
nfhp_check "-A FORWARD -p icmp -j ACCEPT" r -A FORWARD -p icmp -j ACCEPT
nfhp_check "jump then RETURN continues in FORWARD" ping_ok
nfhp_check "-R FORWARD 1 -p icmp -g back" r -R FORWARD 1 -p icmp -g back
nfhp_check "goto then RETURN ends FORWARD at the policy" ping_fail
nfhp_check "back: ACCEPT instead of RETURN" \
	bash -c "ip netns exec $ns_router '$NFHP_BIN/nf-hipac' -A back -j ACCEPT &&
		 ip netns exec $ns_router '$NFHP_BIN/nf-hipac' -D back 1"
nfhp_check "goto into an accepting chain" ping_ok
nfhp_check "jump to a missing chain refused" \
	refused -A FORWARD -p tcp -j nosuchchain
# As in iptables, a loop stands among chains no hook reaches, and a jump
# that makes a hook reach it is refused.
nfhp_check "a loop no hook reaches stands" \
	bash -c "ip netns exec $ns_router '$NFHP_BIN/nf-hipac' -N loop &&
		 ip netns exec $ns_router '$NFHP_BIN/nf-hipac' -A loop -j loop"
nfhp_check "a jump from a hook into the loop is refused" \
	refused -A FORWARD -p udp -j loop
nfhp_check "the loop goes" \
	bash -c "ip netns exec $ns_router '$NFHP_BIN/nf-hipac' -F loop &&
		 ip netns exec $ns_router '$NFHP_BIN/nf-hipac' -X loop"

# Jumps as deep as they may go: a commit flattens them recursively on the
# kernel stack, under the system call and netlink.  64 levels load and
# drop the ping at the deepest; 65 are refused.  Either way the old rules
# stay on failure and the kernel lives.
# deep_rules N - FORWARD -> d1 -> ... -> dN, which drops icmp.
deep_rules()
{
	local i

	echo "*filter"
	echo ":FORWARD ACCEPT [0:0]"
	for i in $(seq 1 "$1"); do echo ":d$i - [0:0]"; done
	for i in $(seq 1 $(($1 - 1))); do echo "-A d$i -p icmp -j d$((i + 1))"; done
	echo "-A d$1 -p icmp -j DROP"
	echo "-A FORWARD -p icmp -j d1"
	echo "COMMIT"
}
nfhp_check "-F and -X" bash -c "ip netns exec $ns_router '$NFHP_BIN/nf-hipac' -F &&
	ip netns exec $ns_router '$NFHP_BIN/nf-hipac' -X && ip netns exec $ns_router '$NFHP_BIN/nf-hipac' -P FORWARD ACCEPT"
nfhp_check "ping passes before" ping_ok
nfhp_check "64 levels of jumps load" \
	bash -c "$(declare -f deep_rules); deep_rules 64 |
		 ip netns exec $ns_router '$NFHP_BIN/nf-hipac-restore'"
nfhp_check "the 64th level drops the ping" ping_fail
nfhp_check "-I d64 1 -p icmp -j ACCEPT: an update 64 deep" \
	r -I d64 1 -p icmp -j ACCEPT
nfhp_check "the ping passes" ping_ok
nfhp_check "65 levels refused" \
	bash -c "$(declare -f deep_rules); ! deep_rules 65 |
		 ip netns exec $ns_router '$NFHP_BIN/nf-hipac-restore'"
nfhp_check "the 64 levels stay" ping_ok

exit $nfhp_rc
