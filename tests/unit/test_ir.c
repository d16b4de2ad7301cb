/* test_ir.c: building IR by hand, the verifier (its typing rules of pure
 * aipu ops under --verify-each among them), the affine range analysis
 * behind the rule checker and its narrowing by guards, dead-value
 * removal and the printer. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "guards.h"
#include "ir.h"
#include "pass.h"
#include "rules.h"
#include "types_aipu.h"
#include "verify.h"
#include "diag_sink.h"
#include "../check_run.h"

static KdArena *A;
static KdSource src;
static KdDiag diag;
static FILE *sink;

static void setup(void)
{
	A = kd_arena_new();
	kd_source_from_string(&src, A, "t.k", "target ascend;\n", 15);
	sink = tmpfile();
	kd_diag_init(&diag, &src, sink);
}

static void teardown(void)
{
	fclose(sink);
	kd_arena_free(A);
}

/* for i in lo..hi step s { use(i * k + c) }: returns the use's value id. */
static int loop_fn(KdFunc **out, int64_t lo, int64_t hi, int64_t step, int64_t k, int64_t c)
{
	KdSpan sp = {0, 1};
	KdFunc *f = kd_func_new(A, "f", KD_TARGET_ASCEND, sp);
	int entry = kd_block_new(A, f, "entry");
	int head = kd_block_new(A, f, "head");
	int body = kd_block_new(A, f, "body");
	int exit = kd_block_new(A, f, "exit");
	int vlo = kd_val_const(A, f, lo), vhi = kd_val_const(A, f, hi);
	int j = kd_ins_add(A, f, entry, OP_JMP, 0, NULL, NULL, sp);
	kd_ins_succ(A, f, j, 0, head, 1, &vlo);
	int iv = kd_block_param(A, f, head, VT_INT, KD_I64, "i");
	KdLoop *l = kd_alloc(A, sizeof *l);
	*l = (KdLoop){iv, vlo, vhi, step, sp};
	f->blk[head]->loop = l;
	int cargs[2] = {iv, vhi};
	int cmp = kd_ins_add(A, f, head, OP_LT, 2, cargs, NULL, sp);
	int cv = kd_ins_result(A, f, cmp, VT_BOOL, KD_BOOL, -1, NULL);
	int br = kd_ins_add(A, f, head, OP_BR, 1, &cv, NULL, sp);
	kd_ins_succ(A, f, br, 0, body, 0, NULL);
	kd_ins_succ(A, f, br, 1, exit, 0, NULL);
	int margs[2] = {iv, kd_val_const(A, f, k)};
	int mul = kd_ins_add(A, f, body, OP_MUL, 2, margs, NULL, sp);
	int mv = kd_ins_result(A, f, mul, VT_INT, KD_I64, -1, NULL);
	int aargs[2] = {mv, kd_val_const(A, f, c)};
	int add = kd_ins_add(A, f, body, OP_ADD, 2, aargs, NULL, sp);
	int use = kd_ins_result(A, f, add, VT_INT, KD_I64, -1, NULL);
	int nargs[2] = {iv, kd_val_const(A, f, step)};
	int nx = kd_ins_add(A, f, body, OP_ADD, 2, nargs, NULL, sp);
	int nv = kd_ins_result(A, f, nx, VT_INT, KD_I64, -1, NULL);
	int back = kd_ins_add(A, f, body, OP_JMP, 0, NULL, NULL, sp);
	kd_ins_succ(A, f, back, 0, head, 1, &nv);
	kd_ins_add(A, f, exit, OP_RET, 0, NULL, NULL, sp);
	*out = f;
	return use;
}

static KdModule *module_of(KdFunc *f)
{
	KdModule *m = kd_alloc(A, sizeof *m);
	m->target = KD_TARGET_ASCEND;
	m->src = &src;
	m->arena = A;
	kd_module_add(A, m, f);
	return m;
}

START_TEST(well_formed_loop_verifies)
{
	KdFunc *f;
	loop_fn(&f, 0, 10, 1, 4, 3);
	ck_assert_int_eq(kd_ir_verify(&diag, module_of(f)), 0);
	ck_assert_int_eq(diag.nerror, 0);
}
END_TEST

