/* names.c — the naming rules of the object world, the index of object names
 * and the checks that keep names unique where ObjectWorldService says. */
#include <ctype.h>
#include <string.h>

#include "scene/scene_internal.h"

bool wk_scene_name_valid(const char *name)
{
    if (!name || !isalpha((unsigned char)name[0]))
        return false;
    size_t n = strlen(name);
    if (n > WK_NAME_MAX)
        return false;
    for (size_t i = 1; i < n; i++)
        if (!isalnum((unsigned char)name[i]) && name[i] != '_')
            return false;
    return isalnum((unsigned char)name[n - 1]);
}

uint64_t wk__object_name_hash(const char *name)
{
    return wk__hash(name, strlen(name), 0);
}

int wk__names_add(wk_scene *s, wk_entity object)
{
    /* Once: an object brought back with its id (a level loaded again) may
     * still be there from before. */
    uint64_t h = wk__object_name_hash(wk__object_name(s, object));
    size_t cursor = 0;
    for (wk_entity o; (o = wk__index_next(&s->object_names, h, &cursor));)
        if (o == object)
            return WK_OK;
    return wk__index_add(&s->object_names, h, object);
}

void wk__names_remove(wk_scene *s, wk_entity object)
{
    wk__index_remove(&s->object_names, wk__object_name_hash(wk__object_name(s, object)), object);
}

int wk__names_rebuild(wk_scene *s)
{
    wk__index_clear(&s->object_names);
    wk_entity_list objects = {0};
    int rc = wk_scene_objects(s, &objects);
    for (size_t i = 0; rc == WK_OK && i < objects.count; i++)
        rc = wk__names_add(s, objects.items[i]);
    wk_entity_list_free(&objects);
    return rc;
}

typedef struct scope_check {
    const char *name;
    wk_entity except;
    wk_entity clash;
} scope_check;

static int clashes(const wk_scene *s, wk_entity e, bool inside, void *ctx)
{
    scope_check *c = ctx;
    if (e == c->except)
        return 0;
    const char *name = !inside ? wk__object_name(s, e) : wk_scene_is_frame(s, e) ? wk__entity_name(s, e) : NULL;
    if (name && strcmp(name, c->name) == 0) {
        c->clash = e;
        return 1;
    }
    return 0;
}

int wk__name_free(const wk_scene *s, wk_entity object, const char *name, bool global_alias, wk_entity except,
                  wk_status *st)
{
    if (!wk_scene_name_valid(name))
        return wk_fail(st, WK_INVALID,
                       "name '%s' is invalid: use letters, digits and '_', starting with a letter and ending with a "
                       "letter or digit",
                       name ? name : "");
    if (strcmp(name, "root") == 0)
        return wk_fail(st, WK_EXISTS, "name 'root' is the root object's");
    scope_check c = {name, except, 0};
    if (wk__walk_object(s, object, clashes, &c))
        return wk_fail(st, WK_EXISTS, "'%s' already names a%s under object '%s'", name,
                       wk_scene_is_frame(s, c.clash) ? " frame" : "n object", wk__object_name(s, object));
    /* A global alias is unique among all objects; no other object may take
     * the name of one. */
    uint64_t h = wk__object_name_hash(name);
    size_t cursor = 0;
    for (wk_entity o; (o = wk__index_next(&s->object_names, h, &cursor));) {
        const wk_object_info *info = wk_scene_object_info(s, o);
        if (o == except || !info || strcmp(info->name, name) != 0)
            continue;
        if (global_alias || info->name_is_global_alias)
            return wk_fail(st, WK_EXISTS, "'%s' is already the name of an object and %s a global alias", name,
                           global_alias ? "would be" : "is");
    }
    return WK_OK;
}
