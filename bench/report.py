#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Summarise bench/guest.sh's RESULT lines (stdin): median, spread, ratios
and the issue's targets; write everything to a JSON file."""
import argparse
import datetime
import json
import statistics
import sys

ap = argparse.ArgumentParser()
ap.add_argument("--kernel", default="")
ap.add_argument("--commit", default="")
ap.add_argument("--json", required=True)
args = ap.parse_args()

raw = {}
by_round = {}   # test -> cfg -> round -> value
for line in sys.stdin:
    parts = line.split()
    if len(parts) != 5:
        continue
    _, test, cfg, rnd, val = parts
    try:
        raw.setdefault(test, {}).setdefault(cfg, []).append(float(val))
        by_round.setdefault(test, {}).setdefault(cfg, {})[rnd] = float(val)
    except ValueError:
        pass


def paired(test, a, b):
    """Per-round ratios a/b: the configurations of a round ran back to
    back, so machine drift between rounds cancels out."""
    ra = by_round.get(test, {}).get(a, {})
    rb = by_round.get(test, {}).get(b, {})
    return [ra[k] / rb[k] for k in sorted(ra) if k in rb and rb[k]]


def med(test, cfg):
    vals = raw.get(test, {}).get(cfg)
    return statistics.median(vals) if vals else None


def spread(vals):
    m = statistics.median(vals)
    return (max(vals) - min(vals)) / m * 100 if m else 0.0


summary = {t: {c: {"median": statistics.median(v), "spread_pct": spread(v),
                   "values": v} for c, v in cs.items()}
           for t, cs in raw.items()}

names = {"A": "no module", "B": "res_groups, root", "C": "numtasks depth 5",
         "D": "cgroup pids depth 5", "A2": "patched, no module",
         "U": "unpatched kernel", "rg": "res_groups", "cg": "cgroup v2"}
SIBS = ["sib1", "sib100", "sib1000", "sib10000"]
print("Exact figures: QEMU -icount shift=0, one vCPU (1 ns = 1 instruction)")
print(f"{'test':<10} {'config':<7} {'median':>12} {'spread':>8} {'ratio':>8}")
for test in (["fork", "thread", "moves", "mkdir", "read1000", "read10000"]
             + SIBS + ["fp1", "fp2"]):
    if test == "fp1":
        print("\nPlain TCG, two vCPUs (host load matters): 1000 limited "
              "children, 100 forkers 1 / 2 at a time")
    base = {"fork": "A", "thread": "A", "fp1": "A", "fp2": "A"}.get(test, "cg")
    if test.startswith("sib"):
        base = None
    for cfg in ["A", "B", "C", "D", "A2", "U", "rg", "cg"]:
        if cfg not in raw.get(test, {}):
            continue
        m = med(test, cfg)
        b = med(test, base) if base else med("sib1", cfg)
        if test in ("fork", "thread") and cfg in ("A2", "U"):
            b = med(test, "U")
        ratio = m / b if b else float("nan")
        s = summary[test][cfg]["spread_pct"]
        label = names.get(cfg, "")
        if test.startswith("sib"):
            label = ("numtasks" if cfg == "rg" else "cgroup pids") + \
                ", ratio to 1 group"
        print(f"{test:<10} {cfg:<7} {m:>12.1f} {s:>7.1f}% {ratio:>8.3f}  "
              f"{label}")
        summary[test][cfg]["ratio"] = ratio

units = {"profile_fork": "% of busy CPU samples in our code, 1 forker",
         "profile_fork2": "% of busy CPU samples in our code, 2 forkers",
         "profile_thread": "% of busy CPU samples in our code, threads",
         "fork": "ns per fork+exit+wait (icount)",
         "thread": "ns per create+join (icount)",
         "moves": "moves/s (icount)", "mkdir": "mkdir+rmdir/s (icount)",
         "read1000": "us per members read, 1k threads (icount)",
         "read10000": "us per members read, 10k threads (icount)",
         "fp1": "ns per fork, 1000 limited children, 100 forkers one at "
                "a time (TCG)",
         "fp2": "ns per fork of each forker, 100 forkers two at a time in "
                "different children (TCG)"}
