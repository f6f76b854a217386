/* copies.h — checks shared by the tests of the scene's owned components:
 * a clone and a full state applied to a fresh scene are equal to the
 * original, and a component's decoder survives damaged bytes (every
 * truncation and byte flip of its serialized values): a damaged state is
 * refused, or applied so that it round-trips itself. */
#ifndef WK_TESTS_SCENE_COPIES_H
#define WK_TESTS_SCENE_COPIES_H

#include <stdlib.h>

#include "worldkit/ecs_state.pb-c.h"
#include "worldkit/wk_scene.h"
#include "wk_test.h"

/* A fresh scene holding s's full state, made an object world on the same
 * root; NULL (with a failed check) when that fails. */
static inline wk_scene *state_copy(wk_scene *s)
{
    wk_buf buf = {0};
    wk_scene *g = wk_scene_new();
    wk_status st;
    bool ok = g && CHECK_INT(wk_ecm_state(wk_scene_ecm(s), NULL, &buf), ==, WK_OK) &&
              CHECK_INT(wk_ecm_set_state(wk_scene_ecm(g), buf.data, buf.len), ==, WK_OK) &&
              CHECK_INT(wk_scene_objects_init(g, wk_scene_root(s), &st), ==, WK_OK);
    wk_buf_free(&buf);
    if (!ok) {
        wk_scene_free(g);
        return NULL;
    }
    return g;
}

/* The clone and the state copy of s are equal to it. */
static inline void check_copies(wk_scene *s)
{
    wk_status why = {0};
    wk_scene *c = wk_scene_clone(s);
    REQUIRE(c);
    if (!CHECK(wk_ecm_equal(wk_scene_ecm(s), wk_scene_ecm(c), &why)))
        fprintf(stderr, "    clone differs: %s\n", why.message);
    wk_scene_free(c);
    wk_scene *g = state_copy(s);
    REQUIRE(g);
    if (!CHECK(wk_ecm_equal(wk_scene_ecm(s), wk_scene_ecm(g), &why)))
        fprintf(stderr, "    state copy differs: %s\n", why.message);
    wk_scene_free(g);
}

/* Applies a state to a fresh scene: refused, or accepted and then
 * reproduced exactly by its own full state. */
static inline bool damaged_state_ok(const uint8_t *bytes, size_t len)
{
    wk_scene *f = wk_scene_new(), *g = wk_scene_new();
    bool ok = f && g;
    if (ok && wk_ecm_set_state(wk_scene_ecm(f), bytes, len) == WK_OK) {
        wk_buf buf = {0};
        ok = wk_ecm_state(wk_scene_ecm(f), NULL, &buf) == WK_OK &&
             wk_ecm_set_state(wk_scene_ecm(g), buf.data, buf.len) == WK_OK &&
             wk_ecm_equal(wk_scene_ecm(f), wk_scene_ecm(g), NULL);
        wk_buf_free(&buf);
    }
    wk_scene_free(f);
    wk_scene_free(g);
    return ok;
}

/* Damages every value of the type named type_name in s's full state, one
 * truncation or byte flip at a time. Returns how many damaged states were
 * tried (0 when the type holds no value). */
static inline size_t check_decoder(wk_scene *s, const char *type_name)
{
    wk_buf buf = {0};
    size_t tried = 0;
    if (!CHECK_INT(wk_ecm_state(wk_scene_ecm(s), NULL, &buf), ==, WK_OK))
        return 0;
    Worldkit__Ecs__State *msg = worldkit__ecs__state__unpack(NULL, buf.len, buf.data);
    if (!CHECK(msg)) {
        wk_buf_free(&buf);
        return 0;
    }
    uint32_t id = UINT32_MAX;
    for (size_t i = 0; i < msg->n_types; i++)
        if (strcmp(msg->types[i]->name, type_name) == 0)
            id = msg->types[i]->id;
    for (size_t b = 0; b < msg->n_blocks; b++)
        for (size_t c = 0; c < msg->blocks[b]->n_columns; c++) {
            Worldkit__Ecs__Column *col = msg->blocks[b]->columns[c];
            for (size_t v = 0; col->type == id && v < col->n_values; v++) {
                ProtobufCBinaryData saved = col->values[v];
                uint8_t *scratch = malloc(saved.len + 1);
                if (!CHECK(scratch))
                    break;
                /* len + 1 variants of truncation, 2 * len of flips. */
                for (size_t k = 0; k < 3 * saved.len + 1; k++) {
                    memcpy(scratch, saved.data, saved.len);
                    size_t len = saved.len;
                    if (k <= saved.len)
                        len = k;
                    else if (k <= 2 * saved.len)
                        scratch[k - saved.len - 1] ^= 0x01;
                    else
                        scratch[k - 2 * saved.len - 1] ^= 0xff;
                    col->values[v] = (ProtobufCBinaryData){len, scratch};
                    size_t size = worldkit__ecs__state__get_packed_size(msg);
                    uint8_t *packed = malloc(size + 1);
                    if (!CHECK(packed))
                        break;
                    worldkit__ecs__state__pack(msg, packed);
                    if (!CHECK(damaged_state_ok(packed, size)))
                        fprintf(stderr, "    %s value %zu, damage %zu\n", type_name, v, k);
                    free(packed);
                    tried++;
                }
                col->values[v] = saved;
                free(scratch);
            }
        }
    worldkit__ecs__state__free_unpacked(msg, NULL);
    wk_buf_free(&buf);
    return tried;
}

#endif
