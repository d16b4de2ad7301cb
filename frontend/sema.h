/* sema.h: semantic analysis of a parsed file: scopes, types, shapes,
 * constant folding, memory spaces, kernel signatures and op calls bound
 * against the op table.  The IR builder reads the annotated AST. */
#ifndef KD_SEMA_H
#define KD_SEMA_H

#include "ast.h"

enum { KD_MAXDIM = 8 };

typedef enum {
	TY_ERROR,    /* already reported: silences follow-on errors */
	TY_VOID, TY_INT, TY_FLOAT, TY_BOOL, TY_STR,
	TY_TENSOR,   /* a tensor, or a view of one (is_view) */
	TY_LIST, TY_TUPLE,
	TY_VEC, TY_MASK  /* aipu: dt and lanes; a mask also maskbits */
} KdTyKind;

struct KdType {
	KdTyKind kind;
	KdDtype dt;            /* scalar dtype (TY_INT: I64 unless cast), tensor element */
	KdSpace space;
	int rank;
	int64_t dims[KD_MAXDIM];
	int is_view;           /* t[k]: an element address inside the tensor */
	int nelem;             /* TY_LIST / TY_TUPLE */
	KdType **elem;
	int lanes, maskbits;   /* TY_VEC / TY_MASK */
	/* neuron: block dims of a blocked tensor, and its direct allocation */
	int nbdim;
	int64_t bdims[KD_MAXDIM];
	const struct KdAllocSpec *alloc;
	/* neuron: a view's access pattern over its tensor (sema_neuron.h) */
	const struct KdViewAp *ap;
	KdType *view;          /* kd_type_view's type for this tensor type, once made */
};

typedef enum {
	SYM_CONST,   /* file-level const: cval */
	SYM_PARAM,   /* kernel parameter (tensor or scalar) */
	SYM_BUF,     /* on-chip buffer declared with let */
	SYM_LET,     /* immutable value */
	SYM_VAR,     /* mutable value */
	SYM_IV       /* loop induction variable */
} KdSymKind;

struct KdSym {
	KdSymKind kind;
	const char *name;
	KdNode *decl;
	KdType *ty;
	int is_const;
	int64_t cval;
	double fcval;
	int index;             /* SYM_PARAM: parameter number */
	int slot;              /* free for the IR builder */
	int used, assigned;
	int bad;               /* its declaration, or an assignment to it, had
	                        * an error: a statement using it is KD_STMT_BAD */
	KdSym *shadow;         /* scope.c: the symbol of this name it hides */
	int depth;             /* scope.c: the scope it was declared in */
};

/* Returns the number of errors.  *target receives the file's target. */
int kd_sema(KdArena *a, KdDiag *d, KdNode *file, KdTarget *target);
const char *kd_type_str(KdArena *a, const KdType *t);
int64_t kd_type_nelem(const KdType *t);
/* The type of an element index t[k] of a tensor of type base (base
 * marked as a view), made once per base type and shared: a long kernel
 * indexes the same tensors hundreds of thousands of times.  Nothing may
 * change it; a target whose views differ per index (neuron's access
 * patterns) makes its own. */
KdType *kd_type_view(KdArena *a, const KdType *base);

#endif
