/* test_state.c — serialized state: full snapshots and step deltas applied to
 * another ECM until both are equal, subsets of entities and types, rejected
 * messages that change nothing, and clones. */
#include "ecs/fixture.h"
#include "worldkit/ecs_state.pb-c.h"
#include "wk_test.h"

/* A small world: a model with two links, a loose entity with a tag. */
typedef struct world {
    fixture f;
    wk_entity model, link1, link2, loose;
} world;

static world world_new(void)
{
    world w = {.f = fixture_new()};
    wk_ecm *ecm = w.f.ecm;
    if (!ecm)
        return w;
    w.model = wk_ecm_create(ecm);
    w.link1 = wk_ecm_create(ecm);
    w.link2 = wk_ecm_create(ecm);
    w.loose = wk_ecm_create(ecm);
    set_name(&w.f, w.model, "robot");
    set_name(&w.f, w.link1, "base");
    set_name(&w.f, w.link2, "arm");
    wk_ecm_set(ecm, w.link1, w.f.pos, &(vec){0, 0, 1});
    wk_ecm_set(ecm, w.link2, w.f.pos, &(vec){0, 1, 1});
    wk_ecm_set(ecm, w.link2, w.f.vel, &(vec){1, 0, 0});
    wk_ecm_set(ecm, w.loose, w.f.tag, NULL);
    wk_ecm_set_parent(ecm, w.link1, w.model);
    wk_ecm_set_parent(ecm, w.link2, w.link1);
    return w;
}

/* Serializes src with desc and applies it to dst; returns set_state's code. */
static int transfer(wk_ecm *src, const wk_state_desc *desc, wk_ecm *dst)
{
    wk_buf buf = {0};
    int rc = wk_ecm_state(src, desc, &buf);
    if (rc == WK_OK)
        rc = wk_ecm_set_state(dst, buf.data, buf.len);
    wk_buf_free(&buf);
    return rc;
}

static bool equal(const wk_ecm *a, const wk_ecm *b)
{
    wk_status why = {0};
    bool same = wk_ecm_equal(a, b, &why);
    if (!same)
        fprintf(stderr, "    ECMs differ: %s\n", why.message);
    return same;
}

static void full_round_trip(void)
{
    world w = world_new();
    REQUIRE(w.f.ecm);
    fixture g = fixture_new();
    REQUIRE(g.ecm);
    CHECK(!wk_ecm_equal(w.f.ecm, g.ecm, NULL));
    CHECK_INT(transfer(w.f.ecm, NULL, g.ecm), ==, WK_OK);
    CHECK(equal(w.f.ecm, g.ecm));
    CHECK_STR(get_name(&g, w.link2), "arm");
    CHECK_U64(wk_ecm_parent(g.ecm, w.link2), ==, w.link1);
    CHECK(wk_ecm_has(g.ecm, w.loose, g.tag));
    /* Applying the same snapshot again changes nothing. */
    CHECK_INT(transfer(w.f.ecm, NULL, g.ecm), ==, WK_OK);
    CHECK(equal(w.f.ecm, g.ecm));
    wk_ecm_free(w.f.ecm);
    wk_ecm_free(g.ecm);
}

static void types_match_by_name_not_id(void)
{
    world w = world_new();
    REQUIRE(w.f.ecm);
    /* Registered in another order, so every id differs. */
    wk_ecm *other = wk_ecm_new();
    REQUIRE(other);
    fixture g = {.ecm = other};
    wk_ecm_register(other, &(wk_type_desc){.name = "Static"}, &g.tag);
    wk_ecm_register(other,
                    &(wk_type_desc){.name = "Name",
                                    .size = sizeof(char *),
                                    .hooks = {str_copy, str_destroy, str_equal, str_serialize, str_deserialize}},
                    &g.name);
    wk_ecm_register(other, &(wk_type_desc){.name = "Velocity", .size = sizeof(vec)}, &g.vel);
    wk_ecm_register(other, &(wk_type_desc){.name = "Position", .size = sizeof(vec)}, &g.pos);
    CHECK_INT(g.pos, !=, w.f.pos);
    CHECK_INT(transfer(w.f.ecm, NULL, other), ==, WK_OK);
    CHECK(equal(w.f.ecm, other));
    const vec *p = wk_ecm_get(other, w.link2, g.pos);
    REQUIRE(p);
    CHECK_NEAR(p->y, 1, 0);
    wk_ecm_free(w.f.ecm);
    wk_ecm_free(other);
}

