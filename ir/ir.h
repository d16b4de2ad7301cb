/* ir.h: the SSA IR.  A module holds functions (one per kernel); a function
 * holds blocks with parameters (our phis), values and buffers.  Tensor
 * operands are SSA values too: a `view` names a buffer and an element
 * offset, so every op's operands are plain value ids. */
#ifndef KD_IR_H
#define KD_IR_H

#include "kd.h"
#include "op.h"

enum { KD_MAXRANK = 8 };

typedef enum {
	VK_CONST,    /* integer or bool constant: c */
	VK_FCONST,   /* floating constant: f */
	VK_STR,      /* string constant: s */
	VK_PARAM,    /* scalar kernel parameter number `index` */
	VK_BARG,     /* parameter `index` of block `def` */
	VK_INS       /* result of instruction `def` (an index into fn->ins) */
} KdValKind;

/* What a value holds.  Integers are computed in 64 bits whatever their
 * declared dtype (casts wrap explicitly); floats in double. */
/* VT_VEC and VT_MASK (aipu) are vectors of `lanes` elements of dtype dt
 * (a mask: lanes of bool); VT_LIST (neuron) a constant integer list. */
typedef enum { VT_INT, VT_FLOAT, VT_BOOL, VT_STR, VT_REF, VT_VEC, VT_MASK, VT_LIST } KdValType;

typedef struct {
	KdValKind kind;
	KdValType type;
	KdDtype dt;        /* declared dtype of a scalar; element dtype of a ref */
	int buf;           /* VT_REF: the buffer it views */
	int index;
	int def;
	int64_t c;
	double f;
	const char *s;
	const char *name;  /* source name, for readable output (may be NULL) */
	int lanes;         /* VT_VEC / VT_MASK */
} KdVal;

/* A tensor: a kernel parameter or an on-chip buffer the compiler places. */
typedef struct {
	const char *name;
	KdSpace space;
	KdDtype dt;
	int rank;
	int64_t dims[KD_MAXRANK];
	int64_t nelem, bytes;
	int64_t addr;      /* on-chip byte address assigned by placement; -1 before */
	int param;         /* kernel parameter number, or -1 */
	int written;       /* some op writes it (so a parameter is not const) */
	KdSpan span;
	struct KdTileInfo *tile;   /* neuron: partitions, blocks, direct allocation (tile.h) */
	/* Its lifetime (ascend's block-scoped buffers): the scopes a kernel's
	 * blocks open are numbered 1, 2, ... in source order (preorder), and
	 * a buffer declared in scope s lives over live_lo = s .. live_hi = the
	 * last scope inside s.  0, 0: the kernel's whole life (a kernel-level
	 * buffer, a parameter).  Placement gives buffers that are never live
	 * at once the same bytes (kd_buf_apart); the IR prints it as
	 * `live=[lo, hi]`. */
	int live_lo, live_hi;
} KdBuffer;

/* Are a and b never live at once (so placement may overlap them)? */
static inline int kd_buf_apart(const KdBuffer *a, const KdBuffer *b)
{
	return a->live_lo && b->live_lo && (a->live_hi < b->live_lo || b->live_hi < a->live_lo);
}

typedef struct {
	int blk;           /* successor block */
	int nargs;
	int *args;         /* values for the block's parameters */
} KdSucc;

/* The ints sit together (80 bytes, not 88): a long kernel has two
 * instructions a line. */
typedef struct KdIns {
	KdOp op;
	int res;           /* result value, or -1 */
	int nargs;
	int nsucc;         /* terminators: 0 (ret), 1 (jmp), 2 (br: args[0] is the condition) */
	int blk;           /* the block that holds it */
	int *args;
	KdSpan span;       /* the source construct (a call, an operator) */
	KdSpan *argspan;   /* nargs spans, for diagnostics about one operand */
	KdSucc succ[2];
} KdIns;

/* A loop header records its induction variable so the rule checker can
 * bound addresses over the whole iteration space. */
typedef struct {
	int iv;            /* value id of the induction variable (a block param) */
	int lo, hi;        /* value ids of the bounds */
	int64_t step;
	KdSpan span;
} KdLoop;

typedef struct {
	int nparam;
	int *params;       /* value ids */
	int *insv;         /* instruction ids, in order */
	int nins, capins;
	KdLoop *loop;      /* non-NULL for a loop header */
	const char *label; /* hint: "for_i", "if_then" */
} KdBlock;

