/* signature.c: --emit=signature-json, the kernels' calling interface in
 * a form a program reads (the Python package, python/kdsl, builds its
 * callables from it): for each kernel its kdsl and C names and, for each
 * parameter in order, its kdsl and C names, whether it is a tensor, its
 * dtype, and for a tensor its memory, shape and whether the kernel writes
 * it (an output).  Deterministic; one object, keys in a fixed order. */
#include "emit.h"

/* One parameter's object. */
static void param(KdBuf *o, const KdFunc *f, const struct KdParam *p)
{
	kd_buf_puts(o, "{\"name\": ");
	kd_json_str(o, p->name);
	kd_buf_puts(o, ", \"c_name\": \"");
	kd_c_name(o, p->name, 'p');
	kd_buf_printf(o, "\", \"kind\": \"%s\", \"dtype\": \"%s\"", p->is_tensor ? "tensor" : "scalar",
	              kd_dtypes[p->dt].name);
	if (p->is_tensor) {
		const KdBuffer *b = &f->buf[p->buf];
		kd_buf_printf(o, ", \"mem\": \"%s\", \"shape\": [", kd_spaces[b->space].name);
		for (int d = 0; d < b->rank; d++)
			kd_buf_printf(o, "%s%lld", d ? ", " : "", (long long)b->dims[d]);
		kd_buf_printf(o, "], \"written\": %s", b->written ? "true" : "false");
	}
	kd_buf_puts(o, "}");
}

void kd_emit_signature(KdBuf *o, const KdModule *m)
{
	kd_buf_printf(o, "{\"kdslc\": \"%s\", \"file\": ", KDSLC_VERSION);
	kd_json_str(o, m->src->path);
	kd_buf_printf(o, ", \"target\": \"%s\", \"kernels\": [", kd_target_names[m->target]);
	for (int i = 0; i < m->nfn; i++) {
		const KdFunc *f = m->fn[i];
		kd_buf_printf(o, "%s\n  {\"name\": ", i ? "," : "");
		kd_json_str(o, f->name);
		kd_buf_puts(o, ", \"c_name\": \"");
		kd_c_name(o, f->name, 'k');
		kd_buf_puts(o, "\", \"params\": [");
		for (int p = 0; p < f->nparam; p++) {
			kd_buf_puts(o, p ? ",\n    " : "\n    ");
			param(o, f, &f->params[p]);
		}
		kd_buf_puts(o, "]}");
	}
	kd_buf_puts(o, "]}\n");
}
