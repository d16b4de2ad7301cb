/* rules_neuron.c: the rules of the neuron ops beyond the op table's spaces:
 * tile bounds, shapes, dtypes, nc_stream_shuffle's start partitions and
 * mask (seed 000), tensor_copy_predicated's operands (seed 002), and the
 * cost models.  Tile views are ranges over the loop nest (rules.h), so a
 * view that leaves its tile at any iteration is a compile-time error. */
#include "rules.h"
#include "tile.h"

/* A string operand lowers to its index here: the runtime's op code. */
#define STR(code, s) [code] = s,
const char *const kd_neuron_alu_ops[KDSL_NALU + 1] = {KDSL_ALU_LIST(STR) [KDSL_NALU] = NULL};
const char *const kd_neuron_act_funcs[KDSL_NACT + 1] = {KDSL_ACT_LIST(STR) [KDSL_NACT] = NULL};
const char *const kd_neuron_cmp_ops[KDSL_NCMP + 1] = {KDSL_CMP_LIST(STR) [KDSL_NCMP] = NULL};
/* tensor_scalar's op1: the ALU ops and, at KDSL_ALU_BYPASS, what its
 * default None lowers to */
const char *const kd_neuron_alu_ops_opt[KDSL_NALU + 2] = {KDSL_ALU_LIST(STR) [KDSL_ALU_BYPASS] = "bypass",
                                                          [KDSL_NALU + 1] = NULL};
#undef STR

typedef struct {
	const KdBuffer *b;
	const KdIns *v;       /* the tile instruction */
	KdRange blk, p0, off;
	int64_t np, nf;
	KdTileAp ap;          /* nd 0: the contiguous form */
} Tile;

const KdIns *kd_tile_ins(const KdFunc *f, const KdIns *ins, int i)
{
	const KdVal *x = &f->val[ins->args[i]];
	if (x->type != VT_REF || x->kind != VK_INS || f->ins[x->def].op != OP_TILE)
		return NULL;
	return &f->ins[x->def];
}

static int tile_of(KdCheck *c, const KdIns *ins, int i, Tile *t)
{
	const KdFunc *f = c->f;
	t->v = kd_tile_ins(f, ins, i);
	if (!t->v)
		return 0;
	t->b = &f->buf[f->val[ins->args[i]].buf];
	t->blk = kd_range_of(c, t->v->args[TA_BLOCK]);
	t->p0 = kd_range_of(c, t->v->args[TA_PSTART]);
	t->off = kd_range_of(c, t->v->args[TA_FOFF]);
	t->np = f->val[t->v->args[TA_NPART]].c;
	t->nf = f->val[t->v->args[TA_NFREE]].c;
	kd_tile_ap(f, t->v, &t->ap);
	return 1;
}

/* A strided view inside its tensor: on chip its partitions and, in each,
 * the pattern's reach; in hbm its first element inside the tensor and its
 * last (from the largest start) inside it too.  Every byte it touches lies
 * between those. */
static int inside_ap(KdCheck *c, const KdIns *ins, int i, const Tile *t)
{
	const char *pn = kd_ops[ins->op].param[i].name, *bn = t->b->name;
	const KdTileInfo *ti = t->b->tile;
	int64_t span = kd_tile_ap_span(&t->ap, t->nf);
	int hbm = kd_spaces[t->b->space].external;
	char sp[48];
	if (t->p0.known && (t->p0.lo < 0 || t->p0.hi > ti->nparts - (hbm ? 1 : t->np))) {
		kd_span_str(sp, t->p0.lo < 0 ? t->p0.lo : t->p0.hi, hbm ? 1 : t->np);
		kd_check_error_at(c, ins, t->v->argspan[TA_PSTART], "%s: partitions %s are outside '%s', which has %lld",
		                  pn, sp, bn, (long long)ti->nparts);
		return 0;
	}
	if (t->off.known && (t->off.lo < 0 || t->off.hi > ti->nfree - 1 - (hbm ? 0 : span))) {
		kd_span_str(sp, t->off.lo < 0 ? t->off.lo : t->off.hi, hbm ? 1 : span + 1);
		kd_check_error_at(c, ins, t->v->argspan[TA_FOFF],
		                  "%s: elements %s of each partition are outside '%s', which has %lld per partition",
		                  pn, sp, bn, (long long)ti->nfree);
		return 0;
	}
	/* hbm: all within 2^40 (the verifier's and sema's limits), so no overflow */
	if (hbm && t->p0.known && t->off.known &&
	    t->p0.hi * ti->nfree + t->off.hi + (t->np - 1) * t->ap.pstep + span >= ti->nparts * ti->nfree) {
		kd_check_error_at(c, ins, t->v->argspan[TA_PSTART],
		                  "%s: the strided view reaches element %lld of '%s', which has %lld elements", pn,
		                  (long long)(t->p0.hi * ti->nfree + t->off.hi + (t->np - 1) * t->ap.pstep + span), bn,
		                  (long long)(ti->nparts * ti->nfree));
		return 0;
	}
	return 1;
}


