/* test_hierarchy.c — the parent/child graph: parents, children in attach
 * order, descendants, cycles refused, recursive and non-recursive removal. */
#include "ecs/fixture.h"
#include "wk_test.h"

/* root -> {a -> {a1, a2}, b} */
typedef struct tree {
    wk_entity root, a, a1, a2, b;
} tree;

static tree make_tree(wk_ecm *ecm)
{
    tree t = {wk_ecm_create(ecm), wk_ecm_create(ecm), wk_ecm_create(ecm), wk_ecm_create(ecm), wk_ecm_create(ecm)};
    wk_ecm_set_parent(ecm, t.a, t.root);
    wk_ecm_set_parent(ecm, t.b, t.root);
    wk_ecm_set_parent(ecm, t.a1, t.a);
    wk_ecm_set_parent(ecm, t.a2, t.a);
    return t;
}

static void parents_and_children(void)
{
    wk_ecm *ecm = wk_ecm_new();
    REQUIRE(ecm);
    tree t = make_tree(ecm);
    CHECK_U64(wk_ecm_parent(ecm, t.a1), ==, t.a);
    CHECK_U64(wk_ecm_parent(ecm, t.a), ==, t.root);
    CHECK_U64(wk_ecm_parent(ecm, t.root), ==, WK_NULL_ENTITY);
    wk_entity_list kids = {0};
    CHECK_INT(wk_ecm_children(ecm, t.root, &kids), ==, WK_OK);
    REQUIRE_INT(kids.count, ==, 2);
    CHECK_U64(kids.items[0], ==, t.a);
    CHECK_U64(kids.items[1], ==, t.b);
    CHECK_U64(wk_ecm_first_child(ecm, t.root), ==, t.a);
    CHECK_U64(wk_ecm_next_sibling(ecm, t.a), ==, t.b);
    CHECK_U64(wk_ecm_next_sibling(ecm, t.b), ==, WK_NULL_ENTITY);
    CHECK_U64(wk_ecm_first_child(ecm, t.b), ==, WK_NULL_ENTITY);
    kids.count = 0;
    CHECK_INT(wk_ecm_descendants(ecm, t.root, &kids), ==, WK_OK);
    CHECK_INT(kids.count, ==, 5);
    CHECK_U64(kids.items[0], ==, t.root);
    kids.count = 0;
    CHECK_INT(wk_ecm_descendants(ecm, t.b, &kids), ==, WK_OK);
    CHECK_INT(kids.count, ==, 1);
    wk_entity_list_free(&kids);
    wk_ecm_free(ecm);
}

static void reparent_and_detach(void)
{
    wk_ecm *ecm = wk_ecm_new();
    REQUIRE(ecm);
    tree t = make_tree(ecm);
    CHECK_INT(wk_ecm_set_parent(ecm, t.a, t.b), ==, WK_OK);
    CHECK_U64(wk_ecm_parent(ecm, t.a), ==, t.b);
    wk_entity_list kids = {0};
    wk_ecm_children(ecm, t.root, &kids);
    CHECK_INT(kids.count, ==, 1);
    kids.count = 0;
    wk_ecm_children(ecm, t.a, &kids); /* a keeps its own children */
    CHECK_INT(kids.count, ==, 2);
    CHECK_INT(wk_ecm_set_parent(ecm, t.a, WK_NULL_ENTITY), ==, WK_OK);
    CHECK_U64(wk_ecm_parent(ecm, t.a), ==, WK_NULL_ENTITY);
    kids.count = 0;
    wk_ecm_children(ecm, t.b, &kids);
    CHECK_INT(kids.count, ==, 0);
    wk_entity_list_free(&kids);
    wk_ecm_free(ecm);
}

static void cycles_refused(void)
{
    wk_ecm *ecm = wk_ecm_new();
    REQUIRE(ecm);
    tree t = make_tree(ecm);
    CHECK_INT(wk_ecm_set_parent(ecm, t.root, t.a1), ==, WK_INVALID);
    CHECK(strstr(wk_ecm_errmsg(ecm), "ancestor") != NULL);
    CHECK_INT(wk_ecm_set_parent(ecm, t.a, t.a), ==, WK_INVALID);
    CHECK_U64(wk_ecm_parent(ecm, t.root), ==, WK_NULL_ENTITY); /* unchanged */
    CHECK_INT(wk_ecm_set_parent(ecm, t.a, 4242), ==, WK_STALE);
    CHECK_U64(wk_ecm_parent(ecm, t.a), ==, t.root);
    wk_ecm_free(ecm);
}

static void recursive_destroy(void)
{
    wk_ecm *ecm = wk_ecm_new();
    REQUIRE(ecm);
    tree t = make_tree(ecm);
    CHECK_INT(wk_ecm_destroy(ecm, t.a, true), ==, WK_OK);
    CHECK(!wk_ecm_exists(ecm, t.a) && !wk_ecm_exists(ecm, t.a1) && !wk_ecm_exists(ecm, t.a2));
    CHECK(wk_ecm_exists(ecm, t.b));
    wk_entity_list kids = {0};
    wk_ecm_children(ecm, t.root, &kids);
    REQUIRE_INT(kids.count, ==, 1);
    CHECK_U64(kids.items[0], ==, t.b);
    wk_entity_list_free(&kids);
    CHECK_INT(wk_ecm_count(ecm), ==, 2);
    wk_ecm_free(ecm);
}

static void flat_destroy_orphans_children(void)
{
    wk_ecm *ecm = wk_ecm_new();
    REQUIRE(ecm);
    tree t = make_tree(ecm);
    CHECK_INT(wk_ecm_destroy(ecm, t.a, false), ==, WK_OK);
    CHECK(wk_ecm_exists(ecm, t.a1) && wk_ecm_exists(ecm, t.a2));
    CHECK_U64(wk_ecm_parent(ecm, t.a1), ==, WK_NULL_ENTITY);
    /* The slot's next entity starts without the old links. */
    wk_entity fresh = wk_ecm_create(ecm);
    CHECK_U64((uint32_t)fresh, ==, (uint32_t)t.a);
    wk_entity_list kids = {0};
    wk_ecm_children(ecm, fresh, &kids);
    CHECK_INT(kids.count, ==, 0);
    CHECK_U64(wk_ecm_parent(ecm, fresh), ==, WK_NULL_ENTITY);
    wk_entity_list_free(&kids);
    wk_ecm_free(ecm);
}

static const wk_test_case cases[] = {
    {"parents_and_children", parents_and_children},
    {"reparent_and_detach", reparent_and_detach},
    {"cycles_refused", cycles_refused},
    {"recursive_destroy", recursive_destroy},
    {"flat_destroy_orphans_children", flat_destroy_orphans_children},
};
WK_TEST_MAIN(cases)
