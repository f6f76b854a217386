/* footprints.c — ObjectWorldService's AreFootprintsCompatible: whether
 * the skills holding the footprints of left_set could run at the same time
 * as those of right_set, in the world named, pair by pair (never within a
 * set).
 *
 * A footprint is resolved into the entities it holds, each for reading or
 * writing: an object reservation holds every entity of the object, a frame
 * reservation the frame. Unless skip_missing_permissions is set, the holds
 * are completed as the footprint's documentation says: every ancestor of a
 * held object or frame is read, every descendant of a written one written
 * (child objects included). lock_the_universe writes everything: it
 * conflicts with any footprint holding an entity, and its own object and
 * volume reservations are ignored. Two footprints conflict on an entity
 * both hold when either writes it.
 *
 * Resources conflict by name, through what each sharing type needs (table
 * below): WRITE excludes every other holder; WRITE_EXCLUSIVE_READ_NONEXCLUSIVE
 * excludes other writers; WRITE_NONEXCLUSIVE (and UNSPECIFIED, which the
 * proto says means it) and READ exclude nobody.
 *
 * Volume reservations name stored geometry (GeometryStorageRefs) that
 * worldkit does not hold, so a request with one outside a universe lock is
 * refused with WK_UNSUPPORTED (INVALID_ARGUMENT) rather than answered wrongly.
 * An object or frame the world does not have fails NOT_FOUND naming the
 * reservation. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/ows/ows.h"
#include "base/grow.h"

typedef IntrinsicProto__Skills__Footprint Footprint;
typedef IntrinsicProto__Skills__ObjectWorldReservation ObjectReservation;
typedef IntrinsicProto__Skills__ResourceReservation ResourceReservation;
typedef IntrinsicProto__World__AreFootprintsCompatibleResponse Response;
typedef IntrinsicProto__World__AreFootprintsCompatibleResponse__IncompatiblePair Pair;

/* google.rpc.Code of a pair's reason. */
#define REASON_CODE 9 /* FAILED_PRECONDITION: they cannot be held at once */

/* What a resource holder of each ResourceReservation.SharingType does and
 * keeps from others. */
static const struct sharing {
    const char *name;
    bool writes;
    bool exclusive_write; /* no other holder may write */
    bool exclusive;       /* no other holder at all */
} sharings[] = {
    [INTRINSIC_PROTO__SKILLS__RESOURCE_RESERVATION__SHARING_TYPE__UNSPECIFIED] = {"UNSPECIFIED", true, false, false},
    [INTRINSIC_PROTO__SKILLS__RESOURCE_RESERVATION__SHARING_TYPE__WRITE] = {"WRITE", true, true, true},
    [INTRINSIC_PROTO__SKILLS__RESOURCE_RESERVATION__SHARING_TYPE__READ] = {"READ", false, false, false},
    [INTRINSIC_PROTO__SKILLS__RESOURCE_RESERVATION__SHARING_TYPE__WRITE_EXCLUSIVE_READ_NONEXCLUSIVE] =
        {"WRITE_EXCLUSIVE_READ_NONEXCLUSIVE", true, true, false},
    [INTRINSIC_PROTO__SKILLS__RESOURCE_RESERVATION__SHARING_TYPE__WRITE_NONEXCLUSIVE] =
        {"WRITE_NONEXCLUSIVE", true, false, false},
};
#define SHARING_COUNT (sizeof sharings / sizeof sharings[0])

typedef struct hold {
    wk_entity entity;
    bool write;
} hold;

/* A footprint resolved against the world. */
typedef struct held {
    const Footprint *msg;
    const char *set; /* "left_set" or "right_set" */
    size_t index;
    bool universe;
    hold *holds; /* by entity, one each, write when any reservation writes */
    size_t count, cap;
} held;

static const char *name_of(const wk_scene *s, wk_entity e)
{
    const char *name = wk_scene_name(s, e);
    return name ? name : "";
}

