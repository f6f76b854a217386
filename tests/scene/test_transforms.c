/* test_transforms.c — the transform tree: cached world poses agree with the
 * uncached walk after any sequence of changes, a_T_b between any nodes, the
 * rule of UpdateTransform for which node moves, and entity filters. */
#include <stdlib.h>

#include "scene/object_world.h"

static double uniform(unsigned *seed, double lo, double hi)
{
    return lo + (hi - lo) * (double)rand_r(seed) / RAND_MAX;
}

static wk_pose random_pose(unsigned *seed)
{
    return at(uniform(seed, -2, 2), uniform(seed, -2, 2), uniform(seed, -2, 2), uniform(seed, -3, 3),
              uniform(seed, -1.5, 1.5), uniform(seed, -3, 3));
}

static void cache_follows_every_change(void)
{
    wk_scene *s = new_world();
    REQUIRE(s);
    enum { N = 200 };
    wk_entity nodes[N + 1] = {wk_scene_root(s)};
    unsigned seed = 7;
    char name[16];
    for (int i = 1; i <= N; i++) {
        snprintf(name, sizeof name, "n%d", i);
        wk_entity parent = nodes[rand_r(&seed) % i];
        nodes[i] = i % 3 ? object_at(s, name, parent, random_pose(&seed)) : frame_at(s, name, parent, random_pose(&seed));
        REQUIRE(nodes[i]);
    }
    wk_status st;
    for (int round = 0; round < 300; round++) {
        /* Read some poses (filling the cache), then change one thing. */
        for (int k = 0; k < 5; k++)
            wk_scene_pose(s, nodes[rand_r(&seed) % (N + 1)]);
        wk_entity x = nodes[1 + rand_r(&seed) % N];
        if (round % 2)
            CHECK_INT(wk_scene_set_pose(s, x, random_pose(&seed), &st), ==, WK_OK);
        else
            wk_scene_reparent(s, x, nodes[rand_r(&seed) % (N + 1)], &st); /* may be refused: below itself */
        for (int i = 0; i <= N; i++)
            CHECK_POSE_NEAR(wk_scene_pose(s, nodes[i]), wk_scene_world_pose(s, nodes[i]), 1e-9);
    }
    wk_entity a = nodes[17], b = nodes[123];
    CHECK_POSE_NEAR(wk_scene_transform(s, a, b),
                    wk_pose_compose(wk_pose_inverse(wk_scene_world_pose(s, a)), wk_scene_world_pose(s, b)), 1e-9);
    CHECK_INT(wk_scene_set_pose(s, a, (wk_pose){{0, 0, 0}, {2, 0, 0, 0}}, &st), ==, WK_INVALID);
    wk_scene_free(s);
}

static void update_neighbours(void)
{
    wk_scene *s = new_world();
    REQUIRE(s);
    wk_entity table = object_at(s, "table", 0, at(1, 0, 0, 0, 0, 0.3));
    wk_entity cup = object_at(s, "cup", table, at(0, 0, 1, 0, 0, 0));
    wk_entity handle = frame_at(s, "handle", cup, at(0.05, 0, 0, 0, 0, 0));
    REQUIRE(table && cup && handle);
    wk_pose want = at(0.2, -0.1, 0.9, 0, 0, 1);
    wk_status st;
    /* table is cup's parent: cup moves, table stays. */
    wk_pose table_world = wk_scene_pose(s, table);
    CHECK_INT(wk_scene_update_transform(s, table, cup, 0, want, &st), ==, WK_OK);
    CHECK_POSE_NEAR(wk_scene_transform(s, table, cup), want, 1e-12);
    CHECK_POSE_NEAR(wk_scene_pose(s, table), table_world, 1e-12);
    /* The other way round: still cup, the child, moves. */
    CHECK_INT(wk_scene_update_transform(s, cup, table, 0, want, &st), ==, WK_OK);
    CHECK_POSE_NEAR(wk_scene_transform(s, cup, table), want, 1e-12);
    CHECK_POSE_NEAR(wk_scene_pose(s, table), table_world, 1e-12);
    /* The node moved without being named, as the scene reports it. */
    CHECK(wk_scene_transform_child(s, table, cup) == cup);
    CHECK(wk_scene_transform_child(s, cup, table) == cup);
    CHECK(wk_scene_transform_child(s, handle, cup) == handle);
    CHECK(wk_scene_transform_child(s, table, handle) == WK_NULL_ENTITY);
    /* table and handle are not neighbours. */
    CHECK_INT(wk_scene_update_transform(s, table, handle, 0, want, &st), ==, WK_INVALID);
    CHECK(strstr(st.message, "neighbours") != NULL);
    CHECK_INT(wk_scene_update_transform(s, table, cup, 0, (wk_pose){{INFINITY, 0, 0}, {1, 0, 0, 0}}, &st), ==,
              WK_INVALID);
    wk_scene_free(s);
}

