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
n=0
rc=0

result() {	# result OK NAME [DETAIL]
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		[ -n "${3:-}" ] && printf '%s\n' "$3" | sed 's/^/# /'
		rc=1
	fi
}

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
	"an extension the simulator cannot run: exit 2, the line and the match" \
	"exit $st: $out"

out=$(echo "src=300.1.1.1" | "$sim" "$tmp/small.rules" 2>&1)
st=$?
result "$([ $st -eq 2 ] && grep -q "packets line 1: bad packet field .src=300.1.1.1" <<<"$out"; echo $?)" \
	"a bad packet line: exit 2, the line and the field" "exit $st: $out"
exit $rc