static int push(held *h, wk_entity e, bool write)
{
    if (WK__GROW(h->holds, h->cap, h->count + 1))
        return WK_NOMEM;
    h->holds[h->count++] = (hold){e, write};
    return WK_OK;
}

static int by_entity(const void *a, const void *b)
{
    const hold *x = a, *y = b;
    if (x->entity != y->entity)
        return x->entity < y->entity ? -1 : 1;
    return (int)y->write - (int)x->write; /* a write first, so it is the one kept */
}

/* Sorts the holds and keeps one per entity. */
static void settle(held *h)
{
    if (!h->count)
        return;
    qsort(h->holds, h->count, sizeof *h->holds, by_entity);
    size_t kept = 1;
    for (size_t i = 1; i < h->count; i++)
        if (h->holds[i].entity != h->holds[kept - 1].entity)
            h->holds[kept++] = h->holds[i];
    h->count = kept;
}

/* The object or frame a reservation names: its entities into list (an
 * object's own, or the frame), its node (base entity or frame) in *node. */
static int reserved(const wk_scene *s, const ObjectReservation *r, wk_entity *node, wk_entity_list *list,
                    wk_status *st)
{
    int rc;
    if (r->object_type_case == INTRINSIC_PROTO__SKILLS__OBJECT_WORLD_RESERVATION__OBJECT_TYPE_OBJECT) {
        IntrinsicProto__World__ObjectReference ref = INTRINSIC_PROTO__WORLD__OBJECT_REFERENCE__INIT;
        ref.object_reference_case = INTRINSIC_PROTO__WORLD__OBJECT_REFERENCE__OBJECT_REFERENCE_BY_NAME;
        ref.by_name = r->object;
        rc = wk__ows_find_object(s, &ref, node, st);
        return rc ? rc : wk_scene_object_entities(s, *node, list);
    }
    if (r->object_type_case == INTRINSIC_PROTO__SKILLS__OBJECT_WORLD_RESERVATION__OBJECT_TYPE_FRAME) {
        IntrinsicProto__World__FrameReference ref = INTRINSIC_PROTO__WORLD__FRAME_REFERENCE__INIT;
        ref.frame_reference_case = INTRINSIC_PROTO__WORLD__FRAME_REFERENCE__FRAME_REFERENCE_BY_NAME;
        ref.by_name = r->frame;
        rc = wk__ows_find_frame(s, &ref, node, st);
        return rc ? rc : wk_entity_list_push(list, *node);
    }
    return wk_fail(st, WK_INVALID, "it names neither an object nor a frame");
}

/* One reservation's holds, completed unless the footprint skips that. */
static int hold_reservation(wk_scene *s, held *h, const ObjectReservation *r, wk_entity_list *list,
                            wk_status *st)
{
    bool write = !r->has_type || r->type == INTRINSIC_PROTO__SKILLS__OBJECT_WORLD_RESERVATION__SHARING_TYPE__WRITE;
    bool complete = !h->msg->skip_missing_permissions;
    const wk_ecm *ecm = wk_scene_ecm(s);
    wk_entity node;
    list->count = 0;
    int rc = reserved(s, r, &node, list, st);
    /* A written node's descendants include the object's entities. */
    if (rc == WK_OK && complete && write) {
        list->count = 0;
        rc = wk_ecm_descendants(ecm, node, list);
    }
    for (size_t i = 0; rc == WK_OK && i < list->count; i++)
        rc = push(h, list->items[i], write);
    for (wk_entity p = complete ? wk_ecm_parent(ecm, node) : WK_NULL_ENTITY; rc == WK_OK && p != WK_NULL_ENTITY;
         p = wk_ecm_parent(ecm, p))
        rc = push(h, p, false);
    if (rc == WK_NOMEM)
        wk_fail(st, rc, "out of memory");
    return rc;
}