/* The view inside its tensor for every value over the loop nest. */
static int inside(KdCheck *c, const KdIns *ins, int i, const Tile *t)
{
	const char *pn = kd_ops[ins->op].param[i].name, *bn = t->b->name;
	const KdTileInfo *ti = t->b->tile;
	int ok = 1;
	if (t->blk.known && ti->nbdim && (t->blk.lo < 0 || t->blk.hi >= ti->nblocks)) {
		kd_check_error_at(c, ins, t->v->argspan[TA_BLOCK], "%s: block index of '%s' must be in 0..%lld, got %lld",
		                  pn, bn, (long long)(ti->nblocks - 1),
		                  (long long)(t->blk.lo < 0 ? t->blk.lo : t->blk.hi));
		ok = 0;
	}
	if (t->ap.nd)
		return inside_ap(c, ins, i, t) && ok;
	char sp[48];
	if (t->p0.known && (t->p0.lo < 0 || t->p0.hi > ti->nparts - t->np)) {
		kd_span_str(sp, t->p0.lo < 0 ? t->p0.lo : t->p0.hi, t->np);
		kd_check_error_at(c, ins, t->v->argspan[TA_PSTART], "%s: partitions %s are outside '%s', which has %lld",
		                  pn, sp, bn, (long long)ti->nparts);
		ok = 0;
	}
	if (t->off.known && (t->off.lo < 0 || t->off.hi > ti->nfree - t->nf)) {
		kd_span_str(sp, t->off.lo < 0 ? t->off.lo : t->off.hi, t->nf);
		kd_check_error_at(c, ins, t->v->argspan[TA_FOFF],
		                  "%s: elements %s of each partition are outside '%s', which has %lld per partition",
		                  pn, sp, bn, (long long)ti->nfree);
		ok = 0;
	}
	return ok;
}

static void same_shape(KdCheck *c, const KdIns *ins, int i, const Tile *t, const Tile *ref, int j)
{
	const char *pn = kd_ops[ins->op].param[i].name, *rn = kd_ops[ins->op].param[j].name;
	if (t->np != ref->np)
		kd_check_error(c, ins, i, "%s must occupy the same number of partitions as %s, got %lld and %lld",
		               pn, rn, (long long)t->np, (long long)ref->np);
	else if (t->nf != ref->nf)
		kd_check_error(c, ins, i, "%s must have the same number of elements per partition as %s, got %lld and %lld",
		               pn, rn, (long long)t->nf, (long long)ref->nf);
}

static void same_dtype(KdCheck *c, const KdIns *ins, int i, const Tile *t, const Tile *ref, int j)
{
	if (t->b->dt != ref->b->dt)
		kd_check_error(c, ins, i, "%s must have the same dtype as %s, got %s and %s",
		               kd_ops[ins->op].param[i].name, kd_ops[ins->op].param[j].name,
		               kd_dtypes[t->b->dt].name, kd_dtypes[ref->b->dt].name);
}

/* The operand the op writes (its dst), from the op table. */
static int dst_of(const KdIns *ins)
{
	const KdOpDesc *d = &kd_ops[ins->op];
	for (int i = 0; i < d->nparam; i++)
		if (kd_param_writes(d, i))
			return i;
	return 0;
}

/* Tile operands: bounds, and the same shape as dst (the shape ops take
 * it first). */
static int tiles(KdCheck *c, const KdIns *ins, Tile *t, int shape)
{
	int n = 0, dst = dst_of(ins);
	for (int i = 0; i < ins->nargs; i++) {
		if (!tile_of(c, ins, i, &t[i]))
			continue;
		inside(c, ins, i, &t[i]);
		if (shape && i > dst)
			same_shape(c, ins, i, &t[i], &t[dst], dst);
		n++;
	}
	return n;
}

void kd_check_neuron_one(KdCheck *c, const KdIns *ins)
{
	Tile t[KD_MAXPARAM];
	tiles(c, ins, t, 0);
}

void kd_check_neuron_shape(KdCheck *c, const KdIns *ins)
{
	Tile t[KD_MAXPARAM];
	tiles(c, ins, t, 1);
}

/* tensor_tensor: the shape rules, and at most one input from psum (the
 * engine reads one psum operand per instruction; NKI tensor_tensor). */
void kd_check_neuron_tensor_tensor(KdCheck *c, const KdIns *ins)
{
	Tile t[KD_MAXPARAM];
	tiles(c, ins, t, 1);
	const KdBuffer *a = t[TENSOR_TENSOR_A].b, *b = t[TENSOR_TENSOR_B].b;
	if (a->space == KD_SP_PSUM && b->space == KD_SP_PSUM)
		kd_check_error(c, ins, TENSOR_TENSOR_B, "a and b must not both be in psum ('%s' and '%s')", a->name,
		               b->name);
}