START_TEST(affine_range_over_loop)
{
	KdFunc *f;
	int v = loop_fn(&f, 2, 11, 3, 4, 5);   /* i = 2, 5, 8: 4i+5 = 13, 25, 37 */
	KdCheck c = {.d = &diag, .m = module_of(f), .f = f, .a = A};
	KdRange r = kd_range_of(&c, v);
	ck_assert(r.known);
	ck_assert_int_eq(r.lo, 13);
	ck_assert_int_eq(r.hi, 37);
	ck_assert_int_eq(r.mod, 12);
	ck_assert_int_eq(r.rem, 1);
	KdRange b = kd_range_scale(r, 2, 0);
	ck_assert_int_eq(b.lo, 26);
	ck_assert_int_eq(b.hi, 74);
	ck_assert_int_eq(b.mod, 24);
}
END_TEST

START_TEST(negative_coefficient_range)
{
	KdFunc *f;
	int v = loop_fn(&f, 0, 4, 1, -8, 100);   /* 100, 92, 84, 76 */
	KdCheck c = {.d = &diag, .m = module_of(f), .f = f, .a = A};
	KdRange r = kd_range_of(&c, v);
	ck_assert(r.known);
	ck_assert_int_eq(r.lo, 76);
	ck_assert_int_eq(r.hi, 100);
}
END_TEST

/* The loop's header block in loop_fn. */
enum { LOOP_HEAD = 1 };

START_TEST(guard_narrows_the_trips)
{
	KdFunc *f;
	int v = loop_fn(&f, 0, 10, 1, 4, 3);   /* 4i+3 over i in 0..9 */
	KdGuardSet g = {.nguard = 1, .n = 1, .t = {{.blk = LOOP_HEAD, .lo = 2, .hi = 5}}};
	KdCheck c = {.d = &diag, .m = module_of(f), .f = f, .a = A, .guard = &g};
	KdRange r = kd_range_of(&c, v);   /* i in 2..5: 11, 15, 19, 23 */
	ck_assert(r.known);
	ck_assert_int_eq(r.lo, 11);
	ck_assert_int_eq(r.hi, 23);
	ck_assert_int_eq(r.mod, 4);
	ck_assert_int_eq(r.rem, 3);
	g.t[0].lo = g.t[0].hi = 7;           /* i == 7: one value */
	r = kd_range_of(&c, v);
	ck_assert(r.known);
	ck_assert_int_eq(r.lo, 31);
	ck_assert_int_eq(r.hi, 31);
	ck_assert_int_eq(r.mod, 0);
	c.blind = 1;                         /* dead or unreadable: the runtime's */
	ck_assert(!kd_range_of(&c, v).known);
}
END_TEST

START_TEST(guard_holes_keep_exact_strides)
{
	KdFunc *f;
	int v = loop_fn(&f, 0, 3, 1, 8, 0);    /* 8i over i in 0..2 */
	KdGuardSet g = {.nguard = 1, .n = 1, .t = {{.blk = LOOP_HEAD, .lo = 0, .hi = 2, .nhole = 1, .hole = {1}}}};
	KdCheck c = {.d = &diag, .m = module_of(f), .f = f, .a = A, .guard = &g};
	KdRange r = kd_range_of(&c, v);        /* i != 1: 0 and 16 */
	ck_assert(r.known);
	ck_assert_int_eq(r.lo, 0);
	ck_assert_int_eq(r.hi, 16);
	ck_assert_int_eq(r.mod, 16);
	KdTrips t = {.lo = 0, .hi = 4, .nhole = 2, .hole = {1, 3}};
	ck_assert_int_eq(kd_trips_step(&t), 2);   /* 0, 2, 4 */
	t = (KdTrips){.lo = 0, .hi = 3, .nhole = 2, .hole = {1, 2}};
	ck_assert_int_eq(kd_trips_step(&t), 3);   /* 0, 3 */
	t = (KdTrips){.lo = 0, .hi = 20, .nhole = 1, .hole = {5}};
	ck_assert_int_eq(kd_trips_step(&t), 1);   /* neighbours remain */
	t = (KdTrips){.lo = 4, .hi = 4};
	ck_assert_int_eq(kd_trips_step(&t), 0);   /* one trip */
}
END_TEST

