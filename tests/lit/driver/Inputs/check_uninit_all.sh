#!/bin/sh
# check_uninit_all.sh KDSLC LEVEL TMPDIR FILE.k...: runs every kernel of every
# file under `kdslc run --check-uninit` at optimisation LEVEL (-O0 keeps
# the moves -O1 drops, so it reads more) with inputs the harness fills
# (iota for every tensor, scalars from ARGS below), and expects each run
# to succeed: a kernel of the examples or the e2e tests that reads
# on-chip memory it did not write is a finding.  Prints one line per
# failure, then the count of files run, which the test pins.
K=$1; O=$2; T=$3; shift 3
# what runs is the runtime's checker, not gcc's optimiser: compile the
# generated C at -O0 (twice as many compiles as examples, the test's time)
CFLAGS=${CFLAGS:--O0}
export CFLAGS
n=0; bad=0
for f in "$@"; do
	# scalars that make a file's kernels run (the harness gives 0
	# otherwise): runtime_checks.k tests run-time errors, which these
	# values avoid
	case "$f" in
	*/runtime_checks.k) args="--arg k=0 --arg n=2 --arg d=1" ;;
	*) args="" ;;
	esac
	# every tensor parameter iota (predicates and masks then select some
	# elements and not others), but for a name that is a scalar of
	# another kernel of the file
	"$K" "$f" --emit=ir 2>/dev/null | sed -n 's/^func @[^(]*(\(.*\)).*/\1/p' |
		sed 's/\[[^]]*\]//g' | tr ',' '\n' > "$T/params"
	for p in $(sed -n 's/^ *%\([A-Za-z_][A-Za-z0-9_]*\): *\(gm\|hbm\) .*/\1/p' "$T/params" | sort -u); do
		grep -q "^ *%$p: *[a-z0-9]* *$" "$T/params" || args="$args --arg $p=iota"
	done
	# shellcheck disable=SC2086
	if ! "$K" run "$f" $O --check-uninit --quiet $args 2>"$T/err" >/dev/null; then
		echo "FAIL: $f $O: $(grep -v warning "$T/err" | head -1)"
		bad=$((bad + 1))
	fi
	n=$((n + 1))
done
echo "ran $n files at $O under --check-uninit, $bad failed"
[ "$bad" = 0 ]
