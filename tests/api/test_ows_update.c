/* test_ows_update.c — ObjectWorldService's single mutations through the
 * method table, each with its success and its refusals (gRPC status and a
 * message naming the object, frame or world): CreateObject (geometry,
 * default physics, parent entity filters, user data, a collision rule,
 * create_from_scene_object's links and frames, and what it refuses),
 * DeleteObject (force, moving
 * children up), UpdateObjectName, ReparentObject (filter, frame, the
 * deprecated new_parent, snapping onto attachment frames),
 * UpdateObjectProperties, UpdateEntityProperties, the frame methods,
 * UpdateTransform's rule, and that a refused call leaves the world's
 * serialized state as it was. */
#include <math.h>

#include "api/ows/triangle_mesh.h"
#include "api/ows_client.h"

/* A box of 1 x 2 x 3 m and a sphere of radius 0.25 m. */
#define BOX OWS_SHAPE("'box':{'size':{'x':1,'y':2,'z':3}}")
#define SPHERE OWS_SHAPE("'sphere':{'radius':0.25}")

/* CreateObject of a box called name under parent (a JSON
 * ObjectReferenceWithEntityFilter, or NULL: the root) at x along x. */
static int create_box(wk_api *api, const char *name, const char *parent, double x)
{
    char json[2048];
    snprintf(json, sizeof json,
             "{'worldId':'w','name':'%s',%s%s%s'parentObjectTCreatedObject':{'position':{'x':%g}},"
             "'createSingleEntityObject':{'geometryComponent':" BOX "}}",
             name, parent ? "'parentObject':" : "", parent ? parent : "", parent ? "," : "", x);
    ows_answer a;
    int status = ows_call(api, "CreateObject", json, &a);
    if (status)
        fprintf(stderr, "    CreateObject %s: %d %s\n", name, status, a.message);
    wk_buf_free(&a.json);
    return status;
}

/* The endpoint with world "w" holding table (at x = 1), cup on table (at
 * x = 0.5 along it) and a frame "shelf" of root at z = 2. */
static wk_api *table_world(void)
{
    wk_api *api = wk_api_new();
    if (!api || !ows_world(api) || create_box(api, "table", NULL, 1) ||
        create_box(api, "cup", "{'reference':{'byName':{'objectName':'table'}}}", 0.5) ||
        !OWS_EXPECT(api, "CreateFrame",
                    "{'worldId':'w','newFrameName':'shelf','parentObject':{'id':'root'},"
                    "'parentTNewFrame':{'position':{'z':2}}}",
                    WK_GRPC_OK, "'name':'shelf'")) {
        wk_api_free(api);
        return NULL;
    }
    return api;
}

/* Opens world "w" for reading: its scene in *s; close with wk_store_close. */
static wk_world *peek(wk_api *api, wk_scene **s)
{
    wk_world *w = NULL;
    wk_status st;
    if (wk_store_open(wk_api_store(api), "w", false, &w, &st) == WK_OK)
        *s = wk_world_scene(w);
    return w;
}

static wk_entity object_named(const wk_scene *s, const char *name)
{
    wk_entity e = WK_NULL_ENTITY;
    wk_status st;
    return wk_scene_find_object(s, &(wk_ref){.object_name = name}, &e, &st) ? WK_NULL_ENTITY : e;
}

static void create_object(void)
{
    wk_api *api = table_world();
    REQUIRE(api);
    /* The FULL view: the entity with its geometry and default physics. */
    OWS_EXPECT(api, "CreateObject",
               "{'worldId':'w','name':'ball','view':'FULL','createSingleEntityObject':{'entityLocalName':'body',"
               "'geometryComponent':" SPHERE "},'userData':{'colour':{'@type':'type.googleapis.com/"
               "google.protobuf.StringValue','value':'red'}}}",
               WK_GRPC_OK, "'name':'body'");
    wk_scene *s;
    wk_world *w = peek(api, &s);
    REQUIRE(w);
    wk_entity ball = object_named(s, "ball");
    CHECK(ball != WK_NULL_ENTITY);
    const wk_physics *p = wk_scene_physics(s, ball);
    CHECK(p && p->mass_kg == 1 && p->inertia[1][1] == 1 && p->friction.mu == 1);
    CHECK(wk_scene_user_datum(s, ball, "colour") != NULL);
    CHECK_NEAR(wk_scene_pose(s, object_named(s, "cup")).p.x, 1.5, 1e-12);
    wk_store_close(w, false, false);

    /* Refusals, each naming what it is about. */
    wk_buf before = ows_state(api, "w");
    OWS_EXPECT(api, "CreateObject", "{'worldId':'w','name':'table','createSingleEntityObject':{'geometryComponent':" BOX "}}",
               WK_GRPC_ALREADY_EXISTS, "world 'w': 'table' already names an object under object 'root'");
    OWS_EXPECT(api, "CreateObject", "{'worldId':'w','name':'9lives','createSingleEntityObject':{'geometryComponent':" BOX "}}",
               WK_GRPC_INVALID_ARGUMENT, "9lives");
    OWS_EXPECT(api, "CreateObject", "{'worldId':'nowhere','name':'x','createSingleEntityObject':{'geometryComponent':" BOX "}}",
               WK_GRPC_NOT_FOUND, "nowhere");
    OWS_EXPECT(api, "CreateObject", "{'worldId':'w','name':'bare','createSingleEntityObject':{}}",
               WK_GRPC_INVALID_ARGUMENT, "CreateObject 'bare': create_single_entity_object has no geometry_component");
    OWS_EXPECT(api, "CreateObject", "{'worldId':'w','name':'none'}", WK_GRPC_INVALID_ARGUMENT,
               "CreateObject 'none': object_spec is not set");
    OWS_EXPECT(api, "CreateObject", "{'worldId':'w','name':'scene','createFromSceneObject':{}}", WK_GRPC_INVALID_ARGUMENT,
               "CreateObject 'scene': create_from_scene_object.scene_object is not set");
    OWS_EXPECT(api, "CreateObject",
               "{'worldId':'w','name':'lost','parentObject':{'reference':{'byName':{'objectName':'attic'}}},"
               "'createSingleEntityObject':{'geometryComponent':" BOX "}}",
               WK_GRPC_NOT_FOUND, "CreateObject 'lost': parent_object: ");
    OWS_EXPECT(api, "CreateObject",
               "{'worldId':'w','name':'tilted','parentObjectTCreatedObject':{'orientation':{'x':1,'w':1}},"
               "'createSingleEntityObject':{'geometryComponent':" BOX "}}",
               WK_GRPC_INVALID_ARGUMENT,
               "CreateObject 'tilted': parent_object_t_created_object: the orientation is not a unit quaternion");
    /* A rule for the new entities that cannot be made takes the object
     * back with it, and user data that clash likewise. */
    OWS_EXPECT(api, "CreateObject",
               "{'worldId':'w','name':'rim','actionForObjectEntities':{'margin':{'hardMargin':-1}},"
               "'createSingleEntityObject':{'geometryComponent':" BOX "}}",
               WK_GRPC_INVALID_ARGUMENT, "CreateObject 'rim': action_for_object_entities: ");
    CHECK(ows_unchanged(api, "w", &before));

    /* action_for_object_entities: "new entities vs *". */
    OWS_EXPECT(api, "CreateObject",
               "{'worldId':'w','name':'ghost','actionForObjectEntities':{'isExcluded':true},"
               "'createSingleEntityObject':{'geometryComponent':" BOX "}}",
               WK_GRPC_OK, "'name':'ghost'");
    w = peek(api, &s);
    REQUIRE(w);
    const wk_collision_settings *cs = wk_scene_collision_settings(s);
    CHECK_INT(cs->rule_count, ==, 1);
    wk_entity ghost = object_named(s, "ghost");
    if (cs->rule_count == 1) {
        CHECK(cs->rules[0].left_count == 1 && cs->rules[0].left[0].entity == ghost && cs->rules[0].left[0].whole_object);
        CHECK(cs->rules[0].right_count == 0 && cs->rules[0].action == WK_COLLISION_EXCLUDE);
    }
    CHECK(wk_scene_collisions_excluded(s, ghost, object_named(s, "table")));
    wk_store_close(w, false, false);
    wk_api_free(api);
}

