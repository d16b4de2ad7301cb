#!/bin/sh
# bench/run.sh: builds kdsl in build-bench/ and runs the whole benchmark of
# issue 6 in one go, printing markdown (docs/performance.md holds a run).
#   sh bench/run.sh [--quick] [--no-compile] [--cc-max LINES] [--repeat N] [KERNEL.k...]
# 1. the runtime's hot ops and the aipu permutations (bench/kdsl-bench)
#    against memcpy, scalar C, the op written by hand and numpy
#    (bench/numpy_ops.py, Debian's python3-numpy, installed when missing);
# 2. compile speed on generated kernels (bench/compile_speed.py);
# 3. whole kernels at -O0 and -O1 with `kdslc run --repeat` (5 processes
#    each, the median of their medians), outputs compared
#    byte for byte (default: examples/ascend_row_gather.k when present, and
#    the move-heavy examples).
# --quick: smaller sizes, for a check that everything runs.
set -eu
cd "$(dirname "$0")/.."
quick= compile=1 ccmax=100000000 repeat=300 procs=5 kernels=
while [ $# -gt 0 ]; do
	case "$1" in
	--quick) quick=--quick; repeat=30; procs=2 ;;
	--no-compile) compile= ;;
	--cc-max) ccmax=$2; shift ;;
	--repeat) repeat=$2; shift ;;
	-*) echo "usage: sh bench/run.sh [--quick] [--no-compile] [--cc-max LINES] [--repeat N] [KERNEL.k...]" >&2; exit 2 ;;
	*) kernels="$kernels $1" ;;
	esac
	shift
done
if [ -z "$kernels" ]; then
	for k in examples/ascend_row_gather.k examples/ascend_block_stage.k examples/ascend_data_move_large.k \
	         examples/ascend_data_move_contiguous.k examples/neuron_stream_shuffle.k; do
		[ -f "$k" ] && kernels="$kernels $k"
	done
fi

# numpy as a NumPy-based simulator has it: Debian's package, system python.
py=/usr/bin/python3
if ! "$py" -c 'import numpy' 2>/dev/null; then
	if [ "$(id -u)" = 0 ]; then
		apt-get install -y python3-numpy >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y python3-numpy >/dev/null; }
	else
		echo "bench: python3-numpy is missing (apt-get install python3-numpy); numpy columns stay empty" >&2
	fi
fi

if [ ! -f build-bench/build.ninja ]; then
	meson setup build-bench -Dbuildtype=debugoptimized >/dev/null
fi
ninja -C build-bench >/dev/null

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

echo "# kdsl benchmark"
echo
echo "Machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores;" \
	"L1d $(lscpu | sed -n 's/^L1d cache: *//p'), L2 $(lscpu | sed -n 's/^L2 cache: *//p')," \
	"L3 $(lscpu | sed -n 's/^L3 cache: *//p'); $(cc --version | head -1)."
echo "Vector extensions the CPU has: $(grep -o -w 'sse2\|avx2\|avx512f\|avx512bw' /proc/cpuinfo | sort -u | tr '\n' ' ')"
echo
echo "## Hot ops"
echo
if "$py" -c 'import numpy' 2>/dev/null; then
	# OPENBLAS_* slow a current numpy down; unset here only (see the env notes).
	env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE "$py" bench/numpy_ops.py $quick > "$out/numpy.txt" 2> "$out/numpy.err" || true
	cat "$out/numpy.err"
	echo
fi
build-bench/bench/kdsl-bench --numpy "$out/numpy.txt" $quick

if [ -n "$compile" ]; then
	echo
	echo "## Compile speed"
	echo
	if [ -n "$quick" ]; then sizes=10000,100000; else sizes=10000,100000,1000000; fi
	python3 bench/compile_speed.py build-bench/driver/kdslc runtime --sizes "$sizes" --cc-max "$ccmax"
fi

echo
echo "## Whole kernels, -O0 against -O1 (kdslc run --repeat $repeat, $procs processes each)"
echo
echo "| kernel | -O0 median ns | -O0 range | -O1 median ns | -O1 range | -O0 time / -O1 time | outputs |"
echo "|---|---:|---:|---:|---:|---:|---|"
# One process's median (the largest, if the file has several kernels).
kernel_ns() {
	build-bench/driver/kdslc run "$1" "$2" --quiet --repeat "$repeat" --out "$3" |
		sed -n 's/.*median \([0-9]*\) ns.*/\1/p' | sort -n | tail -1
}
# The median of a list of numbers, and "min-max".
median() { tr ' ' '\n' | grep . | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
range() { tr ' ' '\n' | grep . | sort -n | awk 'NR == 1 { lo = $1 } { hi = $1 } END { print lo "-" hi }'; }
for k in $kernels; do
	mkdir -p "$out/o0" "$out/o1"
	rm -f "$out"/o0/* "$out"/o1/*
	# A process's median moves with where its memory lands (up to ~1.8x for
	# the row gather's -O1 on this VM), so each level runs in several
	# processes, alternating, and the median of their medians is shown.
	l0= l1=
	i=0
	while [ $i -lt "$procs" ]; do
		l0="$l0 $(kernel_ns "$k" -O0 "$out/o0")"
		l1="$l1 $(kernel_ns "$k" -O1 "$out/o1")"
		i=$((i + 1))
	done
	t0=$(echo "$l0" | median)
	t1=$(echo "$l1" | median)
	same=identical
	for f in "$out"/o0/*.npy; do
		cmp -s "$f" "$out/o1/$(basename "$f")" || same=DIFFERENT
	done
	ratio=$(awk -v a="$t0" -v b="$t1" 'BEGIN { if (b > 0) printf "%.2fx", a / b; else print "-" }')
	echo "| $k | $t0 | $(echo "$l0" | range) | $t1 | $(echo "$l1" | range) | $ratio | $same |"
done
