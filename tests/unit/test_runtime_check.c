/* test_runtime_check.c: the runtime's uninitialised-read checker
 * (KDSL_CHECK_UNINIT, runtime/check.c) through the public API: turning it
 * on (kdsl_rt_set_check, KDSL_CHECK), what a kernel start forgets (also
 * past the 255 starts where the shadow's epoch wraps), the inline fast
 * paths deferring to the library, the messages with and without a
 * kernel's buffer table, and the ops' reads and writes at the edges
 * (masked elements, predicated copies, kdsl_rt_check_mark). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "kdsl_rt.h"
#include "../check_run.h"

static const kdsl_site site = {"t.k", 3, 5, "op"};

static kdsl_rt *ascend_rt(void)
{
	kdsl_rt *rt = kdsl_rt_create(KDSL_TARGET_ASCEND);
	ck_assert_ptr_nonnull(rt);
	ck_assert_int_eq(kdsl_rt_set_check(rt, KDSL_CHECK_UNINIT), KDSL_OK);
	return rt;
}

static kdsl_ref ub_ref(kdsl_rt *rt, size_t off, size_t bytes)
{
	return kdsl_ref_of(kdsl_rt_mem(rt, KDSL_MEM_UB, NULL) + off, bytes, KDSL_MEM_UB);
}

static kdsl_cref ub_cref(kdsl_rt *rt, size_t off, size_t bytes)
{
	return kdsl_cref_of(kdsl_rt_mem(rt, KDSL_MEM_UB, NULL) + off, bytes, KDSL_MEM_UB);
}

/* data_move of `blocks` 32-byte blocks from ub byte so to gm g. */
static int ub_to_gm(kdsl_rt *rt, unsigned char *g, size_t so, int64_t blocks)
{
	return kdsl_ascend_data_move(rt, &site, kdsl_ref_of(g, 1024, KDSL_MEM_GM), 0,
	                             ub_cref(rt, so, (size_t)blocks * 32), 0, 0, 1, blocks, 0, 0);
}

static int gm_to_ub(kdsl_rt *rt, const unsigned char *g, size_t dofs, int64_t blocks)
{
	return kdsl_ascend_data_move(rt, &site, ub_ref(rt, dofs, (size_t)blocks * 32), 0,
	                             kdsl_cref_of(g, 1024, KDSL_MEM_GM), 0, 0, 1, blocks, 0, 0);
}

START_TEST(set_check_api)
{
	kdsl_rt *rt = kdsl_rt_create(KDSL_TARGET_ASCEND);

	ck_assert_int_eq(kdsl_rt_set_check(NULL, KDSL_CHECK_UNINIT), KDSL_ERR_ARG);
	ck_assert_uint_eq(kdsl_rt_check(NULL), 0);
	ck_assert_uint_eq(kdsl_rt_check(rt), KDSL_CHECK_NONE);
	ck_assert_int_eq(kdsl_rt_set_check(rt, 0x6), KDSL_ERR_ARG);
	ck_assert_str_eq(kdsl_rt_last_error(rt), "unknown check bits 0x6");
	ck_assert_uint_eq(kdsl_rt_check(rt), KDSL_CHECK_NONE);
	ck_assert_int_eq(kdsl_rt_set_check(rt, KDSL_CHECK_UNINIT), KDSL_OK);
	ck_assert_uint_eq(kdsl_rt_check(rt), KDSL_CHECK_UNINIT);
	ck_assert_int_eq(kdsl_rt_set_check(rt, KDSL_CHECK_NONE), KDSL_OK);
	ck_assert_uint_eq(kdsl_rt_check(rt), KDSL_CHECK_NONE);
	ck_assert_int_eq(kdsl_rt_check_mark(NULL, KDSL_MEM_UB, 0, 1), KDSL_ERR_ARG);
	/* neither a runtime without aipu's memories nor NULL crash */
	kdsl_rt_check_start(NULL);
	kdsl_rt_check_buffers(NULL, NULL, 0);
	kdsl_rt_destroy(rt);
	rt = kdsl_rt_create(KDSL_TARGET_AIPU);
	ck_assert_int_eq(kdsl_rt_set_check(rt, KDSL_CHECK_UNINIT), KDSL_OK);
	ck_assert_int_eq(kdsl_rt_check_mark(rt, KDSL_MEM_UB, 0, 1), KDSL_ERR_ARG);
	ck_assert_int_eq(kdsl_rt_try_enter(rt, KDSL_TARGET_AIPU), 1);
	kdsl_rt_destroy(rt);
}
END_TEST

