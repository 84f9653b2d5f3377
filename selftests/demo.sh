#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# demo.sh - what nf-hipac is for, in numbers.  Runs inside the test VM (make
# demo) from the repository top.
#
# Builds the client/router/server topology of selftests/nf_hipac/lib.sh and
# measures iperf3 TCP throughput client->server through the router with
#   - no firewall,
#   - N rules (bench/seed.py, default 10000) loaded with iptables-restore
#     (Debian's default nft backend) and, if installed, iptables-legacy,
#   - the same rules loaded with nf-hipac-restore (if nf_hipac.ko and
#     user/build/nf-hipac are built);
#   - and, over IPv6, no firewall and the same rules made IPv6 by
#     bench/ipv4to6.py (each address 72 bits up under fd00::/24, the hosts
#     too) loaded with nf-hipac6-restore: each family against its own
#     no-firewall figure.
# Every demo packet must pass all N rules before the final ACCEPT, so a
# linear ruleset pays for each rule and a decision tree does not.  Runs are
# short and interleaved (ROUNDS rounds of SECS seconds per configuration) and
# the table shows medians.  Absolute numbers under TCG emulation are
# meaningless; compare the ratios.
#
# Environment: NFHP_DEMO_RULES (10000), NFHP_DEMO_ROUNDS (3),
# NFHP_DEMO_SECS (4).

source "$(dirname "$0")/nf_hipac/lib.sh"

rules=${NFHP_DEMO_RULES:-10000}
rounds=${NFHP_DEMO_ROUNDS:-3}
secs=${NFHP_DEMO_SECS:-4}
module=$NFHP_TOP/nf_hipac.ko
tmp=$(mktemp -d)
ruleset=$tmp/rules
empty=$tmp/empty

nfhp_require_cmd iperf3 ethtool python3 iptables-restore
nf_hipac_setup || { nfhp_log "topology setup failed"; exit 1; }
trap 'nfhp_cleanup; rm -rf "$tmp"' EXIT

# Offloads let veth pass 64 KiB super-packets; turn them off so the firewall
# sees MTU-sized packets as it would on a real NIC.
for dev in "$ns_client veth0" "$ns_router veth0" "$ns_router veth1" \
	   "$ns_server veth0"; do
	set -- $dev
	in_ns "$1" ethtool -K "$2" tso off gso off gro off >/dev/null 2>&1
done

"$NFHP_TOP/bench/seed.py" "$rules" > "$ruleset" || exit 1
"$NFHP_TOP/bench/ipv4to6.py" rules "$ruleset" > "$ruleset.6" || exit 1

# v6 ADDR - the IPv6 address bench/ipv4to6.py makes of the IPv4 ADDR.
v6() { echo "$1" > "$tmp/addr" && "$NFHP_TOP/bench/ipv4to6.py" rules "$tmp/addr"; }
CLIENT6=$(v6 $CLIENT_IP)
ROUTER_CLIENT6=$(v6 $ROUTER_CLIENT_IP)
ROUTER_SERVER6=$(v6 $ROUTER_SERVER_IP)
SERVER6=$(v6 $SERVER_IP)
nf_hipac_setup6 48 || { nfhp_log "IPv6 setup failed"; exit 1; }
printf '*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\nCOMMIT\n' \
	> "$empty"

configs="none iptables"
command -v iptables-legacy-restore >/dev/null && configs="$configs legacy"
if [ ! -f "$module" ] || [ ! -x "$NFHP_BIN/nf-hipac-restore" ]; then
	echo "demo: nf-hipac is not built yet (need $module and" \
	     "$NFHP_BIN/nf-hipac-restore); skipping the nf-hipac row"
elif [ -d /sys/module/nf_hipac ] || nfhp_insmod "$module"; then
	configs="$configs nf-hipac none6 nf-hipac6"
else
	echo "demo: insmod $module failed; skipping the nf-hipac row"
fi

# load CONFIG - install the N-rule set in the router with CONFIG's tool.
load()
{
	case $1 in
	none) true;;
	iptables) in_ns $ns_router iptables-restore < "$ruleset";;
	legacy) in_ns $ns_router iptables-legacy-restore < "$ruleset";;
	nf-hipac) nfhp_restore_in $ns_router < "$ruleset";;
	none6) true;;
	nf-hipac6) in_ns $ns_router "$NFHP_BIN/nf-hipac6-restore" < "$ruleset.6";;
	esac
}