static void deltas_and_resync(void)
{
    world w = world_new();
    REQUIRE(w.f.ecm);
    wk_ecm *src = w.f.ecm;
    fixture g = fixture_new();
    REQUIRE(g.ecm);
    CHECK_INT(transfer(src, NULL, g.ecm), ==, WK_OK);
    wk_ecm_end_step(src);
    wk_ecm_end_step(g.ecm);

    /* A step the receiver misses: loose's slot now holds a new entity. */
    wk_ecm_destroy(src, w.loose, true);
    wk_entity fresh = wk_ecm_create(src);
    CHECK_U64((uint32_t)fresh, ==, (uint32_t)w.loose);
    set_name(&w.f, fresh, "new");
    wk_ecm_set_parent(src, fresh, w.model);
    wk_ecm_end_step(src);
    /* A complete snapshot resyncs it, replacing the stale entity. */
    CHECK_INT(transfer(src, NULL, g.ecm), ==, WK_OK);
    CHECK(equal(src, g.ecm));
    wk_ecm_end_step(g.ecm);

    /* Then deltas: a creation, then a removal request and a change. */
    wk_entity doomed = wk_ecm_create(src);
    wk_ecm_set(src, doomed, w.f.vel, &(vec){3, 3, 3});
    CHECK_INT(transfer(src, &(wk_state_desc){.changed_only = true}, g.ecm), ==, WK_OK);
    wk_ecm_end_step(src);
    wk_ecm_end_step(g.ecm);
    CHECK(equal(src, g.ecm));
    CHECK_INT(wk_ecm_request_remove(src, doomed, true), ==, WK_OK);
    wk_ecm_set(src, w.link1, w.f.pos, &(vec){6, 6, 6});
    wk_buf delta = {0}, full = {0};
    CHECK_INT(wk_ecm_state(src, &(wk_state_desc){.changed_only = true}, &delta), ==, WK_OK);
    CHECK_INT(wk_ecm_state(src, NULL, &full), ==, WK_OK);
    CHECK_INT(delta.len, <, full.len);
    CHECK_INT(wk_ecm_set_state(g.ecm, delta.data, delta.len), ==, WK_OK);
    CHECK(!wk_ecm_exists(g.ecm, doomed));
    wk_ecm_end_step(src); /* processes the removal request */
    CHECK(equal(src, g.ecm));
    wk_buf_free(&delta);
    wk_buf_free(&full);
    wk_ecm_free(src);
    wk_ecm_free(g.ecm);
}

static void delta_covers_every_change_kind(void)
{
    world w = world_new();
    REQUIRE(w.f.ecm);
    wk_ecm *src = w.f.ecm;
    fixture g = fixture_new();
    REQUIRE(g.ecm);
    CHECK_INT(transfer(src, NULL, g.ecm), ==, WK_OK);
    wk_ecm_end_step(src);
    wk_buf empty = {0};
    CHECK_INT(wk_ecm_state(src, &(wk_state_desc){.changed_only = true}, &empty), ==, WK_OK);

    wk_ecm_set(src, w.link1, w.f.pos, &(vec){5, 5, 5});
    wk_ecm_set(src, w.model, w.f.vel, &(vec){0, 0, 9});
    wk_ecm_remove(src, w.link2, w.f.vel);
    wk_ecm_set_parent(src, w.link2, w.model);
    wk_ecm_destroy(src, w.loose, true);
    wk_buf delta = {0};
    CHECK_INT(wk_ecm_state(src, &(wk_state_desc){.changed_only = true}, &delta), ==, WK_OK);
    CHECK_INT(delta.len, >, empty.len);
    CHECK_INT(wk_ecm_set_state(g.ecm, delta.data, delta.len), ==, WK_OK);
    CHECK(equal(src, g.ecm));
    CHECK(!wk_ecm_has(g.ecm, w.link2, g.vel));
    CHECK(!wk_ecm_exists(g.ecm, w.loose));
    CHECK_U64(wk_ecm_parent(g.ecm, w.link2), ==, w.model);
    wk_buf_free(&empty);
    wk_buf_free(&delta);
    wk_ecm_free(src);
    wk_ecm_free(g.ecm);
}

