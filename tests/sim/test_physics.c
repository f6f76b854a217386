/* test_physics.c — the MuJoCo engine behind wk_sim, checked against
 * physics, not against itself: free fall against z0 - g t^2 / 2, a box
 * coming to rest on a ground plane at half its height, a pendulum's period
 * against 2 pi sqrt(L / g), a body coasting in zero gravity, a pose set
 * between steps taken by the engine (a teleport), a damped spring, a
 * joint's dry friction and limit, and a surface's friction against their
 * closed forms; and MJCF worlds run through worldkit (file -> entities ->
 * MuJoCo model) against the same files run by MuJoCo natively. */
#include <math.h>
#include <mujoco/mujoco.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/clock.h"
#include "math/math_check.h"
#include "sim/physics_mujoco.h"
#include "sim/physics_start.h"
#include "wk_test.h"
#include "worldkit/wk_sim.h"

/* Before contact the box falls freely. Semi-implicit Euler with step h
 * gives z_n = z0 - g h^2 n (n + 1) / 2, which is the exact z0 - g t^2 / 2
 * less g h t / 2: 1.47 mm at t = 0.3 s, so the bound is 1.5 mm. */
static void free_fall(void)
{
    wk_sim *sim = physics_sim(BOX_DROP);
    REQUIRE(sim);
    REQUIRE_INT(steps(sim, 300), ==, WK_OK);
    double want = 2 - 9.8 * 0.3 * 0.3 / 2;
    CHECK_NEAR(height(sim, "box::body"), want, 1.5e-3);
    /* The model falls with it, at g t. */
    CHECK_NEAR(model_height(sim, "box"), height(sim, "box::body"), 1e-12);
    CHECK_NEAR(wk_sim_motion(sim, wk_scene_scoped(wk_sim_scene(sim), wk_sim_world(sim), "box")).linear.z, -9.8 * 0.3,
               0.01);
    wk_sim_free(sim);
}

/* After 3 s the box rests on the plane, its centre at half its height. */
static void comes_to_rest(void)
{
    wk_sim *sim = physics_sim(BOX_DROP);
    REQUIRE(sim);
    REQUIRE_INT(steps(sim, 3000), ==, WK_OK);
    CHECK_NEAR(height(sim, "box::body"), 0.1, 2e-3);
    /* The static ground stays where it was. */
    CHECK_NEAR(height(sim, "ground::l"), 0, 1e-12);
    /* Moved by a client, the box follows it down. */
    wk_entity ground = wk_scene_scoped(wk_sim_scene(sim), wk_sim_world(sim), "ground");
    wk_motion m = wk_sim_motion(sim, ground);
    m.pose.p.z = -1;
    REQUIRE_INT(wk_sim_set_motion(sim, ground, &m, WK_MOTION_POSE), ==, WK_OK);
    REQUIRE_INT(steps(sim, 2000), ==, WK_OK);
    CHECK_NEAR(height(sim, "box::body"), -0.9, 2e-3);
    wk_sim_free(sim);
}

/* A point-like bob on a light rod of length 1 m, hinged at 2 m height and
 * let go at 0.05 rad: period 2 pi sqrt(L / g) within 0.5 %. The bob's
 * inertia about its centre is tiny, so the rod's pivot sees m L^2. */
#define PENDULUM                                                                                                 \
    WORLD_OPEN("0 0 -9.8")                                                                                       \
    "<model name='pendulum'><static>false</static><link name='base'><pose>0 0 2 0 0 0</pose><inertial><mass>10" \
    "</mass></inertial></link><joint name='fix' type='fixed'><parent>world</parent><child>base</child></joint>"  \
    "<link name='bob'><pose>0.04998 0 1.00125 0 0 0</pose><inertial><mass>1</mass><inertia><ixx>1e-6</ixx>"     \
    "<iyy>1e-6</iyy><izz>1e-6</izz></inertia></inertial></link><joint name='swing' type='revolute'>"             \
    "<pose relative_to='base'>0 0 0 0 0 0</pose><parent>base</parent><child>bob</child><axis><xyz>0 1 0</xyz>" \
    "</axis></joint></model></world></sdf>"

static void pendulum_period(void)
{
    wk_sim *sim = physics_sim(PENDULUM);
    REQUIRE(sim);
    /* Times of the bob's upward crossings of x = 0, from below. */
    double crossings[4];
    int n = 0;
    double last_x = wk_scene_world_pose(wk_sim_scene(sim), link_of(sim, "pendulum::bob")).p.x;
    for (int k = 1; k <= 8000 && n < 4; k++) {
        REQUIRE_INT(steps(sim, 1), ==, WK_OK);
        double x = wk_scene_world_pose(wk_sim_scene(sim), link_of(sim, "pendulum::bob")).p.x;
        if (last_x < 0 && x >= 0) /* interpolated within the step */
            crossings[n++] = (k - 1 + (-last_x) / (x - last_x)) * 0.001;
        last_x = x;
    }
    REQUIRE_INT(n, ==, 4);
    double period = (crossings[3] - crossings[0]) / 3, want = 2 * M_PI * sqrt(1 / 9.8);
    CHECK_NEAR(period, want, 0.005 * want);
    wk_sim_free(sim);
}

/* A joint position a client sets (UpdateObjectJoints) goes to the engine,
 * at rest there: set to 0.3 rad a quarter period in, when it swings its
 * fastest (0.157 rad/s, 1.6e-4 rad a step), the next step leaves it where
 * it was put but for gravity's g/L sin(0.25) h^2 = 2.5e-6 rad; and from
 * there it swings through the bob's rest, at 0.05 rad (it was let go 0.05
 * rad from hanging straight), to 0.05 - 0.25 = -0.2 rad (the bound, 2 mrad,
 * is what a step moves it near the turn and the integrator's drift). */
static void joint_set_by_a_client(void)
{
    wk_sim *sim = physics_sim(PENDULUM);
    REQUIRE(sim);
    wk_scene *s = wk_sim_scene(sim);
    wk_entity pendulum = wk_scene_scoped(s, wk_sim_world(sim), "pendulum");
    wk_entity swing = wk_scene_scoped(s, wk_sim_world(sim), "pendulum::swing");
    wk_status st = {0};
    /* Its model a kinematic object, as a server's world is. */
    REQUIRE_INT(wk_scene_objects_init(s, wk_sim_world(sim), &st), ==, WK_OK);
    REQUIRE(wk_scene_kinematics(s, swing));
    REQUIRE_INT(steps(sim, 502), ==, WK_OK);
    const char *name = "swing";
    double set = 0.3;
    if (!CHECK_INT(wk_scene_set_joint_positions(s, pendulum, &name, &set, 1, &st), ==, WK_OK))
        fprintf(stderr, "    %s\n", st.message);
    REQUIRE_INT(steps(sim, 1), ==, WK_OK);
    CHECK_NEAR(wk_scene_kinematics(s, swing)->position, 0.3, 1e-5);
    double turned = 0.3;
    for (int k = 0; k < 1000; k++) {
        REQUIRE_INT(steps(sim, 1), ==, WK_OK);
        turned = fmin(turned, wk_scene_kinematics(s, swing)->position);
    }
    CHECK_NEAR(turned, -0.2, 2e-3);
    wk_sim_free(sim);
}