static void update_through_an_ancestor(void)
{
    wk_scene *s = new_world();
    REQUIRE(s);
    wk_entity robot = object_at(s, "robot", 0, at(0, 0, 0, 0, 0, 0));
    wk_entity tool = object_at(s, "tool", robot, at(0, 0, 1, 0, 0.5, 0));
    wk_entity tcp = frame_at(s, "tcp", tool, at(0, 0, 0.2, 0, 0, 0));
    wk_entity cell = object_at(s, "cell", 0, at(3, 0, 0, 0, 0, 0));
    wk_entity target = frame_at(s, "target", cell, at(0.5, 0.5, 0.1, 3.14159, 0, 0));
    REQUIRE(robot && tool && tcp && cell && target);
    wk_pose want = at(0, 0, 0.05, 0, 0, 0);
    wk_status st;
    /* Move the robot so that the tcp is 5 cm from the target. */
    wk_pose target_world = wk_scene_pose(s, target);
    CHECK_INT(wk_scene_update_transform(s, target, tcp, robot, want, &st), ==, WK_OK);
    CHECK_POSE_NEAR(wk_scene_transform(s, target, tcp), want, 1e-9);
    CHECK_POSE_NEAR(wk_scene_pose(s, target), target_world, 1e-12);
    CHECK_POSE_NEAR(wk_scene_node_pose(s, tool), at(0, 0, 1, 0, 0.5, 0), 1e-12);
    /* Or the cell, the target's side. */
    wk_pose want2 = at(0.1, 0, 0, 0, 0, 0);
    CHECK_INT(wk_scene_update_transform(s, tcp, target, cell, want2, &st), ==, WK_OK);
    CHECK_POSE_NEAR(wk_scene_transform(s, tcp, target), want2, 1e-9);
    /* An ancestor of both, of neither, or root: refused. */
    CHECK_INT(wk_scene_update_transform(s, tcp, target, wk_scene_root(s), want, &st), ==, WK_INVALID);
    wk_entity other = object_at(s, "other", 0, wk_pose_identity());
    CHECK_INT(wk_scene_update_transform(s, tcp, target, other, want, &st), ==, WK_INVALID);
    CHECK(strstr(st.message, "neither") != NULL);
    wk_entity under_both = object_at(s, "shared", 0, wk_pose_identity());
    REQUIRE(under_both);
    CHECK_INT(wk_scene_reparent(s, robot, under_both, &st), ==, WK_OK);
    CHECK_INT(wk_scene_reparent(s, cell, under_both, &st), ==, WK_OK);
    CHECK_INT(wk_scene_update_transform(s, tcp, target, under_both, want, &st), ==, WK_INVALID);
    CHECK(strstr(st.message, "both") != NULL);
    wk_scene_free(s);
}

