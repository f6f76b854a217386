/* test_mem.c — the large-array allocator (src/base/mem.h): arrays on either
 * side of the size from which they get mappings of their own read as zero,
 * keep their bytes when resized across it and when their mapping is reused,
 * wk__mem_copy copies exactly, at any alignment and length, with streaming
 * stores or without, a growing array grows in place into kept memory and
 * one the kernel holds in two pieces grows too, and a sparse reservation
 * reads as zero and shrinks to what the system grants. */
#define _DEFAULT_SOURCE /* mincore */
#include "base/mem.h"
#include "wk_test.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* A byte pattern that differs between neighbouring bytes and pages. */
static void fill(uint8_t *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)(i * 31 + (i >> 12) + seed);
}

static size_t count_nonzero(const uint8_t *p, size_t n)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        bad += p[i] != 0;
    return bad;
}

static void zeroed_on_both_sides_of_the_bound(void)
{
    const size_t sizes[] = {64, WK__MAPPED_BYTES - 1, WK__MAPPED_BYTES, WK__MAPPED_BYTES + 4096, WK__HUGE_BYTES + 1};
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        /* Dirty a mapping first, so that a reused one must be cleared. */
        uint8_t *dirty = wk__mem_zalloc(sizes[k]);
        REQUIRE(dirty);
        memset(dirty, 0xAB, sizes[k]);
        wk__mem_free(dirty, sizes[k]);
        uint8_t *p = wk__mem_zalloc(sizes[k]);
        REQUIRE(p);
        CHECK_INT(count_nonzero(p, sizes[k]), ==, 0);
        wk__mem_free(p, sizes[k]);
    }
}

static void resize_across_the_bound_keeps_bytes(void)
{
    size_t small = WK__MAPPED_BYTES / 2, mid = WK__MAPPED_BYTES + 100, big = 3 * WK__HUGE_BYTES;
    uint8_t *want = malloc(big);
    REQUIRE(want);
    fill(want, big, 7);
    uint8_t *p = wk__mem_resize(NULL, 0, small, 8);
    REQUIRE(p);
    memcpy(p, want, small);
    p = wk__mem_resize(p, small, mid, 8);
    REQUIRE(p);
    CHECK(memcmp(p, want, small) == 0);
    memcpy(p + small, want + small, mid - small);
    p = wk__mem_resize(p, mid, big, 8);
    REQUIRE(p);
    CHECK(memcmp(p, want, mid) == 0);
    p = wk__mem_resize(p, big, small, 8);
    REQUIRE(p);
    CHECK(memcmp(p, want, small) == 0);
    wk__mem_free(p, small);
    free(want);
}

static void copy_is_exact_at_any_alignment(void)
{
    size_t cap = WK__MAPPED_BYTES * 2 + 256;
    uint8_t *src = malloc(cap), *dst = malloc(cap + 64);
    REQUIRE(src && dst);
    fill(src, cap, 3);
    const size_t lengths[] = {0, 1, 63, 4096, WK__MAPPED_BYTES - 1, WK__MAPPED_BYTES, WK__MAPPED_BYTES + 77,
                              cap - 64};
    const size_t offsets[] = {0, 1, 15, 33};
    size_t wrong = 0, guard_hit = 0;
    for (size_t l = 0; l < sizeof lengths / sizeof *lengths; l++)
        for (size_t o = 0; o < sizeof offsets / sizeof *offsets; o++) {
            size_t n = lengths[l], at = offsets[o];
            memset(dst, 0x5A, cap + 64);
            wk__mem_copy(dst + at, src + (o * 7) % 64, n);
            wrong += memcmp(dst + at, src + (o * 7) % 64, n) != 0;
            /* Nothing written before or after the copy. */
            for (size_t i = 0; i < at; i++)
                guard_hit += dst[i] != 0x5A;
            for (size_t i = at + n; i < at + n + 16 && i < cap + 64; i++)
                guard_hit += dst[i] != 0x5A;
        }
    CHECK_INT(wrong, ==, 0);
    CHECK_INT(guard_hit, ==, 0);
    free(src);
    free(dst);
}

/* Writes and reads back a byte at both ends and the middle of a
 * reservation; the rest still reads as zero. */
static void check_reservation(uint8_t *p, size_t size)
{
    const size_t at[] = {0, WK__HUGE_BYTES - 1, WK__HUGE_BYTES, size / 2, size - 1};
    for (size_t k = 0; k < sizeof at / sizeof *at; k++) {
        CHECK_INT(p[at[k]], ==, 0);
        p[at[k]] = (uint8_t)(k + 1);
    }
    for (size_t k = 0; k < sizeof at / sizeof *at; k++)
        CHECK_INT(p[at[k]], ==, k + 1);
    CHECK_INT(count_nonzero(p + 1, 4096), ==, 0);
}

