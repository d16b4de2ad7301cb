#!/usr/bin/env python3
"""Compile speed of kdslc on generated kernels (issue 6, part 2).

usage: compile_speed.py KDSLC RUNTIME_INCLUDE_DIR [--sizes 10000,100000,1000000]
                        [--kernel-lines K] [--cc-max LINES] [--reps N]

For each size, tools/gen_kernel.py writes a kernel file of that many
lines; kdslc compiles it (median of --reps runs, CPU time = user + sys of
the child, so a busy machine disturbs it less than wall time), and
`cc -O0 -c` compiles kdslc's output once (skipped above --cc-max lines).
Prints a markdown table and checks the two targets: kdslc on 100k lines
at most 10% of cc -O0 on its output, and 1M lines at most 11x 100k."""
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
GEN = os.path.join(HERE, "..", "tools", "gen_kernel.py")


def run(cmd):
    """(cpu seconds, peak RSS in KiB) of one child; exits on failure."""
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"compile_speed: {' '.join(cmd)} failed")
    return ru.ru_utime + ru.ru_stime, ru.ru_maxrss


def main():
    args = sys.argv[1:]
    if len(args) < 2:
        sys.exit(__doc__)
    kdslc, rtinc = args[0], args[1]

    def opt(name, default):
        return args[args.index(name) + 1] if name in args else default

    sizes = [int(x) for x in opt("--sizes", "10000,100000,1000000").split(",")]
    per = opt("--kernel-lines", "200")
    cc_max = int(opt("--cc-max", "100000000"))
    reps = int(opt("--reps", "3"))
    cc = os.environ.get("CC", "cc")
    res = {}
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            k = os.path.join(tmp, f"g{n}.k")
            c = os.path.join(tmp, f"g{n}.c")
            with open(k, "w") as f:
                subprocess.run([sys.executable, GEN, str(n), "--kernel-lines", per], stdout=f, check=True)
            times, rss = [], 0
            for _ in range(reps):
                t, m = run([kdslc, k, "-o", c])
                times.append(t)
                rss = max(rss, m)
            with open(c) as f:
                clines = sum(1 for _ in f)
            cct = run([cc, "-O0", "-w", "-c", "-I", rtinc, c, "-o", os.path.join(tmp, "g.o")])[0] \
                if n <= cc_max else None
            res[n] = (statistics.median(times), min(times), max(times), rss, clines, cct)
            os.unlink(k)
            os.unlink(c)
    print(f"kernels of {per} lines each; kdslc: median CPU time of {reps} runs (min..max); cc -O0: one run\n")
    print("| .k lines | C lines | kdslc CPU s | min..max | peak RSS MiB | RSS MiB per 100k lines "
          "| cc -O0 -c CPU s | kdslc / cc |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for n, (t, lo, hi, rss, cl, cct) in res.items():
        ratio = f"{100 * t / cct:.1f}%" if cct else "-"
        ccs = f"{cct:.2f}" if cct else "not run"
        print(f"| {n} | {cl} | {t:.3f} | {lo:.3f}..{hi:.3f} | {rss / 1024:.0f} | {rss / 1024 * 1e5 / n:.0f} "
              f"| {ccs} | {ratio} |")
    print()
    if 100000 in res and res[100000][5]:
        r = res[100000][0] / res[100000][5]
        print(f"target: kdslc on 100k lines <= 10% of cc -O0 on its output: {100 * r:.1f}% "
              f"({'met' if r <= 0.10 else 'MISSED'})")
    if 100000 in res and 1000000 in res:
        r = res[1000000][0] / res[100000][0]
        print(f"target: kdslc on 1M lines <= 11x 100k: {r:.2f}x ({'met' if r <= 11 else 'MISSED'})")


if __name__ == "__main__":
    main()
