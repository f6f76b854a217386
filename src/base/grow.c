/* grow.c — doubling growth of malloc'd arrays; see grow.h. */
#include "base/grow.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "worldkit/wk_base.h"

int wk__grow(void *array_ptr, size_t *cap, size_t need, size_t item_size)
{
    if (need <= *cap)
        return WK_OK;
    size_t n = *cap ? *cap : 8;
    while (n < need) {
        if (n > SIZE_MAX / 2)
            return WK_NOMEM;
        n *= 2;
    }
    if (item_size && n > SIZE_MAX / item_size)
        return WK_NOMEM;
    /* The array pointer is read and written as bytes: its type is the
     * caller's T *, which a void ** may not alias. */
    void *items;
    memcpy(&items, array_ptr, sizeof items);
    void *grown = realloc(items, n * item_size);
    if (!grown)
        return WK_NOMEM;
    memcpy(array_ptr, &grown, sizeof grown);
    *cap = n;
    return WK_OK;
}