/* KDSL_CHECK=uninit turns the check on at creation; other words do not
 * (they are named on stderr), and "none" or "" is off. */
START_TEST(environment)
{
	static const struct { const char *val; unsigned on; } cases[] = {
		{"uninit", KDSL_CHECK_UNINIT}, {"none,uninit", KDSL_CHECK_UNINIT}, {"uninit,", KDSL_CHECK_UNINIT},
		{"", 0}, {"none", 0}, {"uninitialised", 0}, {"UNINIT", 0},
	};
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		kdsl_rt *rt;
		ck_assert_int_eq(setenv("KDSL_CHECK", cases[i].val, 1), 0);
		rt = kdsl_rt_create(KDSL_TARGET_NEURON);
		ck_assert_ptr_nonnull(rt);
		ck_assert_msg(kdsl_rt_check(rt) == cases[i].on, "KDSL_CHECK=%s", cases[i].val);
		ck_assert_str_eq(kdsl_rt_last_error(rt), "");
		kdsl_rt_destroy(rt);
	}
	unsetenv("KDSL_CHECK");
}
END_TEST

/* A read of unwritten ub fails and writes nothing; a write makes the
 * same read pass; with the check off the garbage is read silently. */
START_TEST(ascend_read_write)
{
	kdsl_rt *rt = ascend_rt();
	unsigned char g[1024], out[1024];

	memset(g, 7, sizeof g);
	memset(out, 1, sizeof out);
	ck_assert_int_eq(ub_to_gm(rt, out, 64, 2), KDSL_ERR_UNINIT);
	ck_assert_str_eq(kdsl_rt_last_error(rt), "t.k:3:5: op: src reads unwritten ub: byte 0 of the tensor at ub "
	                                         "byte 64 (ub byte 64) was not written since the kernel started");
	ck_assert_uint_eq(out[0], 1);   /* nothing written */
	ck_assert_int_eq(gm_to_ub(rt, g, 64, 1), KDSL_OK);
	/* the second block is still unwritten: byte 32 of the operand */
	ck_assert_int_eq(ub_to_gm(rt, out, 64, 2), KDSL_ERR_UNINIT);
	ck_assert_ptr_nonnull(strstr(kdsl_rt_last_error(rt), "byte 32 of the tensor at ub byte 64 (ub byte 96)"));
	ck_assert_int_eq(gm_to_ub(rt, g, 96, 1), KDSL_OK);
	ck_assert_int_eq(ub_to_gm(rt, out, 64, 2), KDSL_OK);
	ck_assert_uint_eq(out[63], 7);
	/* bytes the embedder wrote itself, once said so */
	ck_assert_int_eq(ub_to_gm(rt, out, 512, 1), KDSL_ERR_UNINIT);
	ck_assert_int_eq(kdsl_rt_check_mark(rt, KDSL_MEM_UB, 512, 32), KDSL_OK);
	ck_assert_int_eq(ub_to_gm(rt, out, 512, 1), KDSL_OK);
	ck_assert_int_eq(kdsl_rt_check_mark(rt, KDSL_MEM_UB, KDSL_ASCEND_UB_BYTES, 1), KDSL_ERR_ARG);
	ck_assert_int_eq(kdsl_rt_check_mark(rt, KDSL_MEM_UB, 1, (size_t)-1), KDSL_ERR_ARG);
	ck_assert_int_eq(kdsl_rt_check_mark(rt, KDSL_MEM_SBUF, 0, 1), KDSL_ERR_ARG);
	/* an operand named ub that is not in the runtime's ub is refused
	 * before the check looks at it (the runtime's operand rule) */
	{
		static unsigned char host[256];
		ck_assert_int_eq(kdsl_ascend_data_move(rt, &site, kdsl_ref_of(out, 1024, KDSL_MEM_GM), 0,
		                                       kdsl_cref_of(host, 256, KDSL_MEM_UB), 0, 0, 1, 8, 0, 0),
		                 KDSL_ERR_ARG);
		ck_assert_int_eq(kdsl_ascend_data_move(rt, &site, kdsl_ref_of(host, 256, KDSL_MEM_UB), 0,
		                                       kdsl_cref_of(g, 1024, KDSL_MEM_GM), 0, 0, 1, 8, 0, 0),
		                 KDSL_ERR_ARG);
	}
	/* off: the garbage is read */
	ck_assert_int_eq(kdsl_rt_set_check(rt, 0), KDSL_OK);
	ck_assert_int_eq(ub_to_gm(rt, out, 2048, 1), KDSL_OK);
	/* on again: every earlier write forgotten */
	ck_assert_int_eq(kdsl_rt_set_check(rt, KDSL_CHECK_UNINIT), KDSL_OK);
	ck_assert_int_eq(ub_to_gm(rt, out, 64, 1), KDSL_ERR_UNINIT);
	kdsl_rt_destroy(rt);
}
END_TEST