static wk_entity add_link(wk_scene *s, wk_entity parent, const char *name)
{
    const wk_scene_types *t = wk_scene_types_of(s);
    wk_pose pose = at(0, 0, 0.3, 0, 0, 0);
    wk_entity e = wk_ecm_create_with(wk_scene_ecm(s), (wk_type[]){t->name, t->parent_pose},
                                     (const void *[]){&name, &pose}, 2);
    if (e)
        wk_ecm_set_parent(wk_scene_ecm(s), e, parent);
    return e;
}

static void entity_filters(void)
{
    wk_scene *s = new_world();
    REQUIRE(s);
    wk_entity arm = object_at(s, "arm", 0, wk_pose_identity());
    wk_entity l1 = add_link(s, arm, "l1"), l2 = add_link(s, l1, "l2");
    REQUIRE(arm && l1 && l2);
    REQUIRE(frame_at(s, "tool_frame", l2, wk_pose_identity()));
    wk_entity e = 0;
    wk_status st;
    CHECK_INT(wk_scene_filter_one(s, arm, NULL, &e, &st), ==, WK_OK);
    CHECK_U64(e, ==, arm);
    CHECK_INT(wk_scene_filter_one(s, arm, &(wk_entity_filter){.final = true}, &e, &st), ==, WK_OK);
    CHECK_U64(e, ==, l2);
    const char *names[] = {"l1"};
    CHECK_INT(wk_scene_filter_one(s, arm, &(wk_entity_filter){.names = names, .name_count = 1}, &e, &st), ==, WK_OK);
    CHECK_U64(e, ==, l1);
    char id[WK_ID_MAX];
    wk_scene_entity_id(s, l2, id);
    const char *ids[] = {id};
    CHECK_INT(wk_scene_filter_one(s, arm, &(wk_entity_filter){.ids = ids, .id_count = 1}, &e, &st), ==, WK_OK);
    CHECK_U64(e, ==, l2);
    const char *missing[] = {"l9"};
    CHECK_INT(wk_scene_filter_one(s, arm, &(wk_entity_filter){.names = missing, .name_count = 1}, &e, &st), ==,
              WK_NOT_FOUND);
    CHECK(strstr(st.message, "l9") != NULL);
    wk_entity_list list = {0};
    CHECK_INT(wk_scene_filter(s, arm, &(wk_entity_filter){.all = true}, &list, &st), ==, WK_OK);
    CHECK_INT(list.count, ==, 4);
    wk_entity_list_free(&list);
    CHECK_INT(wk_scene_filter_one(s, arm, &(wk_entity_filter){.base = true, .final = true}, &e, &st), ==, WK_INVALID);
    /* A second leaf: no unique final entity. */
    REQUIRE(add_link(s, l1, "l3"));
    CHECK_INT(wk_scene_filter_one(s, arm, &(wk_entity_filter){.final = true}, &e, &st), ==, WK_INVALID);
    CHECK(strstr(st.message, "2 final") != NULL);
    wk_scene_free(s);
}

/* An entity of kind under parent, posed like add_link's. */
static wk_entity add_kind(wk_scene *s, wk_entity parent, const char *name, wk_node_kind kind)
{
    wk_entity e = add_link(s, parent, name);
    uint8_t k = (uint8_t)kind;
    if (e && wk_ecm_set(wk_scene_ecm(s), e, wk_scene_types_of(s)->kind, &k) < 0)
        return WK_NULL_ENTITY;
    return e;
}

/* The final entity is the end of the chain of links: collisions, visuals,
 * sensors and frames hanging from links do not count, joints between links
 * are passed through, and a joint joining links side by side (a model's
 * fixed joint) makes its parent link no end. */
