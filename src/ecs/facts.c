/* facts.c — the step's changes told one by one (wk_ecm_step_facts), for an
 * observer that keeps its own account of what changed across many steps:
 * the change stream's hub records which entity and which component type
 * changed at which version, so that a watcher far behind is sent the
 * latest values once rather than every step's. */
#include "ecm_internal.h"

/* Whether the entity is alive and stays so past the step's end. */
static const wk__record *lasting(const wk_ecm *ecm, wk_entity e)
{
    const wk__record *r = wk__record_of(ecm, e);
    return r && !(r->flags & WK__MARKED) ? r : NULL;
}

static void tell_touched(const wk_ecm *ecm, wk_entity e, const wk__record *r, wk_step_fact_fn fn, void *ctx)
{
    fn(e, WK_STEP_TOUCHED, WK_NO_TYPE, ctx);
    const wk__table *t = ecm->tables[r->table];
    for (uint32_t c = 0; c < t->type_count; c++)
        if (t->columns[c].change[r->row] != WK_NO_CHANGE)
            fn(e, WK_STEP_TOUCHED, t->types[c], ctx);
    for (size_t k = 0; k < ecm->sparse_types.count; k++) {
        wk_type type = ecm->sparse_types.items[k];
        const wk__sparse *s = ecm->types[type].sparse;
        uint32_t pos = wk__sparse_find(s, wk__index(e));
        if (pos && s->change[pos - 1] != WK_NO_CHANGE)
            fn(e, WK_STEP_TOUCHED, type, ctx);
    }
}

void wk_ecm_step_facts(const wk_ecm *ecm, wk_step_fact_fn fn, void *ctx)
{
    for (size_t i = 0; i < ecm->created.count; i++)
        if (lasting(ecm, ecm->created.items[i]))
            fn(ecm->created.items[i], WK_STEP_CREATED, WK_NO_TYPE, ctx);
    for (size_t i = 0; i < ecm->touched.count; i++) {
        wk_entity e = ecm->touched.items[i];
        const wk__record *r = lasting(ecm, e);
        if (r && !(r->flags & WK__NEW))
            tell_touched(ecm, e, r, fn, ctx);
    }
    for (size_t i = 0; i < ecm->removed_components.count; i++) {
        const wk__removed_component *rc = &ecm->removed_components.items[i];
        if (lasting(ecm, rc->entity) && !(wk__record_of(ecm, rc->entity)->flags & WK__NEW))
            fn(rc->entity, WK_STEP_COMPONENT_REMOVED, rc->type, ctx);
    }
    for (size_t i = 0; i < ecm->marked.count; i++) {
        const wk__record *r = wk__record_of(ecm, ecm->marked.items[i]);
        if (r && (r->flags & WK__MARKED))
            fn(ecm->marked.items[i], WK_STEP_REMOVED, WK_NO_TYPE, ctx);
    }
    for (size_t i = 0; i < ecm->destroyed.count; i++)
        fn(ecm->destroyed.items[i], WK_STEP_REMOVED, WK_NO_TYPE, ctx);
}