/* In zero gravity a body set moving keeps its speed: a straight line, to
 * 1e-9 per step. The model follows its link, as Gazebo's follows its
 * canonical link, so its pose and twist are the body's. */
static void coasting(void)
{
    wk_sim *sim = physics_sim(WORLD_OPEN("0 0 0") "<model name='puck'><link name='l'><inertial><mass>2</mass>"
                                                  "</inertial></link></model></world></sdf>");
    REQUIRE(sim);
    wk_entity puck = wk_scene_scoped(wk_sim_scene(sim), wk_sim_world(sim), "puck");
    REQUIRE_INT(steps(sim, 1), ==, WK_OK);
    /* A pose and twist set between steps are taken: the teleport. */
    wk_motion m = wk_sim_motion(sim, puck);
    m.pose.p = (wk_vec3){1, 2, 3};
    m.linear = (wk_vec3){0.5, -0.25, 0};
    REQUIRE_INT(wk_sim_set_motion(sim, puck, &m, WK_MOTION_POSE | WK_MOTION_TWIST), ==, WK_OK);
    REQUIRE_INT(steps(sim, 1000), ==, WK_OK);
    wk_motion got = wk_sim_motion(sim, puck);
    CHECK_NEAR(got.pose.p.x, 1.5, 1000 * 1e-9);
    CHECK_NEAR(got.pose.p.y, 1.75, 1000 * 1e-9);
    CHECK_NEAR(got.pose.p.z, 3, 1000 * 1e-9);
    CHECK_NEAR(got.linear.x, 0.5, 1e-9);
    CHECK_NEAR(got.linear.y, -0.25, 1e-9);
    wk_pose link = wk_scene_world_pose(wk_sim_scene(sim), link_of(sim, "puck::l"));
    CHECK_NEAR(link.p.x, got.pose.p.x, 1e-12);
    wk_sim_free(sim);
}

/* Far from the origin, a free link below a turned model (the model, of two
 * links, follows neither) is written as a ParentPose that composes back to
 * its world pose only to rounding. A client marking a change before each
 * step (so no step is quiet) does not get it taken for moved: it falls as
 * free_fall's box does, where a teleport would have stopped it. */
static void far_bodies_are_not_teleported(void)
{
    wk_sim *sim = physics_sim(WORLD_OPEN("0 0 -9.8") "<model name='pair'><pose>123456.789 -98765.4321 3.3 0.3 0.7 "
                                                     "1.1</pose><link name='a'><pose>0.37 -0.61 0.29 0.5 -0.4 0.9"
                                                     "</pose><inertial><mass>2</mass></inertial></link><link name='b'>"
                                                     "<pose>3 0 0 0 0 0</pose><inertial><mass>1</mass></inertial>"
                                                     "</link></model></world></sdf>");
    REQUIRE(sim);
    wk_scene *s = wk_sim_scene(sim);
    wk_entity pair = wk_scene_scoped(s, wk_sim_world(sim), "pair");
    double z0 = height(sim, "pair::a");
    for (int k = 0; k < 300; k++) {
        REQUIRE_INT(wk_ecm_set_changed(wk_scene_ecm(s), pair, wk_scene_types_of(s)->parent_pose,
                                       WK_PERIODIC_CHANGE),
                    ==, WK_OK);
        REQUIRE_INT(steps(sim, 1), ==, WK_OK);
    }
    CHECK_NEAR(height(sim, "pair::a"), z0 - 9.8 * 0.3 * 0.3 / 2, 1.5e-3);
    CHECK_NEAR(wk_sim_motion(sim, link_of(sim, "pair::a")).linear.z, -9.8 * 0.3, 0.01);
    wk_sim_free(sim);
}

/* Lifts the puck to z = 5, at rest, at the step given as ctx: a system
 * that writes after the engine, in the same step. */
static void lift_at(wk_sim *sim, const wk_step_info *info, void *ctx)
{
    if (info->iteration != *(const uint64_t *)ctx)
        return;
    wk_entity puck = wk_scene_scoped(wk_sim_scene(sim), wk_sim_world(sim), "puck");
    wk_motion m = wk_sim_motion(sim, puck);
    m.pose.p.z = 5;
    m.linear = (wk_vec3){0, 0, 0};
    REQUIRE_INT(wk_sim_set_motion(sim, puck, &m, WK_MOTION_POSE | WK_MOTION_TWIST), ==, WK_OK);
}

/* A step that no one wrote around takes nothing from the entities (the
 * engine holds the world as it is); what a system writes after the engine
 * within a step, and what a step's end removes, still reach it: the puck
 * lifted at step 100 falls from 5 m from there, z = 5 - g t^2 / 2 within
 * the integrator's g h t (as free_fall), and a ball marked for removal
 * leaves the engine with its entities. */
static void writes_after_the_engine_are_taken(void)
{
    wk_sim *sim = physics_sim(WORLD_OPEN("0 0 -9.8") "<model name='puck'><pose>0 0 1 0 0 0</pose><link name='l'>"
                                                     "<inertial><mass>2</mass></inertial></link></model><model "
                                                     "name='ball'><pose>3 0 1 0 0 0</pose><link name='l'><inertial>"
                                                     "<mass>1</mass></inertial></link></model></world></sdf>");
    REQUIRE(sim);
    uint64_t at = 100;
    REQUIRE_INT(wk_sim_add_system(sim, WK_POST_UPDATE, lift_at, &at), ==, WK_OK);
    REQUIRE_INT(steps(sim, 100), ==, WK_OK);
    CHECK_NEAR(height(sim, "puck::l"), 5, 1e-12);
    REQUIRE_INT(steps(sim, 300), ==, WK_OK);
    double t = 0.3, g = 9.8;
    CHECK_NEAR(height(sim, "puck::l"), 5 - g * t * t / 2, g * 1e-3 * t);
    wk_ecm *ecm = wk_scene_ecm(wk_sim_scene(sim));
    REQUIRE_INT(wk_ecm_request_remove(ecm, wk_scene_scoped(wk_sim_scene(sim), wk_sim_world(sim), "ball"), true), ==,
                WK_OK);
    REQUIRE_INT(steps(sim, 2), ==, WK_OK);
    CHECK(!link_of(sim, "ball::l"));
    CHECK_INT(sim->physics->count, ==, 1);
    wk_sim_free(sim);
}

