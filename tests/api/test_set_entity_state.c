/* test_set_entity_state.c — the SetEntityState service: every refusal
 * (NOT_FOUND for the entity and the frame, INVALID_POSE, OPERATION_FAILED
 * for a non-finite twist or acceleration, motion for a static model, a frame
 * that moves with the entity) changing nothing; the set_ flags; round trips
 * through GetEntityState in the world and in another entity's frame; and
 * twists and accelerations that the steps then integrate; and, with
 * MuJoCo stepping the world, links on joints refused as the engine's to
 * place, by SetEntityState and by ObjectWorldService's UpdateTransform
 * alike, and an MJCF body welded to a moving one refused naming it. */
#include <math.h>
#include <string.h>

#include "api/api_call.h"
#include "api/ows_client.h"
#include "math/math_check.h"
#include "wk_test.h"

/* A box at the origin, a static post at x = 2, and a table turned 1.2 rad
 * at (1, 2, 0.5) with its top 0.4 m up; 10 ms steps. */
#define WORLD                                                                                                  \
    "<sdf version='1.9'><world name='w'><physics name='p' type='ode'><max_step_size>0.01</max_step_size>"      \
    "</physics><model name='box'><link name='l'/></model>"                                                     \
    "<model name='post'><static>true</static><pose>2 0 0 0 0 0</pose><link name='l'/></model>"                 \
    "<model name='table'><pose>1 2 0.5 0 0 1.2</pose><link name='top'><pose>0 0 0.4 0 0 0</pose></link></model>" \
    "</world></sdf>"

/* Whether the entity has a Velocity component. */
static bool has_velocity(wk_api *api, const char *name)
{
    wk_entity e = wk_scene_child(wk_api_scene(api), wk_api_world(api), name);
    return wk_ecm_has(wk_scene_ecm(wk_api_scene(api)), e, wk_sim_velocity_type(wk_api_sim(api)));
}

static wk_motion at(wk_vec3 p, double yaw)
{
    return (wk_motion){.pose = {p, wk_quat_from_rpy(0, 0, yaw)}};
}