/* Each kernel start forgets every write, also across the epoch's wrap
 * (every 255 starts the shadow is cleared): 600 kernels, each writing a
 * block and reading it back, then reading the previous kernel's block. */
START_TEST(kernel_start_forgets)
{
	kdsl_rt *rt = ascend_rt();
	unsigned char g[1024] = {0}, out[1024];
	int i;

	for (i = 0; i < 600; i++) {
		ck_assert_int_eq(kdsl_rt_try_enter(rt, KDSL_TARGET_ASCEND), 1);
		if (i)
			ck_assert_msg(ub_to_gm(rt, out, 0, 1) == KDSL_ERR_UNINIT, "kernel %d read its predecessor's", i);
		ck_assert_int_eq(gm_to_ub(rt, g, 0, 1), KDSL_OK);
		ck_assert_int_eq(ub_to_gm(rt, out, 0, 1), KDSL_OK);
	}
	kdsl_rt_destroy(rt);
}
END_TEST

/* The inline fast paths take the library's path while a check is on. */
START_TEST(fast_paths_defer)
{
	kdsl_rt *rt = ascend_rt();
	unsigned char out[1024];

	ck_assert_int_eq(kdsl_ascend_data_move_fast(rt, &site, kdsl_ref_of(out, 1024, KDSL_MEM_GM), 0,
	                                            ub_cref(rt, 0, 256), 0, 0, 1, 8, 0, 0), KDSL_ERR_UNINIT);
	/* vec_dup's memset path marks what it writes */
	ck_assert_int_eq(kdsl_ascend_vec_dup_fast(rt, &site, KDSL_F32, kdsl_ascend_mask_count(64), ub_ref(rt, 0, 256),
	                                          0, 0.0, 1, 8), KDSL_OK);
	ck_assert_int_eq(kdsl_ascend_data_move_fast(rt, &site, kdsl_ref_of(out, 1024, KDSL_MEM_GM), 0,
	                                            ub_cref(rt, 0, 256), 0, 0, 1, 8, 0, 0), KDSL_OK);
	kdsl_rt_destroy(rt);
}
END_TEST

/* vec_add reads only its mask's elements of src0 and src1 and writes
 * only dst's: a bitwise mask of the even elements over sources whose
 * even elements alone were written passes, and dst's odd elements stay
 * unwritten. */
