#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Translate an iptables-save filter ruleset into an nft script.

    ipt2nft.py [--set] [--table NAME] [--family 6] RULES > rules.nft

Handles the features the benchmark rulesets use: builtin chains and their
policies, -s/-d prefixes, -p tcp|udp|NUM, --sport/--dport ports or ranges,
-i/-o interface names, -j ACCEPT|DROP.  Anything else is an error, so a
ruleset is never translated silently wrong.

Default mode writes the rules natively, one nft rule per iptables rule in
the same order.  --set folds the FORWARD rules into one concatenated
interval set or verdict map (the pipapo backend) looked up by a single
rule:

    ip saddr . ip daddr . meta l4proto . th sport . th dport @s accept
    ip saddr . ip daddr . meta l4proto . th sport . th dport vmap @m

Interface rules at the head of the chain stay native rules in front of the
lookup.  The fold is exact only if no two rules overlap (then first match
and any match agree); pipapo itself refuses elements that overlap, so the
script checks for overlaps first and exits 3 with the first overlapping
pair on stderr when the ruleset cannot be expressed this way.

The script starts with "table ip T; delete table ip T" so that nft -f
replaces the table in one atomic transaction.

--family 6 reads an ip6tables-save ruleset and writes "table ip6 T" with
ip6 saddr/daddr (protocols as meta l4proto, which walks extension
headers as ip6tables -p does); --set is IPv4 only.
"""
import argparse
import sys


def ip2int(a):
    p = [int(x) for x in a.split(".")]
    return (p[0] << 24) | (p[1] << 16) | (p[2] << 8) | p[3]


def prefix_range(spec):
    """(lo, hi) addresses of A/len (or a bare address)."""
    if spec is None:
        return 0, 0xFFFFFFFF
    addr, _, plen = spec.partition("/")
    plen = int(plen) if plen else 32
    host = (1 << (32 - plen)) - 1
    lo = ip2int(addr) & ~host & 0xFFFFFFFF
    return lo, lo | host


def port_range(spec):
    if spec is None:
        return 0, 65535
    lo, _, hi = spec.partition(":")
    return int(lo), int(hi) if hi else int(lo)


PROTO = {"tcp": 6, "udp": 17, "icmp": 1, "ipv6-icmp": 58}
FAMILY = 4


class Rule:
    """One parsed -A line."""

    def __init__(self, chain, toks, lineno):
        self.chain = chain
        self.src = self.dst = self.proto = None
        self.sport = self.dport = self.iif = self.oif = None
        self.verdict = None
        i = 0
        while i < len(toks):
            t = toks[i]
            arg = toks[i + 1] if i + 1 < len(toks) else None
            if t == "-s":
                self.src = arg
            elif t == "-d":
                self.dst = arg
            elif t == "-p":
                self.proto = PROTO.get(arg, None)
                if self.proto is None:
                    self.proto = int(arg)
            elif t == "-m" and arg in ("tcp", "udp"):
                pass
            elif t == "--sport":
                self.sport = arg
            elif t == "--dport":
                self.dport = arg
            elif t == "-i":
                self.iif = arg
            elif t == "-o":
                self.oif = arg
            elif t == "-j" and arg in ("ACCEPT", "DROP"):
                self.verdict = arg.lower()
            else:
                sys.exit("ipt2nft: line %d: unsupported %s %s" %
                         (lineno, t, arg))
            i += 2
        if self.verdict is None:
            sys.exit("ipt2nft: line %d: no ACCEPT/DROP target" % lineno)
        if (self.sport or self.dport) and self.proto not in (6, 17):
            sys.exit("ipt2nft: line %d: ports without -p tcp/udp" % lineno)

    def native(self):
        """The rule as an nft rule statement."""
        out = []
        if self.iif:
            out.append('iifname "%s"' % self.iif)
        if self.oif:
            out.append('oifname "%s"' % self.oif)
        ip = "ip6" if FAMILY == 6 else "ip"
        if self.src:
            out.append(ip + " saddr " + self.src)
        if self.dst:
            out.append(ip + " daddr " + self.dst)
        name = {6: "tcp", 17: "udp"}.get(self.proto)
        if self.sport or self.dport:
            if self.sport:
                out.append("%s sport %s" % (name, self.sport.replace(":", "-")))
            if self.dport:
                out.append("%s dport %s" % (name, self.dport.replace(":", "-")))
        elif self.proto is not None and FAMILY == 6:
            out.append("meta l4proto %d" % self.proto)
        elif self.proto is not None:
            out.append("ip protocol %d" % self.proto)
        out.append(self.verdict)
        return " ".join(out)

    def box(self):
        """The rule as five closed intervals."""
        pr = (0, 255) if self.proto is None else (self.proto, self.proto)
        return (prefix_range(self.src), prefix_range(self.dst), pr,
                port_range(self.sport), port_range(self.dport))

    def element(self):
        parts = []
        for spec in (self.src, self.dst):
            parts.append(spec if spec else "0.0.0.0/0")
        for lo, hi in self.box()[2:]:
            parts.append(str(lo) if lo == hi else "%d-%d" % (lo, hi))
        return " . ".join(parts)


def parse(f):
    policies, rules = {}, []
    for n, line in enumerate(f, 1):
        line = line.strip()
        if not line or line.startswith("#") or line in ("*filter", "COMMIT"):
            continue
        if line.startswith(":"):
            name, pol = line[1:].split()[:2]
            if name not in ("INPUT", "FORWARD", "OUTPUT"):
                sys.exit("ipt2nft: user chain %s not supported" % name)
            policies[name] = pol.lower()
            continue
        toks = line.split()
        if toks[0] != "-A" or toks[1] not in ("INPUT", "FORWARD", "OUTPUT"):
            sys.exit("ipt2nft: line %d: unsupported: %s" % (n, line))
        rules.append(Rule(toks[1], toks[2:], n))
    return policies, rules


def first_overlap(boxes):
    """Indices of two overlapping boxes, or None (sweep over dimension 0)."""
    order = sorted(range(len(boxes)), key=lambda i: boxes[i][0][0])
    active = []
    for i in order:
        lo = boxes[i][0][0]
        active = [j for j in active if boxes[j][0][1] >= lo]
        for j in active:
            if all(boxes[i][d][0] <= boxes[j][d][1] and
                   boxes[j][d][0] <= boxes[i][d][1] for d in range(1, 5)):
                return j, i
        active.append(i)
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("rules")
    ap.add_argument("--set", action="store_true",
                    help="fold FORWARD into one concatenated interval set")
    ap.add_argument("--table", default="nfhp")
    ap.add_argument("--family", type=int, choices=(4, 6), default=4)
    args = ap.parse_args()
    global FAMILY
    FAMILY = args.family
    if args.set and FAMILY == 6:
        ap.error("--set is IPv4 only")
    with open(args.rules) as f:
        policies, rules = parse(f)

    t = args.table
    fam = "ip6" if FAMILY == 6 else "ip"
    out = ["table %s %s" % (fam, t), "delete table %s %s" % (fam, t),
           "table %s %s {" % (fam, t)]
    for chain in ("INPUT", "FORWARD", "OUTPUT"):
        crules = [r for r in rules if r.chain == chain]
        pol = policies.get(chain, "accept")
        if not crules and pol == "accept":
            continue
        body = []
        if args.set and chain == "FORWARD":
            head = 0
            while head < len(crules) and (crules[head].iif or
                                          crules[head].oif):
                head += 1
            body = [r.native() for r in crules[:head]]
            rest = crules[head:]
            if any(r.iif or r.oif for r in rest):
                print("ipt2nft: interface match after the head of FORWARD",
                      file=sys.stderr)
                sys.exit(3)
            boxes = [r.box() for r in rest]
            ov = first_overlap(boxes)
            if ov:
                print("ipt2nft: rules %s and %s overlap: not expressible as "
                      "one pipapo set" % (rest[ov[0]].native(),
                                          rest[ov[1]].native()),
                      file=sys.stderr)
                sys.exit(3)
            key = ("ip saddr . ip daddr . meta l4proto . th sport . "
                   "th dport")
            typ = ("ipv4_addr . ipv4_addr . inet_proto . inet_service . "
                   "inet_service")
            verdicts = set(r.verdict for r in rest)
            if len(verdicts) == 1:
                out.append("\tset s {\n\t\ttype %s\n\t\tflags interval" % typ)
                elems = [r.element() for r in rest]
                rule = "%s @s %s" % (key, verdicts.pop())
            else:
                out.append("\tmap s {\n\t\ttype %s : verdict\n"
                           "\t\tflags interval" % typ)
                elems = ["%s : %s" % (r.element(), r.verdict) for r in rest]
                rule = "%s vmap @s" % key
            if elems:
                out.append("\t\telements = {\n\t\t\t" +
                           ",\n\t\t\t".join(elems) + "\n\t\t}")
            out.append("\t}")
            if elems:
                body.append(rule)
        else:
            body = [r.native() for r in crules]
        out.append("\tchain %s {" % chain.lower())
        out.append("\t\ttype filter hook %s priority 0; policy %s;" %
                   (chain.lower(), pol))
        out += ["\t\t" + b for b in body]
        out.append("\t}")
    out.append("}")
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