static void subsets(void)
{
    world w = world_new();
    REQUIRE(w.f.ecm);
    fixture g = fixture_new();
    REQUIRE(g.ecm);
    wk_entity some[] = {w.model, w.link1};
    CHECK_INT(transfer(w.f.ecm, &(wk_state_desc){.entities = some, .entity_count = 2, .types = &w.f.name, .type_count = 1},
                       g.ecm),
              ==, WK_OK);
    CHECK_INT(wk_ecm_count(g.ecm), ==, 2);
    CHECK_STR(get_name(&g, w.link1), "base");
    CHECK(!wk_ecm_has(g.ecm, w.link1, g.pos)); /* type not asked for */
    CHECK_U64(wk_ecm_parent(g.ecm, w.link1), ==, w.model);
    /* A subset is not complete: it removes nothing it does not name. The
     * offset keeps the receiver's own ids clear of the sender's. */
    CHECK_INT(wk_ecm_set_create_offset(g.ecm, 1000), ==, WK_OK);
    wk_entity extra = wk_ecm_create(g.ecm);
    CHECK_INT(transfer(w.f.ecm, &(wk_state_desc){.entities = &w.link2, .entity_count = 1}, g.ecm), ==, WK_OK);
    CHECK(wk_ecm_exists(g.ecm, extra));
    CHECK_INT(wk_ecm_count(g.ecm), ==, 4);
    CHECK_INT(wk_ecm_set_state(g.ecm, NULL, 0), ==, WK_OK); /* empty message: nothing to do */
    wk_ecm_free(w.f.ecm);
    wk_ecm_free(g.ecm);
}

static void complete_state_removes_extras(void)
{
    world w = world_new();
    REQUIRE(w.f.ecm);
    fixture g = fixture_new();
    REQUIRE(g.ecm);
    CHECK_INT(wk_ecm_set_create_offset(g.ecm, 100), ==, WK_OK);
    wk_entity extra = wk_ecm_create(g.ecm);
    set_name(&g, extra, "stray");
    CHECK_INT(transfer(w.f.ecm, NULL, g.ecm), ==, WK_OK);
    CHECK(!wk_ecm_exists(g.ecm, extra));
    CHECK(equal(w.f.ecm, g.ecm));
    wk_ecm_free(w.f.ecm);
    wk_ecm_free(g.ecm);
}

/* An entity marked for removal on its own leaves its children without a
 * parent at the end of the step; a state written before then already says
 * so, in full and in the step's changes, so that it applies. */
static void children_of_a_marked_entity(void)
{
    world w = world_new();
    REQUIRE(w.f.ecm);
    fixture g = fixture_new(), h = fixture_new();
    REQUIRE(g.ecm && h.ecm);
    CHECK_INT(transfer(w.f.ecm, NULL, h.ecm), ==, WK_OK);
    CHECK_INT(wk_ecm_end_step(w.f.ecm), ==, WK_OK);
    CHECK_INT(wk_ecm_request_remove(w.f.ecm, w.link1, false), ==, WK_OK);
    CHECK_INT(transfer(w.f.ecm, NULL, g.ecm), ==, WK_OK);
    CHECK_INT(transfer(w.f.ecm, &(wk_state_desc){.changed_only = true}, h.ecm), ==, WK_OK);
    CHECK_INT(wk_ecm_end_step(w.f.ecm), ==, WK_OK);
    CHECK_U64(wk_ecm_parent(w.f.ecm, w.link2), ==, 0);
    CHECK(!wk_ecm_exists(g.ecm, w.link1));
    CHECK_U64(wk_ecm_parent(g.ecm, w.link2), ==, 0);
    CHECK(equal(w.f.ecm, g.ecm));
    CHECK(equal(w.f.ecm, h.ecm));
    wk_ecm_free(w.f.ecm);
    wk_ecm_free(g.ecm);
    wk_ecm_free(h.ecm);
}

