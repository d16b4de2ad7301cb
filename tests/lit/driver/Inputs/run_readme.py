"""run_readme.py: runs a command block of README.md as pasted (embed.test).

  run_readme.py README BLOCK WORK --build B --examples E [--installed]

Prints the fenced block that follows `<!-- embed.test runs this block:
BLOCK -->` in README to WORK/block.sh and runs it with `sh -ex` in WORK,
where build/ and examples/ are links to the build tree B and the
examples E, as in the source tree the README speaks of.  The block's
status is this script's; a missing block is status 3 (a renamed marker
fails the test, never skips it).

--installed: the block installs kdsl (`meson install -C build &&
ldconfig`), as root into the build's prefix.  Here the prefix lands under
WORK/root (DESTDIR, which meson install honours) and the environment
stands in for the system's paths: PATH finds the root's bin/ first,
pkg-config reads the root's .pc files (PKG_CONFIG_SYSROOT_DIR puts the
root before their -I and -L), the loader's cache is LD_LIBRARY_PATH (so
ldconfig is a no-op here: a test does not write /etc/ld.so.cache).

KDSL_TEST_SANITIZE (the sanitizer flags of a sanitizer build): cc is
Inputs/cc_sanitize.sh, which adds them (the runtime is instrumented)."""
import argparse
import json
import os
import subprocess
import sys

MARKER = '<!-- embed.test runs this block: %s -->'


def block(text, name):
    """The lines of the fenced block after NAME's marker, or None."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.strip() != MARKER % name:
            continue
        if i + 1 >= len(lines) or not lines[i + 1].startswith('```'):
            return None
        body = []
        for cmd in lines[i + 2:]:
            if cmd.startswith('```'):
                return body
            body.append(cmd)
    return None


def stub(path, text):
    with open(path, 'w', encoding='utf-8') as f:
        f.write(text)
    os.chmod(path, 0o755)


def installed_env(env, work, build, stubs):
    """The environment in which the root under WORK stands for '/'."""
    with open(os.path.join(build, 'meson-info', 'intro-buildoptions.json'), encoding='utf-8') as f:
        opts = {o['name']: o['value'] for o in json.load(f)}
    prefix = opts['prefix']
    libdir = os.path.join(prefix, opts['libdir'])
    bindir = os.path.join(prefix, opts['bindir'])
    root = os.path.join(work, 'root')
    env['DESTDIR'] = root
    env['PKG_CONFIG_PATH'] = root + libdir + '/pkgconfig'
    env['PKG_CONFIG_SYSROOT_DIR'] = root
    env['LD_LIBRARY_PATH'] = root + libdir
    env['PATH'] = os.pathsep.join([stubs, root + bindir, env['PATH']])
    stub(os.path.join(stubs, 'ldconfig'), '#!/bin/sh\nexit 0\n')


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('readme')
    ap.add_argument('name')
    ap.add_argument('work')
    ap.add_argument('--build', required=True)
    ap.add_argument('--examples', required=True)
    ap.add_argument('--installed', action='store_true')
    a = ap.parse_args()
    with open(a.readme, encoding='utf-8') as f:
        body = block(f.read(), a.name)
    if not body:
        sys.stderr.write('run_readme.py: no block "%s" in %s\n' % (a.name, a.readme))
        return 3
    stubs = os.path.join(a.work, 'stubs')
    os.makedirs(stubs)
    os.symlink(a.build, os.path.join(a.work, 'build'))
    os.symlink(a.examples, os.path.join(a.work, 'examples'))
    script = os.path.join(a.work, 'block.sh')
    with open(script, 'w', encoding='utf-8') as f:
        f.write('\n'.join(body) + '\n')
    env = dict(os.environ)
    env['PATH'] = os.pathsep.join([stubs, env.get('PATH', '/usr/bin:/bin')])
    for var in ('PKG_CONFIG_PATH', 'PKG_CONFIG_SYSROOT_DIR', 'DESTDIR', 'LD_LIBRARY_PATH'):
        env.pop(var, None)
    if a.installed:
        installed_env(env, a.work, a.build, stubs)
    if env.get('KDSL_TEST_SANITIZE'):
        here = os.path.dirname(os.path.abspath(__file__))
        os.symlink(os.path.join(here, 'cc_sanitize.sh'), os.path.join(stubs, 'cc'))
    sys.stdout.flush()
    return subprocess.run(['sh', '-ex', script], cwd=a.work, env=env).returncode


if __name__ == '__main__':
    sys.exit(main())