START_TEST(runtime_value_is_unknown)
{
	KdSpan sp = {0, 1};
	KdFunc *f = kd_func_new(A, "g", KD_TARGET_ASCEND, sp);
	kd_block_new(A, f, "entry");
	int p = kd_val_new(A, f, (KdVal){.kind = VK_PARAM, .type = VT_INT, .dt = KD_I32, .buf = -1});
	KdCheck c = {.d = &diag, .f = f, .a = A};
	ck_assert(!kd_range_of(&c, p).known);
	int k = kd_val_const(A, f, 42);
	KdRange r = kd_range_of(&c, k);
	ck_assert(r.known && r.lo == 42 && r.hi == 42 && r.mod == 0);
}
END_TEST

START_TEST(verifier_catches_bad_ir)
{
	KdSpan sp = {0, 1};
	KdFunc *f = kd_func_new(A, "bad", KD_TARGET_ASCEND, sp);
	int entry = kd_block_new(A, f, "entry");
	int other = kd_block_new(A, f, "other");
	kd_block_param(A, f, other, VT_INT, KD_I64, "x");
	/* a jump that passes no argument to a block with one parameter */
	int j = kd_ins_add(A, f, entry, OP_JMP, 0, NULL, NULL, sp);
	kd_ins_succ(A, f, j, 0, other, 0, NULL);
	/* a block with no terminator */
	int args[2] = {kd_val_const(A, f, 1), kd_val_const(A, f, 2)};
	int add = kd_ins_add(A, f, other, OP_ADD, 2, args, NULL, sp);
	kd_ins_result(A, f, add, VT_INT, KD_I64, -1, NULL);
	ck_assert_int_eq(kd_ir_verify(&diag, module_of(f)), 2);
}
END_TEST

START_TEST(use_before_definition_is_caught)
{
	KdSpan sp = {0, 1};
	KdFunc *f = kd_func_new(A, "order", KD_TARGET_ASCEND, sp);
	int entry = kd_block_new(A, f, "entry");
	int one = kd_val_const(A, f, 1);
	/* %b = add %a, 1 comes before %a = add 1, 1 */
	int first = kd_ins_add(A, f, entry, OP_ADD, 2, (int[]){one, one}, NULL, sp);
	int second = kd_ins_add(A, f, entry, OP_ADD, 2, (int[]){one, one}, NULL, sp);
	int a = kd_ins_result(A, f, second, VT_INT, KD_I64, -1, NULL);
	f->ins[first].args[0] = a;
	kd_ins_result(A, f, first, VT_INT, KD_I64, -1, NULL);
	kd_ins_add(A, f, entry, OP_RET, 0, NULL, NULL, sp);
	ck_assert_int_eq(kd_ir_verify(&diag, module_of(f)), 1);
}
END_TEST

START_TEST(dce_removes_unused_values)
{
	KdFunc *f;
	loop_fn(&f, 0, 10, 1, 4, 3);   /* the mul/add chain is used by nothing */
	KdModule *m = module_of(f);
	int before = f->blk[2]->nins;
	kd_ir_dce(m);
	ck_assert_int_eq(f->blk[2]->nins, before - 2);
	ck_assert_int_eq(kd_ir_verify(&diag, m), 0);
	KdBuf b = {0};
	kd_ir_print(&b, m);
	ck_assert_ptr_nonnull(strstr(b.s, "func @f() {"));
	ck_assert_ptr_nonnull(strstr(b.s, "loop %"));
	ck_assert_ptr_null(strstr(b.s, "mul"));
	kd_buf_free(&b);
}
END_TEST

/* What the diagnostics said so far. */
static const char *diag_text(void)
{
	return kd_sink_text(sink);
}

/* Appends op to f's block 0 with a result of type i32xLANES (lanes 0: none). */
static int vop(KdFunc *f, KdOp op, int nargs, const int *args, int lanes)
{
	KdSpan sp = {0, 1};
	int i = kd_ins_add(A, f, 0, op, nargs, args, NULL, sp);
	if (!lanes)
		return -1;
	int r = kd_ins_result(A, f, i, VT_VEC, KD_I32, -1, NULL);
	f->val[r].lanes = lanes;
	return r;
}