/* An ECM loaded from a complete state hands out the ids its source would,
 * never one its source gave an entity since destroyed. */
static void complete_state_keeps_free_slots(void)
{
    world w = world_new();
    REQUIRE(w.f.ecm);
    wk_ecm_destroy(w.f.ecm, w.loose, false);
    wk_ecm_destroy(w.f.ecm, w.link2, false);
    fixture g = fixture_new();
    REQUIRE(g.ecm);
    CHECK_INT(transfer(w.f.ecm, NULL, g.ecm), ==, WK_OK);
    CHECK(equal(w.f.ecm, g.ecm));
    for (int i = 0; i < 3; i++) {
        wk_entity there = wk_ecm_create(w.f.ecm), here = wk_ecm_create(g.ecm);
        CHECK_U64(here, ==, there);
        CHECK(here != w.loose && here != w.link2);
    }
    wk_ecm_free(w.f.ecm);
    wk_ecm_free(g.ecm);
}

/* Applies bad bytes to a copy of a world and checks the copy is untouched. */
static void check_rejected(const uint8_t *bytes, size_t len, int code, const char *needle)
{
    world w = world_new();
    REQUIRE(w.f.ecm);
    wk_ecm *before = wk_ecm_clone(w.f.ecm);
    REQUIRE(before);
    CHECK_INT(wk_ecm_set_state(w.f.ecm, bytes, len), ==, code);
    if (needle && !CHECK(strstr(wk_ecm_errmsg(w.f.ecm), needle) != NULL))
        fprintf(stderr, "    message: %s\n", wk_ecm_errmsg(w.f.ecm));
    CHECK(equal(before, w.f.ecm));
    wk_ecm_free(before);
    wk_ecm_free(w.f.ecm);
}

/* check_rejected for a message, packed here. */
static void check_rejected_msg(const Worldkit__Ecs__State *msg, int code, const char *needle)
{
    size_t size = protobuf_c_message_get_packed_size(&msg->base);
    uint8_t *bytes = malloc(size ? size : 1);
    REQUIRE(bytes);
    check_rejected(bytes, protobuf_c_message_pack(&msg->base, bytes), code, needle);
    free(bytes);
}

/* A state of n entities without values, one block, giving them these
 * parents (none when NULL); empty if out of memory. */
static wk_buf parents_state(wk_entity *ids, wk_entity *parents, size_t n)
{
    Worldkit__Ecs__Block block = WORLDKIT__ECS__BLOCK__INIT;
    block.n_ids = n;
    block.ids = ids;
    block.n_parents = parents ? n : 0;
    block.parents = parents;
    Worldkit__Ecs__Block *blocks[] = {&block};
    Worldkit__Ecs__State msg = WORLDKIT__ECS__STATE__INIT;
    msg.n_blocks = 1;
    msg.blocks = blocks;
    wk_buf out = {0};
    if (wk_buf_reserve(&out, protobuf_c_message_get_packed_size(&msg.base)) == WK_OK)
        out.len = protobuf_c_message_pack(&msg.base, out.data);
    return out;
}

/* A state of n entities giving them these parents, refused as a cycle. */
static void check_cycle(wk_entity *ids, wk_entity *parents, size_t n)
{
    wk_buf state = parents_state(ids, parents, n);
    check_rejected(state.data, state.len, WK_INVALID, "its own ancestor");
    wk_buf_free(&state);
}

