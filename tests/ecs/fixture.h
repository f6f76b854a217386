/* fixture.h — component types shared by the ECS tests: two plain-data
 * vectors, a string with every hook (so that copies, frees, comparisons and
 * serialization go through hooks, and ASan sees any leak or double free), and
 * a tag without data. */
#ifndef WK_TEST_ECS_FIXTURE_H
#define WK_TEST_ECS_FIXTURE_H

#include <stdlib.h>
#include <string.h>

#include "worldkit/wk_ecm.h"

typedef struct vec {
    double x, y, z;
} vec;

typedef struct fixture {
    wk_ecm *ecm;
    wk_type pos, vel, name, tag;
} fixture;

static int str_copy(void *dst, const void *src)
{
    char *s = strdup(*(char *const *)src);
    *(char **)dst = s;
    return s ? 0 : WK_NOMEM;
}

static void str_destroy(void *value)
{
    free(*(char **)value);
}

static bool str_equal(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b) == 0;
}

static int str_serialize(const void *value, wk_buf *out)
{
    const char *s = *(char *const *)value;
    return wk_buf_append(out, s, strlen(s));
}

/* Refuses bytes holding a NUL, so tests can feed it an undecodable value. */
static int str_deserialize(void *dst, const uint8_t *bytes, size_t len)
{
    if (memchr(bytes, 0, len))
        return WK_PARSE;
    char *s = malloc(len + 1);
    if (!s)
        return WK_NOMEM;
    memcpy(s, bytes, len);
    s[len] = '\0';
    *(char **)dst = s;
    return 0;
}

static inline int fixture_register(wk_ecm *ecm, fixture *f)
{
    f->ecm = ecm;
    int rc = wk_ecm_register(ecm, &(wk_type_desc){.name = "Position", .size = sizeof(vec)}, &f->pos);
    rc = rc ? rc : wk_ecm_register(ecm, &(wk_type_desc){.name = "Velocity", .size = sizeof(vec)}, &f->vel);
    rc = rc ? rc
            : wk_ecm_register(ecm,
                              &(wk_type_desc){.name = "Name",
                                              .size = sizeof(char *),
                                              .hooks = {str_copy, str_destroy, str_equal, str_serialize,
                                                        str_deserialize}},
                              &f->name);
    return rc ? rc : wk_ecm_register(ecm, &(wk_type_desc){.name = "Static"}, &f->tag);
}

static inline fixture fixture_new(void)
{
    fixture f = {0};
    wk_ecm *ecm = wk_ecm_new();
    if (ecm && fixture_register(ecm, &f) == WK_OK)
        return f;
    wk_ecm_free(ecm);
    return (fixture){0};
}

static inline int set_name(const fixture *f, wk_entity e, const char *name)
{
    return wk_ecm_set(f->ecm, e, f->name, &name);
}

static inline const char *get_name(const fixture *f, wk_entity e)
{
    char *const *s = wk_ecm_get(f->ecm, e, f->name);
    return s ? *s : NULL;
}

#endif