typedef struct {
	KdFunc *f;
	int x, c, s, revs;   /* the values %x, %c, %s and the vrevs instruction */
} AipuFn;

/* The aipu kernel k(src: gm i32[64], dst: gm i32[64]), as lowering makes it:
 *   %x = vload src[0] : i32x8
 *   %c = vconcat %x, %x, all : i32x16
 *   %s = vsplit %c, 1 : i32x8
 *   %r = vrevs %s : i32x8
 *   vstore dst[0], %r */
static AipuFn aipu_fn(void)
{
	KdSpan sp = {0, 1};
	AipuFn a;
	KdFunc *f = a.f = kd_func_new(A, "k", KD_TARGET_AIPU, sp);
	kd_block_new(A, f, "entry");
	int bufs[2];
	for (int i = 0; i < 2; i++) {
		KdBuffer b = {.name = i ? "dst" : "src", .space = KD_SP_GM, .dt = KD_I32, .rank = 1,
		              .dims = {64}, .nelem = 64, .bytes = 256, .param = i, .written = i, .span = sp};
		bufs[i] = kd_buf_new(A, f, b);
	}
	int view[2], zero = kd_val_const(A, f, 0);
	for (int i = 0; i < 2; i++) {
		int v = kd_ins_add(A, f, 0, OP_VIEW, 1, &zero, NULL, sp);
		view[i] = kd_ins_result(A, f, v, VT_REF, KD_I32, bufs[i], NULL);
	}
	a.x = vop(f, OP_VLOAD, 1, &view[0], 8);
	a.c = vop(f, OP_VCONCAT, 3, (int[]){a.x, a.x, kd_val_const(A, f, KD_AIPU_PART_ALL)}, 16);
	a.s = vop(f, OP_VSPLIT, 2, (int[]){a.c, kd_val_const(A, f, 1)}, 8);
	int r = vop(f, OP_VREVS, 1, &a.s, 8);
	a.revs = f->val[r].def;
	vop(f, OP_VSTORE, 2, (int[]){view[1], r}, 0);
	kd_ins_add(A, f, 0, OP_RET, 0, NULL, NULL, sp);
	return a;
}

static KdModule *aipu_module(KdFunc *f)
{
	KdModule *m = module_of(f);
	m->target = KD_TARGET_AIPU;
	return m;
}

START_TEST(aipu_ir_verifies)
{
	AipuFn a = aipu_fn();
	ck_assert_int_eq(kd_ir_verify(&diag, aipu_module(a.f)), 0);
}
END_TEST

/* canon's vsplit(vconcat(x, y), i) = x or y, done wrong: the vsplit's
 * user gets the 16-lane concatenation.  The pure vrevs is checked too. */
START_TEST(verifier_catches_a_broken_lane_count)
{
	AipuFn a = aipu_fn();
	a.f->ins[a.revs].args[0] = a.c;
	ck_assert_int_eq(kd_ir_verify(&diag, aipu_module(a.f)), 1);
	ck_assert_ptr_nonnull(strstr(diag_text(), "internal compiler error: invalid IR in 'k': "
	                                          "vrevs: operand 1 has 16 lanes, the result 8"));
}
END_TEST

/* A permutation a pass makes with the wrong result type: vconcat's "all"
 * of two 8-lane vectors given 8 lanes (and so vsplit's part 1 is gone). */
START_TEST(verifier_catches_a_wrong_result_type)
{
	AipuFn a = aipu_fn();
	a.f->val[a.c].lanes = 8;
	ck_assert_int_eq(kd_ir_verify(&diag, aipu_module(a.f)), 2);
	ck_assert_ptr_nonnull(strstr(diag_text(), "vconcat: operands of 8 and 8 lanes give 16 lanes, not 8"));
	ck_assert_ptr_nonnull(strstr(diag_text(), "vsplit: part must be a constant 0..0"));
}
END_TEST

/* --verify-each: canon's permutation algebra on the kernel above passes
 * the verifier after every pass (vrevs now reads %x); IR with a broken
 * lane count does not, and the pass manager names the pass after which
 * it was found.  A pass that makes no rewrite promises the IR it was
 * given, which the verifiers passed, and is not verified again: the
 * broken IR goes through a dce with nothing to remove, then is found
 * after one that removes a dead vrevs. */
