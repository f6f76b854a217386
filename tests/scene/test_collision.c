/* test_collision.c — the world's collision settings: defaults, replacing
 * (no merge), validation naming the rule, ToggleCollisions both ways with
 * exact splitting of rules that cover whole objects, references dropped
 * when objects are deleted, and the settings surviving clone, state copy
 * and damaged bytes. */
#include "scene/copies.h"
#include "scene/object_world.h"

static wk_collision_ref whole(wk_entity e)
{
    return (wk_collision_ref){e, true};
}

static wk_collision_ref one(wk_entity e)
{
    return (wk_collision_ref){e, false};
}

/* A link entity under parent, part of parent's object. */
static wk_entity link_of(wk_scene *s, wk_entity parent, const char *name)
{
    const wk_scene_types *t = wk_scene_types_of(s);
    uint8_t kind = WK_NODE_LINK;
    wk_pose pose = wk_pose_identity();
    wk_entity e = wk_ecm_create_with(wk_scene_ecm(s), (wk_type[]){t->name, t->kind, t->parent_pose},
                                     (const void *[]){&name, &kind, &pose}, 3);
    if (e && wk_ecm_set_parent(wk_scene_ecm(s), e, parent))
        return WK_NULL_ENTITY;
    return e;
}

static const wk_collision_settings *settings(wk_scene *s)
{
    return wk_scene_collision_settings(s);
}

static bool stored(wk_scene *s)
{
    return wk_ecm_has(wk_scene_ecm(s), wk_scene_root(s), wk_scene_types_of(s)->collision);
}

static void defaults_and_replace(void)
{
    wk_scene *s = new_world();
    REQUIRE(s);
    wk_entity a = object_at(s, "a", 0, wk_pose_identity()), b = object_at(s, "b", 0, wk_pose_identity());
    wk_entity c = object_at(s, "c", 0, wk_pose_identity());
    REQUIRE(a && b && c);
    const wk_collision_settings *got = settings(s);
    CHECK(!got->disable_collision_checking && !got->has_minimum_margin && !got->has_collision_check_spacing);
    CHECK_INT(got->rule_count, ==, 0);
    CHECK(!stored(s));

    const wk_collision_ref left[] = {whole(a), one(b)}, right[] = {whole(c)};
    const wk_collision_rule rules[] = {
        {left, 2, right, 1, WK_COLLISION_EXCLUDE, 5.0}, /* an exclusion's margin is not kept */
        {right, 1, NULL, 0, WK_COLLISION_MARGIN, 0.25},
    };
    wk_collision_settings in = {.has_minimum_margin = true, .minimum_margin = 0.01,
                                .has_collision_check_spacing = true, .collision_check_spacing = 0.1,
                                .rules = rules, .rule_count = 2};
    wk_status st;
    REQUIRE_INT(wk_scene_set_collision_settings(s, &in, &st), ==, WK_OK);
    got = settings(s);
    CHECK(stored(s));
    CHECK(got->has_minimum_margin);
    CHECK_NEAR(got->minimum_margin, 0.01, 0);
    CHECK_NEAR(got->collision_check_spacing, 0.1, 0);
    REQUIRE_INT(got->rule_count, ==, 2);
    REQUIRE_INT(got->rules[0].left_count, ==, 2);
    CHECK_U64(got->rules[0].left[0].entity, ==, a);
    CHECK(got->rules[0].left[0].whole_object);
    CHECK_U64(got->rules[0].left[1].entity, ==, b);
    CHECK(!got->rules[0].left[1].whole_object);
    CHECK_INT(got->rules[0].right_count, ==, 1);
    CHECK_NEAR(got->rules[0].hard_margin, 0, 0);
    CHECK_INT(got->rules[1].action, ==, WK_COLLISION_MARGIN);
    CHECK_NEAR(got->rules[1].hard_margin, 0.25, 0);
    CHECK_INT(got->rules[1].right_count, ==, 0);
    /* The pairs each rule excludes. */
    CHECK(wk_scene_collisions_excluded(s, a, c));
    CHECK(wk_scene_collisions_excluded(s, c, b));
    CHECK(!wk_scene_collisions_excluded(s, a, b));

    /* A copy outlives the component. */
    wk_collision_settings kept;
    REQUIRE_INT(wk_collision_settings_copy(&kept, got), ==, WK_OK);

    /* Replacing: nothing of the old settings is merged in. */
    wk_collision_settings next = {.disable_collision_checking = true, .rules = rules + 1, .rule_count = 1};
    REQUIRE_INT(wk_scene_set_collision_settings(s, &next, &st), ==, WK_OK);
    got = settings(s);
    CHECK(got->disable_collision_checking);
    CHECK(!got->has_minimum_margin && !got->has_collision_check_spacing);
    CHECK_INT(got->rule_count, ==, 1);
    CHECK(!wk_scene_collisions_excluded(s, a, c));
    CHECK_INT(kept.rule_count, ==, 2);
    CHECK_U64(kept.rules[0].right[0].entity, ==, c);
    wk_collision_settings_fini(&kept);
    CHECK(kept.rules == NULL && kept.rule_count == 0);

    /* The default removes the component. */
    REQUIRE_INT(wk_scene_set_collision_settings(s, &(wk_collision_settings){0}, &st), ==, WK_OK);
    CHECK(!stored(s));
    CHECK_INT(settings(s)->rule_count, ==, 0);
    wk_scene_free(s);
}