static void rejected_messages_change_nothing(void)
{
    check_rejected((const uint8_t *)"\xff\xff\xff", 3, WK_PARSE, "not a worldkit.ecs.State");

    /* A state whose Name value holds a NUL, which the hook refuses. */
    world w = world_new();
    REQUIRE(w.f.ecm);
    wk_entity e = wk_ecm_create(w.f.ecm);
    char bad[] = "a";
    set_name(&w.f, e, bad);
    wk_buf buf = {0};
    wk_ecm_state(w.f.ecm, NULL, &buf);
    uint8_t *a = memchr(buf.data, 'a', buf.len);
    while (a && (a + 1 >= buf.data + buf.len || a[-1] != 1)) /* the 1-byte value "a" */
        a = memchr(a + 1, 'a', (size_t)(buf.data + buf.len - a - 1));
    REQUIRE(a);
    *a = 0;
    check_rejected(buf.data, buf.len, WK_PARSE, "Name value");
    wk_buf_free(&buf);
    wk_ecm_free(w.f.ecm);

    /* A type the receiver does not know. */
    wk_ecm *alien = wk_ecm_new();
    REQUIRE(alien);
    wk_type t;
    wk_ecm_register(alien, &(wk_type_desc){.name = "Battery", .size = 4}, &t);
    wk_ecm_set(alien, wk_ecm_create(alien), t, &(float){0.5f});
    wk_buf alien_state = {0};
    wk_ecm_state(alien, NULL, &alien_state);
    check_rejected(alien_state.data, alien_state.len, WK_NOT_FOUND, "Battery");
    wk_buf_free(&alien_state);
    wk_ecm_free(alien);

    /* Same name, other size. */
    wk_ecm *wide = wk_ecm_new();
    REQUIRE(wide);
    wk_ecm_register(wide, &(wk_type_desc){.name = "Position", .size = 16}, &t);
    wk_ecm_set(wide, wk_ecm_create(wide), t, &(double[2]){1, 2});
    wk_buf wide_state = {0};
    wk_ecm_state(wide, NULL, &wide_state);
    check_rejected(wide_state.data, wide_state.len, WK_MISMATCH, "Position");
    wk_buf_free(&wide_state);
    wk_ecm_free(wide);

    /* An id whose slot holds a live entity of another generation. */
    fixture h = fixture_new();
    REQUIRE(h.ecm);
    wk_entity first = wk_ecm_create(h.ecm);
    wk_ecm_destroy(h.ecm, first, true);
    wk_entity second = wk_ecm_create(h.ecm); /* slot 1, generation 1 */
    wk_ecm_set(h.ecm, second, h.pos, &(vec){1, 1, 1});
    wk_buf clash = {0};
    wk_ecm_state(h.ecm, &(wk_state_desc){.entities = &second, .entity_count = 1}, &clash);
    check_rejected(clash.data, clash.len, WK_EXISTS, "collides");
    wk_buf_free(&clash);
    wk_ecm_free(h.ecm);

    /* A complete state naming the slot of one of its entities free; a
     * second message appended merges into the first. */
    world v = world_new();
    REQUIRE(v.f.ecm);
    wk_buf taken = {0};
    wk_ecm_state(v.f.ecm, NULL, &taken);
    Worldkit__Ecs__State extra = WORLDKIT__ECS__STATE__INIT;
    extra.n_free_slots = 1;
    extra.free_slots = &v.model;
    uint8_t tail[32];
    REQUIRE(protobuf_c_message_get_packed_size(&extra.base) <= sizeof tail);
    wk_buf_append(&taken, tail, protobuf_c_message_pack(&extra.base, tail));
    check_rejected(taken.data, taken.len, WK_PARSE, "free slot");
    wk_buf_free(&taken);

    /* Generations past 11 bits, which no ECM hands out: an entity and a
     * free slot. */
    wk_entity too_new = (2048ull << 32) | 77;
    Worldkit__Ecs__Block lone = WORLDKIT__ECS__BLOCK__INIT;
    lone.n_ids = 1;
    lone.ids = &too_new;
    Worldkit__Ecs__Block *lone_blocks[] = {&lone};
    Worldkit__Ecs__State future = WORLDKIT__ECS__STATE__INIT;
    future.n_blocks = 1;
    future.blocks = lone_blocks;
    check_rejected_msg(&future, WK_PARSE, "generation past 2047");
    future.n_blocks = 0;
    future.complete = future.has_complete = true;
    future.n_free_slots = 1;
    future.free_slots = &too_new;
    check_rejected_msg(&future, WK_PARSE, "generation past 2047");

    /* A block with two columns of one type, declared under two ids. */
    Worldkit__Ecs__ComponentType pos_as[2] = {WORLDKIT__ECS__COMPONENT_TYPE__INIT,
                                              WORLDKIT__ECS__COMPONENT_TYPE__INIT};
    Worldkit__Ecs__Column pos_in[2] = {WORLDKIT__ECS__COLUMN__INIT, WORLDKIT__ECS__COLUMN__INIT};
    vec origin = {0, 0, 0};
    for (uint32_t k = 0; k < 2; k++) {
        pos_as[k].name = "Position";
        pos_as[k].has_id = pos_in[k].has_type = pos_in[k].has_packed_values = true;
        pos_as[k].id = pos_in[k].type = k + 1;
        pos_in[k].packed_values = (ProtobufCBinaryData){sizeof origin, (uint8_t *)&origin};
    }
    Worldkit__Ecs__ComponentType *declared[] = {&pos_as[0], &pos_as[1]};
    Worldkit__Ecs__Column *columns[] = {&pos_in[0], &pos_in[1]};
    wk_entity newcomer = 500;
    Worldkit__Ecs__Block doubled = WORLDKIT__ECS__BLOCK__INIT;
    doubled.n_ids = 1;
    doubled.ids = &newcomer;
    doubled.n_columns = 2;
    doubled.columns = columns;
    Worldkit__Ecs__Block *doubled_blocks[] = {&doubled};
    Worldkit__Ecs__State twice = WORLDKIT__ECS__STATE__INIT;
    twice.n_types = 2;
    twice.types = declared;
    twice.n_blocks = 1;
    twice.blocks = doubled_blocks;
    check_rejected_msg(&twice, WK_PARSE, "two columns of Position");

    /* Parents that close a cycle, beside a parent that alone would be
     * fine (the loose entity below the model): the model below its own
     * grandchild (a cycle through entities the message leaves as they are),
     * and the two links below each other. */
    check_cycle((wk_entity[]){v.loose, v.model}, (wk_entity[]){v.model, v.link2}, 2);
    check_cycle((wk_entity[]){v.loose, v.link1, v.link2}, (wk_entity[]){v.model, v.link2, v.link1}, 3);
    wk_ecm_free(v.f.ecm);
}

