/* codec.h — the byte layout of the scene's variable-size components
 * (collision settings, user data, physics): little-endian fixed-width
 * integers and IEEE doubles appended to a wk_buf, and a reader that walks
 * bytes without ever reading past their end. A failed read sets the
 * reader's bad flag and yields zero, so a deserializer reads everything and
 * checks once; it never trusts a count before checking that the bytes left
 * can hold it. */
#ifndef WK_SCENE_CODEC_H
#define WK_SCENE_CODEC_H

#include <math.h>
#include <string.h>

#include "worldkit/wk_base.h"

/* An encoder that stops at the first failed append: rc keeps the error. */
typedef struct wk__enc {
    wk_buf *out;
    int rc;
} wk__enc;

static inline void wk__put(wk__enc *e, const void *bytes, size_t n)
{
    if (e->rc == WK_OK)
        e->rc = wk_buf_append(e->out, bytes, n);
}

/* v's low n bytes, least significant first. */
static inline void wk__put_le(wk__enc *e, uint64_t v, int n)
{
    uint8_t b[8];
    for (int i = 0; i < n; i++)
        b[i] = (uint8_t)(v >> (8 * i));
    wk__put(e, b, (size_t)n);
}

static inline void wk__put_u64(wk__enc *e, uint64_t v)
{
    wk__put_le(e, v, 8);
}

static inline void wk__put_u32(wk__enc *e, uint32_t v)
{
    wk__put_le(e, v, 4);
}

static inline void wk__put_u8(wk__enc *e, uint8_t v)
{
    wk__put(e, &v, 1);
}

static inline void wk__put_f64(wk__enc *e, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    wk__put_u64(e, bits);
}

/* A length-prefixed run of bytes. */
static inline void wk__put_bytes(wk__enc *e, const void *bytes, size_t n)
{
    if (n > UINT32_MAX) {
        e->rc = e->rc ? e->rc : WK_RANGE;
        return;
    }
    wk__put_u32(e, (uint32_t)n);
    if (n)
        wk__put(e, bytes, n);
}

typedef struct wk__dec {
    const uint8_t *p;
    size_t left;
    bool bad;
} wk__dec;

static inline const uint8_t *wk__take(wk__dec *d, size_t n)
{
    if (d->bad || n > d->left) {
        d->bad = true;
        return NULL;
    }
    const uint8_t *at = d->p;
    d->p += n;
    d->left -= n;
    return at;
}

/* n bytes, least significant first; 0 past the end. */
static inline uint64_t wk__get_le(wk__dec *d, int n)
{
    const uint8_t *b = wk__take(d, (size_t)n);
    uint64_t v = 0;
    for (int i = 0; b && i < n; i++)
        v |= (uint64_t)b[i] << (8 * i);
    return v;
}

static inline uint64_t wk__get_u64(wk__dec *d)
{
    return wk__get_le(d, 8);
}

static inline uint32_t wk__get_u32(wk__dec *d)
{
    return (uint32_t)wk__get_le(d, 4);
}

static inline uint8_t wk__get_u8(wk__dec *d)
{
    const uint8_t *b = wk__take(d, 1);
    return b ? *b : 0;
}

/* A bool written as one byte: anything but 0 or 1 is malformed. */
static inline bool wk__get_bool(wk__dec *d)
{
    uint8_t v = wk__get_u8(d);
    if (v > 1)
        d->bad = true;
    return v == 1;
}

/* A finite double: NaN and infinities are malformed, since no component
 * holds them and a NaN would make a value unequal to its own copy. */
static inline double wk__get_f64(wk__dec *d)
{
    uint64_t bits = wk__get_u64(d);
    double v;
    memcpy(&v, &bits, sizeof v);
    if (!isfinite(v)) {
        d->bad = true;
        return 0;
    }
    return v;
}

/* A length-prefixed run of bytes, borrowed from the input; *n is its
 * length. */
static inline const uint8_t *wk__get_bytes(wk__dec *d, size_t *n)
{
    uint32_t len = wk__get_u32(d);
    const uint8_t *at = wk__take(d, len);
    *n = at ? len : 0;
    return at;
}

/* Bit-for-bit equality of doubles: what a serialized copy preserves. */
static inline bool wk__same_f64(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

#endif