for n in SIBS:
    units[n] = "ns per fork in a limited group beside %s groups (icount)" \
        % n[3:]

targets = []


def target(name, ok, ratios=None, limit=None):
    """ok by the medians; with the per-round ratios and the limit, also
    whether the rounds' range straddles the limit (noise decides)."""
    t = {"target": name, "met": bool(ok)}
    if ratios:
        t["paired_min"], t["paired_max"] = min(ratios), max(ratios)
        t["within_noise"] = min(ratios) <= limit < max(ratios)
        name += " [rounds %.4f-%.4f%s]" % (
            min(ratios), max(ratios),
            ", within noise" if t["within_noise"] else "")
    targets.append(t)
    print(f"{'MET ' if ok else 'MISS'} {name}")


def ratio_target(name, vals, limit, unit="rounds"):
    """Target 'median of the per-round ratios <= limit'; a miss says by
    how much (percent above the limit)."""
    if not vals:
        targets.append({"target": name, "limit": limit, "met": None})
        print(f"---- {name}: NOT MEASURED in this run")
        return
    m = statistics.median(vals)
    ok = m <= limit
    t = {"target": name, "value": m, "limit": limit, "met": ok,
         "paired_min": min(vals), "paired_max": max(vals)}
    targets.append(t)
    extra = "" if ok else ", missed by %.2f%%" % (100 * (m / limit - 1))
    print(f"{'MET ' if ok else 'MISS'} {name}: {m:.4f} <= {limit:.4f}"
          f" [{unit} {min(vals):.4f}-{max(vals):.4f}]{extra}")


print()
for test in ("fork", "thread"):
    pc, pd = paired(test, "C", "A"), paired(test, "D", "A")
    ratio_target("%s C/A (icount)" % test, pc, 1.02)
    if pc and pd:
        ratio_target("%s C/A <= D/A (icount)" % test, pc,
                     statistics.median(pd))
for test in ("fork", "thread"):
    ratio_target("hooks patch %s patched/unpatched (icount)" % test,
                 paired(test, "A2", "U"), 1.005)
for cfg, who in (("rg", "numtasks"), ("cg", "cgroup pids (reference)")):
    r = by_round.get("sib10000", {}).get(cfg, {})
    r1 = by_round.get("sib1", {}).get(cfg, {})
    vals = [r[k] / r1[k] for k in sorted(r) if r1.get(k)]
    if cfg == "rg":
        ratio_target("siblings 10,000/1, %s (icount)" % who, vals, 1.02)
    elif vals:
        print("     (%s 10,000/1: %.4f)" % (who, statistics.median(vals)))
        summary["sib_ratio_cg"] = statistics.median(vals)
lr = []
if by_round.get("read10000", {}).get("rg"):
    lr = [by_round["read10000"]["rg"][k] / by_round["read1000"]["rg"][k]
          for k in sorted(by_round["read10000"]["rg"])
          if by_round.get("read1000", {}).get("rg", {}).get(k)]
ratio_target("members read 10k/1k threads (icount)", lr, 10.5)
if lr:
    if med("read10000", "cg") and med("read1000", "cg"):
        cg = [by_round["read10000"]["cg"][k] / by_round["read1000"]["cg"][k]
              for k in sorted(by_round["read10000"]["cg"])
              if by_round["read1000"]["cg"].get(k)]
        print("     (reference: cgroup.threads 10k/1k = %.2f)" %
              statistics.median(cg))
        summary["read_linearity"] = {
            "rg": {"median": statistics.median(lr), "values": lr},
            "cg": {"median": statistics.median(cg), "values": cg}}


def fp_scaling(cfg):
    """(fp2 cfg/fp1 cfg) / (fp2 A/fp1 A) for each batch ("<round>.<batch>")
    that has all four timings: one and two forkers of a configuration ran
    back to back, so the host's drift cancels; a batch with a timing
    missing is left out, not paired with another batch's."""
    m = [by_round.get(t, {}).get(c, {}) for c in (cfg, "A")
         for t in ("fp2", "fp1")]
    keys = sorted(set(m[0]).intersection(*m[1:]))
    return [(m[0][k] / m[1][k]) / (m[2][k] / m[3][k]) for k in keys
            if m[1][k] and m[2][k] and m[3][k]]


