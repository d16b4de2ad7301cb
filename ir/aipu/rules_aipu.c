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
 * mask if any. */
_Static_assert(KD_SAME_POS(VLOAD_IR_SRC, VSTORE_DST), "vload and vstore take the view first");
enum { MEM_VIEW = VSTORE_DST };

void kd_check_vload(KdCheck *c, const KdIns *ins)
{
	const KdFunc *f = c->f;
	KdRange off;
	const KdBuffer *b = kd_check_ref(c, ins, MEM_VIEW, &off);
	int store = ins->op == OP_VSTORE;
	int lanes = store ? f->val[ins->args[VSTORE_V]].lanes : f->val[ins->res].lanes;
	int known = 1, last = lanes - 1;
	int m = store ? (int)VSTORE_MASK : (int)VLOAD_IR_MASK;
	if (ins->nargs > m)
		last = last_active(f, ins->args[m], lanes, &known);
	if (!off.known || !known || last < 0)
		return;
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
	int v = ins->op == OP_VSTORE ? ins->args[VSTORE_V] : ins->res;
	if (v < 0 || f->val[v].type != VT_VEC)
		return 1;
	int64_t bits = (int64_t)f->val[v].lanes * kd_dtypes[f->val[v].dt].size * 8;
	int64_t n = (bits + KDSL_AIPU_VECTOR_BITS - 1) / KDSL_AIPU_VECTOR_BITS;
	return n > 0 ? n : 1;
}