/* The parent entity filter must pick exactly one entity; an attachment
 * frame makes the new object snap onto it. */
static void create_under_filters_and_frames(void)
{
    wk_api *api = table_world();
    REQUIRE(api);
    OWS_EXPECT(api, "CreateObject",
               "{'worldId':'w','name':'lid','parentObject':{'reference':{'byName':{'objectName':'table'}},"
               "'entityFilter':{'includeBaseEntity':true,'entityNames':['table']}},"
               "'createSingleEntityObject':{'geometryComponent':" BOX "}}",
               WK_GRPC_OK, "'name':'lid'");
    OWS_EXPECT(api, "CreateObject",
               "{'worldId':'w','name':'mug','parentObject':{'reference':{'byName':{'objectName':'table'}},"
               "'entityFilter':{'entityNames':['leg']}},'createSingleEntityObject':{'geometryComponent':" BOX "}}",
               WK_GRPC_NOT_FOUND, "leg");
    OWS_EXPECT(api, "CreateFrame",
               "{'worldId':'w','newFrameName':'dock','parentObject':{'byName':{'objectName':'table'}},"
               "'parentTNewFrame':{'position':{'y':0.3}},'designateAsAttachmentFrame':true}",
               WK_GRPC_OK, "'isAttachmentFrame':true");
    wk_scene *s;
    wk_world *w = peek(api, &s);
    REQUIRE(w);
    wk_status st;
    wk_entity dock;
    REQUIRE_INT(wk_scene_find_frame(s, &(wk_ref){.object_name = "table", .frame_name = "dock"}, &dock, &st), ==, WK_OK);
    char id[WK_ID_MAX], json[1024];
    wk_scene_entity_id(s, dock, id);
    wk_store_close(w, false, false);
    /* Created under the frame (ReparentObject's parent_frame reaches it;
     * CreateObject names an entity): the pose given is ignored. */
    snprintf(json, sizeof json,
             "{'worldId':'w','name':'plate','parentObject':{'reference':{'byName':{'objectName':'table'}},"
             "'entityFilter':{'entityReferences':[{'id':'%s'}]}},'parentObjectTCreatedObject':{'position':{'x':5}},"
             "'createSingleEntityObject':{'geometryComponent':" BOX "}}",
             id);
    OWS_EXPECT(api, "CreateObject", json, WK_GRPC_OK, "'name':'plate'");
    w = peek(api, &s);
    REQUIRE(w);
    wk_pose dock_world = wk_scene_pose(s, dock), plate_world = wk_scene_pose(s, object_named(s, "plate"));
    CHECK_NEAR(plate_world.p.x, dock_world.p.x, 1e-12);
    CHECK_NEAR(plate_world.p.y, dock_world.p.y, 1e-12);
    wk_store_close(w, false, false);
    wk_api_free(api);
}

static void delete_object(void)
{
    wk_api *api = table_world();
    REQUIRE(api);
    wk_buf before = ows_state(api, "w");
    OWS_EXPECT(api, "DeleteObject", "{'worldId':'w','object':{'byName':{'objectName':'table'}}}",
               WK_GRPC_FAILED_PRECONDITION, "object 'table' has 1 child object(s), 'cup' first");
    OWS_EXPECT(api, "DeleteObject", "{'worldId':'w','object':{'byName':{'objectName':'attic'}}}", WK_GRPC_NOT_FOUND,
               "attic");
    OWS_EXPECT(api, "DeleteObject", "{'worldId':'w','object':{'id':'root'}}", WK_GRPC_INVALID_ARGUMENT, "root");
    OWS_EXPECT(api, "DeleteObject",
               "{'worldId':'w','object':{'byName':{'objectName':'table'}},'force':true,'reparentChildObjects':true}",
               WK_GRPC_INVALID_ARGUMENT, "DeleteObject 'table': force and reparent_child_objects");
    CHECK(ows_unchanged(api, "w", &before));

    /* Children moved up keep their world pose. */
    OWS_EXPECT(api, "DeleteObject",
               "{'worldId':'w','object':{'byName':{'objectName':'table'}},'reparentChildObjects':true}", WK_GRPC_OK,
               NULL);
    wk_scene *s;
    wk_world *w = peek(api, &s);
    REQUIRE(w);
    CHECK(object_named(s, "table") == WK_NULL_ENTITY);
    wk_entity cup = object_named(s, "cup");
    CHECK(cup && wk_scene_parent_object(s, cup) == wk_scene_root(s));
    CHECK_NEAR(wk_scene_pose(s, cup).p.x, 1.5, 1e-12);
    wk_store_close(w, false, false);

    /* force takes the children along. */
    REQUIRE(create_box(api, "saucer", "{'reference':{'byName':{'objectName':'cup'}}}", 0) == WK_GRPC_OK);
    OWS_EXPECT(api, "DeleteObject", "{'worldId':'w','object':{'byName':{'objectName':'cup'}},'force':true}",
               WK_GRPC_OK, NULL);
    w = peek(api, &s);
    REQUIRE(w);
    CHECK(object_named(s, "cup") == WK_NULL_ENTITY && object_named(s, "saucer") == WK_NULL_ENTITY);
    wk_store_close(w, false, false);
    wk_api_free(api);
}

