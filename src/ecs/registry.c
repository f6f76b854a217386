/* registry.c — component types registered at run time, and the default
 * behaviour (plain bytes) of types without hooks. */
#include "ecm_internal.h"

#include <stdlib.h>
#include <string.h>

static size_t natural_align(size_t size)
{
    size_t align = 1;
    while (align < 16 && align < size && size % (align * 2) == 0)
        align *= 2;
    return align;
}

int wk_ecm_register(wk_ecm *ecm, const wk_type_desc *desc, wk_type *out)
{
    if (!desc || !desc->name || !desc->name[0])
        return wk__ecm_fail(ecm, WK_INVALID, "component type needs a name");
    size_t align = desc->align ? desc->align : natural_align(desc->size);
    if ((align & (align - 1)) != 0 || align > 4096 || desc->size > UINT32_MAX)
        return wk__ecm_fail(ecm, WK_INVALID, "component type %s: bad size %zu or alignment %zu", desc->name,
                            desc->size, desc->align);
    if ((desc->hooks.serialize == NULL) != (desc->hooks.deserialize == NULL))
        return wk__ecm_fail(ecm, WK_INVALID, "component type %s: serialize and deserialize go together",
                            desc->name);
    wk_type existing = wk_ecm_type_by_name(ecm, desc->name);
    if (existing) {
        const wk_type_desc *old = &ecm->types[existing].desc;
        if (old->size != desc->size || old->align != align)
            return wk__ecm_fail(ecm, WK_MISMATCH,
                                "component type %s: registered with size %zu align %zu, now %zu align %zu",
                                desc->name, old->size, old->align, desc->size, align);
        if (old->sparse != desc->sparse)
            return wk__ecm_fail(ecm, WK_MISMATCH, "component type %s: registered %s sparse, now %s", desc->name,
                                old->sparse ? "as" : "not", desc->sparse ? "as sparse" : "not");
        *out = existing;
        return WK_OK;
    }
    if (ecm->type_count == UINT32_MAX - 1)
        return wk__ecm_fail(ecm, WK_RANGE, "too many component types");
    wk__type_info *types = realloc(ecm->types, (ecm->type_count + 2) * sizeof *types);
    if (!types)
        return wk__ecm_fail(ecm, WK_NOMEM, "out of memory registering %s", desc->name);
    ecm->types = types;
    char *name = strdup(desc->name);
    wk__type_info info = {.desc = *desc, .sparse = desc->sparse ? wk__sparse_new(desc->size, align) : NULL};
    if (!name || wk__values_grow(&info, 0, ecm->table_cap) ||
        (desc->sparse && (!info.sparse || WK__VEC_PUSH(ecm->sparse_types, ecm->type_count + 1)))) {
        free(name);
        free(info.values);
        wk__sparse_free(ecm, WK_NO_TYPE, info.sparse);
        return wk__ecm_fail(ecm, WK_NOMEM, "out of memory registering %s", desc->name);
    }
    wk_type id = ++ecm->type_count;
    const wk_type_hooks *h = &desc->hooks;
    info.plain = !h->copy && !h->destroy && !h->equal && !h->serialize;
    types[id] = info;
    types[id].desc.name = name;
    types[id].desc.align = align;
    *out = id;
    return WK_OK;
}

wk_type wk_ecm_type_by_name(const wk_ecm *ecm, const char *name)
{
    for (wk_type t = 1; t <= ecm->type_count; t++)
        if (strcmp(ecm->types[t].desc.name, name) == 0)
            return t;
    return WK_NO_TYPE;
}

const char *wk_ecm_type_name(const wk_ecm *ecm, wk_type type)
{
    return type >= 1 && type <= ecm->type_count ? ecm->types[type].desc.name : NULL;
}

bool wk_ecm_type_in_use(const wk_ecm *ecm, wk_type type)
{
    return type >= 1 && type <= ecm->type_count && ecm->types[type].in_use;
}

int wk__value_copy(const wk_ecm *ecm, wk_type type, void *dst, const void *src)
{
    const wk_type_desc *d = &ecm->types[type].desc;
    if (d->size == 0)
        return WK_OK;
    if (d->hooks.copy)
        return d->hooks.copy(dst, src);
    memcpy(dst, src, d->size);
    return WK_OK;
}

bool wk__value_equal(const wk_ecm *ecm, wk_type type, const void *a, const void *b)
{
    const wk_type_desc *d = &ecm->types[type].desc;
    if (d->size == 0)
        return true;
    if (d->hooks.equal)
        return d->hooks.equal(a, b);
    return wk__same_bytes(a, b, d->size);
}

bool wk_ecm_values_equal(const wk_ecm *ecm, wk_type type, const void *a, const void *b)
{
    return wk__value_equal(ecm, type, a, b);
}
