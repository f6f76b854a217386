/* kinematics_mimic.c — joints that mimic others (Mimic): when a joint's
 * position is set, each joint that follows it is set to multiplier *
 * position + offset, and the joints that follow those in turn, so what
 * hangs below every one of them moves along. A position outside a
 * follower's limits refuses the whole change, as one given outside a
 * degree of freedom's application limits does. */
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

/* The limits a follower's position must keep: its file's (a follower is
 * no degree of freedom, so it has no application limits), else none. */
static wk_joint_limit follower_limits(const wk_scene *s, wk_entity joint)
{
    const wk_scene_joint *j = wk_ecm_get(s->ecm, joint, s->types.joint);
    return j ? wk__limit_from_file(j) : (wk_joint_limit){-INFINITY, INFINITY, INFINITY, INFINITY, INFINITY, 0};
}

/* WK_OK when the position mimicking leader gives joint is finite and within
 * its limits; else a failure naming the follower, the object and the
 * leader. */
static int check_position(const wk_scene *s, wk_entity object, wk_entity joint, wk_entity leader,
                          const wk_kinematics *kin, wk_status *st)
{
    const char *o = wk__object_name(s, object);
    if (!isfinite(kin->position))
        return wk_fail(st, WK_INVALID, "joint '%s' of object '%s': mimicking '%s' gives position %g",
                       wk__entity_name(s, joint), o, wk__entity_name(s, leader), kin->position);
    wk_joint_limit l = follower_limits(s, joint);
    if (kin->position < l.min_position || kin->position > l.max_position)
        return wk_fail(st, WK_RANGE,
                       "joint '%s' of object '%s': mimicking '%s' gives position %.9g %s, outside its limits [%g, %g]",
                       wk__entity_name(s, joint), o, wk__entity_name(s, leader), kin->position,
                       wk__position_unit(kin->motion), l.min_position, l.max_position);
    return WK_OK;
}

static int follow(wk_scene *s, wk_entity object, wk_entity leader, int depth, wk_status *st)
{
    if (depth > MIMIC_DEPTH_MAX)
        return wk_fail(st, WK_INVALID, "joint '%s' of object '%s': its chain of mimic joints loops",
                       wk__entity_name(s, leader), wk__object_name(s, object));
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
        rc = check_position(s, object, joint, leader, &kin, st);
        if (rc == WK_OK && wk_ecm_set(s->ecm, joint, s->types.kinematics, &kin) < 0)
            rc = wk_fail(st, WK_NOMEM, "moving joint '%s': %s", wk__entity_name(s, joint), wk_ecm_errmsg(s->ecm));
        else if (rc == WK_OK && (rc = wk_scene_set_pose(s, joint, wk__joint_pose(&kin), st)) == WK_OK)
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