/* A 1 kg car on a rail (fixed to the world) sliding along axis, at x;
 * limit and dynamics are the axis's elements. */
#define SLIDER(name, x, axis, limit, dynamics)                                                                  \
    "<model name='" name "'><pose>" x " 0 1 0 0 0</pose><link name='rail'><inertial><mass>1</mass></inertial>" \
    "</link><joint name='fix' type='fixed'><parent>world</parent><child>rail</child></joint><link name='car'>"   \
    "<inertial><mass>1</mass><inertia><ixx>0.01</ixx><iyy>0.01</iyy><izz>0.01</izz></inertia></inertial>"     \
    "</link><joint name='slide' type='prismatic'><parent>rail</parent><child>car</child><axis><xyz>" axis      \
    "</xyz>" limit dynamics "</axis></joint></model>"

/* How far a slider's car has moved from its rail, along x or z. */
static wk_vec3 travel(wk_sim *sim, const char *model)
{
    char rail[64], car[64];
    snprintf(rail, sizeof rail, "%s::rail", model);
    snprintf(car, sizeof car, "%s::car", model);
    return wk_vec3_sub(wk_scene_world_pose(wk_sim_scene(sim), link_of(sim, car)).p,
                       wk_scene_world_pose(wk_sim_scene(sim), link_of(sim, rail)).p);
}

/* A damped spring (SDFormat's spring_stiffness, spring_reference and
 * damping): k = 100 N/m, c = 0.4 N s/m, m = 1 kg, let go 0.1 m from its
 * rest, so x(t) = r (1 - e^(-b t) (cos w t + b / w sin w t)) with b = c /
 * 2m and w = sqrt(k/m - b^2). Semi-implicit Euler at h = 1 ms moves the
 * position with the velocity just updated, so it runs about half a step
 * ahead: r w h / 2 = 5e-4 m at most (4.7e-4 measured over 3 s); the bound
 * is 6e-4 m. Without the damping the error would reach 0.045 m, without
 * the spring 0.1 m. */
static void damped_spring(void)
{
    wk_sim *sim = physics_sim(WORLD_OPEN("0 0 0") SLIDER(
        "spring", "0", "1 0 0", "",
        "<dynamics><damping>0.4</damping><spring_stiffness>100</spring_stiffness><spring_reference>0.1"
        "</spring_reference></dynamics>") "</world></sdf>");
    REQUIRE(sim);
    double b = 0.2, w = sqrt(100 - b * b), worst = 0;
    for (int k = 1; k <= 3000; k++) {
        REQUIRE_INT(steps(sim, 1), ==, WK_OK);
        double t = k * 0.001, want = 0.1 * (1 - exp(-b * t) * (cos(w * t) + b / w * sin(w * t)));
        worst = fmax(worst, fabs(travel(sim, "spring").x - want));
    }
    CHECK_NEAR(worst, 0, 6e-4);
    wk_sim_free(sim);
}

/* Under gravity a car on a vertical rail falls, held back by the joint's
 * dry friction (5 N of the weight's 9.8: z = -(g - F/m) t^2 / 2, 0.6 m at
 * 0.5 s, where a free fall goes 1.225 m; the integrator adds (g - F/m) h t
 * / 2 = 1.2 mm, as in free_fall, so the bound is 1.5 mm), or stopped at its
 * lower limit, -0.3 m (MuJoCo's limits are soft: the weight presses it
 * past by the constraint's give, 0.37 mm measured; the bound is 1 mm). */
static void joint_friction_and_limit(void)
{
    wk_sim *sim = physics_sim(WORLD_OPEN("0 0 -9.8") SLIDER("rubbing", "0", "0 0 1", "",
                                                              "<dynamics><friction>5</friction></dynamics>")
                                  SLIDER("stopped", "2", "0 0 1", "<limit><lower>-0.3</lower><upper>1</upper></limit>",
                                         "") "</world></sdf>");
    REQUIRE(sim);
    REQUIRE_INT(steps(sim, 500), ==, WK_OK);
    CHECK_NEAR(travel(sim, "rubbing").z, -(9.8 - 5) * 0.5 * 0.5 / 2, 1.5e-3);
    REQUIRE_INT(steps(sim, 1500), ==, WK_OK);
    CHECK_NEAR(travel(sim, "stopped").z, -0.3, 1e-3);
    wk_sim_free(sim);
}

/* A box pushed along the ground at 2 m/s stops after v^2 / (2 mu g): with
 * SDFormat's surface friction mu = 0.5 on both (MuJoCo takes the larger),
 * 0.408 m, where MuJoCo's default of 1 stops it at 0.204 m. MuJoCo's
 * contacts are soft (0.2 % short, measured); the bound is 1 %. */
#define SURFACE "<surface><friction><ode><mu>0.5</mu></ode></friction></surface>"
static void contact_friction(void)
{
    wk_sim *sim = physics_sim(
        WORLD_OPEN("0 0 -9.8")
        "<model name='ground'><static>true</static><link name='l'><collision name='c'><geometry><plane>"
        "<normal>0 0 1</normal><size>100 100</size></plane></geometry>" SURFACE "</collision></link></model>"
        "<model name='box'><pose>0 0 0.1 0 0 0</pose><link name='body'><inertial><mass>1</mass><inertia>"
        "<ixx>0.00667</ixx><iyy>0.00667</iyy><izz>0.00667</izz></inertia></inertial><collision name='c'>"
        "<geometry><box><size>0.2 0.2 0.2</size></box></geometry>" SURFACE "</collision></link></model>"
        "</world></sdf>");
    REQUIRE(sim);
    REQUIRE_INT(steps(sim, 200), ==, WK_OK);
    wk_entity box = wk_scene_scoped(wk_sim_scene(sim), wk_sim_world(sim), "box");
    wk_motion m = wk_sim_motion(sim, box);
    double x0 = m.pose.p.x;
    m.linear = (wk_vec3){2, 0, 0};
    REQUIRE_INT(wk_sim_set_motion(sim, box, &m, WK_MOTION_TWIST), ==, WK_OK);
    REQUIRE_INT(steps(sim, 1500), ==, WK_OK);
    double want = 2 * 2 / (2 * 0.5 * 9.8);
    CHECK_NEAR(wk_sim_motion(sim, box).pose.p.x - x0, want, 0.01 * want);
    wk_sim_free(sim);
}

/* ---- meshes ---- */

