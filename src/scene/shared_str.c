/* shared_str.c — immutable strings shared by counting references, so that a
 * clone of a scene shares its names and URIs with the original instead of
 * duplicating each one. A shared string reads as an ordinary C string; its
 * count sits just before its first character. The count is atomic because
 * the store clones and frees worlds on different threads. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "scene/shared_str.h"

typedef struct shared_str {
    atomic_size_t refs;
    char text[];
} shared_str;

static shared_str *header_of(char *text)
{
    return (shared_str *)(text - offsetof(shared_str, text));
}

char *wk__shared_str_new(const char *bytes, size_t len)
{
    shared_str *s = malloc(offsetof(shared_str, text) + len + 1);
    if (!s)
        return NULL;
    atomic_init(&s->refs, 1);
    memcpy(s->text, bytes, len);
    s->text[len] = '\0';
    return s->text;
}

char *wk__shared_str_ref(char *text)
{
    if (text)
        atomic_fetch_add_explicit(&header_of(text)->refs, 1, memory_order_relaxed);
    return text;
}

void wk__shared_str_release(char *text)
{
    /* acq_rel: every use of the string by other holders happens before the free. */
    if (text && atomic_fetch_sub_explicit(&header_of(text)->refs, 1, memory_order_acq_rel) == 1)
        free(header_of(text));
}
