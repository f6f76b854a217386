/* world_state.h — what the api fuzz targets check of a store world: its
 * serialized state before a call, and that a refused call left it so. */
#ifndef WK_TESTS_FUZZ_WORLD_STATE_H
#define WK_TESTS_FUZZ_WORLD_STATE_H

#include <stdlib.h>
#include <string.h>

#include "worldkit/wk_api.h"
#include "worldkit/wk_store.h"

/* The serialized state of the api's store world id; empty when there is
 * none. */
static inline wk_buf fuzz_world_state(wk_api *api, const char *id)
{
    wk_buf out = {0};
    wk_world *w;
    wk_status st;
    if (wk_store_open(wk_api_store(api), id, false, &w, &st) == WK_OK) {
        if (wk_ecm_state(wk_scene_ecm(wk_world_scene(w)), NULL, &out))
            abort();
        wk_store_close(w, false, false);
    }
    return out;
}

/* Aborts unless world id's state is before, byte for byte. */
static inline void fuzz_world_unchanged(wk_api *api, const char *id, const wk_buf *before)
{
    wk_buf after = fuzz_world_state(api, id);
    if (after.len != before->len || (before->len && memcmp(after.data, before->data, before->len) != 0))
        abort();
    wk_buf_free(&after);
}

#endif
