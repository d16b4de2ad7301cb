/* kd.h: what every compiler stage shares: arena, string buffer, source
 * spans, diagnostics and the dtype table.  Compiler symbols use kd_ / Kd.
 * The hardware facts (dtypes, targets, memory spaces, limits) are the
 * runtime's kdsl_hw.h: the enums here name its values, the tables are
 * built from its lists. */
#ifndef KD_H
#define KD_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "kdsl_hw.h"

#if defined(__GNUC__)
#define KD_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define KD_PRINTF(f, a)
#endif

/* KD_ASAN: built with AddressSanitizer (gcc says so with a macro, clang
 * with __has_feature); the arena then poisons what it has not handed
 * out. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KD_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) && !defined(KD_ASAN)
#define KD_ASAN 1
#endif

/* ---- arena: every AST and IR node lives here; freed in one go ---- */
typedef struct KdArena KdArena;
/* A pool of freed arenas' big chunks for the next arenas made in it
 * (arena.c says why); kd_arena_pool_free gives them back to the system. */
typedef struct KdArenaPool KdArenaPool;
/* An arena's chunks grow to this size (arena.c). */
enum { KD_ARENA_CHUNK_MAX = 32 << 20 };
KdArena *kd_arena_new(void);                   /* in no pool */
KdArena *kd_arena_new_in(KdArenaPool *p);      /* in p (NULL: none) */
KdArena *kd_arena_new_like(const KdArena *a);  /* in a's pool (a scratch arena) */
void kd_arena_set_pool(KdArena *a, KdArenaPool *p);
/* Frees a; its big chunks go to its pool. */
void kd_arena_free(KdArena *a);
KdArenaPool *kd_arena_pool_new(void);
void kd_arena_pool_free(KdArenaPool *p);
/* Gives back kept chunks until they hold at most keep bytes. */
void kd_arena_pool_trim(KdArenaPool *p, size_t keep);
/* From now on p keeps at most limit bytes (SIZE_MAX, the default: no
 * limit); what it holds past that goes back to the system now. */
void kd_arena_pool_limit(KdArenaPool *p, size_t limit);
/* Gives back the chunks a filled before the one holding block p, to a's
 * pool or the system: for an arena nothing is allocated in any more
 * whose blocks die in the order they were made (the syntax tree as it
 * is lowered).  No block made before p may be read afterwards. */
void kd_arena_release_before(KdArena *a, const void *p);
/* The bytes a has handed out (its chunks' resident part). */
size_t kd_arena_used(const KdArena *a);
void *kd_alloc(KdArena *a, size_t n);          /* zeroed, 16-byte aligned */
char *kd_strndup(KdArena *a, const char *s, size_t n);
char *kd_strdup(KdArena *a, const char *s);
KD_PRINTF(2, 3) char *kd_fmt(KdArena *a, const char *fmt, ...);
/* p (old bytes, from kd_alloc or kd_regrow of a) grown to n bytes: a block
 * of n bytes whose first old bytes are p's.  p may be freed, so no pointer
 * into it may outlive the call; the bytes past old are NOT zeroed. */
void *kd_regrow(KdArena *a, void *p, size_t old, size_t n);

/* Growable array of pointers, arena backed (old storage is abandoned). */
typedef struct {
	void **v;
	int n, cap;
} KdVec;
void kd_vec_push(KdArena *a, KdVec *v, void *p);

/* ---- string buffer (malloc backed; used for output text) ---- */
typedef struct {
	char *s;
	size_t n, cap;
} KdBuf;
void kd_buf_put(KdBuf *b, const char *s, size_t n);
void kd_buf_puts(KdBuf *b, const char *s);
KD_PRINTF(2, 3) void kd_buf_printf(KdBuf *b, const char *fmt, ...);
void kd_buf_vprintf(KdBuf *b, const char *fmt, va_list ap);
void kd_buf_free(KdBuf *b);

/* ---- source text and spans ---- */
typedef struct {
	uint32_t off, len;           /* byte range in the source */
} KdSpan;

typedef struct {
	const char *path;            /* as given on the command line */
	const char *text;            /* NUL terminated (a copy; embedded NULs kept) */
	size_t len;
	uint32_t *line_off;          /* start offset of each line */
	int nline;
} KdSource;

int kd_source_load(KdSource *src, KdArena *a, const char *path);   /* 0 ok, -1 I/O */
void kd_source_from_string(KdSource *src, KdArena *a, const char *path,
                           const char *text, size_t len);
void kd_source_linecol(const KdSource *src, uint32_t off, int *line, int *col);
KdSpan kd_span_join(KdSpan a, KdSpan b);

/* ---- diagnostics: the one place that formats and counts them ---- */
enum { KD_ERROR, KD_WARNING, KD_NOTE };