# Relative to A, a fork with two forkers in different limited groups
# costs no more than with one: per batch, (fp2 C/A) / (fp1 C/A) <= 1.
ratio_target("two forkers in different limited groups (TCG, per batch): "
             "(fp2 C/A)/(fp1 C/A)", fp_scaling("C"), 1.0, "batches")
sd = fp_scaling("D")
if sd:
    print("     (cgroup pids, the same: %.4f)" % statistics.median(sd))
for t in ("fork", "fork2", "thread"):
    if med("profile_" + t, "C") is not None:
        p = med("profile_" + t, "C")
        target("profile, %s in C: our code %.2f%% of the busy samples "
               "(<= 2%%)" % (t, p), p <= 2.0)
if med("moves", "rg"):
    target("moves/s >= cgroup (%.0f vs %.0f)" % (med("moves", "rg"),
                                                 med("moves", "cg")),
           med("moves", "rg") >= med("moves", "cg"))
    target("mkdir+rmdir/s >= cgroup (%.0f vs %.0f)" %
           (med("mkdir", "rg"), med("mkdir", "cg")),
           med("mkdir", "rg") >= med("mkdir", "cg"))

# Instructions (bench/instr.sh: the function profiler under icount).
IN = {"A": "no module", "C": "numtasks depth 5", "D": "cgroup pids depth 5",
      "U": "unpatched kernel"}


def fn_keys(t):
    """instr.sh's per-function lines for test t: k<fn>_<t> (with its
    calls) and s<fn>_<t> (its own), not static.sh's static_<fn>."""
    return sorted(x for x in raw if x[0] in "ks" and x.endswith("_" + t)
                  and not x.startswith("static_"))


for t in ("fork", "thread"):
    if not raw.get("i" + t):
        continue
    units["i" + t] = "instructions per %s, whole (profiler off)" % t
    units["o" + t] = "instructions per %s in our code (__res_group_* " \
        "entry points, profiled)" % t
    print()
    print(f"{'instr ' + t:<24} {'config':<7} {'median':>10} {'spread':>8}")
    for k in sorted(x for x in raw if x in ("i" + t, "o" + t) or
                    x in fn_keys(t)):
        for cfg in IN:
            if cfg in raw[k]:
                print(f"{k:<24} {cfg:<7} {med(k, cfg):>10.1f} "
                      f"{summary[k][cfg]['spread_pct']:>7.2f}%  {IN[cfg]}")
    if med("o" + t, "C") is not None:
        o, i = med("o" + t, "C"), med("i" + t, "C")
        print(f"     our code: {o:.0f} instructions of a {t}'s {i:.0f} "
              f"({100 * o / i:.2f}%)")
        if med("cal" + t, "C") and med("n" + t, "C"):
            lo = o - med("n" + t, "C") * med("cal" + t, "C")
            print(f"     less the profiler's part ({med('n' + t, 'C'):.1f} "
                  f"calls of {med('cal' + t, 'C'):.0f}): {lo:.0f} "
                  f"({100 * lo / i:.2f}%), a lower bound")
            summary["ours_lower_" + t] = {"instructions": lo,
                                          "pct": 100 * lo / i}
        ratio_target("our code's part of a %s's instructions, C "
                     "(profiled)" % t,
                     [x / y for x, y in zip(raw["o" + t]["C"],
                                            raw["i" + t]["C"])], 0.02)
    # The patches' static branches: the instructions they add to the
    # fork and exit paths' functions (bench/static.sh), an estimate of
    # what they run with no module loaded.
    added = {k[7:]: med(k, "P") - med(k, "U") for k in sorted(raw)
             if k.startswith("static_") and med(k, "P") is not None and
             med(k, "U") is not None}
    if added and med("i" + t, "A"):
        units.update({"static_" + f: "instructions in the function "
                      "(objdump; P patched, U unpatched kernel)"
                      for f in added})
        n = sum(added.values())
        print("     the hooks patches add %s: %d instructions, about "
              "%.3f%% of a %s with no module (an estimate by code size, "
              "not a measured target)" %
              (", ".join("%+d to %s" % (v, f) for f, v in added.items()),
               n, 100 * n / med("i" + t, "A"), t))
        summary["static_estimate_" + t] = {
            "instructions": n, "fraction": n / med("i" + t, "A"),
            "limit": 0.005, "estimate": True}
    if raw.get("lockacq_" + t, {}).get("C"):
        units["lockacq_" + t] = "spinlocks numtasks takes per %s " \
            "(function graph tracer)" % t
        target("numtasks takes no lock on the %s path (%.2f spinlocks "
               "a %s)" % (t, med("lockacq_" + t, "C"), t),
               med("lockacq_" + t, "C") == 0)
    pc, pd = paired("i" + t, "C", "A"), paired("i" + t, "D", "A")
    ratio_target("%s C/A, instructions" % t, pc, 1.02)
    if pc and pd:
        ratio_target("%s C/A <= D/A, instructions" % t, pc,
                     statistics.median(pd))
    for k in fn_keys(t):
        if med(k, "A") and med(k, "U"):
            print("     %s patched/unpatched, no module, %s: %.4f (%+.0f "
                  "instructions a call)" %
                  (k[1:], "with its calls" if k[0] == "k" else "its own",
                   med(k, "A") / med(k, "U"), med(k, "A") - med(k, "U")))

