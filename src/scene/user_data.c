/* user_data.c — an object's user data (UserData on its base entity): a map
 * of keys to google.protobuf.Any values, updated under the six policies of
 * UpdateUserData.
 *
 * A stored value is one allocation: the entries, sorted by key, followed by
 * each entry's key, type url (both NUL-terminated) and value bytes. Keys
 * being sorted and unique, two equal maps are equal values and serialize
 * to the same bytes. */
#include <stdlib.h>
#include <string.h>

#include "scene/codec.h"
#include "scene/scene_internal.h"

static const char *url_of(const wk_user_datum *d)
{
    return d->type_url ? d->type_url : "";
}

/* Lays out n entries (sorted, unique keys) as one allocation in dst. */
static int pack(wk_user_data *dst, const wk_user_datum *items, size_t n)
{
    *dst = (wk_user_data){0};
    if (n == 0)
        return WK_OK;
    if (n > (SIZE_MAX / 2) / sizeof *items)
        return WK_NOMEM;
    size_t total = n * sizeof *items;
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(items[i].key) + strlen(url_of(&items[i])) + 2;
        if (items[i].value_len > SIZE_MAX / 2 - len || total > SIZE_MAX / 2 - len - items[i].value_len)
            return WK_NOMEM;
        total += len + items[i].value_len;
    }
    wk_user_datum *out = malloc(total);
    if (!out)
        return WK_NOMEM;
    char *at = (char *)(out + n);
    for (size_t i = 0; i < n; i++) {
        size_t key_len = strlen(items[i].key) + 1, url_len = strlen(url_of(&items[i])) + 1;
        out[i].key = memcpy(at, items[i].key, key_len);
        at += key_len;
        out[i].type_url = memcpy(at, url_of(&items[i]), url_len);
        at += url_len;
        out[i].value = items[i].value_len ? memcpy(at, items[i].value, items[i].value_len) : (uint8_t *)at;
        out[i].value_len = items[i].value_len;
        at += items[i].value_len;
    }
    *dst = (wk_user_data){out, n};
    return WK_OK;
}

static int data_copy(void *dst, const void *src)
{
    const wk_user_data *from = src;
    return pack(dst, from->items, from->count);
}

static void data_destroy(void *value)
{
    free((void *)((wk_user_data *)value)->items);
}

static bool datum_equal(const wk_user_datum *a, const wk_user_datum *b)
{
    return strcmp(a->key, b->key) == 0 && strcmp(url_of(a), url_of(b)) == 0 && a->value_len == b->value_len &&
           (a->value_len == 0 || memcmp(a->value, b->value, a->value_len) == 0);
}

static bool data_equal(const void *a, const void *b)
{
    const wk_user_data *x = a, *y = b;
    if (x->count != y->count)
        return false;
    for (size_t i = 0; i < x->count; i++)
        if (!datum_equal(&x->items[i], &y->items[i]))
            return false;
    return true;
}

/* count; per entry: key, type url and value, each length-prefixed. */
static int data_serialize(const void *value, wk_buf *out)
{
    const wk_user_data *u = value;
    wk__enc e = {out, WK_OK};
    if (u->count > UINT32_MAX)
        return WK_RANGE;
    wk__put_u32(&e, (uint32_t)u->count);
    for (size_t i = 0; i < u->count; i++) {
        wk__put_bytes(&e, u->items[i].key, strlen(u->items[i].key));
        wk__put_bytes(&e, url_of(&u->items[i]), strlen(url_of(&u->items[i])));
        wk__put_bytes(&e, u->items[i].value, u->items[i].value_len);
    }
    return e.rc;
}

/* strcmp's order on byte runs without NULs. */
static int bytes_cmp(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
    int c = memcmp(a, b, an < bn ? an : bn);
    return c ? c : (an > bn) - (an < bn);
}

/* Reads count entries; with out NULL it only checks them and sums the
 * bytes their strings and values take into *bytes. */
static void get_entries(wk__dec *d, size_t count, wk_user_datum *out, size_t *bytes)
{
    const uint8_t *prev = NULL;
    size_t prev_len = 0, total = 0;
    char *at = out ? (char *)(out + count) : NULL;
    for (size_t i = 0; i < count && !d->bad; i++) {
        size_t key_len, url_len, value_len;
        const uint8_t *key = wk__get_bytes(d, &key_len);
        const uint8_t *url = wk__get_bytes(d, &url_len);
        const uint8_t *value = wk__get_bytes(d, &value_len);
        /* Keys strictly ascending; no NUL inside a string. */
        if (d->bad || (key_len && memchr(key, 0, key_len)) || (url_len && memchr(url, 0, url_len)) ||
            (prev && bytes_cmp(prev, prev_len, key, key_len) >= 0)) {
            d->bad = true;
            return;
        }
        prev = key;
        prev_len = key_len;
        total += key_len + url_len + value_len + 2;
        if (!out)
            continue;
        out[i].key = at;
        memcpy(at, key, key_len);
        at[key_len] = '\0';
        at += key_len + 1;
        out[i].type_url = at;
        memcpy(at, url, url_len);
        at[url_len] = '\0';
        at += url_len + 1;
        out[i].value = (const uint8_t *)at;
        out[i].value_len = value_len;
        if (value_len)
            memcpy(at, value, value_len);
        at += value_len;
    }
    *bytes = total;
}

