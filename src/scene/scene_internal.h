/* scene_internal.h — what the files of src/scene share: the scene itself,
 * its cache of world poses and its index of object names. */
#ifndef WK_SCENE_INTERNAL_H
#define WK_SCENE_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "base/bits.h"
#include "base/hash_index.h"
#include "worldkit/wk_scene.h"

#define WK__POSE_SEGMENTS 32

#define WK__POSE_SLOT_ALIGN 64 /* a slot is one cache line */

/* A cached world pose, valid while valid_for holds the entity's id: a slot
 * reused by a newer entity is invalid for it without anyone clearing it. */
typedef struct wk__pose_slot {
    _Alignas(WK__POSE_SLOT_ALIGN) wk_pose pose;
    _Atomic uint64_t valid_for;
} wk__pose_slot;

/* Slots by entity slot index, in segments that never move (segment k holds
 * indices [2^k, 2^(k+1))), so readers follow a segment pointer without a lock
 * while another reader fills a slot under the fill lock. Invariant: a valid
 * slot's parent slot is valid too, so invalidating a subtree stops at the
 * first invalid node. */
typedef struct wk__pose_cache {
    _Atomic(wk__pose_slot *) segments[WK__POSE_SEGMENTS];
    pthread_mutex_t fill;
    wk_entity *chain; /* scratch of the fill, under the lock */
    size_t chain_cap;
} wk__pose_cache;

struct wk_scene {
    wk_ecm *ecm;
    wk_scene_types types;
    wk_entity root;           /* the root object's base; 0 until wk_scene_objects_init */
    wk__index object_names;   /* hash of an object's name -> its base entity */
    wk__pose_cache poses;
};

int wk__pose_cache_init(wk__pose_cache *c);
void wk__pose_cache_free(wk__pose_cache *c);
void wk__pose_cache_clear(wk__pose_cache *c);
/* The slot of e's cached pose, or NULL when its segment does not exist
 * (yet) or e is WK_NULL_ENTITY. */
static inline wk__pose_slot *wk__pose_slot_of(const wk__pose_cache *c, wk_entity e)
{
    uint32_t index = (uint32_t)e;
    if (!index)
        return NULL;
    unsigned k = wk__log2(index);
    wk__pose_slot *seg = atomic_load_explicit(&c->segments[k], memory_order_acquire);
    return seg ? &seg[index - (1u << k)] : NULL;
}

/* e's world pose, computed and cached under the fill lock: wk__pose_of's
 * way when the cache misses. */
wk_pose wk__pose_fill(const wk_scene *s, wk_entity e);

/* e's world pose, filling the cache. Inline: a clean read, the common case,
 * is a few loads from one cache line. */
static inline wk_pose wk__pose_of(const wk_scene *s, wk_entity e)
{
    const wk__pose_slot *slot = wk__pose_slot_of(&s->poses, e);
    if (slot && atomic_load_explicit(&slot->valid_for, memory_order_acquire) == e)
        return slot->pose;
    return wk__pose_fill(s, e);
}

/* Starts loading e's cached pose, for a wk__pose_of soon after. */
static inline void wk__pose_prefetch(const wk_scene *s, wk_entity e)
{
    const wk__pose_slot *slot = wk__pose_slot_of(&s->poses, e);
    if (slot)
        __builtin_prefetch(slot);
}
/* Forgets the cached poses of e and everything below it. */
void wk__pose_invalidate(wk_scene *s, wk_entity e);

uint64_t wk__object_name_hash(const char *name);
/* The object name index; 0 or WK_NOMEM. */
int wk__names_add(wk_scene *s, wk_entity object);
void wk__names_remove(wk_scene *s, wk_entity object);
int wk__names_rebuild(wk_scene *s);

/* The object name and the entity name of e (the object's for a base
 * entity), or "". */
const char *wk__object_name(const wk_scene *s, wk_entity object);
const char *wk__entity_name(const wk_scene *s, wk_entity e);
/* The name a client knows a transform node by: an object's object name
 * (not its base entity's), any other entity's name, or "". */
