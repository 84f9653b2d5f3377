#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Fold `perf script -F comm,ip,sym` call stacks into a flat profile.

    bench/kernel/perf-fold.py [--inclusive] [--top N] SCRIPT[.gz]

Samples of idle CPUs (native_safe_halt near the top of the stack) are left
out, so percentages are of busy time.  By default each sample counts for
its own function, named after the nearest nf-hipac frame when the function
is not ours ("nfhp_alloc <- memset_erms": zeroing done for nfhp_alloc), or
after the process otherwise.  --inclusive counts each sample for every
function on its stack instead (with the self share beside it).
"""
import argparse
import collections
import gzip


def samples(path):
    opener = gzip.open if path.endswith(".gz") else open
    cur = None
    with opener(path, "rt", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                if cur:
                    yield cur
                cur = None
            elif not line[0].isspace():
                cur = [line.split()[0]]
            elif cur is not None:
                parts = line.split(None, 1)
                sym = parts[1] if len(parts) > 1 else "?"
                cur.append(sym.split("+")[0].split(" (")[0])
    if cur:
        yield cur


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--inclusive", action="store_true")
    ap.add_argument("--top", type=int, default=60)
    ap.add_argument("script")
    args = ap.parse_args()

    own = collections.Counter()
    incl = collections.Counter()
    busy = 0
    for s in samples(args.script):
        comm, stack = s[0], s[1:]
        if not stack or "native_safe_halt" in stack[:3]:
            continue
        busy += 1
        top = stack[0]
        incl.update(set(stack))
        if args.inclusive:
            own[top] += 1
        elif top.startswith("nfhp_"):
            own[top] += 1
        else:
            ours = next((f for f in stack if f.startswith("nfhp_")), None)
            own[(ours + " <- " if ours else comm + ": ") + top] += 1
    if not busy:
        print("no busy samples")
        return
    print("%d busy samples" % busy)
    table = incl if args.inclusive else own
    for name, n in table.most_common(args.top):
        if args.inclusive:
            print("%5.1f%% %5.1f%%  %s" % (100 * n / busy,
                                           100 * own[name] / busy, name))
        else:
            print("%5.1f%%  %s" % (100 * n / busy, name))


main()
