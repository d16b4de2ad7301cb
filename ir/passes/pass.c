/* pass.c: the pass manager.  -O0 runs no optimisation (the driver has
 * already run dce, which the emitter relies on); -O1 runs the pipeline
 * below; --passes runs exactly the passes named.  After each pass the
 * structural verifier and the hardware-rule checker run when asked
 * (--verify-each) and in every build without NDEBUG. */
#include <string.h>

#include "pass.h"
#include "ir_target.h"

static int dce_run(KdModule *m)
{
	return kd_ir_dce(m);
}

const KdPass kd_passes[] = {
	{"canon", "folds constants, propagates copies, simplifies permutations, drops no-op shuffles", kd_pass_canon, 0},
	{"dead-moves", "removes ops whose only effect is writing on-chip buffers nothing reads", kd_pass_dead_moves, 0},
	{"fuse-tiles", "neuron: merges loads, stores and tensor_copies over adjacent free ranges", kd_pass_fuse_tiles,
	 KD_TPASS_FUSE_TILES},
	{"dce", "removes pure instructions and block parameters nothing uses", dce_run, 0},
	{"fuse-bursts", "ascend: merges data_moves whose bursts line up, and loops of them", kd_pass_fuse_bursts,
	 KD_TPASS_FUSE_BURSTS},
	{"forward", "turns a copy through a staging buffer only another copy reads into the direct copy", kd_pass_forward,
	 KD_TPASS_FORWARD},
	{"fuse-select", "neuron: turns load, tensor_copy_predicated and store through a tile nothing else reads into one op",
	 kd_pass_fuse_select, KD_TPASS_FUSE_SELECT},
	{"empty-loops", "skips loops with no effect and no value used after them, drops unreachable blocks", kd_pass_empty_loops, 0},
};
const int kd_npasses = (int)(sizeof kd_passes / sizeof kd_passes[0]);

/* -O1: canon first (folded addresses fuse), dce after each pass that
 * leaves unused values behind. */
static const char o1_pipeline[] = "canon,dce,dead-moves,fuse-bursts,fuse-tiles,forward,fuse-select,dce,empty-loops";

const KdPass *kd_pass_lookup(const char *name, size_t len)
{
	for (int i = 0; i < kd_npasses; i++)
		if (strlen(kd_passes[i].name) == len && !memcmp(kd_passes[i].name, name, len))
			return &kd_passes[i];
	return NULL;
}

int kd_pass_list_bad(const char *list, size_t *len)
{
	const char *p = list;
	if (!*p)
		return -1;      /* --passes= : none */
	for (;;) {
		size_t n = strcspn(p, ",");
		if (!kd_pass_lookup(p, n)) {
			*len = n;
			return (int)(p - list);
		}
		if (!p[n])
			return -1;
		p += n + 1;
	}
}

void kd_pass_names(KdBuf *out)
{
	for (int i = 0; i < kd_npasses; i++)
		kd_buf_printf(out, "%s%s", i ? ", " : "", kd_passes[i].name);
}

#ifdef NDEBUG
enum { VERIFY_ALWAYS = 0 };
#else
enum { VERIFY_ALWAYS = 1 };
#endif

/* Runs pass p on m and returns its rewrite count.  With check, *honest
 * says whether a count of 0 kept its promise: the verifier skip below
 * trusts it, so --verify-each makes sure the IR prints as it was given. */
static int run_counted(KdModule *m, const KdPass *p, int check, int *honest)
{
	KdBuf before = {0}, after = {0};
	*honest = 1;
	if (!check)
		return p->run(m);
	kd_ir_print(&before, m);
	int rewrites = p->run(m);
	if (!rewrites) {
		kd_ir_print(&after, m);
		*honest = after.n == before.n && (!after.n || !memcmp(after.s, before.s, after.n));
	}
	kd_buf_free(&before);
	kd_buf_free(&after);
	return rewrites;
}

int kd_run_pass(KdDiag *d, KdModule *m, const KdPass *p, const KdPassOptions *o)
{
	/* A pass for other targets, or one that made no rewrite (a pass
	 * returns how many it made), leaves the IR as it was, which the
	 * verifiers passed already: a round of them costs a long kernel's
	 * -O1 compile about a tenth of its time. */
	int applies = !p->tpass || (kd_ir_target(m->target)->passes & p->tpass);
	int honest = 1;
	int rewrites = applies ? run_counted(m, p, o->verify_each, &honest) : 0;
	if (o->print_after_all || (o->print_after && !strcmp(o->print_after, p->name))) {
		KdBuf b = {0};
		kd_buf_printf(&b, "; *** IR after %s ***\n", p->name);
		kd_ir_print(&b, m);
		fwrite(b.s ? b.s : "", 1, b.n, stderr);
		kd_buf_free(&b);
	}
	if (!honest) {
		kd_error_nopos(d, "internal compiler error: pass '%s' changed the IR but reported no rewrite, "
		               "so the verifiers would have skipped it; please report it with the input", p->name);
		return 1;
	}
	if (!rewrites || (!VERIFY_ALWAYS && !o->verify_each))
		return 0;
	int bad = kd_ir_verify(d, m);
	if (!bad)
		bad = kd_ir_check_rules(d, m);
	if (bad) {
		kd_error_nopos(d, "internal compiler error: pass '%s' produced IR the verifier rejects "
		               "(the errors above); please report it with the input", p->name);
		return 1;
	}
	return 0;
}

int kd_run_passes(KdDiag *d, KdModule *m, const KdPassOptions *o)
{
	const char *list = o->passes ? o->passes : o->opt ? o1_pipeline : "";
	const char *p = list;
	while (*p) {
		size_t n = strcspn(p, ",");
		const KdPass *ps = kd_pass_lookup(p, n);
		if (ps && kd_run_pass(d, m, ps, o))
			return 1;
		p += n + (p[n] == ',');
	}
	return 0;
}