static void final_entity_is_the_end_of_the_chain(void)
{
    wk_scene *s = new_world();
    REQUIRE(s);
    wk_entity arm = object_at(s, "arm", 0, wk_pose_identity());
    wk_entity base = add_kind(s, arm, "base", WK_NODE_LINK);
    wk_entity elbow = add_kind(s, base, "elbow", WK_NODE_JOINT);
    wk_entity forearm = add_kind(s, elbow, "forearm", WK_NODE_LINK);
    REQUIRE(base && elbow && forearm);
    REQUIRE(add_kind(s, base, "base_collision", WK_NODE_COLLISION) && add_kind(s, base, "base_visual", WK_NODE_VISUAL));
    REQUIRE(add_kind(s, forearm, "forearm_collision", WK_NODE_COLLISION));
    REQUIRE(add_kind(s, forearm, "camera", WK_NODE_SENSOR));
    REQUIRE(frame_at(s, "tool", forearm, wk_pose_identity()));
    wk_entity e = 0;
    wk_status st;
    CHECK_INT(wk_scene_filter_one(s, arm, &(wk_entity_filter){.final = true}, &e, &st), ==, WK_OK);
    CHECK_U64(e, ==, forearm);

    /* Links side by side under the model, joined by a joint beside them. */
    wk_entity crate = object_at(s, "crate", 0, wk_pose_identity());
    wk_entity body = add_kind(s, crate, "body", WK_NODE_LINK), lid = add_kind(s, crate, "lid", WK_NODE_LINK);
    wk_entity hinge = add_kind(s, crate, "hinge", WK_NODE_JOINT);
    REQUIRE(body && lid && hinge && add_kind(s, body, "body_collision", WK_NODE_COLLISION));
    CHECK_INT(wk_scene_filter_one(s, crate, &(wk_entity_filter){.final = true}, &e, &st), ==, WK_INVALID);
    CHECK(strstr(st.message, "2 final") != NULL);
    REQUIRE_INT(wk_ecm_set(wk_scene_ecm(s), hinge, wk_scene_types_of(s)->joint_links,
                           &(wk_scene_joint_links){.parent = body, .child = lid}),
                >=, 0);
    CHECK_INT(wk_scene_filter_one(s, crate, &(wk_entity_filter){.final = true}, &e, &st), ==, WK_OK);
    CHECK_U64(e, ==, lid);
    wk_scene_free(s);
}

/* A refusal names an object as clients know it, by its object name, not by
 * the name of its base entity. */
static void refusals_name_objects(void)
{
    wk_scene *s = new_world();
    REQUIRE(s);
    wk_entity table = WK_NULL_ENTITY;
    wk_status st;
    CHECK_INT(wk_scene_create_object(s, &(wk_object_desc){.name = "table", .entity_name = "table_body",
                                                          .pose = wk_pose_identity()},
                                     &table, &st),
              ==, WK_OK);
    wk_entity cup = object_at(s, "cup", table, wk_pose_identity());
    wk_entity handle = frame_at(s, "handle", cup, wk_pose_identity());
    REQUIRE(table && cup && handle);
    CHECK_INT(wk_scene_update_transform(s, table, handle, 0, wk_pose_identity(), &st), ==, WK_INVALID);
    CHECK(strstr(st.message, "'table' and 'handle'") != NULL);
    CHECK_INT(wk_scene_reparent(s, table, cup, &st), ==, WK_INVALID);
    CHECK(strstr(st.message, "'table' cannot be attached below itself") != NULL);
    CHECK(strstr(st.message, "table_body") == NULL);
    CHECK_INT(wk_scene_set_pose(s, table, (wk_pose){{NAN, 0, 0}, {1, 0, 0, 0}}, &st), ==, WK_INVALID);
    CHECK(strstr(st.message, "pose of 'table'") != NULL);
    wk_scene_free(s);
}

/* Resolves id (object or frame) and reads its transform from root, as
 * GetTransform does; WK_NULL_ENTITY when the id does not resolve. */
