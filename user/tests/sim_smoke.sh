#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sim_smoke.sh [SIM]: nf-hipac-sim end to end (default user/build/nf-hipac-sim):
# verdict lines of a rule set with user chains, --check against the linear
# reference on a generated set, the figures of --bench, and the exit codes
# and messages of bad input.  One TAP line per case.
here=$(cd "$(dirname "$0")/.." && pwd)
sim=${1:-$here/build/nf-hipac-sim}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tap.sh
. "$here/tests/tap.sh"

cat > "$tmp/small.rules" <<'EOF'
*filter
:INPUT ACCEPT [0:0]
:FORWARD DROP [0:0]
:OUTPUT ACCEPT [0:0]
:ssh - [0:0]
:web - [0:0]
-A FORWARD -s 192.168.0.0/16 -g ssh
-A FORWARD -m state --state ESTABLISHED,RELATED -j ACCEPT
-A FORWARD -s 10.0.0.0/8 -p tcp -j web
-A FORWARD -i eth+ -p icmp --icmp-type 8 -j ACCEPT
-A ssh -p tcp --dport 22 -j ACCEPT
-A web -s 10.1.0.0/16 -j RETURN
-A web -p tcp --dport 80 -j ACCEPT
-A web -p tcp --syn -m multiport --dports 22,443 -j ACCEPT
COMMIT
EOF
cat > "$tmp/small.pkt" <<'EOF'
src=1.2.3.4 state=established
src=10.2.0.1 proto=tcp dport=80
src=10.1.0.1 proto=tcp dport=80
src=10.2.0.1 proto=tcp dport=443 flags=S
src=10.2.0.1 proto=tcp dport=443 flags=SA
in=eth0 proto=icmp icmp=8/0
in=wlan0 proto=icmp icmp=8/0
hook=input
src=192.168.1.1 proto=tcp dport=22 state=established
src=192.168.1.1 proto=tcp dport=23 state=established
EOF
cat > "$tmp/small.want" <<'EOF'
ACCEPT FORWARD 2
ACCEPT web 2
DROP FORWARD policy
ACCEPT web 3
DROP FORWARD policy
ACCEPT FORWARD 4
DROP FORWARD policy
ACCEPT INPUT policy
ACCEPT ssh 1
DROP FORWARD policy
EOF
"$sim" "$tmp/small.rules" "$tmp/small.pkt" > "$tmp/small.out" 2>&1
result "$(cmp -s "$tmp/small.out" "$tmp/small.want"; echo $?)" \
	"verdicts: jump, goto, RETURN, policies, an interface wildcard" \
	"$(diff "$tmp/small.want" "$tmp/small.out")"

# -6: an IPv6 rule set, ICMPv6 types, the hop limit, a /1.
cat > "$tmp/six.rules" <<'EOF'
*filter
:FORWARD DROP [0:0]
-A FORWARD -s 2001:db8:1::/48 -p tcp -m tcp --dport 22 -j ACCEPT
-A FORWARD -d 2001:db8::/32 -p ipv6-icmp -m icmp6 --icmpv6-type 128 -j ACCEPT
-A FORWARD -m hl --hl-lt 5 -j DROP
-A FORWARD -s ::/1 -j ACCEPT
-4 -A FORWARD -s 10.0.0.0/8 -j ACCEPT
COMMIT
EOF
cat > "$tmp/six.pkt" <<'EOF'
src=2001:db8:1::5 dst=2001:db8:2::1 proto=tcp dport=22
src=2001:db8:2::5 dst=2001:db8:2::1 proto=tcp dport=23
src=8000::1 dst=2001:db8::1 proto=ipv6-icmp icmp=128
src=8000::1 dst=2001:db9::1 proto=ipv6-icmp icmp=128
src=1::1 dst=::1 proto=udp dport=5 ttl=3
EOF
printf '%s\n' "ACCEPT FORWARD 1" "ACCEPT FORWARD 4" "ACCEPT FORWARD 2" \
	"DROP FORWARD policy" "DROP FORWARD 3" > "$tmp/six.want"
"$sim" -6 --check "$tmp/six.rules" "$tmp/six.pkt" > "$tmp/six.out" 2>&1
result "$(grep -v '^nf-hipac-sim:' "$tmp/six.out" | cmp -s - "$tmp/six.want"; echo $?)" \
	"-6: IPv6 verdicts, the -4 line skipped, checked against the reference" \
	"$(cat "$tmp/six.out")"

