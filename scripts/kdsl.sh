#!/bin/sh
# The two quick-start commands of the README, for a fresh Debian 12 (as root):
#   sh scripts/kdsl.sh example   install what is missing, build, run an example kernel
#   sh scripts/kdsl.sh test      install what is missing, build with -Werror, run the
#                                whole suite, then again under ASan and UBSan
set -eu
cd "$(dirname "$0")/.."

# gdb: the debugging test (tests/lit/backend/gdb_lines.test); scdoc: the
# kdslc(1) man page (the build skips it without); cmake: the CMake
# consumer test (tests/lit/driver/consumer_cmake.test); libclang-rt-14-dev:
# libFuzzer for a -Dfuzzing=true build (docs/fuzzing.md), only recommended by clang
packages="gcc clang libclang-rt-14-dev libc6-dev python3 re2c lemon meson ninja-build check pkg-config llvm-14-tools python3-numpy python3-pytest python3-mesonpy python3-venv gdb scdoc cmake"

install_missing() {
	missing=""
	for p in $packages; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	echo "kdsl: installing$missing"
	sudo=""
	[ "$(id -u)" = 0 ] || sudo="sudo"
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
}

# configure DIR [meson options...]: set up (or reconfigure) and build DIR.
configure() {
	dir=$1
	shift
	if [ -f "$dir/build.ninja" ]; then
		meson configure "$dir" "$@" >/dev/null || return 1
	else
		meson setup "$dir" "$@" >/dev/null || return 1
	fi
	ninja -C "$dir" >/dev/null || { ninja -C "$dir" 2>&1 | tail -30; return 1; }
}

# suite DIR [meson options...]: build DIR and run every test in it; a
# build that fails counts as one failed test.
suite() {
	dir=$1
	shift
	rm -f "$dir/meson-logs/testlog.json"
	if configure "$dir" "$@"; then
		meson test -C "$dir" --print-errorlogs --num-processes 2 || status=1
	else
		echo "kdsl: the build in $dir failed"
		status=1
		broken=$((broken + 1))
	fi
	logs="$logs $dir/meson-logs/testlog.json"
}

case "${1:-}" in
example)
	install_missing
	configure build
	build/driver/kdslc run examples/ascend_data_move_unaligned.k
	;;
test)
	install_missing
	status=0
	broken=0
	logs=""
	echo "== build with -Werror, run the suite"
	suite build-werror -Dwerror=true
	echo "== build with ASan and UBSan, run the suite again"
	export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ASAN_OPTIONS=detect_leaks=1
	suite build-san -Dwerror=true -Db_sanitize=address,undefined -Db_lundef=false
	python3 scripts/summary.py --broken "$broken" $logs
	exit $status
	;;
*)
	echo "usage: sh scripts/kdsl.sh example|test" >&2
	exit 2
	;;
esac