static void refusals_change_nothing(void)
{
    wk_api *api = paused_api(WORLD);
    REQUIRE(api);
    const double nan = NAN;
    wk_motion good = at((wk_vec3){0.5, 0, 0}, 0.3);
    good.linear = (wk_vec3){1, 0, 0};
    wk_motion far = good, past = good, tilted = good, zero_q = good, fast = good, jerky = good, spun = good;
    far.pose.p.y = INFINITY;
    past.pose.p.z = -1e13; /* finite, beyond WK_POSE_TRANSLATION_MAX */
    wk_motion edge = at((wk_vec3){1e12, 0, 0}, 0); /* at the limit, but from the post at x = 2 */
    tilted.pose.q = (wk_quat){1, 0.2, 0, 0};
    zero_q.pose.q = (wk_quat){0, 0, 0, 0};
    fast.linear.x = nan;
    jerky.angular_acc.z = nan;
    spun.angular.y = -1.7e308; /* finite, past WK_RATE_MAX: times a lever arm it overflows */
    const unsigned ALL = WK_MOTION_POSE | WK_MOTION_TWIST | WK_MOTION_ACCELERATION;
    const struct {
        const char *entity, *frame;
        const wk_motion *m;
        unsigned parts;
        uint32_t code;
        const char *needle;
    } cases[] = {
        {"nobody", "", &good, ALL, WK_RESULT_NOT_FOUND, "no entity named 'nobody'"},
        {"", "", &good, ALL, WK_RESULT_NOT_FOUND, "no entity named ''"},
        {"box", "nowhere", &good, ALL, WK_RESULT_NOT_FOUND, "entity 'box': reference frame 'nowhere'"},
        {"box", "", &far, ALL, WK_SET_ENTITY_STATE_INVALID_POSE, "entity 'box': translation y = inf is not finite"},
        {"box", "", &past, WK_MOTION_POSE, WK_SET_ENTITY_STATE_INVALID_POSE,
         "entity 'box': translation z = -1e+13 is beyond the limit of +-1e+12 m"},
        {"box", "post", &edge, WK_MOTION_POSE, WK_SET_ENTITY_STATE_INVALID_POSE,
         "entity 'box': relative to its parent: translation x = 1000000000002 is beyond the limit"},
        {"box", "", &tilted, ALL, WK_SET_ENTITY_STATE_INVALID_POSE, "entity 'box': the orientation is not a unit"},
        {"box", "", &zero_q, WK_MOTION_POSE, WK_SET_ENTITY_STATE_INVALID_POSE, "not a unit quaternion (|q| = 0)"},
        {"box", "", &fast, ALL, WK_RESULT_OPERATION_FAILED, "entity 'box': a twist component is not finite or past"},
        {"box", "", &spun, WK_MOTION_TWIST, WK_RESULT_OPERATION_FAILED, "a twist component is not finite or past +-1e+12"},
        {"box", "", &jerky, ALL, WK_RESULT_OPERATION_FAILED, "entity 'box': an acceleration component is not finite"},
        {"post", "", &good, WK_MOTION_TWIST, WK_RESULT_OPERATION_FAILED, "entity 'post' is static"},
        {"post::l", "", &good, WK_MOTION_TWIST, WK_RESULT_OPERATION_FAILED, "entity 'post::l' is static"},
        {"table", "table::top", &good, WK_MOTION_POSE, WK_RESULT_OPERATION_FAILED, "which moves with it"},
        {"table", "table", &good, WK_MOTION_POSE, WK_RESULT_OPERATION_FAILED, "which moves with it"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char msg[256];
        uint32_t code = set_entity(api, cases[i].entity, cases[i].frame, cases[i].m, cases[i].parts, msg);
        if (!CHECK_INT(code, ==, cases[i].code) || !CHECK(strstr(msg, cases[i].needle) != NULL))
            fprintf(stderr, "    case %zu: %s\n", i, msg);
    }
    /* Nothing moved, nothing was given a velocity. */
    wk_motion box, post;
    REQUIRE_INT(get_entity(api, "box", &box, NULL), ==, WK_RESULT_OK);
    REQUIRE_INT(get_entity(api, "post", &post, NULL), ==, WK_RESULT_OK);
    CHECK_VEC3_NEAR(box.pose.p, ((wk_vec3){0, 0, 0}), 0);
    CHECK_VEC3_NEAR(post.pose.p, ((wk_vec3){2, 0, 0}), 0);
    CHECK(!has_velocity(api, "box"));
    wk_api_free(api);
}

static void flags_choose_the_parts(void)
{
    wk_api *api = paused_api(WORLD);
    REQUIRE(api);
    wk_motion m = at((wk_vec3){3, 4, 5}, 1);
    m.linear = (wk_vec3){1, 0, 0};
    /* No flag: nothing happens, and that is a success. */
    CHECK_INT(set_entity(api, "box", "", &m, 0, NULL), ==, WK_RESULT_OK);
    wk_motion got;
    REQUIRE_INT(get_entity(api, "box", &got, NULL), ==, WK_RESULT_OK);
    CHECK_VEC3_NEAR(got.pose.p, ((wk_vec3){0, 0, 0}), 0);
    CHECK_VEC3_NEAR(got.linear, ((wk_vec3){0, 0, 0}), 0);
    /* The twist alone leaves the pose. */
    CHECK_INT(set_entity(api, "box", "", &m, WK_MOTION_TWIST, NULL), ==, WK_RESULT_OK);
    REQUIRE_INT(get_entity(api, "box", &got, NULL), ==, WK_RESULT_OK);
    CHECK_VEC3_NEAR(got.pose.p, ((wk_vec3){0, 0, 0}), 0);
    CHECK_VEC3_NEAR(got.linear, m.linear, 1e-15);
    /* A static model can be placed, and given a zero twist. */
    wk_motion still = at((wk_vec3){2, 1, 0}, 0);
    CHECK_INT(set_entity(api, "post", "", &still, WK_MOTION_POSE | WK_MOTION_TWIST, NULL), ==, WK_RESULT_OK);
    REQUIRE_INT(get_entity(api, "post", &got, NULL), ==, WK_RESULT_OK);
    CHECK_VEC3_NEAR(got.pose.p, still.pose.p, 1e-15);
    /* A zero twist stops the box and takes its Velocity away. */
    wk_motion stop = {.pose = wk_pose_identity()};
    CHECK_INT(set_entity(api, "box", "", &stop, WK_MOTION_TWIST, NULL), ==, WK_RESULT_OK);
    CHECK(!has_velocity(api, "box"));
    wk_api_free(api);
}

static void round_trips(void)
{
    wk_api *api = paused_api(WORLD);
    REQUIRE(api);
    wk_motion want = at((wk_vec3){0.5, -1, 2}, 0);
    REQUIRE(wk_quat_normalize((wk_quat){0.8, 0.1, -0.4, 0.3}, &want.pose.q) == WK_OK);
    want.linear = (wk_vec3){0.1, 0.2, 0.3};
    want.angular = (wk_vec3){0, 0.5, -0.5};
    want.linear_acc = (wk_vec3){0, 0, -9.81};
    want.angular_acc = (wk_vec3){0.1, 0, 0};
    const unsigned ALL = WK_MOTION_POSE | WK_MOTION_TWIST | WK_MOTION_ACCELERATION;
    /* In the world frame, by "" and by "world". */
    const char *world_names[] = {"", "world"};
    for (size_t i = 0; i < 2; i++) {
        wk_motion got;
        REQUIRE_INT(set_entity(api, "box", world_names[i], &want, ALL, NULL), ==, WK_RESULT_OK);
        REQUIRE_INT(get_entity(api, "box", &got, NULL), ==, WK_RESULT_OK);
        CHECK_VEC3_NEAR(got.pose.p, want.pose.p, 1e-15);
        CHECK(wk_quat_near(got.pose.q, want.pose.q, 1e-15));
        CHECK_VEC3_NEAR(got.linear, want.linear, 1e-15);
        CHECK_VEC3_NEAR(got.angular, want.angular, 1e-15);
        CHECK_VEC3_NEAR(got.linear_acc, want.linear_acc, 1e-12);
        CHECK_VEC3_NEAR(got.angular_acc, want.angular_acc, 1e-12);
    }
    /* In the frame of the table's top: the world pose is top's composed
     * with the request's, the twist turned into world axes. */
    wk_motion top;
    REQUIRE_INT(get_entity(api, "table::top", &top, NULL), ==, WK_RESULT_OK);
    wk_motion got;
    REQUIRE_INT(set_entity(api, "box", "table::top", &want, ALL, NULL), ==, WK_RESULT_OK);
    REQUIRE_INT(get_entity(api, "box", &got, NULL), ==, WK_RESULT_OK);
    wk_pose expect = wk_pose_compose(top.pose, want.pose);
    CHECK_VEC3_NEAR(got.pose.p, expect.p, 1e-12);
    CHECK(wk_quat_near(got.pose.q, expect.q, 1e-12));
    CHECK_VEC3_NEAR(got.linear, wk_quat_rotate(top.pose.q, want.linear), 1e-12);
    CHECK_VEC3_NEAR(got.linear_acc, wk_quat_rotate(top.pose.q, want.linear_acc), 1e-12);
    /* And back: the pose in the top's frame is the one requested. */
    wk_pose in_top = wk_pose_compose(wk_pose_inverse(top.pose), got.pose);
    CHECK_VEC3_NEAR(in_top.p, want.pose.p, 1e-12);
    CHECK(wk_quat_near(in_top.q, want.pose.q, 1e-12));
    wk_api_free(api);
}

static void twist_moves_the_pose(void)
{
    wk_api *api = paused_api(WORLD);
    REQUIRE(api);
    /* 0.5 m/s along the table's own x (turned 1.2 rad), a turn of 0.25 rad/s. */
    wk_motion m = {.pose = wk_pose_identity(), .linear = {0.5, 0, 0}, .angular = {0, 0, 0.25}};
    REQUIRE_INT(set_entity(api, "box", "table", &m, WK_MOTION_TWIST, NULL), ==, WK_RESULT_OK);
    REQUIRE_INT(step_simulation(api, 200, NULL), ==, WK_RESULT_OK); /* 2 s */
    wk_motion got;
    REQUIRE_INT(get_entity(api, "box", &got, NULL), ==, WK_RESULT_OK);
    CHECK_VEC3_NEAR(got.pose.p, ((wk_vec3){cos(1.2), sin(1.2), 0}), 1e-12);
    CHECK_NEAR(wk_quat_to_rpy(got.pose.q).z, 0.5, 1e-12);
    CHECK_VEC3_NEAR(got.linear, ((wk_vec3){0.5 * cos(1.2), 0.5 * sin(1.2), 0}), 1e-12);
    wk_api_free(api);
}

static void acceleration_changes_the_twist(void)
{
    wk_api *api = paused_api(WORLD);
    REQUIRE(api);
    wk_motion m = {.pose = wk_pose_identity(), .linear = {1, 0, 0}, .linear_acc = {0, 0, -2}};
    REQUIRE_INT(set_entity(api, "box", "", &m, WK_MOTION_TWIST | WK_MOTION_ACCELERATION, NULL), ==, WK_RESULT_OK);
    REQUIRE_INT(step_simulation(api, 150, NULL), ==, WK_RESULT_OK); /* 1.5 s */
    wk_motion got;
    REQUIRE_INT(get_entity(api, "box", &got, NULL), ==, WK_RESULT_OK);
    CHECK_VEC3_NEAR(got.pose.p, ((wk_vec3){1.5, 0, -2.25}), 1e-12); /* v t, a t^2 / 2 */
    CHECK_VEC3_NEAR(got.linear, ((wk_vec3){1, 0, -3}), 1e-12);
    CHECK_VEC3_NEAR(got.linear_acc, m.linear_acc, 0);
    wk_api_free(api);
}

/* A static ground plane; an arm welded to the world by 'fix', its link l2
 * hanging 1 m below on revolute 'j2', and a nested model 'hand' whose link
 * h hangs from l2 on revolute 'j3'; a free 0.2 m box at x = 3, 1 m up;
 * 1 ms steps. */
#define PHYSICS_WORLD                                                                                          \
    "<sdf version='1.9'><world name='w'><physics name='p' type='ode'><max_step_size>0.001</max_step_size>"     \
    "</physics><model name='ground'><static>true</static><link name='l'><collision name='c'><geometry><plane>" \
    "<normal>0 0 1</normal><size>10 10</size></plane></geometry></collision></link></model>"                  \
    "<model name='arm'><link name='base'><pose>0 0 2 0 0 0</pose><inertial><mass>10</mass></inertial></link>"  \
    "<joint name='fix' type='fixed'><parent>world</parent><child>base</child></joint><link name='l2'><pose>"   \
    "0 0 1 0 0 0</pose><inertial><mass>1</mass></inertial></link><joint name='j2' type='revolute'><parent>"    \
    "base</parent><child>l2</child><axis><xyz>0 1 0</xyz></axis></joint><model name='hand'><pose>0 0 0.5 0 0 " \
    "0</pose><link name='h'><inertial><mass>1</mass></inertial></link></model><joint name='j3' type='revolute'>" \
    "<parent>l2</parent><child>hand::h</child><axis><xyz>0 1 0</xyz></axis></joint></model>"                \
    "<model name='box'><pose>3 0 1 0 0 0</pose><link name='l'><inertial><mass>1</mass><inertia><ixx>0.0067"   \
    "</ixx><iyy>0.0067</iyy><izz>0.0067</izz></inertia></inertial><collision name='c'><geometry><box><size>"  \
    "0.2 0.2 0.2</size></box></geometry></collision></link></model></world></sdf>"

/* With MuJoCo stepping the world, a link on a joint is the engine's to
 * place: a pose or twist set on it (or on the model it holds to the world)
 * is refused naming the joint, changing nothing; a static model's pose
 * and a free body's are taken (the box lands on the ground where it was
 * moved to, at 0.5 + 0.1 m). */
static void with_physics_joints_place_their_links(void)
{
    wk_api *api = wk_api_new_desc(&(wk_api_desc){.physics = WK_PHYSICS_MUJOCO});
    REQUIRE(api);
    REQUIRE_INT(load_string(api, PHYSICS_WORLD), ==, WK_RESULT_OK);
    REQUIRE_INT(set_state(api, WK_SIM_PAUSED, NULL), ==, WK_RESULT_OK);
    wk_motion up = at((wk_vec3){0, 0, 0.5}, 0);
    up.linear = (wk_vec3){0, 0, 1};
    const struct {
        const char *entity;
        unsigned parts;
        const char *message;
    } refused[] = {
        {"arm::l2", WK_MOTION_POSE, "link 'arm::l2' is moved by joint 'j2'; set the joint position instead"},
        {"arm::l2", WK_MOTION_TWIST, "link 'arm::l2' is moved by joint 'j2'; set the joint position instead"},
        {"arm::base", WK_MOTION_POSE,
         "link 'arm::base' is welded to the world by fixed joint 'fix': the physics engine places it"},
        {"arm", WK_MOTION_POSE, "entity 'arm' is welded to the world by fixed joint 'fix': the physics engine places it"},
        {"ground", WK_MOTION_TWIST, "entity 'ground' is static: it cannot be given a twist or an acceleration"},
    };
    wk_motion before;
    REQUIRE_INT(get_entity(api, "arm::l2", &before, NULL), ==, WK_RESULT_OK);
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        char msg[256];
        CHECK_INT(set_entity(api, refused[i].entity, "", &up, refused[i].parts, msg), ==, WK_RESULT_OPERATION_FAILED);
        if (!CHECK_STR(msg, refused[i].message))
            fprintf(stderr, "    case %zu\n", i);
    }
    wk_motion after;
    REQUIRE_INT(get_entity(api, "arm::l2", &after, NULL), ==, WK_RESULT_OK);
    CHECK_VEC3_NEAR(after.pose.p, before.pose.p, 0);
    CHECK_VEC3_NEAR(after.linear, ((wk_vec3){0, 0, 0}), 0);
    /* The ground raised 0.5 m, the box moved over it: both taken. */
    CHECK_INT(set_entity(api, "ground", "", &up, WK_MOTION_POSE, NULL), ==, WK_RESULT_OK);
    wk_motion over = at((wk_vec3){3, 0, 1.5}, 0);
    CHECK_INT(set_entity(api, "box", "", &over, WK_MOTION_POSE, NULL), ==, WK_RESULT_OK);
    REQUIRE_INT(step_simulation(api, 1500, NULL), ==, WK_RESULT_OK);
    wk_motion box;
    REQUIRE_INT(get_entity(api, "box", &box, NULL), ==, WK_RESULT_OK);
    CHECK_VEC3_NEAR(box.pose.p, ((wk_vec3){3, 0, 0.6}), 2e-3);
    wk_api_free(api);
}