/* load and store */
_Static_assert(KD_SAME_POS(LOAD_DST, STORE_DST) && KD_SAME_POS(LOAD_SRC, STORE_SRC),
               "load and store take (dst, src)");

/* A per-partition operand (LANGUAGE.md 7): a number, or a [P, 1] tile
 * in sbuf or psum with P dst's partitions. */
static void per_part(KdCheck *c, const KdIns *ins, int i, const Tile *t, const Tile *d)
{
	const char *pn = kd_ops[ins->op].param[i].name;
	if (c->f->val[ins->args[i]].type != VT_REF)
		return;
	if (t->b->space != KD_SP_SBUF && t->b->space != KD_SP_PSUM)
		kd_check_error(c, ins, i, "%s must be in sbuf or psum, got '%s' in %s", pn, t->b->name,
		               kd_spaces[t->b->space].name);
	if (t->np != d->np || t->nf != 1)
		kd_check_error(c, ins, i, "%s must be [%lld, 1] (one value per partition of dst), got [%lld, %lld]",
		               pn, (long long)d->np, (long long)t->np, (long long)t->nf);
}

void kd_check_neuron_tensor_scalar(KdCheck *c, const KdIns *ins)
{
	Tile t[KD_MAXPARAM];
	tiles(c, ins, t, 0);
	same_shape(c, ins, TENSOR_SCALAR_A, &t[TENSOR_SCALAR_A], &t[TENSOR_SCALAR_DST], TENSOR_SCALAR_DST);
	per_part(c, ins, TENSOR_SCALAR_OPERAND0, &t[TENSOR_SCALAR_OPERAND0], &t[TENSOR_SCALAR_DST]);
	per_part(c, ins, TENSOR_SCALAR_OPERAND1, &t[TENSOR_SCALAR_OPERAND1], &t[TENSOR_SCALAR_DST]);
}

void kd_check_neuron_activation(KdCheck *c, const KdIns *ins)
{
	Tile t[KD_MAXPARAM];
	tiles(c, ins, t, 0);
	same_shape(c, ins, ACTIVATION_SRC, &t[ACTIVATION_SRC], &t[ACTIVATION_DST], ACTIVATION_DST);
	per_part(c, ins, ACTIVATION_BIAS, &t[ACTIVATION_BIAS], &t[ACTIVATION_DST]);
	per_part(c, ins, ACTIVATION_SCALE, &t[ACTIVATION_SCALE], &t[ACTIVATION_DST]);
}

/* tensor_reduce: dst [P, 1] for src's P partitions, and one of the four
 * reduction ops (kdsl_hw.h). */
void kd_check_neuron_reduce(KdCheck *c, const KdIns *ins)
{
	Tile t[KD_MAXPARAM];
	tiles(c, ins, t, 0);
	const Tile *d = &t[TENSOR_REDUCE_DST], *s = &t[TENSOR_REDUCE_SRC];
	if (d->np != s->np || d->nf != 1)
		kd_check_error(c, ins, TENSOR_REDUCE_DST, "dst must be [%lld, 1] (the partitions of src), got [%lld, %lld]",
		               (long long)s->np, (long long)d->np, (long long)d->nf);
	int64_t op = 0;
	if (kd_arg_const(c->f, ins, TENSOR_REDUCE_OP, &op) && !kdsl_neuron_reduce_op_ok(op))
		kd_check_error(c, ins, TENSOR_REDUCE_OP, "op must be \"add\", \"max\", \"min\" or \"multiply\", got \"%s\"",
		               kd_neuron_alu_ops[op]);
}

void kd_check_neuron_same(KdCheck *c, const KdIns *ins)
{
	Tile t[KD_MAXPARAM];
	tiles(c, ins, t, 1);
	same_dtype(c, ins, LOAD_SRC, &t[LOAD_SRC], &t[LOAD_DST], LOAD_DST);
}

