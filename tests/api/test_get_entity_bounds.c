/* test_get_entity_bounds.c — the GetEntityBounds service: the box, sphere
 * and hull of each primitive (box, sphere, cylinder, capsule, ellipsoid) in
 * the entity's frame, collisions posed and turned inside the model, a model
 * posed in the world (bounds stay in its own frame), a plane (unbounded),
 * no collisions (the origin), unknown names, wk_api_set_bounds_type;
 * meshes of SDFormat, URDF and MJCF files (the box of the file's vertices,
 * scaled and turned; read once per world; a missing or unreadable file
 * left out, saying so); and objects ObjectWorldService made of a primitive
 * or of a mesh registered with GeometryService (its vertices' box, kept
 * once made: the stored geometry is not read again). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/api_call.h"
#include "api/ows_client.h"
#include "math/math_check.h"
#include "store/store_internal.h" /* wk__db_exec */
#include "wk_test.h"

#define COLLISION(name, pose, geometry)                                                              \
    "<link name='" name "'><pose>" pose "</pose><collision name='c'><geometry>" geometry "</geometry>" \
    "</collision></link>"

/* Each model at x = 10 * i, turned, so that world poses would show. */
#define SHAPES_WORLD                                                                                        \
    "<sdf version='1.9'><world name='w'>"                                                                   \
    "<model name='box'><pose>10 0 0 0 0 1</pose>" COLLISION("l", "0 0 0 0 0 0",                             \
                                                            "<box><size>1 2 3</size></box>") "</model>"    \
    "<model name='ball'><pose>20 0 0 0 0 0</pose>" COLLISION("l", "1 0 0 0 0 0",                          \
                                                             "<sphere><radius>0.5</radius></sphere>")     \
    "</model>"                                                                                              \
    "<model name='can'>" COLLISION("l", "0 0 1 0 1.5707963267948966 0",                                    \
                                   "<cylinder><radius>0.5</radius><length>2</length></cylinder>") "</model>" \
    "<model name='pill'>" COLLISION("l", "0 0 0 0 0 0",                                                     \
                                    "<capsule><radius>0.5</radius><length>2</length></capsule>") "</model>" \
    "<model name='egg'>" COLLISION("l", "0 0 0 0 0 0",                                                      \
                                   "<ellipsoid><radii>1 2 3</radii></ellipsoid>") "</model>"               \
    "<model name='two'>" COLLISION("a", "-2 0 0 0 0 0", "<box><size>1 1 1</size></box>")                    \
        COLLISION("b", "3 0 0 0 0 0", "<sphere><radius>1</radius></sphere>") "</model>"                     \
    "<model name='turned'>" COLLISION("l", "0 0 0 0 0 0.7853981633974483",                                  \
                                      "<box><size>2 2 1</size></box>") "</model>"                           \
    "<model name='ground'>" COLLISION("l", "0 0 0 0 0 0", "<plane><normal>0 0 1</normal></plane>")         \
    "</model>"                                                                                              \
    "<model name='rock'>" COLLISION("l", "0 0 0 0 0 0", "<mesh><uri>https://x/rock.dae</uri></mesh>")      \
    "</model>"                                                                                              \
    "<model name='ghost'><pose>5 5 5 0 0 0</pose><link name='l'/></model>"                                 \
    "</world></sdf>"

/* An endpoint with the world text loaded from folder (the folder a string
 * world reads its files from), missing assets left out (the rock's mesh is
 * remote); or NULL. */
static wk_api *loaded(const char *folder, const char *text)
{
    if (!CHECK(chdir(folder) == 0))
        return NULL;
    wk_api *api = wk_api_new();
    SimulationInterfaces__LoadWorldRequest req = SIMULATION_INTERFACES__LOAD_WORLD_REQUEST__INIT;
    req.resource_string = (char *)text;
    req.has_ignore_missing_or_unsupported_assets = true;
    req.ignore_missing_or_unsupported_assets = true;
    SimulationInterfaces__LoadWorldResponse *resp = api ? load_world(api, &req) : NULL;
    char msg[256];
    if (result_code(resp, resp ? resp->result : NULL, msg) != WK_RESULT_OK) {
        fprintf(stderr, "    load: %s\n", msg);
        wk_api_free(api);
        return NULL;
    }
    return api;
}

