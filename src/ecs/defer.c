/* defer.c — the queue of structural changes requested while an iterator is
 * open. Each queued set owns a copy of its value, so the caller's memory may
 * change or go away before the queue is applied. */
#include "ecm_internal.h"

#include <stdlib.h>
#include <string.h>

int wk__defer(wk_ecm *ecm, wk__deferred_op op, wk_entity e, wk_type type, const void *value,
              bool recursive, void **staged)
{
    wk__deferred d = {.op = op, .entity = e, .type = type, .recursive = recursive};
    if (op == WK__OP_SET) {
        const wk_type_desc *desc = &ecm->types[type].desc;
        size_t align = desc->align < sizeof(void *) ? sizeof(void *) : desc->align;
        if (posix_memalign(&d.value, align, desc->size ? desc->size : 1))
            goto fail_nomem;
        int rc = value ? wk__value_copy(ecm, type, d.value, value) : (memset(d.value, 0, desc->size), 0);
        if (rc) {
            free(d.value);
            goto fail_nomem;
        }
    }
    if (WK__VEC_PUSH(ecm->deferred, d)) {
        wk__table_destroy_value(ecm, type, d.value);
        free(d.value);
        goto fail_nomem;
    }
    if (staged)
        *staged = d.value;
    return WK_OK;

fail_nomem:
    return wk__ecm_fail(ecm, WK_NOMEM, "out of memory queueing a change of entity %llu", (unsigned long long)e);
}

void wk__defer_flush(wk_ecm *ecm)
{
    /* Applying cannot queue more: no iterator is open. */
    for (size_t i = 0; i < ecm->deferred.count; i++) {
        wk__deferred *d = &ecm->deferred.items[i];
        if (wk__record_of(ecm, d->entity)) {
            switch (d->op) {
            case WK__OP_SET:
                wk__set_now(ecm, d->entity, d->type, d->value);
                break;
            case WK__OP_REMOVE:
                wk__remove_now(ecm, d->entity, d->type);
                break;
            case WK__OP_DESTROY:
                wk__destroy_now(ecm, d->entity, d->recursive);
                break;
            }
        }
        if (d->value) {
            wk__table_destroy_value(ecm, d->type, d->value);
            free(d->value);
        }
    }
    ecm->deferred.count = 0;
}
