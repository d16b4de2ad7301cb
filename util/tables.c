/* tables.c: dtypes, targets and memory spaces: facts every stage reads. */
#include <string.h>

#include "kd.h"

const KdDtypeInfo kd_dtypes[KD_NDTYPE] = {
	[KD_DT_NONE] = {"?", "?", "void", 0, 0, 0},
	[KD_I8] = {"i8", "int8", "int8_t", 1, 0, 1},
	[KD_I16] = {"i16", "int16", "int16_t", 2, 0, 1},
	[KD_I32] = {"i32", "int32", "int32_t", 4, 0, 1},
	[KD_I64] = {"i64", "int64", "int64_t", 8, 0, 1},
	[KD_U8] = {"u8", "uint8", "uint8_t", 1, 0, 0},
	[KD_U16] = {"u16", "uint16", "uint16_t", 2, 0, 0},
	[KD_U32] = {"u32", "uint32", "uint32_t", 4, 0, 0},
	[KD_U64] = {"u64", "uint64", "uint64_t", 8, 0, 0},
	[KD_F16] = {"f16", "float16", "kdsl_f16", 2, 1, 1},
	[KD_BF16] = {"bf16", "bfloat16", "kdsl_bf16", 2, 1, 1},
	[KD_F32] = {"f32", "float32", "float", 4, 1, 1},
	[KD_BOOL] = {"bool", "bool", "uint8_t", 1, 0, 0},
};

KdDtype kd_dtype_lookup(const char *name, size_t len)
{
	for (int i = 1; i < KD_NDTYPE; i++)
		if (strlen(kd_dtypes[i].name) == len && !memcmp(kd_dtypes[i].name, name, len))
			return (KdDtype)i;
	return KD_DT_NONE;
}

const char *kd_dtype_list(KdArena *a, uint32_t mask)
{
	KdBuf b = {0};
	for (int i = 1; i < KD_NDTYPE; i++)
		if (mask & KD_DTBIT(i))
			kd_buf_printf(&b, "%s%s", b.n ? ", " : "", kd_dtypes[i].name);
	char *s = kd_strdup(a, b.s ? b.s : "");
	kd_buf_free(&b);
	return s;
}

const char *const kd_target_names[KD_NTARGET] = {"?", "neuron", "ascend", "aipu"};

KdTarget kd_target_lookup(const char *name, size_t len)
{
	for (int i = 1; i < KD_NTARGET; i++)
		if (strlen(kd_target_names[i]) == len && !memcmp(kd_target_names[i], name, len))
			return (KdTarget)i;
	return KD_TARGET_NONE;
}

#define T(x) (1u << KD_TARGET_##x)
#define KiB 1024ull
const KdSpaceInfo kd_spaces[KD_NSPACE] = {
	[KD_SP_NONE] = {"?", "?", "0", 0, 0, 0, 0, 0},
	[KD_SP_GM] = {"gm", "OUT", "KDSL_MEM_GM", T(ASCEND) | T(AIPU), 1, 0, 0, 0},
	[KD_SP_UB] = {"ub", "UB", "KDSL_MEM_UB", T(ASCEND), 0, 32, 0, 256 * KiB},
	[KD_SP_L1] = {"l1", "L1", "KDSL_MEM_L1", T(ASCEND), 0, 32, 0, 1024 * KiB},
	[KD_SP_HBM] = {"hbm", "HBM", "KDSL_MEM_HBM", T(NEURON), 1, 0, 0, 0},
	[KD_SP_SBUF] = {"sbuf", "SBUF", "KDSL_MEM_SBUF", T(NEURON), 0, 0, 128, 192 * KiB},
	[KD_SP_PSUM] = {"psum", "PSUM", "KDSL_MEM_PSUM", T(NEURON), 0, 0, 128, 16 * KiB},
};

KdSpace kd_space_lookup(KdTarget t, const char *name, size_t len)
{
	for (int i = 1; i < KD_NSPACE; i++)
		if ((kd_spaces[i].targets & (1u << t)) && strlen(kd_spaces[i].name) == len &&
		    !memcmp(kd_spaces[i].name, name, len))
			return (KdSpace)i;
	return KD_SP_NONE;
}