void kd_check_neuron_matmul(KdCheck *c, const KdIns *ins)
{
	Tile t[KD_MAXPARAM];
	tiles(c, ins, t, 0);
	const Tile *d = &t[NC_MATMUL_DST], *s = &t[NC_MATMUL_STATIONARY], *m = &t[NC_MATMUL_MOVING];
	if (d->b->dt != KD_F32)
		kd_check_error(c, ins, NC_MATMUL_DST, "dst must be f32 (matmul accumulates in f32), got %s",
		               kd_dtypes[d->b->dt].name);
	/* The Tensor Engine multiplies f32 only by f32 (NKI nc_matmul). */
	if ((s->b->dt == KD_F32) != (m->b->dt == KD_F32))
		kd_check_error(c, ins, s->b->dt == KD_F32 ? NC_MATMUL_MOVING : NC_MATMUL_STATIONARY,
		               "stationary and moving must both be f32 if either is, got %s ('%s') and %s ('%s')",
		               kd_dtypes[s->b->dt].name, s->b->name, kd_dtypes[m->b->dt].name, m->b->name);
	if (m->np != s->np)
		kd_check_error(c, ins, NC_MATMUL_MOVING,
		               "moving must have the same partitions K as stationary, got %lld and %lld",
		               (long long)m->np, (long long)s->np);
	if (s->nf > KDSL_NEURON_MATMUL_MAX_M)
		kd_check_error(c, ins, NC_MATMUL_STATIONARY,
		               "M (stationary's elements per partition) must be at most %d, got %lld",
		               KDSL_NEURON_MATMUL_MAX_M, (long long)s->nf);
	if (m->nf > KDSL_NEURON_MATMUL_MAX_N)
		kd_check_error(c, ins, NC_MATMUL_MOVING,
		               "N (moving's elements per partition) must be at most %d, got %lld",
		               KDSL_NEURON_MATMUL_MAX_N, (long long)m->nf);
	if (s->nf <= KDSL_NEURON_MATMUL_MAX_M && m->nf <= KDSL_NEURON_MATMUL_MAX_N &&
	    (d->np != s->nf || d->nf != m->nf))
		kd_check_error(c, ins, NC_MATMUL_DST, "dst must be [M, N] = [%lld, %lld], got [%lld, %lld]", (long long)s->nf,
		               (long long)m->nf, (long long)d->np, (long long)d->nf);
}

/* nc_transpose: src [P, F] becomes dst [F, P]; the Tensor Engine takes
 * src as its stationary operand, hence the 128 bound on both. */
void kd_check_neuron_transpose(KdCheck *c, const KdIns *ins)
{
	Tile t[KD_MAXPARAM];
	tiles(c, ins, t, 0);
	const Tile *d = &t[NC_TRANSPOSE_DST], *s = &t[NC_TRANSPOSE_SRC];
	same_dtype(c, ins, NC_TRANSPOSE_DST, d, s, NC_TRANSPOSE_SRC);
	if (s->nf > KDSL_NEURON_TRANSPOSE_MAX)
		kd_check_error(c, ins, NC_TRANSPOSE_SRC,
		               "F (src's elements per partition) must be at most %d, got %lld",
		               KDSL_NEURON_TRANSPOSE_MAX, (long long)s->nf);
	else if (d->np != s->nf || d->nf != s->np)
		kd_check_error(c, ins, NC_TRANSPOSE_DST, "dst must be [F, P] = [%lld, %lld], got [%lld, %lld]",
		               (long long)s->nf, (long long)s->np, (long long)d->np, (long long)d->nf);
}

/* load_gather and store_scatter: the sbuf side [P, F] and the hbm view
 * [R, F] share F and the dtype, and index is an i32 [P, 1] tile.  The
 * index values are data, so the runtime bounds them by R. */
_Static_assert(KD_SAME_POS(LOAD_GATHER_DST, STORE_SCATTER_DST) && KD_SAME_POS(LOAD_GATHER_SRC, STORE_SCATTER_SRC) &&
                   KD_SAME_POS(LOAD_GATHER_INDEX, STORE_SCATTER_INDEX),
               "load_gather and store_scatter take (dst, src, index)");

void kd_check_neuron_gather(KdCheck *c, const KdIns *ins)
{
	enum { DST = LOAD_GATHER_DST, SRC = LOAD_GATHER_SRC, IDX = LOAD_GATHER_INDEX };
	Tile t[KD_MAXPARAM];
	tiles(c, ins, t, 0);
	int on = ins->op == OP_LOAD_GATHER ? DST : SRC, hbm = on == DST ? SRC : DST;
	const char *onn = kd_ops[ins->op].param[on].name;
	const Tile *x = &t[IDX];
	same_dtype(c, ins, SRC, &t[SRC], &t[DST], DST);
	/* each index names one row, copied as one run (the runtime refuses it too) */
	if (t[hbm].ap.nd)
		kd_check_error(c, ins, hbm, "%s must be a view whose rows are contiguous: %s copies whole rows (no slice "
		               "steps, .T or permute)", kd_ops[ins->op].param[hbm].name, kd_ops[ins->op].name);
	if (t[hbm].nf != t[on].nf)
		kd_check_error(c, ins, hbm, "%s must have as many elements per row as %s per partition, got %lld and %lld",
		               kd_ops[ins->op].param[hbm].name, onn, (long long)t[hbm].nf, (long long)t[on].nf);
	if (x->b->dt != (KdDtype)KDSL_NEURON_INDEX_DTYPE)
		kd_check_error(c, ins, IDX, "index must be %s, got %s", kd_dtypes[KDSL_NEURON_INDEX_DTYPE].name,
		               kd_dtypes[x->b->dt].name);
	if (x->np != t[on].np || x->nf != 1)
		kd_check_error(c, ins, IDX, "index must be [%lld, 1], one row number per partition of %s, got [%lld, %lld]",
		               (long long)t[on].np, onn, (long long)x->np, (long long)x->nf);
}

