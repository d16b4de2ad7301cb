/* tables.c: dtypes, targets and memory spaces: facts every stage reads,
 * built from the runtime's lists in kdsl_hw.h. */
#include <string.h>

#include "kd.h"

/* A row per value of each list: a list that lost or repeated a value
 * would leave a hole or fail to compile (a repeated designator is an
 * error under -Woverride-init, -Wextra). */
#define COUNT(...) +1
_Static_assert(0 KDSL_DTYPE_LIST(COUNT) == KD_NDTYPE - 1, "a dtype lacks its row in KDSL_DTYPE_LIST");
_Static_assert(0 KDSL_MEM_LIST(COUNT) == KD_NSPACE - 1, "a space lacks its row in KDSL_MEM_LIST");
_Static_assert(0 KDSL_TARGET_LIST(COUNT) == KD_NTARGET - 1, "a target lacks its row in KDSL_TARGET_LIST");
#undef COUNT

const KdDtypeInfo kd_dtypes[KD_NDTYPE] = {
	[KD_DT_NONE] = {"?", "?", "void", 0, 0, 0, "0"},
#define ROW(dt, name, vendor, ctype, bytes, is_float, is_signed) \
	[dt] = {name, vendor, ctype, bytes, is_float, is_signed, #dt},
	KDSL_DTYPE_LIST(ROW)
#undef ROW
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

const char *const kd_target_names[KD_NTARGET] = {
	[KD_TARGET_NONE] = "?",
#define ROW(t, name) [t] = name,
	KDSL_TARGET_LIST(ROW)
#undef ROW
};

const char *const kd_target_rt_enums[KD_NTARGET] = {
	[KD_TARGET_NONE] = "0",
#define ROW(t, name) [t] = #t,
	KDSL_TARGET_LIST(ROW)
#undef ROW
};

KdTarget kd_target_lookup(const char *name, size_t len)
{
	for (int i = 1; i < KD_NTARGET; i++)
		if (strlen(kd_target_names[i]) == len && !memcmp(kd_target_names[i], name, len))
			return (KdTarget)i;
	return KD_TARGET_NONE;
}

const KdSpaceInfo kd_spaces[KD_NSPACE] = {
	[KD_SP_NONE] = {"?", "?", "0", 0, 0, 0, 0, 0},
#define ROW(sp, name, vendor, targets, external, align, partitions, capacity) \
	[sp] = {name, vendor, #sp, targets, external, align, partitions, capacity},
	KDSL_MEM_LIST(ROW)
#undef ROW
};

KdSpace kd_space_lookup(KdTarget t, const char *name, size_t len)
{
	for (int i = 1; i < KD_NSPACE; i++)
		if ((kd_spaces[i].targets & (1u << t)) && strlen(kd_spaces[i].name) == len &&
		    !memcmp(kd_spaces[i].name, name, len))
			return (KdSpace)i;
	return KD_SP_NONE;
}
