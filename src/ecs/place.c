/* place.c — setting a component through a place: its cell and change mark
 * found once and kept while the ECM's storage does not move, so that a
 * writer of the same components every step (the physics engine) skips the
 * lookups of wk_ecm_set, with the same values, change marks and step
 * records as it. */
#include "ecm_internal.h"

void wk_ecm_place_init(wk_ecm_place *place, wk_entity e, wk_type type)
{
    *place = (wk_ecm_place){.entity = e, .type = type};
}

/* Finds the place's cell: only a table type's plain data, which a set
 * copies as bytes; anything else keeps going through wk_ecm_set. */
static void find(const wk_ecm *ecm, wk_ecm_place *place)
{
    place->ecm = NULL;
    wk__record *r = wk__record_of(ecm, place->entity);
    wk_type type = place->type;
    if (!r || type == WK_NO_TYPE || type > ecm->type_count || !ecm->types[type].plain || ecm->types[type].sparse ||
        !ecm->types[type].desc.size)
        return;
    const wk__table *t = ecm->tables[r->table];
    int32_t c = wk__column_index(t, type);
    if (c < 0)
        return;
    *place = (wk_ecm_place){place->entity, type, ecm, ecm->layout, wk__cell(t, c, r->row),
                            &t->columns[c].change[r->row], r, ecm->types[type].desc.size};
}

int wk_ecm_place_set(wk_ecm *ecm, wk_ecm_place *place, const void *value)
{
    if (place->ecm != ecm || place->layout != ecm->layout || ecm->txn || !value) {
        int rc = wk_ecm_set(ecm, place->entity, place->type, value);
        find(ecm, place);
        return rc;
    }
    if (wk__same_bytes(place->value, value, place->size))
        return 0;
    wk__copy_value(place->value, value, place->size);
    if (*place->change == WK_NO_CHANGE)
        *place->change = WK_ONE_TIME_CHANGE;
    /* As wk_ecm_set: fails only out of memory, the value set either way and
     * the message on the ECM. Once in the step's list, the entity's next
     * sets make no call. */
    wk__record *r = place->record;
    if (!(r->flags & (WK__NEW | WK__TOUCHED)))
        (void)wk__touch(ecm, r, place->entity);
    ecm->version++;
    return 1;
}
