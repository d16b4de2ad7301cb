/* emit_neuron.c: neuron operands in the generated C.  A tile view becomes a
 * kdsl_tile (kdsl_ctile when only read) built by an inline helper of
 * kdsl_rt.h: the physical tile's base (block already mapped by the modulo
 * rule), the partition stride, the tile's bytes per partition and
 * partitions, and the viewed partitions and elements.  The runtime checks
 * all of it again; block indices that are only known at run time are
 * checked here first, since the block decides the base address. */
#include "emit.h"
#include "emit_neuron.h"
#include "tile.h"

/* Does tile operand v need its block index checked here?  Yes unless it
 * is a constant inside the tensor: the emitter does not rely on the rule
 * checker, which leaves ops under a guard it cannot decide to run time. */
static int blocked(const KdFunc *f, int v)
{
	const KdVal *x = &f->val[v];
	if (x->type != VT_REF || x->kind != VK_INS || f->ins[x->def].op != OP_TILE)
		return 0;
	const KdBuffer *b = &f->buf[x->buf];
	const KdVal *lin = &f->val[f->ins[x->def].args[TA_BLOCK]];
	return b->tile && b->tile->nbdim && (lin->kind != VK_CONST || lin->c < 0 || lin->c >= b->tile->nblocks);
}

void kd_emit_tile_checks(KdBuf *o, const KdFunc *f, const KdIns *in, int site, KdEmitVal val, void *ctx)
{
	for (int i = 0; i < in->nargs; i++) {
		if (!blocked(f, in->args[i]))
			continue;
		const KdIns *t = &f->ins[f->val[in->args[i]].def];
		const KdBuffer *b = &f->buf[f->val[in->args[i]].buf];
		int lin = t->args[TA_BLOCK];
		kd_buf_puts(o, "\tif (");
		val(ctx, lin);
		kd_buf_puts(o, " < 0 || ");
		val(ctx, lin);
		kd_buf_printf(o, " >= %lld)\n\t\treturn kdsl_rt_fail(kd_rt, &kd_site[%d], KDSL_ERR_BOUNDS, "
		              "\"block index of '%s' must be in 0..%lld, got %%lld\", (long long)",
		              (long long)b->tile->nblocks, site, b->name, (long long)(b->tile->nblocks - 1));
		val(ctx, lin);
		kd_buf_puts(o, ");\n");
	}
}

/* The physical tile of logical block `lin` (kd_tile_phys in C). */
static void phys(KdBuf *o, const KdTileInfo *t, int lin, KdEmitVal val, void *ctx)
{
	int64_t below = 1, pbelow = 1;
	kd_buf_puts(o, "(size_t)(0");
	for (int d = t->nbdim - 1; d >= 0; d--) {
		kd_buf_puts(o, " + (");
		val(ctx, lin);
		kd_buf_printf(o, " / %lld %% %lld %% %lld) * %lld", (long long)below, (long long)t->bdims[d],
		              (long long)t->bmod[d], (long long)pbelow);
		below *= t->bdims[d];
		pbelow *= t->bmod[d];
	}
	kd_buf_puts(o, ")");
}

static void tile(KdBuf *o, const KdFunc *f, int v, int writes, KdEmitVal val, void *ctx)
{
	const KdIns *t = &f->ins[f->val[v].def];
	const KdBuffer *b = &f->buf[f->val[v].buf];
	const KdTileInfo *ti = b->tile;
	KdTileAp ap;
	kd_tile_ap(f, t, &ap);
	if (ap.nd)   /* a strided view: the contiguous tile, then its pattern */
		kd_buf_printf(o, "%s(", writes ? "kdsl_tile_ap" : "kdsl_ctile_ap");
	kd_buf_printf(o, "%s(", writes ? "kdsl_tile_of" : "kdsl_ctile_of");
	if (b->param >= 0) {
		kd_c_name(o, b->name, 'p');
		kd_buf_printf(o, ", %lld", (long long)ti->pbytes);
	} else {
		kd_buf_printf(o, "kd_mem_%s + %lld", kd_spaces[b->space].name, (long long)b->addr);
		const KdVal *lin = &f->val[t->args[TA_BLOCK]];
		if (ti->nbdim && lin->kind == VK_CONST) {
			int64_t p = kd_tile_phys(ti, lin->c);
			if (p)
				kd_buf_printf(o, " + %lld", (long long)(p * ti->stride));
		} else if (ti->nbdim) {
			kd_buf_puts(o, " + ");
			phys(o, ti, t->args[TA_BLOCK], val, ctx);
			kd_buf_printf(o, " * %lld", (long long)ti->stride);
		}
		kd_buf_printf(o, ", kd_ps_%s", kd_spaces[b->space].name);
	}
	kd_buf_printf(o, ", %lld, %lld, ", (long long)ti->pbytes, (long long)ti->nparts);
	val(ctx, t->args[TA_PSTART]);
	kd_buf_printf(o, ", %lld, ", (long long)f->val[t->args[TA_NPART]].c);
	val(ctx, t->args[TA_FOFF]);
	kd_buf_printf(o, ", %lld, %s, %s)", (long long)f->val[t->args[TA_NFREE]].c, kd_spaces[b->space].rt_enum,
	              kd_dtypes[b->dt].rt_enum);
	if (!ap.nd)
		return;
	kd_buf_printf(o, ", %lld, %d", (long long)ap.pstep, ap.nd);
	for (int k = 0; k < KDSL_NEURON_AP_DIMS; k++)
		kd_buf_printf(o, ", %lld, %lld", (long long)(k < ap.nd ? ap.st[k] : 0), (long long)(k < ap.nd ? ap.ct[k] : 0));
	kd_buf_puts(o, ")");
}

