/* mem.h — memory for large arrays (internal to the library).
 *
 * Arrays of WK__MAPPED_BYTES or more get mappings of their own, rounded up to
 * WK__HUGE_BYTES, aligned to it and advised for transparent huge pages (so one
 * may hold 1.5 MB it does not use): one page fault per 2 MB instead of 512,
 * and random access that does not miss the TLB. On this project's machines a
 * first touch of fresh 4 KB pages costs more than copying the data, so this is
 * what makes creating and cloning big worlds fast. Smaller arrays come from
 * malloc. Freed mappings are kept for reuse, up to a bound (see mem.c), so
 * their memory stays with the process. wk__mem_zalloc's arrays read as
 * zero; callers needing other zeroed small arrays clear them. */
#ifndef WK_BASE_MEM_H
#define WK_BASE_MEM_H

#include <stdbool.h>
#include <stddef.h>

#define WK__HUGE_BYTES ((size_t)2 << 20)
/* From this size up, arrays get mappings of their own: malloc unmaps
 * arrays this big when they are freed, and faults their pages in afresh on
 * every reuse (a clone of a million entities spent a sixth of its time so on
 * its 1 MB change arrays). */
#define WK__MAPPED_BYTES (WK__HUGE_BYTES / 4)

/* Resizes an array of old_size bytes (p may be NULL with old_size 0) to
 * new_size bytes aligned to align, keeping its contents. Returns the new
 * array, or NULL with p untouched. */
void *wk__mem_resize(void *p, size_t old_size, size_t new_size, size_t align);
/* A zero-filled array of size bytes, or NULL. */
void *wk__mem_zalloc(size_t size);
/* The same but for bytes [fill_from, fill_to), which the caller is about to
 * fill: they may hold anything (fill_from <= fill_to <= size). */
void *wk__mem_zalloc_except(size_t size, size_t fill_from, size_t fill_to);
/* memcpy for copies that will not be read soon, such as a clone's arrays:
 * a large one streams its stores past the cache. */
void wk__mem_copy(void *restrict dst, const void *restrict src, size_t n);
/* Frees an array of size bytes from either call above; NULL is a no-op. */
void wk__mem_free(void *p, size_t size);

/* Address space for a sparse array of up to *size bytes, which reads as
 * zero and takes memory only for the pages written. The array is meant to
 * be used densely from the bottom and sparsely above: the first
 * WK__HUGE_BYTES are in small pages, so that a small array stays small,
 * the rest of the first WK__RESERVE_DENSE_BYTES advised for huge pages,
 * and past that small pages again, so that a byte written far out costs
 * 4 KB, not 2 MB. When the system refuses that much address space (a limit
 * on it, or no overcommit), the size is halved down to min_size; *size
 * says what was reserved. NULL when not even that. */
void *wk__mem_reserve(size_t *size, size_t min_size);
#define WK__RESERVE_DENSE_BYTES ((size_t)1 << 30)
/* Releases a reservation of size bytes whose first `used` bytes hold every
 * byte written (NULL is a no-op). When the caller has zeroed them again
 * (zeroed), it may be kept for a later wk__mem_reserve with the pages of
 * those bytes, its others dropped: clearing memory costs less than the
 * page faults of fresh memory. */
void wk__mem_unreserve(void *p, size_t size, size_t used, bool zeroed);
/* The most memory kept reservations hold together: callers need not zero
 * a bigger one. */
#define WK__RESERVE_KEEP_BYTES ((size_t)64 << 20)

#endif