typedef struct KdFunc {
	const char *name;
	KdTarget target;
	KdSpan span;
	int nparam;        /* kernel parameters, in source order */
	struct KdParam {
		const char *name;
		int is_tensor;
		int buf;       /* tensor: its buffer */
		int val;       /* scalar: its value */
		KdDtype dt;
	} *params;
	KdBlock **blk;
	int nblk, capblk;
	KdIns *ins;
	int nins, capins;
	KdVal *val;
	int nval, capval;
	KdBuffer *buf;
	int nbuf, capbuf;
	KdArena *arena;    /* the one it was made in: scratch arenas share its pool */
} KdFunc;

typedef struct KdModule {
	KdTarget target;
	const KdSource *src;
	KdFunc **fn;
	int nfn;
	int capfn;         /* kd_module_add's room; nfn >= capfn means none */
	KdArena *arena;
	/* IR read from text (irread.h): the `; L:C` source position of each
	 * instruction, by its offset in src (irsyntax.h); NULL otherwise. */
	const struct KdIrLocs *locs;
} KdModule;

/* ---- construction (ir.c) ---- */
KdFunc *kd_func_new(KdArena *a, const char *name, KdTarget t, KdSpan span);
int kd_block_new(KdArena *a, KdFunc *f, const char *label);
int kd_block_param(KdArena *a, KdFunc *f, int blk, KdValType ty, KdDtype dt, const char *name);
void kd_func_pack(KdArena *a, KdFunc *f);
int kd_val_const(KdArena *a, KdFunc *f, int64_t c);            /* VT_INT, i64 */
int kd_val_bool(KdArena *a, KdFunc *f, int b);
int kd_val_fconst(KdArena *a, KdFunc *f, double x);
int kd_val_str(KdArena *a, KdFunc *f, const char *s);
int kd_val_new(KdArena *a, KdFunc *f, KdVal v);
int kd_buf_new(KdArena *a, KdFunc *f, KdBuffer b);
/* Appends an instruction to block blk; returns its id.  If rty is not -1
 * it creates the result value of that type. */
int kd_ins_add(KdArena *a, KdFunc *f, int blk, KdOp op, int nargs, const int *args,
               const KdSpan *argspan, KdSpan span);
int kd_ins_result(KdArena *a, KdFunc *f, int ins, KdValType ty, KdDtype dt, int buf,
                  const char *name);
void kd_ins_succ(KdArena *a, KdFunc *f, int ins, int which, int blk, int nargs, const int *args);
void kd_module_add(KdArena *a, KdModule *m, KdFunc *f);

/* ---- printing and checking ---- */
void kd_ir_print(KdBuf *out, const KdModule *m);
/* The IR verifier: SSA dominance, block params, terminators, operand
 * kinds against the op table, and every instruction's typing rules (its
 * op's verify hook, pure ops included).  Reports through d; returns the
 * error count.  A failure here is a compiler bug, so messages say
 * "internal". */
int kd_ir_verify(KdDiag *d, const KdModule *m);
/* Does a value of type t fit operand p of a target op (the op table's
 * operand kinds)?  The verifier's rule, shared with the IR reader. */
int kd_operand_kind_ok(const KdOpParam *p, KdValType t);
/* The same on IR read from text (irread.h), where a failure is the
 * input's fault: the messages do not say "internal". */
int kd_ir_verify_input(KdDiag *d, const KdModule *m);
/* Hardware rules of the target, from the op table's ranges and hooks. */
int kd_ir_check_rules(KdDiag *d, KdModule *m);
/* Per instruction of f (proven[f->nins]): 1 for a dim_index whose index
 * the rule checker's analysis puts inside its dim at every trip that runs
 * (guards included; f as it is now, after the passes), so the emitter
 * writes no run-time check for it; 0 for every other instruction. */
void kd_ir_dim_index_proven(const KdFunc *f, char *proven);
/* Removes pure instructions and block parameters nothing uses; returns
 * how many. */
int kd_ir_dce(KdModule *m);
/* Places on-chip buffers (ub, l1, ...) and checks capacity. */
int kd_ir_place(KdDiag *d, KdModule *m);

/* Convenience */
static inline KdIns *kd_defins(const KdFunc *f, int v)
{
	return f->val[v].kind == VK_INS ? &f->ins[f->val[v].def] : NULL;
}

#endif