static int data_deserialize(void *dst, const uint8_t *bytes, size_t len)
{
    wk__dec d = {bytes, len, false};
    uint32_t count = wk__get_u32(&d);
    /* An entry takes at least 12 bytes: three lengths. */
    if (d.bad || (uint64_t)count * 12 > d.left)
        return WK_PARSE;
    wk__dec body = d;
    size_t strings;
    get_entries(&d, count, NULL, &strings);
    if (d.bad || d.left)
        return WK_PARSE;
    wk_user_data *u = dst;
    *u = (wk_user_data){0};
    if (count == 0)
        return WK_OK;
    wk_user_datum *items = malloc(count * sizeof *items + strings);
    if (!items)
        return WK_NOMEM;
    get_entries(&body, count, items, &strings);
    *u = (wk_user_data){items, count};
    return WK_OK;
}

const wk_type_hooks wk__user_data_hooks = {.copy = data_copy,
                                           .destroy = data_destroy,
                                           .equal = data_equal,
                                           .serialize = data_serialize,
                                           .deserialize = data_deserialize};

wk_user_data wk_scene_user_data(const wk_scene *s, wk_entity object)
{
    const wk_user_data *u = wk_ecm_get(s->ecm, object, s->types.user_data);
    return u ? *u : (wk_user_data){0};
}

static int by_key(const void *a, const void *b)
{
    return strcmp(((const wk_user_datum *)a)->key, ((const wk_user_datum *)b)->key);
}

const wk_user_datum *wk_scene_user_datum(const wk_scene *s, wk_entity object, const char *key)
{
    wk_user_data u = wk_scene_user_data(s, object);
    wk_user_datum probe = {.key = key};
    return key && u.count ? bsearch(&probe, u.items, u.count, sizeof probe, by_key) : NULL;
}

/* The merge of the current entries cur and the sorted entries given (both
 * borrowed) under policy, written to out (room for both counts). */
static size_t merge(const wk_user_data *cur, const wk_user_datum *given, size_t n, wk_user_data_policy policy,
                    wk_user_datum *out)
{
    size_t i = 0, j = 0, k = 0;
    while (i < cur->count || j < n) {
        int c = i == cur->count ? 1 : j == n ? -1 : strcmp(cur->items[i].key, given[j].key);
        if (c < 0) {
            out[k++] = cur->items[i++];
        } else if (c > 0) {
            if (policy != WK_USER_DATA_REMOVE)
                out[k++] = given[j];
            j++;
        } else {
            /* A key in both: INSERT was refused before, REMOVE drops it,
             * INSERT_OR_UPDATE takes the new value. */
            if (policy != WK_USER_DATA_REMOVE)
                out[k++] = given[j];
            i++;
            j++;
        }
    }
    return k;
}

int wk_scene_update_user_data(wk_scene *s, wk_entity object, const wk_user_datum *entries, size_t n,
                              wk_user_data_policy policy, wk_status *st)
{
    if (!wk_scene_is_object(s, object))
        return wk_fail(st, WK_NOT_FOUND, "entity %llu is not an object", (unsigned long long)object);
    if ((unsigned)policy > WK_USER_DATA_CLEAR_ALL)
        return wk_fail(st, WK_INVALID, "user data of object '%s': unknown update policy %d",
                       wk__object_name(s, object), (int)policy);
    if (policy == WK_USER_DATA_UNSPECIFIED)
        policy = WK_USER_DATA_INSERT;
    if (policy == WK_USER_DATA_CLEAR_ALL)
        n = 0;
    const wk_user_data *cur = wk_ecm_get(s->ecm, object, s->types.user_data);
    wk_user_data none = {0};
    if (!cur || policy == WK_USER_DATA_CLEAR_AND_REPLACE || policy == WK_USER_DATA_CLEAR_ALL)
        cur = &none;
    /* The sorted entries given, then room for the merge; never empty, so
     * never NULL on success. */
    wk_user_datum *given = malloc((2 * n + cur->count) * sizeof *given + 1);
    if (!given)
        return wk_fail(st, WK_NOMEM, "out of memory updating the user data of object '%s'", wk__object_name(s, object));
    int rc = WK_OK;
    for (size_t i = 0; i < n && rc == WK_OK; i++) {
        given[i] = entries[i];
        if (!entries[i].key)
            rc = wk_fail(st, WK_INVALID, "user data of object '%s': entry %zu has no key", wk__object_name(s, object),
                         i);
    }
    if (rc == WK_OK && n)
        qsort(given, n, sizeof *given, by_key);
    for (size_t i = 1; rc == WK_OK && i < n; i++)
        if (strcmp(given[i - 1].key, given[i].key) == 0)
            rc = wk_fail(st, WK_INVALID, "user data of object '%s': key '%s' is given twice",
                         wk__object_name(s, object), given[i].key);
    for (size_t i = 0; rc == WK_OK && policy == WK_USER_DATA_INSERT && i < n; i++)
        if (cur->count && bsearch(&given[i], cur->items, cur->count, sizeof *given, by_key))
            rc = wk_fail(st, WK_EXISTS, "user data of object '%s' has key '%s' already: insert changes nothing",
                         wk__object_name(s, object), given[i].key);
    if (rc == WK_OK) {
        wk_user_data next = {given + n, merge(cur, given, n, policy, given + n)};
        rc = next.count ? wk_ecm_set(s->ecm, object, s->types.user_data, &next)
                        : wk_ecm_remove(s->ecm, object, s->types.user_data);
        if (rc < 0)
            rc = wk_fail(st, rc, "updating the user data of object '%s': %s", wk__object_name(s, object),
                         wk_ecm_errmsg(s->ecm));
        else
            rc = WK_OK;
    }
    free(given);
    return rc;
}
