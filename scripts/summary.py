#!/usr/bin/env python3
"""Counts every test case in meson's testlog.json files: the Check
subtests (TAP lines), each lit test, and each other test, and prints
'N passed, N failed' as the last line."""
import json
import os
import re
import sys

passed = failed = 0
args = sys.argv[1:]
if args[:1] == ['--broken']:        # builds that failed: one failure each
    failed += int(args[1])
    args = args[2:]
for path in args:
    if not os.path.exists(path):
        continue
    with open(path) as f:
        for line in f:
            t = json.loads(line)
            out = t.get('stdout', '') or ''
            name = t.get('name', '')
            if name.split('/')[-1].strip() == 'lit':
                p = sum(int(n) for n in re.findall(r'^\s*(?:Passed|Expectedly Failed)\s*:\s*(\d+)', out, re.M))
                q = sum(int(n) for n in re.findall(r'^\s*(?:Failed|Unresolved|Timed Out|Unexpectedly Passed)\s*:\s*(\d+)', out, re.M))
                if p + q == 0 and t['result'] != 'OK':
                    q = 1
                passed += p
                failed += q
            elif t.get('protocol') == 'tap' or re.search(r'^(not )?ok \d', out, re.M):
                p = len(re.findall(r'^ok \d', out, re.M))
                q = len(re.findall(r'^not ok \d', out, re.M))
                if t['result'] != 'OK' and q == 0:
                    q = 1
                passed += p
                failed += q
            else:
                if t['result'] in ('OK', 'EXPECTEDFAIL'):
                    passed += 1
                elif t['result'] != 'SKIP':
                    failed += 1
print(f'{passed} passed, {failed} failed')