const char *wk__node_name(const wk_scene *s, wk_entity node);

/* Whether name is free among the objects and frames directly under object
 * (except, which is being renamed or moved); when the name is a global
 * alias, or meant to become one, also among all objects. Fails with
 * WK_INVALID for a malformed name and WK_EXISTS for a taken one. */
int wk__name_free(const wk_scene *s, wk_entity object, const char *name, bool global_alias, wk_entity except,
                  wk_status *st);

/* Calls fn for every entity of object (base first, then depth first), not
 * descending into child objects, whose bases are passed with inside false.
 * Stops at and returns fn's first nonzero result. */
typedef int (*wk__walk_fn)(const wk_scene *s, wk_entity e, bool inside, void *ctx);
int wk__walk_object(const wk_scene *s, wk_entity object, wk__walk_fn fn, void *ctx);

/* The final entities of object (final_entity.c): how many in *count, the
 * last found in *final. Fails only for want of memory. */
int wk__final_entity(const wk_scene *s, wk_entity object, size_t *count, wk_entity *final, wk_status *st);

/* parent_T_child for a child posed relative to the base of parent's object,
 * or to parent itself when it is a frame. */
wk_pose wk__pose_under(const wk_scene *s, wk_entity parent, wk_pose base_T_child);
/* Whether parent can take a new object or frame. */
int wk__check_parent(const wk_scene *s, wk_entity parent, wk_status *st);

/* Checks what creating an object or frame (what) called name under *parent
 * (NULL: the root entity) posed base_T_node needs, and gives its
 * parent_T_node. */
int wk__prepare_node(const wk_scene *s, const char *what, const char *name, bool global_alias, wk_entity *parent,
                     wk_pose base_T_node, wk_pose *parent_T_node, wk_status *st);

/* Whether e is a frame designated as an attachment frame: objects attached
 * to one snap onto it (parent_t_this identity). */
bool wk__is_attachment_frame(const wk_scene *s, wk_entity e);

/* A desc's pose, with an all-zero rotation read as "none given". */
wk_pose wk__desc_pose(wk_pose p);

/* What wk_scene_update_physics refuses in a physics value (non-finite,
 * negative mass, bad centre of mass pose, asymmetric inertia), the message
 * naming the entity name. */
int wk__physics_check(const char *name, const wk_physics *physics, wk_status *st);

/* What wk_scene_update_geometry refuses in a geometry (unknown type, a
 * negative or non-finite value, a mesh or heightmap without uri), the
 * message naming the entity name; on success *value is g with zeroed
 * padding, ready to store. */
int wk__geometry_check(const char *name, const wk_scene_geometry *g, const char *uri, wk_scene_geometry *value,
                       wk_status *st);

/* Hooks of the components that own memory or hold padding (collision.c,
 * user_data.c, properties.c). */
extern const wk_type_hooks wk__collision_hooks;
extern const wk_type_hooks wk__user_data_hooks;
extern const wk_type_hooks wk__physics_hooks;
extern const wk_type_hooks wk__entity_info_hooks; /* entity_info.c */

/* Drops the collision rules' refs to top, to entities below it and to
 * entities that no longer exist (only those when top is WK_NULL_ENTITY); a
 * rule left with an empty side goes (an emptied right side would otherwise
 * widen the rule to "anything else"). Called before an object is deleted,
 * so that a failure changes nothing, and after a sync removed entities. */
int wk__collision_forget(wk_scene *s, wk_entity top, wk_status *st);

/* WK_PRECONDITION, naming the referrer, when the kinematic object frame
 * belongs to refers to frame or to a frame below it (an ISO flange frame,
 * an IK solver's base or tip): such a frame may not leave the object
 * (what: "deleted", "moved to another object"), lest the reference go
 * stale (kinematics_props.c). */
int wk__kinematic_refs_check(const wk_scene *s, wk_entity frame, const char *what, wk_status *st);

#endif
