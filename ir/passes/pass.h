/* pass.h: the pass manager.  A pass is a plain function over the module
 * (QBE style) that returns how many rewrites it made: 0 promises the IR
 * is as it was, and the verifiers do not run again on it.  The pipeline runs
 * after the source program passed the structural verifier, the hardware
 * rules and placement, so every user error points at user code; a pass
 * that leaves IR either verifier rejects is a compiler bug. */
#ifndef KD_PASS_H
#define KD_PASS_H

#include "dom.h"
#include "ir.h"

typedef struct {
	const char *name;
	const char *doc;   /* one line, for --help-passes and usage errors */
	int (*run)(KdModule *m);
	/* A KD_TPASS_* bit: kd_run_pass runs the pass only on a module of a
	 * target that sets it (the pass itself does not check); 0: every
	 * target. */
	unsigned tpass;
} KdPass;

extern const KdPass kd_passes[];
extern const int kd_npasses;

typedef struct {
	int opt;                   /* -O level: 0 runs no optimisation */
	const char *passes;        /* --passes=a,b,c (NULL: the -O pipeline) */
	const char *print_after;   /* --print-after=PASS */
	int print_after_all;
	int verify_each;           /* verifiers after every pass (always without NDEBUG) */
} KdPassOptions;

/* The pass called name (len bytes), or NULL. */
const KdPass *kd_pass_lookup(const char *name, size_t len);
/* Checks a --passes list: -1 when every name is a pass, else the offset
 * of the first unknown name (its length in *len). */
int kd_pass_list_bad(const char *list, size_t *len);
/* Names of every pass, comma separated, into out. */
void kd_pass_names(KdBuf *out);
/* Runs the pipeline; returns the number of errors (internal ones). */
int kd_run_passes(KdDiag *d, KdModule *m, const KdPassOptions *o);
/* Runs one pass as the pipeline does (the verifiers after it, printing);
 * 1 on an internal error.  The pipeline's step, open for tests. */
int kd_run_pass(KdDiag *d, KdModule *m, const KdPass *p, const KdPassOptions *o);

/* The neuron copies (load, store, tensor_copy), which fuse-tiles and
 * forward treat alike, take (dst, src). */
enum { KD_COPY_DST = TENSOR_COPY_DST, KD_COPY_SRC = TENSOR_COPY_SRC, KD_COPY_N = TENSOR_COPY_NPARAM };
_Static_assert(KD_SAME_POS(LOAD_DST, KD_COPY_DST) && KD_SAME_POS(LOAD_SRC, KD_COPY_SRC) &&
               KD_SAME_POS(LOAD_NPARAM, KD_COPY_N) && KD_SAME_POS(STORE_DST, KD_COPY_DST) &&
               KD_SAME_POS(STORE_SRC, KD_COPY_SRC) && KD_SAME_POS(STORE_NPARAM, KD_COPY_N),
               "the neuron copies take (dst, src)");

/* The passes (one file each). */
int kd_pass_dce(KdModule *m);
int kd_pass_fuse_bursts(KdModule *m);
int kd_pass_canon(KdModule *m);
int kd_pass_fuse_tiles(KdModule *m);
int kd_pass_dead_moves(KdModule *m);
int kd_pass_empty_loops(KdModule *m);
int kd_pass_forward(KdModule *m);
int kd_pass_fuse_select(KdModule *m);

/* fuse-tiles' loop half (fuse_tiles_loops.c): fuses the loops of f whose
 * trips copy adjacent tile ranges; returns how many. */
int kd_fuse_tiles_loops(KdModule *m, KdFunc *f);

/* Helpers for passes (pass_util.c). */
/* Inserts the already-added instruction id at position pos of block blk
 * (kd_ins_add appends it at the end of the block it names). */
void kd_ins_move_to(KdFunc *f, int blk, int id, int pos);
/* Removes instruction id from its block; it stays in f->ins as an empty
 * pure op nothing reaches. */
void kd_ins_unlink(KdFunc *f, int id);
/* Does in read value v (as an operand or a successor argument)? */
int kd_ins_uses(const KdIns *in, int v);
/* The successor of blk's terminator when it is a jmp, else NULL. */
const KdSucc *kd_jmp_succ(const KdFunc *f, int blk);

/* What the loop passes know of a function's control flow (loops.c),
 * computed in one walk of the function so that a pass looking at every
 * loop stays linear.  A rewrite leaves it stale; the passes rewrite a
 * loop only where the staleness cannot matter (see loops.c) and analyse
 * again between rounds. */
