#!/bin/sh
# Counter formatting of the real iptables: rules with set counters in a
# scratch namespace, listed with -v, -vx and saved with -c.  Run as root.
set -e
cd "$(dirname "$0")"
ns=nfhp-cnt-$$
ip netns add $ns
trap 'ip netns del $ns' EXIT
ipt() { ip netns exec $ns iptables "$@"; }
ipt -N cnt
ipt -A FORWARD -j cnt
for c in "0 0" "99999 99999" "100000 100499" "100500 9999499" \
	 "9999500 123456789" "123456789 9999499999" "9999500000 12345678901234" \
	 "18446744073709551615 18446744073709551615"; do
	ipt -A cnt -c $c -j ACCEPT
done
ipt -P INPUT DROP -c 123456 7890123
{
	ipt -L INPUT -v
	ipt -L cnt -v
	ipt -L cnt -v -x --line-numbers
} > expected-counters-L.txt
ip netns exec $ns iptables-save -c | grep -v '^#' > expected-counters-save.txt
