#!/bin/sh
# roundtrip.sh KDSLC OUTDIR FILE.k...: every kernel file compiles, except
# the error tests listed in REJECTS below, and for each one that does,
#  1. --emit=ir (at -O0 and -O1) read back with -x ir prints the same bytes;
#  2. C emitted from the -O0 IR equals C emitted from the source, except
#     for what names the input file: the header comment, #line directives
#     and the file:line:col of run-time error sites (they point into the
#     .kir), and typedefs of vector types only dead values had (dce drops
#     such values' instructions, not their type, before --emit=ir).
# A file is rejected only if it is listed: a kernel that stops compiling
# is a failure, not a skip, and so is a listed file that compiles, dies
# of a signal or exits 1 without an error message, or a listed name no
# argument matches (the list cannot go stale).  Prints one line per
# failure and then the counts, which roundtrip.test pins; exits 1 if
# there was any failure.
K=$1; T=$2; shift 2
mkdir -p "$T"

# Files that are not valid kernels on purpose (the diagnostics tests and
# the frontend dumps, which stop at the AST or the tokens), relative to
# the repository's root.
REJECTS='
tests/lit/aipu/arith_errors.k
tests/lit/aipu/bounds.k
tests/lit/aipu/bounds_limits.k
tests/lit/aipu/broadcast.k
tests/lit/aipu/mask_strings_bad.k
tests/lit/aipu/guards.k
tests/lit/aipu/ops.k
tests/lit/aipu/types.k
tests/lit/aipu/stride.k
tests/lit/aipu/gather_rules.k
tests/lit/aipu/lsram.k
tests/lit/ascend/align.k
tests/lit/ascend/bounds.k
tests/lit/ascend/burst_max.k
tests/lit/ascend/capacity.k
tests/lit/ascend/guards.k
tests/lit/ascend/multi_index.k
tests/lit/ascend/dim_index.k
tests/lit/ascend/dtypes.k
tests/lit/ascend/elem.k
tests/lit/ascend/ranges.k
tests/lit/ascend/scoped_capacity.k
tests/lit/ascend/scopes.k
tests/lit/ascend/vec_binary_rules.k
tests/lit/ascend/vec_mask.k
tests/lit/ascend/vec_overlap.k
tests/lit/ascend/vec_rules.k
tests/lit/ascend/vec_unary_rules.k
tests/lit/ascend/vec_conv_rules.k
tests/lit/driver/diag_format.k
tests/lit/frontend/ast-decls.k
tests/lit/frontend/ast-exprs.k
tests/lit/frontend/ast-stmts.k
tests/lit/frontend/err-bytes.k
tests/lit/frontend/err-decl.k
tests/lit/frontend/err-empty.k
tests/lit/frontend/err-lex.k
tests/lit/frontend/err-no-target-const.k
tests/lit/frontend/err-no-target.k
tests/lit/frontend/err-recovery.k
tests/lit/frontend/err-resync.k
tests/lit/frontend/err-stmt.k
tests/lit/frontend/err-truncated.k
tests/lit/frontend/err-unterminated.k
tests/lit/frontend/nesting.k
tests/lit/frontend/tokens-errors.k
tests/lit/frontend/tokens.k
tests/lit/neuron/bounds_limits.k
tests/lit/neuron/capacity.k
tests/lit/neuron/engine_rules.k
tests/lit/neuron/gather.k
tests/lit/neuron/guards.k
tests/lit/neuron/index_ops.k
tests/lit/neuron/merge_call.k
tests/lit/neuron/mod_alloc.k
tests/lit/neuron/move_convert.k
tests/lit/neuron/ops.k
tests/lit/neuron/predicated.k
tests/lit/neuron/reduce_scalar_rules.k
tests/lit/neuron/shuffle.k
tests/lit/neuron/slice_overflow.k
tests/lit/neuron/transpose.k
tests/lit/neuron/views.k
tests/lit/neuron/views_bounds.k
tests/lit/sema/all_errors_one_run_aipu.k
tests/lit/sema/did_you_mean.k
tests/lit/sema/all_errors_one_run_ascend.k
tests/lit/sema/elem_other_targets.k
tests/lit/sema/all_errors_one_run_neuron.k
tests/lit/sema/file.k
tests/lit/sema/names.k
tests/lit/sema/one_sema_error.k
tests/lit/sema/ops.k
tests/lit/sema/tensor_too_large.k
tests/lit/sema/types.k
'

fail=0; n=0; nrej=0; seen=' '
strip() {
	tail -n +2 "$1" | grep -v -e '^#line' -e '^typedef' |
		sed 's/{"[^"]*", [0-9]*, [0-9]*,/{SITE,/'
}
# listed FILE: is FILE in REJECTS?  Sets $entry to the matching line.
listed() {
	p=$(realpath "$1")
	for entry in $REJECTS; do
		case $p in */"$entry") return 0 ;; esac
	done
	return 1
}
for f in "$@"; do
	if listed "$f"; then
		seen="$seen$entry "
		"$K" "$f" -O0 --emit=ir > /dev/null 2> "$T/err"
		rc=$?
		if [ $rc -ne 1 ] || ! grep -q 'error:' "$T/err"; then
			echo "FAIL: $f is listed as rejected, but kdslc exits $rc:"; head -3 "$T/err"; fail=1
		else
			nrej=$((nrej + 1))
		fi
		continue
	fi
	for O in -O0 -O1; do
		if ! "$K" "$f" $O --emit=ir > "$T/a.kir" 2> "$T/err"; then
			echo "FAIL: $f $O: kdslc rejects it (an error test belongs in roundtrip.sh's REJECTS):"
			head -3 "$T/err"; fail=1; continue
		fi
		n=$((n + 1))
		if ! "$K" -x ir "$T/a.kir" -O0 --emit=ir > "$T/b.kir" 2> "$T/err"; then
			echo "FAIL: $f $O: IR does not read back:"; head -3 "$T/err"; fail=1; continue
		fi
		cmp -s "$T/a.kir" "$T/b.kir" || { echo "FAIL: $f $O: IR differs after reading back"; fail=1; }
		[ $O = -O0 ] || continue
		"$K" "$f" -O0 -o "$T/a.c" 2>/dev/null && "$K" -x ir "$T/a.kir" -O0 -o "$T/b.c" 2>/dev/null || {
			echo "FAIL: $f: no C"; fail=1; continue; }
		strip "$T/a.c" > "$T/a2.c"; strip "$T/b.c" > "$T/b2.c"
		cmp -s "$T/a2.c" "$T/b2.c" || { echo "FAIL: $f: C from IR differs from C from source"; fail=1; }
	done
done
for entry in $REJECTS; do
	case $seen in *" $entry "*) ;; *)
		echo "FAIL: $entry is listed in REJECTS but was not among the files"; fail=1 ;;
	esac
done
echo "round-tripped $n IR files"
echo "rejected $nrej error tests"
exit $fail
