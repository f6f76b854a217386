/* buf.c — the growable byte buffer used for serialized state and messages. */
#include "worldkit/wk_base.h"

#include <stdlib.h>
#include <string.h>

int wk_buf_reserve(wk_buf *b, size_t n)
{
    /* Even n = 0 allocates an empty buffer, so that data + len is a pointer
     * callers may write zero bytes at. */
    if (b->cap - b->len >= n && b->data)
        return WK_OK;
    if (n > SIZE_MAX / 2 - b->len)
        return WK_NOMEM;
    size_t cap = b->cap ? b->cap : 64;
    while (cap - b->len < n)
        cap *= 2;
    uint8_t *data = realloc(b->data, cap);
    if (!data)
        return WK_NOMEM;
    b->data = data;
    b->cap = cap;
    return WK_OK;
}

int wk_buf_append(wk_buf *b, const void *bytes, size_t n)
{
    if (n == 0)
        return WK_OK;
    int rc = wk_buf_reserve(b, n);
    if (rc)
        return rc;
    memcpy(b->data + b->len, bytes, n);
    b->len += n;
    return WK_OK;
}

void wk_buf_free(wk_buf *b)
{
    free(b->data);
    *b = (wk_buf){0};
}
