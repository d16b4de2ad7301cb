/* kdsl_bench.c: the benchmark program (bench/run.sh runs it).
 * usage: kdsl-bench [--numpy FILE] [--quick] [--perms | --shuffle | --pred | --engine | --transpose | --mem]
 *        kdsl-bench --row-gaps
 * Prints one markdown table: each hot op of the runtime, then the aipu
 * permutations, with memcpy, scalar-loop, by-hand and numpy
 * baselines measured in the same run; --row-gaps prints instead the
 * table of bench_gaps.c (a row copy by the gap between rows). */
#include <stdio.h>
#include <string.h>

#include "bench.h"

int main(int argc, char **argv)
{
	kdsl_rt *ascend, *neuron;
	int i, quick = 0, gaps = 0, perms_only = 0, shuffle_only = 0, pred_only = 0, engine_only = 0, transpose_only = 0, mem_only = 0;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--numpy") && i + 1 < argc) {
			bench_numpy_load(argv[++i]);
		} else if (!strcmp(argv[i], "--quick")) {
			quick = 1;
		} else if (!strcmp(argv[i], "--perms")) {
			/* only the aipu permutation rows: the quick loop when working on the emitter */
			perms_only = 1;
		} else if (!strcmp(argv[i], "--shuffle")) {
			/* only the nc_stream_shuffle rows: the quick loop when working on the shuffle */
			shuffle_only = 1;
		} else if (!strcmp(argv[i], "--pred")) {
			/* only the tensor_copy_predicated rows */
			pred_only = 1;
		} else if (!strcmp(argv[i], "--transpose")) {
			/* only the strided-load transpose row */
			transpose_only = 1;
		} else if (!strcmp(argv[i], "--mem")) {
			/* only the aipu strided and gathered load rows */
			mem_only = 1;
		} else if (!strcmp(argv[i], "--row-gaps")) {
			gaps = 1;
		} else if (!strcmp(argv[i], "--engine")) {
			/* only the engine op rows: the quick loop when working on neuron_engine.c */
			engine_only = 1;
		} else {
			fprintf(stderr, "usage: kdsl-bench [--numpy FILE] [--quick] [--perms | --shuffle | --pred | --engine | "
			        "--transpose | --mem]\n       kdsl-bench --row-gaps\n");
			return 2;
		}
	}
	ascend = kdsl_rt_create(KDSL_TARGET_ASCEND);
	neuron = kdsl_rt_create(KDSL_TARGET_NEURON);
	if (!ascend || !neuron) {
		fprintf(stderr, "kdsl-bench: cannot create the runtimes\n");
		return 2;
	}
	if (gaps) {
		bench_row_gaps(neuron);
		kdsl_rt_destroy(ascend);
		kdsl_rt_destroy(neuron);
		return 0;
	}
	printf("Times are medians of %d repetitions; spread = (max - min) / median of kdsl's.\n"
	       "Ratios are speed-ups of kdsl over the baseline (baseline time / kdsl time);\n"
	       "the by-hand column is kdsl time / time of the op written by hand.\n\n", BENCH_REPS);
	bench_print_header();
	if (shuffle_only) {
		bench_rt_shuffles(neuron, quick);
	} else if (pred_only) {
		bench_predicated(neuron, quick);
	} else if (transpose_only) {
		bench_transpose(neuron);
	} else if (mem_only) {
		bench_mem(quick);
	} else {
		if (!perms_only && !engine_only)
			bench_rt_ops(ascend, neuron, quick);
		if (!perms_only)
			bench_engine(neuron, quick);
		if (!engine_only)
			bench_perms(quick);
		if (!perms_only && !engine_only)
			bench_mem(quick);
	}
	kdsl_rt_destroy(ascend);
	kdsl_rt_destroy(neuron);
	return 0;
}