# Lock waits of two forkers in sibling groups (bench/locks.sh, TCG).
if raw.get("lockc_ours"):
    units["lockc_ours"] = "lock waits with our code on the stack, two " \
        "forkers in sibling groups (TCG)"
    units["lockc_all"] = "lock waits of any kind meanwhile"
    print()
    for cfg, who in (("C", "numtasks"), ("D", "cgroup pids")):
        if cfg in raw["lockc_ours"]:
            print("lock waits, two forkers in sibling groups, %s: ours %s, "
                  "all %s (rounds)" % (who, raw["lockc_ours"][cfg],
                                       raw.get("lockc_all", {}).get(cfg)))
    if "C" in raw["lockc_ours"]:
        target("no lock wait with our code on the stack, two forkers in "
               "sibling groups (%d in all rounds)" %
               sum(raw["lockc_ours"]["C"]), sum(raw["lockc_ours"]["C"]) == 0)

# The CPU controller (bench/cpu.sh): N no module, R rg_cpu.ko, G cgroup v2
# cpu; A2/U: patched and unpatched kernel, no module.
units.update({"pp_same": "ns per pipe round trip, one depth-5 group",
              "pp_sib": "ns per pipe round trip, sibling depth-5 groups",
              "ceil25": "part of the machine, ceiling 0.25",
              "ceil_nested": "part of the machine, 50 of 50 = 0.25",
              "split": "first group's part of the busy time, 60/20 = 0.75"})
if raw.get("pp_same"):
    print()
    print(f"{'cpu test':<12} {'config':<7} {'median':>10} {'spread':>8}")
    for test in ["pp_same", "pp_sib", "ceil25", "ceil_nested", "split"]:
        for cfg in ["N", "R", "G", "A2", "U"]:
            if cfg not in raw.get(test, {}):
                continue
            print(f"{test:<12} {cfg:<7} {med(test, cfg):>10.4g} "
                  f"{summary[test][cfg]['spread_pct']:>7.1f}%  "
                  f"{ {'N': 'no module', 'R': 'rg_cpu.ko', 'G': 'cgroup cpu', 'A2': 'patched', 'U': 'unpatched'}[cfg]}")
    for test in ("pp_same", "pp_sib"):
        if med(test, "R") and med(test, "G"):
            pr, pg = paired(test, "R", "N"), paired(test, "G", "N")
            target("%s: rg_cpu.ko/none <= cgroup/none (%.3f vs %.3f)" %
                   (test, statistics.median(pr), statistics.median(pg)),
                   statistics.median(pr) <= statistics.median(pg))
    for test, want in (("ceil25", 0.25), ("ceil_nested", 0.25),
                       ("split", 0.75)):
        if med(test, "R") is not None and med(test, "G") is not None:
            er, eg = abs(med(test, "R") - want), abs(med(test, "G") - want)
            summary[test]["error"] = {"R": er, "G": eg}
            target("%s: our error %.4f vs cgroup's %.4f (<= cgroup's + "
                   "0.01)" % (test, er, eg), er <= eg + 0.01)
    ratio_target("hooks patch context switch (pipe round trip) "
                 "patched/unpatched (icount)",
                 paired("pp_same", "A2", "U"), 1.005)

