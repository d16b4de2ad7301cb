# lit configuration for kdsl's compiler tests: tests/lit/<stage>/*.k
import os
import lit.formats

# Run as `lit tests/lit/x.k` from the source tree, lit finds this file
# without the build's site config: read the one in build/ (or in
# $KDSL_BUILD), which reads this file again with the build's paths.
if not hasattr(config, 'build_root'):
    site = os.path.join(os.environ.get('KDSL_BUILD') or
                        os.path.join(os.path.dirname(__file__), '..', '..', 'build'),
                        'tests', 'lit.site.cfg.py')
    if not os.path.exists(site):
        lit_config.fatal('no %s: build first (meson setup build && ninja -C build), '
                         'or set KDSL_BUILD to the build folder' % os.path.normpath(site))
    lit_config.load_config(config, site)
    raise SystemExit   # lit's way for a config file to return early

config.name = 'kdsl'
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = ['.k', '.test', '.kir']
config.excludes = ['Inputs']
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.build_root, 'tests', 'lit-out')

config.environment['PATH'] = os.pathsep.join(
    [config.llvm_bin, os.environ.get('PATH', '/usr/bin:/bin')])
config.environment['FILECHECK_OPTS'] = '-enable-var-scope'
# The sanitized build's pass exists for kdslc and the runtime, which meson
# built with the sanitizers; the C that `kdslc run` generates is the same
# as in the plain build, whose pass compiles it with kdslc's -O2 and checks
# its warnings.  Here gcc compiles it at -O0 (CFLAGS comes last, so it
# wins; a test that sets CFLAGS replaces it): the sanitizers still
# instrument it, and the pass takes minutes less.
if config.sanitize:
    config.environment['CFLAGS'] = '-O0'
for var in ('ASAN_OPTIONS', 'UBSAN_OPTIONS', 'LSAN_OPTIONS', 'CC'):
    if var in os.environ:
        config.environment[var] = os.environ[var]

# C compilers for the generated code: warning-free under -Wall -Wextra -pedantic
# and the flags projects add (kernel.c declares its own kernels).
cflags = ('-std=c11 -Wall -Wextra -pedantic -Wmissing-prototypes -Wstrict-prototypes'
          ' -Wshadow -Werror -I' + config.rt_inc)
config.substitutions.append(('%kdslc', config.kdslc))
config.substitutions.append(('%rtinc', config.rt_inc))
config.substitutions.append(('%rtlib', config.rt_lib))
config.substitutions.append(('%harnessinc', config.harness_inc))
config.substitutions.append(('%harnesslib', config.harness_lib))
config.substitutions.append(('%cflags', cflags))
config.substitutions.append(('%ldflags', '-L%s -Wl,-rpath,%s -lkdsl-runtime -lm %s'
                             % (config.rt_lib, config.rt_lib, config.sanitize)))
config.substitutions.append(('%examples', os.path.join(config.src_root, 'examples')))
config.substitutions.append(('%python', '/usr/bin/python3'))
config.substitutions.append(('%builddir', config.build_root))
config.substitutions.append(('%sanitize', config.sanitize))

# gdb drives the debugging tests (backend/gdb_*.test); the set-up script
# installs it.
import shutil
if shutil.which('gdb'):
    config.available_features.add('gdb')
# cmake builds the CMake consumer project (driver/consumer_cmake.test) and
# scdoc the man page (driver/man.test); the set-up script installs both.
for tool in ('cmake', 'scdoc'):
    if shutil.which(tool):
        config.available_features.add(tool)
# ThreadSanitizer cannot share a program with ASan: the TSan tests
# (driver/tsan_*.test) build their own copy of the runtime, in the
# unsanitized build only.
if not config.sanitize:
    config.available_features.add('tsan')