/* A box's corners, scaled by half, and its 12 faces, wound outward. */
static const double corner[8][3] = {{-1, -1, -1}, {-1, -1, 1}, {-1, 1, -1}, {-1, 1, 1},
                                    {1, -1, -1},  {1, -1, 1},  {1, 1, -1},  {1, 1, 1}};
static const int face[12][3] = {{0, 1, 3}, {0, 3, 2}, {4, 6, 7}, {4, 7, 5}, {0, 4, 5}, {0, 5, 1},
                                {2, 3, 7}, {2, 7, 6}, {0, 2, 6}, {0, 6, 4}, {1, 5, 7}, {1, 7, 3}};

/* A box of the given half sizes as COLLADA, in centimetres (its <unit>
 * says so), its vertices around the origin and its node lifting them by
 * half its height, so that the box spans z from 0 to its height. */
static void write_box_dae(FILE *f, wk_vec3 half)
{
    fprintf(f, "<?xml version='1.0'?><COLLADA xmlns='http://www.collada.org/2005/11/COLLADASchema' "
               "version='1.4.1'><asset><unit name='centimeter' meter='0.01'/><up_axis>Z_UP</up_axis></asset>"
               "<library_geometries><geometry id='g'><mesh><source id='p'><float_array id='a' count='24'>");
    for (int v = 0; v < 8; v++)
        fprintf(f, "%g %g %g ", 100 * corner[v][0] * half.x, 100 * corner[v][1] * half.y,
                100 * corner[v][2] * half.z);
    fprintf(f, "</float_array><technique_common><accessor source='#a' count='8' stride='3'><param name='X' "
               "type='float'/><param name='Y' type='float'/><param name='Z' type='float'/></accessor>"
               "</technique_common></source><vertices id='v'><input semantic='POSITION' source='#p'/></vertices>"
               "<triangles count='12'><input semantic='VERTEX' source='#v' offset='0'/><p>");
    for (int t = 0; t < 12; t++)
        fprintf(f, "%d %d %d ", face[t][0], face[t][1], face[t][2]);
    fprintf(f, "</p></triangles></mesh></geometry></library_geometries><library_visual_scenes><visual_scene "
               "id='s'><node id='n'><translate>0 0 %g</translate><instance_geometry url='#g'/></node>"
               "</visual_scene></library_visual_scenes><scene><instance_visual_scene url='#s'/></scene>"
               "</COLLADA>",
            100 * half.z);
}

/* Writes a box of the given half sizes as a mesh file: binary STL, ASCII
 * STL, OBJ or COLLADA, by form; junk: a file no reader takes. */
static bool write_box_mesh(const char *path, const char *form, wk_vec3 half)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return false;
    if (!strcmp(form, "dae"))
        write_box_dae(f, half);
    if (!strcmp(form, "junk"))
        fprintf(f, "not a mesh\n");
    if (!strcmp(form, "stl")) {
        char header[80] = {0};
        uint32_t n = 12;
        fwrite(header, 1, sizeof header, f);
        fwrite(&n, sizeof n, 1, f);
    } else if (!strcmp(form, "ascii")) {
        fprintf(f, "solid slab\n");
    }
    for (int v = 0; !strcmp(form, "obj") && v < 8; v++)
        fprintf(f, "v %g %g %g\n", corner[v][0] * half.x, corner[v][1] * half.y, corner[v][2] * half.z);
    for (int t = 0; (!strcmp(form, "stl") || !strcmp(form, "ascii") || !strcmp(form, "obj")) && t < 12; t++) {
        if (!strcmp(form, "obj")) {
            fprintf(f, "f %d %d %d\n", face[t][0] + 1, face[t][1] + 1, face[t][2] + 1);
            continue;
        }
        float tri[12] = {0}; /* a normal (left to the reader) and three corners */
        for (int k = 0; k < 3; k++)
            for (int a = 0; a < 3; a++)
                tri[3 + 3 * k + a] = (float)(corner[face[t][k]][a] * (a == 0 ? half.x : a == 1 ? half.y : half.z));
        if (!strcmp(form, "stl")) {
            uint16_t attributes = 0;
            fwrite(tri, sizeof tri[0], 12, f);
            fwrite(&attributes, sizeof attributes, 1, f);
        } else {
            fprintf(f, "facet normal 0 0 0\nouter loop\n");
            for (int k = 0; k < 3; k++)
                fprintf(f, "vertex %g %g %g\n", tri[3 + 3 * k], tri[4 + 3 * k], tri[5 + 3 * k]);
            fprintf(f, "endloop\nendfacet\n");
        }
    }
    if (!strcmp(form, "ascii"))
        fprintf(f, "endsolid slab\n");
    return fclose(f) == 0;
}

/* The model whose one collision is the mesh file name scaled by scale: a
 * static floor, or (falls) a 1 kg body at 1 m. */
#define MESH_MODEL(falls)                                                                                      \
    "<model name='mesh'>" falls "<link name='l'><inertial><mass>1</mass><inertia><ixx>0.00667</ixx><iyy>"      \
    "0.00667</iyy><izz>0.00667</izz></inertia></inertial><collision name='c'><geometry><mesh><uri>%s</uri>"   \
    "<scale>%s</scale></mesh></geometry></collision></link></model>"

/* Two worlds, each with a plain shape and a mesh (in form, with half sizes
 * half, scaled by scale): a box of side 0.2 m dropped from 1 m onto a
 * static floor that is the mesh (!falls), or the mesh dropped from 1 m onto
 * a ground plane (falls). The height of the body dropped after 2 s. */
static double dropped_with_mesh(const char *form, wk_vec3 half, const char *scale, bool falls)
{
    char dir[] = "/tmp/wk_meshXXXXXX", path[64], file[64], world[2048];
    if (!mkdtemp(dir))
        return NAN;
    const char *name = !strcmp(form, "obj") ? "mesh.obj" : strstr("stl ascii", form) ? "mesh.stl" : "mesh.dae";
    snprintf(path, sizeof path, "%s/%s", dir, name);
    snprintf(file, sizeof file, "%s/world.sdf", dir);
    if (falls)
        snprintf(world, sizeof world,
                 WORLD_OPEN("0 0 -9.8") "<model name='ground'><static>true</static><link name='l'><collision "
                                        "name='c'><geometry><plane><normal>0 0 1</normal><size>100 100</size>"
                                        "</plane></geometry></collision></link></model>" MESH_MODEL(
                                            "<pose>0 0 1 0 0 0</pose>") "</world></sdf>",
                 name, scale);
    else
        snprintf(world, sizeof world,
                 WORLD_OPEN("0 0 -9.8") MESH_MODEL(
                     "<static>true</static>") "<model name='box'><pose>0 0 1 0 0 0</pose><link name='body'>"
                                              "<inertial><mass>1</mass><inertia><ixx>0.00667</ixx><iyy>0.00667"
                                              "</iyy><izz>0.00667</izz></inertia></inertial><collision name='c'>"
                                              "<geometry><box><size>0.2 0.2 0.2</size></box></geometry>"
                                              "</collision></link></model></world></sdf>",
                 name, scale);
    double z = NAN;
    FILE *f = fopen(file, "w");
    bool written = f && fputs(world, f) >= 0;
    written = f && !fclose(f) && written;
    wk_sim *sim = written && write_box_mesh(path, form, half) ? physics_sim_of(NULL, file) : NULL;
    if (sim && steps(sim, 2000) == WK_OK)
        z = height(sim, falls ? "mesh::l" : "box::body");
    wk_sim_free(sim);
    remove(path);
    remove(file);
    rmdir(dir);
    return z;
}