static wk_entity transform_by_id(const wk_scene *s, const char *id)
{
    wk_entity e = WK_NULL_ENTITY, pair[2];
    wk_status st;
    int rc = wk_scene_find_node(s, &(wk_ref){.id = id}, &e, &st);
    /* Resolved with another node, either first or second, it must resolve
     * the same. */
    const wk_ref refs[] = {{.id = id}, {.id = "root"}, {.id = id}};
    CHECK_INT(wk_scene_find_nodes(s, refs, 2, pair, &st), ==, rc);
    CHECK(rc || (pair[0] == e && pair[1] == wk_scene_root(s)));
    CHECK_INT(wk_scene_find_nodes(s, refs + 1, 2, pair, &st), ==, rc);
    CHECK(rc || (pair[0] == wk_scene_root(s) && pair[1] == e));
    if (rc)
        return WK_NULL_ENTITY;
    CHECK_POSE_NEAR(wk_scene_transform(s, wk_scene_root(s), e), wk_scene_world_pose(s, e), 1e-12);
    return e;
}

/* A world with an object and a frame, each read by id twice (the second
 * time with its pose cached). */
typedef struct id_world {
    wk_scene *s;
    wk_entity object, frame;
    char object_id[WK_ID_MAX], frame_id[WK_ID_MAX];
} id_world;

static bool id_world_init(id_world *w)
{
    w->s = new_world();
    w->object = w->s ? object_at(w->s, "cup", 0, at(1, 0, 0, 0, 0, 0)) : WK_NULL_ENTITY;
    w->frame = w->s ? frame_at(w->s, "mark", 0, at(0, 2, 0, 0, 0, 1)) : WK_NULL_ENTITY;
    if (!w->object || !w->frame)
        return false;
    wk_scene_object_id(w->s, w->object, w->object_id);
    wk_scene_frame_id(w->s, w->frame, w->frame_id);
    for (int twice = 0; twice < 2; twice++) {
        CHECK(transform_by_id(w->s, w->object_id) == w->object);
        CHECK(transform_by_id(w->s, w->frame_id) == w->frame);
    }
    return true;
}

/* Nothing cached per entity slot (a pose, say) may answer a lookup by id
 * for a gone entity: its id must stop resolving, also once a new entity
 * holds its slot, and an object's id must not resolve as a frame's nor the
 * other way round. */
static void deleted_ids_stop_resolving(void)
{
    id_world w;
    REQUIRE(id_world_init(&w));
    char object_as_frame[WK_ID_MAX], frame_as_object[WK_ID_MAX];
    wk_scene_frame_id(w.s, w.object, object_as_frame);
    wk_scene_object_id(w.s, w.frame, frame_as_object);
    const char *wrong[] = {object_as_frame, frame_as_object, w.object_id, w.frame_id};
    CHECK(transform_by_id(w.s, object_as_frame) == WK_NULL_ENTITY);
    CHECK(transform_by_id(w.s, frame_as_object) == WK_NULL_ENTITY);
    wk_status st;
    CHECK_INT(wk_scene_delete_object(w.s, w.object, false, &st), ==, WK_OK);
    CHECK_INT(wk_scene_delete_frame(w.s, w.frame, false, &st), ==, WK_OK);
    /* New nodes until both slots are taken again, each read by id twice
     * (its pose cached), the old ids asked after every one. */
    bool object_slot = false, frame_slot = false;
    char name[16], id[WK_ID_MAX];
    for (int i = 0; i < 1000 && !(object_slot && frame_slot); i++) {
        for (size_t k = 0; k < sizeof wrong / sizeof *wrong; k++)
            CHECK(transform_by_id(w.s, wrong[k]) == WK_NULL_ENTITY);
        snprintf(name, sizeof name, "n%d", i);
        wk_entity e = i % 2 ? frame_at(w.s, name, 0, at(i, 0, 0, 0, 0, 0)) : object_at(w.s, name, 0, at(0, i, 0, 0, 0, 0));
        REQUIRE(e);
        (i % 2 ? wk_scene_frame_id : wk_scene_object_id)(w.s, e, id);
        CHECK(transform_by_id(w.s, id) == e);
        CHECK(transform_by_id(w.s, id) == e);
        object_slot |= (uint32_t)e == (uint32_t)w.object;
        frame_slot |= (uint32_t)e == (uint32_t)w.frame;
    }
    CHECK(object_slot && frame_slot);
    for (size_t k = 0; k < sizeof wrong / sizeof *wrong; k++)
        CHECK(transform_by_id(w.s, wrong[k]) == WK_NULL_ENTITY);
    wk_scene_free(w.s);
}

