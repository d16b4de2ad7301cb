/* rules_aipu.c: the address rules of vload and vstore.  The type rules of
 * the aipu ops are sema's (frontend/sema_aipu.c).  An index known over
 * the loop nest is checked here; the emitter checks the others at run
 * time, lane by lane where a mask is not constant. */
#include "rules.h"
#include "types_aipu.h"

/* Highest active lane of mask value m (-1: none), or `lanes - 1` when the
 * mask is not a constant (the run-time check covers it). */
static int last_active(const KdFunc *f, int m, int lanes, int *known)
{
	const KdIns *mi = kd_defins(f, m);
	*known = mi && mi->op == OP_VMASKLIT;
	if (!*known)
		return lanes - 1;
	int last = -1;
	for (int i = 0; i < mi->nargs; i++)
		if (f->val[mi->args[i]].c)
			last = i;
	return last;
}

/* vload and vstore: the view first, then (vstore) the vector, then the
 * mask if any, then the stride if any. */
_Static_assert(KD_SAME_POS(VLOAD_IR_SRC, VSTORE_DST), "vload and vstore take the view first");
enum { MEM_VIEW = VSTORE_DST };

/* A strided access's elements k + i * s for the lanes 0..last, over the
 * ranges of k (off) and s: an error naming the first lane outside the
 * tensor of n elements. */
static void check_strided(KdCheck *c, const KdIns *ins, KdRange off, KdRange s, int last,
                          const KdBuffer *b)
{
	int64_t far;
	if (off.lo < 0) {
		kd_check_error(c, ins, MEM_VIEW, "lane 0 at element %lld is outside '%s' (%lld elements)",
		               (long long)off.lo, b->name, (long long)b->dims[0]);
		return;
	}
	if (!__builtin_mul_overflow((int64_t)last, s.hi, &far) && !__builtin_add_overflow(far, off.hi, &far) &&
	    far < b->dims[0])
		return;
	/* the first lane outside: (n - 1 - k) / s + 1, at most `last` */
	int64_t lane = off.hi >= b->dims[0] ? 0 : (b->dims[0] - 1 - off.hi) / s.hi + 1;
	kd_check_error(c, ins, MEM_VIEW, "lane %lld at element %lld (stride %lld) is outside '%s' "
	               "(%lld elements)", (long long)lane, (long long)(off.hi + lane * s.hi),
	               (long long)s.hi, b->name, (long long)b->dims[0]);
}

void kd_check_vload(KdCheck *c, const KdIns *ins)
{
	const KdFunc *f = c->f;
	KdRange off;
	const KdBuffer *b = kd_check_ref(c, ins, MEM_VIEW, &off);
	int store = ins->op == OP_VSTORE;
	int lanes = store ? f->val[ins->args[VSTORE_V]].lanes : f->val[ins->res].lanes;
	int known = 1, last = lanes - 1;
	int m = store ? (int)VSTORE_MASK : (int)VLOAD_IR_MASK;
	int sk = store ? (int)VSTORE_STRIDE : (int)VLOAD_IR_STRIDE;
	KdRange s = {.known = 1, .lo = 1, .hi = 1};
	if (ins->nargs > sk) {
		s = kd_range_of(c, ins->args[sk]);
		if (s.known && s.lo < 1) {
			kd_check_error(c, ins, sk, "stride must be at least 1, got %lld", (long long)s.lo);
			return;
		}
	}
	if (ins->nargs > m)
		last = last_active(f, ins->args[m], lanes, &known);
	if (!off.known || !known || last < 0 || !s.known)
		return;
	if (ins->nargs > sk) {
		check_strided(c, ins, off, s, last, b);
		return;
	}
	int64_t nelem = b->dims[0];
	char sp[48];
	if (off.lo < 0 || off.hi > nelem - 1 - last) {
		kd_span_str(sp, off.lo < 0 ? off.lo : off.hi, last + 1);
		kd_check_error(c, ins, MEM_VIEW, "lanes %s are outside '%s' (%lld elements)", sp, b->name,
		               (long long)nelem);
	}
}

