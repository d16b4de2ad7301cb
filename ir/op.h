/* op.h: the op table.  One KdOpDesc per op says what sema binds (the
 * parameters, their kinds, ranges and defaults), what the rule checker
 * verifies, what the emitter calls and what the docs print. */
#ifndef KD_OP_H
#define KD_OP_H

#include "kd.h"

typedef struct KdIns KdIns;
typedef struct KdFunc KdFunc;
typedef struct KdCheck KdCheck;
typedef struct KdVerify KdVerify;

typedef enum {
	/* scalar arithmetic: same order as KdBinop, then KdUnop */
	OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_REM, OP_SHL, OP_SHR, OP_AND, OP_OR, OP_XOR,
	OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE, OP_LAND, OP_LOR,
	OP_NEG, OP_NOT, OP_PLUS_UNUSED,
	OP_CAST,       /* args: value; result dtype on the result value */
	OP_VIEW,       /* args: element offset; result: VT_REF of a buffer */
	OP_TILE,       /* neuron tile view, see ir/tile.h; result: VT_REF of a buffer */
	OP_LIST,       /* args: the elements of a list argument; result: VT_LIST */
	/* terminators */
	OP_JMP, OP_BR, OP_RET,
	/* the target ops, one file per target */
#define KD_OP(name, ...) OP_##name,
#include "ascend/ops_ascend.def"
#include "neuron/ops_neuron.def"
#include "aipu/ops_aipu.def"
#undef KD_OP
	KD_NOP
} KdOp;

typedef enum {
	OK_PURE,       /* no memory effect: foldable, removable when unused */
	OK_TERM,       /* ends a block */
	OK_EFFECT      /* reads or writes tensors */
} KdOpKind;

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
	PK_TILE_OR_NUM /* a tensor or a number (tensor_copy_predicated's src) */
} KdParamKind;

enum {
	PF_OPT = 1,    /* may be omitted: takes def */
	PF_WRITE = 2,  /* tensor the op writes */
	PF_RANGE = 4   /* integer that must lie in lo..hi */
};

enum { KD_MAXPARAM = 10 };

typedef struct {
	const char *name;      /* the vendor API's parameter name */
	uint8_t kind, flags;
	int64_t lo, hi, def;
	uint32_t spaces;       /* tensors: bit per KdSpace allowed (0: any) */
	const char *sdef;      /* the default as the docs print it (NULL: def) */
	const char *const *enums;  /* PK_STR: the accepted strings, NULL-terminated */
} KdOpParam;

typedef struct {
	const char *name;      /* source spelling, "data_move" */
	KdTarget target;       /* KD_TARGET_NONE: generic IR op, not callable */
	KdOpKind kind;
	int nparam;
	KdOpParam param[KD_MAXPARAM];
	uint32_t dtypes;       /* element dtypes of its tensors (0: any) */
	const char *rt;        /* runtime entry point */
	const char *c_op;      /* pure scalar ops: the C operator */
	/* Rules beyond the table's ranges and dtype list (NULL: none). */
	void (*check)(KdCheck *c, const KdIns *ins);
	/* Estimated engine cycles of one execution. */
	int64_t (*cost)(const KdFunc *f, const KdIns *ins);
	const char *doc;       /* one paragraph: semantics */
	const char *rules;     /* one paragraph: the rules checked */
	const char *seed;      /* the seed page it rests on */
	/* The runtime entry takes the element dtype of parameter N-1 before the
	 * operands (typed vector ops); 0: it does not. */
	int rt_dtype_of;
	/* The op's typing rules on IR: operand kinds, dtypes, lane counts,
	 * immediates, the result's type against the operands (NULL: only the
	 * verifier's structural and table-driven checks).  Run by the IR
	 * verifier on every instruction, after building and after each pass,
	 * and by the textual IR reader; reports through kd_verify_fail
	 * (verify.h). */
	void (*verify)(KdVerify *v, const KdIns *ins);
} KdOpDesc;

extern const KdOpDesc kd_ops[KD_NOP];

/* The op of `target` named `name`, or NULL. */
const KdOpDesc *kd_op_lookup(KdTarget target, const char *name);
int kd_op_param_index(const KdOpDesc *d, const char *name);

/* The docs generator: markdown for every op of a target (kdslc --doc-ops). */
void kd_op_doc(KdBuf *out, KdTarget target);

#endif
