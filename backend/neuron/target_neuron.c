/* target_neuron.c: the backend's neuron hooks (emit_target.h): tile
 * operands, lists and tile-or-number arguments, the run-time checks of
 * block indices before a call and the calls of an op's constant-operand
 * entry (emit_neuron.c). */
#include "emit_target.h"
#include "emit_neuron.h"
#include "tile.h"

static void checks(KdEmitCtx *c, const KdIns *in)
{
	kd_emit_tile_checks(c->o, c->f, in, c->site, c->val, c->ctx);
}

static int arg(KdEmitCtx *c, const KdOpParam *p, int v)
{
	return kd_emit_neuron_arg(c->o, c->f, p, v, c->val, c->ctx);
}

/* A tile buffer's partitions, and in each its physical tiles from the
 * first (blocked: stride apart) to the end of the last. */
static void footprint(const KdBuffer *b, int64_t *bytes, int64_t *parts)
{
	const KdTileInfo *t = b->tile;

	*bytes = t->nbdim ? (t->nphys - 1) * t->stride + t->pbytes : t->pbytes;
	*parts = t->nparts;
}

static int call(KdEmitCtx *c, const KdIns *in)
{
	return kd_emit_neuron_call(c->o, c->f, in, c->site);
}

const KdEmitTarget kd_emit_target_neuron = {
	.checks = checks,
	.arg = arg,
	.call = call,
	.footprint = footprint,
};