# 2,000 rules over a few /16s, and packets half inside a random rule.
awk -v seed=7 -v rules=2000 -v pkts=3000 -v dir="$tmp" 'BEGIN {
	srand(seed)
	r = dir "/gen.rules"; p = dir "/gen.pkt"
	print "*filter\n:INPUT ACCEPT [0:0]\n:FORWARD DROP [0:0]\n:OUTPUT ACCEPT [0:0]" > r
	for (i = 0; i < rules; i++) {
		a[i] = int(rand() * 8); b[i] = int(rand() * 256)
		c[i] = int(rand() * 256); len[i] = 16 + int(rand() * 17)
		lo[i] = int(rand() * 2000); hi[i] = lo[i] + int(rand() * 100)
		plen = len[i] > 24 ? 24 : len[i]
		proto = i % 3 ? "tcp" : "udp"
		verdict = rand() < 0.5 ? "ACCEPT" : "DROP"
		printf("-A FORWARD -s 10.%d.%d.0/%d -p %s --dport %d:%d -j %s\n",
		       a[i], b[i], plen, proto, lo[i], hi[i], verdict) > r
	}
	print "COMMIT" > r
	for (i = 0; i < pkts; i++) {
		k = int(rand() * rules)
		proto = k % 3 ? "tcp" : "udp"
		if (rand() < 0.5)
			printf("src=10.%d.%d.%d proto=%s dport=%d\n", a[k], b[k],
			       int(rand() * 256), proto,
			       lo[k] + int(rand() * (hi[k] - lo[k] + 1))) > p
		else
			printf("src=10.%d.%d.%d proto=tcp dport=%d\n",
			       int(rand() * 8), int(rand() * 256),
			       int(rand() * 256), int(rand() * 2200)) > p
	}
}'
out=$("$sim" --check "$tmp/gen.rules" "$tmp/gen.pkt" 2>&1 >/dev/null)
result "$(grep -q '3000 packets checked, 0 mismatches' <<<"$out"; echo $?)" \
	"--check: 2,000 generated rules, 3,000 packets, tree = reference" "$out"