/* Resolves footprint msg, named set[index] in messages. */
static int resolve(wk_scene *s, const Footprint *msg, const char *set, size_t index, held *h, wk_status *st)
{
    *h = (held){.msg = msg, .set = set, .index = index, .universe = msg->lock_the_universe};
    for (size_t i = 0; i < msg->n_resource_reservation; i++) {
        const ResourceReservation *r = msg->resource_reservation[i];
        if (r->has_type && (unsigned)r->type >= SHARING_COUNT)
            return wk_fail(st, WK_INVALID, "%s[%zu].resource_reservation[%zu]: unknown sharing type %d", set, index,
                           i, (int)r->type);
    }
    if (h->universe)
        return WK_OK;
    if (msg->n_volume)
        return wk_fail(st, WK_UNSUPPORTED,
                       "%s[%zu].volume[0]: volume reservations are not checked: they name stored geometry "
                       "(GeometryStorageRefs) that worldkit does not hold",
                       set, index);
    wk_entity_list list = {0};
    int rc = WK_OK;
    for (size_t i = 0; rc == WK_OK && i < msg->n_object_reservation; i++) {
        wk_status why = {0};
        rc = hold_reservation(s, h, msg->object_reservation[i], &list, &why);
        if (rc)
            wk_fail(st, rc, "%s[%zu].object_reservation[%zu]: %s", set, index, i, why.message);
    }
    wk_entity_list_free(&list);
    settle(h);
    return rc;
}

static const struct sharing *sharing_of(const ResourceReservation *r)
{
    return &sharings[r->has_type ? r->type : 0];
}

static bool resources_conflict(const struct sharing *a, const struct sharing *b)
{
    return a->exclusive || b->exclusive || (a->exclusive_write && b->writes) || (b->exclusive_write && a->writes);
}

/* Why l and r cannot be held at once, into why; false when they can. */
static bool conflict(const wk_scene *s, const held *l, const held *r, char *why, size_t cap)
{
    if ((l->universe && (r->universe || r->count)) || (r->universe && l->count)) {
        const held *u = l->universe ? l : r, *o = l->universe ? r : l;
        snprintf(why, cap, "%s[%zu] locks the universe, and %s[%zu] holds %s", u->set, u->index, o->set, o->index,
                 o->universe ? "it too" : "entities of the world");
        return true;
    }
    for (size_t i = 0, j = 0; i < l->count && j < r->count;) {
        const hold *a = &l->holds[i], *b = &r->holds[j];
        if (a->entity != b->entity) {
            a->entity < b->entity ? i++ : j++;
            continue;
        }
        if (a->write || b->write) {
            wk_entity object = wk_scene_object_of(s, a->entity);
            snprintf(why, cap, "both hold entity '%s' of object '%s': %s[%zu] %s it, %s[%zu] %s it",
                     name_of(s, a->entity), name_of(s, object), l->set, l->index,
                     a->write ? "writes" : "reads", r->set, r->index, b->write ? "writes" : "reads");
            return true;
        }
        i++, j++;
    }
    for (size_t i = 0; i < l->msg->n_resource_reservation; i++)
        for (size_t j = 0; j < r->msg->n_resource_reservation; j++) {
            const ResourceReservation *a = l->msg->resource_reservation[i], *b = r->msg->resource_reservation[j];
            const struct sharing *sa = sharing_of(a), *sb = sharing_of(b);
            if (strcmp(a->name ? a->name : "", b->name ? b->name : "") || !resources_conflict(sa, sb))
                continue;
            snprintf(why, cap, "both hold resource '%s': %s[%zu] as %s, %s[%zu] as %s", a->name ? a->name : "",
                     l->set, l->index, sa->name, r->set, r->index, sb->name);
            return true;
        }
    return false;
}

static Pair *pair_of(wk__call *call, size_t left, size_t right, const char *why)
{
    Pair *p = wk__ows_new(call, &intrinsic_proto__world__are_footprints_compatible_response__incompatible_pair__descriptor);
    Google__Rpc__Status *reason = wk__ows_new(call, &google__rpc__status__descriptor);
    char *message = wk__call_strdup(call, why);
    if (!p || !reason || !message)
        return NULL;
    p->has_left_index = p->has_right_index = true;
    p->left_index = (uint32_t)left;
    p->right_index = (uint32_t)right;
    reason->has_code = true;
    reason->code = REASON_CODE;
    reason->message = message;
    p->reason = reason;
    return p;
}

