/* kinematics_internal.h — what the files of kinematic objects share: the
 * hooks of their two components, the joint's motion as a pose, the rules of
 * limits, and the all-or-nothing wrapper of their changes. */
#ifndef WK_SCENE_KINEMATICS_INTERNAL_H
#define WK_SCENE_KINEMATICS_INTERNAL_H

#include "scene/scene_internal.h"

extern const wk_type_hooks wk__kinematics_hooks;
extern const wk_type_hooks wk__kinematic_object_hooks;
/* kinematics_payload.c: CartesianLimits and Payload. */
extern const wk_type_hooks wk__cartesian_limits_hooks;
extern const wk_type_hooks wk__payload_hooks;

/* Frees what k owns and zeroes it; an all-zero k is fine. */
void wk__kinematic_object_fini(wk_kinematic_object *k);

/* parent_T_joint: parent_t_inboard composed with the motion at position. */
wk_pose wk__joint_pose(const wk_kinematics *k);
/* Whether motion is revolute or prismatic. */
bool wk__joint_moves(uint32_t motion);
/* The unit of a position of that motion, for messages: "m" or "rad". */
const char *wk__position_unit(uint32_t motion);

/* Checks one joint's system and application limits against each other and
 * themselves (no NaN, min <= max, rates >= 0, effort 0, application within
 * system). Failures name the object and joint (either may be NULL, as in a
 * deserializer that has no status to fill). */
int wk__limits_check(const wk_joint_limit *system, const wk_joint_limit *application, const char *object,
                     const char *joint, wk_status *st);
/* A limit read from a desc: a zero field means unlimited. */
wk_joint_limit wk__limit_from_desc(wk_joint_limit given);
/* A loaded joint's system limits from its file: unlimited where it gives
 * none (continuous joints, SDFormat's negative "no limit" velocity). */
wk_joint_limit wk__limit_from_file(const wk_scene_joint *j);

/* The KinematicObject of object, or WK_NOT_FOUND (no object) or
 * WK_PRECONDITION (not a kinematic object), naming it. */
int wk__kinematic_object_of(const wk_scene *s, wk_entity object, const wk_kinematic_object **out, wk_status *st);
/* Sets object's KinematicObject to a deep copy of *k. */
int wk__kinematic_object_store(wk_scene *s, wk_entity object, const wk_kinematic_object *k, wk_status *st);

/* Gives a KINEMATIC object loaded from a world file its Kinematics and
 * KinematicObject, from the Joint and JointLinks components of its joints. */
int wk__kinematics_from_joints(wk_scene *s, wk_entity object);

/* Sets the joints of object that follow leader (Mimic), and theirs in turn,
 * to the positions leader's gives them (kinematics_mimic.c); WK_RANGE,
 * naming the follower, when that position is outside its file's limits,
 * before changing it (the caller's change undoes what came before). */
int wk__mimics_follow(wk_scene *s, wk_entity object, wk_entity leader, wk_status *st);

/* A run of changes that is undone when it fails: the ECM's transaction when
 * none is open (a caller's open batch undoes it otherwise). */
typedef struct wk__kin_change {
    bool own;
} wk__kin_change;

int wk__kin_change_begin(wk_scene *s, wk__kin_change *c, wk_status *st);
/* Commits when rc is WK_OK, else rolls back; returns rc. */
int wk__kin_change_end(wk_scene *s, wk__kin_change *c, int rc);

#endif
