#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""ipv4to6.py [--low] rules|packets FILE - an IPv4 rule set or packet file
as IPv6.

    bench/ipv4to6.py rules acl1_10k.ipt > acl1_10k.ip6t
    bench/ipv4to6.py packets acl1_10k.pkt > acl1_10k.pkt6

Every IPv4 address a.b.c.d becomes its 32 bits right after fd00::/24
(bits 72 to 103 of the IPv6 address) and a prefix /p becomes /(24 + p),
so that the IPv6 rule set has the same intervals, in the same order, as
the IPv4 one: prefixes of /56 and shorter, as a site's /48 and its
subnets.  With --low the 32 bits are the last ones, below 2001:db8::/96,
and /p becomes /(96 + p): hosts and small subnets of one /96.  Either way
kernel/group.c moves the width classes to where the rule set's prefixes
end, so what differs in nf-hipac-sim -6 is the width of the keys, and
with --low that no key ends in 64 one bits (tree.c, RLP64).  ICMP
becomes ICMPv6 by number ("-p icmp --icmp-type 8" stays type 8), and
"-m ttl" becomes "-m hl".  Lines of other rules pass as they are.
"""
import ipaddress
import re
import sys

ADDR = re.compile(r'(?<![\w.:])(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})'
                  r'(?:/(\d{1,2}))?(?![\w.])')


LOW = False


def v6(m):
    a = [int(m.group(i)) for i in range(1, 5)]
    v4 = a[0] << 24 | a[1] << 16 | a[2] << 8 | a[3]
    base, at, plen = (0x20010db8 << 96, 0, 96) if LOW else \
        (0xfd0000 << 104, 72, 24)
    text = ipaddress.IPv6Address(base | v4 << at).compressed
    if m.group(5) is not None:
        text += '/%d' % (plen + int(m.group(5)))
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
    global LOW
    args = sys.argv[1:]
    if args[:1] == ['--low']:
        LOW = True
        args = args[1:]
    if len(args) != 2 or args[0] not in ('rules', 'packets'):
        sys.exit(__doc__)
    conv = rule_line if args[0] == 'rules' else packet_line
    with open(args[1]) as f:
        for line in f:
            sys.stdout.write(conv(line))


if __name__ == '__main__':
    main()
