#!/usr/bin/env python3
"""Compile speed of kdslc on generated kernels (issues 6 and 16).

usage: compile_speed.py KDSLC RUNTIME_INCLUDE_DIR [--sizes 10000,100000,1000000]
                        [--kernel-lines K] [--cc-max LINES] [--reps N]

For each size, tools/gen_kernel.py writes a file of that many lines: one
long kernel by default (the hard case: every pass sees the whole kernel),
kernels of K lines with --kernel-lines.  kdslc compiles each at -O0 and at
-O1, --reps times (the median of each; CPU time = user + sys of the
child, so a busy machine disturbs it less than wall time; peak RSS), and
`cc -O0 -c` compiles kdslc's -O1 output once (skipped above --cc-max
lines).  The runs go in rounds, each compiling every size, so that a
slow spell of a shared machine (a compute loop's speed moved by up to 2x
for tens of seconds at a time on the VM of 2026-12-07) falls on the
sizes and levels alike; within a round each file is compiled once
untimed before its timed -O0 and -O1 runs, because of what a VM makes
of fresh memory: on the VMs of issue 16 the memory a process frees goes
back to the host, and a process that then takes more than about 1 GiB
pays the host's page faults for it (docs/performance.md, "Compile
speed"), so a million-line compile after small ones costs more system
time than one after another.  Prints
a markdown table (with the medians of user and system time and of minor
page faults: the system time is mostly the kernel faulting in and
zeroing the compiler's memory) and checks the targets: -O1 at most 2x -O0 on 100k
lines, 1M lines at most 11x 100k at each level, and kdslc -O1 on 100k
lines at most 10% of cc -O0 on its output."""
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
GEN = os.path.join(HERE, "..", "tools", "gen_kernel.py")


def run(cmd):
    """(cpu seconds, peak RSS in KiB, user seconds, system seconds, minor
    page faults) of one child; exits on failure."""
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"compile_speed: {' '.join(cmd)} failed")
    return ru.ru_utime + ru.ru_stime, ru.ru_maxrss, ru.ru_utime, ru.ru_stime, ru.ru_minflt


def main():
    args = sys.argv[1:]
    if len(args) < 2:
        sys.exit(__doc__)
    kdslc, rtinc = args[0], args[1]

    def opt(name, default):
        return args[args.index(name) + 1] if name in args else default

    sizes = [int(x) for x in opt("--sizes", "10000,100000,1000000").split(",")]
    per = opt("--kernel-lines", None)
    cc_max = int(opt("--cc-max", "100000000"))
    reps = int(opt("--reps", "5"))
    cc = os.environ.get("CC", "cc")
    levels = ("-O0", "-O1")
    res = {}   # (lines, level) -> (median, min, max, rss, user, sys, faults); lines -> (C lines, cc time)
    with tempfile.TemporaryDirectory() as tmp:
        src = {}
        for n in sizes:
            src[n] = os.path.join(tmp, f"g{n}.k")
            with open(src[n], "w") as f:
                subprocess.run([sys.executable, GEN, str(n), "--kernel-lines", per or str(n)],
                               stdout=f, check=True)
        runs = {(n, lvl): [] for n in sizes for lvl in levels}
        out = {n: os.path.join(tmp, f"g{n}.c") for n in sizes}
        for _ in range(reps):
            for n in sizes:
                run([kdslc, levels[0], src[n], "-o", out[n]])   # untimed: see above
                for lvl in levels:   # -O1 last: out[n] is its C below
                    runs[n, lvl].append(run([kdslc, lvl, src[n], "-o", out[n]]))
        for (n, lvl), rs in runs.items():
            times = [r[0] for r in rs]
            res[n, lvl] = (statistics.median(times), min(times), max(times), max(r[1] for r in rs),
                           statistics.median(r[2] for r in rs), statistics.median(r[3] for r in rs),
                           statistics.median(r[4] for r in rs))
        for n in sizes:
            with open(out[n]) as f:
                clines = sum(1 for _ in f)
            cct = run([cc, "-O0", "-w", "-c", "-I", rtinc, out[n], "-o", os.path.join(tmp, "g.o")])[0] \
                if n <= cc_max else None
            res[n] = (clines, cct)
    shape = f"kernels of {per} lines each" if per else "one kernel per file"
    print(f"{shape}; kdslc: median CPU time of {reps} runs (min..max), in {reps} rounds, each compiling "
          f"every file once untimed, then at -O0 and -O1; cc -O0: one run\n")
    print("| .k lines | level | C lines | kdslc CPU s | min..max | user s | system s | page faults "
          "| peak RSS MiB | RSS MiB per 100k lines | cc -O0 -c CPU s | kdslc / cc |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for n in sizes:
        cl, cct = res[n]
        for lvl in levels:
            t, lo, hi, rss, u, st, flt = res[n, lvl]
            ratio = f"{100 * t / cct:.1f}%" if cct else "-"
            ccs = f"{cct:.2f}" if cct else "not run"
            print(f"| {n} | {lvl} | {cl} | {t:.3f} | {lo:.3f}..{hi:.3f} | {u:.3f} | {st:.3f} | {flt:.0f} "
                  f"| {rss / 1024:.0f} | {rss / 1024 * 1e5 / n:.0f} | {ccs} | {ratio} |")
    print()

    def verdict(ok):
        return "met" if ok else "MISSED"
    if 100000 in sizes:
        r = res[100000, "-O1"][0] / res[100000, "-O0"][0]
        print(f"target: -O1 on 100k lines <= 2x -O0: {r:.2f}x ({verdict(r <= 2)})")
        if res[100000][1]:
            r = res[100000, "-O1"][0] / res[100000][1]
            print(f"target: kdslc -O1 on 100k lines <= 10% of cc -O0 on its output: {100 * r:.1f}% "
                  f"({verdict(r <= 0.10)})")
    if 100000 in sizes and 1000000 in sizes:
        for lvl in levels:
            r = res[1000000, lvl][0] / res[100000, lvl][0]
            print(f"target: 1M lines <= 11x 100k at {lvl}: {r:.2f}x ({verdict(r <= 11)})")
        for lvl in levels:
            big, small = res[1000000, lvl], res[100000, lvl]
            print(f"1M / 100k at {lvl}: user time {big[4] / small[4]:.2f}x, system time "
                  f"{big[5] / small[5]:.2f}x, page faults {big[6] / small[6]:.2f}x")


if __name__ == "__main__":
    main()
