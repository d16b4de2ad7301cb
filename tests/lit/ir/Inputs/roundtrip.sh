#!/bin/sh
# roundtrip.sh KDSLC OUTDIR FILE.k...: for every kernel file that compiles,
#  1. --emit=ir (at -O0 and -O1) read back with -x ir prints the same bytes;
#  2. C emitted from the -O0 IR equals C emitted from the source, except
#     for what names the input file: the header comment, #line directives
#     and the file:line:col of run-time error sites (they point into the
#     .kir), and typedefs of vector types only dead values had (dce drops
#     such values' instructions, not their type, before --emit=ir).
# Prints one line per failure; exits 1 if there was any.
K=$1; T=$2; shift 2
mkdir -p "$T"
fail=0; n=0
strip() {
	tail -n +2 "$1" | grep -v -e '^#line' -e '^typedef' |
		sed 's/{"[^"]*", [0-9]*, [0-9]*,/{SITE,/'
}
for f in "$@"; do
	for O in -O0 -O1; do
		"$K" "$f" $O --emit=ir > "$T/a.kir" 2>/dev/null || continue
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
echo "round-tripped $n IR files"
exit $fail