/* A binary STL slab 4 x 4 x 0.2 m around the origin, and an OBJ unit
 * cube scaled to it, are floors: the box rests on their top, 0.1 m, with
 * its centre at 0.2 m. MuJoCo collides a mesh as its convex hull with one
 * contact point a pair, which carries the whole weight and gives more than
 * a plane's four: the box sinks 4.6 mm (0.19538 m, as MuJoCo itself gives
 * with the same mesh in its own MJCF), so the bound is 5 mm. */
static void rests_on_meshes(void)
{
    CHECK_NEAR(dropped_with_mesh("stl", (wk_vec3){2, 2, 0.1}, "1 1 1", false), 0.2, 5e-3);
    CHECK_NEAR(dropped_with_mesh("obj", (wk_vec3){0.5, 0.5, 0.5}, "4 4 0.2", false), 0.2, 5e-3);
}

/* Meshes MuJoCo 2.2.2 cannot read collide as the box around their
 * vertices (a box against a box or a plane: several contact points, so
 * under 2 mm of sinking, as for box_comes_to_rest): an ASCII STL cube of
 * side 0.2 m scaled to 0.1 m high, dropped on a plane, rests at half its
 * height; a COLLADA slab 4 x 4 x 0.1 m written in centimetres and lifted
 * by its node to span z 0 to 0.1 is a floor a box rests on at 0.2 m (a
 * box around the origin, or in metres, would be 5 cm or metres off); an
 * ASCII STL floor too. A mesh nobody reads is left out: the box falls
 * through where it stood. */
static void unreadable_meshes_collide_as_boxes(void)
{
    CHECK_NEAR(dropped_with_mesh("ascii", (wk_vec3){0.1, 0.1, 0.1}, "1 1 0.5", true), 0.05, 2e-3);
    CHECK_NEAR(dropped_with_mesh("ascii", (wk_vec3){2, 2, 0.1}, "1 1 1", false), 0.2, 2e-3);
    CHECK_NEAR(dropped_with_mesh("dae", (wk_vec3){2, 2, 0.05}, "1 1 1", false), 0.2, 2e-3);
    CHECK(dropped_with_mesh("junk", (wk_vec3){2, 2, 0.05}, "1 1 1", false) < -10);
}

/* worldkit's path loses nothing that matters: after 1,000 steps every
 * named body of the MJCF file (its model's) is where MuJoCo, loading the
 * file itself, puts it, within 1e-6. The simulation and MuJoCo's data are
 * left for the caller to check more and free. */
static void runs_as_mujoco(const char *file, const char *const *bodies, wk_sim **sim_out, mjModel **m_out,
                           mjData **d_out)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", WK_TEST_WORLDS, file);
    wk_world_desc *d = NULL;
    wk_status st = {0};
    wk_sim *sim = NULL;
    if (wk_desc_read(&(wk_read_desc){.uri = path}, &d, &st) ||
        wk_sim_new(d, &(wk_sim_desc){.physics = WK_PHYSICS_MUJOCO}, &sim, &st))
        fprintf(stderr, "    %s\n", st.message);
    REQUIRE(sim);
    char error[512] = "";
    mjModel *m = mj_loadXML(path, NULL, error, sizeof error);
    if (!m)
        fprintf(stderr, "    %s\n", error);
    REQUIRE(m);
    mjData *data = mj_makeData(m);
    REQUIRE_INT(steps(sim, 1000), ==, WK_OK);
    for (int k = 0; k < 1000; k++)
        mj_step(m, data);
    mj_kinematics(m, data);
    const char *model = m->names; /* the model's name comes first */
    for (size_t i = 0; bodies[i]; i++) {
        char scoped[64];
        snprintf(scoped, sizeof scoped, "%s::%s", model, bodies[i]);
        wk_pose got = wk_scene_world_pose(wk_sim_scene(sim), link_of(sim, scoped));
        int id = mj_name2id(m, mjOBJ_BODY, bodies[i]);
        const mjtNum *x = &data->xpos[3 * id], *q = &data->xquat[4 * id];
        CHECK_NEAR(got.p.x, x[0], 1e-6);
        CHECK_NEAR(got.p.y, x[1], 1e-6);
        CHECK_NEAR(got.p.z, x[2], 1e-6);
        double sign = got.q.w * q[0] + got.q.x * q[1] + got.q.y * q[2] + got.q.z * q[3] < 0 ? -1 : 1;
        CHECK_NEAR(got.q.w, sign * q[0], 1e-6);
        CHECK_NEAR(got.q.x, sign * q[1], 1e-6);
        CHECK_NEAR(got.q.y, sign * q[2], 1e-6);
        CHECK_NEAR(got.q.z, sign * q[3], 1e-6);
    }
    *sim_out = sim;
    *m_out = m;
    *d_out = data;
}

static void mjcf_as_mujoco_runs_it(void)
{
    wk_sim *sim;
    mjModel *m;
    mjData *data;
    runs_as_mujoco("physics_oracle.xml", (const char *const[]){"arm", "hand", "ball", "crate", NULL}, &sim, &m,
                   &data);
    /* They moved: the arm swung, the ball and the crate fell. */
    CHECK(data->xpos[3 * mj_name2id(m, mjOBJ_BODY, "ball") + 2] < 0.5);
    mj_deleteData(data);
    mj_deleteModel(m);
    wk_sim_free(sim);
}

/* Joints' damping, dry friction, springs and ranges and geoms' friction,
 * from the file and its default classes, reach the engine: the same world
 * as MuJoCo runs it, where each of them changes the outcome. */