int kd_emit_neuron_arg(KdBuf *o, const KdFunc *f, const KdOpParam *p, int v, KdEmitVal val, void *ctx)
{
	const KdVal *x = &f->val[v];
	if (p->kind == PK_TENSOR) {
		tile(o, f, v, kd_mem_writes(p), val, ctx);
		return 1;
	}
	if (p->kind == PK_TILE_OR_NUM) {
		if (x->type == VT_REF) {
			tile(o, f, v, 0, val, ctx);
			kd_buf_puts(o, ", 0.0");
		} else {
			kd_buf_puts(o, "kdsl_ctile_none(), (double)");
			val(ctx, v);
		}
		return 1;
	}
	if (p->kind == PK_LIST) {
		const KdIns *l = &f->ins[x->def];
		kd_buf_puts(o, "(const int64_t[]){");
		for (int i = 0; i < l->nargs; i++) {
			if (i)
				kd_buf_puts(o, ", ");
			val(ctx, l->args[i]);
		}
		if (!l->nargs)
			kd_buf_puts(o, "0");
		kd_buf_printf(o, "}, %d", l->nargs);
		return 1;
	}
	return 0;
}

/* Tile operand v as a kdsl_rtile initialiser ({off, pbytes, nparts, p0,
 * np, foff, n, mem, dtype}) when every field of it is a constant of the
 * kernel and it lies in sbuf or psum; returns 0 (nothing written, when o
 * is NULL: only asked) otherwise.  The block must be one of the tile's,
 * since its physical tile decides off (an out-of-range constant block is
 * failed at run time before the call, by kd_emit_tile_checks). */
static int rtile(KdBuf *o, const KdFunc *f, int v)
{
	KdConstView cv;
	if (f->val[v].type != VT_REF || !kd_const_view(f, v, &cv))
		return 0;
	const KdBuffer *b = &f->buf[cv.buf];
	const KdTileInfo *ti = b->tile;
	if (b->param >= 0 || !ti || (b->space != KD_SP_SBUF && b->space != KD_SP_PSUM) ||
	    (ti->nbdim && (cv.a[TA_BLOCK] < 0 || cv.a[TA_BLOCK] >= ti->nblocks)))
		return 0;
	if (!o)
		return 1;
	int64_t off = b->addr + (ti->nbdim ? kd_tile_phys(ti, cv.a[TA_BLOCK]) * ti->stride : 0);
	kd_buf_printf(o, "{%lld, %lld, %lld, %lld, %lld, %lld, %lld, %s, %s}", (long long)off, (long long)ti->pbytes,
	              (long long)ti->nparts, (long long)cv.a[TA_PSTART], (long long)cv.a[TA_NPART],
	              (long long)cv.a[TA_FOFF], (long long)cv.a[TA_NFREE], kd_spaces[b->space].rt_enum,
	              kd_dtypes[b->dt].rt_enum);
	return 1;
}

/* List operand v as an array initialiser of n constants; 0 when it is not
 * one (nothing written; o NULL: only asked). */
static int const_list(KdBuf *o, const KdFunc *f, int v, int n)
{
	if (f->val[v].kind != VK_INS)
		return 0;
	const KdIns *l = &f->ins[f->val[v].def];
	if (l->op != OP_LIST || l->nargs != n)
		return 0;
	for (int i = 0; i < l->nargs; i++)
		if (f->val[l->args[i]].kind != VK_CONST)
			return 0;
	for (int i = 0; o && i < l->nargs; i++)
		kd_buf_printf(o, "%s%lld", i ? ", " : "{", (long long)f->val[l->args[i]].c);
	if (o)
		kd_buf_puts(o, "}");
	return 1;
}

/* Operand i of in in the rt_k struct (o NULL: only whether it can be). */
static int k_operand(KdBuf *o, const KdFunc *f, const KdIns *in, int i)
{
	const KdOpDesc *d = &kd_ops[in->op];
	if (d->param[i].kind == PK_TENSOR)
		return rtile(o, f, in->args[i]);
	if (d->param[i].kind == PK_LIST)
		return const_list(o, f, in->args[i], d->rt_k_list);
	return 0;
}

int kd_emit_neuron_call(KdBuf *o, const KdFunc *f, const KdIns *in, int site)
{
	const KdOpDesc *d = &kd_ops[in->op];
	if (!d->rt_k)
		return 0;
	for (int i = 0; i < in->nargs; i++)
		if (!k_operand(NULL, f, in, i))
			return 0;
	/* a block of its own: a declaration may not follow a label */
	kd_buf_printf(o, "\t{\n\t\tstatic const %s kd_k = {", d->rt_k_args);
	for (int i = 0; i < in->nargs; i++) {
		if (i)
			kd_buf_puts(o, ", ");
		k_operand(o, f, in, i);
	}
	kd_buf_printf(o, "};\n\t\tif ((kd_err = %s(kd_rt, &kd_site[%d], &kd_k)) != KDSL_OK)\n\t\t\treturn kd_err;\n\t}\n",
	              d->rt_k, site);
	return 1;
}
