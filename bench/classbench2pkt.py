#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Convert a ClassBench trace to nf-hipac-sim packet lines.

    classbench2pkt.py TRACEFILE[.xz] [--limit N] > packets.txt
    classbench2pkt.py --synth RULEFILE[.xz] --count N [--seed S] > packets.txt

A trace line "SIP DIP SPORT DPORT PROTO FLAGS FID" becomes
"src=A dst=B proto=P sport=S dport=D".  The sixth column is ignored, and
the last one (the rule the header was generated from) only bounds the
first match from above, so it is not used: the linear scan is the truth.
Packets keep the trace order.  nf-hipac-sim drops the ports of protocols
without ports, as the kernel does.

--synth makes packets for rule sets without a trace (fw5_10k, ipc2_10k):
for each packet a rule is drawn uniformly and a header is drawn uniformly
inside it (a wildcard protocol becomes tcp or udp).  It is a simpler
stand-in for ClassBench's trace_generator (no Pareto locality).
"""
import argparse
import lzma
import random
import sys


def open_text(path):
    if path.endswith(".xz"):
        return lzma.open(path, "rt")
    return open(path, "r")


def dotted(v):
    return "%d.%d.%d.%d" % (v >> 24, (v >> 16) & 255, (v >> 8) & 255, v & 255)


def convert_trace(f, out, limit):
    n = 0
    for line in f:
        fields = line.split()
        if len(fields) < 5:
            continue
        sip, dip, sport, dport, proto = [int(x) for x in fields[:5]]
        out.write("src=%s dst=%s proto=%d sport=%d dport=%d\n" %
                  (dotted(sip), dotted(dip), proto, sport, dport))
        n += 1
        if limit and n >= limit:
            break


def rand_in_prefix(rng, field):
    addr, plen = field.split("/")
    plen = int(plen)
    parts = [int(x) for x in addr.split(".")]
    v = (parts[0] << 24) | (parts[1] << 16) | (parts[2] << 8) | parts[3]
    host = (1 << (32 - plen)) - 1
    return (v & ~host & 0xFFFFFFFF) | rng.randint(0, host)


def synth(f, out, count, seed):
    rng = random.Random(seed)
    rules = [line.strip().lstrip("@").split("\t") for line in f
             if line.strip()]
    for _ in range(count):
        r = rng.choice(rules)
        slo, shi = [int(x) for x in r[2].split(":")]
        dlo, dhi = [int(x) for x in r[3].split(":")]
        pval, pmask = [int(x, 16) for x in r[4].split("/")]
        proto = pval if pmask else rng.choice((6, 17))
        out.write("src=%s dst=%s proto=%d sport=%d dport=%d\n" %
                  (dotted(rand_in_prefix(rng, r[0])),
                   dotted(rand_in_prefix(rng, r[1])), proto,
                   rng.randint(slo, shi), rng.randint(dlo, dhi)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("file", help="trace file, or rule file with --synth")
    ap.add_argument("--limit", type=int, default=0,
                    help="convert only the first N packets")
    ap.add_argument("--synth", action="store_true",
                    help="FILE is a rule set: draw packets inside its rules")
    ap.add_argument("--count", type=int, default=100000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    with open_text(args.file) as f:
        if args.synth:
            synth(f, sys.stdout, args.count, args.seed)
        else:
            convert_trace(f, sys.stdout, args.limit)


if __name__ == "__main__":
    main()
