#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""ipv4to6.py rules|packets FILE - an IPv4 rule set or packet file as IPv6.

    bench/ipv4to6.py rules acl1_10k.ipt > acl1_10k.ip6t
    bench/ipv4to6.py packets acl1_10k.pkt > acl1_10k.pkt6

Every IPv4 address a.b.c.d becomes its 32 bits right after fd00::/24
(bits 72 to 103 of the IPv6 address) and a prefix /p becomes /(24 + p),
so that the IPv6 rule set has the same intervals, in the same order, as
the IPv4 one, and the same width classes and folds (kernel/group.c moves
IPv6's 72 bits up): what differs in nf-hipac-sim -6 is the width of the
keys alone.  ICMP
becomes ICMPv6 by number ("-p icmp --icmp-type 8" stays type 8), and
"-m ttl" becomes "-m hl".  Lines of other rules pass as they are.
"""
import ipaddress
import re
import sys

ADDR = re.compile(r'(?<![\w.:])(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})'
                  r'(?:/(\d{1,2}))?(?![\w.])')


def v6(m):
    a = [int(m.group(i)) for i in range(1, 5)]
    v4 = a[0] << 24 | a[1] << 16 | a[2] << 8 | a[3]
    text = ipaddress.IPv6Address(0xfd0000 << 104 | v4 << 72).compressed
    if m.group(5) is not None:
        text += '/%d' % (24 + int(m.group(5)))
    return text


def rule_line(line):
    line = ADDR.sub(v6, line)
    line = re.sub(r'-p icmp\b', '-p ipv6-icmp', line)
    line = re.sub(r'-m icmp\b', '-m icmp6', line)
    line = line.replace('--icmp-type', '--icmpv6-type')
    line = line.replace('-m ttl', '-m hl').replace('--ttl-', '--hl-')
    return line


def packet_line(line):
    line = ADDR.sub(v6, line)
    return re.sub(r'\bproto=icmp\b', 'proto=ipv6-icmp', line)


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ('rules', 'packets'):
        sys.exit(__doc__)
    conv = rule_line if sys.argv[1] == 'rules' else packet_line
    with open(sys.argv[2]) as f:
        for line in f:
            sys.stdout.write(conv(line))


if __name__ == '__main__':
    main()
