#!/usr/bin/env python3
"""A short, seeded libFuzzer run of a fuzz target: the 'fuzz' suite's
smoke test.  New inputs go to a fresh folder under WORK (never into the
corpora given), crashes to WORK/crash-*; the run fails on any finding.
usage: smoke.py FUZZER RUNS WORK CORPUS... [--dict FILE]"""
import os
import shutil
import subprocess
import sys

args = sys.argv[1:]
dict_args = []
if '--dict' in args:
    i = args.index('--dict')
    dict_args = ['-dict=' + args[i + 1]]
    del args[i:i + 2]
fuzzer, runs, work, corpora = args[0], args[1], args[2], args[3:]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(os.path.join(work, 'new'))
# -entropic=0: docs/fuzzing.md, "A long run"
cmd = [fuzzer, '-runs=' + runs, '-seed=1', '-entropic=0', '-max_len=4096', '-timeout=10', '-rss_limit_mb=2048',
       '-print_final_stats=1', '-artifact_prefix=' + work + '/'] + dict_args + \
      [os.path.join(work, 'new')] + [c for c in corpora if os.path.isdir(c)]
print(' '.join(cmd), flush=True)
rc = subprocess.run(cmd).returncode
sys.exit(1 if rc else 0)