"$sim" --bench "$tmp/gen.rules" "$tmp/gen.pkt" > "$tmp/bench.out" 2>&1
bad=$(awk -F= '
	/^[a-z_0-9]+=/ { v[$1] = $2 }
	END {
		split("rules build_ms memory_bytes lookup_ns linear_lookup_ns " \
		      "insert_us_p50 insert_us_p99 delete_us_p50 delete_us_p99",
		      keys, " ")
		for (i in keys)
			if (!(v[keys[i]] > 0))
				printf "%s=%s is not a positive number\n",
					keys[i], v[keys[i]]
		if (v["rules"] != 2000)
			printf "rules=%s, not 2000\n", v["rules"]
		if (v["insert_us_p50"] > v["insert_us_p99"])
			print "insert median above its 99th percentile"
		# The tree takes tens of ns here, the reference microseconds.
		if (v["linear_lookup_ns"] < 20 * v["lookup_ns"])
			printf "tree %s ns is not 20x the linear %s ns\n",
				v["lookup_ns"], v["linear_lookup_ns"]
	}' "$tmp/bench.out")
result "$([ -z "$bad" ]; echo $?)" \
	"--bench: every figure, the tree 20x faster than the linear scan" \
	"$bad$(printf '\n'; cat "$tmp/bench.out")"

out=$("$sim" --passes 3 "$tmp/gen.rules" "$tmp/gen.pkt" 2>&1)
st=$?
bad=$("$sim" --passes -1 "$tmp/gen.rules" "$tmp/gen.pkt" 2>&1)
st2=$?
result "$([ $st -eq 0 ] && [ -z "$out" ] && [ $st2 -eq 2 ]; echo $?)" \
	"--passes 3: silent, exit 0; --passes -1: exit 2" "$out / $st2: $bad"

printf '*filter\n:FORWARD ACCEPT [0:0]\n-A FORWARD -m limit --limit 3/min -j ACCEPT\nCOMMIT\n' \
	> "$tmp/ext.rules"
out=$("$sim" "$tmp/ext.rules" "$tmp/small.pkt" 2>&1)
st=$?
result "$([ $st -eq 2 ] && grep -q "line 3: .*match .limit. is not supported" <<<"$out"; echo $?)" \
	"an extension without --opaque-xt: exit 2, the line and the match" \
	"exit $st: $out"

# check_case NAME DESCRIPTION [OPTION...]: nf-hipac-sim --check on
# $tmp/NAME.rules and $tmp/NAME.pkt exits 0, the reference agreeing, with
# the verdicts of $tmp/NAME.want.
check_case()
{
	local st

	"$sim" --check "${@:3}" "$tmp/$1.rules" "$tmp/$1.pkt" > "$tmp/$1.out" \
		2> "$tmp/$1.err"
	st=$?
	result "$([ $st -eq 0 ] && cmp -s "$tmp/$1.out" "$tmp/$1.want"; echo $?)" \
		"$2" "exit $st: $(diff "$tmp/$1.want" "$tmp/$1.out"; cat "$tmp/$1.err")"
}

# Dynamic states (sim/states.h): a keep-state rule for client to server;
# the server's reply is accepted by the state at the check point, the
# first state rule, though no rule lets it through; after the lifetime
# (UDP 10 s after the last packet; TCP 20 s after a lone SYN, 300 s after
# ACKs both ways) it is dropped again.  ICMP echo is one flow by its
# identifier.
cat > "$tmp/ks.rules" <<'EOF'
*filter
:INPUT ACCEPT [0:0]
:FORWARD DROP [0:0]
:OUTPUT ACCEPT [0:0]
-A FORWARD -s 10.0.0.0/8 -m keep-state -j ACCEPT
COMMIT
EOF
cat > "$tmp/ks.pkt" <<'EOF'
time=0 src=10.0.0.1 dst=192.0.2.1 proto=udp sport=5000 dport=53
time=1.5 src=192.0.2.1 dst=10.0.0.1 proto=udp sport=53 dport=5000
time=1.5 src=192.0.2.1 dst=10.0.0.1 proto=udp sport=53 dport=5001
time=11.4 src=192.0.2.1 dst=10.0.0.1 proto=udp sport=53 dport=5000
time=21.5 src=192.0.2.1 dst=10.0.0.1 proto=udp sport=53 dport=5000
time=30 src=10.0.0.1 dst=192.0.2.1 proto=tcp sport=40000 dport=22 flags=S
time=49.9 src=192.0.2.1 dst=10.0.0.1 proto=tcp sport=22 dport=40000 flags=SA
src=10.0.0.1 dst=192.0.2.1 proto=tcp sport=40000 dport=22 flags=A
time=250 src=192.0.2.1 dst=10.0.0.1 proto=tcp sport=22 dport=40000 flags=A
time=300 src=10.0.0.1 dst=192.0.2.1 proto=icmp icmp=8 id=7
src=192.0.2.1 dst=10.0.0.1 proto=icmp icmp=0 id=7
src=192.0.2.1 dst=10.0.0.1 proto=icmp icmp=0 id=8
time=350 src=192.0.2.1 dst=10.0.0.1 proto=tcp sport=22 dport=40000 flags=A
EOF
cat > "$tmp/ks.want" <<'EOF'
ACCEPT FORWARD 1
ACCEPT FORWARD state
DROP FORWARD policy
ACCEPT FORWARD state
DROP FORWARD policy
ACCEPT FORWARD 1
ACCEPT FORWARD state
ACCEPT FORWARD state
ACCEPT FORWARD state
ACCEPT FORWARD 1
ACCEPT FORWARD state
DROP FORWARD policy
DROP FORWARD policy
EOF
check_case ks \
	"keep-state: replies by the state, not after their lifetime; echo ids"

# -6: an ICMPv6 echo's reply by its identifier, until the short lifetime
# (5 s) is over.
printf '*filter\n:FORWARD DROP [0:0]\n-A FORWARD -s 2001:db8:1::/48 -m keep-state -j ACCEPT\nCOMMIT\n' \
	> "$tmp/ks6.rules"
cat > "$tmp/ks6.pkt" <<'EOF'
src=2001:db8:1::5 dst=2001:db8:2::1 proto=ipv6-icmp icmp=128 id=9
time=4.9 src=2001:db8:2::1 dst=2001:db8:1::5 proto=ipv6-icmp icmp=129 id=9
src=2001:db8:2::1 dst=2001:db8:1::5 proto=ipv6-icmp icmp=129 id=10
time=10 src=2001:db8:2::1 dst=2001:db8:1::5 proto=ipv6-icmp icmp=129 id=9
EOF
printf '%s\n' "ACCEPT FORWARD 1" "ACCEPT FORWARD state" "DROP FORWARD policy" \
	"DROP FORWARD policy" > "$tmp/ks6.want"
check_case ks6 "-6 keep-state: an ICMPv6 echo reply by its id, 5 s" -6

# --state-limit 2 --state-limit-by src-addr: a third flow from one source
# is refused, so the rule does not match and the policy drops it; another
# source has its own two.  20 s later the first two have expired, the
# tick freed them, and the source may have a new one.
cat > "$tmp/lim.rules" <<'EOF'
*filter
:FORWARD DROP [0:0]
-A FORWARD -p tcp --dport 80 -m keep-state --state-limit 2 --state-limit-by src-addr -j ACCEPT
COMMIT
EOF
cat > "$tmp/lim.pkt" <<'EOF'
src=10.0.0.1 dst=192.0.2.1 proto=tcp sport=4001 dport=80 flags=S
src=10.0.0.1 dst=192.0.2.1 proto=tcp sport=4002 dport=80 flags=S
src=10.0.0.1 dst=192.0.2.1 proto=tcp sport=4003 dport=80 flags=S
src=10.0.0.2 dst=192.0.2.1 proto=tcp sport=4001 dport=80 flags=S
src=10.0.0.2 dst=192.0.2.1 proto=tcp sport=4002 dport=80 flags=S
time=20 src=10.0.0.1 dst=192.0.2.1 proto=tcp sport=4003 dport=80 flags=S
EOF
printf '%s\n' "ACCEPT FORWARD 1" "ACCEPT FORWARD 1" "DROP FORWARD policy" \
	"ACCEPT FORWARD 1" "ACCEPT FORWARD 1" "ACCEPT FORWARD 1" \
	> "$tmp/lim.want"
check_case lim \
	"--state-limit 2: a source's third flow refused, another's not; expiry frees"

# The check point is the first keep-state or CHECK-STATE rule: behind a
# DROP rule the reply never reaches it; a CHECK-STATE first moves it up.
cat > "$tmp/cp.rules" <<'EOF'
*filter
:FORWARD DROP [0:0]
-A FORWARD -s 192.0.2.0/24 -j DROP
-A FORWARD -p udp -m keep-state -j ACCEPT
COMMIT
EOF
printf '%s\n' "src=10.0.0.1 dst=192.0.2.1 proto=udp sport=5000 dport=53" \
	"src=192.0.2.1 dst=10.0.0.1 proto=udp sport=53 dport=5000" \
	> "$tmp/cp.pkt"
printf '%s\n' "ACCEPT FORWARD 2" "DROP FORWARD 1" > "$tmp/cp.want"
check_case cp "the reply meets a DROP rule before the check point"
sed 's/^-A FORWARD -s 192/-A FORWARD -j CHECK-STATE\n&/' "$tmp/cp.rules" \
	> "$tmp/cp2.rules"
cp "$tmp/cp.pkt" "$tmp/cp2.pkt"
printf '%s\n' "ACCEPT FORWARD 3" "ACCEPT FORWARD state" > "$tmp/cp2.want"
check_case cp2 "CHECK-STATE first: the check point moves before the DROP rule"

# A position, not a rule to match: the first state rule is in a user
# chain only eth0's packets enter; the reply, from eth1, is checked where
# that rule stands, before the DROP it would meet next.
cat > "$tmp/uc.rules" <<'EOF'
*filter
:FORWARD DROP [0:0]
:inbound - [0:0]
-A FORWARD -i eth0 -j inbound
-A FORWARD -p udp --sport 5000:5999 -j DROP
-A FORWARD -p tcp -m keep-state -j ACCEPT
-A inbound -p icmp -j DROP
-A inbound -p udp -m keep-state -j ACCEPT
COMMIT
EOF
cat > "$tmp/uc.pkt" <<'EOF'
in=eth0 src=10.0.0.1 dst=192.0.2.1 proto=udp sport=53 dport=5000
in=eth1 src=192.0.2.1 dst=10.0.0.1 proto=udp sport=5000 dport=53
in=eth1 src=192.0.2.1 dst=10.0.0.1 proto=udp sport=5001 dport=53
in=eth1 src=192.0.2.7 dst=10.0.0.1 proto=tcp sport=5000 dport=22 flags=S
in=eth0 src=10.0.0.1 dst=192.0.2.7 proto=tcp sport=22 dport=5000 flags=SA
EOF
printf '%s\n' "ACCEPT inbound 2" "ACCEPT FORWARD state" "DROP FORWARD 2" \
	"ACCEPT FORWARD 3" "ACCEPT FORWARD state" > "$tmp/uc.want"
check_case uc "the check point in a user chain: a position the reply passes"

# --check with states: random flows both ways over a minute, TCP flags,
# echo ids, limits, CHECK-STATE in a user chain reached by a jump, a goto;
# the tree's verdicts against the reference's, packet by packet, each with
# its own table.  Replies of some flows meet DROP rules before and after
# the check point.  Each kind of verdict listed must occur.
cat > "$tmp/rst.rules" <<'EOF'
*filter
:INPUT DROP [0:0]
:FORWARD DROP [0:0]
:OUTPUT ACCEPT [0:0]
:early - [0:0]
:web - [0:0]
-A FORWARD -s 192.0.2.1 -p udp -j DROP
-A FORWARD -i eth1 -j early
-A FORWARD -s 192.0.2.2 -p udp -j DROP
-A FORWARD -d 192.0.2.0/28 -p tcp -g web
-A FORWARD -s 192.0.2.0/24 -p tcp --sport 80 -j DROP
-A FORWARD -s 10.0.0.0/8 -p udp -m keep-state --state-limit 3 --state-limit-by src-addr,dst-port -j ACCEPT
-A FORWARD -s 10.0.0.0/8 -p icmp -m keep-state -j ACCEPT
-A FORWARD -s 10.0.0.9 -m keep-state -j DROP
-A early -p icmp -j RETURN
-A early -j CHECK-STATE
-A early -p udp --dport 53 -j ACCEPT
-A web -p tcp --dport 80 -m keep-state -j ACCEPT
-A web -p tcp --dport 443 -m keep-state --state-limit 1 -j ACCEPT
-A INPUT -p tcp --dport 22 -m keep-state -j ACCEPT
COMMIT
EOF
awk -v seed=7 -v n=3000 'BEGIN {
	srand(seed)
	split("tcp udp icmp", pr, " ")
	split("S SA A FA R A A", fl, " ")
	split("80 443 53 22", dp, " ")
	split("1 5 6 9", cl, " ")
	split("1 2 17", sv, " ")
	for (i = 0; i < n; i++) {
		t += rand() < 0.9 ? rand() * 0.05 : rand() * 8
		c = "10.0.0." cl[1 + int(rand() * 4)]
		s = "192.0.2." sv[1 + int(rand() * 3)]
		p = pr[1 + int(rand() * 3)]
		cp = 40000 + int(rand() * 2)
		sp = dp[1 + int(rand() * 4)]
		hook = rand() < 0.1 ? "input" : "forward"
		if (rand() < 0.5) {
			line = "src=" c " dst=" s " proto=" p
			if (p == "icmp")
				line = line " icmp=8 id=" cp
			else
				line = line " sport=" cp " dport=" sp
		} else {
			line = "src=" s " dst=" c " proto=" p
			if (p == "icmp")
				line = line " icmp=0 id=" cp
			else
				line = line " sport=" sp " dport=" cp
		}
		if (p == "tcp")
			line = line " flags=" fl[1 + int(rand() * 7)]
		ifc = rand() < 0.3 ? "eth1" : "eth0"
		printf("time=%.3f hook=%s in=%s %s\n", t, hook, ifc, line)
	}
}' > "$tmp/rst.pkt"
"$sim" --check "$tmp/rst.rules" "$tmp/rst.pkt" > "$tmp/rst.out" \
	2> "$tmp/rst.err"