static void mjcf_joints_as_mujoco_runs_them(void)
{
    wk_sim *sim;
    mjModel *m;
    mjData *data;
    runs_as_mujoco("physics_joints.xml", (const char *const[]){"arm", "forearm", "carriage", "crate", NULL}, &sim, &m,
                   &data);
    /* The crate slid down its ramp, which a friction of 1 would not let
     * it: tan 25 degrees is 0.47. */
    CHECK(data->xpos[3 * mj_name2id(m, mjOBJ_BODY, "crate")] > -0.5573 + 0.1);
    /* The spring pulls the carriage to 0.15 m, past its range's 0.1. */
    CHECK_NEAR(data->xpos[3 * mj_name2id(m, mjOBJ_BODY, "carriage")], 1.1, 0.01);
    mj_deleteData(data);
    mj_deleteModel(m);
    wk_sim_free(sim);
}

/* A link on a joint carries the engine's twist and acceleration: the bob
 * of pendulum.sdf (1 m, let go at 0.05 rad about a pivot 2 m up) keeps
 * its energy v^2 / 2 + g z within 1 % of its swing's, g L (1 - cos 0.05)
 * = 12.25 mJ/kg (semi-implicit Euler's energy wobbles by about h omega / 2,
 * 0.16 %), reaching the speed sqrt(2 g L (1 - cos 0.05)) = 0.1565 m/s;
 * and its acceleration is gravity's pull along its path, -g sin(theta),
 * and v^2 / L towards the pivot, within 5 mm/s^2 (the step's mean,
 * measured half a step back: h / 2 times its rate of change, under
 * 1 mm/s^2). */
static void jointed_links_carry_their_motion(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s/pendulum.sdf", WK_TEST_WORLDS);
    wk_sim *sim = physics_sim_of(NULL, path);
    REQUIRE(sim);
    const double g = 9.8, swing = g * (1 - cos(0.05));
    double e0 = g * height(sim, "pendulum::bob"), fastest = 0;
    for (int k = 1; k <= 2000; k++) {
        REQUIRE_INT(steps(sim, 1), ==, WK_OK);
        wk_motion m = wk_sim_motion(sim, link_of(sim, "pendulum::bob"));
        wk_vec3 r = {m.pose.p.x, m.pose.p.y, m.pose.p.z - 2}; /* from the pivot */
        double L = wk_vec3_norm(r), theta = atan2(r.x, -r.z), v2 = wk_vec3_dot(m.linear, m.linear);
        fastest = fmax(fastest, sqrt(v2));
        if (!CHECK_NEAR(v2 / 2 + g * m.pose.p.z, e0, 0.01 * swing) ||
            !CHECK_NEAR(wk_vec3_dot(m.linear_acc, ((wk_vec3){cos(theta), 0, sin(theta)})), -g * sin(theta), 5e-3) ||
            !CHECK_NEAR(-wk_vec3_dot(m.linear_acc, r) / L, v2 / L, 5e-3))
            break;
    }
    CHECK_NEAR(fastest, sqrt(2 * swing), 1e-3);
    wk_sim_free(sim);
}

/* A base welded 2 m up; on hinges about y at its origin, a 1 kg leader
 * 0.5 m out along x, which swings down, and a 0.5 kg follower 0.3 m out
 * the other way, which mimics it: follower = -0.5 leader + 0.1. */
static const char mimic_sdf[] =
    "<sdf version='1.11'><world name='w'><physics name='p' type='ode'><max_step_size>0.001</max_step_size>"
    "</physics><gravity>0 0 -9.8</gravity><model name='hand'><link name='base'><pose>0 0 2 0 0 0</pose>"
    "<inertial><mass>10</mass><inertia><ixx>0.1</ixx><iyy>0.1</iyy><izz>0.1</izz></inertia></inertial></link>"
    "<joint name='fix' type='fixed'><parent>world</parent><child>base</child></joint>"
    "<link name='lead'><pose>0.5 0 2 0 0 0</pose><inertial><mass>1</mass><inertia><ixx>0.001</ixx><iyy>0.001"
    "</iyy><izz>0.001</izz></inertia></inertial></link><joint name='lead_j' type='revolute'><pose "
    "relative_to='base'>0 0 0 0 0 0</pose><parent>base</parent><child>lead</child><axis><xyz>0 1 0</xyz></axis>"
    "</joint><link name='follow'><pose>-0.3 0 2 0 0 0</pose><inertial><mass>0.5</mass><inertia><ixx>0.001"
    "</ixx><iyy>0.001</iyy><izz>0.001</izz></inertia></inertial></link><joint name='follow_j' "
    "type='revolute'><pose relative_to='base'>0 0 0 0 0 0</pose><parent>base</parent><child>follow</child>"
    "<axis><xyz>0 1 0</xyz><mimic joint='lead_j'><multiplier>-0.5</multiplier><offset>0.1</offset></mimic>"
    "</axis></joint></model></world></sdf>";

/* The same, written for MuJoCo by hand: the coupling a joint equality. */
static const char mimic_mjcf[] =
    "<mujoco><compiler angle='radian' inertiafromgeom='false'/><option timestep='0.001' gravity='0 0 -9.8'/>"
    "<worldbody><body name='base' pos='0 0 2'><inertial pos='0 0 0' mass='10' diaginertia='0.1 0.1 0.1'/>"
    "<body name='lead' pos='0.5 0 0'><joint name='lead_j' pos='-0.5 0 0' axis='0 1 0'/><inertial pos='0 0 0' "
    "mass='1' diaginertia='0.001 0.001 0.001'/></body><body name='follow' pos='-0.3 0 0'><joint "
    "name='follow_j' pos='0.3 0 0' axis='0 1 0'/><inertial pos='0 0 0' mass='0.5' diaginertia='0.001 0.001 "
    "0.001'/></body></body></worldbody><equality><joint joint1='follow_j' joint2='lead_j' polycoef='0.1 -0.5 0 "
    "0 0'/></equality></mujoco>";

/* A link's turn about y, from its world pose. */
static double pitch(wk_sim *sim, const char *scoped)
{
    wk_quat q = wk_scene_world_pose(wk_sim_scene(sim), link_of(sim, scoped)).q;
    return 2 * atan2(q.y, q.w);
}

/* A mimic joint is coupled inside the engine: as the leader swings down
 * the follower turns by -0.5 of it plus 0.1 rad (within 2 mrad: MuJoCo's
 * equality is a soft constraint, which lags by under 1 mrad here), and
 * both swing as MuJoCo swings the same system written as MJCF with a
 * joint equality (within 1e-6, every 100 steps to 600); an uncoupled
 * follower would swing on its own and leave the leader a simple
 * pendulum. */