static void rename_and_reparent_objects(void)
{
    wk_api *api = table_world();
    REQUIRE(api);
    OWS_EXPECT(api, "UpdateObjectName",
               "{'worldId':'w','object':{'byName':{'objectName':'cup'}},'name':'mug','nameIsGlobalAlias':true}",
               WK_GRPC_OK, "'name':'mug'");
    /* Names are unique among the objects and frames of a parent, and global
     * aliases in the whole world. */
    OWS_EXPECT(api, "UpdateObjectName", "{'worldId':'w','object':{'byName':{'objectName':'table'}},'name':'shelf'}",
               WK_GRPC_ALREADY_EXISTS, "shelf");
    OWS_EXPECT(api, "UpdateObjectName",
               "{'worldId':'w','object':{'byName':{'objectName':'table'}},'name':'mug','nameIsGlobalAlias':true}",
               WK_GRPC_ALREADY_EXISTS, "mug");
    OWS_EXPECT(api, "UpdateObjectName", "{'worldId':'w','object':{'byName':{'objectName':'mug'}},'name':'a b'}",
               WK_GRPC_INVALID_ARGUMENT, "a b");
    OWS_EXPECT(api, "UpdateObjectName", "{'worldId':'w','object':{'byName':{'objectName':'cup'}},'name':'x'}",
               WK_GRPC_NOT_FOUND, "cup");

    /* To the root, world pose kept; back under table with the deprecated
     * new_parent; onto the frame shelf. */
    OWS_EXPECT(api, "ReparentObject",
               "{'worldId':'w','object':{'byName':{'objectName':'mug'}},'parentObject':{'reference':{'id':'root'}}}",
               WK_GRPC_OK, "'name':'mug'");
    wk_scene *s;
    wk_world *w = peek(api, &s);
    REQUIRE(w);
    wk_entity mug = object_named(s, "mug");
    CHECK(wk_scene_parent_object(s, mug) == wk_scene_root(s));
    CHECK_NEAR(wk_scene_pose(s, mug).p.x, 1.5, 1e-12);
    wk_store_close(w, false, false);
    OWS_EXPECT(api, "ReparentObject",
               "{'worldId':'w','object':{'byName':{'objectName':'mug'}},"
               "'newParent':{'reference':{'byName':{'objectName':'table'}}}}",
               WK_GRPC_OK, "'parent':{'id':");
    OWS_EXPECT(api, "ReparentObject",
               "{'worldId':'w','object':{'byName':{'objectName':'table'}},"
               "'parentObject':{'reference':{'byName':{'objectName':'mug'}}}}",
               WK_GRPC_INVALID_ARGUMENT, "table");
    OWS_EXPECT(api, "ReparentObject", "{'worldId':'w','object':{'byName':{'objectName':'mug'}}}",
               WK_GRPC_INVALID_ARGUMENT, "ReparentObject 'mug': attach_to is not set");
    OWS_EXPECT(api, "ReparentObject",
               "{'worldId':'w','object':{'byName':{'objectName':'mug'}},"
               "'parentFrame':{'byName':{'objectName':'root','frameName':'shelf'}}}",
               WK_GRPC_OK, "'name':'mug'");
    w = peek(api, &s);
    REQUIRE(w);
    CHECK_NEAR(wk_scene_pose(s, object_named(s, "mug")).p.x, 1.5, 1e-12);
    CHECK(wk_scene_parent_frame(s, object_named(s, "mug")) != WK_NULL_ENTITY);
    wk_store_close(w, false, false);
    /* An attachment frame: the object snaps onto it. */
    OWS_EXPECT(api, "UpdateFrameProperties",
               "{'worldId':'w','frame':{'byName':{'objectName':'root','frameName':'shelf'}},'isAttachmentFrame':true}",
               WK_GRPC_OK, "'isAttachmentFrame':true");
    OWS_EXPECT(api, "ReparentObject",
               "{'worldId':'w','object':{'byName':{'objectName':'table'}},"
               "'parentFrame':{'byName':{'objectName':'root','frameName':'shelf'}}}",
               WK_GRPC_OK, "'name':'table'");
    w = peek(api, &s);
    REQUIRE(w);
    wk_pose table = wk_scene_pose(s, object_named(s, "table"));
    CHECK_NEAR(table.p.x, 0, 1e-12);
    CHECK_NEAR(table.p.z, 2, 1e-12);
    wk_store_close(w, false, false);
    wk_api_free(api);
}

static void object_and_entity_properties(void)
{
    wk_api *api = table_world();
    REQUIRE(api);
    OWS_EXPECT(api, "UpdateObjectProperties",
               "{'worldId':'w','object':{'byName':{'objectName':'table'}},'view':'FULL',"
               "'simulationComponent':{'isStatic':true},'userData':{'policy':'POLICY_INSERT','userData':{'k':"
               "{'@type':'type.googleapis.com/google.protobuf.StringValue','value':'v'}}}}",
               WK_GRPC_OK, "'simulationComponent':{'isStatic':true}");
    OWS_EXPECT(api, "UpdateObjectProperties",
               "{'worldId':'w','object':{'byName':{'objectName':'table'}},'userData':{'policy':'POLICY_INSERT',"
               "'userData':{'k':{'@type':'type.googleapis.com/google.protobuf.StringValue','value':'w'}}}}",
               WK_GRPC_ALREADY_EXISTS, "UpdateObjectProperties 'table': user_data: ");
    OWS_EXPECT(api, "UpdateObjectProperties",
               "{'worldId':'w','object':{'id':'root'},'simulationComponent':{'isStatic':true}}",
               WK_GRPC_INVALID_ARGUMENT, "simulation_component");

    /* Physics: replaced; not addable to an entity without it. */
    OWS_EXPECT(api, "UpdateEntityProperties",
               "{'worldId':'w','entity':{'reference':{'byName':{'objectName':'cup'}}},'physicsComponent':{'massKg':2.5,"
               "'inertia':{'rows':3,'cols':3,'values':[1,0,0,0,2,0,0,0,3]},'friction':{'mu':0.4}}}",
               WK_GRPC_OK, "'massKg':2.5");
    wk_scene *s;
    wk_world *w = peek(api, &s);
    REQUIRE(w);
    const wk_physics *p = wk_scene_physics(s, object_named(s, "cup"));
    CHECK(p && p->mass_kg == 2.5 && p->inertia[1][1] == 2 && p->inertia[2][2] == 3 && p->friction.mu == 0.4);
    wk_store_close(w, false, false);
    OWS_EXPECT(api, "UpdateEntityProperties",
               "{'worldId':'w','entity':{'reference':{'byName':{'objectName':'cup'}}},"
               "'physicsComponent':{'inertia':{'rows':2,'cols':2,'values':[1,0,0,1]}}}",
               WK_GRPC_INVALID_ARGUMENT, "2x2");
    OWS_EXPECT(api, "UpdateEntityProperties",
               "{'worldId':'w','entity':{'reference':{'byName':{'objectName':'cup'}}},'physicsComponent':{'massKg':-1}}",
               WK_GRPC_INVALID_ARGUMENT, "negative");
    OWS_EXPECT(api, "UpdateEntityProperties",
               "{'worldId':'w','entity':{'reference':{'id':'root'}},'physicsComponent':{'massKg':1}}",
               WK_GRPC_FAILED_PRECONDITION, "has no physics component");
    /* Geometry: the box becomes a sphere. */
    OWS_EXPECT(api, "UpdateEntityProperties",
               "{'worldId':'w','entity':{'reference':{'byName':{'objectName':'cup'}}},'geometryComponent':" SPHERE "}",
               WK_GRPC_OK, "'sphere':{'radius':0.25}");
    OWS_EXPECT(api, "UpdateEntityProperties",
               "{'worldId':'w','entity':{'reference':{'byName':{'objectName':'cup'}}},'geometryComponent':{}}",
               WK_GRPC_INVALID_ARGUMENT, "UpdateEntityProperties 'cup' of object 'cup'");
    wk_api_free(api);
}