st=$?
bad=$(grep -v '^nf-hipac-sim: 3000 packets checked, 0 mismatches$' "$tmp/rst.err")
for v in "ACCEPT FORWARD state" "DROP FORWARD state" "ACCEPT INPUT state" \
	 "ACCEPT FORWARD 6" "ACCEPT web 1" "ACCEPT web 2" "DROP FORWARD 8" \
	 "DROP FORWARD 1" "DROP FORWARD 3" "DROP FORWARD 5" "ACCEPT early 3" \
	 "DROP FORWARD policy"; do
	grep -qx "$v" "$tmp/rst.out" || bad="$bad${bad:+; }no \"$v\""
done
result "$([ $st -eq 0 ] && [ -z "$bad" ]; echo $?)" \
	"--check with states: 3000 packets, jumps, a goto, limits; tree = reference" \
	"exit $st: $bad$(printf '\n'; sort "$tmp/rst.out" | uniq -c)"

# Bad times and ids: exit 2, with the line.
for pkt in "time=5|time=4.5" "time=1.2345" "proto=icmp icmp=3 id=5" \
	   "proto=udp id=5"; do
	tr '|' '\n' <<<"$pkt" > "$tmp/bad.pkt"
	out=$("$sim" "$tmp/ks.rules" "$tmp/bad.pkt" 2>&1)
	st=$?
	result "$([ $st -eq 2 ] && grep -q "packets line [12]: .*\(time\|id\)" <<<"$out"; echo $?)" \
		"packets \"$pkt\": exit 2, the line and why" "exit $st: $out"