/* iota: pstep, when written, is an int32 (NKI's channel_multiplier); the
 * absent one is the sentinel the op table gives, outside that range. */
void kd_check_neuron_iota(KdCheck *c, const KdIns *ins)
{
	Tile t[KD_MAXPARAM];
	tiles(c, ins, t, 0);
	KdRange r = kd_range_of(c, ins->args[IOTA_PSTEP]);
	if (!r.known || (r.lo == r.hi && r.lo == KDSL_NEURON_IOTA_PSTEP_DEFAULT))
		return;
	if (!kdsl_neuron_index_ok(r.lo) || !kdsl_neuron_index_ok(r.hi))
		kd_check_error(c, ins, IOTA_PSTEP, "pstep must be an int32 (%d..%d), got %lld", KDSL_NEURON_INDEX_MIN,
		               KDSL_NEURON_INDEX_MAX, (long long)(kdsl_neuron_index_ok(r.lo) ? r.hi : r.lo));
}

/* identity: NKI's shared identity is [n, n]. */
void kd_check_neuron_identity(KdCheck *c, const KdIns *ins)
{
	Tile t[KD_MAXPARAM];
	tiles(c, ins, t, 0);
	const Tile *d = &t[IDENTITY_DST];
	if (d->v && d->np != d->nf)
		kd_check_error(c, ins, IDENTITY_DST, "dst must be square (NKI's identity is [n, n]), got [%lld, %lld]",
		               (long long)d->np, (long long)d->nf);
}

enum { QUAD = KDSL_NEURON_QUADRANT, KEEP = KDSL_NEURON_SHUFFLE_KEEP };

/* The first value of the progression r outside 0..31 and 255, or 0 when
 * there is none (*bad set). */
static int first_bad(KdRange r, int64_t *bad)
{
	int64_t step = r.mod ? r.mod : 1;
	if (r.lo < 0) {
		*bad = r.lo;
		return 1;
	}
	int64_t v = r.lo;
	if (v < QUAD) {
		int64_t k = (QUAD - v + step - 1) / step;
		v += k * step;
	}
	if (!r.mod && r.lo != r.hi)
		return 0;   /* not a progression: cannot happen for known ranges */
	if (v > r.hi)
		return 0;
	if (v == KEEP) {
		if (v + step > r.hi)
			return 0;
		v += step;
	}
	*bad = v;
	return 1;
}

/* Mask entry i, whose values r are all legal (0..31 or 255), reads no
 * partition past src's np, dst having dnp: it serves dst rows i, i + 32,
 * ...; the last of them, with the entry's highest value, reads the highest
 * src partition (as the runtime checks it).  The partition counts are
 * static extents, so this is known whenever the mask is. */
static void mask_inside(KdCheck *c, const KdIns *ins, KdSpan at, int i, KdRange r, int64_t dnp, int64_t snp)
{
	int64_t step = r.mod ? r.mod : 1, top = r.hi < QUAD - 1 ? r.hi : QUAD - 1;
	if (i >= dnp || r.lo > top)
		return;   /* no dst row uses the entry, or it only keeps (255) */
	int64_t v = r.lo + (top - r.lo) / step * step, last = (dnp - 1 - i) / QUAD * QUAD;
	if (last + v >= snp)
		kd_check_error_at(c, ins, at, "shuffle_mask[%d] = %lld reads partition %lld of src, which has %lld",
		                  i, (long long)v, (long long)(last + v), (long long)snp);
}