/* GetEntityBounds of name: its code, message and bounds (type, points). */
static uint32_t bounds(wk_api *api, const char *name, uint32_t *type, wk_vec3 *points, size_t *n, char *msg)
{
    SimulationInterfaces__GetEntityBoundsRequest req = SIMULATION_INTERFACES__GET_ENTITY_BOUNDS_REQUEST__INIT;
    req.entity = (char *)name;
    SimulationInterfaces__GetEntityBoundsResponse *resp = (SimulationInterfaces__GetEntityBoundsResponse *)call_service(
        api, "GetEntityBounds", &req.base, &simulation_interfaces__get_entity_bounds_response__descriptor);
    *n = 0;
    *type = 99;
    if (resp && resp->bounds) {
        *type = resp->bounds->type;
        for (size_t i = 0; i < resp->bounds->n_points && i < 64; i++)
            points[(*n)++] = vec3_of(resp->bounds->points[i]);
    }
    return result_code(resp, resp ? resp->result : NULL, msg);
}

/* The box of name: upper corner first, then lower. */
static void check_box(wk_api *api, const char *name, wk_vec3 lo, wk_vec3 hi, double eps)
{
    uint32_t type;
    wk_vec3 p[64];
    size_t n;
    char msg[256];
    fprintf(stderr, "  %s\n", name);
    REQUIRE_INT(bounds(api, name, &type, p, &n, msg), ==, WK_RESULT_OK);
    if (*msg)
        fprintf(stderr, "    %s\n", msg);
    CHECK_INT(type, ==, 1);
    REQUIRE_INT(n, ==, 2);
    CHECK_VEC3_NEAR(p[0], hi, eps);
    CHECK_VEC3_NEAR(p[1], lo, eps);
}

static void boxes_of_each_primitive(void)
{
    wk_api *api = loaded(WK_TEST_WORLDS, SHAPES_WORLD);
    REQUIRE(api);
    /* In the model's own frame: its world pose (x = 10, yaw 1) is not in it. */
    check_box(api, "box", (wk_vec3){-0.5, -1, -1.5}, (wk_vec3){0.5, 1, 1.5}, 1e-12);
    check_box(api, "ball", (wk_vec3){0.5, -0.5, -0.5}, (wk_vec3){1.5, 0.5, 0.5}, 1e-12);
    /* A cylinder laid along x at z = 1: length along x, radius across. */
    check_box(api, "can", (wk_vec3){-1, -0.5, 0.5}, (wk_vec3){1, 0.5, 1.5}, 1e-12);
    check_box(api, "pill", (wk_vec3){-0.5, -0.5, -1.5}, (wk_vec3){0.5, 0.5, 1.5}, 1e-12);
    check_box(api, "egg", (wk_vec3){-1, -2, -3}, (wk_vec3){1, 2, 3}, 1e-12);
    check_box(api, "two", (wk_vec3){-2.5, -1, -1}, (wk_vec3){4, 1, 1}, 1e-12);
    /* A 2 x 2 box turned 45 degrees reaches sqrt(2) along x and y. */
    check_box(api, "turned", (wk_vec3){-sqrt(2), -sqrt(2), -0.5}, (wk_vec3){sqrt(2), sqrt(2), 0.5}, 1e-12);
    /* No collisions: the entity's origin alone. */
    check_box(api, "ghost", (wk_vec3){0, 0, 0}, (wk_vec3){0, 0, 0}, 0);
    wk_api_free(api);
}

