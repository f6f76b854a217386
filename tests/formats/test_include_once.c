/* test_include_once.c — a file included again and again is parsed once per
 * read: a LoadWorld string of 200 <include>s of one model, itself including
 * a documented 64 KB model 10 times (2,200 includes in all), took 2.2 s to
 * read and 303 MB more memory under ASan while each include parsed its file
 * anew (0.11 s and 29 MB parsed once). It must read in under a second and
 * a hundred MB, and every included model must still be there, under its
 * own name. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "base/clock.h"
#include "worldkit/wk_formats.h"
#include "wk_test.h"

enum { OUTER = 200, INNER = 10, DOC_LINES = 700 };

static bool write_file(const char *dir, const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f)
        return false;
    bool ok = fputs(text, f) >= 0;
    return fclose(f) == 0 && ok;
}

/* A growing string, appended to with printf's formats. */
typedef struct text {
    char *s;
    size_t len;
} text;

static void add(text *t, const char *fmt, const char *a, int b)
{
    int n = snprintf(NULL, 0, fmt, a, b);
    if (!(t->s = realloc(t->s, t->len + (size_t)n + 1)))
        abort();
    snprintf(t->s + t->len, (size_t)n + 1, fmt, a, b);
    t->len += (size_t)n;
}

/* inner.sdf: a nested model of 10 links after a long comment, as Gazebo's
 * models open with their license and notes; middle.sdf: 10 includes of it. */
static bool write_models(const char *dir)
{
    text inner = {0}, middle = {0};
    add(&inner, "<?xml version='1.0'?>\n<!--\n", "", 0);
    for (int i = 0; i < DOC_LINES; i++)
        add(&inner, "  This model is documented at length%s: license, authors, notes, line %d.\n", "", i);
    add(&inner, "-->\n<sdf version='1.9'><model name='inner'><model name='n1'>", "", 0);
    for (int i = 0; i < 10; i++)
        add(&inner, "<link name='l%s%d'/>", "", i);
    add(&inner, "</model></model></sdf>\n", "", 0);
    add(&middle, "<sdf version='1.9'><model name='middle'>", "", 0);
    for (int i = 0; i < INNER; i++)
        add(&middle, "<include><uri>inner.sdf</uri><name>i%s%d</name></include>", "", i);
    add(&middle, "</model></sdf>\n", "", 0);
    bool ok = write_file(dir, "inner.sdf", inner.s) && write_file(dir, "middle.sdf", middle.s);
    free(inner.s);
    free(middle.s);
    return ok;
}

static long peak_kb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

static void many_includes_of_one_model(void)
{
    char dir[] = "/tmp/wk_include_once_XXXXXX";
    REQUIRE(mkdtemp(dir));
    REQUIRE(write_models(dir));
    text world = {0};
    add(&world, "<sdf version='1.9'><world name='w'>", "", 0);
    for (int i = 0; i < OUTER; i++)
        add(&world, "<include><uri>%s/middle.sdf</uri><name>m%d</name></include>", dir, i);
    add(&world, "</world></sdf>", "", 0);
    fprintf(stderr, "    a LoadWorld string of %zu bytes\n", world.len);

    const char *roots[] = {dir, NULL};
    long kb0 = peak_kb();
    double t0 = wk__monotonic_s();
    wk_world_desc *d = NULL;
    wk_status st = {0};
    int rc = wk_desc_read(&(wk_read_desc){.resource_string = world.s, .roots = roots}, &d, &st);
    double seconds = wk__monotonic_s() - t0;
    long grown_mb = (peak_kb() - kb0) / 1024;
    fprintf(stderr, "    %d includes read in %.3f s, peak memory up %ld MB\n", OUTER * (INNER + 1), seconds, grown_mb);
    if (CHECK_INT(rc, ==, WK_OK)) {
        CHECK(seconds < 1.0);
        CHECK(grown_mb < 100);
        /* Every include made its own model: 200 middles of 10 inners, each
         * with its nested model, the last of them by its scoped name. */
        size_t nested = 0;
        for (uint32_t i = 0; i < wk_desc_node_count(d); i++) {
            const wk_node *n = wk_desc_node(d, i);
            nested += n->kind == WK_NODE_MODEL && !strcmp(n->name, "n1");
        }
        CHECK_INT(nested, ==, OUTER * INNER);
        char last[128] = "";
        wk_desc_scoped_name(d, (uint32_t)wk_desc_node_count(d) - 1, last, sizeof last);
        CHECK_STR(last, "m199::i9::n1::l9");
    } else {
        fprintf(stderr, "    %s\n", st.message);
    }
    wk_desc_free(d);
    free(world.s);
    char path[512];
    snprintf(path, sizeof path, "%s/inner.sdf", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/middle.sdf", dir);
    unlink(path);
    rmdir(dir);
}

static const wk_test_case cases[] = {
    {"many_includes_of_one_model", many_includes_of_one_model},
};
WK_TEST_MAIN(cases)