/* Named warning groups, switchable with -W<name>/-Wno-<name>/-Werror=<name>. */
enum { KD_W_NONE, KD_W_UNUSED, KD_W_HAZARD, KD_W_MASK_PAD, KD_W_MATMUL_OVERWRITE, KD_W_NGROUP };

/* -fdiagnostics-format: GCC's text, GCC's JSON, SARIF 2.1.0. */
enum { KD_DIAG_TEXT, KD_DIAG_JSON, KD_DIAG_SARIF };
/* -fdiagnostics-color */
enum { KD_COLOR_AUTO, KD_COLOR_ALWAYS, KD_COLOR_NEVER };

/* One diagnostic kept for a machine-readable format, which can only be
 * written once all of them are known (one JSON array, one SARIF log). */
typedef struct KdDiagRec {
	int sev;                     /* after -Werror promotion */
	int group;                   /* warning group, 0: none */
	int promoted;                /* a warning made an error by -Werror */
	int line, col, eline, ecol;  /* 0: no position; ecol is inclusive */
	char *msg;                   /* malloc'd */
	struct KdDiagRec *notes;     /* its notes, in order */
	struct KdDiagRec *next;      /* next note, or next diagnostic */
} KdDiagRec;

/* A diagnostic held back for source order (kd_diag_hold). */
typedef struct {
	uint32_t key;                /* source offset; UINT32_MAX: no position */
	int seq;                     /* order of report, for equal offsets */
	KdBuf text;                  /* the lines, its notes included */
	KdDiagRec *rec;              /* the same for JSON/SARIF (text: NULL) */
} KdHeldDiag;

typedef struct {
	const KdSource *src;
	FILE *out;
	int nerror, nwarning;
	int max_errors;              /* stop reporting past this many (0: no limit) */
	int werror_all;
	unsigned char wgroup_off[KD_W_NGROUP];
	unsigned char wgroup_err[KD_W_NGROUP];
	int muted;                   /* set once max_errors is reached */
	int holding;                 /* kd_diag_hold: diagnostics wait in held */
	KdHeldDiag *held;
	int nheld, capheld;
	int format;                  /* KD_DIAG_TEXT/JSON/SARIF */
	int color;                   /* text: escape sequences on */
	KdDiagRec *first, *last;     /* JSON/SARIF: written, in order */
	KdDiagRec *latest;           /* the one a note belongs to */
} KdDiag;

void kd_diag_init(KdDiag *d, const KdSource *src, FILE *out);
KD_PRINTF(3, 4) void kd_error(KdDiag *d, KdSpan at, const char *fmt, ...);
KD_PRINTF(4, 5) void kd_warn(KdDiag *d, int group, KdSpan at, const char *fmt, ...);
KD_PRINTF(3, 4) void kd_note(KdDiag *d, KdSpan at, const char *fmt, ...);
void kd_vdiag(KdDiag *d, int sev, int group, KdSpan at, const char *fmt, va_list ap);
/* From kd_diag_hold to kd_diag_flush diagnostics are held, then written in
 * source order (stable: equal offsets keep the order they were reported
 * in), so the errors of different stages about one file read top down. */
void kd_diag_hold(KdDiag *d);
void kd_diag_flush(KdDiag *d);
/* A diagnostic with no source position ("kdslc: error: ..."). */
KD_PRINTF(2, 3) void kd_error_nopos(KdDiag *d, const char *fmt, ...);
/* The values of -fdiagnostics-format= (KD_DIAG_*) and -fdiagnostics-color[=]
 * (KD_COLOR_*; NULL, the bare option, is always); -1 for any other. */
int kd_diag_format_of(const char *val);
int kd_diag_color_of(const char *val);
/* Sets the format, and colour from KD_COLOR_* (auto: stderr is a terminal,
 * TERM is not "dumb" and NO_COLOR is unset or empty). */
void kd_diag_set_format(KdDiag *d, int format, int color);
/* Writes the JSON array or SARIF log of everything reported (text: nothing)
 * and frees the records.  Call once, after the last kd_diag_flush. */
void kd_diag_end(KdDiag *d);
/* s as a JSON string literal: quotes, backslashes and control bytes
 * escaped, bytes past ASCII as '?' (a path need not be UTF-8; JSON must
 * be).  The diagnostics' json format and --emit=signature-json use it. */
void kd_json_str(KdBuf *o, const char *s);
/* Damerau-Levenshtein (optimal string alignment) distance, capped: returns
 * max + 1 when the distance is larger than max. */
int kd_edit_distance(const char *a, size_t na, const char *b, size_t nb, int max);
/* "did you mean": the candidate nearest to a misspelt word, among those
 * at distance <= 2 and below half the word's length (the first of equals). */
