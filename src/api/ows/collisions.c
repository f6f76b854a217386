/* collisions.c — ObjectWorldService's collision mutations as wk_scene
 * calls: UpdateCollisionSettings (a CollisionSettings message, its rules'
 * members resolved, replacing the world's settings), ToggleCollisions, and
 * the rule "these entities against anything else" that CreateObject and
 * UpdateEntityProperties append. Each runs inside its caller's batch
 * (batch.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "api/ows/edit.h"

int wk__ows_collision_action(const IntrinsicProto__World__CollisionAction *msg, wk_collision_action *action,
                             double *margin, const char *what, wk_status *st)
{
    *margin = 0;
    switch (msg ? msg->action_case : INTRINSIC_PROTO__WORLD__COLLISION_ACTION__ACTION__NOT_SET) {
    case INTRINSIC_PROTO__WORLD__COLLISION_ACTION__ACTION_IS_EXCLUDED:
        /* is_excluded false asks for nothing a rule can say. */
        if (!msg->is_excluded)
            return wk_fail(st, WK_INVALID, "%s: is_excluded is false: a rule must exclude or keep a margin", what);
        *action = WK_COLLISION_EXCLUDE;
        return WK_OK;
    case INTRINSIC_PROTO__WORLD__COLLISION_ACTION__ACTION_MARGIN:
        *margin = msg->margin ? msg->margin->hard_margin : 0;
        if (!isfinite(*margin) || *margin < 0)
            return wk_fail(st, WK_INVALID, "%s: hard_margin %g is negative or not finite", what, *margin);
        *action = WK_COLLISION_MARGIN;
        return WK_OK;
    default:
        return wk_fail(st, WK_INVALID, "%s: the collision action is neither is_excluded nor margin", what);
    }
}

int wk__ows_append_rule(wk_scene *s, const wk_collision_ref *ref, const IntrinsicProto__World__CollisionAction *action,
                        wk_status *st)
{
    wk_collision_rule rule = {.left = ref, .left_count = 1};
    int rc = wk__ows_collision_action(action, &rule.action, &rule.hard_margin, "collision action", st);
    if (rc)
        return rc;
    const wk_collision_settings *now = wk_scene_collision_settings(s);
    wk_collision_rule *rules = malloc((now->rule_count + 1) * sizeof *rules);
    if (!rules)
        return wk_fail(st, WK_NOMEM, "out of memory adding a collision rule");
    for (size_t i = 0; i < now->rule_count; i++)
        rules[i] = now->rules[i];
    rules[now->rule_count] = rule;
    wk_collision_settings next = *now;
    next.rules = rules;
    next.rule_count = now->rule_count + 1;
    rc = wk_scene_set_collision_settings(s, &next, st);
    free(rules);
    return rc;
}

/* The refs of each side are gathered with realloc, then copied into the
 * call. */
int wk__ows_collision_settings_in(wk_scene *s, wk__call *call, const IntrinsicProto__World__CollisionSettings *msg,
                                  wk_collision_settings *out, wk_status *st)
{
    *out = (wk_collision_settings){
        .disable_collision_checking = msg->disable_collision_checking,
        .has_minimum_margin = msg->has_minimum_margin,
        .minimum_margin = msg->minimum_margin,
        .has_collision_check_spacing = msg->has_collision_check_spacing,
        .collision_check_spacing = msg->collision_check_spacing,
        .rule_count = msg->n_collision_rules,
    };
    wk_collision_rule *rules = msg->n_collision_rules ? wk__call_alloc(call, msg->n_collision_rules * sizeof *rules)
                                                      : NULL;
    if (msg->n_collision_rules && !rules)
        return wk_fail(st, WK_NOMEM, "out of memory reading collision settings");
    out->rules = rules;
    for (size_t i = 0; i < msg->n_collision_rules; i++) {
        const IntrinsicProto__World__CollisionSettings__CollisionRule *r = msg->collision_rules[i];
        char what[48];
        snprintf(what, sizeof what, "collision rule %zu", i);
        rules[i] = (wk_collision_rule){0};
        int rc = wk__ows_collision_action(r->collision_action, &rules[i].action, &rules[i].hard_margin, what, st);
        for (int side = 0; rc == WK_OK && side < 2; side++) {
            size_t n = side ? r->n_right : r->n_left;
            IntrinsicProto__World__ObjectOrEntityReference **members = side ? r->right : r->left;
            wk_collision_ref *refs = NULL;
            size_t count = 0;
            for (size_t j = 0; rc == WK_OK && j < n; j++)
                if ((rc = wk__ows_collision_refs(s, call, members[j], &refs, &count, st)))
                    rc = wk__ows_context(st, rc, "%s: %s %zu", what, side ? "right" : "left", j);
            wk_collision_ref *kept = count ? wk__call_alloc(call, count * sizeof *kept) : NULL;
            if (rc == WK_OK && count && !kept)
                rc = wk_fail(st, WK_NOMEM, "out of memory reading collision settings");
            for (size_t j = 0; rc == WK_OK && j < count; j++)
                kept[j] = refs[j];
            free(refs);
            if (side)
                rules[i].right = kept, rules[i].right_count = count;
            else
                rules[i].left = kept, rules[i].left_count = count;
        }
        if (rc)
            return rc;
    }
    return WK_OK;
}

