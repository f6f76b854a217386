/* kinematics_props.c — the properties of kinematic objects kept as data:
 * named joint configurations (UpdateKinematicObjectProperties), IK solvers
 * and ISO flange frames. Each call builds the new KinematicObject as a view
 * over the old one and the caller's arrays, checks it, and stores a deep
 * copy: nothing changes when a check fails. A frame these refer to cannot
 * leave its object (wk__kinematic_refs_check). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scene/kinematics_internal.h"

static int find_configuration(const wk_joint_configuration *list, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(list[i].name, name) == 0)
            return (int)i;
    return -1;
}

/* Checks one configuration to set against the object's joints. */
static int check_configuration(const wk_scene *s, wk_entity object, const wk_kinematic_object *k,
                               const wk_joint_configuration_desc *c, wk_status *st)
{
    const char *o = wk__object_name(s, object);
    if (!c->name || !*c->name)
        return wk_fail(st, WK_INVALID, "a joint configuration of object '%s' has no name", o);
    if (c->count != k->joint_count || (c->count && !c->positions))
        return wk_fail(st, WK_INVALID, "joint configuration '%s' gives %zu positions; object '%s' has %u joints",
                       c->name, c->count, o, k->joint_count);
    for (size_t j = 0; j < c->count; j++) {
        double q = c->positions[j];
        const wk_joint_limit *l = &k->application_limits[j];
        if (!isfinite(q))
            return wk_fail(st, WK_INVALID, "joint configuration '%s' of object '%s': position %zu is not finite",
                           c->name, o, j);
        /* A named pose the arm cannot take is refused as a move there is. */
        if (q < l->min_position || q > l->max_position)
            return wk_fail(st, WK_RANGE,
                           "joint configuration '%s' of object '%s': position %zu, %.9g, is outside joint '%s''s "
                           "application limits [%g, %g]",
                           c->name, o, j, q, wk__entity_name(s, k->joints[j]), l->min_position, l->max_position);
    }
    return WK_OK;
}

int wk_scene_update_joint_configurations(wk_scene *s, wk_entity object, const char *const *remove,
                                         size_t remove_count, const wk_joint_configuration_desc *set,
                                         size_t set_count, wk_status *st)
{
    const wk_kinematic_object *k;
    int rc = wk__kinematic_object_of(s, object, &k, st);
    if (rc)
        return rc;
    for (size_t i = 0; i < set_count; i++)
        if ((rc = check_configuration(s, object, k, &set[i], st)))
            return rc;
    /* The new list borrows the names and positions it keeps or takes; the
     * store copies them. */
    size_t cap = (size_t)k->configuration_count + set_count, n = k->configuration_count;
    if (cap > UINT32_MAX)
        return wk_fail(st, WK_INVALID, "%zu joint configurations are too many", cap);
    wk_joint_configuration *list = malloc((cap ? cap : 1) * sizeof *list);
    if (!list)
        return wk_fail(st, WK_NOMEM, "out of memory updating object '%s'", wk__object_name(s, object));
    if (n)
        memcpy(list, k->configurations, n * sizeof *list);
    for (size_t i = 0; rc == WK_OK && i < remove_count; i++) {
        int at = remove[i] ? find_configuration(list, n, remove[i]) : -1;
        if (at < 0) {
            rc = wk_fail(st, WK_NOT_FOUND, "object '%s' has no joint configuration '%s' to remove",
                         wk__object_name(s, object), remove[i] ? remove[i] : "");
            break;
        }
        memmove(&list[at], &list[at + 1], (n - (size_t)at - 1) * sizeof *list);
        n--;
    }
    for (size_t i = 0; rc == WK_OK && i < set_count; i++) {
        wk_joint_configuration c = {(char *)set[i].name, (double *)set[i].positions};
        int at = find_configuration(list, n, c.name);
        list[at < 0 ? n++ : (size_t)at] = c;
    }
    if (rc == WK_OK) {
        wk_kinematic_object next = *k;
        next.configurations = list;
        next.configuration_count = (uint32_t)n;
        rc = wk__kinematic_object_store(s, object, &next, st);
    }
    free(list);
    return rc;
}

