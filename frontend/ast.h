/* ast.h: the syntax tree the parser builds and sema annotates.  Every node
 * lives in the arena and carries the span of the source it came from. */
#ifndef KD_AST_H
#define KD_AST_H

#include <stddef.h>

#include "kd.h"

typedef enum {
	/* declarations */
	N_FILE,      /* list: decls (N_TARGET, N_CONST, N_KERNEL) */
	N_TARGET,    /* name */
	N_CONST,     /* name, a: value */
	N_KERNEL,    /* name, list: params (N_PARAM), a: body (N_BLOCK) */
	N_PARAM,     /* name, type */
	/* statements */
	N_BLOCK,     /* list: statements */
	N_LET,       /* name, type (may be NULL), a: init (may be NULL); flags: KD_LET_VAR */
	N_LETTUPLE,  /* list: N_IDENT names, a: init */
	N_ASSIGN,    /* name, a: value */
	N_STORE,     /* a: target (N_INDEX), b: value: an element write u[i] = v */
	N_FOR,       /* name, a: lo, b: hi, c: step (may be NULL), d: body */
	N_IF,        /* a: cond, b: then (N_BLOCK), c: else (N_BLOCK, N_IF or NULL) */
	N_RETURN,    /* no operands */
	N_EXPRSTMT,  /* a: expression */
	/* expressions */
	N_INT,       /* ival */
	N_FLOAT,     /* fval */
	N_STR,       /* name: contents without quotes (escapes resolved) */
	N_BOOL,      /* ival: 0 or 1 */
	N_IDENT,     /* name */
	N_BINARY,    /* op (a KdBinop), a, b */
	N_UNARY,     /* op (a KdUnop), a */
	N_CALL,      /* name: callee, name_span, list: arguments (exprs, then N_KWARG) */
	N_CAST,      /* type: the target type (scalar or vector), list: arguments */
	N_KWARG,     /* name, a: value */
	N_INDEX,     /* a: base, list: indices (exprs or N_SLICE), b: a permutation
	              * (KD_INDEX_T) or NULL */
	N_SLICE,     /* a: lo (may be NULL), b: hi (may be NULL), c: step (may be NULL) */
	N_LIST,      /* list: elements, written [a, b] */
	N_TUPLE,     /* list: elements, written (a, b) */
	/* types */
	N_TYPE,      /* see KdTypeAst fields below */
	N_NKIND
} KdNodeKind;

typedef enum {
	B_ADD, B_SUB, B_MUL, B_DIV, B_REM, B_SHL, B_SHR, B_AND, B_OR, B_XOR,
	B_EQ, B_NE, B_LT, B_LE, B_GT, B_GE, B_LAND, B_LOR, B_NBINOP
} KdBinop;
typedef enum { U_NEG, U_NOT, U_PLUS, U_BITNOT, U_NUNOP } KdUnop;

extern const char *const kd_binop_spelling[B_NBINOP];
extern const char *const kd_unop_spelling[U_NUNOP];

enum {
	KD_LET_VAR = 1,      /* N_LET: declared with var */
	KD_KERNEL_BAD = 2,   /* N_KERNEL: redefined; lowering skips it */
	KD_STMT_BAD = 4,     /* a statement sema rejected, or one that uses a
	                      * name whose declaration it rejected (KdSym.bad):
	                      * lowering skips it (a for or if: with its body) */
	KD_INT_U64 = 8,      /* N_INT: above INT64_MAX; ival holds its 64 bits */
	KD_INT_U64_OK = 16,  /* N_INT: sema: where an operand is unsigned 64-bit */
	KD_INDEX_ELEM = 32,  /* N_INDEX: sema: the element's value, not a tensor view
	                      * (ascend's u[i] outside a tensor operand) */
	KD_INDEX_T = 64      /* N_INDEX: v.T (b: the N_IDENT after the dot) or
	                      * permute(v, [...]) (b: the N_LIST); sema checks it */
};

typedef struct KdNode KdNode;
typedef struct KdType KdType;       /* semantic type, defined by sema.h */
typedef struct KdSym KdSym;         /* a declaration, defined by sema.h */

typedef struct {
	KdNode **v;
	int n;
} KdNodeList;

