/* target_ascend.c: the backend's ascend hooks (emit_target.h): none.
 * Its operands are views of a buffer at an element offset, which emit.c
 * writes as kdsl_ref_of(buffer, bytes, space), byte offset. */
#include "emit_target.h"

const KdEmitTarget kd_emit_target_ascend = {0};
