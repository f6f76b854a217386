/* test_compare_sync.c — CompareWorlds by id and by name, with the words
 * describing each modification, and SyncObject with every failure the
 * seed lists; plus all-or-nothing batches. */
#include <stdlib.h>

#include "scene/object_world.h"
#include "worldkit/wk_formats.h"
#include "worldkit/wk_store.h"

/* base: table { cup, frame edge }, shelf, global frame home */
static wk_scene *base_world(void)
{
    wk_scene *s = new_world();
    if (!s)
        return NULL;
    wk_entity table = object_at(s, "table", 0, at(1, 0, 0, 0, 0, 0));
    object_at(s, "cup", table, at(0, 0, 0.8, 0, 0, 0));
    frame_at(s, "edge", table, at(0.5, 0, 0.8, 0, 0, 0));
    object_at(s, "shelf", 0, at(-2, 0, 0, 0, 0, 0));
    frame_at(s, "home", 0, wk_pose_identity());
    return s;
}

static bool listed(const wk_scene *s, const wk_entity_list *list, const char *name)
{
    for (size_t i = 0; i < list->count; i++) {
        const wk_object_info *o = wk_scene_object_info(s, list->items[i]);
        const char *n = o ? o->name : wk_scene_name(s, list->items[i]);
        if (n && strcmp(n, name) == 0)
            return true;
    }
    return false;
}

static void compare_by_id(void)
{
    wk_scene *a = base_world();
    REQUIRE(a);
    wk_scene *b = wk_scene_clone(a);
    REQUIRE(b);
    wk_world_diff d;
    wk_status st;
    REQUIRE_INT(wk_scene_compare(a, b, WK_COMPARE_BY_ID, &d, &st), ==, WK_OK);
    CHECK_INT(d.added_objects.count + d.removed_objects.count + d.modified_object_count, ==, 0);
    CHECK_INT(d.added_frames.count + d.removed_frames.count + d.modified_frame_count, ==, 0);
    wk_world_diff_free(&d);

    wk_entity cup = find_object(b, "cup"), table = find_object(b, "table"), shelf = find_object(b, "shelf");
    CHECK_INT(wk_scene_set_pose(b, cup, at(0.1, 0, 0.8, 0, 0, 0), &st), ==, WK_OK);
    CHECK_INT(wk_scene_rename(b, shelf, "rack", false, &st), ==, WK_OK);
    CHECK_INT(wk_scene_delete_frame(b, find_frame(b, "table", "edge"), false, &st), ==, WK_OK);
    REQUIRE(frame_at(b, "corner", table, wk_pose_identity()));
    REQUIRE(object_at(b, "lamp", shelf, wk_pose_identity()));
    CHECK_INT(wk_scene_set_pose(b, find_frame(b, "root", "home"), at(0, 1, 0, 0, 0, 0), &st), ==, WK_OK);
    REQUIRE_INT(wk_scene_compare(a, b, WK_COMPARE_BY_ID, &d, &st), ==, WK_OK);
    CHECK_INT(d.added_objects.count, ==, 1);
    CHECK(listed(b, &d.added_objects, "lamp"));
    CHECK_INT(d.removed_objects.count, ==, 0);
    REQUIRE_INT(d.modified_object_count, ==, 2);
    for (size_t i = 0; i < d.modified_object_count; i++) {
        const char *what = d.modified_objects[i].what;
        if (d.modified_objects[i].changed == cup)
            CHECK(strstr(what, "ParentPose changed") != NULL);
        else
            CHECK(strstr(what, "renamed 'shelf' to 'rack'") != NULL);
    }
    CHECK(listed(b, &d.added_frames, "corner"));
    CHECK(listed(a, &d.removed_frames, "edge"));
    REQUIRE_INT(d.modified_frame_count, ==, 1);
    CHECK(strstr(d.modified_frames[0].what, "ParentPose") != NULL);
    wk_world_diff_free(&d);
    wk_scene_free(a);
    wk_scene_free(b);
}