static void validation(void)
{
    wk_scene *s = new_world();
    REQUIRE(s);
    wk_entity a = object_at(s, "a", 0, wk_pose_identity()), b = object_at(s, "b", 0, wk_pose_identity());
    wk_entity f = frame_at(s, "f", a, wk_pose_identity());
    wk_entity inner = link_of(s, a, "inner");
    REQUIRE(a && b && f && inner);
    REQUIRE_INT(wk_scene_refresh(s), ==, WK_OK);
    const wk_collision_ref ra[] = {whole(a)}, rb[] = {one(b)};
    wk_collision_rule good = {ra, 1, rb, 1, WK_COLLISION_MARGIN, 0.5};
    wk_status st;
    REQUIRE_INT(wk_scene_set_collision_settings(s, &(wk_collision_settings){.rules = &good, .rule_count = 1}, &st),
                ==, WK_OK);

    const wk_collision_ref missing[] = {one((wk_entity)777 << 32 | 5)}, frame[] = {one(f)},
                           not_base[] = {whole(inner)};
    const struct {
        const char *what;
        wk_collision_settings settings;
        wk_collision_rule bad; /* placed as rule 1, after the good one */
        int code;
        const char *says;
    } cases[] = {
        {"negative hard margin", {0}, {ra, 1, rb, 1, WK_COLLISION_MARGIN, -0.001}, WK_INVALID, "collision rule 1"},
        {"NaN hard margin", {0}, {ra, 1, rb, 1, WK_COLLISION_MARGIN, NAN}, WK_INVALID, "collision rule 1"},
        {"no action", {0}, {ra, 1, rb, 1, WK_COLLISION_ACTION_UNSPECIFIED, 0}, WK_INVALID, "collision rule 1"},
        {"empty left", {0}, {NULL, 0, rb, 1, WK_COLLISION_EXCLUDE, 0}, WK_INVALID, "left side is empty"},
        {"missing entity", {0}, {ra, 1, missing, 1, WK_COLLISION_EXCLUDE, 0}, WK_NOT_FOUND, "collision rule 1, right"},
        {"frame", {0}, {frame, 1, rb, 1, WK_COLLISION_EXCLUDE, 0}, WK_INVALID, "is a frame"},
        {"whole of a non-base", {0}, {not_base, 1, NULL, 0, WK_COLLISION_EXCLUDE, 0}, WK_INVALID, "inner"},
        {"negative minimum margin", {.has_minimum_margin = true, .minimum_margin = -1}, {ra, 1, rb, 1,
         WK_COLLISION_EXCLUDE, 0}, WK_INVALID, "minimum margin"},
        {"zero spacing", {.has_collision_check_spacing = true}, {ra, 1, rb, 1, WK_COLLISION_EXCLUDE, 0}, WK_INVALID,
         "spacing"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        wk_collision_rule rules[] = {good, cases[i].bad};
        wk_collision_settings in = cases[i].settings;
        in.rules = rules;
        in.rule_count = 2;
        st = (wk_status){0};
        if (!CHECK_INT(wk_scene_set_collision_settings(s, &in, &st), ==, cases[i].code))
            fprintf(stderr, "    case: %s\n", cases[i].what);
        if (!CHECK(strstr(st.message, cases[i].says) != NULL))
            fprintf(stderr, "    case: %s, message: %s\n", cases[i].what, st.message);
        /* Nothing changed. */
        CHECK_INT(settings(s)->rule_count, ==, 1);
        CHECK_NEAR(settings(s)->rules[0].hard_margin, 0.5, 0);
    }
    /* A zero margin and a zero minimum margin are fine. */
    good.hard_margin = 0;
    CHECK_INT(wk_scene_set_collision_settings(
                  s, &(wk_collision_settings){.has_minimum_margin = true, .rules = &good, .rule_count = 1}, &st),
              ==, WK_OK);
    CHECK(settings(s)->has_minimum_margin);

    wk_scene *plain = wk_scene_new();
    REQUIRE(plain);
    CHECK_INT(wk_scene_set_collision_settings(plain, &(wk_collision_settings){0}, &st), ==, WK_PRECONDITION);
    CHECK_INT(settings(plain)->rule_count, ==, 0);
    wk_scene_free(plain);
    wk_scene_free(s);
}

static void toggle_round_trip(void)
{
    wk_scene *s = new_world();
    REQUIRE(s);
    wk_entity a = object_at(s, "a", 0, wk_pose_identity()), b = object_at(s, "b", 0, wk_pose_identity());
    wk_entity c = object_at(s, "c", 0, wk_pose_identity());
    REQUIRE(a && b && c);
    wk_status st;
    CHECK_INT(wk_scene_toggle_collisions(s, &a, 1, &b, 1, WK_TOGGLE_DISABLE, &st), ==, WK_OK);
    CHECK(wk_scene_collisions_excluded(s, a, b));
    CHECK(wk_scene_collisions_excluded(s, b, a));
    CHECK(!wk_scene_collisions_excluded(s, a, c));
    REQUIRE_INT(settings(s)->rule_count, ==, 1);
    CHECK_INT(settings(s)->rules[0].action, ==, WK_COLLISION_EXCLUDE);
    CHECK_U64(settings(s)->rules[0].left[0].entity, ==, a);
    CHECK_U64(settings(s)->rules[0].right[0].entity, ==, b);
    /* Disabled already, either way round: no-op. */
    CHECK_INT(wk_scene_toggle_collisions(s, &b, 1, &a, 1, WK_TOGGLE_DISABLE, &st), ==, WK_OK);
    CHECK_INT(settings(s)->rule_count, ==, 1);
    /* Enabling takes the rule away, and the component with it. */
    CHECK_INT(wk_scene_toggle_collisions(s, &b, 1, &a, 1, WK_TOGGLE_ENABLE, &st), ==, WK_OK);
    CHECK(!wk_scene_collisions_excluded(s, a, b));
    CHECK_INT(settings(s)->rule_count, ==, 0);
    CHECK(!stored(s));
    /* Enabled already: no-op. */
    CHECK_INT(wk_scene_toggle_collisions(s, &a, 1, &b, 1, WK_TOGGLE_ENABLE, &st), ==, WK_OK);
    CHECK(!stored(s));

    /* Sets: a against b and c at once, then b re-enabled alone. */
    wk_entity bc[] = {b, c};
    CHECK_INT(wk_scene_toggle_collisions(s, &a, 1, bc, 2, WK_TOGGLE_DISABLE, &st), ==, WK_OK);
    CHECK(wk_scene_collisions_excluded(s, a, b) && wk_scene_collisions_excluded(s, a, c));
    CHECK(!wk_scene_collisions_excluded(s, b, c));
    CHECK_INT(wk_scene_toggle_collisions(s, &b, 1, &a, 1, WK_TOGGLE_ENABLE, &st), ==, WK_OK);
    CHECK(!wk_scene_collisions_excluded(s, a, b));
    CHECK(wk_scene_collisions_excluded(s, a, c));
    REQUIRE_INT(settings(s)->rule_count, ==, 1);
    CHECK_INT(settings(s)->rules[0].right_count, ==, 1);
    CHECK_U64(settings(s)->rules[0].right[0].entity, ==, c);

    /* Misuse. */
    CHECK_INT(wk_scene_toggle_collisions(s, &a, 1, &b, 1, WK_TOGGLE_UNSPECIFIED, &st), ==, WK_INVALID);
    CHECK(strstr(st.message, "unspecified") != NULL);
    CHECK_INT(wk_scene_toggle_collisions(s, &a, 1, NULL, 0, WK_TOGGLE_DISABLE, &st), ==, WK_INVALID);
    wk_entity gone = (wk_entity)99 << 32 | 7;
    CHECK_INT(wk_scene_toggle_collisions(s, &a, 1, &gone, 1, WK_TOGGLE_DISABLE, &st), ==, WK_NOT_FOUND);
    CHECK(strstr(st.message, "object b") != NULL);
    CHECK_INT(settings(s)->rule_count, ==, 1);
    wk_scene_free(s);
}

/* A rule over whole objects, enabled for one entity: the rest stays
 * excluded, exactly. */
static void toggle_enable_splits_whole_objects(void)
{
    wk_scene *s = new_world();
    REQUIRE(s);
    wk_entity robot = object_at(s, "robot", 0, wk_pose_identity());
    wk_entity table = object_at(s, "table", 0, wk_pose_identity());
    wk_entity other = object_at(s, "other", 0, wk_pose_identity());
    REQUIRE(robot && table && other);
    wk_entity l1 = link_of(s, robot, "l1"), l2 = link_of(s, l1, "l2"), leg = link_of(s, table, "leg");
    REQUIRE(l1 && l2 && leg);
    REQUIRE_INT(wk_scene_refresh(s), ==, WK_OK);
    const wk_collision_ref left[] = {whole(robot)}, right[] = {whole(table)}, far[] = {one(other)};
    const wk_collision_rule rules[] = {
        {left, 1, right, 1, WK_COLLISION_EXCLUDE, 0},
        {far, 1, right, 1, WK_COLLISION_EXCLUDE, 0},
        {left, 1, right, 1, WK_COLLISION_MARGIN, 0.1},
    };
    wk_status st;
    REQUIRE_INT(wk_scene_set_collision_settings(s, &(wk_collision_settings){.rules = rules, .rule_count = 3}, &st),
                ==, WK_OK);
    CHECK(wk_scene_collisions_excluded(s, l2, leg));
    CHECK(wk_scene_collisions_excluded(s, robot, table));

    CHECK_INT(wk_scene_toggle_collisions(s, &l2, 1, &table, 1, WK_TOGGLE_ENABLE, &st), ==, WK_OK);
    /* Exactly l2 against the table's base is enabled again. */
    const struct {
        wk_entity x, y;
        bool excluded;
    } pairs[] = {
        {l2, table, false}, {table, l2, false}, {l2, leg, true},   {l1, table, true},
        {robot, table, true}, {robot, leg, true}, {other, table, true}, {other, leg, true},
    };
    for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++)
        if (!CHECK_INT(wk_scene_collisions_excluded(s, pairs[i].x, pairs[i].y), ==, pairs[i].excluded))
            fprintf(stderr, "    pair %zu\n", i);
    /* The rule that did not cover the pair kept its place and form; the
     * margin rule was left alone. */
    const wk_collision_settings *got = settings(s);
    bool far_kept = false, margin_kept = false;
    for (size_t i = 0; i < got->rule_count; i++) {
        const wk_collision_rule *r = &got->rules[i];
        far_kept |= r->left_count == 1 && r->left[0].entity == other && r->right[0].whole_object;
        margin_kept |= r->action == WK_COLLISION_MARGIN && r->left[0].whole_object && r->right[0].whole_object;
    }
    CHECK(far_kept && margin_kept);

    /* And back: disabling l2 against the table excludes it again. */
    CHECK_INT(wk_scene_toggle_collisions(s, &l2, 1, &table, 1, WK_TOGGLE_DISABLE, &st), ==, WK_OK);
    CHECK(wk_scene_collisions_excluded(s, l2, table));

    /* A rule against "anything else" cannot be narrowed. */
    const wk_collision_rule anything = {left, 1, NULL, 0, WK_COLLISION_EXCLUDE, 0};
    REQUIRE_INT(wk_scene_set_collision_settings(s, &(wk_collision_settings){.rules = &anything, .rule_count = 1},
                                                &st),
                ==, WK_OK);
    CHECK(wk_scene_collisions_excluded(s, l1, other));
    CHECK_INT(wk_scene_toggle_collisions(s, &l1, 1, &other, 1, WK_TOGGLE_ENABLE, &st), ==, WK_PRECONDITION);
    CHECK(strstr(st.message, "collision rule 0") != NULL);
    CHECK(wk_scene_collisions_excluded(s, l1, other));
    CHECK_INT(settings(s)->rule_count, ==, 1);
    /* Pairs it does not cover are enabled already. */
    CHECK_INT(wk_scene_toggle_collisions(s, &table, 1, &other, 1, WK_TOGGLE_ENABLE, &st), ==, WK_OK);
    wk_scene_free(s);
}

