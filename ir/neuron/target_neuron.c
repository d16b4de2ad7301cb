/* target_neuron.c: the IR stage's neuron hooks (ir_target.h): tile
 * placement with direct allocation, the aliasing hazard check and
 * -Wmatmul-overwrite, the tile information of buffers in the textual IR,
 * and the tile passes. */
#include "ir_target.h"
#include "tile.h"

/* --stats: each tile operand covers its partitions times its free
 * elements, read and written alike. */
static void bytes(int64_t *by, const KdWalk *w, const KdFunc *f, const KdIns *ins)
{
	(void)w;
	for (int i = 0; i < ins->nargs; i++) {
		const KdIns *t = kd_tile_ins(f, ins, i);
		if (!t)
			continue;
		const KdBuffer *b = &f->buf[f->val[ins->args[i]].buf];
		by[b->space] += f->val[t->args[TA_NPART]].c * f->val[t->args[TA_NFREE]].c *
		                kd_dtypes[b->dt].size;
	}
}

/* The module checks: the aliasing hazard, then -Wmatmul-overwrite. */
static void check(KdDiag *d, const KdModule *m)
{
	kd_hazard_check(d, m);
	kd_matmul_overwrite_check(d, m);
}

const KdIrTarget kd_ir_target_neuron = {
	.place = kd_place_neuron,
	.check = check,
	.bytes = bytes,
	.passes = KD_TPASS_FUSE_TILES | KD_TPASS_FORWARD | KD_TPASS_FUSE_SELECT,
	.read_buffer = kd_read_neuron_buffer,
	.print_buffer_attrs = kd_tile_print_attrs,
	.print_buffer_notes = kd_tile_print,
};