static void spheres_and_hulls(void)
{
    wk_api *api = loaded(WK_TEST_WORLDS, SHAPES_WORLD);
    REQUIRE(api);
    uint32_t type;
    wk_vec3 p[64];
    size_t n;
    REQUIRE_INT(wk_api_set_bounds_type(api, 3), ==, WK_OK);
    REQUIRE_INT(bounds(api, "ball", &type, p, &n, NULL), ==, WK_RESULT_OK);
    CHECK_INT(type, ==, 3);
    REQUIRE_INT(n, ==, 2);
    CHECK_VEC3_NEAR(p[0], ((wk_vec3){1, 0, 0}), 1e-12);
    CHECK_NEAR(p[1].x, 0.5, 1e-12);
    REQUIRE_INT(bounds(api, "box", &type, p, &n, NULL), ==, WK_RESULT_OK);
    CHECK_NEAR(p[1].x, sqrt(1 + 4 + 9) / 2, 1e-12);
    /* Two primitives: centred on their box, reaching the farthest corner of
     * the cube (farther than the ball's far side, 3.25). */
    REQUIRE_INT(bounds(api, "two", &type, p, &n, NULL), ==, WK_RESULT_OK);
    CHECK_VEC3_NEAR(p[0], ((wk_vec3){0.75, 0, 0}), 1e-12);
    CHECK_NEAR(p[1].x, sqrt(3.25 * 3.25 + 0.5), 1e-12);

    REQUIRE_INT(wk_api_set_bounds_type(api, 2), ==, WK_OK);
    REQUIRE_INT(bounds(api, "box", &type, p, &n, NULL), ==, WK_RESULT_OK);
    CHECK_INT(type, ==, 2);
    REQUIRE_INT(n, ==, 8); /* a box's hull is its corners */
    for (size_t i = 0; i < n; i++) {
        CHECK_NEAR(fabs(p[i].x), 0.5, 1e-12);
        CHECK_NEAR(fabs(p[i].y), 1, 1e-12);
        CHECK_NEAR(fabs(p[i].z), 1.5, 1e-12);
    }
    /* A cylinder's hull: a circumscribed octagonal prism, holding the
     * cylinder but never reaching past r / cos(pi / 8). */
    REQUIRE_INT(bounds(api, "pill", &type, p, &n, NULL), ==, WK_RESULT_OK);
    REQUIRE_INT(n, ==, 16);
    for (size_t i = 0; i < n; i++) {
        CHECK_NEAR(hypot(p[i].x, p[i].y), 0.5 / cos(PI / 8), 1e-12);
        CHECK_NEAR(fabs(p[i].z), 1.5, 1e-12);
    }
    CHECK_INT(wk_api_set_bounds_type(api, 0), ==, WK_INVALID);
    CHECK_INT(wk_api_set_bounds_type(api, 4), ==, WK_INVALID);
    wk_api_free(api);
}

static void plane_mesh_and_unknown(void)
{
    wk_api *api = loaded(WK_TEST_WORLDS, SHAPES_WORLD);
    REQUIRE(api);
    uint32_t type;
    wk_vec3 p[64];
    size_t n;
    char msg[256];
    REQUIRE_INT(bounds(api, "ground", &type, p, &n, msg), ==, WK_RESULT_OK);
    CHECK_INT(type, ==, 0); /* TYPE_EMPTY: unbounded */
    CHECK_INT(n, ==, 0);
    /* A mesh whose file was not found is left out: the origin alone. */
    REQUIRE_INT(bounds(api, "rock", &type, p, &n, msg), ==, WK_RESULT_OK);
    REQUIRE_INT(n, ==, 2);
    CHECK_VEC3_NEAR(p[0], ((wk_vec3){0, 0, 0}), 0);
    CHECK_VEC3_NEAR(p[1], ((wk_vec3){0, 0, 0}), 0);
    CHECK(strstr(msg, "'rock'") && strstr(msg, "collision 'c' is left out") && strstr(msg, "rock.dae") &&
          strstr(msg, "not found"));
    CHECK_INT(bounds(api, "nobody", &type, p, &n, msg), ==, WK_RESULT_NOT_FOUND);
    CHECK(strstr(msg, "'nobody'") != NULL);
    /* A scoped name reaches a link: bounds in the link's frame. */
    check_box(api, "ball::l", (wk_vec3){-0.5, -0.5, -0.5}, (wk_vec3){0.5, 0.5, 0.5}, 1e-12);
    wk_api_free(api);
}

