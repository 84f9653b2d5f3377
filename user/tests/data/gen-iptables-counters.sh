#!/bin/sh
# Counter formatting of the real iptables: rules with set counters in a
# scratch namespace (counters.txt), listed with -v, -vx and saved with -c.  Run as root.
set -e
cd "$(dirname "$0")"
ns=nfhp-cnt-$$
ip netns add $ns
trap 'ip netns del $ns' EXIT
ipt() { ip netns exec $ns iptables "$@"; }
ipt -N cnt
while IFS= read -r line; do
	ipt $line
done < counters.txt
ipt -P INPUT DROP -c 123456 7890123
{
	ipt -L INPUT -v
	ipt -L cnt -v
	ipt -L cnt -v -x --line-numbers
} > expected-counters-L.txt
ip netns exec $ns iptables-save -c | grep -v '^#' > expected-counters-save.txt