static void frames(void)
{
    wk_api *api = table_world();
    REQUIRE(api);
    OWS_EXPECT(api, "CreateFrame",
               "{'worldId':'w','newFrameName':'slot','parentFrame':{'byName':{'objectName':'root','frameName':'shelf'}},"
               "'parentTNewFrame':{'position':{'x':0.1}}}",
               WK_GRPC_OK, "'parentFrame':{'id':");
    OWS_EXPECT(api, "CreateFrame", "{'worldId':'w','newFrameName':'slot','parentObject':{'id':'root'}}",
               WK_GRPC_ALREADY_EXISTS, "slot");
    OWS_EXPECT(api, "CreateFrame", "{'worldId':'w','newFrameName':'loose'}", WK_GRPC_INVALID_ARGUMENT,
               "CreateFrame 'loose': attach_to is not set");
    OWS_EXPECT(api, "CreateFrame", "{'worldId':'w','newFrameName':'up','parentObject':{'byName':{'objectName':'attic'}}}",
               WK_GRPC_NOT_FOUND, "CreateFrame 'up': ");
    /* parent_object_with_filter, as Intrinsic's client sends it: without a
     * filter the frame hangs from the base entity, with one from the entity
     * it picks; the pose is relative to the object's base either way. */
    OWS_EXPECT(api, "CreateFrame",
               "{'worldId':'w','newFrameName':'edge','parentObjectWithFilter':{'reference':{'byName':{'objectName':"
               "'table'}}},'parentTNewFrame':{'position':{'y':0.5}}}",
               WK_GRPC_OK, "'object':{'id':");
    OWS_EXPECT(api, "CreateFrame",
               "{'worldId':'w','newFrameName':'rim','parentObjectWithFilter':{'reference':{'byName':{'objectName':"
               "'cup'}},'entityFilter':{'includeFinalEntity':true}}}",
               WK_GRPC_OK, "'name':'rim'");
    OWS_EXPECT(api, "CreateFrame", "{'worldId':'w','newFrameName':'mark','parentObjectWithFilter':{'reference':{'id':'root'}}}",
               WK_GRPC_OK, "'name':'mark'");
    OWS_EXPECT(api, "CreateFrame",
               "{'worldId':'w','newFrameName':'lip','parentObjectWithFilter':{'reference':{'byName':{'objectName':"
               "'cup'}},'entityFilter':{'entityNames':['handle']}}}",
               WK_GRPC_NOT_FOUND, "handle");
    {
        wk_scene *fs;
        wk_world *fw = peek(api, &fs);
        REQUIRE(fw);
        wk_entity edge, rim;
        wk_status fst;
        CHECK_INT(wk_scene_find_frame(fs, &(wk_ref){.object_name = "table", .frame_name = "edge"}, &edge, &fst), ==,
                  WK_OK);
        CHECK_NEAR(wk_scene_pose(fs, edge).p.x, 1, 1e-12);
        CHECK_NEAR(wk_scene_pose(fs, edge).p.y, 0.5, 1e-12);
        CHECK_INT(wk_scene_find_frame(fs, &(wk_ref){.object_name = "cup", .frame_name = "rim"}, &rim, &fst), ==, WK_OK);
        CHECK_NEAR(wk_scene_pose(fs, rim).p.x, 1.5, 1e-12);
        wk_store_close(fw, false, false);
    }
    OWS_EXPECT(api, "UpdateFrameName",
               "{'worldId':'w','frame':{'byName':{'objectName':'root','frameName':'slot'}},'name':'groove'}",
               WK_GRPC_OK, "'name':'groove'");
    OWS_EXPECT(api, "UpdateFrameName",
               "{'worldId':'w','frame':{'byName':{'objectName':'root','frameName':'groove'}},'name':'shelf'}",
               WK_GRPC_ALREADY_EXISTS, "shelf");
    OWS_EXPECT(api, "DeleteFrame", "{'worldId':'w','frame':{'byName':{'objectName':'root','frameName':'shelf'}}}",
               WK_GRPC_FAILED_PRECONDITION, "shelf");
    OWS_EXPECT(api, "DeleteFrame", "{'worldId':'w','frame':{'byName':{'objectName':'root','frameName':'attic'}}}",
               WK_GRPC_NOT_FOUND, "attic");
    /* Onto the table, world pose kept; then gone with its child. */
    OWS_EXPECT(api, "ReparentFrame",
               "{'worldId':'w','frame':{'byName':{'objectName':'root','frameName':'shelf'}},"
               "'parentObject':{'reference':{'byName':{'objectName':'table'}}}}",
               WK_GRPC_OK, "'object':{'id':");
    wk_scene *s;
    wk_world *w = peek(api, &s);
    REQUIRE(w);
    wk_entity groove;
    wk_status st;
    CHECK_INT(wk_scene_find_frame(s, &(wk_ref){.object_name = "table", .frame_name = "groove"}, &groove, &st), ==,
              WK_OK);
    CHECK_NEAR(wk_scene_pose(s, groove).p.x, 0.1, 1e-12);
    CHECK_NEAR(wk_scene_pose(s, groove).p.z, 2, 1e-12);
    wk_store_close(w, false, false);
    OWS_EXPECT(api, "ReparentFrame", "{'worldId':'w','frame':{'byName':{'objectName':'table','frameName':'shelf'}}}",
               WK_GRPC_INVALID_ARGUMENT, "ReparentFrame 'shelf': attach_to is not set");
    OWS_EXPECT(api, "UpdateFrameProperties",
               "{'worldId':'w','frame':{'byName':{'objectName':'table','frameName':'groove'}},'isAttachmentFrame':true}",
               WK_GRPC_OK, "'isAttachmentFrame':true");
    OWS_EXPECT(api, "DeleteFrame",
               "{'worldId':'w','frame':{'byName':{'objectName':'table','frameName':'shelf'}},'force':true}", WK_GRPC_OK,
               NULL);
    w = peek(api, &s);
    REQUIRE(w);
    CHECK_INT(wk_scene_find_frame(s, &(wk_ref){.object_name = "table", .frame_name = "groove"}, &groove, &st), ==,
              WK_NOT_FOUND);
    wk_store_close(w, false, false);
    wk_api_free(api);
}

static void update_transform(void)
{
    wk_api *api = table_world();
    REQUIRE(api);
    /* Neighbours: the child (cup) moves, shown as an Object. */
    OWS_EXPECT(api, "UpdateTransform",
               "{'worldId':'w','nodeA':{'byName':{'object':{'objectName':'table'}}},"
               "'nodeB':{'byName':{'object':{'objectName':'cup'}}},'aTB':{'position':{'y':0.7}}}",
               WK_GRPC_OK, "'object':{'worldId':'w','id':");
    /* A frame moved shows as a Frame, posed. */
    OWS_EXPECT(api, "UpdateTransform",
               "{'worldId':'w','nodeA':{'id':'root'},'nodeB':{'byName':{'frame':{'objectName':'root','frameName':"
               "'shelf'}}},'aTB':{'position':{'z':3}}}",
               WK_GRPC_OK, "'frame':{'worldId':'w'");
    wk_scene *s;
    wk_world *w = peek(api, &s);
    REQUIRE(w);
    wk_entity table = object_named(s, "table"), cup = object_named(s, "cup");
    wk_pose t = wk_scene_transform(s, table, cup);
    CHECK_NEAR(t.p.x, 0, 1e-12);
    CHECK_NEAR(t.p.y, 0.7, 1e-12);
    wk_store_close(w, false, false);
    /* Through an ancestor: root_t_cup = x 4, moving the table. */
    OWS_EXPECT(api, "UpdateTransform",
               "{'worldId':'w','nodeA':{'id':'root'},'nodeB':{'byName':{'object':{'objectName':'cup'}}},"
               "'nodeToUpdate':{'byName':{'object':{'objectName':'table'}}},'aTB':{'position':{'x':4}},'view':'FULL'}",
               WK_GRPC_OK, "'name':'table'");
    w = peek(api, &s);
    REQUIRE(w);
    CHECK_NEAR(wk_scene_pose(s, cup).p.x, 4, 1e-12);
    CHECK_NEAR(wk_scene_pose(s, table).p.x, 4, 1e-12);
    wk_store_close(w, false, false);

    /* The rule's refusals change nothing. */
    wk_buf before = ows_state(api, "w");
    OWS_EXPECT(api, "UpdateTransform",
               "{'worldId':'w','nodeA':{'id':'root'},'nodeB':{'byName':{'object':{'objectName':'cup'}}},"
               "'aTB':{'position':{'x':4}}}",
               WK_GRPC_INVALID_ARGUMENT, "not neighbours");
    OWS_EXPECT(api, "UpdateTransform",
               "{'worldId':'w','nodeA':{'byName':{'object':{'objectName':'cup'}}},"
               "'nodeB':{'byName':{'frame':{'objectName':'root','frameName':'shelf'}}},"
               "'nodeToUpdate':{'id':'root'},'aTB':{'position':{'x':4}}}",
               WK_GRPC_INVALID_ARGUMENT, "cannot be moved");
    OWS_EXPECT(api, "UpdateTransform",
               "{'worldId':'w','nodeA':{'byName':{'object':{'objectName':'table'}}},"
               "'nodeB':{'byName':{'object':{'objectName':'cup'}}},"
               "'nodeToUpdate':{'byName':{'frame':{'objectName':'root','frameName':'shelf'}}},'aTB':{}}",
               WK_GRPC_INVALID_ARGUMENT, "neither");
    OWS_EXPECT(api, "UpdateTransform",
               "{'worldId':'w','nodeA':{'id':'root'},'nodeB':{'byName':{'object':{'objectName':'cup'}}},"
               "'nodeToUpdate':{'id':'root'}}",
               WK_GRPC_INVALID_ARGUMENT, "UpdateTransform: a_t_b is not set");
    OWS_EXPECT(api, "UpdateTransform",
               "{'worldId':'w','nodeA':{'byName':{'object':{'objectName':'attic'}}},"
               "'nodeB':{'byName':{'object':{'objectName':'cup'}}},'aTB':{}}",
               WK_GRPC_NOT_FOUND, "UpdateTransform: node_a: ");
    OWS_EXPECT(api, "UpdateTransform",
               "{'worldId':'w','nodeA':{'byName':{'object':{'objectName':'table'}}},"
               "'nodeB':{'byName':{'object':{'objectName':'cup'}}},'aTB':{'orientation':{'x':0.5}}}",
               WK_GRPC_INVALID_ARGUMENT, "UpdateTransform: a_t_b: the orientation is not a unit quaternion");
    CHECK(ows_unchanged(api, "w", &before));
    wk_api_free(api);
}