# Pipe round trips under icount (bench/cpu.sh's pingpong, pingpong1):
# rg_cpu.ko against cgroup v2's cpu, at the same depth and placement.
PPI = {"ppi_same": "one depth-5 group", "ppi_sib": "sibling depth-5 groups",
       "ppi_same1": "one top-level group",
       "ppi_sib1": "sibling top-level groups"}


def icount_table(title, tests, unit, who):
    """For each test of @tests (name: what) that ran: its unit (@unit
    with the what in its {}), a line per configuration of @who (config,
    label) that ran it; yields the tests that ran, for their targets."""
    ran = [t for t in tests if raw.get(t)]
    if ran:
        print()
        print(f"{title:<16} {'config':<7} {'median':>12} {'spread':>8}")
    for t in ran:
        units[t] = unit.format(tests[t])
        for cfg, label in who:
            if cfg in raw[t]:
                print(f"{t:<16} {cfg:<7} {med(t, cfg):>12.0f} "
                      f"{summary[t][cfg]['spread_pct']:>7.2f}%  {label}")
        yield t


def ratio_lines(t, pairs, key=None):
    """For each (a, b, what) of @pairs that test @t ran: its per-round
    ratios a/b, printed, and kept in summary[@key][t] if @key."""
    for a, b, what in pairs:
        v = paired(t, a, b)
        if not v:
            continue
        if key:
            summary.setdefault(key, {}).setdefault(t, {})[a + "/" + b] = {
                "median": statistics.median(v), "values": v}
        print("     %s: %.4f [rounds %.4f-%.4f]" % (
            what, statistics.median(v), min(v), max(v)))


for t in icount_table("icount test", PPI,
                      "instructions per pipe round trip, {} (icount)",
                      (("N", "no module"), ("R", "rg_cpu.ko"),
                       ("G", "cgroup cpu"))):
    what = PPI[t]
    ratio_target("%s: rg_cpu.ko / cgroup cpu per round trip, %s (icount)" %
                 (t, what), paired(t, "R", "G"), 1.0)

# Peer benchmarks (bench/peers.sh, icount): R (numtasks and rg_cpu.ko,
# depth 5) against G (cgroup v2 pids and cpu, depth 5) and N.
PEERS = {"peer_hackbench": "hackbench -g 2 -l 50",
         "peer_messaging": "perf bench sched messaging -g 2 -l 50",
         "peer_pipe": "perf bench sched pipe -l 20000",
         "peer_ngfork": "stress-ng --fork 1 --fork-ops 200",
         "peer_ngclone": "stress-ng --clone 1 --clone-ops 200"}
for t in icount_table("peer test", PEERS,
                      "instructions (ns under icount), {}",
                      (("N", "no module"),
                       ("R", "numtasks + rg_cpu.ko, depth 5"),
                       ("G", "cgroup pids + cpu, depth 5"))):
    what = PEERS[t]
    ratio_target("%s: ours / cgroup's, depth 5 (icount)" % what,
                 paired(t, "R", "G"), 1.02)

# Kernel memory (bench/kmem.sh): N fresh boot, M memcg depth 5, R root
# after memcg, K rg_kmem.ko depth 5, K0 root after rg_kmem.ko was unloaded.
KT = {"kpipe": "pipe() + 4 KiB write + close", "kfork": "fork + exit",
      "kopen": "open + close", "kmmap": "mmap 64 KiB + touch + munmap"}
