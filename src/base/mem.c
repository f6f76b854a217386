/* mem.c — large arrays on huge-page mappings, small ones on malloc; see mem.h.
 *
 * Freed mappings are kept, up to WK__MEM_KEEP_BYTES, and handed out again:
 * their pages are already faulted in, and on this project's machines a
 * first touch of a fresh page costs twice a copy of it, so a world cloned,
 * created or grown where another was freed pays only for its bytes. */
#define _GNU_SOURCE /* mremap with MREMAP_FIXED */
#include "base/mem.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

static bool is_huge(size_t size)
{
    return size >= WK__MAPPED_BYTES;
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

/* ---- freed mappings kept for reuse ---------------------------------------- */

#define WK__MEM_KEEP_BYTES ((size_t)256 << 20)
#define WK__MEM_KEEP_COUNT 32

typedef struct kept_mapping {
    uint8_t *p;
    size_t len; /* a multiple of WK__HUGE_BYTES */
    /* The rest of a kept mapping whose front an array took: where that
     * array grows, in place, with no copy and no fresh pages. */
    bool tail;
} kept_mapping;

static struct {
    pthread_mutex_t lock;
    kept_mapping items[WK__MEM_KEEP_COUNT];
    size_t count;
    size_t bytes;
} kept = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void kept_drop(size_t i)
{
    kept.items[i] = kept.items[--kept.count];
}

/* Keeps a freed mapping of len bytes, joined to kept ones on either side
 * so that a freed array and the tail it did not grow into are one mapping
 * again; unmaps it when the keep is full. Joined pieces may be separate
 * kernel mappings, which only mremap minds (see remap_huge). */
static void keep(void *p, size_t len)
{
    uint8_t *start = p, *end = start + len;
    pthread_mutex_lock(&kept.lock);
    bool room = kept.bytes + len <= WK__MEM_KEEP_BYTES;
    size_t before = kept.count, after = kept.count;
    for (size_t i = 0; room && i < kept.count; i++) {
        if (kept.items[i].p + kept.items[i].len == start)
            before = i;
        if (kept.items[i].p == end)
            after = i;
    }
    if (room && before < kept.count) {
        kept.items[before].len += len;
        if (after < kept.count) {
            kept.items[before].len += kept.items[after].len;
            kept_drop(after);
        }
    } else if (room && after < kept.count) {
        kept.items[after] = (kept_mapping){start, len + kept.items[after].len, false};
    } else if (room && kept.count < WK__MEM_KEEP_COUNT) {
        kept.items[kept.count++] = (kept_mapping){start, len, false};
    } else {
        room = false;
    }
    if (room)
        kept.bytes += len;
    pthread_mutex_unlock(&kept.lock);
    if (!room)
        munmap(p, len);
}

/* Takes the first len bytes of kept mapping i; the rest stays kept, as a
 * tail. */
static uint8_t *kept_cut(size_t i, size_t len)
{
    kept_mapping *m = &kept.items[i];
    uint8_t *p = m->p;
    if (m->len > len)
        *m = (kept_mapping){p + len, m->len - len, true};
    else
        kept_drop(i);
    kept.bytes -= len;
    return p;
}

/* A kept mapping of at least len bytes, cut to len, or NULL. Tails come
 * last, being where other arrays grow. An array that is growing takes the
 * largest mapping, to grow on into its tail; one of known size the
 * smallest. */
static void *take_kept(size_t len, bool growing)
{
    pthread_mutex_lock(&kept.lock);
    size_t best = kept.count;
    for (size_t i = 0; i < kept.count; i++) {
        const kept_mapping *m = &kept.items[i], *b = &kept.items[best];
        if (m->len < len)
            continue;
        if (best == kept.count || (b->tail && !m->tail) ||
            (b->tail == m->tail && (growing ? m->len > b->len : m->len < b->len)))
            best = i;
    }
    uint8_t *p = best < kept.count ? kept_cut(best, len) : NULL;
    pthread_mutex_unlock(&kept.lock);
    return p;
}

/* Takes len kept bytes starting at end, where an array ends: whether they
 * were kept. */
static bool take_kept_at(uint8_t *end, size_t len)
{
    pthread_mutex_lock(&kept.lock);
    size_t i = 0;
    while (i < kept.count && !(kept.items[i].p == end && kept.items[i].len >= len))
        i++;
    bool found = i < kept.count;
    if (found)
        kept_cut(i, len);
    pthread_mutex_unlock(&kept.lock);
    return found;
}

/* ---- mappings ----------------------------------------------------------- */

/* A fresh huge mapping of len bytes (a multiple of WK__HUGE_BYTES), which
 * reads as zero. */
static void *map_fresh(size_t len)
{
    uint8_t *p = reserve_aligned(len);
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

/* A huge mapping of size bytes whose bytes outside [fill_from, fill_to)
 * read as zero; the caller fills the others. */
static void *map_huge(size_t size, size_t fill_from, size_t fill_to, bool growing)
{
    size_t len = round_up(size);
    uint8_t *p = take_kept(len, growing);
    if (!p)
        return map_fresh(len);
    memset(p, 0, fill_from);
    memset(p + fill_to, 0, size - fill_to);
    return p;
}

/* Resizes a huge mapping. Shrinking keeps the pages past its new end.
 * Growing takes first the kept bytes right after it, if there are enough:
 * no copy, no fault. Then a kept mapping big enough: copying the old bytes
 * into it costs less than the faults of fresh pages. Last, the kernel
 * moves it to a larger range with its page tables, huge pages included;
 * where that fails, because the range is kept pieces joined, it is copied
 * to fresh pages. */
static void *remap_huge(void *p, size_t old_size, size_t new_size)
{
    size_t old_len = round_up(old_size), new_len = round_up(new_size);
    if (new_len <= old_len) {
        if (new_len < old_len)
            keep((uint8_t *)p + new_len, old_len - new_len);
        return p;
    }
    if (take_kept_at((uint8_t *)p + old_len, new_len - old_len))
        return p;
    void *dst = take_kept(new_len, true);
    if (!dst) {
        dst = reserve_aligned(new_len);
        if (!dst)
            return NULL;
        void *moved = mremap(p, old_len, new_len, MREMAP_MAYMOVE | MREMAP_FIXED, dst);
        if (moved != MAP_FAILED) {
#ifdef MADV_HUGEPAGE
            madvise(moved, new_len, MADV_HUGEPAGE);
#endif
            return moved;
        }
        munmap(dst, new_len);
        if (!(dst = map_fresh(new_len)))
            return NULL;
    }
    memcpy(dst, p, old_size);
    keep(p, old_len);
    return dst;
}

void *wk__mem_resize(void *p, size_t old_size, size_t new_size, size_t align)
{
    if (new_size == 0)
        new_size = 1;
    if (is_huge(old_size) && is_huge(new_size))
        return remap_huge(p, old_size, new_size);
    void *q;
    if (is_huge(new_size)) {
        q = map_huge(new_size, 0, new_size, true);
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
    return wk__mem_zalloc_except(size, 0, 0);
}

void *wk__mem_zalloc_except(size_t size, size_t fill_from, size_t fill_to)
{
    return is_huge(size) ? map_huge(size, fill_from, fill_to, false) : calloc(1, size ? size : 1);
}

/* An ordinary store first reads the destination's cache line, a third of
 * the memory traffic of a large copy; a streaming store writes the line
 * whole without reading it. Measured on this project's machines: a 24 MB
 * copy into faulted-in pages at 5.1-5.7 GB/s with memcpy, 6.3-7.0 GB/s so. */
void wk__mem_copy(void *restrict dst, const void *restrict src, size_t n)
{
#ifdef __SSE2__
    if (n >= WK__MAPPED_BYTES) {
        uint8_t *d = dst;
        const uint8_t *s = src;
        size_t head = (size_t)(-(uintptr_t)d & 63);
        memcpy(d, s, head);
        size_t i = head;
        for (; i + 64 <= n; i += 64)
            for (size_t k = 0; k < 64; k += 16)
                _mm_stream_si128((__m128i *)(d + i + k), _mm_loadu_si128((const __m128i *)(s + i + k)));
        _mm_sfence();
        memcpy(d + i, s + i, n - i);
        return;
    }
#endif
    memcpy(dst, src, n);
}

void wk__mem_free(void *p, size_t size)
{
    if (!p)
        return;
    if (is_huge(size))
        keep(p, round_up(size));
    else
        free(p);
}

/* ---- sparse reservations ------------------------------------------------ */

/* Released reservations kept with their pages, as freed mappings are: a
 * world created or cloned where another was freed then writes its records
 * into memory already faulted in. Bounded by the memory they hold. */
#define WK__RESERVE_KEEP_COUNT 4

static struct {
    pthread_mutex_t lock;
    kept_mapping items[WK__RESERVE_KEEP_COUNT];
    size_t used[WK__RESERVE_KEEP_COUNT]; /* the bytes of each that hold pages */
    size_t count;
    size_t bytes;
} kept_reservations = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* A kept reservation of at most *size and at least min_size bytes, with
 * its size in *size, or NULL. */
static void *take_kept_reservation(size_t *size, size_t min_size)
{
    pthread_mutex_lock(&kept_reservations.lock);
    uint8_t *p = NULL;
    for (size_t i = 0; !p && i < kept_reservations.count; i++) {
        kept_mapping m = kept_reservations.items[i];
        if (m.len > *size || m.len < min_size)
            continue;
        p = m.p;
        *size = m.len;
        kept_reservations.bytes -= kept_reservations.used[i];
        size_t last = --kept_reservations.count;
        kept_reservations.items[i] = kept_reservations.items[last];
        kept_reservations.used[i] = kept_reservations.used[last];
    }
    pthread_mutex_unlock(&kept_reservations.lock);
    return p;
}

void *wk__mem_reserve(size_t *size, size_t min_size)
{
    void *kept_one = take_kept_reservation(size, min_size);
    if (kept_one)
        return kept_one;
    for (size_t len = *size; len >= min_size && len > WK__HUGE_BYTES; len /= 2) {
        uint8_t *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p == MAP_FAILED)
            continue;
#if defined(MADV_HUGEPAGE) && defined(MADV_NOHUGEPAGE)
        /* Advice only: without THP the reservation still works. */
        size_t dense_end = len < WK__RESERVE_DENSE_BYTES ? len : WK__RESERVE_DENSE_BYTES;
        madvise(p, WK__HUGE_BYTES, MADV_NOHUGEPAGE);
        madvise(p + WK__HUGE_BYTES, dense_end - WK__HUGE_BYTES, MADV_HUGEPAGE);
        if (dense_end < len)
            madvise(p + dense_end, len - dense_end, MADV_NOHUGEPAGE);
#endif
        *size = len;
        return p;
    }
    return NULL;
}

void wk__mem_unreserve(void *p, size_t size, size_t used, bool zeroed)
{
    if (!p)
        return;
    /* Pages an earlier user wrote past this one's bytes: zeros held for
     * nothing. Dropped before the reservation is kept, and so seen by
     * another thread. */
    size_t held = round_up(used);
    if (zeroed && held < size)
        madvise((uint8_t *)p + held, size - held, MADV_DONTNEED);
    pthread_mutex_lock(&kept_reservations.lock);
    bool room = zeroed && kept_reservations.count < WK__RESERVE_KEEP_COUNT &&
                kept_reservations.bytes + used <= WK__RESERVE_KEEP_BYTES;
    if (room) {
        kept_reservations.items[kept_reservations.count] = (kept_mapping){p, size, false};
        kept_reservations.used[kept_reservations.count++] = used;
        kept_reservations.bytes += used;
    }
    pthread_mutex_unlock(&kept_reservations.lock);
    if (!room)
        munmap(p, size);
}