void kd_check_neuron_shuffle(KdCheck *c, const KdIns *ins)
{
	Tile t[KD_MAXPARAM];
	tiles(c, ins, t, 0);
	enum { DST = NC_STREAM_SHUFFLE_DST, SRC = NC_STREAM_SHUFFLE_SRC, MASK = NC_STREAM_SHUFFLE_SHUFFLE_MASK };
	const Tile *d = &t[DST], *s = &t[SRC];
	same_dtype(c, ins, DST, d, s, SRC);
	/* the shuffle moves whole partition rows (the runtime refuses it too) */
	for (int i = DST; i <= SRC; i++)
		if (t[i].ap.nd) {
			kd_check_error(c, ins, i, "%s must be a contiguous view: nc_stream_shuffle moves whole partition "
			               "rows (no slice steps, .T or permute)", kd_ops[ins->op].param[i].name);
			return;
		}
	if (d->nf != s->nf)
		kd_check_error(c, ins, DST, "dst must have the same number of elements per partition as src, got %lld and %lld",
		               (long long)d->nf, (long long)s->nf);
	int64_t np = d->np > s->np ? d->np : s->np, active = kdsl_neuron_shuffle_active(np);
	static const int ends[] = {DST, SRC};
	for (int k = 0; k < 2; k++) {
		int i = ends[k];
		KdRange r = t[i].p0;
		if (!r.known)
			continue;
		int64_t step = r.mod ? r.mod : 1;
		for (int64_t v = r.lo; v <= r.hi; v += step) {
			if (!kdsl_neuron_shuffle_start_ok(active, v)) {
				kd_check_error_at(c, ins, t[i].v->argspan[TA_PSTART],
				                  "%s start partition must be %s when num_active_partitions is %lld, got %lld",
				                  kd_ops[ins->op].param[i].name, kdsl_neuron_shuffle_starts(active), (long long)active,
				                  (long long)v);
				break;
			}
			if (!r.mod)
				break;
		}
	}
	const KdFunc *f = c->f;
	const KdVal *lv = &f->val[ins->args[MASK]];
	const KdIns *li = &f->ins[lv->def];
	if (li->nargs != QUAD) {
		kd_check_error(c, ins, MASK, "shuffle_mask must have %d entries, got %d", QUAD, li->nargs);
		return;
	}
	for (int i = 0; i < li->nargs; i++) {
		KdRange r = kd_range_of(c, li->args[i]);
		int64_t bad;
		if (!r.known) {
			/* (blind: a guard hides the values, the runtime checks them) */
			if (!c->blind)
				kd_check_error_at(c, ins, li->argspan[i], "shuffle_mask[%d] must be a constant or an affine "
				                  "expression of loop indices with constant bounds", i);
		} else if (first_bad(r, &bad))
			kd_check_error_at(c, ins, li->argspan[i], "shuffle_mask[%d] must be in 0..%d or %d, got %lld", i,
			                  QUAD - 1, KEEP, (long long)bad);
		else
			mask_inside(c, ins, li->argspan[i], i, r, d->np, s->np);
	}
}

/* Seed 002's rules of the predicate, shared by tensor_copy_predicated
 * and the predicated_merge made of it: an unsigned integer dtype, and
 * the predicate and the data operand at src (s; NULL: a scalar src) not
 * both in psum. */
static void predicate_rules(KdCheck *c, const KdIns *ins, int src, const Tile *s, int pred, const Tile *p)
{
	KdDtype pdt = p->b->dt;
	if (!kdsl_neuron_predicate_dtype_ok((kdsl_dtype)pdt))
		kd_check_error(c, ins, pred, "predicate must be u8, u16 or u32, got %s", kd_dtypes[pdt].name);
	if (s && s->b->space == KD_SP_PSUM && p->b->space == KD_SP_PSUM)
		kd_check_error(c, ins, src, "%s and predicate must not both be in psum ('%s' and '%s')",
		               kd_ops[ins->op].param[src].name, s->b->name, p->b->name);
}

void kd_check_neuron_predicated(KdCheck *c, const KdIns *ins)
{
	const KdFunc *f = c->f;
	Tile t[KD_MAXPARAM];
	tiles(c, ins, t, 0);
	enum { SRC = TENSOR_COPY_PREDICATED_SRC, DST = TENSOR_COPY_PREDICATED_DST,
	       PRED = TENSOR_COPY_PREDICATED_PREDICATE, MASK = TENSOR_COPY_PREDICATED_MASK };
	int src_tile = f->val[ins->args[SRC]].type == VT_REF;
	const Tile *s = &t[SRC], *d = &t[DST], *p = &t[PRED];
	predicate_rules(c, ins, SRC, src_tile ? s : NULL, PRED, p);
	same_shape(c, ins, PRED, p, d, DST);
	int64_t dt = 0;
	kd_arg_const(f, ins, TENSOR_COPY_PREDICATED_DTYPE, &dt);
	if (dt && d->b->dt != (KdDtype)dt)
		kd_check_error(c, ins, DST, "dst must have the dtype given by dtype=%s, got %s", kd_dtypes[dt].name,
		               kd_dtypes[d->b->dt].name);
	if (src_tile) {
		if (s->b->space != KD_SP_SBUF && s->b->space != KD_SP_PSUM)
			kd_check_error(c, ins, SRC, "src must be in sbuf or psum, got '%s' in %s", s->b->name,
			               kd_spaces[s->b->space].name);
		same_shape(c, ins, SRC, s, d, DST);
		if (!dt)
			same_dtype(c, ins, SRC, s, d, DST);
	}
	if (f->val[ins->args[MASK]].kind != VK_CONST)
		kd_check_error(c, ins, MASK, "mask must be a compile-time constant");
}

/* predicated_merge (made by fuse-select): the table checks the spaces;
 * every tile has dst's shape (tiles() with shape, dst first), the three
 * data operands one dtype, the predicate an unsigned integer one. */
