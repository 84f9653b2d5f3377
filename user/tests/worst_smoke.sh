#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# worst_smoke.sh [SIM]: the worst-case tools of bench/ with nf-hipac-sim
# (default user/build/nf-hipac-sim): bench/worst.py's sets load and are the
# same for the same seed, bench/rules2pkt.py's packets pass the rule they
# were drawn in (also for lines with matches it skips), and
# bench/worst-sweep.sh in a quick mode writes its table and fails when the
# simulator reports a mismatch.  One TAP line per case.
here=$(cd "$(dirname "$0")/.." && pwd)
bench=$here/../bench
sim=${1:-$here/build/nf-hipac-sim}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tap.sh
. "$here/tests/tap.sh"

# worst.py: the options change the set, the seed makes it.
bad=
for opts in "" "--chains 3 --depth 3 --hot 0.8 --gotos 1" "--chains 0" \
	    "--dims src,dst,iface,mark --neg 0.5 --density 3 --returns 0.5"; do
	# $opts: one word each.
	# shellcheck disable=SC2086
	if ! python3 "$bench/worst.py" 40 --seed 5 $opts > "$tmp/a.ipt" 2>&1 ||
	   ! python3 "$bench/worst.py" 40 --seed 5 $opts > "$tmp/b.ipt"; then
		bad+="worst.py $opts: $(cat "$tmp/a.ipt")"$'\n'
		continue
	fi
	cmp -s "$tmp/a.ipt" "$tmp/b.ipt" ||
		bad+="worst.py 40 --seed 5 $opts: two different sets"$'\n'
	[ "$(grep -c '^-A' "$tmp/a.ipt")" = 40 ] ||
		bad+="worst.py 40 $opts: $(grep -c '^-A' "$tmp/a.ipt") rules"$'\n'
	out=$(timeout 60 "$sim" --stats "$tmp/a.ipt" 2>&1 >/dev/null) ||
		bad+="worst.py 40 --seed 5 $opts: nf-hipac-sim: $out"$'\n'
done
python3 "$bench/worst.py" 40 --seed 6 > "$tmp/c.ipt"
cmp -s "$tmp/a.ipt" "$tmp/c.ipt" && bad+="seeds 5 and 6 give the same set"
result "$([ -z "$bad" ]; echo $?)" \
	"worst.py: 40 rules, loaded by nf-hipac-sim, one set per seed and options" \
	"$bad"

# ... and by iptables-legacy-restore, in a network namespace of its own.
if [ "$(id -u)" = 0 ] && command -v iptables-legacy-restore >/dev/null &&
   unshare -n true 2>/dev/null; then
	python3 "$bench/worst.py" 300 --seed 2 --chains 6 --depth 3 \
		> "$tmp/l.ipt"
	out=$(unshare -n iptables-legacy-restore < "$tmp/l.ipt" 2>&1)
	result $? "worst.py 300 --chains 6 --depth 3: iptables-legacy-restore takes it" \
		"$out"
else
	n=$((n + 1))
	echo "ok $n - worst.py in iptables-legacy-restore # SKIP needs root," \
		"unshare -n and iptables-legacy-restore"
fi

# rules2pkt.py: each rule of a worst.py set alone (ACCEPT, policies DROP,
# a user chain's rule in FORWARD): every packet drawn inside it hits it.
python3 "$bench/worst.py" 24 --seed 11 --chains 2 --density 1.5 |
	grep '^-A' > "$tmp/rules"
i=0
while read -r line; do
	i=$((i + 1))
	chain=$(cut -d' ' -f2 <<<"$line")
	case $chain in
	INPUT|FORWARD|OUTPUT) ;;
	*) line="-A FORWARD ${line#-A "$chain" }"; chain=FORWARD ;;
	esac
	line=$(sed -E 's/ -[jg] [^ ]+$//' <<<"$line")
	printf '*filter\n:INPUT DROP [0:0]\n:FORWARD DROP [0:0]\n:OUTPUT DROP [0:0]\n%s -j ACCEPT\nCOMMIT\n' \
		"$line" > "$tmp/one$i.ipt"
	echo "$chain" > "$tmp/one$i.chain"