START_TEST(vec_masks_exact)
{
	kdsl_rt *rt = ascend_rt();
	kdsl_ascend_mask even = kdsl_ascend_mask_bits(0, 0x5555555555555555ull);
	unsigned char out[1024];
	int rc;

	/* f32: 64 elements a repeat; the even ones of src0 (0) and src1 (256) */
	ck_assert_int_eq(kdsl_ascend_vec_dup(rt, &site, KDSL_F32, even, ub_ref(rt, 0, 512), 0, 1.0, 2, 8), KDSL_OK);
	rc = kdsl_ascend_vec_add(rt, &site, KDSL_F32, even, ub_ref(rt, 512, 256), 0, ub_cref(rt, 0, 256), 0,
	                         ub_cref(rt, 256, 256), 0, 1, 8, 8, 8);
	ck_assert_int_eq(rc, KDSL_OK);
	/* dst's element 1 (byte 4) was not written */
	ck_assert_int_eq(ub_to_gm(rt, out, 512, 1), KDSL_ERR_UNINIT);
	ck_assert_ptr_nonnull(strstr(kdsl_rt_last_error(rt), "byte 4 of the tensor at ub byte 512"));
	/* all 64: src0's odd elements were never written */
	rc = kdsl_ascend_vec_add(rt, &site, KDSL_F32, kdsl_ascend_mask_count(64), ub_ref(rt, 512, 256), 0,
	                         ub_cref(rt, 0, 256), 0, ub_cref(rt, 256, 256), 0, 1, 8, 8, 8);
	ck_assert_int_eq(rc, KDSL_ERR_UNINIT);
	ck_assert_str_eq(kdsl_rt_last_error(rt), "t.k:3:5: op: src0 reads unwritten ub: byte 4 of the tensor at ub "
	                                         "byte 0 (ub byte 4) was not written since the kernel started");
	kdsl_rt_destroy(rt);
}
END_TEST

static kdsl_tile sbuf_tile(kdsl_rt *rt, size_t addr, int64_t parts, int64_t n)
{
	return kdsl_tile_of(kdsl_rt_mem(rt, KDSL_MEM_SBUF, NULL) + addr, kdsl_rt_partition_stride(rt, KDSL_MEM_SBUF),
	                    (size_t)n * 4, parts, 0, parts, 0, n, KDSL_MEM_SBUF, KDSL_F32);
}

static kdsl_ctile c(kdsl_tile t)
{
	return kdsl_ctile_of(t.base, t.pstride, t.pbytes, t.nparts, t.p0, t.np, t.off, t.n, t.mem, t.dt);
}

/* Partitioned messages, without and with the kernel's buffer table (the
 * table is forgotten at the next kernel start). */
START_TEST(neuron_messages)
{
	kdsl_rt *rt = kdsl_rt_create(KDSL_TARGET_NEURON);
	static const kdsl_buffer bufs[] = {{"a", KDSL_MEM_SBUF, 0, 64, 4}, {"b", KDSL_MEM_SBUF, 64, 64, 4}};
	kdsl_tile a = sbuf_tile(rt, 0, 4, 16), b = sbuf_tile(rt, 64, 4, 16);
	float host[64] = {0};
	kdsl_ctile h = kdsl_ctile_of(host, 64, 64, 4, 0, 4, 0, 16, KDSL_MEM_HBM, KDSL_F32);

	ck_assert_int_eq(kdsl_rt_set_check(rt, KDSL_CHECK_UNINIT), KDSL_OK);
	ck_assert_int_eq(kdsl_neuron_load(rt, &site, a, h), KDSL_OK);
	/* b's partitions 0..1 written, 2..3 not */
	b.np = 2;
	ck_assert_int_eq(kdsl_neuron_memset(rt, &site, b, 1.0), KDSL_OK);
	b.np = 4;
	ck_assert_int_eq(kdsl_neuron_tensor_tensor(rt, &site, a, c(a), c(b), KDSL_ALU_ADD), KDSL_ERR_UNINIT);
	ck_assert_str_eq(kdsl_rt_last_error(rt), "t.k:3:5: op: b reads unwritten sbuf: byte 0 of partition 2 of the tile "
	                                         "at sbuf byte 64 (sbuf partition 2, byte 64) was not written since the "
	                                         "kernel started");
	kdsl_rt_check_buffers(rt, bufs, 2);
	ck_assert_int_eq(kdsl_neuron_tensor_tensor(rt, &site, a, c(a), c(b), KDSL_ALU_ADD), KDSL_ERR_UNINIT);
	ck_assert_str_eq(kdsl_rt_last_error(rt), "t.k:3:5: op: b reads unwritten sbuf: byte 0 of partition 2 of 'b' "
	                                         "(sbuf partition 2, byte 64) was not written since the kernel started");
	ck_assert_int_eq(kdsl_rt_try_enter(rt, KDSL_TARGET_NEURON), 1);
	ck_assert_int_eq(kdsl_neuron_store(rt, &site, kdsl_tile_of(host, 64, 64, 4, 0, 4, 0, 16, KDSL_MEM_HBM,
	                                                           KDSL_F32), c(a)), KDSL_ERR_UNINIT);
	ck_assert_ptr_nonnull(strstr(kdsl_rt_last_error(rt), "of the tile at sbuf byte 0 "));
	kdsl_rt_destroy(rt);
}
END_TEST