/* Compass publishes no cycle table: kdsl's model is one cycle per native
 * (256-bit) vector of the result, or of the stored vector for vstore,
 * rounded up; a mask, scalar or other result counts one. */
const char *const kd_aipu_cast_parts[KD_AIPU_NCAST_PART + 1] = {
	"all", "low", "high", "even", "odd", "ll", "lh", "hl", "hh", NULL};

int64_t kd_cost_aipu(const KdFunc *f, const KdIns *ins)
{
	_Static_assert(KD_SAME_POS(VSTORE_V, VSTORE_SCATTER_V), "the stored vector second");
	int v = ins->op == OP_VSTORE || ins->op == OP_VSTORE_SCATTER ? ins->args[VSTORE_V] : ins->res;
	if (v < 0 || f->val[v].type != VT_VEC)
		return 1;
	int64_t bits = (int64_t)f->val[v].lanes * kd_dtypes[f->val[v].dt].size * 8;
	int64_t n = (bits + KDSL_AIPU_VECTOR_BITS - 1) / KDSL_AIPU_VECTOR_BITS;
	return n > 0 ? n : 1;
}

/* Operand k of a dma_copy: count elements from its element offset inside
 * its tensor, for every offset and count the loops give. */
static void dma_range(KdCheck *c, const KdIns *ins, int k, KdRange n)
{
	KdRange off;
	const KdBuffer *b = kd_check_ref(c, ins, k, &off);
	int64_t end;
	if (!off.known)
		return;
	if (off.lo < 0)
		kd_check_error(c, ins, k, "%s starts at element %lld, outside '%s' (%lld elements)",
		               kd_ops[ins->op].param[k].name, (long long)off.lo, b->name, (long long)b->dims[0]);
	else if (__builtin_add_overflow(off.hi, n.hi, &end) || end > b->dims[0])
		kd_check_error(c, ins, k, "%lld elements from element %lld are outside '%s' (%lld elements)",
		               (long long)n.hi, (long long)off.hi, b->name, (long long)b->dims[0]);
}

void kd_check_dma_copy(KdCheck *c, const KdIns *ins)
{
	const KdFunc *f = c->f;
	const KdBuffer *d = &f->buf[f->val[ins->args[DMA_COPY_DST]].buf];
	const KdBuffer *s = &f->buf[f->val[ins->args[DMA_COPY_SRC]].buf];
	if (d->dt != s->dt) {
		kd_check_error(c, ins, DMA_COPY_SRC, "src '%s' holds %s, dst '%s' %s (Compass copies one dtype)",
		               s->name, kd_dtypes[s->dt].name, d->name, kd_dtypes[d->dt].name);
		return;
	}
	if (!kdsl_aipu_dma_allowed((kdsl_mem)s->space, (kdsl_mem)d->space)) {
		kd_check_error(c, ins, -1, "cannot copy from %s to %s (" KDSL_AIPU_DMA_TEXT ")",
		               kd_spaces[s->space].name, kd_spaces[d->space].name);
		return;
	}
	KdRange n = kd_range_of(c, ins->args[DMA_COPY_COUNT]);
	if (!n.known)
		return;
	if (n.lo < 1) {
		kd_check_error(c, ins, DMA_COPY_COUNT, "count must be at least 1, got %lld", (long long)n.lo);
		return;
	}
	dma_range(c, ins, DMA_COPY_DST, n);
	dma_range(c, ins, DMA_COPY_SRC, n);
}

/* kdsl's model: 100 cycles to start, then the bytes at 32 a cycle (one
 * native vector's width); a count not constant counts as 1. */
int64_t kd_cost_dma_copy(const KdFunc *f, const KdIns *ins)
{
	int64_t n = 1;
	kd_arg_const(f, ins, DMA_COPY_COUNT, &n);
	if (n < 1 || n > KD_MAX_TENSOR_BYTES)
		n = 1;
	int64_t bytes = n * kd_dtypes[f->buf[f->val[ins->args[DMA_COPY_DST]].buf].dt].size;
	return 100 + (bytes + KDSL_AIPU_VECTOR_BYTES - 1) / KDSL_AIPU_VECTOR_BYTES;
}
