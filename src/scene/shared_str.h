/* shared_str.h — immutable strings shared by counting references. */
#ifndef WK_SCENE_SHARED_STR_H
#define WK_SCENE_SHARED_STR_H

#include <stddef.h>

/* A new shared string holding the len bytes (a '\0' is added), with one
 * reference; NULL when out of memory. Readers use it as a plain C string and
 * must never write into it. */
char *wk__shared_str_new(const char *bytes, size_t len);

/* Takes one more reference to text (NULL is allowed) and returns it. */
char *wk__shared_str_ref(char *text);

/* Drops one reference to text (NULL is allowed), freeing it with the last. */
void wk__shared_str_release(char *text);

#endif
