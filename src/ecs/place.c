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

/* inline: a hint the link-time optimiser takes, so that the physics'
 * writes through these make no call. */
inline void *wk_ecm_place_cell(wk_ecm *ecm, wk_ecm_place *place)
{
    if (place->ecm != ecm || place->layout != ecm->layout)
        find(ecm, place);
    /* A transaction notes each old value before it changes. */
    return place->ecm && !ecm->txn ? place->value : NULL;
}

inline void wk_ecm_place_changed(wk_ecm *ecm, wk_ecm_place *place)
{
    wk__mark_changed(ecm, place->record, place->entity, place->change);
    ecm->version++;
}

int wk_ecm_place_set(wk_ecm *ecm, wk_ecm_place *place, const void *value)
{
    void *cell = value ? wk_ecm_place_cell(ecm, place) : NULL;
    if (!cell) {
        int rc = wk_ecm_set(ecm, place->entity, place->type, value);
        find(ecm, place);
        return rc;
    }
    if (wk__same_bytes(cell, value, place->size))
        return 0;
    wk__copy_value(cell, value, place->size);
    wk_ecm_place_changed(ecm, place);
    return 1;
}