/* Applies a message of blocks of ids with parents (parents[b] NULL: the
 * block has none) to ecm; the result code. */
static int apply_parents(wk_ecm *ecm, size_t n_blocks, wk_entity (*ids)[2], wk_entity (*parents)[2], const size_t *n)
{
    Worldkit__Ecs__Block blocks[4], *list[4];
    for (size_t b = 0; b < n_blocks; b++) {
        blocks[b] = (Worldkit__Ecs__Block)WORLDKIT__ECS__BLOCK__INIT;
        blocks[b].n_ids = n[b];
        blocks[b].ids = ids[b];
        blocks[b].n_parents = parents[b][0] ? n[b] : 0;
        blocks[b].parents = parents[b];
        list[b] = &blocks[b];
    }
    Worldkit__Ecs__State msg = WORLDKIT__ECS__STATE__INIT;
    msg.n_blocks = n_blocks;
    msg.blocks = list;
    uint8_t bytes[128];
    if (!CHECK(protobuf_c_message_get_packed_size(&msg.base) <= sizeof bytes))
        return WK_RANGE;
    return wk_ecm_set_state(ecm, bytes, protobuf_c_message_pack(&msg.base, bytes));
}

/* The parents a message gives are applied as a whole: the last block that
 * lists an entity gives its parent, even where an earlier one would alone
 * make a cycle, and a child may become the parent of its parent. */
