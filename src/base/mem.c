/* mem.c — large arrays on huge-page mappings, small ones on malloc; see mem.h. */
#define _GNU_SOURCE /* mremap with MREMAP_FIXED */
#include "base/mem.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static bool is_huge(size_t size)
{
    return size >= WK__HUGE_BYTES;
}

static size_t round_up(size_t size)
{
    return (size + WK__HUGE_BYTES - 1) & ~(WK__HUGE_BYTES - 1);
}

/* Reserves an address range of len bytes aligned to WK__HUGE_BYTES. */
static void *reserve_aligned(size_t len)
{
    size_t span = len + WK__HUGE_BYTES;
    uint8_t *base = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (base == MAP_FAILED)
        return NULL;
    uint8_t *aligned = (uint8_t *)(((uintptr_t)base + WK__HUGE_BYTES - 1) & ~(uintptr_t)(WK__HUGE_BYTES - 1));
    if (aligned > base)
        munmap(base, (size_t)(aligned - base));
    size_t tail = (size_t)(base + span - (aligned + len));
    if (tail)
        munmap(aligned + len, tail);
    return aligned;
}

static void *map_huge(size_t size)
{
    size_t len = round_up(size);
    void *p = reserve_aligned(len);
    if (!p)
        return NULL;
    if (mmap(p, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0) ==
        MAP_FAILED) {
        munmap(p, len);
        return NULL;
    }
#ifdef MADV_HUGEPAGE
    madvise(p, len, MADV_HUGEPAGE); /* advice only: without THP the mapping still works */
#endif
    return p;
}

/* Moves a huge mapping to a larger aligned one without copying: the kernel
 * moves the page tables, huge pages included. */
static void *remap_huge(void *p, size_t old_size, size_t new_size)
{
    size_t old_len = round_up(old_size), new_len = round_up(new_size);
    if (new_len == old_len)
        return p;
    void *dst = reserve_aligned(new_len);
    if (!dst)
        return NULL;
    void *moved = mremap(p, old_len, new_len, MREMAP_MAYMOVE | MREMAP_FIXED, dst);
    if (moved == MAP_FAILED) {
        munmap(dst, new_len);
        return NULL;
    }
#ifdef MADV_HUGEPAGE
    madvise(moved, new_len, MADV_HUGEPAGE);
#endif
    return moved;
}

void *wk__mem_resize(void *p, size_t old_size, size_t new_size, size_t align)
{
    if (new_size == 0)
        new_size = 1;
    if (is_huge(old_size) && is_huge(new_size))
        return remap_huge(p, old_size, new_size);
    void *q;
    if (is_huge(new_size)) {
        q = map_huge(new_size);
    } else if (align <= 16 && !is_huge(old_size)) {
        return realloc(p, new_size);
    } else if (posix_memalign(&q, align < sizeof(void *) ? sizeof(void *) : align, new_size)) {
        q = NULL;
    }
    if (!q)
        return NULL;
    if (old_size)
        memcpy(q, p, old_size < new_size ? old_size : new_size);
    wk__mem_free(p, old_size);
    return q;
}

void *wk__mem_zalloc(size_t size)
{
    return is_huge(size) ? map_huge(size) : calloc(1, size ? size : 1);
}

void wk__mem_free(void *p, size_t size)
{
    if (!p)
        return;
    if (is_huge(size))
        munmap(p, round_up(size));
    else
        free(p);
}