START_TEST(verify_each_checks_pure_ops)
{
	AipuFn a = aipu_fn();
	KdModule *m = aipu_module(a.f);
	KdPassOptions o = {.passes = "canon,dce", .verify_each = 1};
	ck_assert_int_eq(kd_run_passes(&diag, m, &o), 0);
	ck_assert_int_eq(a.f->ins[a.revs].args[0], a.x);
	ck_assert_int_eq(diag.nerror, 0);
	a.f->val[a.x].lanes = 16;
	o.passes = "dce";
	ck_assert_int_eq(kd_run_passes(&diag, m, &o), 0);
	ck_assert_int_eq(diag.nerror, 0);
	int dead = a.f->val[vop(a.f, OP_VREVS, 1, &a.x, 16)].def;
	kd_ins_move_to(a.f, 0, dead, 0);
	ck_assert_int_eq(kd_run_passes(&diag, m, &o), 1);
	ck_assert_ptr_nonnull(strstr(diag_text(), "vrevs: operand 1 has 16 lanes, the result 8"));
	ck_assert_ptr_nonnull(strstr(diag_text(), "pass 'dce' produced IR the verifier rejects"));
}
END_TEST

/* A pass that removes the dead vrevs of the kernel above but says it
 * made no rewrite (the promise the verifier skip trusts), and one that
 * keeps it. */
static int lying_pass(KdModule *m)
{
	KdFunc *f = m->fn[0];
	KdBlock *b = f->blk[0];
	kd_ins_unlink(f, b->insv[0]);
	return 0;
}

static int honest_pass(KdModule *m)
{
	(void)m;
	return 0;
}

/* --verify-each holds a pass to its count: IR changed under a count of
 * 0 is an internal error naming the pass; without the option the count
 * is trusted; an honest 0 passes. */
START_TEST(verify_each_checks_the_rewrite_count)
{
	AipuFn a = aipu_fn();
	KdModule *m = aipu_module(a.f);
	int dead = a.f->val[vop(a.f, OP_VREVS, 1, &a.x, 8)].def;
	kd_ins_move_to(a.f, 0, dead, 0);
	KdPass honest = {"honest", "", honest_pass, 0}, lying = {"lying", "", lying_pass, 0};
	KdPassOptions o = {.verify_each = 1};
	ck_assert_int_eq(kd_run_pass(&diag, m, &honest, &o), 0);
	ck_assert_int_eq(diag.nerror, 0);
	ck_assert_int_eq(kd_run_pass(&diag, m, &lying, &o), 1);
	ck_assert_ptr_nonnull(strstr(diag_text(), "internal compiler error: pass 'lying' changed the IR but "
	                                          "reported no rewrite"));
	o.verify_each = 0;
	int errors = diag.nerror;
	ck_assert_int_eq(kd_run_pass(&diag, m, &lying, &o), 0);
	ck_assert_int_eq(diag.nerror, errors);
}
END_TEST

/* Every generic and aipu op has its typing rules in the table, and the
 * vector dtypes sema and the verifier share are the ones the aipu ops
 * list. */
START_TEST(every_op_has_a_verify_hook)
{
	for (int i = 0; i < KD_NOP; i++)
		if (kd_ops[i].target == KD_TARGET_NONE || kd_ops[i].target == KD_TARGET_AIPU)
			ck_assert_msg(kd_ops[i].verify != NULL, "op %s", kd_ops[i].name);
	ck_assert_uint_eq(kd_ops[OP_VLOAD].dtypes, KD_AIPU_DTYPES);
	ck_assert_uint_eq(kd_ops[OP_VCONCAT].dtypes, KD_AIPU_DTYPES);
}
END_TEST

/* An op given to a typing hook that has no case for it (a table entry
 * pointing at the wrong hook: here data_move at the generic ops' hook) is
 * an internal error, not an instruction passed unchecked. */