done

# --opaque-xt: extensions as the model's opaque tests (sim/opaque.h), on
# jumps, a goto and RETURNs.  Each verdict listed must occur: matches that
# pass and fail, REJECT that drops, LOG that lets LOG_DROP 2 decide.
cat > "$tmp/xt.rules" <<'EOF'
*filter
:INPUT ACCEPT [0:0]
:FORWARD DROP [0:0]
:OUTPUT ACCEPT [0:0]
:LOG_DROP - [0:0]
:mac_1 - [0:0]
-A FORWARD -m state --state RELATED,ESTABLISHED -j ACCEPT
-A FORWARD -m recent --update --seconds 60 --name DEFAULT --rsource -j LOG_DROP
-A FORWARD -s 10.0.0.0/24 -j mac_1
-A FORWARD -s 10.0.0.0/8 -p tcp -m tcp --dport 22 -m recent --set --name ssh --rsource
-A FORWARD -s 10.0.0.0/8 -p tcp -m tcp --dport 22 -j ACCEPT
-A FORWARD -p udp -m limit --limit 10/min -j REJECT --reject-with icmp-port-unreachable
-A FORWARD -p udp -j ACCEPT
-A FORWARD -p icmp -m limit --limit 1/sec -g LOG_DROP
-A FORWARD -p icmp -j ACCEPT
-A FORWARD -j LOG_DROP
-A LOG_DROP -m limit --limit 100/min -j LOG --log-prefix "[IPT_DROP]:"
-A LOG_DROP -j DROP
-A mac_1 -s 10.0.0.1/32 -m mac --mac-source 02:00:00:00:00:01 -j RETURN
-A mac_1 -s 10.0.0.2/32 -m mac ! --mac-source 02:00:00:00:00:02 -j RETURN
-A mac_1 -j LOG_DROP
COMMIT
EOF
awk -v seed=11 -v n=2000 'BEGIN {
	srand(seed)
	split("tcp udp icmp", pr, " ")
	split("22 53 80", dp, " ")
	for (i = 0; i < n; i++) {
		if (rand() < 0.5)
			src = "10.0.0." int(1 + rand() * 3)
		else
			src = "10." int(rand() * 3) "." int(rand() * 256) "." \
			      int(rand() * 256)
		p = pr[1 + int(rand() * 3)]
		printf("src=%s dst=192.0.2.%d proto=%s", src, int(rand() * 256), p)
		if (p != "icmp")
			printf(" sport=%d dport=%s", 1024 + int(rand() * 60000),
			       dp[1 + int(rand() * 3)])
		printf(" state=%s\n", rand() < 0.2 ? "established" : "new")
	}
}' > "$tmp/xt.pkt"
"$sim" --opaque-xt --check "$tmp/xt.rules" "$tmp/xt.pkt" > "$tmp/xt.out" \
	2> "$tmp/xt.err"
st=$?
bad=$(grep -v '^nf-hipac-sim: 2000 packets checked, 0 mismatches$' "$tmp/xt.err")
for v in "ACCEPT FORWARD 1" "ACCEPT FORWARD 5" "DROP FORWARD 6" \
	 "ACCEPT FORWARD 7" "ACCEPT FORWARD 9" "DROP LOG_DROP 2"; do
	grep -qx "$v" "$tmp/xt.out" || bad="$bad${bad:+; }no \"$v\""
done
grep -q "LOG_DROP 1$" "$tmp/xt.out" && bad="$bad${bad:+; }LOG decided"
result "$([ $st -eq 0 ] && [ -z "$bad" ]; echo $?)" \
	"--opaque-xt --check: recent, mac, limit, LOG, REJECT; tree = reference" \
	"exit $st: $bad$(printf '\n'; sort "$tmp/xt.out" | uniq -c)"