/* A predicated copy with reverse_pred writes dst where the predicate is
 * zero and reads src only there. */
START_TEST(predicated_reverse)
{
	kdsl_rt *rt = kdsl_rt_create(KDSL_TARGET_NEURON);
	kdsl_tile d = sbuf_tile(rt, 0, 1, 8), s = sbuf_tile(rt, 64, 1, 8);
	kdsl_tile p = kdsl_tile_of(d.base + 128, d.pstride, 8, 1, 0, 1, 0, 8, KDSL_MEM_SBUF, KDSL_U8);
	kdsl_tile s4 = s, d4 = d;
	unsigned char *pb = p.base;
	float host[8];
	int i;

	ck_assert_int_eq(kdsl_rt_set_check(rt, KDSL_CHECK_UNINIT), KDSL_OK);
	for (i = 0; i < 8; i++)
		pb[i] = (unsigned char)(i >= 4);   /* zero in elements 0..3 */
	ck_assert_int_eq(kdsl_rt_check_mark(rt, KDSL_MEM_SBUF, 128, 8), KDSL_OK);
	s4.n = 4;   /* src elements 0..3 written */
	ck_assert_int_eq(kdsl_neuron_memset(rt, &site, s4, 2.0), KDSL_OK);
	ck_assert_int_eq(kdsl_neuron_tensor_copy_predicated(rt, &site, c(s), 0, d, c(p), 1, 0, 1), KDSL_OK);
	d4.n = 4;
	ck_assert_int_eq(kdsl_neuron_store(rt, &site, kdsl_tile_of(host, 16, 16, 1, 0, 1, 0, 4, KDSL_MEM_HBM,
	                                                           KDSL_F32), c(d4)), KDSL_OK);
	ck_assert(host[3] == 2.0f);
	/* without reverse_pred src's unwritten element 4 is read */
	ck_assert_int_eq(kdsl_neuron_tensor_copy_predicated(rt, &site, c(s), 0, d, c(p), 1, 0, 0), KDSL_ERR_UNINIT);
	ck_assert_ptr_nonnull(strstr(kdsl_rt_last_error(rt), "src reads unwritten sbuf: byte 16 of partition 0"));
	kdsl_rt_destroy(rt);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("runtime-check");
	TCase *tc = tcase_create("uninit");
	unsetenv("KDSL_CHECK");
	tcase_add_test(tc, set_check_api);
	tcase_add_test(tc, environment);
	tcase_add_test(tc, ascend_read_write);
	tcase_add_test(tc, kernel_start_forgets);
	tcase_add_test(tc, fast_paths_defer);
	tcase_add_test(tc, vec_masks_exact);
	tcase_add_test(tc, neuron_messages);
	tcase_add_test(tc, predicated_reverse);
	suite_add_tcase(s, tc);
	return kd_check_run(s);
}
