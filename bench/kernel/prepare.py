#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Pick the ClassBench trace packets that the kernel benchmark sends.

    prepare.py RULES.ipt TRACE[.xz] > flows.txt

RULES.ipt is the classbench2ipt.py conversion (every rule ACCEPT, policy
DROP, optionally with interface rules at its head, which are skipped
here).  The benchmark sends real trace 5-tuples through the router, so it
needs addresses the router will forward: source and destination unicast,
outside 0/8, 10/8, 127/8 and 224/3, and different from each other.

Output lines:
    udp SRC DST SPORT DPORT DEPTH     up to --udp (8) random UDP trace packets
    tcp SRC DST SPORT DPORT DEPTH     one TCP trace packet
    depth MEDIAN                      median first-match rule of the sample
DEPTH is the 1-based number of the first rule of RULES.ipt that accepts
the packet, computed by a linear scan (the truth for first-match
semantics).  The TCP packet is the one whose depth is closest to the
median depth of a random sample of the trace, among packets whose first
matching rule leaves the source port free (0:65535), so that iperf3's
control connection from an ephemeral port is accepted as well.  Random
choices use a fixed seed: the same files give the same flows.
"""
import argparse
import lzma
import os
import random
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ipt2nft  # noqa: E402


def open_text(path):
    if path.endswith(".xz"):
        return lzma.open(path, "rt")
    return open(path, "r")


def routable(a):
    first = a >> 24
    return first not in (0, 10, 127) and first < 224


def dotted(v):
    return "%d.%d.%d.%d" % (v >> 24, (v >> 16) & 255, (v >> 8) & 255, v & 255)


def first_match(boxes, pkt):
    for n, b in enumerate(boxes):
        if all(b[d][0] <= pkt[d] <= b[d][1] for d in range(5)):
            return n
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("rules")
    ap.add_argument("trace")
    ap.add_argument("--udp", type=int, default=8)
    ap.add_argument("--sample", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()

    with open(args.rules) as f:
        _, rules = ipt2nft.parse(f)
    rules = [r for r in rules if r.chain == "FORWARD"]
    head = 0
    while head < len(rules) and (rules[head].iif or rules[head].oif):
        head += 1
    rules = rules[head:]
    boxes = [r.box() for r in rules]

    pkts = []
    with open_text(args.trace) as f:
        for line in f:
            x = line.split()
            if len(x) < 5:
                continue
            s, d, sp, dp, pr = [int(v) for v in x[:5]]
            # ports of protocols without ports are 0 in the kernel's key
            if pr not in (6, 17):
                sp = dp = 0
            if routable(s) and routable(d) and s != d:
                pkts.append((s, d, pr, sp, dp))
    rng = random.Random(args.seed)
    uniq = sorted(set(pkts))

    udp = [p for p in uniq if p[2] == 17]
    rng.shuffle(udp)
    out = []
    chosen = []
    for p in udp:
        if len(chosen) >= args.udp:
            break
        n = first_match(boxes, p)
        if n is not None:
            chosen.append((p, n))
    for p, n in chosen:
        out.append("udp %s %s %d %d %d" % (dotted(p[0]), dotted(p[1]),
                                           p[3], p[4], head + n + 1))

    sample = rng.sample(pkts, min(args.sample, len(pkts)))
    depths = [first_match(boxes, p) for p in sample]
    depths = [d for d in depths if d is not None]
    med = statistics.median(depths) if depths else 0

    tcp = [p for p in uniq if p[2] == 6 and p[3] > 0 and p[4] > 0]
    rng.shuffle(tcp)
    best = None
    for p in tcp[:2000]:
        n = first_match(boxes, p)
        if n is None or boxes[n][3] != (0, 65535):
            continue
        if best is None or abs(n - med) < abs(best[1] - med):
            best = (p, n)
    if best:
        p, n = best
        out.append("tcp %s %s %d %d %d" % (dotted(p[0]), dotted(p[1]),
                                           p[3], p[4], head + n + 1))
    out.append("depth %d" % (head + med + 1))
    print("\n".join(out))


if __name__ == "__main__":
    main()