START_TEST(op_without_typing_rule_is_internal_error)
{
	KdSpan sp = {0, 1};
	KdFunc *f = kd_func_new(A, "k", KD_TARGET_ASCEND, sp);
	kd_block_new(A, f, "entry");
	int one = kd_val_const(A, f, 1);
	int mv = kd_ins_add(A, f, 0, OP_DATA_MOVE, 1, &one, NULL, sp);
	KdVerify v = {.d = &diag, .f = f, .a = A, .skip = -1};
	kd_verify_core(&v, &f->ins[mv]);
	ck_assert_int_eq(v.nerr, 1);
	ck_assert_ptr_nonnull(strstr(diag_text(), "internal compiler error: op 'data_move' has no typing rule"));
}
END_TEST

START_TEST(op_table_is_consistent)
{
	const KdOpDesc *d = kd_op_lookup(KD_TARGET_ASCEND, "data_move");
	ck_assert_ptr_nonnull(d);
	ck_assert_int_eq(d->nparam, DATA_MOVE_NPARAM);
	ck_assert_int_eq(kd_op_param_index(d, "burst"), DATA_MOVE_BURST);
	ck_assert_int_eq(d->param[DATA_MOVE_BURST].lo, 1);
	ck_assert_int_eq(d->param[DATA_MOVE_BURST].hi, 65535);
	ck_assert_ptr_null(kd_op_lookup(KD_TARGET_NEURON, "data_move"));
	ck_assert_ptr_null(kd_op_lookup(KD_TARGET_ASCEND, "add"));
	/* every callable op has a runtime entry, a doc and a cost; the aipu
	 * ops are emitted inline as vector C (backend/aipu/emit_aipu.c)
	 * instead, except dma_copy, which the runtime does (runtime/aipu.c) */
	for (int i = 0; i < KD_NOP; i++)
		if (kd_ops[i].target != KD_TARGET_NONE) {
			if (kd_ops[i].target == KD_TARGET_AIPU && i != OP_DMA_COPY)
				ck_assert_ptr_null(kd_ops[i].rt);
			else
				ck_assert_ptr_nonnull(kd_ops[i].rt);
			ck_assert_ptr_nonnull(kd_ops[i].doc);
			ck_assert(kd_ops[i].cost != NULL);
		}
	/* memory effects: an accumulating matmul reads the dst it overwrites */
	const KdOpDesc *mm = &kd_ops[OP_NC_MATMUL];
	ck_assert(kd_param_writes(mm, NC_MATMUL_DST) && !kd_param_reads(mm, NC_MATMUL_DST));
	ck_assert_int_eq(kd_param_rmw_if(mm, NC_MATMUL_DST), NC_MATMUL_ACCUMULATE);
	ck_assert(kd_param_reads(mm, NC_MATMUL_MOVING) && !kd_param_writes(mm, NC_MATMUL_MOVING));
	ck_assert_int_eq(kd_param_rmw_if(&kd_ops[OP_DATA_MOVE], DATA_MOVE_DST), -1);
}
END_TEST

/* Every entry has what its kind needs: kdslc checks this at its start. */
START_TEST(op_table_entries_are_complete)
{
	ck_assert_int_eq(kd_op_table_check(&diag), 0);
	ck_assert_int_eq(diag.nerror, 0);
	for (int i = 0; i < KD_NOP; i++) {
		ck_assert_ptr_nonnull(kd_ops[i].name);
		ck_assert(kd_ops[i].kind == OK_PURE || kd_ops[i].kind == OK_TERM || kd_ops[i].kind == OK_EFFECT);
		if (kd_ops[i].target != KD_TARGET_NONE)
			ck_assert(kd_ops[i].doc && kd_ops[i].rules && kd_ops[i].seed && kd_ops[i].cost &&
			          kd_ops[i].cost_doc);
	}
}
END_TEST