/* UpdateTransform's request moving object to z = 3, as JSON. */
static void update_transform_request(const char *object, char *out, size_t cap)
{
    snprintf(out, cap,
             "{'worldId':'world','nodeA':{'id':'root'},'nodeB':{'byName':{'object':{'objectName':'%s'}}},"
             "'nodeToUpdate':{'byName':{'object':{'objectName':'%s'}}},'aTB':{'position':{'z':3}}}",
             object, object);
}

/* With MuJoCo stepping the world, ObjectWorldService's UpdateTransform of
 * an object a joint holds is refused by the check SetEntityState makes, in
 * its words (the object named as the request names it), as
 * FAILED_PRECONDITION, changing nothing; a free object is moved, and the
 * engine takes it there. */
static void with_physics_update_transform_is_refused_alike(void)
{
    wk_api *api = wk_api_new_desc(&(wk_api_desc){.physics = WK_PHYSICS_MUJOCO});
    REQUIRE(api);
    REQUIRE_INT(load_string(api, PHYSICS_WORLD), ==, WK_RESULT_OK);
    REQUIRE_INT(set_state(api, WK_SIM_PAUSED, NULL), ==, WK_RESULT_OK);
    REQUIRE_INT(step_simulation(api, 1, NULL), ==, WK_RESULT_OK);
    const struct {
        const char *object, *entity, *why; /* why: SetEntityState's message after the name */
    } refused[] = {
        {"arm", "arm", "is welded to the world by fixed joint 'fix': the physics engine places it"},
        {"hand", "arm::hand", "hangs on joint 'j3' (its link 'h', to 'l2'); set the joint position instead"},
    };
    wk_motion up = at((wk_vec3){0, 0, 3}, 0);
    wk_buf before = ows_state(api, "world");
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        char msg[200], expected[200], request[512];
        CHECK_INT(set_entity(api, refused[i].entity, "", &up, WK_MOTION_POSE, msg), ==, WK_RESULT_OPERATION_FAILED);
        snprintf(expected, sizeof expected, "entity '%s' %s", refused[i].entity, refused[i].why);
        CHECK_STR(msg, expected);
        update_transform_request(refused[i].object, request, sizeof request);
        snprintf(expected, sizeof expected, "UpdateTransform: entity '%s' %s", refused[i].object, refused[i].why);
        OWS_EXPECT(api, "UpdateTransform", request, WK_GRPC_FAILED_PRECONDITION, expected);
    }
    CHECK(ows_unchanged(api, "world", &before));
    char request[512];
    update_transform_request("box", request, sizeof request);
    OWS_EXPECT(api, "UpdateTransform", request, WK_GRPC_OK, NULL);
    REQUIRE_INT(step_simulation(api, 1, NULL), ==, WK_RESULT_OK);
    wk_motion box;
    REQUIRE_INT(get_entity(api, "box", &box, NULL), ==, WK_RESULT_OK);
    CHECK_NEAR(box.pose.p.z, 3, 1e-4); /* one step of fall from rest: g h^2 */
    wk_api_free(api);
}

