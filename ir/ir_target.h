/* ir_target.h: what the IR stage asks a target.  One KdIrTarget per
 * target lives in ir/<target>/target_<target>.c; the shared code (place.c,
 * print.c, stats.c, verify.c, the passes, the textual IR reader, the
 * driver) calls these hooks instead of testing the target.  A NULL hook
 * means the target has nothing to add and the shared code does the
 * generic thing.  The frontend and the backend have their own hook
 * structs (frontend_target.h, emit_target.h), since ir/ sees neither. */
#ifndef KD_IR_TARGET_H
#define KD_IR_TARGET_H

#include "walk.h"

struct KdIrRead;
struct KdIrNode;

/* The passes that rewrite one target's ops apply where the target says so. */
enum {
	KD_TPASS_FUSE_BURSTS = 1u << 0,   /* fuse-bursts: data_move bursts (ascend) */
	KD_TPASS_FUSE_TILES = 1u << 1,    /* fuse-tiles: adjacent tile copies (neuron) */
	KD_TPASS_FORWARD = 1u << 2,       /* forward: staging copies (ascend, neuron) */
	KD_TPASS_FUSE_SELECT = 1u << 3    /* fuse-select: a predicated copy's load/store chain (neuron) */
};

typedef struct {
	/* Placement of f's on-chip buffers (place.c does the generic
	 * aligned bump allocation when NULL). */
	void (*place)(KdDiag *d, KdFunc *f);
	/* Checks of a whole placed module after the rules: warnings and
	 * errors the op-by-op rules cannot see (neuron: the aliasing hazard
	 * of direct allocation). */
	void (*check)(KdDiag *d, const KdModule *m);
	/* --stats: adds the bytes instruction ins moves to bytes[space];
	 * w is NULL when the walk could not run the kernel (cost). */
	void (*bytes)(int64_t *bytes, const KdWalk *w, const KdFunc *f, const KdIns *ins);
	/* --stats: cycles of a generic op on the target's values, which has
	 * no cost of its own in the op table (aipu's vector operators,
	 * broadcasts and constant masks). */
	int64_t (*cost)(const KdFunc *f, const KdIns *ins);
	/* The formula `cost` computes, as --doc-ops prints it (set exactly
	 * when cost is; kd_op_table_check says so). */
	const char *cost_doc;
	/* KD_TPASS_* */
	unsigned passes;
	/* Its IR has vector and mask values and the generic ops that make
	 * them (vsplat, vmask). */
	int vectors;
	/* Its effect ops may leave out their trailing optional operands
	 * instead of passing the defaults (aipu's vstore: its stride, or its
	 * mask and stride; kd_op_required counts the others). */
	int omit_optional;
	/* Textual IR: buffer attributes beyond `at` (attrs: the line's
	 * attribute list, NULL for a parameter), and their printed form:
	 * attrs after the type on the buffer line, notes on lines after it. */
	void (*read_buffer)(struct KdIrRead *r, KdBuffer *b, struct KdIrNode *attrs);
	void (*print_buffer_attrs)(KdBuf *o, const KdBuffer *b);
	void (*print_buffer_notes)(KdBuf *o, const KdBuffer *b);
} KdIrTarget;

/* The hooks of target t; KD_TARGET_NONE gives the generic (empty) set. */
const KdIrTarget *kd_ir_target(KdTarget t);

/* The target's module checks (KdIrTarget.check), if it has any. */
void kd_ir_check_target(KdDiag *d, const KdModule *m);

#endif