typedef struct {
	KdArena *a;      /* everything below lives here */
	KdDom dom;       /* reachability and predecessor lists come from it */
	char *reach;     /* by block: a path from the entry reaches it */
	int *npred;      /* by block: reachable predecessors (one per edge) */
	int *jfrom;      /* by block, 2 each: the last two reachable blocks whose jmp goes there, or -1 */
	int *loop_of;    /* by block: header of the kd_loop_shape loop holding it, or -1 */
	char *escapes;   /* by value: read in a reachable block outside the loop that defines it */
} KdCfg;
/* Analyses f into c (zero it before first use; kd_cfg_free after the last). */
void kd_cfg_analyse(KdCfg *c, const KdFunc *f);
void kd_cfg_free(KdCfg *c);
/* proven[b] (f->nblk entries the caller owns): 1 when the rules of
 * block b's ops hold at every trip that may run, values included.  Under
 * a guard the rule checker cannot read (guards.h) it reported no value
 * error and left the values to the runtime; there kd_rules_hold checks
 * each op over the trips the readable guards keep, and a violation makes
 * the block unproven.  Passes that rest on the proof (dead-moves removes
 * only ops that cannot fail; forward, fuse-bursts and fuse-tiles take a
 * fused op to be as legal as the ops it replaces) leave unproven blocks
 * alone, so a run-time error is neither hidden nor moved. */
void kd_pass_proven(KdModule *m, KdFunc *f, char *proven);
/* Runs block(m, f, b) on every proven block b of f, again while it
 * reports a rewrite (it makes one a call and returns 1); returns how many
 * it made.  The driver of the straight-line rewrites of forward,
 * fuse-tiles and fuse-select. */
int kd_pass_rewrite_proven(KdModule *m, KdFunc *f, int (*block)(KdModule *m, KdFunc *f, int b));
/* kd_pass_rewrite_proven over every function of m. */
int kd_pass_rewrite_module(KdModule *m, int (*block)(KdModule *m, KdFunc *f, int b));
/* Does in name buffer buf among its operands? */
int kd_ins_names_buf(const KdFunc *f, const KdIns *in, int buf);
/* A kernel parameter or a directly allocated neuron tile: its bytes may
 * be another buffer's (parameters may be one memory; directly allocated
 * tiles may share physical tiles). */
int kd_buf_shared(const KdBuffer *b);
/* Does any op of f but those at skip (nskip instruction ids) read buffer
 * b, or name it other than as the dst of a plain write (one that reads
 * nothing first: an accumulating op counts when its flag is a constant
 * false)?  Views and tiles do not count.  The test forward and
 * fuse-select rest on: a buffer only their ops read may end with other
 * bytes. */
int kd_buf_read_elsewhere(const KdFunc *f, int b, const int *skip, int nskip);

/* The loop shape the builder makes and the loop passes rewrite: header h
 * is `lt iv, hi; br` with constant bounds and a positive step, entered
 * from one preheader; the body is a chain of at most KD_LOOP_CHAIN blocks,
 * each with one predecessor, jumping on to the next and the last back to
 * h.  Anything else is no such loop (0). */
enum { KD_LOOP_CHAIN = 64 };
typedef struct {
	int exitb;       /* where the loop leaves to */
	int pre;         /* the preheader */
	int cond;        /* the header's condition value */
	int chain[KD_LOOP_CHAIN], nchain;   /* the body blocks, in order */
} KdLoopShape;
int kd_loop_shape(const KdFunc *f, const KdCfg *c, int h, KdLoopShape *o);
/* Is block b part of the loop (its header h or its body)? */
int kd_loop_holds(const KdLoopShape *sh, int h, int b);
/* The preheader pre jumps to exitb instead, without arguments: the loop
 * is no longer entered. */
void kd_loop_skip(KdFunc *f, int pre, int exitb);

/* The loops the fusion passes rewrite: a kd_loop_shape loop that runs
 * at least once, whose exit has no other predecessor, whose preheader
 * passes lo and latch iv + step; the chain holds pure ops and exactly one
 * op `want` accepts; neither iv nor the condition is used outside the
 * loop.  Anything else is no such loop (0). */
typedef struct {
	int exitb;       /* where the loop leaves to */
	int pre;         /* the preheader */
	int op;          /* the one instruction want accepted */
	int64_t trips;
} KdCountedLoop;
int kd_counted_loop(const KdFunc *f, const KdCfg *c, int h, int (*want)(const KdIns *in),
                    KdCountedLoop *out);
/* Does anything outside the loop read a value it defines (a parameter or
 * result of its header or body)? */
int kd_loop_escapes(const KdFunc *f, const KdCfg *c, const KdLoopShape *sh, int h);

#endif