/* An MJCF body with no joint inside a hinged one is welded to it: the
 * engine swings it with its parent, and SetEntityState on it is refused
 * naming the parent it is welded to. */
#define WELDED_MJCF                                                                                          \
    "<mujoco model='m'><option timestep='0.001'/><worldbody><body name='upper' pos='0 0 2'><joint "            \
    "name='swing' type='hinge' axis='0 1 0'/><inertial pos='0.5 0 0' mass='1' diaginertia='0.1 0.1 0.1'/>"    \
    "<body name='tip' pos='1 0 0'><inertial pos='0 0 0' mass='1' diaginertia='0.01 0.01 0.01'/></body>"       \
    "</body></worldbody></mujoco>"

static void with_physics_a_welded_mjcf_body_names_its_parent(void)
{
    wk_api *api = wk_api_new_desc(&(wk_api_desc){.physics = WK_PHYSICS_MUJOCO});
    REQUIRE(api);
    REQUIRE_INT(load_string(api, WELDED_MJCF), ==, WK_RESULT_OK);
    REQUIRE_INT(set_state(api, WK_SIM_PAUSED, NULL), ==, WK_RESULT_OK);
    wk_motion up = at((wk_vec3){0, 0, 3}, 0), tip;
    char msg[256];
    CHECK_INT(set_entity(api, "m::tip", "", &up, WK_MOTION_POSE, msg), ==, WK_RESULT_OPERATION_FAILED);
    CHECK_STR(msg, "link 'm::tip' is welded to 'upper' by fixed joint 'tip_weld': the physics engine places it");
    /* Let go level, the arm swings down: the tip, 1 m out, with it. */
    REQUIRE_INT(step_simulation(api, 200, NULL), ==, WK_RESULT_OK);
    REQUIRE_INT(get_entity(api, "m::tip", &tip, NULL), ==, WK_RESULT_OK);
    CHECK(tip.pose.p.z < 1.9);
    CHECK_NEAR(wk_vec3_norm(wk_vec3_sub(tip.pose.p, (wk_vec3){0, 0, 2})), 1, 1e-6);
    wk_api_free(api);
}

static const wk_test_case cases[] = {
    {"refusals_change_nothing", refusals_change_nothing},
    {"with_physics_joints_place_their_links", with_physics_joints_place_their_links},
    {"with_physics_update_transform_is_refused_alike", with_physics_update_transform_is_refused_alike},
    {"with_physics_a_welded_mjcf_body_names_its_parent", with_physics_a_welded_mjcf_body_names_its_parent},
    {"flags_choose_the_parts", flags_choose_the_parts},
    {"round_trips", round_trips},
    {"twist_moves_the_pose", twist_moves_the_pose},
    {"acceleration_changes_the_twist", acceleration_changes_the_twist},
};
WK_TEST_MAIN(cases)