/* An object ObjectWorldService made is bounded by its own shape: a
 * primitive as above; a mesh registered with GeometryService (an OBJ
 * tetrahedron whose vertices fill (1,2,3)-(2,4,6)) by that box, scaled as
 * the object's geometry scales it; a reference naming no registration
 * is refused when the object is made, so it cannot get here. */
static void registered_meshes(void)
{
    wk_api *api = loaded(WK_TEST_WORLDS, SHAPES_WORLD);
    REQUIRE(api);
    char tetra[65], request[1024];
    REQUIRE(register_geometry(api,
                              "{'objData':'diAxIDIgMwp2IDIgMiAzCnYgMSA0IDMKdiAxIDIgNgpmIDEgMiAzCmYgMSAyIDQKZiAxIDMgNApmIDIg"
                              "MyA0Cg=='}",
                              tetra));
    snprintf(request, sizeof request,
             "{'worldId':'world','name':'tetra','createSingleEntityObject':{'geometryComponent':{'namedGeometries':{"
             "'Intrinsic_Collision':{'namedGeometries':{'shape':{'geometry':{'geoRef':{'exactGeometryRef':"
             "'worldkit-geometry:%s'}},'refTShape':{'matrix4d':{'rows':4,'cols':4,"
             "'values':[2,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1]}}}}}}}},"
             "'parentObjectTCreatedObject':{'position':{'x':7}}}",
             tetra);
    REQUIRE(OWS_EXPECT(api, "CreateObject", request, WK_GRPC_OK, "'name':'tetra'"));
    REQUIRE(OWS_EXPECT(api, "CreateObject",
                       "{'worldId':'world','name':'crate','createSingleEntityObject':{'geometryComponent':{"
                       "'namedGeometries':{'Intrinsic_Collision':{'namedGeometries':{'shape':{'geometry':{"
                       "'inlineGeometryData':{'exactGeometry':{'primitiveSet':{'primitives':[{'shape':{'box':{"
                       "'size':{'x':1,'y':2,'z':3}}}}]}}}}}}}}}}}",
                       WK_GRPC_OK, "'name':'crate'"));
    /* The same tetrahedron given inline (v1), its vertices as given. */
    char given[65];
    REQUIRE(register_geometry(api,
                              "{'inlineGeometry':{'exactGeometry':{'triangleMesh':{'vertices':[1,2,3,2,2,3,1,4,3,1,2,6],"
                              "'faces':[0,1,2,0,1,3,0,2,3,1,2,3]}}}}",
                              given));
    snprintf(request, sizeof request,
             "{'worldId':'world','name':'given','createSingleEntityObject':{'geometryComponent':{'namedGeometries':{"
             "'Intrinsic_Collision':{'namedGeometries':{'shape':{'geometry':{'geoRef':{'exactGeometryRef':"
             "'worldkit-geometry:%s'}}}}}}}}}",
             given);
    REQUIRE(OWS_EXPECT(api, "CreateObject", request, WK_GRPC_OK, "'name':'given'"));
    /* x doubled by the scale; the pose (x = 7) is not in the object's frame. */
    check_box(api, "tetra", (wk_vec3){2, 2, 3}, (wk_vec3){4, 4, 6}, 1e-12);
    check_box(api, "given", (wk_vec3){1, 2, 3}, (wk_vec3){2, 4, 6}, 0);
    check_box(api, "crate", (wk_vec3){-0.5, -1, -1.5}, (wk_vec3){0.5, 1, 1.5}, 1e-12);
    /* As a hull: the eight corners of that box. */
    uint32_t type;
    wk_vec3 p[64];
    size_t n;
    REQUIRE_INT(wk_api_set_bounds_type(api, 2), ==, WK_OK);
    REQUIRE_INT(bounds(api, "tetra", &type, p, &n, NULL), ==, WK_RESULT_OK);
    REQUIRE_INT(n, ==, 8);
    for (size_t i = 0; i < n; i++)
        CHECK(p[i].x == (p[i].x < 3 ? 2 : 4) && p[i].y == (p[i].y < 3 ? 2 : 4) && p[i].z == (p[i].z < 4.5 ? 3 : 6));
    wk_api_free(api);
}