static void delete_object_drops_refs(void)
{
    wk_scene *s = new_world();
    REQUIRE(s);
    wk_entity a = object_at(s, "a", 0, wk_pose_identity()), b = object_at(s, "b", 0, wk_pose_identity());
    wk_entity c = object_at(s, "c", 0, wk_pose_identity()), d = object_at(s, "d", b, wk_pose_identity());
    REQUIRE(a && b && c && d);
    const wk_collision_ref ra[] = {one(a)}, rb[] = {whole(b)}, rac[] = {one(a), one(c)}, rab[] = {one(a), whole(b)},
                           rd[] = {one(d)}, rc[] = {one(c)};
    const wk_collision_rule rules[] = {
        {ra, 1, rb, 1, WK_COLLISION_EXCLUDE, 0},   /* right emptied: goes */
        {rac, 2, rb, 1, WK_COLLISION_EXCLUDE, 0},  /* right emptied: goes */
        {rb, 1, NULL, 0, WK_COLLISION_EXCLUDE, 0}, /* left emptied: goes */
        {rc, 1, rab, 2, WK_COLLISION_MARGIN, 0.2}, /* keeps a */
        {rd, 1, rc, 1, WK_COLLISION_EXCLUDE, 0},   /* d goes with b (force): goes */
        {ra, 1, NULL, 0, WK_COLLISION_MARGIN, 0.3}, /* untouched */
    };
    wk_status st;
    REQUIRE_INT(wk_scene_set_collision_settings(s, &(wk_collision_settings){.rules = rules, .rule_count = 6}, &st),
                ==, WK_OK);
    /* Refused without force: nothing dropped. */
    CHECK_INT(wk_scene_delete_object(s, b, false, &st), ==, WK_PRECONDITION);
    CHECK_INT(settings(s)->rule_count, ==, 6);
    REQUIRE_INT(wk_scene_delete_object(s, b, true, &st), ==, WK_OK);
    const wk_collision_settings *got = settings(s);
    REQUIRE_INT(got->rule_count, ==, 2);
    CHECK_INT(got->rules[0].action, ==, WK_COLLISION_MARGIN);
    CHECK_U64(got->rules[0].left[0].entity, ==, c);
    REQUIRE_INT(got->rules[0].right_count, ==, 1);
    CHECK_U64(got->rules[0].right[0].entity, ==, a);
    CHECK_NEAR(got->rules[1].hard_margin, 0.3, 0);
    CHECK_INT(got->rules[1].right_count, ==, 0);
    /* Deleting the rest leaves no rules and no component. */
    CHECK_INT(wk_scene_delete_object(s, a, false, &st), ==, WK_OK);
    CHECK_INT(settings(s)->rule_count, ==, 0);
    CHECK(!stored(s));
    wk_scene_free(s);
}

