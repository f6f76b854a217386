/* kinematics_mimic.c — joints that mimic others (Mimic): when a joint's
 * position is set, each joint that follows it is set to multiplier *
 * position + offset, and the joints that follow those in turn, so what
 * hangs below every one of them moves along. */
#include <math.h>

#include "scene/kinematics_internal.h"

/* Couplings deeper than this are refused as loops: files do not chain
 * mimics further than a gripper's fingers. */
#define MIMIC_DEPTH_MAX 16

typedef struct followers {
    wk_entity leader;
    wk_entity_list list;
} followers;

static int collect(const wk_scene *s, wk_entity e, bool inside, void *ctx)
{
    followers *f = ctx;
    const wk_joint_mimic *m = inside ? wk_ecm_get(s->ecm, e, s->types.mimic) : NULL;
    return m && m->leader == f->leader && wk_scene_kinematics(s, e) ? wk_entity_list_push(&f->list, e) : WK_OK;
}

static int follow(wk_scene *s, wk_entity object, wk_entity leader, int depth, wk_status *st)
{
    const char *o = wk__object_name(s, object);
    if (depth > MIMIC_DEPTH_MAX)
        return wk_fail(st, WK_INVALID, "joint '%s' of object '%s': its chain of mimic joints loops",
                       wk__entity_name(s, leader), o);
    followers f = {.leader = leader};
    int rc = wk__walk_object(s, object, collect, &f);
    if (rc)
        rc = wk_fail(st, WK_NOMEM, "out of memory moving the joints that follow '%s'", wk__entity_name(s, leader));
    double position = wk_scene_kinematics(s, leader)->position;
    for (size_t i = 0; rc == WK_OK && i < f.list.count; i++) {
        wk_entity joint = f.list.items[i];
        const wk_joint_mimic *m = wk_ecm_get(s->ecm, joint, s->types.mimic);
        wk_kinematics kin = *wk_scene_kinematics(s, joint);
        kin.position = m->multiplier * position + m->offset;
        if (!isfinite(kin.position))
            rc = wk_fail(st, WK_INVALID, "joint '%s' of object '%s': mimicking '%s' gives position %g",
                         wk__entity_name(s, joint), o, wk__entity_name(s, leader), kin.position);
        else if (wk_ecm_set(s->ecm, joint, s->types.kinematics, &kin) < 0)
            rc = wk_fail(st, WK_NOMEM, "moving joint '%s': %s", wk__entity_name(s, joint), wk_ecm_errmsg(s->ecm));
        else if ((rc = wk_scene_set_pose(s, joint, wk__joint_pose(&kin), st)) == WK_OK)
            rc = follow(s, object, joint, depth + 1, st);
    }
    wk_entity_list_free(&f.list);
    return rc;
}

int wk__mimics_follow(wk_scene *s, wk_entity object, wk_entity leader, wk_status *st)
{
    /* Most worlds hold no mimic joint: then nothing is walked. */
    if (!wk_ecm_type_in_use(s->ecm, s->types.mimic))
        return WK_OK;
    return follow(s, object, leader, 0, st);
}
