/* create_world.h — what the two files of CreateWorld share: the table
 * from a snapshot's ids to the entities they became, and the parts applied
 * once every object, entity and frame stands. */
#ifndef WK_API_OWS_CREATE_WORLD_H
#define WK_API_OWS_CREATE_WORLD_H

#include "api/ows/ows.h"

/* The snapshot's ids (of objects, frames and entities) and what they became. */
typedef struct wk__id_map {
    struct {
        const char *id;
        wk_entity e;
    } *items;
    size_t count;
} wk__id_map;

/* The entity id became, or WK_NULL_ENTITY (also for NULL or ""). */
wk_entity wk__id_map_lookup(const wk__id_map *m, const char *id);

/* Makes the snapshot's KINEMATIC_OBJECTs kinematic: joints, limits,
 * positions, named configurations, IK solvers and flange frames; WK_INVALID
 * naming an id the snapshot does not hold. */
int wk__snapshot_kinematics(wk_scene *s, const IntrinsicProto__World__World *world, const wk__id_map *map,
                            wk_status *st);

/* Sets the snapshot's collision settings, references by id translated to
 * the new world's (references by name are resolved as given). */
int wk__snapshot_collisions(wk_scene *s, wk__call *call, const IntrinsicProto__World__CollisionSettings *msg,
                            const wk__id_map *map, wk_status *st);

#endif