/* An object name in world "world" whose shape is the mesh registered as
 * id; whether CreateObject answered status. */
static bool object_of(wk_api *api, const char *name, const char *id, int status)
{
    char request[1024];
    snprintf(request, sizeof request,
             "{'worldId':'world','name':'%s','createSingleEntityObject':{'geometryComponent':{'namedGeometries':{"
             "'Intrinsic_Collision':{'namedGeometries':{'shape':{'geometry':{'geoRef':{'exactGeometryRef':"
             "'worldkit-geometry:%s'}}}}}}}}}",
             name, id);
    return OWS_EXPECT(api, "CreateObject", request, status, status ? id : name);
}

/* The box of a registered mesh is made once and kept: with the stored
 * geometries gone (deleted from the store's database behind its back),
 * the bounds of objects made of them stay, each its own: an OBJ file's
 * box as assimp reads it, an inline mesh's of its vertices as given
 * (doubles, not assimp's floats). */
static void registered_box_kept(void)
{
    char dir[] = "/tmp/wk_bounds_XXXXXX", file[65], given[65];
    wk_api *api = api_on_disk(dir);
    REQUIRE(api);
    /* v -1 0 0.5, v 3 0 0.5, v 0 2 0.5, v 0 0 7 and its four faces. */
    REQUIRE(register_geometry(api,
                              "{'objData':'diAtMSAwIDAuNQp2IDMgMCAwLjUKdiAwIDIgMC41CnYgMCAwIDcKZiAxIDIgMwpmIDEgMiA0CmYg"
                              "MSAzIDQKZiAyIDMgNAo='}",
                              file));
    REQUIRE(register_geometry(api,
                              "{'inlineGeometry':{'exactGeometry':{'triangleMesh':{'vertices':[0.1,0.2,0.3,1.1,0.2,0.3,"
                              "0.1,1.7,0.3,0.1,0.2,2.9],'faces':[0,1,2,0,1,3,0,2,3,1,2,3]}}}}",
                              given));
    REQUIRE(object_of(api, "file", file, WK_GRPC_OK));
    REQUIRE(object_of(api, "given", given, WK_GRPC_OK));
    for (int round = 0; round < 2; round++) {
        check_box(api, "file", (wk_vec3){-1, 0, 0.5}, (wk_vec3){3, 2, 7}, 1e-12);
        /* 0.1 as a float is 0.1 within 1.5e-9 only. */
        check_box(api, "given", (wk_vec3){0.1, 0.2, 0.3}, (wk_vec3){1.1, 1.7, 2.9}, 1e-12);
        if (round == 0)
            REQUIRE_INT(wk__db_exec(wk_api_store(api), "DELETE FROM geometries"), ==, WK_OK);
    }
    /* Gone indeed: no new object is made of them. */
    CHECK(object_of(api, "again", file, WK_GRPC_NOT_FOUND));
    wk_api_free(api);
    CHECK_INT(remove_dir(dir), ==, 0);
}

/* Paths from WK_TEST_WORLDS, the folder a string world reads from once the
 * test is there (a world may read files below its own folder only). */
#define MESHES "meshes/"
#define BOX123 "mjcf/parts/box123.obj" /* 1 x 2 x 3, centred */
#define MESH_LINK(name, pose, uri, extra)                                                                     \
    "<link name='" name "'><pose>" pose "</pose><collision name='c'><geometry><mesh><uri>" uri "</uri>" extra \
    "</mesh></geometry></collision></link>"

/* Meshes of an SDFormat world, each model turned in the world (not in its
 * bounds); the pyramids' vertices fill (-0.75, -0.75, 0)-(0.75, 0.75, 1.2). */