/* UpdateTransform of a translation component: WK_POSE_TRANSLATION_MAX is
 * taken, as 1e12 exactly, and the QA case of two objects at +-1e12 gives a
 * finite GetTransform; just past it is refused naming the component, and
 * the world stays as it was. */
static void update_transform_limit(void)
{
    wk_api *api = table_world();
    REQUIRE(api);
    REQUIRE(create_box(api, "far", NULL, 0) == WK_GRPC_OK);
    OWS_EXPECT(api, "UpdateTransform",
               "{'worldId':'w','nodeA':{'id':'root'},'nodeB':{'byName':{'object':{'objectName':'table'}}},"
               "'aTB':{'position':{'x':1e12},'orientation':{'w':1}}}",
               WK_GRPC_OK, "'name':'table'");
    OWS_EXPECT(api, "UpdateTransform",
               "{'worldId':'w','nodeA':{'id':'root'},'nodeB':{'byName':{'object':{'objectName':'far'}}},"
               "'aTB':{'position':{'x':-1000000000000},'orientation':{'w':1}}}",
               WK_GRPC_OK, "'name':'far'");
    ows_answer a;
    CHECK_INT(ows_call(api, "GetTransform",
                       "{'worldId':'w','nodeA':{'byName':{'object':{'objectName':'table'}}},"
                       "'nodeB':{'byName':{'object':{'objectName':'far'}}}}",
                       &a),
              ==, WK_GRPC_OK);
    CHECK(ows_has(&a, "'aTB':{'position':{'x':-2000000000000"));
    wk_buf_free(&a.json);
    wk_scene *s;
    wk_world *w = peek(api, &s);
    REQUIRE(w);
    wk_pose t = wk_scene_transform(s, object_named(s, "table"), object_named(s, "far"));
    CHECK_NEAR(t.p.x, -2e12, 0.0);
    /* cup hangs 0.5 m along the table: its world pose is past the limit by
     * composition, and stays finite. */
    CHECK_NEAR(wk_scene_world_pose(s, object_named(s, "cup")).p.x, 1e12 + 0.5, 0.0);
    wk_store_close(w, false, false);

    wk_buf before = ows_state(api, "w");
    OWS_EXPECT(api, "UpdateTransform",
               "{'worldId':'w','nodeA':{'id':'root'},'nodeB':{'byName':{'object':{'objectName':'far'}}},"
               "'aTB':{'position':{'y':1000000000000.001},'orientation':{'w':1}}}",
               WK_GRPC_INVALID_ARGUMENT,
               "UpdateTransform: a_t_b: translation y = 1000000000000.001 is beyond the limit of +-1e+12 m");
    OWS_EXPECT(api, "UpdateTransform",
               "{'worldId':'w','nodeA':{'id':'root'},'nodeB':{'byName':{'object':{'objectName':'far'}}},"
               "'aTB':{'position':{'z':-1.7e308},'orientation':{'w':1}}}",
               WK_GRPC_INVALID_ARGUMENT, "translation z = -1.7e+308 is beyond the limit");
    OWS_EXPECT(api, "CreateFrame",
               "{'worldId':'w','newFrameName':'moon','parentObject':{'id':'root'},"
               "'parentTNewFrame':{'position':{'x':4e12}}}",
               WK_GRPC_INVALID_ARGUMENT, "parent_t_new_frame: translation x = 4e+12 is beyond the limit");
    CHECK(ows_unchanged(api, "w", &before));
    wk_api_free(api);
}

/* A change of poses only leaves the world's structure hash as it was; a
 * rename does not; a refused or empty call is no update at all. */
static void structure_hash(void)
{
    wk_api *api = table_world();
    REQUIRE(api);
    wk_world_meta m0, m1, m2;
    wk_status st;
    REQUIRE_INT(wk_store_meta(wk_api_store(api), "w", &m0, &st), ==, WK_OK);
    OWS_EXPECT(api, "UpdateTransform",
               "{'worldId':'w','nodeA':{'byName':{'object':{'objectName':'table'}}},"
               "'nodeB':{'byName':{'object':{'objectName':'cup'}}},'aTB':{'position':{'y':0.7}}}",
               WK_GRPC_OK, NULL);
    REQUIRE_INT(wk_store_meta(wk_api_store(api), "w", &m1, &st), ==, WK_OK);
    CHECK_STR(m1.structure_hash, m0.structure_hash);
    CHECK(m1.last_update_ns >= m0.last_update_ns);
    OWS_EXPECT(api, "UpdateObjectName", "{'worldId':'w','object':{'byName':{'objectName':'cup'}},'name':'mug'}",
               WK_GRPC_OK, NULL);
    REQUIRE_INT(wk_store_meta(wk_api_store(api), "w", &m2, &st), ==, WK_OK);
    CHECK(strcmp(m2.structure_hash, m1.structure_hash) != 0);
    /* Neither a refusal nor a call that changes nothing counts as an
     * update. */
    wk_world_meta m3;
    OWS_EXPECT(api, "UpdateObjectName", "{'worldId':'w','object':{'byName':{'objectName':'table'}},'name':'shelf'}",
               WK_GRPC_ALREADY_EXISTS, NULL);
    OWS_EXPECT(api, "UpdateFrameProperties",
               "{'worldId':'w','frame':{'byName':{'objectName':'root','frameName':'shelf'}}}", WK_GRPC_OK, NULL);
    REQUIRE_INT(wk_store_meta(wk_api_store(api), "w", &m3, &st), ==, WK_OK);
    CHECK_STR(m3.structure_hash, m2.structure_hash);
    CHECK(m3.last_update_ns == m2.last_update_ns);
    wk_api_free(api);
}

