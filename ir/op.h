/* op.h: the op table.  One KdOpDesc per op is the single description of
 * it: what sema binds (the parameters, their kinds, ranges and defaults),
 * what each operand does to memory, which classes the passes and the
 * emitter test, what the rule checker verifies, what the emitter calls,
 * what it costs and what the docs print.  Generic IR ops are listed here
 * and in ops.c; each target's ops in its .def file (docs/architecture.md,
 * "Adding an op"). */
#ifndef KD_OP_H
#define KD_OP_H

#include "kd.h"

typedef struct KdIns KdIns;
typedef struct KdFunc KdFunc;
typedef struct KdCheck KdCheck;
typedef struct KdVerify KdVerify;

typedef enum {
	/* the operators of the source, on scalars (lane by lane on aipu
	 * vectors); frontend/lower.c maps KdBinop and KdUnop to them */
	OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_REM, OP_SHL, OP_SHR, OP_AND, OP_OR, OP_XOR,
	OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE, OP_LAND, OP_LOR,
	OP_NEG, OP_NOT,
	OP_CAST,       /* args: value; result dtype on the result value */
	OP_VIEW,       /* args: element offset; result: VT_REF of a buffer */
	OP_TILE,       /* neuron tile view, see ir/neuron/tile.h; result: VT_REF of a buffer */
	OP_LIST,       /* args: the elements of a list argument; result: VT_LIST */
	OP_VSPLAT,     /* aipu: a scalar broadcast to the result's vector type */
	OP_VMASKLIT,   /* aipu: a constant mask, one bool operand per lane */
	/* a checked index of one dim of a tuple index (ascend's x[i, j]):
	 * args: index, extent, dim, tensor name; result: the index, which
	 * must lie in 0..extent-1 */
	OP_DIM_INDEX,
	/* terminators */
	OP_JMP, OP_BR, OP_RET,
	/* the target ops, one file per target */
#define KD_OP(name, ...) OP_##name,
#define KD_LOWERED(name, args)
#include "ascend/ops_ascend.def"
#include "neuron/ops_neuron.def"
#include "aipu/ops_aipu.def"
#ifdef KD_TEST_OPS
#include "ops_test.def"   /* tests/unit: an op with no stage's cases */
#endif
#undef KD_OP
#undef KD_LOWERED
	KD_NOP
} KdOp;

/* ---- operand positions, generated from the .def files ----
 * KD_OP(DATA_MOVE, (DST, SRC, ...), ...) declares
 * enum { DATA_MOVE_DST, DATA_MOVE_SRC, ..., DATA_MOVE_NPARAM }: a target
 * op's IR operands are its parameters in that order (trailing optional
 * ones may be absent), except where its .def says KD_LOWERED(NAME,
 * (A, B, ...)): then lowering gives it the operands NAME_IR_A, NAME_IR_B,
 * ... instead (aipu ops whose sema folds a parameter into the result
 * type).  The generic ops have none (view: the offset; tile: TA_* of
 * tile.h; br: the condition). */
#define KD_CAT_(a, b) a##b
#define KD_CAT(a, b) KD_CAT_(a, b)
#define KD_UNPAREN(...) __VA_ARGS__
#define KD_NARG_(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, n, ...) n
#define KD_NARG(...) KD_NARG_(__VA_ARGS__, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define KD_POS_(op, p) op##_##p,
#define KD_POS_1(op, p) KD_POS_(op, p)
#define KD_POS_2(op, p, ...) KD_POS_(op, p) KD_POS_1(op, __VA_ARGS__)
#define KD_POS_3(op, p, ...) KD_POS_(op, p) KD_POS_2(op, __VA_ARGS__)
#define KD_POS_4(op, p, ...) KD_POS_(op, p) KD_POS_3(op, __VA_ARGS__)
#define KD_POS_5(op, p, ...) KD_POS_(op, p) KD_POS_4(op, __VA_ARGS__)
#define KD_POS_6(op, p, ...) KD_POS_(op, p) KD_POS_5(op, __VA_ARGS__)
#define KD_POS_7(op, p, ...) KD_POS_(op, p) KD_POS_6(op, __VA_ARGS__)
#define KD_POS_8(op, p, ...) KD_POS_(op, p) KD_POS_7(op, __VA_ARGS__)
#define KD_POS_9(op, p, ...) KD_POS_(op, p) KD_POS_8(op, __VA_ARGS__)
#define KD_POS_10(op, p, ...) KD_POS_(op, p) KD_POS_9(op, __VA_ARGS__)
#define KD_POS_LIST_(op, ...) KD_CAT(KD_POS_, KD_NARG(__VA_ARGS__))(op, __VA_ARGS__)
#define KD_POS_LIST(op, params) KD_POS_LIST_(op, KD_UNPAREN params)

