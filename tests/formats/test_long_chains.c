/* test_long_chains.c — files whose cost grew with the square of their
 * length load in time linear in it: a chain of frames each attached to the
 * one before (4,000 took over a minute to instantiate), an SDFormat chain
 * of joints and a URDF chain of links (50,000 took 20 s), every name being
 * looked up by a scan of its scope. Each chain also comes out right: the
 * last frame hangs below the link the chain ends at, the last link below
 * the joint before it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "worldkit/wk_formats.h"
#include "wk_test.h"

/* A growing string. */
typedef struct text {
    char *s;
    size_t len, cap;
} text;

static void add(text *t, const char *fmt, int a, int b)
{
    int n = snprintf(NULL, 0, fmt, a, b);
    if (t->len + (size_t)n + 1 > t->cap) {
        t->cap = (t->len + (size_t)n + 1) * 2;
        if (!(t->s = realloc(t->s, t->cap)))
            abort();
    }
    snprintf(t->s + t->len, (size_t)n + 1, fmt, a, b);
    t->len += (size_t)n;
}

/* Reads and instantiates text, in *seconds; the scene, or NULL, and its
 * world entity in *world. */
static wk_scene *load(const char *text, double *seconds, wk_entity *world)
{
    double t0 = wk__monotonic_s();
    wk_world_desc *d = NULL;
    wk_status st = {0};
    wk_scene *s = NULL;
    if (CHECK_INT(wk_desc_read(&(wk_read_desc){.resource_string = text}, &d, &st), ==, WK_OK) &&
        (s = wk_scene_new()) &&
        !CHECK_INT(wk_desc_instantiate(s, d, 0, WK_NULL_ENTITY, NULL, NULL, world, &st), ==, WK_OK)) {
        wk_scene_free(s);
        s = NULL;
    }
    if (st.code)
        fprintf(stderr, "    %s\n", st.message);
    wk_desc_free(d);
    *seconds = wk__monotonic_s() - t0;
    return s;
}

static void frames_attached_in_a_chain(void)
{
    enum { N = 4000 };
    text t = {0};
    add(&t, "<sdf version='1.9'><world name='w'><model name='m'><link name='l'/>", 0, 0);
    add(&t, "<frame name='f0' attached_to='l'><pose>0 0 0.001 0 0 0</pose></frame>", 0, 0);
    for (int i = 1; i < N; i++)
        add(&t, "<frame name='f%d' attached_to='f%d'><pose>0 0 0.001 0 0 0</pose></frame>", i, i - 1);
    add(&t, "</model></world></sdf>", 0, 0);
    double seconds;
    wk_entity world;
    wk_scene *s = load(t.s, &seconds, &world);
    free(t.s);
    REQUIRE(s);
    fprintf(stderr, "    %d frames: %.3f s\n", N, seconds);
    CHECK(seconds < 1.0);
    char last[32];
    snprintf(last, sizeof last, "m::f%d", N - 1);
    wk_entity frame = wk_scene_scoped(s, world, last), link = wk_scene_scoped(s, world, "m::l");
    CHECK(frame && link);
    CHECK_INT(wk_ecm_parent(wk_scene_ecm(s), frame), ==, link);
    /* Each frame's pose is relative to the one before. */
    CHECK_NEAR(wk_scene_world_pose(s, frame).p.z, N * 0.001, 1e-9);
    wk_scene_free(s);
}

static void sdf_chain_of_joints(void)
{
    enum { N = 50000 };
    text t = {0};
    add(&t, "<sdf version='1.9'><world name='w'><model name='m'>", 0, 0);
    for (int i = 0; i < N; i++)
        add(&t, "<link name='l%d'><pose>0 0 %d 0 0 0</pose></link>", i, i);
    for (int i = 1; i < N; i++)
        add(&t, "<joint name='j%d' type='revolute'><parent>l%d</parent>", i, i - 1),
            add(&t, "<child>l%d</child><axis><xyz>0 0 1</xyz></axis></joint>", i, 0);
    add(&t, "</model></world></sdf>", 0, 0);
    double seconds;
    wk_entity world;
    wk_scene *s = load(t.s, &seconds, &world);
    free(t.s);
    REQUIRE(s);
    fprintf(stderr, "    %d joints: %.3f s\n", N - 1, seconds);
    CHECK(seconds < 10.0);
    char last[32];
    snprintf(last, sizeof last, "m::l%d", N - 1);
    wk_entity link = wk_scene_scoped(s, world, last);
    CHECK(link);
    CHECK_NEAR(wk_scene_world_pose(s, link).p.z, N - 1, 1e-9);
    wk_scene_free(s);
}

static void urdf_chain_of_links(void)
{
    enum { N = 50000 };
    text t = {0};
    add(&t, "<robot name='r'>", 0, 0);
    for (int i = 0; i < N; i++)
        add(&t, "<link name='l%d'/>", i, 0);
    for (int i = 1; i < N; i++)
        add(&t, "<joint name='j%d' type='fixed'><parent link='l%d'/>", i, i - 1),
            add(&t, "<child link='l%d'/><origin xyz='0 0 1'/></joint>", i, 0);
    add(&t, "</robot>", 0, 0);
    double seconds;
    wk_entity world;
    wk_scene *s = load(t.s, &seconds, &world);
    free(t.s);
    REQUIRE(s);
    fprintf(stderr, "    %d links: %.3f s\n", N, seconds);
    CHECK(seconds < 10.0);
    char last[32];
    snprintf(last, sizeof last, "r::l%d", N - 1);
    wk_entity link = wk_scene_scoped(s, world, last);
    CHECK(link);
    CHECK_NEAR(wk_scene_world_pose(s, link).p.z, N - 1, 1e-6);
    wk_scene_free(s);
}

static const wk_test_case cases[] = {
    {"frames_attached_in_a_chain", frames_attached_in_a_chain},
    {"sdf_chain_of_joints", sdf_chain_of_joints},
    {"urdf_chain_of_links", urdf_chain_of_links},
};
WK_TEST_MAIN(cases)
