#!/bin/sh
# The two quick-start commands of the README, for a fresh Debian 12 (as root):
#   sh scripts/kdsl.sh example   install what is missing, build, run an example kernel
#   sh scripts/kdsl.sh test      install what is missing, build with -Werror, run the
#                                whole suite, then again under ASan and UBSan
set -eu
cd "$(dirname "$0")/.."

packages="gcc clang libc6-dev python3 re2c lemon meson ninja-build check pkg-config llvm-14-tools"

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

# configure DIR [meson options...]: a fresh build tree when the options differ.
configure() {
	dir=$1
	shift
	if [ -f "$dir/build.ninja" ]; then
		meson configure "$dir" "$@" >/dev/null
	else
		meson setup "$dir" "$@" >/dev/null
	fi
	ninja -C "$dir" >/dev/null
}

case "${1:-}" in
example)
	install_missing
	configure build
	build/driver/kdslc run examples/ascend_data_move_unaligned.k
	;;
test)
	install_missing
	rm -f build-werror/meson-logs/testlog.json build-san/meson-logs/testlog.json
	status=0
	echo "== build with -Werror, run the suite"
	configure build-werror -Dwerror=true
	meson test -C build-werror --print-errorlogs --num-processes 2 || status=1
	echo "== build with ASan and UBSan, run the suite again"
	configure build-san -Dwerror=true -Db_sanitize=address,undefined -Db_lundef=false
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ASAN_OPTIONS=detect_leaks=1 \
		meson test -C build-san --print-errorlogs --num-processes 2 || status=1
	python3 scripts/summary.py build-werror/meson-logs/testlog.json build-san/meson-logs/testlog.json
	exit $status
	;;
*)
	echo "usage: sh scripts/kdsl.sh example|test" >&2
	exit 2
	;;
esac