#define KD_OP(name, params, ...) enum { KD_POS_LIST(name, params) name##_NPARAM };
#define KD_LOWERED(name, args) enum { KD_POS_LIST(name##_IR, args) name##_IR_N };
#include "ascend/ops_ascend.def"
#include "neuron/ops_neuron.def"
#include "aipu/ops_aipu.def"
#ifdef KD_TEST_OPS
#include "ops_test.def"   /* tests/unit: an op with no stage's cases */
#endif
#undef KD_OP
#undef KD_LOWERED

/* dim_index's operands. */
enum { DIM_INDEX_IDX, DIM_INDEX_EXTENT, DIM_INDEX_DIM, DIM_INDEX_NAME, DIM_INDEX_N };

/* Do two ops' parameters stand at one position?  For code that serves
 * several ops (the casts: each op's positions are an enum of their own). */
#define KD_SAME_POS(a, b) ((int)(a) == (int)(b))

typedef enum {
	OK_PURE = 1,   /* no memory effect: foldable, removable when unused */
	OK_TERM,       /* ends a block */
	OK_EFFECT      /* reads or writes tensors */
} KdOpKind;        /* from 1: an entry that forgets its kind is caught (ops_check.c) */

/* Classes of ops the passes, the reader and the emitter test (instead of
 * ranges of the enum). */
enum {
	KD_OPF_ARITH = 1u << 0,       /* an operator of the source: arithmetic, comparison, logic */
	KD_OPF_COMPARE = 1u << 1,     /* compares two numbers: a bool (a mask on vectors) */
	KD_OPF_LOGIC = 1u << 2,       /* a bool of bools: land, lor, not */
	KD_OPF_VECTOR_ONLY = 1u << 3, /* gives an aipu vector or mask: only aipu IR holds it */
	/* a target op only a pass makes (a fusion of ops the source calls):
	 * sema refuses it by name, the docs say so; textual IR may hold it */
	KD_OPF_INTERNAL = 1u << 4
};

typedef enum {
	PK_TENSOR,     /* a tensor or a view of one */
	PK_INT,        /* an integer scalar */
	PK_NUM,        /* an integer or floating scalar */
	PK_STR,        /* a string constant (one of `enums` when set: lowered to its index) */
	PK_VEC,        /* aipu: a vector (or a scalar it broadcasts) */
	PK_MASK,       /* aipu: a mask, mask string or list of bools */
	PK_TUPLE,      /* aipu: a tuple of vectors */
	PK_BOOL,       /* a bool or integer scalar */
	PK_DTYPE,      /* a dtype written bare (dtype=f32); lowered to its KdDtype, 0: none */
	PK_LIST,       /* a list of integers, [a, b, ...] */
	PK_TILE_OR_NUM, /* a tensor or a number (tensor_copy_predicated's src) */
	PK_INT_OR_LIST  /* an integer, or a list of integers (TIK's mask: n or [mask_h, mask_l]) */
} KdParamKind;

enum {
	PF_OPT = 1,    /* may be omitted: takes def */
	PF_RANGE = 4   /* integer that must lie in lo..hi (PK_INT_OR_LIST: its integer form) */
};

/* What an op does to the bytes of a tensor operand. */
typedef enum {
	KD_MEM_NONE,       /* not a tensor operand */
	KD_MEM_READ,       /* reads them */
	KD_MEM_WRITE,      /* writes some without reading them; the others keep their value */
	KD_MEM_OVERWRITE   /* writes every byte of the operand without reading it */
} KdMemEffect;

enum { KD_MAXPARAM = 10 };

typedef struct {
	const char *name;      /* the vendor API's parameter name */
	uint8_t kind, flags;
	uint8_t mem;           /* KdMemEffect on a tensor operand */
	/* A written operand the op also reads first (accumulates into) when
	 * the bool parameter rmw_if - 1 is true; 0: never.  Set it with
	 * KD_PARAM_REF(PARAM). */
	uint8_t rmw_if;
	int64_t lo, hi, def;
	uint32_t spaces;       /* tensors: bit per KdSpace allowed (0: any) */
	const char *sdef;      /* the default as the docs print it (NULL: def) */
	const char *const *enums;  /* PK_STR: the accepted strings, NULL-terminated */
} KdOpParam;

/* A parameter named in a field where 0 means none (rmw_if, rt_dtype_of,
 * rt_dtype2_of). */
#define KD_PARAM_REF(param) ((param) + 1)