/* Whether e is an entity of object (frames included). */
static bool entity_of(const wk_scene *s, wk_entity object, wk_entity e)
{
    return e && wk_ecm_exists(s->ecm, e) && wk_scene_object_of(s, e) == object;
}

int wk_scene_set_ik_solvers(wk_scene *s, wk_entity object, const wk_ik_solver *solvers, size_t n, wk_status *st)
{
    const wk_kinematic_object *k;
    int rc = wk__kinematic_object_of(s, object, &k, st);
    if (rc)
        return rc;
    const char *o = wk__object_name(s, object);
    if (n > UINT32_MAX)
        return wk_fail(st, WK_INVALID, "%zu IK solvers for object '%s' are too many", n, o);
    for (size_t i = 0; i < n; i++) {
        const wk_ik_solver *v = &solvers[i];
        if (!v->key || !*v->key)
            return wk_fail(st, WK_INVALID, "IK solver %zu of object '%s' has no kinematic solver key", i, o);
        if (!entity_of(s, object, v->base) || !entity_of(s, object, v->tip))
            return wk_fail(st, WK_INVALID, "IK solver '%s': its base and tip must be entities of object '%s'", v->key,
                           o);
    }
    wk_kinematic_object next = *k;
    next.ik_solvers = (wk_ik_solver *)solvers;
    next.ik_solver_count = (uint32_t)n;
    return wk__kinematic_object_store(s, object, &next, st);
}

int wk_scene_set_flange_frames(wk_scene *s, wk_entity object, const wk_entity *frames, size_t n, wk_status *st)
{
    const wk_kinematic_object *k;
    int rc = wk__kinematic_object_of(s, object, &k, st);
    if (rc)
        return rc;
    if (n > UINT32_MAX)
        return wk_fail(st, WK_INVALID, "%zu flange frames are too many", n);
    for (size_t i = 0; i < n; i++)
        if (!entity_of(s, object, frames[i]) || !wk_scene_is_frame(s, frames[i]))
            return wk_fail(st, WK_INVALID, "entity %llu is not a frame of object '%s'",
                           (unsigned long long)frames[i], wk__object_name(s, object));
    wk_kinematic_object next = *k;
    next.flange_frames = (wk_entity *)frames;
    next.flange_count = (uint32_t)n;
    return wk__kinematic_object_store(s, object, &next, st);
}

/* Whether e is frame or hangs below it. */
static bool at_or_below(const wk_scene *s, wk_entity e, wk_entity frame)
{
    for (; e; e = wk_ecm_parent(s->ecm, e))
        if (e == frame)
            return true;
    return false;
}

int wk__kinematic_refs_check(const wk_scene *s, wk_entity frame, const char *what, wk_status *st)
{
    wk_entity object = wk_scene_object_of(s, frame);
    const wk_kinematic_object *k = wk_scene_kinematic_object(s, object);
    for (uint32_t i = 0; k && i < k->flange_count; i++)
        if (at_or_below(s, k->flange_frames[i], frame))
            return wk_fail(st, WK_PRECONDITION,
                           "frame '%s' cannot be %s: frame '%s' is an ISO flange frame of kinematic object '%s'",
                           wk__entity_name(s, frame), what, wk__entity_name(s, k->flange_frames[i]),
                           wk__object_name(s, object));
    for (uint32_t i = 0; k && i < k->ik_solver_count; i++) {
        const wk_ik_solver *v = &k->ik_solvers[i];
        bool base = at_or_below(s, v->base, frame);
        if (base || at_or_below(s, v->tip, frame))
            return wk_fail(st, WK_PRECONDITION,
                           "frame '%s' cannot be %s: frame '%s' is the %s of IK solver '%s' of kinematic object '%s'",
                           wk__entity_name(s, frame), what, wk__entity_name(s, base ? v->base : v->tip),
                           base ? "base" : "tip", v->key, wk__object_name(s, object));
    }
    return WK_OK;
}