# unload CONFIG - remove it again, leaving nothing on the packet path.
unload()
{
	case $1 in
	none) true;;
	iptables) in_ns $ns_router nft flush ruleset;;
	legacy) in_ns $ns_router iptables-legacy-restore < "$empty";;
	nf-hipac) nfhp_restore_in $ns_router < "$empty";;
	none6) true;;
	nf-hipac6) in_ns $ns_router "$NFHP_BIN/nf-hipac6-restore" < "$empty";;
	esac
}

# measure ADDR - one iperf3 run to ADDR; prints Mbit/s received, or
# nothing on failure.
measure()
{
	timeout $((secs + 30)) ip netns exec $ns_client \
		iperf3 -c "$1" -t "$secs" -J 2>/dev/null |
	python3 -c '
import json, sys
try:
    r = json.load(sys.stdin)
    print("%.1f" % (r["end"]["sum_received"]["bits_per_second"] / 1e6))
except Exception:
    pass'
}

ip netns exec $ns_server iperf3 -s >/dev/null 2>&1 &
disown
for i in $(seq 50); do
	in_ns $ns_server ss -Hltn sport = :5201 | grep -q . && break
	sleep 0.2
done

declare -A res load_s
for r in $(seq "$rounds"); do
	for c in $configs; do
		start=$(date +%s.%N)
		if ! load "$c"; then
			echo "demo: loading the ruleset with $c failed"
			unload "$c"
			continue
		fi
		load_s[$c]=$(echo "$(date +%s.%N) - $start" | bc 2>/dev/null ||
			     python3 -c "print($(date +%s.%N) - $start)")
		if [ "$c" = nf-hipac ] && [ "$r" -eq "$rounds" ]; then
			info=$(in_ns $ns_router cat /proc/net/nf-hipac/info 2>&1)
		fi
		dst=$SERVER_IP
		[[ $c != *6 ]] || dst=$SERVER6
		if ! in_ns $ns_client $NFHP_PING -q -c1 -W"$NFHP_WAIT" $dst \
			>/dev/null 2>&1; then
			echo "demo: $c with $rules rules blocks the demo traffic!"
		fi
		v=$(measure $dst)
		echo "demo: round $r: $c: ${v:-failed} Mbit/s"
		res[$c]="${res[$c]:-} ${v:-0}"
		unload "$c"
	done
done

# The table exits 1 if a configuration produced no measurement at all.
python3 - "$rules" "$configs" <<PYEOF
import statistics, sys
rules, configs = sys.argv[1], sys.argv[2].split()
res = {$(for c in $configs; do printf '"%s": [%s], ' "$c" "$(echo ${res[$c]} | tr ' ' ,)"; done)}
load = {$(for c in $configs; do printf '"%s": "%s", ' "$c" "${load_s[$c]:-}"; done)}
failed = 0
names = {"none": "no firewall", "iptables": "iptables (nft)",
         "legacy": "iptables-legacy", "nf-hipac": "nf-hipac",
         "none6": "no firewall IPv6", "nf-hipac6": "nf-hipac6 (IPv6)"}


def baseline(name):
    runs = [v for v in res.get(name, []) if v > 0]
    return statistics.median(runs) if runs else 0


print()
print("%-18s %7s %9s %14s %9s" % ("firewall", "rules", "load [s]",
                                    "median Mbit/s", "vs none"))
for c in configs:
    runs = [v for v in res[c] if v > 0]
    if not runs:
        print("%-18s %7s %9s %14s %9s" % (names[c], rules, "-", "failed", "-"))
        failed = 1
        continue
    med = statistics.median(runs)
    base = baseline("none6" if c.endswith("6") else "none")
    ratio = "%.3f" % (med / base) if base else "-"
    n = "0" if c.startswith("none") else rules
    ld = "-" if c.startswith("none") else "%.2f" % float(load[c] or 0)
    print("%-18s %7s %9s %14.1f %9s" % (names[c], n, ld, med, ratio))
sys.exit(failed)
PYEOF
rc=$?

if [ -n "${info:-}" ]; then
	echo
	echo "/proc/net/nf-hipac/info (router, $rules rules loaded):"
	echo "$info"
fi
exit $rc