void kd_check_neuron_merge(KdCheck *c, const KdIns *ins)
{
	Tile t[KD_MAXPARAM];
	enum { DST = PREDICATED_MERGE_DST, ON_TRUE = PREDICATED_MERGE_ON_TRUE, ON_FALSE = PREDICATED_MERGE_ON_FALSE,
	       PRED = PREDICATED_MERGE_PREDICATE };
	if (tiles(c, ins, t, 1) < PRED + 1)
		return;
	predicate_rules(c, ins, ON_TRUE, &t[ON_TRUE], PRED, &t[PRED]);
	same_dtype(c, ins, ON_TRUE, &t[ON_TRUE], &t[DST], DST);
	same_dtype(c, ins, ON_FALSE, &t[ON_FALSE], &t[DST], DST);
}

/* ---- cost models ---- */

static int64_t nfree(const KdFunc *f, const KdIns *ins, int i)
{
	const KdIns *v = kd_tile_ins(f, ins, i);
	return v ? f->val[v->args[TA_NFREE]].c : 1;
}

static int64_t min_ii(int64_t n)
{
	return n > 64 ? n : 64;   /* MIN_II of seed 002: 64 engine cycles */
}

/* DMA: no table on the pages; a documented model of 64 cycles to start and
 * 32 bytes per cycle per partition row (rows move in parallel). */
int64_t kd_cost_neuron_dma(const KdFunc *f, const KdIns *ins)
{
	int dst = dst_of(ins);
	const KdIns *v = kd_tile_ins(f, ins, dst);
	int64_t bytes = v ? f->val[v->args[TA_NFREE]].c * kd_dtypes[f->val[ins->args[dst]].dt].size : 0;
	return 64 + (bytes + 31) / 32;
}

/* store: the DMA's cost, and from psum first the tensor_copy to sbuf that
 * NKI inserts (nl.store: "an extra copy will be performed"), max(MIN_II,
 * N) Vector Engine cycles as tensor_copy's. */
int64_t kd_cost_neuron_store(const KdFunc *f, const KdIns *ins)
{
	const KdVal *s = &f->val[ins->args[STORE_SRC]];
	int64_t dma = kd_cost_neuron_dma(f, ins);
	return f->buf[s->buf].space == KD_SP_PSUM ? min_ii(nfree(f, ins, STORE_SRC)) + dma : dma;
}

/* load_gather and store_scatter: the DMA's model plus reading the index
 * values from SBUF, about 140 cycles by NKI's tensor_copy_dynamic_src
 * page (NKI gives no cost for indirect DMA). */
int64_t kd_cost_neuron_indirect(const KdFunc *f, const KdIns *ins)
{
	enum { INDEX_READ = 140 };
	return INDEX_READ + kd_cost_neuron_dma(f, ins);
}

/* NKI's tensor_copy, tensor_scalar and nc_stream_shuffle pages:
 * max(MIN_II, N), N the elements per partition of the input, which their
 * rules make dst's too. */
int64_t kd_cost_neuron_vec(const KdFunc *f, const KdIns *ins)
{
	return min_ii(nfree(f, ins, dst_of(ins)));
}

/* NKI's activation page: max(MIN_II, N) Scalar Engine cycles, N the
 * elements per partition of src (the rules make it dst's too). */
int64_t kd_cost_neuron_act(const KdFunc *f, const KdIns *ins)
{
	return min_ii(nfree(f, ins, dst_of(ins)));
}

/* tensor_reduce: max(MIN_II, N), N the elements per partition of src
 * (kdsl's model: NKI's page gives no formula; the Vector Engine streams
 * one element per cycle as in its other ops). */
int64_t kd_cost_neuron_reduce(const KdFunc *f, const KdIns *ins)
{
	return min_ii(nfree(f, ins, TENSOR_REDUCE_SRC));
}

/* NKI's iota page: 150 + N GpSimd Engine cycles, N the elements per
 * partition of dst (no MIN_II: the page's fixed start replaces it). */
int64_t kd_cost_neuron_iota(const KdFunc *f, const KdIns *ins)
{
	return 150 + nfree(f, ins, IOTA_DST);
}

/* The GpSimd Engine's index ops (NKI affine_select's page; identity is
 * one affine_select of a constant): 150 + N, N the elements per
 * partition of dst. */
int64_t kd_cost_neuron_gpsimd(const KdFunc *f, const KdIns *ins)
{
	return 150 + nfree(f, ins, dst_of(ins));
}

/* NKI's memset page: max(MIN_II, N/2) when the value is zero and dst is
 * bf16 or f16 (two 16-bit zeros a cycle), else max(MIN_II, N). */
int64_t kd_cost_neuron_memset(const KdFunc *f, const KdIns *ins)
{
	int64_t n = nfree(f, ins, MEMSET_DST);
	const KdVal *v = &f->val[ins->args[MEMSET_VALUE]];
	KdDtype dt = f->val[ins->args[MEMSET_DST]].dt;
	int zero = (v->kind == VK_CONST && v->c == 0) || (v->kind == VK_FCONST && v->f == 0);
	if (zero && (dt == KD_BF16 || dt == KD_F16))
		return min_ii((n + 1) / 2);
	return min_ii(n);
}