#define MESH_WORLD                                                                                                  \
    "<sdf version='1.9'><world name='w'>"                                                                           \
    "<model name='stl'><pose>3 0 0 0 0 2</pose>" MESH_LINK("l", "0 0 0 0 0 0", MESHES "pyramid.stl", "") "</model>" \
    "<model name='dae'>" MESH_LINK("l", "0 0 1 0 0 0", MESHES "pyramid.dae", "") "</model>"                        \
    "<model name='scaled'>" MESH_LINK("l", "0 0 0 0 0 0", BOX123, "<scale>2 1 0.5</scale>") "</model>"              \
    "<model name='turned'>" MESH_LINK("l", "0 0 0 0 0 1.5707963267948966", BOX123, "") "</model>"                  \
    "<model name='rolled'>" MESH_LINK("l", "0 0 0 0.7853981633974483 0 0", BOX123, "") "</model>"                  \
    "<model name='half'>" MESH_LINK("a", "5 0 0 0 0 0", "https://x/rock.dae", "")                                   \
        MESH_LINK("b", "0 0 0 0 0 0", BOX123, "") MESH_LINK("n", "0 0 0 0 0 0", MESHES "broken.stl", "")           \
    "</model>"                                                                                                      \
    "</world></sdf>"

static void world_file_meshes(void)
{
    wk_api *api = loaded(WK_TEST_WORLDS, MESH_WORLD);
    REQUIRE(api);
    /* A binary STL holds floats: 1.2 as a float is 1.2 within 5e-8. */
    check_box(api, "stl", (wk_vec3){-0.75, -0.75, 0}, (wk_vec3){0.75, 0.75, 1.2}, 1e-7);
    check_box(api, "dae", (wk_vec3){-0.75, -0.75, 1}, (wk_vec3){0.75, 0.75, 2.2}, 1e-6);
    check_box(api, "scaled", (wk_vec3){-1, -1, -0.75}, (wk_vec3){1, 1, 0.75}, 1e-12);
    /* Turned a quarter about z, 1 x 2 becomes 2 x 1; in the link's own
     * frame it is as the file has it. */
    check_box(api, "turned", (wk_vec3){-1, -0.5, -1.5}, (wk_vec3){1, 0.5, 1.5}, 1e-12);
    check_box(api, "turned::l", (wk_vec3){-0.5, -1, -1.5}, (wk_vec3){0.5, 1, 1.5}, 1e-12);
    /* Rolled 45 degrees about x: y and z each reach (2 + 3) / 2 / sqrt(2). */
    double r = 2.5 / sqrt(2);
    check_box(api, "rolled", (wk_vec3){-0.5, -r, -r}, (wk_vec3){0.5, r, r}, 1e-12);
    /* A file not found (a) and one assimp cannot read (n, an empty STL
     * file) are left out: the box alone, the answer naming the first. */
    uint32_t type;
    wk_vec3 p[64];
    size_t n;
    char msg[256];
    REQUIRE_INT(bounds(api, "half", &type, p, &n, msg), ==, WK_RESULT_OK);
    REQUIRE_INT(n, ==, 2);
    CHECK_VEC3_NEAR(p[0], ((wk_vec3){0.5, 1, 1.5}), 1e-12);
    CHECK_VEC3_NEAR(p[1], ((wk_vec3){-0.5, -1, -1.5}), 1e-12);
    CHECK(strstr(msg, "'half'") && strstr(msg, "left out"));
    REQUIRE_INT(bounds(api, "half::n", &type, p, &n, msg), ==, WK_RESULT_OK);
    CHECK(strstr(msg, "broken.stl") && strstr(msg, "left out"));
    CHECK_VEC3_NEAR(p[0], ((wk_vec3){0, 0, 0}), 0);
    /* GetEntities' bounds filter sees the same boxes. */
    SimulationInterfaces__Vector3 v[2], *pv[2] = {&v[0], &v[1]};
    vec3_set(&v[0], (wk_vec3){-0.9, 0.3, 0.3});
    vec3_set(&v[1], (wk_vec3){-0.95, 0.4, 0.4});
    SimulationInterfaces__Bounds region = SIMULATION_INTERFACES__BOUNDS__INIT;
    region.has_type = true, region.type = 1, region.n_points = 2, region.points = pv;
    SimulationInterfaces__EntityFilters filters = SIMULATION_INTERFACES__ENTITY_FILTERS__INIT;
    filters.bounds = &region;
    SimulationInterfaces__GetEntitiesRequest req = SIMULATION_INTERFACES__GET_ENTITIES_REQUEST__INIT;
    req.filters = &filters;
    SimulationInterfaces__GetEntitiesResponse *resp = (SimulationInterfaces__GetEntitiesResponse *)call_service(
        api, "GetEntities", &req.base, &simulation_interfaces__get_entities_response__descriptor);
    /* In the world's frame, x = -0.9 at y, z = 0.3..0.4 is reached by
     * "scaled" and "turned" (to x = -1) only: the others stop at |x| = 0.75
     * or nearer, and the STL pyramid is around x = 3. */
    if (CHECK(resp && resp->n_entities == 2)) {
        CHECK_STR(resp->entities[0], "scaled");
        CHECK_STR(resp->entities[1], "turned");
    }
    free_response(resp);
    wk_api_free(api);
}

