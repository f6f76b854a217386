/* batch.c — all-or-nothing runs of changes, on the ECM's transactions. The
 * name index and the pose cache are derived from the ECM, so a rollback
 * rebuilds them rather than logging their changes too. */
#include "scene/scene_internal.h"

int wk_scene_batch_begin(wk_scene *s, wk_status *st)
{
    int rc = wk_ecm_txn_begin(s->ecm);
    return rc ? wk_fail(st, rc, "cannot start a batch: %s", wk_ecm_errmsg(s->ecm)) : WK_OK;
}

int wk_scene_batch_commit(wk_scene *s)
{
    return wk_ecm_txn_commit(s->ecm);
}

int wk_scene_batch_rollback(wk_scene *s)
{
    int rc = wk_ecm_txn_rollback(s->ecm);
    int refreshed = wk_scene_refresh(s);
    return rc ? rc : refreshed;
}
