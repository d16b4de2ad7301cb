/* aipu.c: the aipu ops that run in the runtime.  The vector ops are
 * inline C (backend/aipu/emit_aipu.c); what stays here is the DMA between
 * a kernel's tensors and lsram, the emulated on-chip memory, whose rules
 * (Compass's S.dma_copy) are checked again before anything is written. */
#include <inttypes.h>

#include "rt_internal.h"

/* Operand `what` at element off (bytes off_b) of a tensor of `bytes`
 * bytes: NULL, an lsram tensor outside this runtime's lsram, and count
 * elements of es bytes that do not all lie inside are errors. */
static int dma_operand(kdsl_rt *rt, const kdsl_site *site, const char *what, const unsigned char *base,
                       size_t bytes, kdsl_mem mem, int64_t off_b, int64_t count, size_t es)
{
	uint64_t n = bytes / es;
	if (!base)
		return kdsl_rt_fail(rt, site, KDSL_ERR_ARG, "%s tensor is NULL", what);
	if (mem == KDSL_MEM_LSRAM && !kdsl_rt_holds_(rt, mem, base, bytes))
		return kdsl_rt_fail(rt, site, KDSL_ERR_ARG, "%s tensor of %zu bytes is not in this runtime's lsram",
		                    what, bytes);
	/* off_b is a multiple of es (the emitter scales an element offset) */
	if (off_b < 0 || (uint64_t)off_b / es > n || n - (uint64_t)off_b / es < (uint64_t)count)
		return kdsl_rt_fail(rt, site, KDSL_ERR_BOUNDS,
		                    "%s: %" PRId64 " elements from element %" PRId64
		                    " are outside the tensor of %" PRIu64 " elements",
		                    what, count, off_b / (int64_t)es, n);
	return KDSL_OK;
}

int kdsl_aipu_dma_copy(kdsl_rt *rt, const kdsl_site *site, kdsl_dtype dt, kdsl_ref dst, int64_t dst_off,
                       kdsl_cref src, int64_t src_off, int64_t count)
{
	size_t es = kdsl_dtype_size(dt);
	int rc;

	if (!rt || !es)
		return KDSL_ERR_ARG;
	if (count < 1)
		return kdsl_rt_fail(rt, site, KDSL_ERR_RANGE, "count must be at least 1, got %" PRId64, count);
	if (!kdsl_aipu_dma_allowed(src.mem, dst.mem))
		return kdsl_rt_fail(rt, site, KDSL_ERR_ARG, "cannot copy from %s to %s (" KDSL_AIPU_DMA_TEXT ")",
		                    kdsl_mem_name(src.mem), kdsl_mem_name(dst.mem));
	if ((rc = dma_operand(rt, site, "dst", dst.base, dst.bytes, dst.mem, dst_off, count, es)) ||
	    (rc = dma_operand(rt, site, "src", src.base, src.bytes, src.mem, src_off, count, es)))
		return rc;
	size_t len = (size_t)count * es;
	if (rt->head.check) {
		if ((rc = kdsl_uninit_rows(rt, site, "src", src.base, src.mem, src.base + src_off, 0, 1, len)))
			return rc;
		kdsl_uninit_mark(rt, dst.mem, dst.base + dst_off, len);
	}
	/* gm to gm may overlap (the caller's tensors); one DMA reads all
	 * it copies first, as memmove does */
	memmove(dst.base + dst_off, src.base + src_off, len);
	return KDSL_OK;
}