static void mimic_joints_follow_in_the_engine(void)
{
    char path[] = "/tmp/wk_mimicXXXXXX";
    int fd = mkstemp(path);
    REQUIRE(fd >= 0);
    bool written = write(fd, mimic_mjcf, sizeof mimic_mjcf - 1) == (ssize_t)(sizeof mimic_mjcf - 1);
    close(fd);
    char error[512] = "";
    mjModel *m = written ? mj_loadXML(path, NULL, error, sizeof error) : NULL;
    remove(path);
    if (!m)
        fprintf(stderr, "    %s\n", error);
    REQUIRE(m);
    mjData *data = mj_makeData(m);
    wk_sim *sim = physics_sim(mimic_sdf);
    REQUIRE(sim);
    int lead = mj_name2id(m, mjOBJ_BODY, "lead"), follow = mj_name2id(m, mjOBJ_BODY, "follow");
    for (int k = 1; k <= 600; k++) {
        REQUIRE_INT(steps(sim, 1), ==, WK_OK);
        mj_step(m, data);
        if (k % 100)
            continue;
        double leader = pitch(sim, "hand::lead");
        if (k >= 200) /* the file starts the follower at 0, 0.1 rad off: a transient first */
            CHECK_NEAR(pitch(sim, "hand::follow"), -0.5 * leader + 0.1, 2e-3);
        mj_kinematics(m, data);
        CHECK_NEAR(wk_scene_world_pose(wk_sim_scene(sim), link_of(sim, "hand::lead")).p.z, data->xpos[3 * lead + 2],
                   1e-6);
        CHECK_NEAR(wk_scene_world_pose(wk_sim_scene(sim), link_of(sim, "hand::follow")).p.z,
                   data->xpos[3 * follow + 2], 1e-6);
    }
    /* The leader swung well down (0.5 m out, it falls 0.3 rad in 0.35 s). */
    CHECK(pitch(sim, "hand::lead") > 0.5);
    wk_sim_free(sim);
    mj_deleteData(data);
    mj_deleteModel(m);
}

/* Zero gravity: a performer P (no collision) at y = 5, and a body D of
 * level L1 (y 8 to 12), off P's path at x = 1.5. */
static const char levels_world[] =
    WORLD_OPEN("0 0 0") "<model name='P'><pose>0 5 0.5 0 0 0</pose><link name='l'><inertial><mass>1</mass>"
                        "</inertial></link></model><model name='D'><pose>1.5 10 0.5 0 0 0</pose><link name='l'>"
                        "<inertial><mass>1</mass></inertial></link></model><plugin name='gz::sim' "
                        "filename='dummy'><performer name='perf'><ref>P</ref><geometry><box><size>1 1 1</size>"
                        "</box></geometry></performer><level name='L1'><pose>0 10 0 0 0 0</pose><geometry><box>"
                        "<size>4 4 4</size></box></geometry><buffer>0</buffer><ref>D</ref></level></plugin>"
                        "</world></sdf>";

static wk_entity top(wk_sim *sim, const char *name)
{
    return wk_scene_child(wk_sim_scene(sim), wk_sim_world(sim), name);
}

/* Gives a top-level model a velocity, as a client's SetEntityState does. */
static void push(wk_sim *sim, const char *name, wk_vec3 v)
{
    wk_velocity twist = {.linear = v};
    wk_ecm_set(wk_scene_ecm(wk_sim_scene(sim)), top(sim, name), wk_sim_velocity_type(sim), &twist);
}

/* Steps until L1 is loaded (or not, as loaded says), at most 2 s; the
 * performer, coasting at vy in zero gravity, moves by vy h every step
 * (1e-9) across the engine's rebuilds at each load and unload. */
static bool step_until(wk_sim *sim, bool loaded, double vy)
{
    for (int k = 0; k < 2000 && wk_sim_level_loaded(sim, "L1") != loaded; k++) {
        double y = wk_sim_motion(sim, top(sim, "P")).pose.p.y;
        if (steps(sim, 1) != WK_OK ||
            !CHECK_NEAR(wk_sim_motion(sim, top(sim, "P")).pose.p.y - y, vy * 0.001, 1e-9))
            return false;
    }
    return wk_sim_level_loaded(sim, "L1") == loaded;
}

/* A level unloaded and loaded again around a moving performer brings its
 * body back at its file pose, at rest, though it had drifted off while
 * loaded; the performer's motion goes on unbroken through both. */
static void levels_come_back_at_file_poses(void)
{
    wk_world_desc *d = NULL;
    wk_status st = {0};
    wk_sim *sim = NULL;
    REQUIRE_INT(wk_desc_read(&(wk_read_desc){.resource_string = levels_world}, &d, &st), ==, WK_OK);
    REQUIRE_INT(wk_sim_new(d, &(wk_sim_desc){.physics = WK_PHYSICS_MUJOCO, .levels = true}, &sim, &st), ==, WK_OK);
    REQUIRE(!top(sim, "D"));
    push(sim, "P", (wk_vec3){0, 10, 0});
    REQUIRE(step_until(sim, true, 10));
    REQUIRE(top(sim, "D"));
    push(sim, "D", (wk_vec3){0, 0, 1});
    REQUIRE_INT(steps(sim, 100), ==, WK_OK);
    CHECK_NEAR(wk_sim_motion(sim, top(sim, "D")).pose.p.z, 0.6, 1e-9); /* drifting up */
    REQUIRE(step_until(sim, false, 10));
    push(sim, "P", (wk_vec3){0, -10, 0});
    REQUIRE(step_until(sim, true, -10));
    for (int k = 0; k < 2; k++) { /* as loaded, and 100 steps later: still */
        wk_motion m = wk_sim_motion(sim, top(sim, "D"));
        CHECK_VEC3_NEAR(m.pose.p, ((wk_vec3){1.5, 10, 0.5}), 1e-12);
        CHECK_VEC3_NEAR(m.linear, ((wk_vec3){0, 0, 0}), 1e-12);
        REQUIRE(step_until(sim, true, -10) && steps(sim, 100) == WK_OK);
    }
    wk_sim_free(sim);
}

/* A model spawned mid-run (the engine's model compiled again) leaves the
 * other bodies' trajectories as they were without it, within 1e-9. */
static void spawn_leaves_others_alone(void)
{
    wk_sim *plain = physics_sim(BOX_DROP), *spawned = physics_sim(BOX_DROP);
    REQUIRE(plain && spawned);
    REQUIRE_INT(steps(plain, 200), ==, WK_OK);
    REQUIRE_INT(steps(spawned, 200), ==, WK_OK);
    wk_world_desc *d = NULL;
    wk_status st = {0};
    REQUIRE_INT(wk_desc_read(&(wk_read_desc){.resource_string =
                                                 "<sdf version='1.9'><model name='late'><pose>5 5 1 0 0 0</pose>"
                                                 "<link name='l'><inertial><mass>1</mass></inertial></link>"
                                                 "</model></sdf>"},
                             &d, &st),
                ==, WK_OK);
    wk_entity late;
    REQUIRE_INT(wk_desc_instantiate(wk_sim_scene(spawned), d, 0, wk_sim_world(spawned), NULL, NULL, &late, &st), ==,
                WK_OK);
    wk_desc_free(d);
    /* Through the bounce on the plane too. */
    for (int k = 0; k < 800; k++) {
        REQUIRE_INT(steps(plain, 1), ==, WK_OK);
        REQUIRE_INT(steps(spawned, 1), ==, WK_OK);
        if (!CHECK_NEAR(height(spawned, "box::body"), height(plain, "box::body"), 1e-9))
            break;
    }
    /* And the newcomer falls. */
    CHECK(wk_scene_world_pose(wk_sim_scene(spawned), late).p.z < 1);
    wk_sim_free(plain);
    wk_sim_free(spawned);
}

