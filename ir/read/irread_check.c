/* irread_check.c: the textual IR reader's checks once a function is
 * built and every value has its type.  Each instruction's typing rules
 * are its op's verify hook, the very rules the IR verifier checks on
 * built IR (verify.h); here they are the input's errors, reported at the
 * operand.  Before them, what the op table says of the target ops' own
 * parameters: index operands, and the operand kinds of the effect ops
 * (a pure aipu op's IR operands are not its table parameters: lowering
 * folds some away, so its hook checks them).  Sema guarantees all of
 * these on source; later stages rely on them. */
#include "irsyn.h"
#include "verify.h"

static const char *const kind_names[] = {"tensor", "integer", "number", "string", "vector",
                                         "mask", "tuple", "bool", "dtype", "list",
                                         "tensor or number", "integer or list"};
/* one name per kind: a kind without one read past the table (vec_add's mask) */
_Static_assert(sizeof kind_names / sizeof kind_names[0] == PK_INT_OR_LIST + 1, "a parameter kind has no name");

/* Operands sema lowers to an index (a dtype, one of a string parameter's
 * enums): later stages index tables with them. */
static void check_index(KdIrRead *r, const KdIns *in, int k, const KdOpParam *p)
{
	int64_t n = p->kind == PK_DTYPE ? KD_NDTYPE : 0;
	if (p->kind == PK_STR && p->enums)
		while (p->enums[n])
			n++;
	const KdVal *v = &r->f->val[in->args[k]];
	if (n && (v->kind != VK_CONST || v->type != VT_INT || v->c < 0 || v->c >= n))
		kd_error(r->d, in->argspan[k], "%s: operand %d ('%s') must be a constant index 0..%lld",
		         kd_ops[in->op].name, k + 1, p->name, (long long)n - 1);
}

/* The op table's rules of a target op's parameters. */
static void check_params(KdIrRead *r, KdVerify *v, const KdIns *in)
{
	const KdFunc *f = r->f;
	const KdOpDesc *d = &kd_ops[in->op];
	for (int k = 0; d->target && k < in->nargs && k < d->nparam; k++)
		check_index(r, in, k, &d->param[k]);
	for (int k = 0; d->kind == OK_EFFECT && k < in->nargs && k < d->nparam; k++)
		if (in->args[k] != r->poison && !kd_operand_kind_ok(&d->param[k], f->val[in->args[k]].type))
			kd_error(r->d, in->argspan[k], "%s: operand %d ('%s') must be a %s, got %s", d->name, k + 1,
			         d->param[k].name, kind_names[d->param[k].kind],
			         kd_verify_type_str(v, &f->val[in->args[k]]));
}

static int vecish(const KdVal *x)
{
	return x->type == VT_VEC || x->type == VT_MASK;
}

void kd_irr_check_types(KdIrRead *r)
{
	KdFunc *f = r->f;
	KdVerify v = {.d = r->d, .f = f, .a = r->a, .reader = 1, .skip = r->poison};
	/* an instruction whose table rules broke is not checked again by its hook */
	char *bad = kd_alloc(r->a, (size_t)f->nins + 1);
	for (int i = 0; i < f->nins; i++) {
		int n = r->d->nerror;
		check_params(r, &v, &f->ins[i]);
		bad[i] = r->d->nerror > n;
	}
	for (int b = 0; b < f->nblk; b++)
		for (int i = 0; i < f->blk[b]->nparam; i++)
			if (vecish(&f->val[f->blk[b]->params[i]]))
				kd_verify_vec_value(&v, &f->val[f->blk[b]->params[i]], f->blk[b]->nins
				                    ? f->ins[f->blk[b]->insv[0]].span : f->span);
	for (int i = 0; i < f->nins; i++) {
		const KdIns *in = &f->ins[i];
		if (in->res >= 0 && vecish(&f->val[in->res]))
			kd_verify_vec_value(&v, &f->val[in->res], in->span);
		if (!bad[i])
			kd_verify_ins(&v, in);
	}
}

/* Which buffers some op writes (the emitter keeps read-only parameters const). */
void kd_irr_mark_written(KdFunc *f)
{
	for (int i = 0; i < f->nins; i++) {
		const KdIns *in = &f->ins[i];
		const KdOpDesc *d = &kd_ops[in->op];
		for (int k = 0; d->target && k < in->nargs && k < d->nparam; k++) {
			const KdVal *v = &f->val[in->args[k]];
			if (kd_param_writes(d, k) && v->type == VT_REF && v->buf >= 0)
				f->buf[v->buf].written = 1;
		}
	}
}
