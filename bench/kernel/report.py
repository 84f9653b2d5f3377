#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the raw rows of bench/kernel/run.sh into the benchmark's results.

    report.py --in DIR --out RESULTS [--cmd "make bench-kernel"]

Reads DIR/raw.csv (contender,ruleset,rules,traffic,round,value,unit; one
row per round) and DIR/in/ (what was prepared), writes RESULTS/kernel.csv
(medians over the rounds, one row per contender, ruleset and traffic, with
the ratio to no firewall on the same ruleset and traffic), kernel.md (the
tables, the targets of issue 5, notes) and kernel.png (gnuplot: ratio
against rule count for the seed set), and prints kernel.md.

The IPv6 seed sets (seed6-N, issue 43) get their own table, "IPv6 seed
set", with the same ratio columns; their contenders are named
ip6tables-legacy and ip6tables-nft in raw.csv and kernel.csv, and their
nft-set cell is n/e (not measured).  Their restore times and the targets
of issue 43 follow that table; kernel.png stays IPv4.
"""
import argparse
import collections
import csv
import glob
import os
import statistics
import subprocess
import sys
import time

CONT = ["none", "iptables-legacy", "iptables-nft", "nft", "nft-set",
        "nf-hipac"]
CONT6 = ["none", "ip6tables-legacy", "ip6tables-nft", "nft", "nft-set",
         "nf-hipac"]
RATE = ("tcp", "udp64", "smp-1flow", "smp-2flow")


def fnum(v, digits=3):
    if v is None:
        return "-"
    if abs(v) >= 1000:
        return "%.0f" % v
    if abs(v) >= 100:
        return "%.1f" % v
    return ("%%.%dg" % digits) % v


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--in", dest="indir", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--cmd", default="make bench-kernel")
    ap.add_argument("--note", action="append", default=[],
                    help="markdown file to append (e.g. a profile)")
    args = ap.parse_args()

    vals = collections.defaultdict(list)
    failed = collections.defaultdict(int)
    units, rules, order, skipped = {}, {}, [], []
    rounds_seen = set()
    with open(os.path.join(args.indir, "raw.csv")) as f:
        for r in csv.DictReader(f):
            if r["contender"] == "skipped":
                skipped.append(r["ruleset"])
                continue
            key = (r["contender"], r["ruleset"], r["traffic"])
            if r["traffic"] == "tcp":
                rounds_seen.add(r["round"])
            units[r["traffic"]] = r["unit"]
            rules[r["ruleset"]] = int(r["rules"])
            if r["ruleset"] not in order:
                order.append(r["ruleset"])
            if r["value"] in ("", None):
                failed[key] += 1
            else:
                vals[key].append(float(r["value"]))
    med = {k: statistics.median(v) for k, v in vals.items() if v}
    # a rate point where some rounds failed counts the failures as 0
    for k in failed:
        if k[2] in RATE and k in vals:
            med[k] = statistics.median(vals[k] + [0.0] * failed[k])
    nrounds = len(rounds_seen)

    def ratio(c, rs, tr):
        b = med.get(("none", rs, tr))
        v = med.get((c, rs, tr))
        if b and v is not None:
            return v / b
        return None

    os.makedirs(args.out, exist_ok=True)
    keys = sorted(set(list(vals) + list(failed)),
                  key=lambda k: (order.index(k[1]), k[2],
                                 CONT.index(k[0]) if k[0] in CONT else
                                 CONT6.index(k[0]) if k[0] in CONT6
                                 else 9))
    with open(os.path.join(args.out, "kernel.csv"), "w") as f:
        f.write("contender,ruleset,rules,traffic,value,unit,"
                "ratio_to_baseline\n")
        for k in keys:
            c, rs, tr = k
            v = med.get(k)
            rt = ratio(c, rs, tr) if tr in RATE else None
            f.write("%s,%s,%d,%s,%s,%s,%s\n" % (
                c, rs, rules[rs], tr, "" if v is None else "%.4g" % v,
                units[tr], "" if rt is None else "%.4f" % rt))

    def why(rs):
        p = os.path.join(args.indir, "in", rs + ".set.why")
        if os.path.exists(p):
            return open(p).read().strip()
        return ""

    md = []
    w = md.append
    w("# In-kernel benchmark (issue 5)")
    w("")
    w("Made by `%s` on %s (%d interleaved round%s of the matrix, "
      "medians; QEMU TCG, 2 vCPUs, Debian kernel 6.1).  Absolute numbers "
      "under TCG mean little; the ratios to *no firewall* on the same "
      "ruleset and traffic are the result." %
      (args.cmd, time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
       nrounds, "" if nrounds == 1 else "s"))
    w("")
    w("Contenders: none (no firewall), iptables-legacy, iptables-nft, nft "
      "(the rules written natively in nft), nft-set (one concatenated "
      "interval set or verdict map, pipapo, looked up by one rule), "
      "nf-hipac.  Traffic: `tcp` = iperf3 TCP throughput sender -> "
      "receiver through the forwarding router (Mbit/s); `udp64` = 64-byte "
      "UDP frames injected by pktgen at the router's ingress veth "
      "(xmit_mode netif_receive, as the kernel's nft_concat_range.sh "
      "does; it keeps pktgen from flooding a backlog queue and so "
      "measures the forwarding cost), forwarded to the receiver and "
      "counted at its veth rx counter (packets/s).  The baseline "
      "*none* is measured at the start and at the end of every round "
      "of a ruleset; its column shows the median and (min-max) of "
      "those measurements, which is the noise floor of the run.  A cell is the ratio to none; `x` = "
      "the contender could not load the ruleset in time, `n/e` = not "
      "expressible that way (see notes), `0` = no packet or no iperf3 "
      "result got through in the measurement window.")
    w("")

    def table(sets, title, cont=CONT):
        w("## " + title)
        w("")
        hdr = ["ruleset", "rules", "traffic", "none"] + cont[1:]
        w("| " + " | ".join(hdr) + " |")
        w("|" + "---|" * len(hdr))
        for rs in sets:
            for tr in ("tcp", "udp64"):
                b = med.get(("none", rs, tr))
                nv = vals.get(("none", rs, tr), [])
                spread = (" (%s-%s)" % (fnum(min(nv)), fnum(max(nv)))
                          if len(nv) > 1 else "")
                cells = [rs, str(rules[rs]), tr,
                         "%s %s%s" % (fnum(b), units.get(tr, ""), spread)]
                for c in cont[1:]:
                    rt = ratio(c, rs, tr)
                    if rt is not None:
                        cells.append("%.3f" % rt)
                    elif c == "nft-set" and why(rs):
                        cells.append("n/e")
                    elif failed.get((c, rs, "load")):
                        cells.append("x")
                    else:
                        cells.append("-")
                w("| " + " | ".join(cells) + " |")
        w("")

    def tgt(desc, v, limit):
        if v is None:
            w("- %s: not measured" % desc)
        else:
            w("- %s: %.3f (target >= %.2f) **%s**" %
              (desc, v, limit, "met" if v >= limit else "MISSED"))

    def ipv6(sets):
        table(sets, "IPv6 seed set: N non-matching rules + 1 matching "
              "rule (issue 43)", CONT6)
        w("The seed set of the same N made IPv6 by bench/ipv4to6.py (every "
          "address 72 bits up in fd00::/24, /p becomes /(24+p): the same "
          "rules and intervals), loaded by ip6tables-legacy-restore, "
          "ip6tables-nft-restore, nft -f (table ip6) and "
          "nf-hipac6-restore, and measured over IPv6 in the same VM run "
          "and rounds, against its own *none*: the topology's links "
          "also carry fd00:a:1::/64 and fd00:a:2::/64 (static "
          "neighbours), iperf3 -6, and pktgen sends IPv6 UDP of 78 bytes, "
          "the smallest IPv6 frame pktgen builds (IPv4's are 60).  "
          "nft-set is measured for IPv4 only (`n/e`).")
        w("")
        hdr = ["restore [s]"] + CONT6[1:]
        w("| " + " | ".join(hdr) + " |")
        w("|" + "---|" * len(hdr))
        for rs in sets:
            cells = [rs]
            for c in CONT6[1:]:
                v = med.get((c, rs, "load"))
                cells.append(fnum(v) if v is not None else
                             ("x" if failed.get((c, rs, "load")) else
                              ("n/e" if c == "nft-set" else "-")))
            w("| " + " | ".join(cells) + " |")
        w("")
        w("Targets of issue 43 (reported, not asserted):")
        w("")
        for rs, lim in (("seed6-10000", 0.95), ("seed6-100000", 0.90)):
            if rs not in rules:
                continue
            for tr in ("tcp", "udp64"):
                tgt("nf-hipac %s %s" % (rs, tr), ratio("nf-hipac", rs, tr),
                    lim)
            v4 = "seed-" + rs[len("seed6-"):]
            for tr in ("tcp", "udp64"):
                a = ratio("ip6tables-legacy", rs, tr)
                b = ratio("iptables-legacy", v4, tr)
                w("- ip6tables-legacy %s %s: %s (iptables-legacy %s: %s)" %
                  (rs, tr, "-" if a is None else "%.3f" % a, v4,
                   "-" if b is None else "%.3f" % b))
        w("")

    seeds = [r for r in order if r.startswith("seed-")]
    seeds6 = [r for r in order if r.startswith("seed6-")]
    cbs = [r for r in order if not r.startswith(("seed-", "seed6-"))]
    if seeds:
        table(seeds, "Seed set: N non-matching rules + 1 matching rule")
    if cbs:
        table(cbs, "ClassBench sets (trace 5-tuples, see notes)")
    if seeds6:
        ipv6(seeds6)

    if seeds:
        # update cost
        w("## Update cost")
        w("")
        w("Restore = wall time of the restore command loading the whole "
          "ruleset into an empty FORWARD (median over the rounds).  Insert = "
          "wall time of one command inserting one rule at position 1 with "
          "100k rules loaded (process start included; median of 3).  "
          "Replace = a 10k seed set replaced by another 10k seed set with "
          "the same matching rules while a sequence-numbered UDP stream "
          "(500 packets/s) crosses the router; lost in the router = packets "
          "the sender's veth sent minus packets the receiver's veth got (ARP packets on "
          "the sender's veth count here too, so 1-2 is noise); the "
          "sequence numbers missing at the receiving socket also count drops "
          "in the receiving process, which the loaded host starves.")
        w("")
        hdr = ["what"] + CONT[1:]
        w("| " + " | ".join(hdr) + " |")
        w("|" + "---|" * len(hdr))
        big = [r for r in seeds if rules[r] >= 10000]
        for rs in big:
            cells = ["restore %s [s]" % rs]
            for c in CONT[1:]:
                v = med.get((c, rs, "load"))
                cells.append(fnum(v) if v is not None else
                             ("x" if failed.get((c, rs, "load")) else
                              ("n/e" if c == "nft-set" and why(rs) else "-")))
            w("| " + " | ".join(cells) + " |")
        for rs in seeds:
            if not any((c, rs, "insert") in med for c in CONT):
                continue
            cells = ["insert at %s [ms]" % rs]
            for c in CONT[1:]:
                cells.append(fnum(med.get((c, rs, "insert"))))
            w("| " + " | ".join(cells) + " |")
        for tr, label in (("replace-time", "replace 10k [s]"),
                          ("replace-lost", "replace 10k: packets lost in "
                           "the router"),
                          ("replace-seq-missing", "replace 10k: sequence "
                           "numbers missing at the receiving socket"),
                          ("replace-sent", "replace 10k: packets sent")):
            if any((c, "seed-10000", tr) in med for c in CONT):
                cells = [label]
                for c in CONT[1:]:
                    v = med.get((c, "seed-10000", tr))
                    cells.append("-" if v is None else
                                 ("%d" % v if tr != "replace-time"
                                  else fnum(v)))
                w("| " + " | ".join(cells) + " |")
        w("")

    smp = [k for k in med if k[2] == "smp-1flow"]
    if smp:
        rs = smp[0][1]
        w("## SMP: 1 vs 2 pktgen flows on 2 vCPUs (%s)" % rs)
        w("")
        w("| contender | 1 flow [pps] | 2 flows [pps] | scaling 2/1 |")
        w("|---|---|---|---|")
        for c in ("none", "nf-hipac"):
            a = med.get((c, rs, "smp-1flow"))
            b = med.get((c, rs, "smp-2flow"))
            sc = "%.2f" % (b / a) if a and b else "-"
            w("| %s | %s | %s | %s |" % (c, fnum(a), fnum(b), sc))
        w("")

    if seeds or cbs:
        # targets
        w("## Targets of issue 5 (reported, not asserted)")
        w("")

        for rs, lt, lu in (("seed-10000", 0.95, 0.90),
                           ("seed-100000", 0.90, 0.85)):
            if rs in rules:
                tgt("nf-hipac %s tcp" % rs, ratio("nf-hipac", rs, "tcp"), lt)
                tgt("nf-hipac %s udp64" % rs, ratio("nf-hipac", rs, "udp64"),
                    lu)
        for rs in cbs:
            if rules[rs] >= 5000:
                for tr in ("tcp", "udp64"):
                    tgt("nf-hipac %s %s" % (rs, tr), ratio("nf-hipac", rs, tr),
                        0.85)
                if why(rs):
                    w("  (nft-set: not expressible, so no comparison)")
        for rs in seeds:
            hv = med.get(("nf-hipac", rs, "load"))
            if rules[rs] < 100000 or hv is None:
                continue
            others = [(c, med.get((c, rs, "load"))) for c in
                      ("iptables-legacy", "iptables-nft", "nft")]
            w("- restore %s with nf-hipac-restore: %.2f s (target <= 5 s: "
              "**%s**); %s" % (rs, hv, "met" if hv <= 5 else "MISSED",
                               ", ".join("%s %s" % (c, fnum(v) + " s" if v
                                                    else "timed out")
                                         for c, v in others)))
        w("")

    w("## Notes")
    w("")
    w("- ClassBench traffic: the rules are the classbench2ipt.py "
      "conversion (every rule ACCEPT, policy DROP) preceded by `-i veth1 "
      "-j ACCEPT` so replies from the receiver are accepted at once and "
      "only the forward direction is classified (the same head rule for "
      "every contender).  The packets are real trace 5-tuples "
      "(bench/kernel/prepare.py): pktgen sends up to 8 random UDP trace "
      "packets round robin (one pktgen device per tuple, delay 1 ns so the "
      "devices alternate, source and "
      "destination addresses and ports of the trace), the router has "
      "/32 routes for the trace destinations towards the receiver (and "
      "rp_filter off), and the receiver counts them at its veth.  The "
      "TCP flow is one trace TCP 5-tuple whose first matching rule is "
      "as deep as the median of a random trace sample; its addresses "
      "are added to sender and receiver and iperf3 binds them (-B, "
      "--cport).  So every contender classifies the very headers of the "
      "trace and must walk to the same first-matching rule.")
    for rs in cbs:
        p = os.path.join(args.indir, "in", rs + ".flows")
        if os.path.exists(p):
            fl = [l.split() for l in open(p)]
            u = [int(x[5]) for x in fl if x[0] == "udp"]
            t = [x for x in fl if x[0] == "tcp"]
            d = [x[1] for x in fl if x[0] == "depth"]
            w("  - %s: %d UDP tuples, first-match rules %s; TCP %s; median "
              "trace depth %s" % (rs, len(u), ",".join(map(str, u)),
                                 "%s:%s -> %s:%s rule %s" % (
                                     t[0][1], t[0][3], t[0][2], t[0][4],
                                     t[0][5]) if t else "none",
                                 d[0] if d else "?"))
    w("- nft-set expressibility: pipapo refuses overlapping elements, so a "
      "ruleset folds into one set only if no two rules overlap (then "
      "first match and any match agree; mixed ACCEPT/DROP becomes a "
      "verdict map).")
    for rs in order:
        if why(rs):
            w("  - %s: %s" % (rs, why(rs).replace("\n", "; ")))
    w("- Every load is a fresh restore into an empty router (the legacy "
      "filter module is removed after each legacy round, `nft flush "
      "ruleset` after nft contenders, an empty nf-hipac-restore after "
      "nf-hipac), so no contender's hooks stay on the path of another.")
    w("- Offloads (TSO/GSO/GRO) are off on all veths so the router sees "
      "MTU-sized packets.")
    if skipped:
        w("- **Skipped** because the run's time budget (NFHP_BK_BUDGET) "
          "was spent: %s." % ", ".join(skipped))
    rel = os.path.relpath(os.path.abspath(args.indir),
                          os.path.join(os.path.dirname(
                              os.path.abspath(__file__)), "..", ".."))
    w("- Raw per-round rows: %s/raw.csv; VM log: %s/run.log." % (rel, rel))
    w("")

    for p in sorted(glob.glob(os.path.join(args.indir,
                                           "perf-nf-hipac-*-flat.txt"))):
        lines = [l.rstrip() for l in open(p) if l.strip()]
        if lines:
            w("## Profile: perf inside the VM, nf-hipac at %s, udp64" %
              os.path.basename(p)[len("perf-nf-hipac-"):-len("-flat.txt")])
            w("")
            w("```")
            md.extend(lines[:25])
            w("```")
            w("")

    for p in args.note:
        w(open(p).read().rstrip())
        w("")

    text = "\n".join(md) + "\n"
    with open(os.path.join(args.out, "kernel.md"), "w") as f:
        f.write(text)
    sys.stdout.write(text)
    plot(args.out, med, rules, seeds)


def plot(outdir, med, rules, seeds):
    """kernel.png: ratio to none against N for the seed set (N >= 100)."""
    dat = os.path.join(outdir, ".kernel-plot.dat")
    xs = [rs for rs in seeds if rules[rs] > 0]
    if not xs:
        return
    cols = []
    with open(dat, "w") as f:
        for rs in xs:
            row = [str(rules[rs])]
            for tr in ("tcp", "udp64"):
                for c in CONT[1:]:
                    b = med.get(("none", rs, tr))
                    v = med.get((c, rs, tr))
                    row.append("%.5f" % (v / b) if b and v is not None
                               else "NaN")
            f.write(" ".join(row) + "\n")
    n = len(CONT) - 1
    gp = ["set terminal pngcairo size 1200,500 font ',10'",
          "set output '%s'" % os.path.join(outdir, "kernel.png"),
          "set multiplot layout 1,2 title 'Seed set: N non-matching + 1 "
          "matching rule (ratio to no firewall, QEMU TCG)'",
          "set logscale x", "set xrange [50:200000]",
          "set yrange [0:*]", "set grid",
          "set xlabel 'rules N'", "set ylabel 'ratio to no firewall'",
          "set key bottom left"]
    for i, tr in enumerate(("TCP throughput (iperf3)",
                            "64-byte UDP packet rate (pktgen)")):
        gp.append("set title '%s'" % tr)
        parts = []
        for j, c in enumerate(CONT[1:]):
            parts.append("'%s' using 1:%d with linespoints lw 2 title '%s'"
                         % (dat, 2 + i * n + j, c))
        gp.append("plot " + ", ".join(parts))
    gp.append("unset multiplot")
    try:
        subprocess.run(["gnuplot"], input="\n".join(gp), text=True,
                       check=True)
    except (OSError, subprocess.CalledProcessError) as e:
        print("report.py: gnuplot failed: %s" % e, file=sys.stderr)
    os.unlink(dat)


if __name__ == "__main__":
    main()
