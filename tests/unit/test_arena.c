/* test_arena.c: util/arena.c's contract (zeroed, 16-byte aligned blocks;
 * kd_regrow keeps what it moves; a pooled chunk comes back zeroed;
 * kd_arena_release_before gives back only what was made before) and,
 * in an AddressSanitizer build, that the bytes past every block are
 * poisoned (from the end rounded up to 16 bytes), so a read past an arena object is reported where it happens
 * (CI runs the suite under ASan). */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "kd.h"
#include "../check_run.h"

#ifdef KD_ASAN
#include <sanitizer/asan_interface.h>
#endif

static int all_zero(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

START_TEST(blocks_are_zeroed_and_aligned)
{
	KdArena *a = kd_arena_new();
	/* sizes across the first chunk's end and one bigger than a chunk */
	static const size_t sizes[] = {1, 15, 16, 17, 100, 4096, 70000, 1 << 20, 3};
	for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
		unsigned char *p = kd_alloc(a, sizes[i]);
		ck_assert_uint_eq((uintptr_t)p % 16, 0);
		ck_assert(all_zero(p, sizes[i]));
		memset(p, 0xab, sizes[i]);
	}
	kd_arena_free(a);
}
END_TEST

START_TEST(regrow_keeps_the_contents)
{
	KdArena *a = kd_arena_new();
	size_t n = 40;
	unsigned char *p = kd_regrow(a, NULL, 0, n);
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)i;
	/* small growth copies; from 256 KiB the block has a chunk of its own */
	while (n < (4u << 20)) {
		size_t m = n * 2;
		p = kd_regrow(a, p, n, m);
		size_t bad = 0;
		for (size_t i = 0; i < n; i++)
			bad += p[i] != (unsigned char)i;
		ck_assert_uint_eq(bad, 0);
		for (size_t i = n; i < m; i++)
			p[i] = (unsigned char)i;
		n = m;
	}
	kd_arena_free(a);
}
END_TEST

START_TEST(pooled_chunks_come_back_zeroed)
{
	KdArenaPool *pool = kd_arena_pool_new();
	for (int round = 0; round < 3; round++) {
		KdArena *a = kd_arena_new_in(pool);
		/* enough to make chunks of the pool's size */
		for (int i = 0; i < 64; i++) {
			unsigned char *p = kd_alloc(a, 16384);
			ck_assert(all_zero(p, 16384));
			memset(p, 0xcd, 16384);
		}
		kd_arena_free(a);
	}
	kd_arena_pool_free(pool);
}
END_TEST

/* kd_arena_release_before: the chunks filled before the one holding p
 * go back, the blocks from p's chunk on keep their bytes, and a block of
 * its own made while p's chunk was current (after p) stays too.  Under
 * ASan a block given back is no longer addressable. */
static void release_case(KdArenaPool *pool)
{
	enum { N = 4000, SZ = 1000 };
	KdArena *a = kd_arena_new_in(pool);
	static unsigned char *blk[N];
	for (int i = 0; i < N; i++) {
		blk[i] = kd_alloc(a, SZ);
		memset(blk[i], i & 0xff, SZ);
	}
	/* blk[k] in the current chunk; then a block bigger than a chunk: a
	 * chunk of its own, put behind the current one, made after blk[k] */
	int k = N - 10;
	unsigned char *big = kd_alloc(a, 40u << 20);
	memset(big, 0x5a, 40u << 20);
	unsigned char *last = kd_alloc(a, 16);
	size_t before = kd_arena_used(a);
	kd_arena_release_before(a, blk[k]);
	size_t after = kd_arena_used(a);
	ck_assert_uint_lt(after, before);
	ck_assert_uint_gt(after, 40u << 20);   /* the big block is still counted */
	/* from the chunk holding blk[k] on, nothing moved or changed */
	size_t bad = 0;
	for (int i = k; i < N; i++)
		for (int j = 0; j < SZ; j++)
			bad += blk[i][j] != (unsigned char)(i & 0xff);
	for (size_t j = 0; j < 40u << 20; j += 4093)
		bad += big[j] != 0x5a;
	ck_assert_uint_eq(bad, 0);
	memset(last, 1, 16);
#ifdef KD_ASAN
	ck_assert(__asan_address_is_poisoned(blk[0]));
	ck_assert(__asan_address_is_poisoned(blk[600]));   /* in the 512 KiB chunk: one the pool takes */
	ck_assert_ptr_null(__asan_region_is_poisoned(blk[k], SZ));
	ck_assert_ptr_null(__asan_region_is_poisoned(big, 40u << 20));
#endif
	/* again at the same place: nothing more goes */
	kd_arena_release_before(a, blk[k]);
	ck_assert_uint_eq(kd_arena_used(a), after);
	kd_arena_free(a);
}

START_TEST(release_before_gives_back_older_chunks)
{
	release_case(NULL);
	KdArenaPool *pool = kd_arena_pool_new();
	release_case(pool);
	/* a pool that keeps nothing: all of it to the system */
	kd_arena_pool_limit(pool, 0);
	release_case(pool);
	kd_arena_pool_free(pool);
}
END_TEST

#ifdef KD_ASAN
/* Every block's own bytes are addressable and the 16 bytes after its
 * rounded end are not, also once the next block is handed out, in a
 * fresh chunk, a pooled one and a regrown block. */
static void check_bounds(const unsigned char *p, size_t n)
{
	size_t end = (n + 15) & ~(size_t)15;
	ck_assert_ptr_null(__asan_region_is_poisoned((void *)(uintptr_t)p, n));
	ck_assert(__asan_address_is_poisoned(p + end));
	ck_assert(__asan_address_is_poisoned(p + end + 15));
}

START_TEST(bytes_past_a_block_are_poisoned)
{
	KdArenaPool *pool = kd_arena_pool_new();
	for (int round = 0; round < 2; round++) {
		KdArena *a = kd_arena_new_in(pool);
		unsigned char *prev = NULL;
		size_t pn = 0;
		/* sizes from 1 byte up, then 640 KB more: chunks of 256 KiB and
		 * up, which the second round takes from the pool */
		for (size_t n = 1, k = 0; k < 40; n < 16000 ? (void)(n += n / 2 + 7) : (void)k++) {
			unsigned char *p = kd_alloc(a, n);
			check_bounds(p, n);
			if (prev)
				check_bounds(prev, pn);
			prev = p;
			pn = n;
		}
		unsigned char *g = kd_regrow(a, NULL, 0, 100);
		g = kd_regrow(a, g, 100, 300);
		unsigned char *h = kd_alloc(a, 16);
		check_bounds(g, 300);
		check_bounds(h, 16);
		kd_arena_free(a);
	}
	kd_arena_pool_free(pool);
}
END_TEST
#endif

int main(void)
{
	Suite *s = suite_create("arena");
	TCase *tc = tcase_create("arena");
	tcase_add_test(tc, blocks_are_zeroed_and_aligned);
	tcase_add_test(tc, regrow_keeps_the_contents);
	tcase_add_test(tc, pooled_chunks_come_back_zeroed);
	tcase_add_test(tc, release_before_gives_back_older_chunks);
#ifdef KD_ASAN
	tcase_add_test(tc, bytes_past_a_block_are_poisoned);
#endif
	suite_add_tcase(s, tc);
	return kd_check_run(s);
}
