/* entity_info.c — EntityInfo, the component that says what an entity is for
 * the simulation_interfaces services: its category, a description and tags
 * (GetEntityInfo, SetEntityInfo, the filters of GetEntities).
 *
 * A stored value is one allocation: the tag pointers, then the description
 * and each tag, NUL-terminated, so copying, freeing and comparing walk one
 * block. The description is never NULL in a stored value. */
#include <stdlib.h>
#include <string.h>

#include "scene/codec.h"
#include "scene/scene_internal.h"

bool wk_entity_category_valid(uint32_t category)
{
    return category <= WK_CATEGORY_HUMAN || category == WK_CATEGORY_DYNAMIC_OBJECT ||
           category == WK_CATEGORY_STATIC_OBJECT;
}

/* Lays out category, description and tags as one block in dst. */
static int pack(wk_entity_info *dst, uint32_t category, const char *description, const char *const *tags, size_t n)
{
    *dst = (wk_entity_info){0};
    if (!description)
        description = "";
    if (n > UINT32_MAX || n > (SIZE_MAX / 4) / sizeof(char *))
        return WK_NOMEM;
    size_t total = n * sizeof(char *) + strlen(description) + 1;
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(tags[i]) + 1;
        if (total > SIZE_MAX / 4 - len)
            return WK_NOMEM;
        total += len;
    }
    char **block = malloc(total);
    if (!block)
        return WK_NOMEM;
    char *at = (char *)(block + n);
    size_t len = strlen(description) + 1;
    dst->description = memcpy(at, description, len);
    at += len;
    for (size_t i = 0; i < n; i++) {
        len = strlen(tags[i]) + 1;
        block[i] = memcpy(at, tags[i], len);
        at += len;
    }
    dst->category = category;
    dst->tag_count = (uint32_t)n;
    dst->tags = (const char *const *)block;
    return WK_OK;
}

static int info_copy(void *dst, const void *src)
{
    const wk_entity_info *from = src;
    return pack(dst, from->category, from->description, from->tags, from->tag_count);
}

static void info_destroy(void *value)
{
    /* The block starts at the tag pointers, or at the description when
     * there are none. */
    wk_entity_info *info = value;
    free(info->tag_count ? (void *)info->tags : (void *)info->description);
}

static bool info_equal(const void *a, const void *b)
{
    const wk_entity_info *x = a, *y = b;
    if (x->category != y->category || x->tag_count != y->tag_count || strcmp(x->description, y->description))
        return false;
    for (uint32_t i = 0; i < x->tag_count; i++)
        if (strcmp(x->tags[i], y->tags[i]))
            return false;
    return true;
}

/* category; description; tag count; each tag; strings length-prefixed. */
static int info_serialize(const void *value, wk_buf *out)
{
    const wk_entity_info *info = value;
    wk__enc e = {out, WK_OK};
    wk__put_u8(&e, (uint8_t)info->category);
    wk__put_bytes(&e, info->description, strlen(info->description));
    wk__put_u32(&e, info->tag_count);
    for (uint32_t i = 0; i < info->tag_count; i++)
        wk__put_bytes(&e, info->tags[i], strlen(info->tags[i]));
    return e.rc;
}

/* A copy of a length-prefixed string without NULs, or NULL (d->bad set). */
static char *get_string(wk__dec *d)
{
    size_t n;
    const uint8_t *bytes = wk__get_bytes(d, &n);
    if (d->bad || (n && memchr(bytes, 0, n))) {
        d->bad = true;
        return NULL;
    }
    char *s = malloc(n + 1);
    if (!s)
        return NULL;
    if (n)
        memcpy(s, bytes, n);
    s[n] = '\0';
    return s;
}

static int info_deserialize(void *dst, const uint8_t *bytes, size_t len)
{
    wk__dec d = {bytes, len, false};
    uint32_t category = wk__get_u8(&d);
    char *description = get_string(&d);
    uint32_t n = wk__get_u32(&d);
    /* Each tag takes at least its four-byte length: a count the bytes left
     * cannot hold is malformed before anything is allocated for it. */
    if (!description || d.bad || !wk_entity_category_valid(category) || n > d.left / 4) {
        bool nomem = description == NULL && !d.bad;
        free(description);
        return nomem ? WK_NOMEM : WK_PARSE;
    }
    char **tags = calloc(n ? n : 1, sizeof *tags);
    int rc = tags ? WK_OK : WK_NOMEM;
    for (uint32_t i = 0; i < n && rc == WK_OK; i++)
        if (!(tags[i] = get_string(&d)))
            rc = d.bad ? WK_PARSE : WK_NOMEM;
    if (rc == WK_OK && d.left)
        rc = WK_PARSE;
    if (rc == WK_OK)
        rc = pack(dst, category, description, (const char *const *)tags, n);
    for (uint32_t i = 0; tags && i < n; i++)
        free(tags[i]);
    free(tags);
    free(description);
    return rc;
}

const wk_type_hooks wk__entity_info_hooks = {.copy = info_copy,
                                             .destroy = info_destroy,
                                             .equal = info_equal,
                                             .serialize = info_serialize,
                                             .deserialize = info_deserialize};

const wk_entity_info *wk_scene_entity_info(const wk_scene *s, wk_entity e)
{
    return wk_ecm_get(s->ecm, e, s->types.entity_info);
}

int wk_scene_set_entity_info(wk_scene *s, wk_entity e, const wk_entity_info *info, wk_status *st)
{
    if (!wk_ecm_exists(s->ecm, e))
        return wk_fail(st, WK_NOT_FOUND, "no entity %llu", (unsigned long long)e);
    if (!wk_entity_category_valid(info->category))
        return wk_fail(st, WK_INVALID, "%u is not an entity category (0, 1, 2, 4 or 5)", info->category);
    for (uint32_t i = 0; i < info->tag_count; i++)
        if (!info->tags[i])
            return wk_fail(st, WK_INVALID, "tag %u is missing", i);
    wk_entity_info value;
    if (pack(&value, info->category, info->description, info->tags, info->tag_count))
        return wk_fail(st, WK_NOMEM, "out of memory");
    /* The ECM copies the value through the hooks: the packed block is ours
     * to free either way. */
    int rc = wk_ecm_set(s->ecm, e, s->types.entity_info, &value);
    info_destroy(&value);
    return rc < 0 ? wk_fail(st, rc, "%s", wk_ecm_errmsg(s->ecm)) : WK_OK;
}