static void parents_apply_as_a_whole(void)
{
    wk_ecm *ecm = wk_ecm_new();
    REQUIRE(ecm);
    wk_entity a = wk_ecm_create(ecm), b = wk_ecm_create(ecm);
    REQUIRE_INT(wk_ecm_set_parent(ecm, b, a), ==, WK_OK);

    /* a below itself, then a listed again with no parent. */
    CHECK_INT(apply_parents(ecm, 2, (wk_entity[][2]){{a}, {a}}, (wk_entity[][2]){{a}, {0}}, (size_t[]){1, 1}), ==,
              WK_OK);
    CHECK_U64(wk_ecm_parent(ecm, a), ==, WK_NULL_ENTITY);
    CHECK_U64(wk_ecm_parent(ecm, b), ==, a);

    /* b was below a; now a is below b, in one block and in either order. */
    CHECK_INT(apply_parents(ecm, 1, (wk_entity[][2]){{a, b}}, (wk_entity[][2]){{b, WK_NULL_ENTITY}}, (size_t[]){2}),
              ==, WK_OK);
    CHECK_U64(wk_ecm_parent(ecm, a), ==, b);
    CHECK_U64(wk_ecm_parent(ecm, b), ==, WK_NULL_ENTITY);
    CHECK_INT(apply_parents(ecm, 2, (wk_entity[][2]){{a}, {b}}, (wk_entity[][2]){{0}, {a}}, (size_t[]){1, 1}), ==,
              WK_OK);
    CHECK_U64(wk_ecm_parent(ecm, a), ==, WK_NULL_ENTITY);
    CHECK_U64(wk_ecm_parent(ecm, b), ==, a);
    wk_ecm_free(ecm);
}

/* Slots far apart, sharing their low bits, as a state of scattered ids
 * holds them: found by hash, not by place, and still checked. */
static void scattered_slots(void)
{
    enum { n = 64 };
    wk_entity ids[n], parents[n];
    for (size_t k = 0; k < n; k++) {
        ids[k] = ((wk_entity)3 << 32) | (uint32_t)((k + 1) << 20);
        parents[k] = k ? ids[k - 1] : WK_NULL_ENTITY;
    }
    wk_buf state = parents_state(ids, parents, n);
    wk_ecm *ecm = wk_ecm_new();
    REQUIRE(ecm && state.len);
    REQUIRE_INT(wk_ecm_set_state(ecm, state.data, state.len), ==, WK_OK);
    wk_buf_free(&state);
    CHECK_INT(wk_ecm_count(ecm), ==, n);
    int wrong = 0;
    for (size_t k = 0; k < n; k++)
        wrong += !wk_ecm_exists(ecm, ids[k]) || wk_ecm_parent(ecm, ids[k]) != parents[k];
    CHECK_INT(wrong, ==, 0);
    wk_ecm_free(ecm);

    parents[0] = ids[n - 1]; /* the chain closed into a ring */
    check_cycle(ids, parents, n);
    ids[n / 2] = ids[0] + ((wk_entity)1 << 32); /* slot of ids[0], another generation */
    state = parents_state(ids, NULL, n);
    check_rejected(state.data, state.len, WK_PARSE, "two generations");
    wk_buf_free(&state);
}

/* A string type whose copy fails for "FAIL", standing in for running out
 * of memory halfway through applying a state. */
static int picky_copy(void *dst, const void *src)
{
    return strcmp(*(char *const *)src, "FAIL") == 0 ? WK_NOMEM : str_copy(dst, src);
}

static wk_ecm *picky_world(wk_type *picky, wk_entity *a, wk_entity *b)
{
    wk_ecm *ecm = wk_ecm_new();
    if (!ecm || wk_ecm_register(ecm,
                                &(wk_type_desc){.name = "Picky",
                                                .size = sizeof(char *),
                                                .hooks = {picky_copy, str_destroy, str_equal, str_serialize,
                                                          str_deserialize}},
                                picky))
        return NULL;
    const char *x = "x";
    *a = wk_ecm_create(ecm);
    *b = wk_ecm_create(ecm);
    wk_ecm_set(ecm, *a, *picky, &x);
    wk_ecm_set(ecm, *b, *picky, &x);
    return ecm;
}

/* A state that fails halfway, after its first entity's value was set,
 * changes nothing: on its own, and inside a transaction, which keeps what
 * was done before it. */