/* Whether tensor_tensor's operator (its KDSL_ALU_ code) is one the bf16
 * row of NKI's table names: add, subtract, multiply. */
static int tt_fast_op(const KdVal *op)
{
	return op->kind == VK_CONST &&
	       (op->c == KDSL_ALU_ADD || op->c == KDSL_ALU_SUBTRACT || op->c == KDSL_ALU_MULTIPLY);
}

/* NKI's tensor_tensor table (Vector Engine): max(MIN_II, N) when one input
 * is in psum and the other in sbuf; with both in sbuf max(MIN_II, N) when
 * a, b and dst are all bf16 and op is add, subtract or multiply (the row's
 * last condition, a free-dim stride of one element, always holds: a kdsl
 * tile is one run along the free dim), else max(MIN_II, 2N).  Both in psum
 * is an error. */
int64_t kd_cost_neuron_tensor_tensor(const KdFunc *f, const KdIns *ins)
{
	int64_t n = nfree(f, ins, TENSOR_TENSOR_DST);
	const KdVal *a = &f->val[ins->args[TENSOR_TENSOR_A]], *b = &f->val[ins->args[TENSOR_TENSOR_B]];
	const KdVal *d = &f->val[ins->args[TENSOR_TENSOR_DST]];
	if (f->buf[a->buf].space != KD_SP_SBUF || f->buf[b->buf].space != KD_SP_SBUF)
		return min_ii(n);
	int bf16 = a->dt == KD_BF16 && b->dt == KD_BF16 && d->dt == KD_BF16;
	return bf16 && tt_fast_op(&f->val[ins->args[TENSOR_TENSOR_OP]]) ? min_ii(n) : min_ii(2 * n);
}

/* NKI's nc_matmul page, back-to-back matmuls of one shape:
 * max(min(64, N_stationary), N_moving) Tensor Engine cycles, 4x that for
 * f32 inputs (N_*: elements per partition). */
int64_t kd_cost_neuron_matmul(const KdFunc *f, const KdIns *ins)
{
	int64_t ns = nfree(f, ins, NC_MATMUL_STATIONARY), nm = nfree(f, ins, NC_MATMUL_MOVING);
	int64_t c = ns < 64 ? ns : 64;
	if (nm > c)
		c = nm;
	return f->val[ins->args[NC_MATMUL_MOVING]].dt == KD_F32 ? 4 * c : c;
}

/* NKI's nc_transpose page: max(P, min(64, F)) Tensor Engine cycles for
 * back-to-back transposes of src [P, F]. */
int64_t kd_cost_neuron_transpose(const KdFunc *f, const KdIns *ins)
{
	const KdIns *v = kd_tile_ins(f, ins, NC_TRANSPOSE_SRC);
	int64_t p = v ? f->val[v->args[TA_NPART]].c : 1, n = v ? f->val[v->args[TA_NFREE]].c : 1;
	int64_t m = n < 64 ? n : 64;
	return p > m ? p : m;
}

/* Seed 002's table: max(MIN_II, N) when one of src/predicate is in sbuf
 * and the other in psum; max(MIN_II, 2N) when src and dst are both in
 * sbuf.  The first row wins when both hold; otherwise (and for a scalar
 * src) N. */
int64_t kd_cost_neuron_predicated(const KdFunc *f, const KdIns *ins)
{
	int64_t n = nfree(f, ins, TENSOR_COPY_PREDICATED_DST);
	const KdVal *s = &f->val[ins->args[TENSOR_COPY_PREDICATED_SRC]];
	KdSpace ss = s->type == VT_REF ? f->buf[s->buf].space : KD_SP_NONE;
	KdSpace ps = f->buf[f->val[ins->args[TENSOR_COPY_PREDICATED_PREDICATE]].buf].space;
	KdSpace ds = f->buf[f->val[ins->args[TENSOR_COPY_PREDICATED_DST]].buf].space;
	if ((ss == KD_SP_SBUF && ps == KD_SP_PSUM) || (ss == KD_SP_PSUM && ps == KD_SP_SBUF))
		return min_ii(n);
	if (ss == KD_SP_SBUF && ds == KD_SP_SBUF)
		return min_ii(2 * n);
	return min_ii(n);
}

/* predicated_merge: the store's DMA of the result and the predicated
 * copy's sbuf-to-sbuf row, the chain it replaces without its loads
 * (kdsl's model: the op reads its inputs where they are). */
int64_t kd_cost_neuron_merge(const KdFunc *f, const KdIns *ins)
{
	return kd_cost_neuron_dma(f, ins) + min_ii(2 * nfree(f, ins, PREDICATED_MERGE_DST));
}