done < "$tmp/rules"
# One interpreter for all of them.
python3 - "$bench" "$tmp" "$i" <<'EOF2' 2> "$tmp/one.err"
import contextlib, io, sys
sys.path.insert(0, sys.argv[1])
import rules2pkt
tmp, n = sys.argv[2], int(sys.argv[3])
for i in range(1, n + 1):
    sys.argv = ["rules2pkt.py", "%s/one%d.ipt" % (tmp, i), "--count", "10",
                "--random", "0"]
    with open("%s/one%d.pkt" % (tmp, i), "w") as f, \
            contextlib.redirect_stdout(f):
        rules2pkt.main()
EOF2
bad=$(cat "$tmp/one.err")
for j in $(seq 1 "$i"); do
	chain=$(cat "$tmp/one$j.chain")
	out=$("$sim" "$tmp/one$j.ipt" "$tmp/one$j.pkt" 2>&1 | grep -v "^ACCEPT $chain 1$")
	[ -z "$out" ] && [ "$(wc -l < "$tmp/one$j.pkt")" = 10 ] ||
		bad+="$(grep '^-A' "$tmp/one$j.ipt"): $out"$'\n'
done
result "$([ -z "$bad" ] && [ "$i" = 24 ]; echo $?)" \
	"rules2pkt.py: packets drawn inside each of 24 rules pass it" "$bad"

# Lines as a real firewall saves them: counters, masks, old-style "! arg",
# matches and targets that are not modelled, user chains, a nat table.
cat > "$tmp/real.ipt" <<'EOF'
*nat
:PREROUTING ACCEPT [0:0]
-A PREROUTING -s 1.2.3.4/32 -j DNAT --to-destination 5.6.7.8
COMMIT
*filter
:INPUT ACCEPT [10:20]
:FORWARD DROP [0:0]
:OUTPUT ACCEPT [0:0]
:mac_96 - [0:0]
:LOG_DROP - [0:0]
[3:180] -A FORWARD -s 10.1.0.0/255.255.0.0 -i vlan96 -j mac_96
-A FORWARD -d 10.2.0.0/16 -p tcp -m tcp --dport ! 22 -m recent --set --name ssh --rsource -m limit --limit 3/min -j LOG --log-prefix "-- fw "
-A FORWARD -o vlan+ -p udp -m udp --sport 53 -m comment --comment "dns replies" -j REJECT --reject-with icmp-port-unreachable
-A mac_96 -m mac --mac-source 00:11:22:33:44:55 -p tcp -m multiport --dports 80,443,8000:8080 --tcp-flags FIN,SYN,RST,ACK SYN -j RETURN
-A mac_96 -m state --state RELATED,ESTABLISHED -m mark ! --mark 0x10000/0xffff0000 -j LOG_DROP
-A LOG_DROP -p icmp -m icmp --icmp-type port-unreachable -j DROP
COMMIT
EOF
# The same lines with only the matches nf-hipac-sim runs, each ACCEPT, one
# chain each: every packet drawn inside one of them is accepted.
cat > "$tmp/native.ipt" <<'EOF'
*filter
:INPUT DROP [0:0]
:FORWARD DROP [0:0]
:OUTPUT DROP [0:0]
-A FORWARD -s 10.1.0.0/16 -i vlan96 -j ACCEPT
-A FORWARD -d 10.2.0.0/16 -p tcp -m tcp ! --dport 22 -j ACCEPT
-A FORWARD -o vlan+ -p udp -m udp --sport 53 -j ACCEPT
-A FORWARD -s 10.1.0.0/16 -i vlan96 -p tcp -m tcp --tcp-flags FIN,SYN,RST,ACK SYN -m multiport --dports 80,443,8000:8080 -j ACCEPT
-A FORWARD -s 10.1.0.0/16 -i vlan96 -m state --state RELATED,ESTABLISHED -m mark ! --mark 0x10000/0xffff0000 -j ACCEPT
-A FORWARD -s 10.1.0.0/16 -i vlan96 -m state --state RELATED,ESTABLISHED -m mark ! --mark 0x10000/0xffff0000 -p icmp -m icmp --icmp-type port-unreachable -j ACCEPT
COMMIT
EOF
python3 "$bench/rules2pkt.py" "$tmp/real.ipt" --count 300 --random 0 \
	--seed 3 > "$tmp/real.pkt" 2> "$tmp/real.err"