int wk__ows_update_collision_settings(wk__ows_edit *e, const ProtobufCMessage *request)
{
    const IntrinsicProto__World__UpdateCollisionSettingsRequest *req = (const void *)request;
    if (req->type_case != INTRINSIC_PROTO__WORLD__UPDATE_COLLISION_SETTINGS_REQUEST__TYPE_COLLISION_SETTINGS)
        return wk_fail(e->st, WK_INVALID, "UpdateCollisionSettings of world '%s': collision_settings is not set",
                       e->world_id);
    wk_collision_settings settings;
    int rc = wk__ows_collision_settings_in(e->scene, e->call, req->collision_settings, &settings, e->st);
    if (rc == WK_OK)
        rc = wk_scene_set_collision_settings(e->scene, &settings, e->st);
    return rc ? wk__ows_context(e->st, rc, "UpdateCollisionSettings of world '%s'", e->world_id) : WK_OK;
}

/* The entities one side of ToggleCollisions selects, in an array owned by
 * the call, and the object they belong to. Frames are left out: they are
 * entities of the object but never collide, and a filter of all entities
 * (Intrinsic's client's default) picks the object's frames too. */
static int side_of(wk__ows_edit *e, const IntrinsicProto__World__ObjectReferenceWithEntityFilter *msg,
                   const char *what, wk_entity *object, wk_entity **out, size_t *count)
{
    wk_entity_list list = {0};
    int rc = wk__ows_find_filtered(e->scene, e->call, msg, object, &list, e->st);
    *count = 0;
    *out = rc == WK_OK && list.count ? wk__call_alloc(e->call, list.count * sizeof **out) : NULL;
    if (rc == WK_OK && list.count && !*out)
        rc = wk_fail(e->st, WK_NOMEM, "out of memory toggling collisions");
    for (size_t i = 0; rc == WK_OK && i < list.count; i++)
        if (!wk_scene_is_frame(e->scene, list.items[i]))
            (*out)[(*count)++] = list.items[i];
    if (rc == WK_OK && !*count)
        rc = wk_fail(e->st, WK_INVALID, "the entity filter selects no entity of object '%s' but frames",
                     wk_scene_object_info(e->scene, *object)->name);
    wk_entity_list_free(&list);
    return rc ? wk__ows_context(e->st, rc, "ToggleCollisions: %s", what) : WK_OK;
}

int wk__ows_toggle_collisions(wk__ows_edit *e, const ProtobufCMessage *request)
{
    const IntrinsicProto__World__ToggleCollisionsRequest *req = (const void *)request;
    wk_entity *a, *b;
    size_t na, nb;
    int rc = side_of(e, req->object_a, "object_a", &e->others[0], &a, &na);
    if (rc == WK_OK)
        rc = side_of(e, req->object_b, "object_b", &e->others[1], &b, &nb);
    if (rc)
        return rc;
    /* The modes have ToggleMode's numbers; the scene refuses UNSPECIFIED. */
    wk_toggle_mode mode = req->has_toggle_mode ? (wk_toggle_mode)req->toggle_mode : WK_TOGGLE_UNSPECIFIED;
    rc = wk_scene_toggle_collisions(e->scene, a, na, b, nb, mode, e->st);
    return rc ? wk__ows_context(e->st, rc, "ToggleCollisions between '%s' and '%s'",
                                wk_scene_object_info(e->scene, e->others[0])->name,
                                wk_scene_object_info(e->scene, e->others[1])->name)
              : WK_OK;
}