# What the parser and the printer make of them: every rule is shadowed by
# the first, and --shadow prints it as iptables-save would, the native
# matches first; printed again from that output, it stays the same.
cat > "$tmp/rt.rules" <<'EOF'
*filter
:FORWARD ACCEPT [0:0]
:LOG_DROP - [0:0]
-A FORWARD -j DROP
-A FORWARD -m mac --mac-source 02:83:cb:b5:bf:b3 -p tcp -m tcp --dport 22 -m state --state NEW -j LOG_DROP
-A FORWARD -p sctp --dport 50000 -j ACCEPT
-A FORWARD -m limit --limit 100/min -j LOG --log-prefix "[IPT DROP]: \"x\"" --log-level=4
-A FORWARD -m recent ! --rcheck --name A -m comment --comment "a b" -j REJECT
-A FORWARD -m foo --bar "" --baz=-5 --qux 1 2 -j MARK --set-mark 0x5
COMMIT
EOF
cat > "$tmp/rt.want" <<'EOF'
shadowed: FORWARD 2: -A FORWARD -p tcp -m tcp --dport 22 -m state --state NEW -m mac --mac-source 02:83:cb:b5:bf:b3 -j LOG_DROP
shadowed: FORWARD 3: -A FORWARD -p sctp -m sctp --dport 50000 -j ACCEPT
shadowed: FORWARD 4: -A FORWARD -m limit --limit 100/min -j LOG --log-prefix "[IPT DROP]: \"x\"" --log-level=4
shadowed: FORWARD 5: -A FORWARD -m comment --comment "a b" -m recent ! --rcheck --name A -j REJECT
shadowed: FORWARD 6: -A FORWARD -m foo --bar "" --baz=-5 --qux 1 2 -j MARK --set-mark 0x5
5 shadowed rules
EOF
"$sim" --opaque-xt --shadow "$tmp/rt.rules" > "$tmp/rt.out" 2>&1 </dev/null
{
	sed -n '1,4p' "$tmp/rt.rules"
	sed -n 's/^shadowed: [^:]*: //p' "$tmp/rt.out"
	echo COMMIT
} > "$tmp/rt2.rules"
"$sim" --opaque-xt --shadow "$tmp/rt2.rules" > "$tmp/rt2.out" 2>&1 </dev/null
result "$(cmp -s "$tmp/rt.out" "$tmp/rt.want" &&
	  cmp -s "$tmp/rt2.out" "$tmp/rt.want"; echo $?)" \
	"--opaque-xt --shadow: extensions printed back, quotes and ! kept" \
	"$(diff "$tmp/rt.want" "$tmp/rt.out"; diff "$tmp/rt.want" "$tmp/rt2.out")"

"$sim" --opaque-xt --bench "$tmp/xt.rules" "$tmp/xt.pkt" > "$tmp/xtb.out" 2>&1
st=$?
result "$([ $st -eq 0 ] && grep -qx 'rules=15' "$tmp/xtb.out"; echo $?)" \
	"--opaque-xt --bench: rules saved, parsed again, inserted and deleted" \
	"exit $st: $(cat "$tmp/xtb.out")"

# --sets: set matches (src, dst, !) in random rules with other matches,
# jumps and RETURNs, hosts in hash:ip sets and nested prefixes in
# hash:net ones; the tree walks the entries of set rules as it walks those
# of extensions, and must agree with the reference on every packet.  The
# packets come from the sets' own addresses and their neighbours.
awk -v seed=5 'BEGIN {
	srand(seed)
	for (i = 0; i < 40; i++)
		host[i] = "10." int(rand() * 4) "." int(rand() * 4) "." int(rand() * 8)
	print "create h1 hash:ip family inet hashsize 1024 maxelem 65536" > "'"$tmp"'/r.sets"
	print "create h2 hash:ip family inet hashsize 1024 maxelem 65536" > "'"$tmp"'/r.sets"
	print "create n1 hash:net family inet hashsize 1024 maxelem 65536" > "'"$tmp"'/r.sets"
	for (i = 0; i < 40; i++)
		if (rand() < 0.5)
			print "add h" (1 + i % 2) " " host[i] > "'"$tmp"'/r.sets"
	print "add n1 10.0.0.0/8" > "'"$tmp"'/r.sets"
	print "add n1 10.1.0.0/16" > "'"$tmp"'/r.sets"
	print "add n1 10.1.2.0/24" > "'"$tmp"'/r.sets"
	print "add n1 10.2.3.4" > "'"$tmp"'/r.sets"
	print "*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n:U - [0:0]" > "'"$tmp"'/r.rules"
	split("h1 h2 n1", sets, " ")
	split("ACCEPT DROP U RETURN", tg, " ")
	for (i = 0; i < 60; i++) {
		ch = rand() < 0.7 ? "FORWARD" : "U"
		r = "-A " ch
		if (rand() < 0.4)
			r = r " -s 10." int(rand() * 4) ".0.0/16"
		if (rand() < 0.3)
			r = r " -p tcp -m tcp --dport " (20 + int(rand() * 4))
		n = 1 + int(rand() * 2)
		for (j = 0; j < n; j++)
			r = r " -m set" (rand() < 0.3 ? " !" : "") " --match-set " \
			    sets[1 + int(rand() * 3)] (rand() < 0.5 ? " src" : " dst")
		t = tg[1 + int(rand() * (ch == "U" ? 4 : 3))]
		if (t == "U" && ch == "U")
			t = "DROP"
		print r " -j " t > "'"$tmp"'/r.rules"
	}
	print "COMMIT" > "'"$tmp"'/r.rules"
	for (i = 0; i < 3000; i++) {
		s = host[int(rand() * 40)]
		d = rand() < 0.5 ? host[int(rand() * 40)] : \
		    "10." int(rand() * 4) "." int(rand() * 4) "." int(rand() * 256)
		printf("src=%s dst=%s proto=tcp sport=1000 dport=%d\n", s, d,
		       20 + int(rand() * 4)) > "'"$tmp"'/r.pkt"
	}
}'
"$sim" --check --sets "$tmp/r.sets" "$tmp/r.rules" "$tmp/r.pkt" > "$tmp/r.out" \
	2> "$tmp/r.err"