static void compare_by_name(void)
{
    /* Built twice, separately: different ids, same names. */
    wk_scene *a = base_world(), *b = new_world();
    REQUIRE(a && b);
    object_at(b, "filler", 0, wk_pose_identity()); /* shifts every id */
    wk_status st;
    CHECK_INT(wk_scene_delete_object(b, find_object(b, "filler"), false, &st), ==, WK_OK);
    wk_entity table = object_at(b, "table", 0, at(1, 0, 0, 0, 0, 0));
    object_at(b, "cup", table, at(0, 0, 0.9, 0, 0, 0)); /* moved up */
    frame_at(b, "edge", table, at(0.5, 0, 0.8, 0, 0, 0));
    wk_entity rack = object_at(b, "rack", 0, at(-2, 0, 0, 0, 0, 0)); /* shelf renamed: a new path */
    object_at(b, "vase", rack, wk_pose_identity());
    frame_at(b, "home", 0, wk_pose_identity());
    wk_world_diff d;
    REQUIRE_INT(wk_scene_compare(a, b, WK_COMPARE_BY_NAME, &d, &st), ==, WK_OK);
    CHECK_INT(d.removed_objects.count, ==, 1);
    CHECK(listed(a, &d.removed_objects, "shelf"));
    CHECK_INT(d.added_objects.count, ==, 2); /* rack and, below it, vase */
    CHECK(listed(b, &d.added_objects, "vase"));
    REQUIRE_INT(d.modified_object_count, ==, 1);
    CHECK(strstr(d.modified_objects[0].what, "ParentPose changed") != NULL);
    CHECK_INT(d.modified_frame_count, ==, 0);
    /* By id the same worlds look entirely different. */
    wk_world_diff by_id;
    REQUIRE_INT(wk_scene_compare(a, b, WK_COMPARE_BY_ID, &by_id, &st), ==, WK_OK);
    CHECK(listed(a, &by_id.removed_objects, "table"));
    CHECK(listed(b, &by_id.added_objects, "table"));
    wk_world_diff_free(&by_id);
    wk_world_diff_free(&d);
    wk_scene_free(a);
    wk_scene_free(b);
}

/* The name of a listed object or frame. */
static const char *node_name(const wk_scene *s, wk_entity e)
{
    const wk_object_info *o = wk_scene_object_info(s, e);
    const char *n = o ? o->name : wk_scene_name(s, e);
    return n ? n : "?";
}

/* A formatted line in its own allocation. */
static char *line_of(const char *label, const char *name, const char *what)
{
    size_t len = strlen(label) + strlen(name) + (what ? strlen(what) + 2 : 0) + 2;
    char *line = malloc(len);
    if (!line)
        abort();
    snprintf(line, len, "%s %s%s%s", label, name, what ? ": " : "", what ? what : "");
    return line;
}