static int gave_up(wk_status *st, const char *what, size_t done, size_t of)
{
    return wk_fail(st, WK_DEADLINE, "AreFootprintsCompatible: the deadline passed after %zu of %zu %s", done, of, what);
}

/* Checks every pair, appending the incompatible ones to resp (all of them,
 * or the first only). */
static int check_pairs(wk__call *call, const wk_scene *s, const held *left, size_t nl, const held *right, size_t nr,
                       bool all, Response *resp, wk_status *st)
{
    size_t cap = 0;
    for (size_t i = 0; i < nl; i++)
        for (size_t j = 0; j < nr; j++) {
            char why[WK_STATUS_MSG_MAX];
            if (wk__call_over(call))
                return gave_up(st, "pairs", i * nr + j, nl * nr);
            if (!conflict(s, &left[i], &right[j], why, sizeof why))
                continue;
            if (resp->n_pairs == cap) {
                cap = cap ? 2 * cap : 8;
                Pair **grown = wk__ows_array(call, cap, sizeof *grown);
                if (!grown)
                    return wk_fail(st, WK_NOMEM, "out of memory");
                if (resp->n_pairs)
                    memcpy(grown, resp->pairs, resp->n_pairs * sizeof *grown);
                resp->pairs = grown;
            }
            if (!(resp->pairs[resp->n_pairs++] = pair_of(call, i, j, why)))
                return wk_fail(st, WK_NOMEM, "out of memory");
            if (!all)
                return WK_OK;
        }
    return WK_OK;
}

int wk__ows_are_footprints_compatible(wk_api *api, wk__call *call, const ProtobufCMessage *request,
                                      ProtobufCMessage **response)
{
    (void)api;
    wk_status *st = call->status;
    const IntrinsicProto__World__AreFootprintsCompatibleRequest *req = (const void *)request;
    if (req->n_left_set && req->n_right_set > WK_FOOTPRINT_PAIRS_MAX / req->n_left_set)
        return wk_fail(st, WK_INVALID,
                       "AreFootprintsCompatible: left_set of %zu and right_set of %zu footprints make %llu pairs; at "
                       "most %d are checked per call",
                       req->n_left_set, req->n_right_set,
                       (unsigned long long)req->n_left_set * (unsigned long long)req->n_right_set,
                       WK_FOOTPRINT_PAIRS_MAX);
    Response *resp = (void *)*response;
    held *left = calloc(req->n_left_set + 1, sizeof *left), *right = calloc(req->n_right_set + 1, sizeof *right);
    if (!left || !right) {
        free(left);
        free(right);
        return wk_fail(st, WK_NOMEM, "out of memory");
    }
    int rc = WK_OK;
    wk_scene *s = wk_world_scene(call->world);
    size_t footprints = req->n_left_set + req->n_right_set;
    for (size_t i = 0; rc == WK_OK && i < req->n_left_set; i++)
        rc = wk__call_over(call) ? gave_up(st, "footprints resolved", i, footprints)
                                 : resolve(s, req->left_set[i], "left_set", i, &left[i], st);
    for (size_t i = 0; rc == WK_OK && i < req->n_right_set; i++)
        rc = wk__call_over(call) ? gave_up(st, "footprints resolved", req->n_left_set + i, footprints)
                                 : resolve(s, req->right_set[i], "right_set", i, &right[i], st);
    if (rc == WK_OK)
        rc = check_pairs(call, s, left, req->n_left_set, right, req->n_right_set,
                         req->return_all_incompatible_pairs, resp, st);
    if (rc == WK_OK && !(resp->world_id = wk__call_strdup(call, req->world_id)))
        rc = wk_fail(st, WK_NOMEM, "out of memory");
    for (size_t i = 0; i < req->n_left_set; i++)
        free(left[i].holds);
    for (size_t i = 0; i < req->n_right_set; i++)
        free(right[i].holds);
    free(left);
    free(right);
    return rc;
}