st=$?
out=$("$sim" "$tmp/native.ipt" "$tmp/real.pkt" 2>&1 | grep -v '^ACCEPT FORWARD [1-6]$')
result "$([ $st -eq 0 ] && [ -z "$out" ] && [ "$(wc -l < "$tmp/real.pkt")" = 300 ]; echo $?)" \
	"rules2pkt.py: a saved firewall's lines, -m mac, -j LOG and the rest skipped" \
	"exit $st: $(cat "$tmp/real.err")$out"

# worst-sweep.sh, quick: two sets of 60 rules, the table and the CSV.
NFHP_SIM=$sim "$bench/worst-sweep.sh" -n 2 -s 60 -p 1000 -c 500 -b 4 \
	-o "$tmp/sweep/worst.md" > "$tmp/sweep.out" 2>&1
st=$?
bad=$(awk -F, 'NR > 1 {
		rows++
		if ($5 !~ /^(ok|timeout|bench timeout)$/)
			printf "set %s: %s\n", $2, $5
		if ($5 != "timeout" && ($15 != 500 || $16 != 0 || !($8 > 0) || !($9 > 0)))
			printf "set %s: checked %s, mismatches %s, memory %s, entries %s\n", $2, $15, $16, $8, $9
		if ($5 == "ok" && !($17 > 0 && $18 > 0))
			printf "set %s: build_ms %s, lookup_ns %s\n", $2, $17, $18
	}
	END { if (rows != 2) printf "%d rows, not 2\n", rows }' \
	"$tmp/sweep/worst.csv" 2>&1)
grep -q '^| 60 | 2 | 2 s | [0-2] | [0-2] | 0 | ' "$tmp/sweep/worst.md" ||
	bad+=$'\nno row "| 60 | 2 | 2 s | ... | 0 failures" in the table'
grep -q '^== w60-2: ' "$tmp/sweep/worst-stats.txt" ||
	bad+=$'\nno raw --stats lines of the second set'
result "$([ $st -eq 0 ] && [ -z "$bad" ]; echo $?)" \
	"worst-sweep.sh -n 2 -s 60: table, CSV, raw stats, no failure" \
	"exit $st: $bad"$'\n'"$(cat "$tmp/sweep.out")"

# -T: the same table again from the CSV, nothing run, the run time unknown.
mv "$tmp/sweep/worst.md" "$tmp/sweep/first.md"
NFHP_SIM=/nonexistent "$bench/worst-sweep.sh" -n 2 -s 60 -p 1000 -c 500 -b 4 \
	-o "$tmp/sweep/worst.md" -T "$tmp/sweep/worst.csv" > "$tmp/retable.out" 2>&1
st=$?
result "$([ $st -eq 0 ] &&
	  diff <(grep '^| 60 ' "$tmp/sweep/first.md") \
	       <(grep '^| 60 ' "$tmp/sweep/worst.md") > /dev/null &&
	  grep -q '^Run time: not known' "$tmp/sweep/worst.md"; echo $?)" \
	"worst-sweep.sh -T: the table again from the CSV, nothing run" \
	"exit $st: $(cat "$tmp/retable.out")"

# A simulator that reports a mismatch on --check is a failed sweep.
# Its --bench prints nothing: the sweep leaves those figures empty.
cat > "$tmp/fake-sim" <<EOF
#!/bin/bash
case " \$* " in
*" --check "*)
	"$sim" "\$@" 2> "$tmp/fake.err"
	sed 's/, 0 mismatches\$/, 1 mismatches/' "$tmp/fake.err" >&2
	exit 1 ;;
*" --bench "*)
	exit 0 ;;
esac
exec "$sim" "\$@"
EOF
chmod +x "$tmp/fake-sim"
NFHP_SIM=$tmp/fake-sim "$bench/worst-sweep.sh" -n 1 -s 30 -p 300 -c 100 \
	-b 4 -o "$tmp/fake/worst.md" > "$tmp/fake.out" 2>&1
st=$?
result "$([ $st -eq 1 ] && grep -q '^30,1,.*,mismatch,' "$tmp/fake/worst.csv" &&
	  grep -q '^| 30 | 1 | 2 s | 0 | 0 | 1 | ' "$tmp/fake/worst.md"; echo $?)" \
	"worst-sweep.sh: a mismatch is a failure, exit 1" \
	"exit $st: $(cat "$tmp/fake.out")"
exit $rc