st=$?
kinds=$(sort -u "$tmp/r.out" | wc -l)
result "$([ $st -eq 0 ] && grep -qx 'nf-hipac-sim: 3000 packets checked, 0 mismatches' "$tmp/r.err" &&
	  [ "$kinds" -ge 10 ]; echo $?)" \
	"--sets --check: 60 rules of set matches, 3000 packets; tree = reference" \
	"exit $st, $kinds verdicts: $(cat "$tmp/r.err")"
out=$("$sim" "$tmp/r.rules" "$tmp/r.pkt" 2>&1)
st=$?
result "$([ $st -ne 0 ] && grep -q "cannot evaluate set matches" <<<"$out"; echo $?)" \
	"set matches without --sets: refused, and said so" "exit $st: $out"

# The same sets before the table, as nf-hipac-save prints them (a lock
# line too): the same verdicts.
{ cat "$tmp/r.sets"; echo "lock h1"; cat "$tmp/r.rules"; } > "$tmp/r.save"
"$sim" --check "$tmp/r.save" "$tmp/r.pkt" > "$tmp/r2.out" 2> "$tmp/r2.err"
st=$?
result "$([ $st -eq 0 ] && grep -qx 'nf-hipac-sim: 3000 packets checked, 0 mismatches' "$tmp/r2.err" &&
	  cmp -s "$tmp/r.out" "$tmp/r2.out"; echo $?)" \
	"sets before the table, as nf-hipac-save prints them: the same verdicts" \
	"exit $st: $(cat "$tmp/r2.err")"

# bitmap:port sets, both algorithms: ports of tcp and udp only, ranges,
# "!" for packets with no port (icmp, a fragment, sctp, as ipset's
# bitmap:port), and a value; the verdicts are known.  Ports by number and
# by service name, with and without a protocol, as ipset takes them.
cat > "$tmp/port.sets" <<'EOF'
create p bitmap:port range 0-1024
add p ssh
add p 80-82
add p tcp:https value 5
create r bitmap:port range 0-65535 algo range
add r 1000-1999 value 3
add r 5000
EOF
cat > "$tmp/port.rules" <<'EOF'
*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
-A FORWARD -m set --match-set p dst -j DROP
-A FORWARD -m set --match-set r src --set-value 3 -j ACCEPT
-A FORWARD -m set ! --match-set r dst -j RETURN
-A FORWARD -j ACCEPT
COMMIT
EOF
cat > "$tmp/port.pkt" <<'EOF'
proto=tcp sport=1 dport=22
proto=tcp sport=1 dport=81
proto=udp sport=1 dport=443
proto=icmp
proto=tcp sport=1500 dport=5000
proto=tcp sport=999 dport=5000
proto=tcp sport=999 dport=5001
proto=tcp sport=1 dport=82 frag=1
proto=sctp sport=1 dport=22
proto=tcp sport=2000 dport=83
EOF
cat > "$tmp/port.want" <<'EOF'
DROP FORWARD 1
DROP FORWARD 1
DROP FORWARD 1
ACCEPT FORWARD policy
ACCEPT FORWARD 2
ACCEPT FORWARD 4
ACCEPT FORWARD policy
ACCEPT FORWARD policy
ACCEPT FORWARD policy
ACCEPT FORWARD policy
EOF
# sets_run NAME N DESC - $tmp/NAME.sets, .rules and .pkt through
# nf-hipac-sim --check: the verdicts of NAME.want, N packets checked.
sets_run()
{
	local t=$tmp/$1

	"$sim" --check --sets "$t.sets" "$t.rules" "$t.pkt" > "$t.out" \
		2> "$t.err"
	st=$?
	result "$([ $st -eq 0 ] && cmp -s "$t.out" "$t.want" &&
		  grep -qx "nf-hipac-sim: $2 packets checked, 0 mismatches" "$t.err"; echo $?)" \
		"$3" "exit $st: $(cat "$t.err"; diff "$t.want" "$t.out")"
}

# sets_refused NAME SETS PATTERN DESC - the sets SETS (printf's format)
# are refused with a message of their second line matching PATTERN.
sets_refused()
{
	printf "$2" > "$tmp/bad.sets"
	out=$("$sim" --sets "$tmp/bad.sets" "$tmp/$1.rules" < /dev/null 2>&1)
	st=$?
	result "$([ $st -ne 0 ] && grep -q "line 2: .*$3" <<<"$out"; echo $?)" \
		"$4" "exit $st: $out"
}

sets_run port 10 \
	"--sets bitmap:port (bitmap, range): ports, ranges, !, no-port packets, value"
