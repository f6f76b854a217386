/* test_properties.c — the simulation component (the Static tag, also from
 * SDFormat's <static>), physics filled from <inertial> and updated, geometry
 * updated with its uri, the errors for entities that lack the component,
 * and all of it surviving clone, state copy and damaged bytes. */
#include "scene/copies.h"
#include "scene/object_world.h"
#include "worldkit/wk_formats.h"

static const char world_sdf[] =
    "<?xml version='1.0'?><sdf version='1.9'><world name='w'>"
    "<model name='shelf'><static>true</static><link name='body'>"
    "<collision name='c'><geometry><box><size>1 2 3</size></box></geometry></collision></link></model>"
    "<model name='robot'><link name='base'>"
    "<inertial><mass>2.5</mass><pose>0.1 0 0.2 0 0 0</pose>"
    "<inertia><ixx>1</ixx><ixy>0.1</ixy><ixz>0.2</ixz><iyy>2</iyy><iyz>0.3</iyz><izz>3</izz></inertia></inertial>"
    "<visual name='v'><geometry><sphere><radius>0.5</radius></sphere></geometry></visual>"
    "</link><frame name='tip'><pose>0 0 1 0 0 0</pose></frame></model>"
    "</world></sdf>";

static wk_scene *load(void)
{
    wk_world_desc *desc = NULL;
    wk_status st;
    if (!CHECK_INT(wk_desc_read(&(wk_read_desc){.resource_string = world_sdf}, &desc, &st), ==, WK_OK)) {
        fprintf(stderr, "    %s\n", st.message);
        return NULL;
    }
    wk_scene *s = wk_scene_new();
    wk_entity world = WK_NULL_ENTITY;
    if (!s || !CHECK_INT(wk_desc_instantiate(s, desc, 0, WK_NULL_ENTITY, NULL, NULL, &world, &st), ==, WK_OK) ||
        !CHECK_INT(wk_scene_objects_init(s, world, &st), ==, WK_OK)) {
        wk_scene_free(s);
        s = NULL;
    }
    wk_desc_free(desc);
    return s;
}

/* The entity of object named name. */
static wk_entity entity(wk_scene *s, const char *object, const char *name)
{
    wk_entity e = WK_NULL_ENTITY;
    wk_status st;
    const char *names[] = {name};
    if (wk_scene_filter_one(s, find_object(s, object), &(wk_entity_filter){.names = names, .name_count = 1}, &e,
                            &st))
        fprintf(stderr, "entity %s of %s: %s\n", name, object, st.message);
    return e;
}

static void simulation_component(void)
{
    wk_scene *s = load();
    REQUIRE(s);
    wk_entity shelf = find_object(s, "shelf"), robot = find_object(s, "robot");
    REQUIRE(shelf && robot);
    wk_simulation_component sim = {true};
    /* <static> reads as a simulation component saying so. */
    CHECK(wk_scene_simulation(s, shelf, &sim));
    CHECK(sim.is_static);
    CHECK(!wk_scene_simulation(s, robot, &sim));
    CHECK(!sim.is_static);
    wk_status st;
    const wk_type is_static = wk_scene_types_of(s)->is_static;
    CHECK_INT(wk_scene_set_simulation(s, robot, &(wk_simulation_component){true}, &st), ==, WK_OK);
    CHECK(wk_scene_simulation(s, robot, NULL));
    CHECK(wk_ecm_has(wk_scene_ecm(s), robot, is_static));
    CHECK_INT(wk_scene_set_simulation(s, robot, &(wk_simulation_component){true}, &st), ==, WK_OK);
    CHECK_INT(wk_scene_set_simulation(s, shelf, &(wk_simulation_component){false}, &st), ==, WK_OK);
    CHECK(!wk_scene_simulation(s, shelf, &sim));
    CHECK(!wk_ecm_has(wk_scene_ecm(s), shelf, is_static));
    CHECK_INT(wk_scene_set_simulation(s, wk_scene_root(s), &(wk_simulation_component){true}, &st), ==, WK_INVALID);
    CHECK(!wk_ecm_has(wk_scene_ecm(s), wk_scene_root(s), is_static));
    CHECK_INT(wk_scene_set_simulation(s, entity(s, "shelf", "body"), &(wk_simulation_component){true}, &st), ==,
              WK_NOT_FOUND);
    wk_scene_free(s);
}