/* URDF's <mesh filename scale> and MJCF's mesh asset (file, scale). */
static void urdf_and_mjcf_meshes(void)
{
    wk_api *api = loaded(WK_TEST_WORLDS, "<robot name='r'><link name='base'><collision><origin xyz='0 0 1'/><geometry>"
                         "<mesh filename='" BOX123 "' scale='1 0.5 2'/></geometry></collision></link></robot>");
    REQUIRE(api);
    check_box(api, "r", (wk_vec3){-0.5, -0.5, -2}, (wk_vec3){0.5, 0.5, 4}, 1e-12);
    wk_api_free(api);
    api = loaded(WK_TEST_WORLDS, "<mujoco model='m'><asset><mesh name='box' file='" BOX123 "' scale='2 2 2'/>"
                                 "</asset><worldbody><body name='b' pos='0 0 3'><geom type='mesh' mesh='box' "
                                 "pos='1 0 0'/></body></worldbody></mujoco>");
    REQUIRE(api);
    check_box(api, "m::b", (wk_vec3){0, -2, -3}, (wk_vec3){2, 2, 3}, 1e-12);
    wk_api_free(api);
}

/* A mesh file is read once per world: changed on disk, the bounds stay
 * until the world is loaded again. */
static void read_once_per_world(void)
{
    char dir[] = "/tmp/wk_bounds_XXXXXX", path[64];
    REQUIRE(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/m.obj", dir);
    FILE *f = fopen(path, "w");
    REQUIRE(f);
    fputs("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", f);
    fclose(f);
    const char *world = "<sdf version='1.9'><world name='w'><model name='m'>" MESH_LINK("l", "0 0 0 0 0 0", "m.obj", "")
                        "</model></world></sdf>";
    wk_api *api = loaded(dir, world);
    REQUIRE(api);
    check_box(api, "m", (wk_vec3){0, 0, 0}, (wk_vec3){1, 1, 0}, 0);
    f = fopen(path, "w");
    REQUIRE(f);
    fputs("v 0 0 0\nv 5 0 0\nv 0 5 0\nf 1 2 3\n", f);
    fclose(f);
    check_box(api, "m", (wk_vec3){0, 0, 0}, (wk_vec3){1, 1, 0}, 0);
    REQUIRE_INT(load_string(api, world), ==, WK_RESULT_OK);
    check_box(api, "m", (wk_vec3){0, 0, 0}, (wk_vec3){5, 5, 0}, 0);
    unlink(path);
    rmdir(dir);
    wk_api_free(api);
}

static const wk_test_case cases[] = {
    {"world_file_meshes", world_file_meshes},
    {"urdf_and_mjcf_meshes", urdf_and_mjcf_meshes},
    {"read_once_per_world", read_once_per_world},
    {"boxes_of_each_primitive", boxes_of_each_primitive},
    {"spheres_and_hulls", spheres_and_hulls},
    {"plane_mesh_and_unknown", plane_mesh_and_unknown},
    {"registered_meshes", registered_meshes},
    {"registered_box_kept", registered_box_kept},
};
WK_TEST_MAIN(cases)