/* A big kernel has millions of nodes (~7 a line), alive until lowering
 * ends, and their pages are most of a compilation's peak memory (on the
 * 2-core VM of 2026-11-25, zeroing a million-line kernel's fresh pages
 * was 40% of its compile time).  So a node holds what every kind needs
 * first, and what only an inner node needs after it: a leaf (a literal
 * or an identifier, 6 in 10 nodes) is allocated only up to its operands,
 * KD_LEAF_SIZE bytes, and a pair (an operator, a simple statement: most
 * of the rest) up to b (kd_node_shape); nothing may read the fields past
 * a node's shape.  (Under AddressSanitizer the arena poisons the bytes
 * past a block, so a read that breaks this is reported.)
 * A type node never holds a value nor a name and a value never holds a
 * type's fields, so the two share their storage (anonymous unions: the
 * fields keep their names); the arena's memory is zeroed, so the unused
 * side reads 0 until a field of the node's own kind is set. */
struct KdNode {
	/* every kind */
	KdNodeKind kind;
	int op;                       /* KdBinop / KdUnop */
	int flags;
	int height;                   /* expression tree height (leaves 0); the
	                               * parser bounds it so later passes may recurse */
	int is_const;                 /* sema: expression folded to cval/fcval */
	KdSpan span;                  /* the whole construct */
	union {
		struct {
			KdSpan name_span;     /* the name, for N_CALL/N_LET/N_KWARG/... */
			const char *name;
		};
		struct {                  /* N_TYPE: the memory space (NULL for scalar
			                       * and vector types) */
			KdSpan space_span;
			const char *space;
		};
	};
	/* filled in by sema */
	KdType *ty;                   /* type of an expression or declaration */
	KdSym *sym;                   /* N_IDENT, N_LET, N_PARAM, N_FOR: the declaration */
	union {
		/* a literal's value is its folded value: sema sets cval
		 * (fcval) of an N_INT or N_BOOL (N_FLOAT) to ival (fval) */
		struct {
			union {
				int64_t ival;     /* N_INT, N_BOOL: the literal */
				int64_t cval;     /* sema: the folded value */
			};
			union {
				double fval;      /* N_FLOAT: the literal */
				double fcval;
			};
		};
		/* N_TYPE: dtype, vector lanes (0: scalar), mask element bits
		 * (bool8x8 -> 8; 0: not a mask); list: dims, list2: block dims
		 * (blocked tensors) */
		struct {
			KdDtype dtype;
			int lanes, maskbits;
		};
	};

	/* inner kinds only: a leaf ends here */
	KdNode *a, *b;
	/* full kinds only: a pair ends here */
	KdNode *c, *d;
	KdNodeList list;
	union {
		KdNodeList list2;         /* N_TYPE */
		struct {
			KdNode *type;         /* N_TYPE for N_PARAM, N_LET, N_CAST */
			const void *opdesc;   /* N_CALL: the KdOpDesc it resolved to */
			KdNode **bound;       /* N_CALL: argument per op parameter (NULL: default) */
		};
	};
};

/* How much of a node its kind has: none of the operand fields (a leaf:
 * literals and identifiers), a and b only (a pair: operators and the
 * simple statements), or all of them.  A node is allocated to its
 * shape's size, and nothing may read the fields past it. */
typedef enum { KD_SHAPE_LEAF, KD_SHAPE_PAIR, KD_SHAPE_FULL } KdNodeShape;

static inline KdNodeShape kd_node_shape(KdNodeKind k)
{
	switch (k) {
	case N_INT: case N_FLOAT: case N_STR: case N_BOOL: case N_IDENT:
		return KD_SHAPE_LEAF;
	case N_BINARY: case N_UNARY: case N_EXPRSTMT: case N_ASSIGN: case N_STORE: case N_KWARG: case N_CONST:
		return KD_SHAPE_PAIR;
	default:
		return KD_SHAPE_FULL;
	}
}

/* The bytes of a leaf and of a pair: the fields before a, before c. */
#define KD_LEAF_SIZE offsetof(KdNode, a)
#define KD_PAIR_SIZE offsetof(KdNode, c)

static inline int kd_node_is_leaf(KdNodeKind k)
{
	return kd_node_shape(k) == KD_SHAPE_LEAF;
}

/* A leaf must stay small and an inner node must not outgrow what it was
 * (see above). */
_Static_assert(KD_LEAF_SIZE <= 80, "a leaf KdNode grew: a million-line kernel holds ~4M of them");
_Static_assert(KD_PAIR_SIZE <= 96, "a pair KdNode grew: a million-line kernel holds ~1.5M of them");
_Static_assert(sizeof(KdNode) <= 152, "KdNode grew: a million-line kernel holds ~7M of them");

/* Builders used by the grammar actions. */
KdNode *kd_node(KdArena *a, KdNodeKind k, KdSpan span);
void kd_list_push(KdArena *a, KdNodeList *l, KdNode *n);

/* --emit=ast: an S-expression dump, one node per line, stable for tests. */
void kd_ast_dump(KdBuf *out, const KdSource *src, const KdNode *file);

#endif