static void physics_from_file_and_updated(void)
{
    wk_scene *s = load();
    REQUIRE(s);
    wk_entity base = entity(s, "robot", "base"), body = entity(s, "shelf", "body");
    REQUIRE(base && body);
    const wk_physics *p = wk_scene_physics(s, base);
    REQUIRE(p);
    CHECK_NEAR(p->mass_kg, 2.5, 0);
    CHECK_NEAR(p->this_T_com.p.x, 0.1, 0);
    CHECK_NEAR(p->this_T_com.p.z, 0.2, 0);
    CHECK_NEAR(p->inertia[0][0], 1, 0);
    CHECK_NEAR(p->inertia[1][1], 2, 0);
    CHECK_NEAR(p->inertia[2][2], 3, 0);
    CHECK_NEAR(p->inertia[0][1], 0.1, 0);
    CHECK_NEAR(p->inertia[1][0], 0.1, 0);
    CHECK_NEAR(p->inertia[2][0], 0.2, 0);
    CHECK_NEAR(p->inertia[1][2], 0.3, 0);
    CHECK_NEAR(p->friction.mu, 0, 0); /* <surface> is not read */
    CHECK(wk_scene_physics(s, body) == NULL);

    wk_physics next = *p;
    next.mass_kg = 4;
    next.friction = (wk_friction){0.9, 0.8, 0.01, 0.02, {1, 0, 0}};
    next.torsional = (wk_torsional){0.5, true, 0.05, 0.1, 0.001};
    next.contact_kp = 1e12;
    next.contact_kd = 1;
    wk_status st;
    REQUIRE_INT(wk_scene_update_physics(s, base, &next, &st), ==, WK_OK);
    p = wk_scene_physics(s, base);
    CHECK_NEAR(p->mass_kg, 4, 0);
    CHECK_NEAR(p->friction.mu2, 0.8, 0);
    CHECK_NEAR(p->friction.fdir1.x, 1, 0);
    CHECK(p->torsional.use_patch_radius);
    CHECK_NEAR(p->torsional.ode_slip, 0.001, 0);
    CHECK_NEAR(p->contact_kp, 1e12, 0);
    CHECK_NEAR(p->inertia[1][2], 0.3, 0);

    /* Bad values change nothing, and the message names the value. */
    static const char *const why[] = {
        "mass (kg) -1 is negative", "not finite",          "not symmetric",         "centre of mass pose",
        "inertia izz -0.1 is negative", "friction mu -0.5 is negative", "contact_kp -1 is negative",
        "contact_kd -2 is negative",
    };
    for (size_t i = 0; i < sizeof why / sizeof *why; i++) {
        wk_physics spoilt = next;
        double *value[] = {&spoilt.mass_kg,         &spoilt.friction.slip1, &spoilt.inertia[0][2],
                           &spoilt.this_T_com.q.x,  &spoilt.inertia[2][2],  &spoilt.friction.mu,
                           &spoilt.contact_kp,      &spoilt.contact_kd};
        static const double spoil[] = {-1, NAN, 0.7, 1, -0.1, -0.5, -1, -2};
        *value[i] = spoil[i];
        CHECK_INT(wk_scene_update_physics(s, base, &spoilt, &st), ==, WK_INVALID);
        if (!CHECK(strstr(st.message, "base") != NULL && strstr(st.message, why[i]) != NULL))
            fprintf(stderr, "    %s\n", st.message);
        CHECK_NEAR(wk_scene_physics(s, base)->mass_kg, 4, 0);
    }

    /* An entity without physics cannot be given one by an update. */
    CHECK_INT(wk_scene_update_physics(s, body, &next, &st), ==, WK_PRECONDITION);
    CHECK(strstr(st.message, "'body'") != NULL);
    CHECK(strstr(st.message, "'shelf'") != NULL);
    CHECK(wk_scene_physics(s, body) == NULL);
    wk_entity tip = find_frame(s, "robot", "tip");
    REQUIRE(tip);
    CHECK_INT(wk_scene_update_physics(s, tip, &next, &st), ==, WK_INVALID);
    CHECK_INT(wk_scene_update_physics(s, (wk_entity)55 << 32 | 3, &next, &st), ==, WK_NOT_FOUND);
    wk_scene_free(s);
}