static int by_line(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

/* The whole diff as sorted lines, "<list> <name>[: <what>]", one string:
 * the same for two diffs that say the same in another order. */
static char *dump(const wk_scene *a, const wk_scene *b, const wk_world_diff *d)
{
    size_t n = d->added_objects.count + d->removed_objects.count + d->added_frames.count + d->removed_frames.count +
               d->modified_object_count + d->modified_frame_count;
    char **lines = calloc(n + 1, sizeof *lines);
    size_t k = 0, total = 1;
    const struct {
        const char *label;
        const wk_entity_list *list;
        const wk_scene *s;
    } lists[] = {{"added_object", &d->added_objects, b},
                 {"removed_object", &d->removed_objects, a},
                 {"added_frame", &d->added_frames, b},
                 {"removed_frame", &d->removed_frames, a}};
    for (size_t l = 0; l < 4; l++)
        for (size_t i = 0; i < lists[l].list->count; i++)
            lines[k++] = line_of(lists[l].label, node_name(lists[l].s, lists[l].list->items[i]), NULL);
    for (size_t i = 0; i < d->modified_object_count; i++)
        lines[k++] = line_of("modified_object", node_name(b, d->modified_objects[i].changed), d->modified_objects[i].what);
    for (size_t i = 0; i < d->modified_frame_count; i++)
        lines[k++] = line_of("modified_frame", node_name(b, d->modified_frames[i].changed), d->modified_frames[i].what);
    qsort(lines, n, sizeof *lines, by_line);
    for (size_t i = 0; i < n; i++)
        total += strlen(lines[i]) + 1;
    char *out = calloc(total, 1);
    for (size_t i = 0; i < n; i++) {
        strcat(out, lines[i]);
        strcat(out, "\n");
        free(lines[i]);
    }
    free(lines);
    return out;
}

/* Compares base with changed by id and checks the sorted dump. */
static void check_by_id(const wk_scene *a, const wk_scene *b, const char *want)
{
    wk_world_diff d;
    wk_status st;
    if (!CHECK_INT(wk_scene_compare(a, b, WK_COMPARE_BY_ID, &d, &st), ==, WK_OK))
        return;
    char *got = dump(a, b, &d);
    CHECK_STR(got, want);
    free(got);
    wk_world_diff_free(&d);
}

/* An entity of an object's own, beside its base: made through the ECM. */
static wk_entity extra_entity(wk_scene *s, wk_entity parent, const char *name)
{
    const wk_scene_types *t = wk_scene_types_of(s);
    wk_pose pose = wk_pose_identity();
    uint8_t kind = WK_NODE_LINK;
    wk_entity e = wk_ecm_create_with(wk_scene_ecm(s), (wk_type[]){t->name, t->kind, t->parent_pose},
                                     (const void *[]){&name, &kind, &pose}, 3);
    if (!e || wk_ecm_set_parent(wk_scene_ecm(s), e, parent) || wk_scene_refresh(s))
        return WK_NULL_ENTITY;
    return e;
}

/* An entity moved from one object to another changes both; an object's base
 * that stops being one makes a removed object and an entity more for its
 * parent object. */
static void compare_entity_moved_between_objects(void)
{
    wk_scene *a = base_world();
    REQUIRE(a);
    wk_entity leg = extra_entity(a, find_object(a, "table"), "leg");
    REQUIRE(leg);
    wk_scene *b = wk_scene_clone(a);
    REQUIRE(b);
    REQUIRE_INT(wk_ecm_set_parent(wk_scene_ecm(b), leg, find_object(b, "shelf")), ==, WK_OK);
    REQUIRE_INT(wk_scene_refresh(b), ==, WK_OK);
    check_by_id(a, b,
                "modified_object shelf: 1 entity added\n"
                "modified_object table: 1 entity removed\n");
    /* And back: the same in the other direction. */
    check_by_id(b, a,
                "modified_object shelf: 1 entity removed\n"
                "modified_object table: 1 entity added\n");

    wk_scene_free(b);
    b = wk_scene_clone(a);
    REQUIRE(b);
    wk_entity cup = find_object(b, "cup");
    REQUIRE_INT(wk_ecm_remove(wk_scene_ecm(b), cup, wk_scene_types_of(b)->object), ==, 1);
    REQUIRE_INT(wk_scene_refresh(b), ==, WK_OK);
    check_by_id(a, b,
                "modified_object table: 1 entity added\n"
                "removed_object cup\n");
    wk_scene_free(a);
    wk_scene_free(b);
}

/* A frame moved to another object leaves the first (with the frames
 * attached to it) and is added to the second; an object moved is attached
 * elsewhere and posed anew relative to its new parent. */
static void compare_frame_and_object_moved(void)
{
    wk_scene *a = base_world();
    REQUIRE(a);
    wk_entity edge = find_frame(a, "table", "edge");
    REQUIRE(frame_at(a, "tip", edge, wk_pose_identity()));
    wk_scene *b = wk_scene_clone(a);
    REQUIRE(b);
    wk_status st;
    CHECK_INT(wk_scene_reparent(b, edge, find_object(b, "shelf"), &st), ==, WK_OK);
    check_by_id(a, b,
                "added_frame edge\n"
                "added_frame tip\n"
                "removed_frame edge\n"
                "removed_frame tip\n");
    CHECK_INT(wk_scene_reparent(b, find_object(b, "cup"), find_object(b, "shelf"), &st), ==, WK_OK);
    check_by_id(a, b,
                "added_frame edge\n"
                "added_frame tip\n"
                "modified_object cup: attached to 'shelf' instead of 'table'; entity 'cup': ParentPose changed\n"
                "removed_frame edge\n"
                "removed_frame tip\n");
    /* A frame moved under another frame of its own object is modified. */
    wk_scene_free(b);
    b = wk_scene_clone(a);
    REQUIRE(b);
    wk_entity corner = frame_at(a, "corner", find_object(a, "table"), wk_pose_identity());
    REQUIRE(corner && frame_at(b, "corner", find_object(b, "table"), wk_pose_identity()) == corner);
    CHECK_INT(wk_scene_reparent(b, find_frame(b, "table", "tip"), corner, &st), ==, WK_OK);
    check_by_id(a, b, "modified_frame tip: attached to 'corner' instead of 'edge'; frame: ParentPose changed\n");
    wk_scene_free(a);
    wk_scene_free(b);
}

/* Moving a joint of a kinematic object changes the joint's entity, which
 * makes the object modified; objects attached to its links are not. */
static void compare_kinematic_joint_moved(void)
{
    wk_scene *a = new_world();
    REQUIRE(a);
    const wk_joint_desc joints[] = {
        {.name = "shoulder", .link = "upper", .parent = -1, .motion = WK_JOINT_MOTION_REVOLUTE},
        {.name = "slide", .link = "hand", .parent = 0, .motion = WK_JOINT_MOTION_PRISMATIC, .axis = {1, 0, 0}},
    };
    wk_entity arm;
    wk_status st;
    REQUIRE_INT(wk_scene_create_kinematic_object(a, &(wk_kinematic_object_desc){.name = "arm", .joints = joints,
                                                                                  .joint_count = 2},
                                                 &arm, &st),
                ==, WK_OK);
    wk_entity hand = wk_scene_child(a, wk_scene_child(a, wk_scene_child(a, wk_scene_child(a, arm, "shoulder"), "upper"),
                                                      "slide"),
                                    "hand");
    REQUIRE(hand);
    REQUIRE(object_at(a, "cup", hand, wk_pose_identity()));
    wk_scene *b = wk_scene_clone(a);
    REQUIRE(b);
    const char *slide[] = {"slide"};
    CHECK_INT(wk_scene_set_joint_positions(b, arm, slide, (double[]){0.25}, 1, &st), ==, WK_OK);
    wk_world_diff d;
    REQUIRE_INT(wk_scene_compare(a, b, WK_COMPARE_BY_ID, &d, &st), ==, WK_OK);
    CHECK_INT(d.added_objects.count + d.removed_objects.count + d.modified_frame_count, ==, 0);
    REQUIRE_INT(d.modified_object_count, ==, 1);
    CHECK_U64(d.modified_objects[0].changed, ==, arm);
    CHECK(strstr(d.modified_objects[0].what, "entity 'slide'") != NULL);
    CHECK(strstr(d.modified_objects[0].what, "entity 'shoulder'") == NULL);
    wk_world_diff_free(&d);
    wk_scene_free(a);
    wk_scene_free(b);
}

/* A subtree taken out from under the root entity is no longer in the object
 * world: removed, child objects and frames too. */
static void compare_subtree_detached(void)
{
    wk_scene *a = base_world();
    REQUIRE(a);
    wk_scene *b = wk_scene_clone(a);
    REQUIRE(b);
    REQUIRE_INT(wk_ecm_set_parent(wk_scene_ecm(b), find_object(b, "table"), WK_NULL_ENTITY), ==, WK_OK);
    REQUIRE_INT(wk_scene_refresh(b), ==, WK_OK);
    check_by_id(a, b,
                "removed_frame edge\n"
                "removed_object cup\n"
                "removed_object table\n");
    check_by_id(b, a,
                "added_frame edge\n"
                "added_object cup\n"
                "added_object table\n");
    wk_scene_free(a);
    wk_scene_free(b);
}

/* Worlds branched by a clone and changed without renames or moves say the
 * same compared by id and by name: random changes checked both ways. */
static void compare_by_id_agrees_with_by_name(void)
{
    for (unsigned seed = 1; seed <= 8; seed++) {
        wk_scene *a = new_world();
        REQUIRE(a);
        wk_entity nodes[200];
        size_t n = 1;
        nodes[0] = wk_scene_root(a);
        unsigned state = seed;
        char name[32];
        for (; n < 120; n++) {
            state = state * 1103515245u + 12345u;
            wk_entity parent = nodes[(state >> 8) % n];
            snprintf(name, sizeof name, "n%zu", n);
            wk_pose pose = at((double)(state % 7), 0, 0, 0, 0, 0);
            nodes[n] = n % 3 ? object_at(a, name, parent, pose) : frame_at(a, name, parent, pose);
            REQUIRE(nodes[n]);
        }
        wk_scene *b = wk_scene_clone(a);
        REQUIRE(b);
        wk_status st;
        for (size_t k = 0; k < 30; k++) {
            state = state * 1103515245u + 12345u;
            wk_entity e = nodes[1 + (state >> 8) % (n - 1)];
            if (!wk_ecm_exists(wk_scene_ecm(b), e))
                continue;
            snprintf(name, sizeof name, "new%u_%zu", seed, k);
            switch ((state >> 4) % 5) {
            case 0:
                wk_scene_set_pose(b, e, at(0, (double)k, 0, 0, 0, 0), &st);
                break;
            case 1:
                object_at(b, name, e, wk_pose_identity());
                break;
            case 2:
                frame_at(b, name, e, wk_pose_identity());
                break;
            case 3:
                if (wk_scene_is_object(b, e))
                    wk_scene_delete_object(b, e, true, &st);
                else
                    wk_scene_delete_frame(b, e, true, &st);
                break;
            case 4:
                if (wk_scene_is_frame(b, e))
                    wk_scene_set_attachment_frame(b, e, true, &st);
                else
                    extra_entity(b, e, name);
                break;
            }
        }
        wk_world_diff by_id, by_name;
        REQUIRE_INT(wk_scene_compare(a, b, WK_COMPARE_BY_ID, &by_id, &st), ==, WK_OK);
        REQUIRE_INT(wk_scene_compare(a, b, WK_COMPARE_BY_NAME, &by_name, &st), ==, WK_OK);
        char *x = dump(a, b, &by_id), *y = dump(a, b, &by_name);
        CHECK(strlen(x) > 100);
        CHECK_STR(x, y);
        free(x);
        free(y);
        wk_world_diff_free(&by_id);
        wk_world_diff_free(&by_name);
        wk_scene_free(a);
        wk_scene_free(b);
    }
}

static bool same_state(wk_scene *a, wk_scene *b)
{
    wk_status why;
    bool same = wk_ecm_equal(wk_scene_ecm(a), wk_scene_ecm(b), &why);
    if (!same)
        fprintf(stderr, "differ: %s\n", why.message);
    return same;
}

static void sync_objects(void)
{
    wk_scene *from = base_world();
    REQUIRE(from);
    wk_scene *to = wk_scene_clone(from);
    REQUIRE(to);
    wk_status st;
    /* Changed in from: moved, a frame added, an entity renamed. */
    wk_entity table = find_object(from, "table");
    CHECK_INT(wk_scene_set_pose(from, table, at(3, 3, 0, 0, 0, 1), &st), ==, WK_OK);
    wk_entity grip = frame_at(from, "grip", table, wk_pose_identity());
    REQUIRE(grip);
    CHECK_INT(wk_scene_delete_frame(from, find_frame(from, "table", "edge"), false, &st), ==, WK_OK);
    CHECK_INT(wk_scene_sync_object(to, from, &(wk_ref){.object_name = "table"}, &st), ==, WK_OK);
    CHECK(same_state(from, to));
    CHECK_U64(find_frame(to, "table", "grip"), ==, grip);
    CHECK_U64(find_frame(to, "table", "edge"), ==, WK_NULL_ENTITY);
    CHECK_POSE_NEAR(wk_scene_pose(to, find_object(to, "cup")), wk_scene_pose(from, find_object(from, "cup")), 1e-12);

    /* New in from: created in to, same id. */
    wk_entity lamp = object_at(from, "lamp", find_object(from, "shelf"), wk_pose_identity());
    char id[WK_ID_MAX];
    wk_scene_object_id(from, lamp, id);
    CHECK_INT(wk_scene_sync_object(to, from, &(wk_ref){.id = id}, &st), ==, WK_OK);
    CHECK_U64(find_object(to, "lamp"), ==, lamp);
    /* Gone from from: gone from to. */
    CHECK_INT(wk_scene_delete_object(from, lamp, false, &st), ==, WK_OK);
    CHECK_INT(wk_scene_sync_object(to, from, &(wk_ref){.id = id}, &st), ==, WK_OK);
    CHECK_U64(find_object(to, "lamp"), ==, WK_NULL_ENTITY);
    CHECK(same_state(from, to));
    CHECK_INT(wk_scene_sync_object(to, from, &(wk_ref){.id = id}, &st), ==, WK_NOT_FOUND);
    wk_scene_free(from);
    wk_scene_free(to);
}

/* Clones keep ids, so the collision rules of a clone name the same
 * entities. A sync that removes an entity from the destination drops the
 * rules' references to it (a rule left with an empty side goes) and keeps
 * the others. */
static void sync_drops_stale_collision_refs(void)
{
    wk_scene *from = base_world();
    REQUIRE(from);
    wk_scene *to = wk_scene_clone(from);
    REQUIRE(to);
    wk_status st;
    wk_entity table = find_object(to, "table"), cup = find_object(to, "cup"), handle;
    CHECK_U64(table, ==, find_object(from, "table"));
    REQUIRE_INT(wk_scene_add_entity(to, &(wk_entity_desc){.name = "handle", .parent = table}, &handle, &st), ==, WK_OK);
    const wk_collision_ref h = {handle, false}, t = {table, true}, c = {cup, true};
    const wk_collision_rule rules[] = {
        {&h, 1, &c, 1, WK_COLLISION_EXCLUDE, 0},
        {&t, 1, &c, 1, WK_COLLISION_MARGIN, 0.1},
    };
    REQUIRE_INT(wk_scene_set_collision_settings(to, &(wk_collision_settings){.rules = rules, .rule_count = 2}, &st),
                ==, WK_OK);
    CHECK_INT(wk_scene_sync_object(to, from, &(wk_ref){.object_name = "table"}, &st), ==, WK_OK);
    CHECK(!wk_ecm_exists(wk_scene_ecm(to), handle));
    const wk_collision_settings *kept = wk_scene_collision_settings(to);
    REQUIRE_INT(kept->rule_count, ==, 1);
    CHECK_INT(kept->rules[0].action, ==, WK_COLLISION_MARGIN);
    CHECK_U64(kept->rules[0].left[0].entity, ==, table);
    wk_scene_free(from);
    wk_scene_free(to);
}

/* arm.urdf as an object world; shift entities first so that its ids differ
 * from another load's. */
static wk_scene *load_arm(size_t shift)
{
    wk_world_desc *d = NULL;
    wk_status st;
    wk_scene *s = NULL;
    wk_entity world;
    if (wk_desc_read(&(wk_read_desc){.uri = WK_TEST_WORLDS "/arm.urdf", .ignore_missing_or_unsupported_assets = true},
                     &d, &st) == WK_OK &&
        (s = wk_scene_new())) {
        for (size_t i = 0; i < shift; i++)
            wk_ecm_create(wk_scene_ecm(s));
        if (wk_desc_instantiate(s, d, 0, WK_NULL_ENTITY, NULL, NULL, &world, &st) ||
            wk_scene_objects_init(s, world, &st)) {
            fprintf(stderr, "    arm.urdf: %s\n", st.message);
            wk_scene_free(s);
            s = NULL;
        }
    }
    wk_desc_free(d);
    return s;
}

/* By name, the references inside a KinematicObject and a Mimic compare by
 * the names of the entities they name: two loads of one file with other
 * ids are the same; a changed coupling is reported. */
static void compare_references_by_name(void)
{
    wk_scene *a = load_arm(0), *b = load_arm(3);
    REQUIRE(a && b);
    wk_entity arm_a = find_object(a, "arm"), arm_b = find_object(b, "arm");
    REQUIRE(arm_a && arm_b);
    CHECK(arm_a != arm_b);
    wk_world_diff d;
    wk_status st;
    REQUIRE_INT(wk_scene_compare(a, b, WK_COMPARE_BY_NAME, &d, &st), ==, WK_OK);
    CHECK_INT(d.modified_object_count, ==, 0);
    for (size_t i = 0; i < d.modified_object_count; i++)
        fprintf(stderr, "    %s\n", d.modified_objects[i].what);
    wk_world_diff_free(&d);
    wk_entity follower = wk_ecm_find_one(wk_scene_ecm(b), &(wk_match){wk_scene_types_of(b)->mimic, NULL}, 1);
    REQUIRE(follower);
    wk_joint_mimic m = *(const wk_joint_mimic *)wk_ecm_get(wk_scene_ecm(b), follower, wk_scene_types_of(b)->mimic);
    m.multiplier = -1;
    REQUIRE_INT(wk_ecm_set(wk_scene_ecm(b), follower, wk_scene_types_of(b)->mimic, &m), >=, 0);
    REQUIRE_INT(wk_scene_compare(a, b, WK_COMPARE_BY_NAME, &d, &st), ==, WK_OK);
    REQUIRE_INT(d.modified_object_count, ==, 1);
    CHECK(strstr(d.modified_objects[0].what, "Mimic changed") != NULL);
    wk_world_diff_free(&d);
    wk_scene_free(a);
    wk_scene_free(b);
}

static void sync_failures_change_nothing(void)
{
    wk_scene *from = base_world();
    REQUIRE(from);
    wk_scene *to = wk_scene_clone(from);
    REQUIRE(to);
    wk_status st;
    /* The parent is not in the destination. */
    wk_entity crate = object_at(from, "crate", 0, wk_pose_identity());
    wk_entity box = object_at(from, "box", crate, wk_pose_identity());
    REQUIRE(crate && box);
    wk_scene *before = wk_scene_clone(to);
    REQUIRE(before);
    CHECK_INT(wk_scene_sync_object(to, from, &(wk_ref){.object_name = "box"}, &st), ==, WK_PRECONDITION);
    CHECK(strstr(st.message, "parent") != NULL);
    CHECK(same_state(before, to));
    /* The same id is the same object, overwritten; but an id of one of its
     * entities used by another object in the destination is a clash. */
    wk_scene_free(from);
    from = base_world();
    REQUIRE(from);
    crate = object_at(from, "crate", 0, wk_pose_identity());
    wk_entity lid = frame_at(from, "lid", crate, wk_pose_identity());
    wk_entity other1 = object_at(to, "other1", 0, wk_pose_identity());
    wk_entity other2 = object_at(to, "other2", 0, wk_pose_identity());
    REQUIRE(lid && other1 && other2);
    CHECK_U64(other1, ==, crate); /* both worlds handed out the same ids */
    CHECK_U64(other2, ==, lid);
    wk_scene_free(before);
    before = wk_scene_clone(to);
    REQUIRE(before);
    CHECK_INT(wk_scene_sync_object(to, from, &(wk_ref){.object_name = "crate"}, &st), ==, WK_PRECONDITION);
    CHECK(strstr(st.message, "'crate'") != NULL);
    /* crate's own id is other1's, which the sync would overwrite; lid's is
     * other2's, a clash. */
    CHECK(strstr(st.message, "'other2'") != NULL);
    CHECK(same_state(before, to));
    /* The name is taken in the destination by another object. */
    CHECK_INT(wk_scene_delete_object(to, other1, false, &st), ==, WK_OK);
    CHECK_INT(wk_scene_delete_object(to, other2, false, &st), ==, WK_OK);
    REQUIRE(object_at(to, "crate", 0, wk_pose_identity()));
    wk_scene_free(before);
    before = wk_scene_clone(to);
    REQUIRE(before);
    CHECK_INT(wk_scene_sync_object(to, from, &(wk_ref){.object_name = "crate"}, &st), ==, WK_PRECONDITION);
    CHECK(strstr(st.message, "crate") != NULL);
    CHECK(same_state(before, to));
    /* Same id: overwritten, renamed as the source has it. */
    wk_entity same = object_at(from, "same", 0, wk_pose_identity());
    wk_scene_free(to);
    to = wk_scene_clone(from);
    REQUIRE(to);
    CHECK_INT(wk_scene_rename(to, same, "renamed", false, &st), ==, WK_OK);
    CHECK_INT(wk_scene_sync_object(to, from, &(wk_ref){.object_name = "same"}, &st), ==, WK_OK);
    CHECK_U64(find_object(to, "same"), ==, same);
    CHECK(same_state(from, to));
    CHECK_INT(wk_scene_sync_object(to, from, &(wk_ref){.id = "root"}, &st), ==, WK_INVALID);
    wk_scene_free(before);
    wk_scene_free(from);
    wk_scene_free(to);
}

static void batch_all_or_nothing(void)
{
    wk_scene *s = base_world();
    REQUIRE(s);
    wk_buf before = {0}, after = {0};
    REQUIRE_INT(wk_ecm_state(wk_scene_ecm(s), &(wk_state_desc){0}, &before), ==, WK_OK);
    wk_status st;
    REQUIRE_INT(wk_scene_batch_begin(s, &st), ==, WK_OK);
    CHECK_INT(wk_scene_batch_begin(s, &st), ==, WK_BUSY);
    wk_entity table = find_object(s, "table");
    CHECK_INT(wk_scene_rename(s, table, "desk", false, &st), ==, WK_OK);
    CHECK_INT(wk_scene_delete_object(s, find_object(s, "shelf"), true, &st), ==, WK_OK);
    CHECK(object_at(s, "chair", table, at(1, 1, 1, 0, 0, 0)) != WK_NULL_ENTITY);
    CHECK_INT(wk_scene_set_pose(s, find_object(s, "cup"), at(9, 9, 9, 0, 0, 0), &st), ==, WK_OK);
    CHECK_INT(wk_scene_batch_rollback(s), ==, WK_OK);
    REQUIRE_INT(wk_ecm_state(wk_scene_ecm(s), &(wk_state_desc){0}, &after), ==, WK_OK);
    CHECK_INT(after.len, ==, before.len);
    CHECK(after.len == before.len && memcmp(after.data, before.data, before.len) == 0);
    /* Names and cached poses follow the rollback. */
    CHECK_U64(find_object(s, "table"), ==, table);
    CHECK_U64(find_object(s, "desk"), ==, WK_NULL_ENTITY);
    CHECK(find_object(s, "shelf") != WK_NULL_ENTITY);
    CHECK_POSE_NEAR(wk_scene_pose(s, find_object(s, "cup")), at(1, 0, 0.8, 0, 0, 0), 1e-12);
    /* Committed, the changes stay. */
    REQUIRE_INT(wk_scene_batch_begin(s, &st), ==, WK_OK);
    CHECK_INT(wk_scene_rename(s, table, "desk", false, &st), ==, WK_OK);
    CHECK_INT(wk_scene_batch_commit(s), ==, WK_OK);
    CHECK_U64(find_object(s, "desk"), ==, table);
    wk_buf_free(&before);
    wk_buf_free(&after);
    wk_scene_free(s);
}

static void store_compare_and_sync(void)
{
    wk_store *store = wk_store_new();
    REQUIRE(store);
    char id[WK_WORLD_ID_MAX];
    wk_status st;
    REQUIRE_INT(wk_store_create(store, &(wk_world_create_desc){.id = "live"}, id, &st), ==, WK_OK);
    REQUIRE_INT(wk_store_clone(store, "live", "plan", false, NULL, id, &st), ==, WK_OK);
    wk_world *w;
    REQUIRE_INT(wk_store_open(store, "plan", true, &w, &st), ==, WK_OK);
    wk_entity part = object_at(wk_world_scene(w), "part", 0, at(1, 0, 0, 0, 0, 0));
    wk_store_close(w, true, true);
    REQUIRE(part);
    wk_world_diff d;
    REQUIRE_INT(wk_store_compare(store, "live", "plan", WK_COMPARE_BY_ID, &d, &st), ==, WK_OK);
    CHECK_INT(d.added_objects.count, ==, 1);
    wk_world_diff_free(&d);
    CHECK_INT(wk_store_sync(store, "plan", "live", &(wk_ref){.object_name = "part"}, false, &st), ==, WK_OK);
    REQUIRE_INT(wk_store_compare(store, "live", "plan", WK_COMPARE_BY_ID, &d, &st), ==, WK_OK);
    CHECK_INT(d.added_objects.count + d.modified_object_count, ==, 0);
    wk_world_diff_free(&d);
    CHECK_INT(wk_store_sync(store, "plan", "plan", &(wk_ref){.object_name = "part"}, false, &st), ==, WK_INVALID);
    CHECK_INT(wk_store_sync(store, "plan", "gone", &(wk_ref){.object_name = "part"}, false, &st), ==, WK_NOT_FOUND);
    wk_store_free(store);
}

static const wk_test_case cases[] = {
    {"compare_by_id", compare_by_id},
    {"compare_by_name", compare_by_name},
    {"compare_entity_moved_between_objects", compare_entity_moved_between_objects},
    {"compare_frame_and_object_moved", compare_frame_and_object_moved},
    {"compare_kinematic_joint_moved", compare_kinematic_joint_moved},
    {"compare_subtree_detached", compare_subtree_detached},
    {"compare_by_id_agrees_with_by_name", compare_by_id_agrees_with_by_name},
    {"sync_objects", sync_objects},
    {"sync_drops_stale_collision_refs", sync_drops_stale_collision_refs},
    {"compare_references_by_name", compare_references_by_name},
    {"sync_failures_change_nothing", sync_failures_change_nothing},
    {"batch_all_or_nothing", batch_all_or_nothing},
    {"store_compare_and_sync", store_compare_and_sync},
};
WK_TEST_MAIN(cases)
