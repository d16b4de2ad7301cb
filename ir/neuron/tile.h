/* tile.h: neuron tiles.  An sbuf/psum buffer is [partition, free...]; a
 * blocked one (`psum f32[4][128, 512]`) holds several logical tiles that
 * direct allocation (seed 003) may map onto fewer physical tiles.  The
 * `tile` op views one logical tile:
 *   %r = tile @buf, BLOCK, PSTART, FOFF, NPART, NFREE
 * BLOCK is the logical block (linear over the block dims), PSTART the first
 * partition, FOFF the element offset inside each partition, NPART and NFREE
 * (constants) the partitions and contiguous elements per partition viewed.
 * A kernel parameter (hbm) is seen the same way: dim 0 as partitions. */
#ifndef KD_TILE_H
#define KD_TILE_H

#include "ir.h"

enum { TA_BLOCK, TA_PSTART, TA_FOFF, TA_NPART, TA_NFREE, TA_N };
/* A strided view adds its access pattern (LANGUAGE.md 7 "Views"):
 *   %r = tile @buf, BLOCK, PSTART, FOFF, NPART, NFREE, PSTEP, S0, C0[, S1, C1[, S2, C2]]
 * constants in elements: PSTEP between view partitions (hbm: over the
 * tensor taken flat, from element PSTART * row + FOFF; sbuf/psum: 0, the
 * partitions PSTART..), then up to KDSL_NEURON_AP_DIMS free dims of
 * (stride, count), outermost first, counts multiplying to NFREE.  Without
 * them the view is the contiguous form above.  Passes that reason about
 * tiles take only the 5-operand form (kd_const_view, ...). */
enum { TA_PSTEP = TA_N, TA_N_AP_MAX = TA_N + 1 + 2 * KDSL_NEURON_AP_DIMS };

/* The access pattern of tile instruction t (constants; verified): nd 0
 * for the contiguous form, which has st[0] 1, ct[0] NFREE and pstep 0. */
typedef struct {
	int64_t pstep;
	int nd;
	int64_t st[KDSL_NEURON_AP_DIMS], ct[KDSL_NEURON_AP_DIMS];
} KdTileAp;
void kd_tile_ap(const KdFunc *f, const KdIns *t, KdTileAp *o);
/* The largest element offset the pattern reaches inside one view
 * partition (sum of (C - 1) * S; NFREE - 1 for the contiguous form). */
int64_t kd_tile_ap_span(const KdTileAp *ap, int64_t nfree);

/* A view whose tile operands are all constants: its buffer and the TA_*
 * operands (the neuron passes' unit of reasoning; pass_util.c). */
typedef struct {
	int buf;
	int64_t a[TA_N];
} KdConstView;
/* 0 when v is not such a view. */
int kd_const_view(const KdFunc *f, int v, KdConstView *o);

enum { KD_ALLOC_AUTO, KD_ALLOC_MOD, KD_ALLOC_DIRECT };

typedef struct KdTileInfo {
	int64_t nparts;      /* dim 0 */
	int64_t nfree;       /* elements of one tile in each partition */
	int64_t pbytes;      /* bytes of one tile in each partition */
	int nbdim;           /* block dims (0: not blocked) */
	int64_t bdims[KD_MAXRANK];
	int64_t nblocks;     /* logical tiles */
	int alloc;           /* KD_ALLOC_* */
	int64_t bmod[KD_MAXRANK];   /* physical tiles along each block dim */
	int64_t nphys;       /* physical tiles */
	int64_t stride;      /* bytes between physical tiles inside a partition */
	int64_t base;        /* direct: psum bank / sbuf byte the first tile starts at */
	KdSpan alloc_span;   /* the mod_alloc/alloc call */
} KdTileInfo;

/* --emit=ir: a blocked buffer's allocation table, one line per block
 * (the printer's buffer notes), and the attributes of its type and
 * allocation call (its buffer attrs; read back by kd_read_neuron_buffer). */
void kd_tile_print(KdBuf *o, const KdBuffer *b);
void kd_tile_print_attrs(KdBuf *o, const KdBuffer *b);
/* The physical tile that logical block `lin` occupies. */
int64_t kd_tile_phys(const KdTileInfo *t, int64_t lin);

/* ---- the neuron KdIrTarget's hooks (target_neuron.c) ---- */
/* Placement of a neuron kernel's sbuf/psum buffers (alloc_neuron.c). */
void kd_place_neuron(KdDiag *d, KdFunc *f);
/* The tile-view operand i of ins (rules_neuron.c, hazard_neuron.c, target_neuron.c). */
const KdIns *kd_tile_ins(const KdFunc *f, const KdIns *ins, int i);
/* Hazard analysis of direct-allocated blocked tensors (hazard_neuron.c). */
void kd_hazard_check(KdDiag *d, const KdModule *m);
/* -Wmatmul-overwrite: an nc_matmul without accumulate overwriting a
 * matmul result nothing has read (overwrite_neuron.c). */
void kd_matmul_overwrite_check(KdDiag *d, const KdModule *m);
/* Textual IR: a buffer's tile info from its dims and attributes (attrs
 * NULL for a parameter; read_neuron.c). */
struct KdIrRead;
struct KdIrNode;
void kd_read_neuron_buffer(struct KdIrRead *r, KdBuffer *b, struct KdIrNode *attrs);

#endif
