#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Convert a ClassBench filter set to an iptables-save filter rule set.

    classbench2ipt.py RULEFILE[.xz] > ruleset.txt

Every ClassBench rule becomes, in the same order, a rule in FORWARD:
    -A FORWARD -s A/len -d B/len -p P -m tcp --sport a:b --dport c:d -j ACCEPT
with the FORWARD policy DROP, so that a packet no rule matches is dropped.
Wildcards are omitted (0.0.0.0/0, the full port range 0:65535, protocol
mask 0x00).  The sixth ClassBench field (flags) is ignored, as most
classifiers do.

Protocols and ports.  iptables only has ports for a protocol that has them
(-p tcp / -p udp here), and nf-hipac's packet key, like the kernel, has
port 0 for every other protocol.  So:

  * protocol tcp (6) or udp (17): the ports are kept.
  * wildcard protocol, full port ranges: no -p, no ports.
  * wildcard protocol, restricted ports: the rule is emitted twice, as
    "-p tcp" and right after it "-p udp", with the same addresses and
    ports.  For tcp and udp packets the linear first-match scan of the
    converted set then decides exactly like ClassBench's: a packet matches
    at most one of the pair, and the pair sits where the original rule
    was.  (Packets of other protocols have no ports in iptables, so no
    single iptables rule can mean "these ports, any protocol".)  The price
    is that rule numbers after such a rule shift by one; --map FILE writes
    "converted-number classbench-line" pairs to undo that.
  * another protocol with full port ranges: "-p P".
  * another protocol with restricted ports: not expressible in iptables,
    the rule is skipped; skipped rules are counted on stderr.

With --chains the rules are spread over user chains the way a large
firewall is: a rule whose source is a /8 or narrower goes to chain S<N>
for its first octet N, FORWARD jumps to each with "-s N.0.0.0/8 -j S<N>"
(in the order the octets first appear) and keeps the wider rules after
the jumps.  This reorders the set, so its verdicts are not ClassBench's;
it measures what user chains cost a lookup and an update.  --returns
puts "-p icmp -j RETURN" atop each of those chains (ClassBench packets
are tcp and udp), so that the hook's entries skip, as Calico's do.

The ClassBench data stays outside the repository; .xz files are read
directly.
"""
import argparse
import lzma
import sys


def open_text(path):
    if path.endswith(".xz"):
        return lzma.open(path, "rt")
    return open(path, "r")


def prefix(field):
    addr, plen = field.split("/")
    plen = int(plen)
    parts = [int(x) for x in addr.split(".")]
    value = (parts[0] << 24) | (parts[1] << 16) | (parts[2] << 8) | parts[3]
    if plen:
        value &= (0xFFFFFFFF << (32 - plen)) & 0xFFFFFFFF
    else:
        value = 0
    return "%d.%d.%d.%d/%d" % (value >> 24, (value >> 16) & 255,
                               (value >> 8) & 255, value & 255, plen)


def port_range(field):
    lo, hi = [int(x) for x in field.split(":")]
    return lo, hi


def port_opt(name, lo, hi):
    if lo == 0 and hi == 65535:
        return ""
    if lo == hi:
        return " --%s %d" % (name, lo)
    return " --%s %d:%d" % (name, lo, hi)


def chain_of(src):
    """The user chain of a rule with source @src under --chains, or None."""
    addr, plen = src.split("/")
    if int(plen) < 8:
        return None
    return "S" + addr.split(".")[0]


def write_chained(rules, out, returns=False):
    """Write @rules ((chain, rule) pairs) with the jumps to their chains."""
    chains = []
    for chain, _ in rules:
        if chain != "FORWARD" and chain not in chains:
            chains.append(chain)
    for chain in chains:
        out.write(":%s - [0:0]\n" % chain)
    for chain in chains:
        out.write("-A FORWARD -s %s.0.0.0/8 -j %s\n" % (chain[1:], chain))
    for chain in ["FORWARD"] + chains:
        if returns and chain != "FORWARD":
            out.write("-A %s -p icmp -j RETURN\n" % chain)
        for c, rule in rules:
            if c == chain:
                out.write("-A %s%s\n" % (c, rule))


def convert(lines, out, mapping, chained=False, returns=False):
    skipped = {}
    n = 0
    emitted = 0
    rules = []
    out.write("*filter\n:INPUT ACCEPT [0:0]\n:FORWARD DROP [0:0]\n"
              ":OUTPUT ACCEPT [0:0]\n")
    for line in lines:
        line = line.strip()
        if not line:
            continue
        n += 1
        f = line.lstrip("@").split("\t")
        src, dst = prefix(f[0]), prefix(f[1])
        sp = port_range(f[2])
        dp = port_range(f[3])
        pval, pmask = [int(x, 16) for x in f[4].split("/")]
        addr = ""
        if not src.endswith("/0"):
            addr += " -s " + src
        if not dst.endswith("/0"):
            addr += " -d " + dst
        ports = port_opt("sport", *sp) + port_opt("dport", *dp)
        if pmask == 0:
            protos = ["tcp", "udp"] if ports else [None]
        elif pval in (6, 17):
            protos = ["tcp" if pval == 6 else "udp"]
        elif not ports:
            protos = [str(pval)]
        else:
            skipped[pval] = skipped.get(pval, 0) + 1
            continue
        chain = chained and chain_of(src) or "FORWARD"
        for p in protos:
            rule = addr
            if p is not None:
                rule += " -p " + p
                if p in ("tcp", "udp") and ports:
                    rule += " -m " + p + ports
            rules.append((chain, rule + " -j ACCEPT"))
            emitted += 1
            if mapping:
                mapping.write("%d %d\n" % (emitted, n))
    if chained:
        write_chained(rules, out, returns)
    else:
        for chain, rule in rules:
            out.write("-A %s%s\n" % (chain, rule))
    out.write("COMMIT\n")
    total = sum(skipped.values())
    print("classbench2ipt: %d ClassBench rules, %d iptables rules, "
          "%d skipped" % (n, emitted, total), file=sys.stderr)
    for pval in sorted(skipped):
        print("classbench2ipt: skipped %d rules of protocol %d with port "
              "ranges (not expressible in iptables)" % (skipped[pval], pval),
              file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("rulefile")
    ap.add_argument("--map", help="write 'converted-number classbench-line'")
    ap.add_argument("--chains", action="store_true",
                    help="spread the rules over user chains by source /8")
    ap.add_argument("--returns", action="store_true",
                    help="with --chains, -p icmp -j RETURN atop each chain")
    args = ap.parse_args()
    if args.returns and not args.chains:
        ap.error("--returns goes with --chains")
    if args.map and args.chains:
        ap.error("--map numbers FORWARD's rules; it does not go with --chains")
    mapping = open(args.map, "w") if args.map else None
    with open_text(args.rulefile) as f:
        convert(f, sys.stdout, mapping, args.chains, args.returns)
    if mapping:
        mapping.close()


if __name__ == "__main__":
    main()
