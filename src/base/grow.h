/* grow.h — room in a malloc'd array for more items (internal to the library).
 *
 * The one way the library grows its arrays of small records: capacity
 * doubles, so n appends cost O(n) copies in all, and a failure leaves the
 * array, its items and its capacity as they were. Arrays grown here are
 * plain malloc memory, freed with free(). */
#ifndef WK_BASE_GROW_H
#define WK_BASE_GROW_H

#include <stddef.h>

/* Makes *cap at least need, reallocating the array whose address is
 * array_ptr (a T **, the array may be NULL with *cap 0) for items of
 * item_size bytes: the capacity doubles from what it was (8 when 0) until
 * need fits. WK_OK, or WK_NOMEM with nothing changed, also when the bytes
 * would not fit a size_t. */
int wk__grow(void *array_ptr, size_t *cap, size_t need, size_t item_size);

/* wk__grow for an array lvalue and its size_t capacity lvalue. */
#define WK__GROW(array, cap, need) wk__grow(&(array), &(cap), (need), sizeof *(array))

#endif