/* create_from_scene_object: links below links, frames below links and
 * frames, in any order in the message, each at its parent_t_this; the
 * SceneObject's user data; and, refused by name with the world unchanged,
 * what worldkit cannot keep or a tree that is not one. */
#define ENTITY(name, parent, x, z, type)                                                                            \
    "{'name':'" name "','parentName':'" parent "','parentTThis':{'position':{'x':" #x ",'z':" #z "},"             \
    "'orientation':{'w':1}}," type "}"
#define LINK(shape) "'link':{'geometryComponent':" shape ",'physicsComponent':{'massKg':2}}"

static void create_from_scene_object(void)
{
    wk_api *api = table_world();
    REQUIRE(api);
    OWS_EXPECT(api, "CreateObject",
               "{'worldId':'w','name':'crate','view':'FULL','parentObjectTCreatedObject':{'position':{'x':1},"
               "'orientation':{'w':1}},'createFromSceneObject':{'sceneObject':{'name':'crate_asset','entities':["
               ENTITY("tip", "grasp", 0, 0.25, "'frame':{}") "," ENTITY("lid", "body", 0, 0.5, LINK(SPHERE)) ","
               ENTITY("grasp", "lid", 0.5, 0, "'frame':{'isAttachmentFrame':true}") ","
               ENTITY("body", "", 0, 0, LINK(BOX)) "],"
               "'userData':{'colour':{'@type':'type.googleapis.com/google.protobuf.StringValue','value':'red'}}}}}",
               WK_GRPC_OK, "'name':'crate','type':'PHYSICAL_OBJECT'");
    OWS_EXPECT(api, "GetTransform",
               "{'worldId':'w','nodeA':{'id':'root'},'nodeB':{'byName':{'frame':{'objectName':'crate',"
               "'frameName':'tip'}}}}",
               WK_GRPC_OK, "'position':{'x':1.5,'y':0,'z':0.75}");
    OWS_EXPECT(api, "GetFrame", "{'worldId':'w','frame':{'byName':{'objectName':'crate','frameName':'grasp'}}}",
               WK_GRPC_OK, "'isAttachmentFrame':true");
    wk_scene *s;
    wk_world *w = peek(api, &s);
    REQUIRE(w);
    wk_entity crate = object_named(s, "crate");
    wk_entity_list all = {0};
    CHECK(crate != WK_NULL_ENTITY && wk_scene_object_entities(s, crate, &all) == WK_OK);
    CHECK_INT(all.count, ==, 4); /* body, lid and the two frames */
    CHECK(wk_scene_user_datum(s, crate, "colour") != NULL);
    CHECK(wk_scene_physics(s, crate) && wk_scene_physics(s, crate)->mass_kg == 2);
    wk_entity_list_free(&all);
    wk_store_close(w, false, false);

    wk_buf before = ows_state(api, "w");
    static const struct {
        const char *entities, *extra, *says;
    } refused[] = {
        {ENTITY("body", "", 0, 0, LINK(BOX)) "," ENTITY("j", "body", 0, 0, "'joint':{}"), "",
         "scene_object.entities['j'] is a joint"},
        {ENTITY("body", "", 0, 0, LINK(BOX)) "," ENTITY("cam", "body", 0, 0, "'sensor':{}"), "",
         "scene_object.entities['cam'] is a sensor"},
        {ENTITY("body", "", 0, 0, LINK(BOX)), ",'properties':{}", "scene_object.properties is not supported"},
        {ENTITY("body", "", 0, 0, LINK(BOX)), ",'simulationSpec':{}", "scene_object.simulation_spec is not supported"},
        {ENTITY("body", "", 0, 0, LINK(BOX)), ",'collisionRules':{}", "scene_object.collision_rules is not supported"},
        {ENTITY("body", "", 0, 0, LINK(BOX)) "," ENTITY("other", "", 0, 0, LINK(BOX)), "",
         "scene_object has 2 root entities"},
        {ENTITY("f", "", 0, 0, "'frame':{}"), "", "root entity 'f' is a frame"},
        {ENTITY("body", "", 0, 0, LINK(BOX)) "," ENTITY("lid", "hinge", 0, 0, LINK(BOX)), "",
         "entity 'lid' names parent 'hinge', which is not in the scene_object"},
        {ENTITY("body", "", 0, 0, LINK(BOX)) "," ENTITY("a", "b", 0, 0, LINK(BOX)) "," ENTITY("b", "a", 0, 0, LINK(BOX)),
         "", "the parents of entity 'a' lead back to it"},
        {ENTITY("body", "", 0, 0, LINK(BOX)) "," ENTITY("lid", "body", 0, 0, LINK(BOX)) ","
         ENTITY("lid", "body", 0, 0, "'frame':{}"), "", "scene_object names two entities 'lid'"},
        {ENTITY("body", "", 0, 0, LINK(BOX)) "," ENTITY("f", "body", 0, 0, "'frame':{}") ","
         ENTITY("lid", "f", 0, 0, LINK(BOX)), "", "scene_object.entities['lid']"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        char json[2048];
        snprintf(json, sizeof json,
                 "{'worldId':'w','name':'bad','createFromSceneObject':{'sceneObject':{'entities':[%s]%s}}}",
                 refused[i].entities, refused[i].extra);
        OWS_EXPECT(api, "CreateObject", json, WK_GRPC_INVALID_ARGUMENT, refused[i].says);
    }
    OWS_EXPECT(api, "CreateObject",
               "{'worldId':'w','name':'bad','createFromSceneObject':{'sceneObject':{'entities':["
               ENTITY("body", "", 0, 0, LINK(BOX)) "]},'userData':{'FLOWSTATE_x':'y'}}}",
               WK_GRPC_INVALID_ARGUMENT, "create_from_scene_object.user_data is not supported");
    CHECK(ows_unchanged(api, "w", &before));
    wk_api_free(api);
}

#define GEOMETRY_SERVICE "/intrinsic_proto.geometry.GeometryService/"
#define A_BOX "{'primitiveSetV0':{'primitives':[{'box':{'size':{'x':0.1,'y':0.2,'z':0.3}}}]}}"

/* One triangle, (0,0,0) (1,0,0) (0,2,0), as an ASCII STL file. */
#define A_TRIANGLE_STL                                                                                               \
    "c29saWQgYQpmYWNldCBub3JtYWwgMCAwIDEKb3V0ZXIgbG9vcAp2ZXJ0ZXggMCAwIDAKdmVydGV4IDEgMCAwCnZlcnRleCAwIDIgMAplbmRsb29w" \
    "CmVuZGZhY2V0CmVuZHNvbGlkIGEK"

/* GeometryService keeps what it is given under a content fingerprint and
 * serves back what the data holds (an STL file as its triangle mesh and a
 * glb); what
 * it cannot make is refused at once with FAILED_PRECONDITION (the client
 * retries UNIMPLEMENTED), a file that is no mesh with INVALID_ARGUMENT; an
 * object whose geometry names a registered primitive gets that primitive. */
static void geometry_service(void)
{
    wk_api *api = table_world();
    REQUIRE(api);
    char box[65], again[65], stl[65], gltf[65];
    REQUIRE(register_geometry(api, A_BOX, box));
    REQUIRE(register_geometry(api, A_BOX, again));
    CHECK_STR(again, box);
    REQUIRE(register_geometry(api, "{'stlBytes':'" A_TRIANGLE_STL "'}", stl));
    REQUIRE(register_geometry(api, "{'gltfBytes':'Z2xURgIAAAA='}", gltf));
    CHECK(strcmp(stl, box) != 0 && strcmp(gltf, stl) != 0);

    char request[512], needle[256];
    snprintf(request, sizeof request, "{'geometryStorageRefsV0':{'fingerprint':'%s'}}", box);
    OWS_EXPECT(api, GEOMETRY_SERVICE "GetGeometry", request, WK_GRPC_OK,
               "'geometryV0':{'exactGeometry':{'primitiveSet':{'primitives':[{'box':{'size':{'x':0.1,'y':0.2,'z':0.3}}}]}}}");
    OWS_EXPECT(api, GEOMETRY_SERVICE "GetRenderable", request, WK_GRPC_FAILED_PRECONDITION,
               "was registered as primitive_set_v0, and worldkit makes no glTF renderable");
    snprintf(request, sizeof request, "{'geometryStorageRefs':{'exactGeometryRef':'worldkit-geometry:%s'}}", stl);
    OWS_EXPECT(api, GEOMETRY_SERVICE "GetGeometry", request, WK_GRPC_OK,
               "'geometryV0':{'exactGeometry':{'triangleMesh':{'vertices':[0,0,0,1,0,0,0,2,0],'faces':[0,1,2]}}}");
    /* and its glTF as assimp writes it: a glb ("glTF", version 2). */
    OWS_EXPECT(api, GEOMETRY_SERVICE "GetRenderable", request, WK_GRPC_OK, "'renderable':{'glbBytes':'Z2xURgIA");
    snprintf(request, sizeof request,
             "{'geometryStorageRefsV0':{'renderableRef':'worldkit-geometry:%s'},'lodLevel':2}", gltf);
    OWS_EXPECT(api, GEOMETRY_SERVICE "GetRenderable", request, WK_GRPC_OK, "'renderableV0':{'gltfString':'Z2xURgIAAAA='}");
    OWS_EXPECT(api, GEOMETRY_SERVICE "GetRenderable", request, WK_GRPC_OK, "'renderable':{'glbBytes':'Z2xURgIAAAA='}");
    snprintf(request, sizeof request, "{'geometryStorageRefsV0':{'fingerprint':'%s'}}", gltf);
    OWS_EXPECT(api, GEOMETRY_SERVICE "GetGeometry", request, WK_GRPC_OK,
               "'geometryV0':{'renderable':{'gltfString':'Z2xURgIAAAA='}}");

    /* Refused at once, naming what is wrong. */
    static const struct {
        const char *method, *request;
        int status;
        const char *says;
    } refused[] = {
        {GEOMETRY_SERVICE "CreateGeometry", "{}", WK_GRPC_INVALID_ARGUMENT, "data holds no geometry"},
        {GEOMETRY_SERVICE "CreateGeometry", "{'data':{'objData':''}}", WK_GRPC_INVALID_ARGUMENT,
         "data.obj_data is empty"},
        {GEOMETRY_SERVICE "CreateGeometry", "{'data':{'objData':'diAwIDAgMApmIDEgMiAzCg=='}}", WK_GRPC_INVALID_ARGUMENT,
         "CreateGeometry: data.obj_data is not a mesh assimp reads as obj"},
        {GEOMETRY_SERVICE "GetGeometry", "{'geometryStorageRefsV0':{'geometryRef':'cas://elsewhere'}}",
         WK_GRPC_INVALID_ARGUMENT, "name no geometry registered here"},
        {GEOMETRY_SERVICE "GetRenderable", "{'geometryStorageRefsV0':{'fingerprint':'beef'}}", WK_GRPC_NOT_FOUND,
         "GetRenderable: no geometry 'beef' is registered"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
        OWS_EXPECT(api, refused[i].method, refused[i].request, refused[i].status, refused[i].says);

    /* An object made of the registered box is that box; of the STL, a mesh
     * whose uri is the reference; of an unknown registration, refused. */
    snprintf(request, sizeof request,
             "{'worldId':'w','name':'%s','createSingleEntityObject':{'geometryComponent':{'namedGeometries':{"
             "'Intrinsic_Collision':{'namedGeometries':{'shape':{'geometry':{'geoRef':{'exactGeometryRef':"
             "'worldkit-geometry:%s'}}}}}}}}}",
             "registered_box", box);
    OWS_EXPECT(api, "CreateObject", request, WK_GRPC_OK, "'name':'registered_box'");
    snprintf(request, sizeof request,
             "{'worldId':'w','name':'%s','createSingleEntityObject':{'geometryComponent':{'namedGeometries':{"
             "'Intrinsic_Collision':{'geometries':[{'geometryStorageRefs':{'geometryRef':'worldkit-geometry:%s'}}]"
             "}}}}}",
             "registered_stl", stl);
    OWS_EXPECT(api, "CreateObject", request, WK_GRPC_OK, "'name':'registered_stl'");
    wk_buf before = ows_state(api, "w");
    OWS_EXPECT(api, "CreateObject",
               "{'worldId':'w','name':'nothing','createSingleEntityObject':{'geometryComponent':{'namedGeometries':{"
               "'Intrinsic_Collision':{'namedGeometries':{'shape':{'geometry':{'geoRef':{'exactGeometryRef':"
               "'worldkit-geometry:beef'}}}}}}}}}",
               WK_GRPC_NOT_FOUND, "no geometry 'beef' is registered");
    CHECK(ows_unchanged(api, "w", &before));
    /* What GetObject shows: the box inline, the mesh by its reference. */
    OWS_EXPECT(api, "GetObject", "{'worldId':'w','object':{'byName':{'objectName':'registered_box'}},'view':'FULL'}",
               WK_GRPC_OK, "{'box':{'size':{'x':0.1,'y':0.2,'z':0.3}}}");
    snprintf(needle, sizeof needle, "'geoRef':{'exactGeometryRef':'worldkit-geometry:%s'", stl);
    OWS_EXPECT(api, "GetObject", "{'worldId':'w','object':{'byName':{'objectName':'registered_stl'}},'view':'FULL'}",
               WK_GRPC_OK, needle);
    wk_api_free(api);
}

/* A mesh file is read by assimp once, when CreateGeometry registers it:
 * GetGeometry and GetRenderable serve what that read made, as often as
 * they are called, with no read of their own. */
static void geometry_read_once(void)
{
    wk_api *api = table_world();
    REQUIRE(api);
    /* A file of its own (a name in the solid line), so that no other case
     * has read it: "solid once" and the same triangle as A_TRIANGLE_STL. */
    unsigned long before = wk__triangle_mesh_parses();
    char stl[65], request[512];
    REQUIRE(register_geometry(api,
                              "{'stlBytes':'c29saWQgb25jZQpmYWNldCBub3JtYWwgMCAwIDEKb3V0ZXIgbG9vcAp2ZXJ0ZXggMCAwIDAKdmVy"
                              "dGV4IDEgMCAwCnZlcnRleCAwIDIgMAplbmRsb29wCmVuZGZhY2V0CmVuZHNvbGlkIG9uY2UK'}",
                              stl));
    CHECK_INT(wk__triangle_mesh_parses() - before, ==, 1);
    snprintf(request, sizeof request, "{'geometryStorageRefs':{'exactGeometryRef':'worldkit-geometry:%s'}}", stl);
    for (int i = 0; i < 2; i++) {
        OWS_EXPECT(api, GEOMETRY_SERVICE "GetGeometry", request, WK_GRPC_OK,
                   "'triangleMesh':{'vertices':[0,0,0,1,0,0,0,2,0],'faces':[0,1,2]}");
        OWS_EXPECT(api, GEOMETRY_SERVICE "GetRenderable", request, WK_GRPC_OK, "'renderable':{'glbBytes':'Z2xURgIA");
    }
    CHECK_INT(wk__triangle_mesh_parses() - before, ==, 1);
    /* Registering the same file again reads nothing either. */
    char again[65];
    REQUIRE(register_geometry(api,
                              "{'stlBytes':'c29saWQgb25jZQpmYWNldCBub3JtYWwgMCAwIDEKb3V0ZXIgbG9vcAp2ZXJ0ZXggMCAwIDAKdmVy"
                              "dGV4IDEgMCAwCnZlcnRleCAwIDIgMAplbmRsb29wCmVuZGZhY2V0CmVuZHNvbGlkIG9uY2UK'}",
                              again));
    CHECK_STR(again, stl);
    CHECK_INT(wk__triangle_mesh_parses() - before, ==, 1);
    wk_api_free(api);
}

#define INLINE_TETRA                                                                                  \
    "{'inlineGeometry':{'exactGeometry':{'triangleMesh':{'vertices':[0,0,0,1,0,0,0,2,0,0,0,3.25],"      \
    "'faces':[0,1,2,0,1,3,0,2,3,1,2,3]}}}}"

/* The v1 inline geometries GeometryData holds (Intrinsic's C++ client
 * registers meshes so): a triangle mesh is taken like a mesh file (read
 * once, served as given and as a glb, an object's mesh), a v1 primitive
 * set like an older one; what is not a geometry is refused naming the
 * field. */
static void inline_geometries(void)
{
    wk_api *api = table_world();
    REQUIRE(api);
    unsigned long before = wk__triangle_mesh_parses();
    char tetra[65], ball[65], request[1024];
    REQUIRE(register_geometry(api, INLINE_TETRA, tetra));
    REQUIRE(register_geometry(api, "{'primitiveSet':{'primitives':[{'shape':{'sphere':{'radius':0.5}}}]}}", ball));
    CHECK_INT(wk__triangle_mesh_parses() - before, ==, 1);
    snprintf(request, sizeof request, "{'geometryStorageRefs':{'exactGeometryRef':'worldkit-geometry:%s'}}", tetra);
    /* Served as given, in v1 and in the older message, coordinates exact. */
    OWS_EXPECT(api, GEOMETRY_SERVICE "GetGeometry", request, WK_GRPC_OK,
               "'inlineGeometry':{'exactGeometry':{'triangleMesh':{'vertices':[0,0,0,1,0,0,0,2,0,0,0,3.25],"
               "'faces':[0,1,2,0,1,3,0,2,3,1,2,3]}}}");
    OWS_EXPECT(api, GEOMETRY_SERVICE "GetGeometry", request, WK_GRPC_OK,
               "'geometryV0':{'exactGeometry':{'triangleMesh':{'vertices':[0,0,0,1,0,0,0,2,0,0,0,3.25]");
    OWS_EXPECT(api, GEOMETRY_SERVICE "GetRenderable", request, WK_GRPC_OK, "'renderable':{'glbBytes':'Z2xURgIA");
    CHECK_INT(wk__triangle_mesh_parses() - before, ==, 1);
    snprintf(request, sizeof request, "{'geometryStorageRefs':{'exactGeometryRef':'worldkit-geometry:%s'}}", ball);
    OWS_EXPECT(api, GEOMETRY_SERVICE "GetGeometry", request, WK_GRPC_OK,
               "'inlineGeometry':{'exactGeometry':{'primitiveSet':{'primitives':[{'shape':{'sphere':{'radius':0.5}}}]}}}");
    OWS_EXPECT(api, GEOMETRY_SERVICE "GetRenderable", request, WK_GRPC_FAILED_PRECONDITION,
               "was registered as primitive_set, and worldkit makes no glTF renderable");
    /* Objects: the sphere inline, the mesh by its reference. */
    const struct {
        const char *name, *id, *shows;
    } made[] = {{"inline_ball", ball, "{'sphere':{'radius':0.5}}"}, {"inline_tetra", tetra, "'geoRef':{"}};
    for (int i = 0; i < 2; i++) {
        snprintf(request, sizeof request,
                 "{'worldId':'w','name':'%s','createSingleEntityObject':{'geometryComponent':{'namedGeometries':{"
                 "'Intrinsic_Collision':{'namedGeometries':{'shape':{'geometry':{'geoRef':{'exactGeometryRef':"
                 "'worldkit-geometry:%s'}}}}}}}}}",
                 made[i].name, made[i].id);
        OWS_EXPECT(api, "CreateObject", request, WK_GRPC_OK, NULL);
        snprintf(request, sizeof request,
                 "{'worldId':'w','object':{'byName':{'objectName':'%s'}},'view':'FULL'}", made[i].name);
        OWS_EXPECT(api, "GetObject", request, WK_GRPC_OK, made[i].shows);
    }

    static const struct {
        const char *data, *says;
    } refused[] = {
        {"{'inlineGeometry':{}}", "data.inline_geometry holds no exact_geometry (give its primitive_set or triangle_mesh)"},
        {"{'inlineGeometry':{'exactGeometry':{'triangleMesh':{'vertices':[0,0,0,1,0,0,0,2],'faces':[0,1,2]}}}}",
         "data.inline_geometry.exact_geometry.triangle_mesh has 8 vertex coordinates and 3 face indices"},
        {"{'inlineGeometry':{'exactGeometry':{'triangleMesh':{'vertices':[0,0,0,1,0,0,0,2,0],'faces':[0,1,7]}}}}",
         "data.inline_geometry.exact_geometry.triangle_mesh: face 1 names vertex 7, and there are 3"},
        {"{'inlineGeometry':{'exactGeometry':{'triangleMesh':{'vertices':[0,0,0]}}}}",
         "data.inline_geometry.exact_geometry.triangle_mesh holds no triangle"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        snprintf(request, sizeof request, "{'data':%s}", refused[i].data);
        OWS_EXPECT(api, GEOMETRY_SERVICE "CreateGeometry", request, WK_GRPC_INVALID_ARGUMENT, refused[i].says);
    }
    /* A triangle mesh inline in an object's own geometry is not kept there:
     * the refusal says to register it. */
    OWS_EXPECT(api, "CreateObject",
               "{'worldId':'w','name':'loose','createSingleEntityObject':{'geometryComponent':{'namedGeometries':{"
               "'Intrinsic_Collision':{'namedGeometries':{'shape':{'geometry':{'inlineGeometryData':{'exactGeometry':{"
               "'triangleMesh':{'vertices':[0,0,0,1,0,0,0,2,0],'faces':[0,1,2]}}}}}}}}}}}",
               WK_GRPC_INVALID_ARGUMENT, "register a triangle_mesh with GeometryService.CreateGeometry");
    wk_api_free(api);
}

static const wk_test_case cases[] = {
    {"create_object", create_object},
    {"create_from_scene_object", create_from_scene_object},
    {"geometry_service", geometry_service},
    {"geometry_read_once", geometry_read_once},
    {"inline_geometries", inline_geometries},
    {"create_under_filters_and_frames", create_under_filters_and_frames},
    {"delete_object", delete_object},
    {"rename_and_reparent_objects", rename_and_reparent_objects},
    {"object_and_entity_properties", object_and_entity_properties},
    {"frames", frames},
    {"update_transform", update_transform},
    {"update_transform_limit", update_transform_limit},
    {"structure_hash", structure_hash},
};
WK_TEST_MAIN(cases)