kn = {"N": "fresh boot, no accounting", "M": "memcg depth 5",
      "R": "root, memcg's key on", "K": "rg_kmem.ko depth 5",
      "K0": "root, after rg_kmem.ko was loaded",
      "U": "unpatched kernel, fresh boot"}
for t, what in KT.items():
    units[t] = "ns per " + what + " (icount)"
    if not raw.get(t):
        continue
    print()
    print(f"{'kmem test':<12} {'config':<7} {'median':>10} {'spread':>8}")
    for cfg in kn:
        if cfg in raw[t]:
            print(f"{t:<12} {cfg:<7} {med(t, cfg):>10.4g} "
                  f"{summary[t][cfg]['spread_pct']:>7.1f}%  {kn[cfg]}")
    ratio_lines(t, (("K", "N", "rg_kmem.ko depth 5 / no accounting"),
                    ("M", "N", "memcg depth 5 / no accounting"),
                    ("K0", "N", "after rg_kmem.ko: root / fresh boot"),
                    ("N", "U", "patched, never loaded / unpatched")),
                "kmem_ratios")
    ratio_target("%s rg_kmem.ko/memcg, depth 5 (icount)" % t,
                 paired(t, "K", "M"), 1.10)

# User memory (bench/memory.sh): N fresh boot, M memcg depth 5, M6 memcg
# depth 6, R0 root after memcg, G rg_memory.ko depth 5, R root with
# rg_memory.ko loaded, U unpatched kernel; cM/cG memcg and a group at a
# 64 MiB limit (reclaim, OOM).
MT = {"mfault": "anonymous page fault", "mcread": "cached 4 KiB pread",
      "mpipew": "4 KiB pipe write (1/16 of the read emptying the pipe)"}
mn2 = {"N": "fresh boot, nothing loaded", "M": "memcg depth 5",
       "M6": "memcg depth 6 (a shadow's depth)",
       "R0": "root, memcg's key on, module never loaded",
       "G": "rg_memory.ko depth 5", "R": "root, rg_memory.ko loaded",
       "U": "unpatched kernel, fresh boot"}


def within_target(name, vals, tol, unit="rounds"):
    """Target 'median of the per-round ratios within 1 +- tol'."""
    if not vals:
        targets.append({"target": name, "limit": tol, "met": None})
        print(f"---- {name}: NOT MEASURED in this run")
        return
    m = statistics.median(vals)
    ok = abs(m - 1) <= tol
    targets.append({"target": name, "value": m, "limit": tol, "met": ok,
                    "paired_min": min(vals), "paired_max": max(vals)})
    extra = "" if ok else ", off by %.2f%%" % (100 * abs(m - 1))
    print(f"{'MET ' if ok else 'MISS'} {name}: {m:.4f} within 1 +- {tol}"
          f" [{unit} {min(vals):.4f}-{max(vals):.4f}]{extra}")


for t in icount_table("memory test", MT, "ns per {} (icount)", mn2.items()):
    ratio_lines(t, (("G", "M6", "rg_memory.ko depth 5 / memcg depth 6"),
                    ("M6", "M", "memcg depth 6 / depth 5"),
                    ("R", "R0", "root, module loaded / never loaded "
                     "(key on in both)"),
                    ("R", "N", "root, module loaded / fresh boot"),
                    ("R0", "N", "root, memcg's key on / fresh boot")),
                "memory_ratios")
    ratio_target("%s rg_memory.ko/memcg, depth 5 (icount)" % t,
                 paired(t, "G", "M"), 1.01)
    ratio_target("hooks patches, %s, rg_memory.ko never loaded: "
                 "patched/unpatched (icount, separate boots)" % t,
                 paired(t, "N", "U"), 1.005)
RC = {"mstream_s": "s of guest time (instructions / 1e9) to read 1 GiB "
                   "at a 64 MiB limit",
      "mstream_busy": "s of the CPU's busy time (/proc/stat) during that "
                      "read",
      "mscan": "pages scanned per second of busy time during that read "
               "(memory.stat pgscan)",
      "msteal": "pages reclaimed per second of busy time (pgsteal)",
      "mscanned": "pages scanned during that read",
      "moom": "us from the last page touched to the parent's waitpid, "
              "OOM kill at a 64 MiB limit"}