/* Several references resolved together: by id and by names, each as
 * wk_scene_find_node resolves it; the first that does not resolve fails
 * the call and is the one named. */
static void find_nodes_in_order(void)
{
    wk_scene *s = new_world();
    REQUIRE(s);
    wk_entity cup = object_at(s, "cup", 0, at(1, 0, 0, 0, 0, 0));
    wk_entity rim = frame_at(s, "rim", cup, at(0, 0, 1, 0, 0, 0));
    REQUIRE(cup && rim);
    char cup_id[WK_ID_MAX], rim_id[WK_ID_MAX];
    wk_scene_object_id(s, cup, cup_id);
    wk_scene_frame_id(s, rim, rim_id);
    const wk_ref refs[] = {{.id = rim_id},        {.object_name = "cup"}, {.id = "root"},
                           {.id = cup_id},        {.object_name = "cup", .frame_name = "rim"},
                           {.id = "obj_12345678"}, {.object_name = "mug"}, {0}};
    wk_entity want[] = {rim, cup, wk_scene_root(s), cup, rim}, got[8];
    wk_status st;
    CHECK_INT(wk_scene_find_nodes(s, refs, 5, got, &st), ==, WK_OK);
    for (size_t i = 0; i < 5; i++)
        CHECK_U64(got[i], ==, want[i]);
    CHECK_INT(wk_scene_find_nodes(s, refs, 7, got, &st), ==, WK_NOT_FOUND);
    CHECK(strstr(st.message, "obj_12345678") != NULL);
    CHECK_INT(wk_scene_find_nodes(s, refs + 6, 2, got, &st), ==, WK_NOT_FOUND);
    CHECK(strstr(st.message, "mug") != NULL);
    CHECK_INT(wk_scene_find_nodes(s, refs + 7, 1, got, &st), ==, WK_INVALID);
    /* An object's id does not name a frame, nor a frame's an object. */
    char swapped[WK_ID_MAX];
    wk_scene_frame_id(s, cup, swapped);
    CHECK_INT(wk_scene_find_nodes(s, (wk_ref[]){{.id = cup_id}, {.id = swapped}}, 2, got, &st), ==, WK_NOT_FOUND);
    CHECK(strstr(st.message, swapped) != NULL);
    wk_scene_free(s);
}

/* The same when the ECM itself removes the entity or makes a frame no frame
 * (as a sync or a level unload may), which the scene does not hear of. */
static void ids_follow_the_ecm(void)
{
    id_world w;
    REQUIRE(id_world_init(&w));
    CHECK_INT(wk_ecm_remove(wk_scene_ecm(w.s), w.frame, wk_scene_types_of(w.s)->frame), ==, 1);
    CHECK(transform_by_id(w.s, w.frame_id) == WK_NULL_ENTITY);
    CHECK_INT(wk_ecm_destroy(wk_scene_ecm(w.s), w.object, true), ==, WK_OK);
    CHECK(transform_by_id(w.s, w.object_id) == WK_NULL_ENTITY);
    wk_scene_free(w.s);
}

static const wk_test_case cases[] = {
    {"cache_follows_every_change", cache_follows_every_change},
    {"update_neighbours", update_neighbours},
    {"refusals_name_objects", refusals_name_objects},
    {"update_through_an_ancestor", update_through_an_ancestor},
    {"entity_filters", entity_filters},
    {"final_entity_is_the_end_of_the_chain", final_entity_is_the_end_of_the_chain},
    {"find_nodes_in_order", find_nodes_in_order},
    {"deleted_ids_stop_resolving", deleted_ids_stop_resolving},
    {"ids_follow_the_ecm", ids_follow_the_ecm},
};
WK_TEST_MAIN(cases)