typedef struct {
	const char *word;
	const char *best;            /* NULL: none close enough yet */
	int dist;
} KdNear;
void kd_near_init(KdNear *n, const char *word);
void kd_near_try(KdNear *n, const char *cand);
/* A note "did you mean 'BEST'?" at `at`, when there is a best. */
void kd_near_note(KdDiag *d, const KdNear *n, KdSpan at);
const char *kd_wgroup_name(int group);
int kd_wgroup_lookup(const char *name);

/* ---- the language's size limit ----
 * A tensor's extents, its element count and its byte size are each at
 * most 2^40 (docs/language.md).  Sema and the textual IR reader enforce
 * it, so every later stage may multiply extents, offsets and element
 * sizes without overflow checks. */
#define KD_MAX_TENSOR_BYTES ((int64_t)1 << 40)

/* ---- scalar dtypes, shared by every stage: kdsl_dtype's values ---- */
typedef enum {
	KD_DT_NONE = 0,
	KD_I8 = KDSL_I8, KD_I16 = KDSL_I16, KD_I32 = KDSL_I32, KD_I64 = KDSL_I64,
	KD_U8 = KDSL_U8, KD_U16 = KDSL_U16, KD_U32 = KDSL_U32, KD_U64 = KDSL_U64,
	KD_F16 = KDSL_F16, KD_BF16 = KDSL_BF16, KD_F32 = KDSL_F32,
	KD_BOOL = KDSL_BOOL,
	KD_NDTYPE = KDSL_NDTYPE
} KdDtype;

#define KD_DTBIT(t) (1u << (t))
#define KD_DT_INTS (KD_DTBIT(KD_I8) | KD_DTBIT(KD_I16) | KD_DTBIT(KD_I32) | KD_DTBIT(KD_I64) | \
                    KD_DTBIT(KD_U8) | KD_DTBIT(KD_U16) | KD_DTBIT(KD_U32) | KD_DTBIT(KD_U64))
#define KD_DT_FLOATS (KD_DTBIT(KD_F16) | KD_DTBIT(KD_BF16) | KD_DTBIT(KD_F32))

typedef struct {
	const char *name;            /* kdsl spelling: "f16" */
	const char *vendor;          /* the seed pages' spelling: "float16" */
	const char *ctype;           /* C storage type in generated code */
	uint8_t size;                /* bytes */
	uint8_t is_float, is_signed;
	const char *rt_enum;         /* "KDSL_F16" */
} KdDtypeInfo;

extern const KdDtypeInfo kd_dtypes[KD_NDTYPE];
KdDtype kd_dtype_lookup(const char *name, size_t len);   /* KD_DT_NONE if unknown */
/* "uint8, int8, float16" for diagnostics and docs. */
const char *kd_dtype_list(KdArena *a, uint32_t mask);

/* ---- targets: kdsl_target's values ---- */
typedef enum {
	KD_TARGET_NONE = 0,
	KD_TARGET_NEURON = KDSL_TARGET_NEURON, KD_TARGET_ASCEND = KDSL_TARGET_ASCEND,
	KD_TARGET_AIPU = KDSL_TARGET_AIPU,
	KD_NTARGET = KDSL_NTARGET
} KdTarget;
extern const char *const kd_target_names[KD_NTARGET];
extern const char *const kd_target_rt_enums[KD_NTARGET];   /* "KDSL_TARGET_ASCEND" */
KdTarget kd_target_lookup(const char *name, size_t len);

/* Memory spaces: kdsl_mem's values.  The table holds the facts the
 * verifier and the runtime agree on (KDSL_MEM_LIST). */
typedef enum {
	KD_SP_NONE = 0,
	KD_SP_GM = KDSL_MEM_GM, KD_SP_UB = KDSL_MEM_UB, KD_SP_L1 = KDSL_MEM_L1,   /* ascend (gm is also aipu's) */
	KD_SP_HBM = KDSL_MEM_HBM, KD_SP_SBUF = KDSL_MEM_SBUF, KD_SP_PSUM = KDSL_MEM_PSUM,   /* neuron */
	KD_SP_LSRAM = KDSL_MEM_LSRAM,   /* aipu */
	KD_NSPACE = KDSL_NMEM
} KdSpace;

typedef struct {
	const char *name;            /* "ub" */
	const char *vendor;          /* "UB", "OUT" as in seed 001's Table 2 */
	const char *rt_enum;         /* "KDSL_MEM_UB" */
	uint32_t targets;            /* bit per KdTarget */
	uint8_t external;            /* kernel parameters live here */
	uint32_t align;              /* address alignment in bytes (0: none) */
	uint32_t partitions;         /* 0: flat */
	uint64_t capacity;           /* bytes (per partition when partitioned) */
} KdSpaceInfo;

extern const KdSpaceInfo kd_spaces[KD_NSPACE];
KdSpace kd_space_lookup(KdTarget t, const char *name, size_t len);

#endif
