#!/bin/sh
# bench/run.sh: builds kdsl in build-bench/ and runs the whole benchmark in
# one go, printing markdown; --write-docs also puts the machine line and
# every table into docs/performance.md (between its <!-- bench:KEY -->
# markers, bench/write_docs.py), the text around them staying as written.
#   sh bench/run.sh [--quick] [--no-compile] [--cc-max LINES] [--repeat N]
#                   [--rounds N] [--write-docs] [PATTERN...]
# 1. the runtime's hot ops and the aipu permutations (bench/kdsl-bench)
#    against memcpy, scalar C, the op written by hand and numpy
#    (bench/numpy_ops.py, Debian's python3-numpy, installed when missing),
#    and a plain row copy by the gap between rows (kdsl-bench --row-gaps);
# 2. compile speed on generated kernels (bench/compile_speed.py);
# 3. whole kernels: every examples/*.k kernel and bench/matmul_act.k (or
#    those whose file or name holds a PATTERN), built once at -O0 and at
#    -O1 by `kdslc run --keep`, against numpy doing the same ops
#    (bench/whole_kernels.py) with OpenBLAS (libopenblas0, installed when
#    missing; the BLAS numpy loaded is printed) and libc memcpy. Each
#    round runs, kernel by kernel, one process per level (--repeat calls,
#    their median) and a numpy process for that kernel, back to back; the
#    tables show the median of the rounds and their range, and each ratio
#    as the median of the rounds' own ratios. Outputs are compared: -O0
#    with -O1 and numpy with kdsl, byte for byte (matmul: within 1e-4,
#    numpy's BLAS sums in its own order).
# --quick: smaller sizes, for a check that everything runs.
set -eu
cd "$(dirname "$0")/.."
quick='' compile=1 ccmax=100000000 repeat=300 procs=5 pats='' docs='' fwd=''
usage="usage: sh bench/run.sh [--quick] [--no-compile] [--cc-max LINES] [--repeat N] [--rounds N] [--write-docs] [PATTERN...]"
while [ $# -gt 0 ]; do
	case "$1" in
	--quick) quick=--quick; repeat=30; procs=2 ;;
	--no-compile) compile= ;;
	--cc-max) ccmax=$2; fwd="$fwd $1"; shift ;;
	--repeat) repeat=$2; fwd="$fwd $1"; shift ;;
	--rounds) procs=$2; fwd="$fwd $1"; shift ;;
	--write-docs) docs=1 ;;
	-*) echo "$usage" >&2; exit 2 ;;
	*) pats="$pats $1" ;;
	esac
	case "$1" in --write-docs) ;; *) fwd="$fwd $1" ;; esac
	shift
done
# --write-docs: one run, its output kept, then its blocks into the doc.
if [ -n "$docs" ]; then
	log=$(mktemp)
	# shellcheck disable=SC2086
	sh "$0" $fwd | tee "$log"
	python3 "$(dirname "$0")/write_docs.py" "$(dirname "$0")/../docs/performance.md" "$log"
	rc=$?
	rm -f "$log"
	exit $rc
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

# numpy with OpenBLAS, what a pip-installed numpy uses: Debian's numpy
# takes libblas.so.3 from the alternatives system, which libopenblas0
# points at OpenBLAS once installed (bench only; not a project dependency).
if [ ! -e /usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3 ] && ! ls /usr/lib/*/openblas*/libblas.so.3 >/dev/null 2>&1; then
	if [ "$(id -u)" = 0 ]; then
		apt-get install -y libopenblas0 >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y libopenblas0 >/dev/null; }
	else
		echo "bench: libopenblas0 is missing (apt-get install libopenblas0); numpy uses the reference BLAS" >&2
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
echo "<!-- bench:machine -->"
echo "Machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores;" \
	"L1d $(lscpu | sed -n 's/^L1d cache: *//p'), L2 $(lscpu | sed -n 's/^L2 cache: *//p')," \
	"L3 $(lscpu | sed -n 's/^L3 cache: *//p'); $(cc --version | head -1)."
echo "Vector extensions the CPU has: $(grep -o -w 'sse2\|avx2\|fma\|avx512f\|avx512bw' /proc/cpuinfo | sort -u | tr '\n' ' ')"
# shellcheck disable=SC1091
echo "$(. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME"); $("$py" bench/whole_kernels.py blas 2>/dev/null || echo "no numpy");" \
	"load average at the start: $(cut -d' ' -f1-3 /proc/loadavg); run of $(date -u '+%Y-%m-%d %H:%M UTC')."
echo "<!-- /bench:machine -->"
echo
echo "## Hot ops"
echo
if "$py" -c 'import numpy' 2>/dev/null; then
	# OPENBLAS_* slow a current numpy down; unset here only (see the env notes).
	env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE "$py" bench/numpy_ops.py $quick > "$out/numpy.txt" 2> "$out/numpy.err" || true
	cat "$out/numpy.err"
	echo
fi
echo "<!-- bench:hot-ops -->"
build-bench/bench/kdsl-bench --numpy "$out/numpy.txt" $quick
echo "<!-- /bench:hot-ops -->"
echo
echo "### A row copy by the gap between rows"
echo
echo "<!-- bench:row-gaps -->"
build-bench/bench/kdsl-bench --row-gaps
echo "<!-- /bench:row-gaps -->"