if any(raw.get(t) for t in RC):
    print()
    print(f"{'reclaim/oom':<12} {'config':<7} {'median':>12} {'spread':>8}")
for t, what in RC.items():
    units[t] = what + " (icount)"
    for cfg, who in (("cM", "memcg depth 5"), ("cG", "rg_memory.ko depth 5")):
        if cfg in raw.get(t, {}):
            print(f"{t:<12} {cfg:<7} {med(t, cfg):>12.1f} "
                  f"{summary[t][cfg]['spread_pct']:>7.2f}%  {who}")
for t in ("mscan", "msteal"):
    if raw.get(t, {}).get("cG"):
        within_target("%s rg_memory.ko/memcg, 64 MiB limit, 1 GiB stream "
                      "(icount)" % RC[t].split(" (")[0], paired(t, "cG", "cM"),
                      0.05)
if raw.get("moom", {}).get("cG"):
    v = paired("moom", "cG", "cM")
    print("     OOM kill time rg_memory.ko/memcg: %.4f [rounds %.4f-%.4f]"
          % (statistics.median(v), min(v), max(v)))

# Block io (bench/io.sh): N none, C io cgroup depth 5, I rg_io.ko depth 5,
# U unpatched kernel.
for t in icount_table("io test", {"iread": "O_DIRECT 4 KiB random read of a "
                                  "null_blk disk, no ceiling"},
                      "ns per {} (icount)",
                      (("N", "no module, root"), ("C", "io cgroup depth 5"),
                       ("I", "rg_io.ko depth 5"), ("U", "unpatched kernel"))):
    ratio_lines(t, (("C", "N", "io cgroup depth 5 / none"),
                    ("I", "N", "rg_io.ko depth 5 / none")))
    ratio_target("io 4 KiB random read rg_io.ko/io cgroup, depth 5, no "
                 "ceiling (icount)", paired("iread", "I", "C"), 1.02)
    ratio_target("hooks patches, io read, no module: patched/unpatched "
                 "(icount, separate boots)", paired("iread", "N", "U"), 1.005)

# One more sibling group (bench/mkdir.sh) and an rmdir of 10,000 tasks
# beside a fork loop (bench/rmdir.sh).
MK = {"mkdir1000": "mkdir, 1,101st-1,200th child",
      "mkdir10000": "mkdir, 10,001st-10,100th child",
      "rmdir1000": "rmdir, back from 1,200 to 1,100",
      "rmdir10000": "rmdir, back from 10,100 to 10,000"}
mn = {"cpu": "with rg_cpu.ko", "rg": "numtasks alone", "cg": "cgroup v2 cpu"}
if any(raw.get(t) for t in MK):
    print()
    print(f"{'sibling test':<12} {'config':<7} {'median':>10} {'spread':>8}")
for t, what in MK.items():
    units[t] = "ns per " + what + " (icount)"
    for cfg in mn:
        if cfg in raw.get(t, {}):
            print(f"{t:<12} {cfg:<7} {med(t, cfg):>10.0f} "
                  f"{summary[t][cfg]['spread_pct']:>7.1f}%  {mn[cfg]}")
for op in ("mkdir", "rmdir"):
    a, b = op + "10000", op + "1000"
    if raw.get(a, {}).get("cpu") and raw.get(a, {}).get("rg"):
        own = [(x - y) for x, y in zip(raw[a]["cpu"], raw[a]["rg"])]
        own0 = [(x - y) for x, y in zip(raw[b]["cpu"], raw[b]["rg"])]
        print("     %s: 10,000 / 1,100 siblings: with rg_cpu.ko %.3f, "
              "numtasks alone %.3f, cgroup %.3f; rg_cpu.ko's own part "
              "(with - without) %.0f and %.0f" % (
                  op, med(a, "cpu") / med(b, "cpu"),
                  med(a, "rg") / med(b, "rg"),
                  (med(a, "cg") / med(b, "cg")) if raw.get(a, {}).get("cg")
                  else float("nan"),
                  statistics.median(own0), statistics.median(own)))
        if op == "mkdir":
            ratio_target("mkdir with rg_cpu.ko, 10,000 / 1,100 siblings "
                         "(icount; configfs's own lookups included)",
                         [x / y for x, y in zip(raw[a]["cpu"], raw[b]["cpu"])],
                         1.10)
            ratio_target("rg_cpu.ko's own part of a mkdir, 10,000 / 1,100 "
                         "siblings (icount)",
                         [x / y if y > 0 else float("inf")
                          for x, y in zip(own, own0)], 1.10)