sets_refused port 'create p bitmap:port range 0-1024\nadd p 70000\n' \
	"out of range 0-65535" \
	"--sets: a port over 65535 in a bitmap set is refused with its line"
sets_refused port 'create p bitmap:port range 0-1024\nadd p 1000-1100\n' \
	"add p 1000-1100: refused" \
	"--sets: a range past the set's range is refused with its line"
sets_refused port 'create p bitmap:port range 0-1024\nadd p icmp:1\n' \
	"Only protocols TCP and UDP are valid" \
	"--sets: a port of icmp is refused with ipset's message"

# hash:iface sets, both algorithms: "src" is the input device, "dst" the
# output device; nested wildcards, the longest match's value, "!", and a
# packet without an output device (in no set); the verdicts are known.
cat > "$tmp/if.sets" <<'EOF'
create i hash:iface hashsize 1024 maxelem 65536
add i eth+ value 1
add i eth1+ value 2
add i eth10 value 3
create l hash:iface hashsize 1024 maxelem 65536 algo lpm
add l ppp+
add l lo
EOF
cat > "$tmp/if.rules" <<'EOF'
*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
-A FORWARD -m set --match-set i src --set-value 3 -j DROP
-A FORWARD -m set --match-set i src --set-value 2 -j ACCEPT
-A FORWARD -m set --match-set l dst -j ACCEPT
-A FORWARD -m set ! --match-set i dst -j RETURN
-A FORWARD -j DROP
COMMIT
EOF
cat > "$tmp/if.pkt" <<'EOF'
in=eth10 out=eth0
in=eth12 out=eth0
in=eth1 out=ppp7
in=eth out=lo
in=lo out=eth2
in=lo out=wlan0
in=lo
in=eth100 out=eth1
EOF
cat > "$tmp/if.want" <<'EOF'
DROP FORWARD 1
ACCEPT FORWARD 2
ACCEPT FORWARD 2
ACCEPT FORWARD 3
DROP FORWARD 5
ACCEPT FORWARD policy
ACCEPT FORWARD policy
ACCEPT FORWARD 2
EOF
sets_run if 8 \
	"--sets hash:iface (hash, lpm): in/out devices, wildcards, value, !"
sets_refused if 'create i hash:iface\nadd i abcdefghijklmnop\n' \
	"is longer than 15 characters" \
	"--sets: a 16-byte interface name is refused with its line"

# Flow sets (hash:ip,port, hash:net,port) under src,dst: tcp and udp by
# port, icmp by type/code, gre by port 0, the longest prefix's value,
# "!", and no port for a fragment; the verdicts are known.
cat > "$tmp/flow.sets" <<'EOF'
create fp hash:ip,port family inet hashsize 1024 maxelem 65536
add fp 10.0.0.1,tcp:80
add fp 10.0.0.1,udp:53-54 value 7
add fp 10.0.0.2,icmp:echo-request
add fp 10.0.0.3,gre:0
create fn hash:net,port family inet hashsize 1024 maxelem 65536
add fn 10.1.0.0/16,tcp:22 value 1
add fn 10.1.2.0/24,tcp:22 value 2
EOF
cat > "$tmp/flow.rules" <<'EOF'
*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
-A FORWARD -m set --match-set fp src,dst --set-value 7 -j DROP
-A FORWARD -m set --match-set fp src,dst -j ACCEPT
-A FORWARD -m set --match-set fn src,dst --set-value 2 -j DROP
-A FORWARD -p tcp -m set ! --match-set fn src,dst -j DROP
COMMIT
EOF
cat > "$tmp/flow.pkt" <<'EOF'
src=10.0.0.1 dst=10.9.0.1 proto=tcp sport=1000 dport=80
src=10.0.0.1 dst=10.9.0.1 proto=tcp sport=1000 dport=81
src=10.0.0.1 dst=10.9.0.1 proto=udp sport=1000 dport=54
src=10.0.0.2 dst=10.9.0.1 proto=icmp icmp=8
src=10.0.0.2 dst=10.9.0.1 proto=icmp icmp=0
src=10.0.0.3 dst=10.9.0.1 proto=gre
src=10.1.2.3 dst=10.9.0.1 proto=tcp sport=1 dport=22
src=10.1.3.3 dst=10.9.0.1 proto=tcp sport=1 dport=22
src=10.1.3.3 dst=10.9.0.1 proto=tcp sport=1 dport=22 frag=1
src=10.0.0.1 dst=10.9.0.1 proto=tcp sport=1 dport=80 frag=1
EOF
cat > "$tmp/flow.want" <<'EOF'
ACCEPT FORWARD 2
DROP FORWARD 4
DROP FORWARD 1
ACCEPT FORWARD 2
ACCEPT FORWARD policy
ACCEPT FORWARD 2
DROP FORWARD 3
ACCEPT FORWARD policy
DROP FORWARD 4
DROP FORWARD 4
EOF
sets_run flow 10 \
	"--sets hash:ip,port, hash:net,port: src,dst, icmp, gre, longest prefix, !, fragments"

out=$(echo "src=300.1.1.1" | "$sim" "$tmp/small.rules" 2>&1)
st=$?
result "$([ $st -eq 2 ] && grep -q "packets line 1: bad packet field .src=300.1.1.1" <<<"$out"; echo $?)" \
	"a bad packet line: exit 2, the line and the field" "exit $st: $out"
exit $rc
