"""Runs kdslc --stats on every example; checks that no kernel runs more
ops at -O1 than in its source and that the examples as a whole run fewer."""
import glob
import os
import re
import subprocess
import sys

kdslc, examples = sys.argv[1], sys.argv[2]
pat = re.compile(r'^kernel (\S+)( \(source\))?: (\d+) ops', re.M)
total_src = total_opt = 0
for path in sorted(glob.glob(os.path.join(examples, '*.k'))):
    out = subprocess.run([kdslc, path, '-o', os.devnull, '--stats'], stderr=subprocess.PIPE,
                         check=True, text=True).stderr
    src, opt = {}, {}
    for name, tag, n in pat.findall(out):
        (src if tag else opt)[name] = int(n)
    for name, n in opt.items():
        s = src.get(name, n)
        if n > s:
            sys.exit('%s: kernel %s runs %d ops at -O1, %d in its source' % (path, name, n, s))
        total_src += s
        total_opt += n
        print('%s %s: %d -> %d ops' % (os.path.basename(path), name, s, n))
if total_opt >= total_src:
    sys.exit('no fewer ops at -O1: %d -> %d' % (total_src, total_opt))
print('examples: %d -> %d ops' % (total_src, total_opt))