typedef struct {
	const char *name;      /* source spelling, "data_move" */
	KdTarget target;       /* KD_TARGET_NONE: generic IR op, not callable */
	KdOpKind kind;
	unsigned flags;        /* KD_OPF_* */
	int iop;               /* KD_OPF_ARITH ops: their operator in util/ieval.h (KdIop) */
	int arity;             /* generic ops: operand count (-1: any) */
	int nsucc;             /* terminators: successor blocks */
	int nparam;            /* target ops: set by KD_OP from its parameter list */
	KdOpParam param[KD_MAXPARAM];
	uint32_t dtypes;       /* element dtypes of its tensors (0: any) */
	const char *rt;        /* runtime entry point */
	const char *c_op;      /* generic scalar ops: the C operator */
	/* Rules beyond the table's ranges and dtype list (NULL: none). */
	void (*check)(KdCheck *c, const KdIns *ins);
	/* Estimated engine cycles of one execution. */
	int64_t (*cost)(const KdFunc *f, const KdIns *ins);
	/* The formula `cost` computes, as the docs print it: the vendor's table
	 * where it publishes one, else kdsl's documented model (said so). */
	const char *cost_doc;
	const char *doc;       /* one paragraph: semantics */
	const char *rules;     /* one paragraph: the rules checked */
	const char *seed;      /* the seed page it rests on */
	/* The runtime entry takes the element dtype of parameter N-1 before the
	 * operands (typed vector ops; KD_PARAM_REF); 0: it does not. */
	int rt_dtype_of;
	/* And then that of parameter N-1 (an op whose operands differ in
	 * dtype: vec_conv's src); 0: none. */
	int rt_dtype2_of;
	/* The op's typing rules on IR: operand kinds, dtypes, lane counts,
	 * immediates, the result's type against the operands (NULL: only the
	 * verifier's structural and table-driven checks).  Run by the IR
	 * verifier on every instruction, after building and after each pass,
	 * and by the textual IR reader; reports through kd_verify_fail
	 * (verify.h). */
	void (*verify)(KdVerify *v, const KdIns *ins);
	/* An effect op that gives a value: the element of its tensor
	 * parameter N-1 (KD_PARAM_REF), a scalar of that tensor's dtype
	 * (ascend's element read); 0: it gives nothing.  The emitter passes
	 * the address of a kdsl_scalar last and reads the value from it. */
	int result_of;
	/* The source syntax of an op written as a construct instead of a call
	 * (`u[i]`); sema refuses to call it by name, the docs print it.
	 * NULL: the op is called. */
	const char *syntax;
	/* A second runtime entry taking every operand in one struct of type
	 * rt_k_args (tiles as kdsl_rtile, lists as arrays of rt_k_list
	 * entries, in parameter order), which the emitter writes as a static
	 * const where every operand is a constant of the kernel: no tile
	 * structs are built and passed by value per call.  NULL: none. */
	const char *rt_k, *rt_k_args;
	int rt_k_list;
} KdOpDesc;

extern const KdOpDesc kd_ops[KD_NOP];

/* The op of `target` named `name`, or NULL. */
const KdOpDesc *kd_op_lookup(KdTarget target, const char *name);
int kd_op_param_index(const KdOpDesc *d, const char *name);

/* ---- memory effects of operand k of a target op ---- */
/* The operands an instruction of d needs at least: up to its last
 * parameter that is not optional (a target with `omit_optional` may
 * leave out the optional ones after it: aipu's vstore its mask and
 * stride). */
static inline int kd_op_required(const KdOpDesc *d)
{
	int n = d->nparam;
	while (n > 0 && (d->param[n - 1].flags & PF_OPT))
		n--;
	return n;
}

static inline int kd_mem_writes(const KdOpParam *p)
{
	return p->mem == KD_MEM_WRITE || p->mem == KD_MEM_OVERWRITE;
}

static inline int kd_param_writes(const KdOpDesc *d, int k)
{
	return k < d->nparam && kd_mem_writes(&d->param[k]);
}

/* Reads it whatever its other operands say. */
static inline int kd_param_reads(const KdOpDesc *d, int k)
{
	return k < d->nparam && d->param[k].mem == KD_MEM_READ;
}

/* The bool parameter that makes written operand k read first, or -1. */
static inline int kd_param_rmw_if(const KdOpDesc *d, int k)
{
	return k < d->nparam ? d->param[k].rmw_if - 1 : -1;
}

/* A switch over ops met one it has no case for: a compiler bug.  Reported
 * as an error ("internal error: WHERE: op NAME not handled"), so the run
 * fails instead of going on with something plausible. */
void kd_op_unhandled(KdDiag *d, KdSpan at, const char *where, KdOp op);

/* The table's own consistency (ops_check.c): every entry has what its
 * kind needs (a forgotten designated field is zero).  Reports internal
 * errors; returns their count.  kdslc checks the table at its start. */
int kd_op_desc_check(KdDiag *d, const KdOpDesc *o);
int kd_op_table_check(KdDiag *d);

/* The docs generator: markdown for every op of a target (kdslc --doc-ops). */
void kd_op_doc(KdBuf *out, KdTarget target);

#endif
