"""run_tutorial.py: runs docs/tutorial.md as a reader would (tutorial.test).

  run_tutorial.py TUTORIAL BASE --build B

Installs the build B into BASE/root (meson install --destdir; the
environment then stands for the system's paths, as run_readme.py's
--installed does) and goes through TUTORIAL's fenced blocks in order, in
the empty folder BASE/work:

  <!-- file: PATH -->   the block is a file the reader saves: written to PATH
  <!-- output -->       the block is what the previous command block prints
                        (stdout and stderr): compared exactly
  <!-- not run... -->   the block is not run (the marker says why)
  ```sh (no marker)     a command block: run with `sh -e`; it must exit 0
                        and, when no output block follows, print nothing

Any other block is an error, so a new block is either run or marked.
Exit status 0 when every block did as the tutorial says."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_readme  # noqa: E402  (installed_env)


def blocks(text):
    """(marker, info, body) for each fenced block; marker is the HTML
    comment on the line before the fence, or ''."""
    lines = text.splitlines()
    out = []
    i = 0
    while i < len(lines):
        if not lines[i].startswith('```'):
            i += 1
            continue
        info = lines[i][3:].strip()
        prev = lines[i - 1].strip() if i else ''
        marker = prev[4:-3].strip() if prev.startswith('<!--') and prev.endswith('-->') else ''
        j = i + 1
        while j < len(lines) and not lines[j].startswith('```'):
            j += 1
        out.append((marker, info, '\n'.join(lines[i + 1:j]) + '\n', i + 1))
        i = j + 1
    return out


def run_block(body, work, env):
    print('$ ' + body.rstrip().replace('\n', '\n$ '))
    sys.stdout.flush()
    p = subprocess.run(['sh', '-e', '-c', body], cwd=work, env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    text = p.stdout.decode('utf-8', 'replace')
    sys.stdout.write(text)
    return p.returncode, text


def main():
    path, base, build = sys.argv[1], sys.argv[2], sys.argv[4]
    with open(path, encoding='utf-8') as f:
        todo = blocks(f.read())
    work = os.path.join(base, 'work')
    stubs = os.path.join(base, 'stubs')
    os.makedirs(work)
    os.makedirs(stubs)
    env = dict(os.environ)
    for var in ('PKG_CONFIG_PATH', 'PKG_CONFIG_SYSROOT_DIR', 'DESTDIR', 'LD_LIBRARY_PATH', 'CC', 'CFLAGS'):
        env.pop(var, None)
    env['PATH'] = os.pathsep.join([stubs, env.get('PATH', '/usr/bin:/bin')])
    run_readme.installed_env(env, base, build, stubs)
    if env.get('KDSL_TEST_SANITIZE'):
        here = os.path.dirname(os.path.abspath(__file__))
        os.symlink(os.path.join(here, 'cc_sanitize.sh'), os.path.join(stubs, 'cc'))
    subprocess.run(['meson', 'install', '-C', build, '--no-rebuild', '--quiet'], env=env, check=True,
                   stdout=subprocess.DEVNULL)
    last = None   # (line, output) of the last command block not yet compared
    for k, (marker, info, body, line) in enumerate(todo):
        where = '%s:%d' % (path, line)
        if marker.startswith('not run'):
            continue
        if marker.startswith('file:'):
            dst = os.path.join(work, marker[5:].strip())
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            with open(dst, 'w', encoding='utf-8') as f:
                f.write(body)
            continue
        if marker == 'output':
            if last is None:
                print('%s: an output block without a command block before it' % where)
                return 1
            if last[1] != body:
                print('%s: the commands printed something else than this block' % where)
                return 1
            last = None
            continue
        if marker or info != 'sh':
            print('%s: a block neither run (```sh) nor marked (file:, output, not run)' % where)
            return 1
        if last is not None and last[1]:
            print('%s: the commands printed output the tutorial does not show' % last[0])
            return 1
        status, text = run_block(body, work, env)
        if status != 0:
            print('%s: the commands exited with status %d' % (where, status))
            return 1
        last = (where, text)
    if last is not None and last[1]:
        print('%s: the commands printed output the tutorial does not show' % last[0])
        return 1
    print('tutorial: %d blocks, all as shown' % len(todo))
    return 0


if __name__ == '__main__':
    sys.exit(main())