static void reservation_reads_as_zero_and_shrinks_to_fit(void)
{
    size_t size = (size_t)1 << 35; /* what an ECM's records ask for */
    uint8_t *p = wk__mem_reserve(&size, (size_t)8 << 20);
    REQUIRE(p);
    CHECK_U64(size, ==, (size_t)1 << 35);
    check_reservation(p, size);
    wk__mem_unreserve(p, size, 0, false);

    /* More than a 47-bit address space holds: halved until it fits. */
    size_t huge = (size_t)1 << 48;
    size = huge;
    p = wk__mem_reserve(&size, (size_t)8 << 20);
    REQUIRE(p);
    CHECK(size < huge && size >= ((size_t)8 << 20));
    CHECK_U64(size & (size - 1), ==, 0); /* halved from a power of two */
    check_reservation(p, size);
    wk__mem_unreserve(p, size, 0, false);

    /* Nothing at all when even the least is too much. */
    size = huge;
    CHECK(wk__mem_reserve(&size, huge) == NULL);
    CHECK_U64(size, ==, huge);
    wk__mem_unreserve(NULL, 0, 0, true);
}

static bool resident(const void *p)
{
    unsigned char in_core = 0;
    return mincore((void *)((uintptr_t)p & ~(uintptr_t)4095), 1, &in_core) == 0 && (in_core & 1);
}

/* An array grown from malloc into a mapping takes the largest kept one and
 * grows on into the rest of it in place; shrunk, it stays where it is. */
static void growing_array_grows_in_place_into_a_kept_mapping(void)
{
    size_t small = WK__MAPPED_BYTES / 2, big = 8 * WK__HUGE_BYTES;
    uint8_t *want = malloc(big);
    REQUIRE(want);
    fill(want, big, 3);
    uint8_t *freed = wk__mem_zalloc(2 * big);
    REQUIRE(freed);
    wk__mem_free(freed, 2 * big);
    uint8_t *p = wk__mem_resize(NULL, 0, small, 8);
    REQUIRE(p);
    memcpy(p, want, small);
    p = wk__mem_resize(p, small, WK__MAPPED_BYTES, 8);
    REQUIRE(p);
    memcpy(p, want, WK__MAPPED_BYTES);
    uint8_t *grown = wk__mem_resize(p, WK__MAPPED_BYTES, big, 8);
    REQUIRE(grown);
    CHECK(grown == p);
    CHECK(memcmp(grown, want, WK__MAPPED_BYTES) == 0);
    memcpy(grown, want, big);
    uint8_t *shrunk = wk__mem_resize(grown, big, WK__HUGE_BYTES, 8);
    CHECK(shrunk == grown);
    CHECK(memcmp(shrunk, want, WK__HUGE_BYTES) == 0);
    wk__mem_free(shrunk, WK__HUGE_BYTES);
    free(want);
}

/* An array whose range the kernel holds as two mappings (here split by
 * advice; kept pieces joined can be so too), which mremap refuses to move,
 * still grows, by a copy, with its bytes. Grown past what the keep may
 * hold, so that no kept mapping can take it. */
static void array_of_two_kernel_mappings_grows(void)
{
    size_t size = 2 * WK__HUGE_BYTES, huge = (size_t)300 << 20;
    uint8_t *p = wk__mem_zalloc(size);
    REQUIRE(p);
    fill(p, size, 5);
    REQUIRE(madvise(p + WK__HUGE_BYTES, WK__HUGE_BYTES, MADV_NOHUGEPAGE) == 0);
    uint8_t *grown = wk__mem_resize(p, size, huge, 8);
    REQUIRE(grown);
    uint8_t *want = malloc(size);
    REQUIRE(want);
    fill(want, size, 5);
    CHECK(memcmp(grown, want, size) == 0);
    grown[huge - 1] = 1;
    wk__mem_free(grown, huge);
    free(want);
}

/* A reservation released zeroed is kept for the next with the pages of
 * its used bytes, and without the pages written past them. */
static void kept_reservation_holds_only_its_used_pages(void)
{
    size_t size = (size_t)1 << 35, far = (size_t)100 << 20;
    uint8_t *p = wk__mem_reserve(&size, size);
    REQUIRE(p);
    p[0] = 1;
    p[far] = 1;
    CHECK(resident(p) && resident(p + far));
    p[0] = p[far] = 0;
    wk__mem_unreserve(p, size, 4096, true);
    size_t again = size;
    uint8_t *q = wk__mem_reserve(&again, again);
    REQUIRE(q == p); /* the one kept */
    CHECK(resident(q));
    CHECK(!resident(q + far));
    CHECK_INT(q[0], ==, 0);
    CHECK_INT(q[far], ==, 0);
    wk__mem_unreserve(q, again, 0, false);
}

static const wk_test_case cases[] = {
    {"zeroed_on_both_sides_of_the_bound", zeroed_on_both_sides_of_the_bound},
    {"resize_across_the_bound_keeps_bytes", resize_across_the_bound_keeps_bytes},
    {"copy_is_exact_at_any_alignment", copy_is_exact_at_any_alignment},
    {"reservation_reads_as_zero_and_shrinks_to_fit", reservation_reads_as_zero_and_shrinks_to_fit},
    {"kept_reservation_holds_only_its_used_pages", kept_reservation_holds_only_its_used_pages},
    {"growing_array_grows_in_place_into_a_kept_mapping", growing_array_grows_in_place_into_a_kept_mapping},
    {"array_of_two_kernel_mappings_grows", array_of_two_kernel_mappings_grows},
};
WK_TEST_MAIN(cases)