RD = {"forkmax_idle": "longest fork, root, alone",
      "forkmax_rmdir": "longest fork, root, during the rmdir",
      "forkmed_idle": "median fork, root, alone",
      "forkmed_rmdir": "median fork, root, during the rmdir",
      "rmdir10k": "the rmdir itself"}
rn = {"nt": "numtasks", "cpu": "numtasks and rg_cpu.ko"}
if any(raw.get(t) for t in RD):
    print()
    print(f"{'rmdir test':<14} {'config':<7} {'median us':>10} {'max us':>8}")
for t, what in RD.items():
    units[t] = "us, " + what + " (icount, 10,000 tasks removed)"
    for cfg in rn:
        if cfg in raw.get(t, {}):
            print(f"{t:<14} {cfg:<7} {med(t, cfg):>10.0f} "
                  f"{max(raw[t][cfg]):>8.0f}  {what}, {rn[cfg]}")

MB = {"forkmax_idle": "longest fork, root of 30,000 tasks, alone",
      "forkmax_read": "longest fork, root, a user reading members",
      "forkmax_busy": "longest fork, root, a user reading /proc/loadavg",
      "forkmed_idle": "median fork, root, alone",
      "forkmed_read": "median fork, root, a user reading members",
      "forkmed_busy": "median fork, root, a user reading /proc/loadavg",
      "read30k": "one read of the root's members, 30,000 tasks"}
for tag, how in (("m", "icount, one vCPU"),
                 ("m2", "plain TCG, two vCPUs, a reader on each")):
    if not any(raw.get(tag + t) for t in MB):
        continue
    print()
    print(f"members ({how})")
    print(f"{'test':<16} {'median us':>10} {'rounds us':>20}")
    for t, what in MB.items():
        k = tag + t
        units[k] = "us, " + what + " (" + how + ")"
        if raw.get(k, {}).get("rg"):
            v = raw[k]["rg"]
            print(f"{k:<16} {med(k, 'rg'):>10.0f} "
                  f"{min(v):>9.0f}-{max(v):<9.0f}  {what}")
    r, b = med(tag + "forkmax_read", "rg"), med(tag + "forkmax_busy", "rg")
    if r and b:
        print(f"     longest fork: reading members / reading a small file "
              f"{r / b:.3f}")

MX = {"xforkmax_idle": "longest fork, another session, 30,000 root tasks",
      "xforkmax_churn": "longest fork, another session, beside a user's "
                        "16 readers of the root's members and exec loop",
      "xforkmed_idle": "median fork, another session, alone",
      "xforkmed_churn": "median fork, another session, beside the churn"}
if any(raw.get(t) for t in MX):
    print()
    print("members under churn (plain TCG, two vCPUs)")
    print(f"{'test':<16} {'median':>10} {'rounds':>20}")
for t, what in MX.items():
    units[t] = "us, " + what
    if raw.get(t, {}).get("rg"):
        v = raw[t]["rg"]
        print(f"{t:<16} {med(t, 'rg'):>10.0f} "
              f"{min(v):>9.0f}-{max(v):<9.0f}  {what}")

with open(args.json, "w") as f:
    json.dump({"date": datetime.datetime.utcnow().isoformat() + "Z",
               "kernel": args.kernel, "commit": args.commit,
               "units": units, "results": summary, "targets": targets},
              f, indent=1, sort_keys=True)
print(f"\nwritten: {args.json}")