if [ -n "$compile" ]; then
	echo
	echo "## Compile speed"
	echo
	if [ -n "$quick" ]; then sizes=10000,100000; else sizes=10000,100000,1000000; fi
	echo "<!-- bench:compile -->"
	python3 bench/compile_speed.py build-bench/driver/kdslc runtime --sizes "$sizes" --cc-max "$ccmax"
	echo "<!-- /bench:compile -->"
fi

echo
echo "## Whole kernels"
echo
echo "<!-- bench:whole -->"
wk="$out/wk"
mkdir -p "$wk"
"$py" bench/whole_kernels.py args "$wk" > "$wk/all"
if [ -n "$pats" ]; then
	for p in $pats; do grep -F -- "$p" "$wk/all" || true; done | sort -u > "$wk/list"
else
	cp "$wk/all" "$wk/list"
fi
# Build each kernel once per level (the kept program is what `kdslc run`
# runs), compare the outputs of the first run: -O0 with -O1 byte for byte,
# then numpy's with kdsl's.
while read -r name path kern args; do
	for lvl in O0 O1; do
		# shellcheck disable=SC2086
		build-bench/driver/kdslc run "$path" "-$lvl" --kernel "$kern" $args --quiet \
			--keep "$wk/$name/$lvl" --out "$wk/$name/out$lvl" < /dev/null > /dev/null
	done
	same=identical
	for f in "$wk/$name/outO0"/*.npy; do
		cmp -s "$f" "$wk/$name/outO1/$(basename "$f")" || same=DIFFERENT
	done
	# the same C at both levels: any difference in time is the machine's
	csame=differs
	cmp -s "$wk/$name/O0/kernel.c" "$wk/$name/O1/kernel.c" && csame=same
	rm -rf "$wk/$name/out"
	cp -r "$wk/$name/outO1" "$wk/$name/out"
	echo "0 $name same O0=O1:$same" >> "$wk/times"
	echo "0 $name csame $csame" >> "$wk/times"
done < "$wk/list"
"$py" bench/whole_kernels.py check "$wk" > "$wk/check" || true
while read -r name flag; do
	if grep -q "^$name " "$wk/list"; then
		sed -i "s/^0 $name same \(.*\)/0 $name same \1,numpy:$flag/" "$wk/times"
	fi
done < "$wk/check"
# One kernel process's median (the harness's --repeat line).
kernel_ns() {
	"$@" --quiet --repeat "$repeat" < /dev/null | sed -n 's/.*median \([0-9]*\) ns.*/\1/p' | tail -1
}
# kdsl as it runs by default, on one thread (KDSL_THREADS unset); the
# kernels with a matmul also with as many nc_matmul threads as OpenBLAS
# uses for numpy (OPENBLAS_NUM_THREADS, else one per core): "O1tN".
threads=${OPENBLAS_NUM_THREADS:-$(nproc)}
# numpy's process for one kernel (its batches' median).
numpy_round() {
	env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE "$py" bench/whole_kernels.py time $quick "$2" |
		while read -r n rest; do echo "$1 $n numpy $rest"; done >> "$wk/times" || true
}
# A round times each kernel's processes back to back (numpy first in the
# even rounds), so the ratios of a round compare times taken under the
# same load: this VM runs whole-machine slow spells of tens of seconds.
r=1
while [ $r -le "$procs" ]; do
	while read -r name path kern args; do
		if [ $((r % 2)) -eq 0 ]; then numpy_round "$r" "$name"; fi
		for lvl in O0 O1; do
			# shellcheck disable=SC2086
			echo "$r $name $lvl $(kernel_ns env -u KDSL_THREADS "$wk/$name/$lvl/kernel" --kernel "$kern" $args)" >> "$wk/times"
		done
		if grep -q nc_matmul "$path"; then
			# shellcheck disable=SC2086
			echo "$r $name O1tN $(kernel_ns env KDSL_THREADS="$threads" "$wk/$name/O1/kernel" --kernel "$kern" $args)" >> "$wk/times"
		fi
		if [ $((r % 2)) -eq 1 ]; then numpy_round "$r" "$name"; fi
	done < "$wk/list"
	r=$((r + 1))
done
echo "Rounds: $procs. A round runs each kernel's processes back to back: one per kdsl level (its"
echo "median of $repeat calls after one untimed; the harness resets the tensors between calls,"
echo "untimed) and one numpy process (its median of batches of about 1 ms), numpy first in the"
echo "even rounds. Times are the median of the rounds, \"rounds\" the range of the rounds' figures."
echo "Ratios are time / time, paired: the median of the rounds' own ratios (their range in"
echo "brackets), since this machine's speed moves from one spell to the next. kdsl ran"
echo "on 1 thread, its default; the kernels with a matmul also ran with KDSL_THREADS=$threads, the"
echo "threads OpenBLAS uses (\"$threads threads\": nc_matmul's columns and exp's rows split; the same rounds, the median)."
echo "\"kdsl at least as fast\" reads the 1-thread column, and for a kernel with a matmul that"
echo "it misses, the $threads-thread one, as numpy's matmuls run on $threads threads (it then says so)."
echo
"$py" bench/whole_kernels.py table "$wk/times"
echo "<!-- /bench:whole -->"