/* A world of more links than the engine compiles is refused at its step,
 * before the compile, which nothing interrupts (2,000 free bodies took
 * MuJoCo 4 s): WK_LIMIT naming the count, the limit and serve's flag, the
 * clock and the links as they were. */
static void links_past_the_limit_are_not_compiled(void)
{
    wk_world_desc *d = NULL;
    wk_status st = {0};
    wk_sim *sim = NULL;
    REQUIRE_INT(wk_desc_read(&(wk_read_desc){.resource_string = BOX_DROP}, &d, &st), ==, WK_OK);
    REQUIRE_INT(wk_sim_new(d, &(wk_sim_desc){.physics = WK_PHYSICS_MUJOCO, .max_physics_links = 1}, &sim, &st), ==,
                WK_OK);
    CHECK_INT(wk_sim_step(sim, 1), ==, WK_LIMIT);
    CHECK_STR(wk_sim_error(sim), "physics: the world does not compile for MuJoCo: its 2 links are past the limit of 1 "
                                 "(serve --max-physics-links)");
    CHECK_INT(wk_sim_iterations(sim), ==, 0);
    CHECK(wk_sim_time(sim) == 0);
    CHECK(height(sim, "box::body") == 2);
    wk_sim_free(sim);
    /* The default: 2,000 free boxes refused at once. */
    wk_buf text = {0};
    REQUIRE_INT(wk_buf_append(&text, WORLD_OPEN("0 0 -9.8"), strlen(WORLD_OPEN("0 0 -9.8"))), ==, WK_OK);
    char model[160];
    for (int i = 0; i < 2000; i++)
        REQUIRE_INT(wk_buf_append(&text, model,
                                  (size_t)snprintf(model, sizeof model,
                                                   "<model name='m%d'><pose>%d 0 1 0 0 0</pose><link name='l'>"
                                                   "<inertial><mass>1</mass></inertial></link></model>",
                                                   i, i)),
                    ==, WK_OK);
    REQUIRE_INT(wk_buf_append(&text, "</world></sdf>", 15), ==, WK_OK);
    REQUIRE((sim = physics_sim((const char *)text.data)));
    double start = wk__monotonic_s();
    CHECK_INT(wk_sim_step(sim, 1), ==, WK_LIMIT);
    CHECK(wk__monotonic_s() - start < 1);
    CHECK(strstr(wk_sim_error(sim), "its 2000 links are past the limit of 1000") != NULL);
    wk_sim_free(sim);
    wk_buf_free(&text);
}

/* What a step would refuse is known before the world grows: the links
 * MuJoCo would compile, counted against the limit, under MUJOCO always,
 * under AUTO only once a link would move (a static world never compiles),
 * under NONE never; 0 is the default limit. */
static void physics_room_counts_what_mujoco_would_compile(void)
{
    wk_sim *sim = physics_sim(BOX_DROP);
    REQUIRE(sim);
    wk_scene *s = wk_sim_scene(sim);
    wk_status st = {0};
    CHECK_INT(wk_sim_physics_room(s, WK_PHYSICS_MUJOCO, 2, &st), ==, WK_OK);
    CHECK_INT(wk_sim_physics_room(s, WK_PHYSICS_MUJOCO, 0, &st), ==, WK_OK);
    CHECK_INT(wk_sim_physics_room(s, WK_PHYSICS_NONE, 1, &st), ==, WK_OK);
    CHECK_INT(wk_sim_physics_room(s, WK_PHYSICS_MUJOCO, 1, &st), ==, WK_LIMIT);
    CHECK_STR(st.message, "physics (MuJoCo): its 2 links are past the limit of 1 (serve --max-physics-links)");
    CHECK_INT(wk_sim_physics_room(s, WK_PHYSICS_AUTO, 1, &st), ==, WK_LIMIT);
    wk_sim_free(sim);
    /* The same two links, both static: AUTO never steps them. */
    REQUIRE((sim = physics_sim(WORLD_OPEN("0 0 -9.8") "<model name='a'><static>true</static><link name='l'/></model>"
                                                      "<model name='b'><static>true</static><link name='l'/></model>"
                                                      "</world></sdf>")));
    CHECK_INT(wk_sim_physics_room(wk_sim_scene(sim), WK_PHYSICS_AUTO, 1, &st), ==, WK_OK);
    CHECK_INT(wk_sim_physics_room(wk_sim_scene(sim), WK_PHYSICS_MUJOCO, 1, &st), ==, WK_LIMIT);
    wk_sim_free(sim);
}

static const wk_test_case cases[] = {
    {"links_past_the_limit_are_not_compiled", links_past_the_limit_are_not_compiled},
    {"physics_room_counts_what_mujoco_would_compile", physics_room_counts_what_mujoco_would_compile},
    {"spawn_leaves_others_alone", spawn_leaves_others_alone},
    {"mjcf_as_mujoco_runs_it", mjcf_as_mujoco_runs_it},
    {"mjcf_joints_as_mujoco_runs_them", mjcf_joints_as_mujoco_runs_them},
    {"free_fall", free_fall},
    {"comes_to_rest", comes_to_rest},
    {"pendulum_period", pendulum_period},
    {"coasting", coasting},
    {"far_bodies_are_not_teleported", far_bodies_are_not_teleported},
    {"writes_after_the_engine_are_taken", writes_after_the_engine_are_taken},
    {"damped_spring", damped_spring},
    {"joint_friction_and_limit", joint_friction_and_limit},
    {"contact_friction", contact_friction},
    {"rests_on_meshes", rests_on_meshes},
    {"unreadable_meshes_collide_as_boxes", unreadable_meshes_collide_as_boxes},
    {"joint_set_by_a_client", joint_set_by_a_client},
    {"mimic_joints_follow_in_the_engine", mimic_joints_follow_in_the_engine},
    {"jointed_links_carry_their_motion", jointed_links_carry_their_motion},
    {"levels_come_back_at_file_poses", levels_come_back_at_file_poses},
};
WK_TEST_MAIN(cases)