static void failing_halfway_changes_nothing(void)
{
    wk_type picky;
    wk_entity a, b;
    wk_ecm *src = picky_world(&picky, &a, &b), *dst = picky_world(&picky, &a, &b);
    REQUIRE(src && dst);
    const char *fresh = "new", *almost = "FAIM";
    wk_ecm_set(src, a, picky, &fresh);
    wk_ecm_set(src, b, picky, &almost);
    char *const *held = wk_ecm_get(src, b, picky);
    REQUIRE(held);
    (*held)[3] = 'L'; /* "FAIL", which no set could have put there */
    wk_entity c = wk_ecm_create(src); /* an entity new to dst, and one dst loses */
    wk_ecm_set(src, c, picky, &fresh);
    REQUIRE_INT(wk_ecm_destroy(src, a, false), ==, WK_OK);
    a = wk_ecm_create(src);
    wk_ecm_set(src, a, picky, &fresh);
    wk_buf state = {0};
    REQUIRE_INT(wk_ecm_state(src, NULL, &state), ==, WK_OK);

    wk_ecm *before = wk_ecm_clone(dst);
    REQUIRE(before);
    CHECK_INT(wk_ecm_set_state(dst, state.data, state.len), ==, WK_NOMEM);
    CHECK(strstr(wk_ecm_errmsg(dst), "out of memory applying state") != NULL);
    CHECK(equal(before, dst));
    CHECK(!wk_ecm_txn_open(dst));

    REQUIRE_INT(wk_ecm_txn_begin(dst), ==, WK_OK);
    wk_entity kept = wk_ecm_create(dst);
    wk_ecm *mid = wk_ecm_clone(dst);
    REQUIRE(mid);
    CHECK_INT(wk_ecm_set_state(dst, state.data, state.len), ==, WK_NOMEM);
    CHECK(equal(mid, dst));
    CHECK(wk_ecm_exists(dst, kept));
    CHECK_INT(wk_ecm_txn_rollback(dst), ==, WK_OK);
    CHECK(equal(before, dst));
    wk_buf_free(&state);
    wk_ecm_free(mid);
    wk_ecm_free(before);
    wk_ecm_free(dst);
    wk_ecm_free(src);
}

static void clone_is_deep_and_independent(void)
{
    world w = world_new();
    REQUIRE(w.f.ecm);
    wk_ecm *copy = wk_ecm_clone(w.f.ecm);
    REQUIRE(copy);
    CHECK(equal(w.f.ecm, copy));
    fixture c = w.f;
    c.ecm = copy;
    set_name(&c, w.link1, "changed");
    wk_ecm_set(copy, w.link1, c.pos, &(vec){-1, -1, -1});
    CHECK_STR(get_name(&w.f, w.link1), "base");
    CHECK(!wk_ecm_equal(w.f.ecm, copy, NULL));
    /* The clone keeps the step's tracking: its delta matches the source's. */
    CHECK(wk_ecm_is_new(copy, w.model));
    wk_entity e = wk_ecm_create(copy);
    CHECK(!wk_ecm_exists(w.f.ecm, e));
    wk_query *q = wk_query_new(copy, &(wk_query_desc){.with = {c.pos}});
    REQUIRE(q);
    size_t n = 0;
    for (wk_iter it = wk_query_iter(q); wk_iter_next(&it);)
        n += it.count;
    CHECK_INT(n, ==, 2);
    /* The clone's tables know their types' destroy hooks: the name an
     * entity of the clone loses is freed (the leak checker would say). */
    wk_query_free(q);
    CHECK_INT(wk_ecm_destroy(copy, w.link1, false), ==, 0);
    CHECK(!wk_ecm_exists(copy, w.link1));
    CHECK_STR(get_name(&w.f, w.link1), "base");
    wk_ecm_free(w.f.ecm);
    wk_ecm_free(copy);
}

static const wk_test_case cases[] = {
    {"full_round_trip", full_round_trip},
    {"complete_state_keeps_free_slots", complete_state_keeps_free_slots},
    {"types_match_by_name_not_id", types_match_by_name_not_id},
    {"deltas_and_resync", deltas_and_resync},
    {"delta_covers_every_change_kind", delta_covers_every_change_kind},
    {"subsets", subsets},
    {"complete_state_removes_extras", complete_state_removes_extras},
    {"children_of_a_marked_entity", children_of_a_marked_entity},
    {"rejected_messages_change_nothing", rejected_messages_change_nothing},
    {"parents_apply_as_a_whole", parents_apply_as_a_whole},
    {"scattered_slots", scattered_slots},
    {"failing_halfway_changes_nothing", failing_halfway_changes_nothing},
    {"clone_is_deep_and_independent", clone_is_deep_and_independent},
};
WK_TEST_MAIN(cases)