/* What a .def entry that forgets its fields looks like to the check. */
START_TEST(op_table_check_catches_missing_fields)
{
	KdOpDesc o = {.name = "half_done", .target = KD_TARGET_NEURON, .nparam = 3,
	              .param = {{.name = "dst", .kind = PK_TENSOR}, {.name = "n", .kind = PK_INT}}};
	/* no kind; no doc, rules, seed or cost; a tensor without its memory
	 * effect; a third position with no entry */
	ck_assert_int_eq(kd_op_desc_check(&diag, &o), 4);
	o.kind = OK_EFFECT;
	o.doc = o.rules = o.seed = "x";
	o.cost = kd_ops[OP_MEMSET].cost;
	o.cost_doc = "1 cycle";
	o.param[0].mem = KD_MEM_OVERWRITE;
	o.param[2] = (KdOpParam){.name = "k", .kind = PK_INT, .flags = PF_RANGE, .lo = 1, .hi = 0};
	ck_assert_int_eq(kd_op_desc_check(&diag, &o), 1);   /* the empty range */
	o.param[2].hi = 1;
	ck_assert_int_eq(kd_op_desc_check(&diag, &o), 0);
	o.cost_doc = NULL;                  /* a cost without its formula */
	ck_assert_int_eq(kd_op_desc_check(&diag, &o), 1);
	o.cost_doc = "1 cycle";
	o.param[0].mem = KD_MEM_READ;       /* an effect op that writes nothing */
	ck_assert_int_eq(kd_op_desc_check(&diag, &o), 1);
	rewind(sink);
	char line[256] = "";
	ck_assert_ptr_nonnull(fgets(line, sizeof line, sink));
	ck_assert_ptr_nonnull(strstr(line, "internal error: op table: half_done: no kind"));
}
END_TEST

/* The operand positions name the parameters they index: each .def's
 * position list, spelled in capitals, is its parameter names in order. */
#define KD_OP(name, params, ...) {OP_##name, #params},
#define KD_LOWERED(name, args)
static const struct {
	KdOp op;
	const char *params;
} positions[] = {
#include "ascend/ops_ascend.def"
#include "neuron/ops_neuron.def"
#include "aipu/ops_aipu.def"
};
#undef KD_OP
#undef KD_LOWERED

START_TEST(operand_positions_match_the_parameters)
{
	int n = (int)(sizeof positions / sizeof positions[0]);
	ck_assert_int_gt(n, 20);
	for (int i = 0; i < n; i++) {
		const KdOpDesc *d = &kd_ops[positions[i].op];
		char want[256] = "(";
		for (int k = 0; k < d->nparam; k++) {
			size_t at = strlen(want);
			if (k)
				at += (size_t)snprintf(want + at, sizeof want - at, ", ");
			for (const char *c = d->param[k].name; *c && at + 2 < sizeof want; c++)
				want[at++] = (char)(*c >= 'a' && *c <= 'z' ? *c - 32 : *c);
			want[at] = 0;
		}
		strcat(want, ")");
		/* the .def may wrap a long list: compare without the layout */
		char got[256];
		size_t g = 0;
		for (const char *c = positions[i].params; *c && g + 1 < sizeof got; c++)
			if (*c != '\n' && *c != '\t' && !(*c == ' ' && c[-1] == ' '))
				got[g++] = *c;
		got[g] = 0;
		ck_assert_str_eq(got, want);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ir");
	TCase *tc = tcase_create("ir");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, well_formed_loop_verifies);
	tcase_add_test(tc, affine_range_over_loop);
	tcase_add_test(tc, negative_coefficient_range);
	tcase_add_test(tc, guard_narrows_the_trips);
	tcase_add_test(tc, guard_holes_keep_exact_strides);
	tcase_add_test(tc, runtime_value_is_unknown);
	tcase_add_test(tc, verifier_catches_bad_ir);
	tcase_add_test(tc, use_before_definition_is_caught);
	tcase_add_test(tc, dce_removes_unused_values);
	tcase_add_test(tc, op_table_is_consistent);
	tcase_add_test(tc, aipu_ir_verifies);
	tcase_add_test(tc, verifier_catches_a_broken_lane_count);
	tcase_add_test(tc, verifier_catches_a_wrong_result_type);
	tcase_add_test(tc, verify_each_checks_pure_ops);
	tcase_add_test(tc, verify_each_checks_the_rewrite_count);
	tcase_add_test(tc, every_op_has_a_verify_hook);
	tcase_add_test(tc, op_without_typing_rule_is_internal_error);
	tcase_add_test(tc, op_table_entries_are_complete);
	tcase_add_test(tc, op_table_check_catches_missing_fields);
	tcase_add_test(tc, operand_positions_match_the_parameters);
	suite_add_tcase(s, tc);
	return kd_check_run(s);
}
