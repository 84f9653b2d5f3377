#!/bin/sh
# Regenerate the expected outputs from the real iptables 1.8.9 of this
# machine: rules.txt is loaded into a scratch network namespace, then
# iptables-save and iptables -L are captured.  Run as root, with ipset
# installed.
set -e
cd "$(dirname "$0")"
ns=nfhp-ref-$$
ip netns add $ns
trap 'ip netns del $ns' EXIT
ip netns exec $ns iptables -N foo
# The sets of the set matches (-m set --match-set): ipset's, for xt_set.
ip netns exec $ns ipset create bl hash:ip
ip netns exec $ns ipset create bl2 hash:net
while IFS= read -r line; do
	eval "set -- $line"
	ip netns exec $ns iptables "$@"
done < rules.txt
ip netns exec $ns iptables -P FORWARD DROP
ip netns exec $ns iptables-save | grep -v '^#' > expected-save.txt
for opt in "" -n -v -nv -nvx "-n --line-numbers" "-nv --line-numbers"; do
	f=expected-L$(printf '%s' "$opt" | tr -d ' -')
	ip netns exec $ns iptables -L $opt > "$f".txt
done