static void geometry_updated(void)
{
    wk_scene *s = new_world();
    REQUIRE(s);
    wk_scene_geometry box = {.type = WK_GEOMETRY_BOX, .size = {1, 1, 1}, .scale = {1, 1, 1}};
    wk_entity cube, bare;
    wk_status st;
    REQUIRE_INT(wk_scene_create_object(s, &(wk_object_desc){.name = "cube", .geometry = &box}, &cube, &st), ==,
                WK_OK);
    REQUIRE_INT(wk_scene_create_object(s, &(wk_object_desc){.name = "bare"}, &bare, &st), ==, WK_OK);
    const wk_scene_types *t = wk_scene_types_of(s);
    wk_ecm *ecm = wk_scene_ecm(s);

    wk_scene_geometry sphere = {.type = WK_GEOMETRY_SPHERE, .radius = 0.3, .scale = {1, 1, 1}};
    REQUIRE_INT(wk_scene_update_geometry(s, cube, &sphere, NULL, &st), ==, WK_OK);
    const wk_scene_geometry *g = wk_ecm_get(ecm, cube, t->geometry);
    REQUIRE(g);
    CHECK_INT(g->type, ==, WK_GEOMETRY_SPHERE);
    CHECK_NEAR(g->radius, 0.3, 0);
    CHECK_NEAR(g->size.x, 0, 0);

    wk_scene_geometry mesh = {.type = WK_GEOMETRY_MESH, .scale = {2, 2, 2}};
    CHECK_INT(wk_scene_update_geometry(s, cube, &mesh, NULL, &st), ==, WK_INVALID);
    CHECK(strstr(st.message, "uri") != NULL);
    CHECK_INT(((const wk_scene_geometry *)wk_ecm_get(ecm, cube, t->geometry))->type, ==, WK_GEOMETRY_SPHERE);
    REQUIRE_INT(wk_scene_update_geometry(s, cube, &mesh, "package://p/m.stl", &st), ==, WK_OK);
    char *const *uri = wk_ecm_get(ecm, cube, t->uri);
    REQUIRE(uri);
    CHECK_STR(*uri, "package://p/m.stl");
    /* Back to a box: the uri goes. */
    REQUIRE_INT(wk_scene_update_geometry(s, cube, &box, NULL, &st), ==, WK_OK);
    CHECK(!wk_ecm_has(ecm, cube, t->uri));

    wk_scene_geometry negative = {.type = WK_GEOMETRY_BOX, .size = {1, -1, 1}};
    CHECK_INT(wk_scene_update_geometry(s, cube, &negative, NULL, &st), ==, WK_INVALID);
    wk_scene_geometry unknown = {.type = (wk_geometry_type)42};
    CHECK_INT(wk_scene_update_geometry(s, cube, &unknown, NULL, &st), ==, WK_INVALID);
    CHECK_INT(wk_scene_update_geometry(s, bare, &box, NULL, &st), ==, WK_PRECONDITION);
    CHECK(strstr(st.message, "'bare'") != NULL);
    CHECK(!wk_ecm_has(ecm, bare, t->geometry));
    wk_scene_free(s);
}

/* wk_object_desc.physics: created with the object, checked like an update,
 * and then updatable (an object created without it has none). */
static void physics_on_creation(void)
{
    wk_scene *s = new_world();
    REQUIRE(s);
    wk_physics unit = {.mass_kg = 1, .this_T_com = wk_pose_identity(), .inertia = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}};
    wk_entity cube;
    wk_status st;
    REQUIRE_INT(wk_scene_create_object(s, &(wk_object_desc){.name = "cube", .physics = &unit}, &cube, &st), ==,
                WK_OK);
    const wk_physics *p = wk_scene_physics(s, cube);
    REQUIRE(p);
    CHECK_NEAR(p->mass_kg, 1, 0);
    CHECK_NEAR(p->inertia[2][2], 1, 0);
    wk_physics heavier = unit;
    heavier.mass_kg = 3;
    REQUIRE_INT(wk_scene_update_physics(s, cube, &heavier, &st), ==, WK_OK);
    CHECK_NEAR(wk_scene_physics(s, cube)->mass_kg, 3, 0);

    wk_physics negative = unit;
    negative.mass_kg = -1;
    wk_entity bad = WK_NULL_ENTITY;
    CHECK_INT(wk_scene_create_object(s, &(wk_object_desc){.name = "bad", .entity_name = "body", .physics = &negative},
                                     &bad, &st),
              ==, WK_INVALID);
    CHECK(strstr(st.message, "'body'") != NULL && strstr(st.message, "negative") != NULL);
    CHECK(find_object(s, "bad") == WK_NULL_ENTITY);
    wk_scene_free(s);
}

static void copies_and_damage(void)
{
    wk_scene *s = load();
    REQUIRE(s);
    wk_entity base = entity(s, "robot", "base");
    REQUIRE(base);
    wk_physics next = *wk_scene_physics(s, base);
    next.torsional.use_patch_radius = true;
    next.friction.fdir1 = (wk_vec3){0, 1, 0};
    wk_status st;
    REQUIRE_INT(wk_scene_update_physics(s, base, &next, &st), ==, WK_OK);
    REQUIRE_INT(wk_scene_set_simulation(s, find_object(s, "robot"), &(wk_simulation_component){true}, &st), ==,
                WK_OK);
    check_copies(s);
    wk_scene *g = state_copy(s);
    REQUIRE(g);
    const wk_physics *p = wk_scene_physics(g, base);
    REQUIRE(p);
    CHECK(p->torsional.use_patch_radius);
    CHECK_NEAR(p->friction.fdir1.y, 1, 0);
    CHECK(wk_scene_simulation(g, find_object(g, "robot"), NULL));
    wk_scene_free(g);
    CHECK_INT(check_decoder(s, "Physics"), >, 100);
    wk_scene_free(s);
}

static const wk_test_case cases[] = {
    {"simulation_component", simulation_component},
    {"physics_from_file_and_updated", physics_from_file_and_updated},
    {"geometry_updated", geometry_updated},
    {"physics_on_creation", physics_on_creation},
    {"copies_and_damage", copies_and_damage},
};
WK_TEST_MAIN(cases)