static void copies_and_damage(void)
{
    wk_scene *s = new_world();
    REQUIRE(s);
    wk_entity a = object_at(s, "a", 0, wk_pose_identity()), b = object_at(s, "b", 0, wk_pose_identity());
    REQUIRE(a && b);
    const wk_collision_ref ra[] = {whole(a)}, rb[] = {one(b), whole(a)};
    const wk_collision_rule rules[] = {
        {ra, 1, rb, 2, WK_COLLISION_EXCLUDE, 0},
        {rb, 2, NULL, 0, WK_COLLISION_MARGIN, 0.125},
    };
    wk_status st;
    REQUIRE_INT(wk_scene_set_collision_settings(
                    s,
                    &(wk_collision_settings){.disable_collision_checking = true, .has_minimum_margin = true,
                                             .minimum_margin = 0.5, .rules = rules, .rule_count = 2},
                    &st),
                ==, WK_OK);
    check_copies(s);
    wk_scene *g = state_copy(s);
    REQUIRE(g);
    CHECK(wk_scene_collisions_excluded(g, b, a));
    CHECK_INT(wk_scene_collision_settings(g)->rule_count, ==, 2);
    CHECK_NEAR(wk_scene_collision_settings(g)->rules[1].hard_margin, 0.125, 0);
    wk_scene_free(g);
    CHECK_INT(check_decoder(s, "CollisionSettings"), >, 100);
    wk_scene_free(s);
}

static const wk_test_case cases[] = {
    {"defaults_and_replace", defaults_and_replace},
    {"validation", validation},
    {"toggle_round_trip", toggle_round_trip},
    {"toggle_enable_splits_whole_objects", toggle_enable_splits_whole_objects},
    {"delete_object_drops_refs", delete_object_drops_refs},
    {"copies_and_damage", copies_and_damage},
};
WK_TEST_MAIN(cases)
