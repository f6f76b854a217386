/* oracle_diff.c — compares worldkit's world poses with a reference reader's.
 *
 *   oracle_diff ORACLE FILE...
 *
 * For each file, runs `ORACLE FILE` (a program built on libsdformat, urdfdom
 * or MuJoCo that prints `<kind> <scoped::name> x y z qx qy qz qw` lines),
 * reads the same file with wk_desc_read, and checks that both list the same
 * (kind, name) pairs with positions within 1e-9 and the same rotations
 * within 1e-9 (q and -q being one rotation). Exits non-zero on any
 * difference, printing both sides.
 *
 * Lines of kind "colour" carry a shape's colour from its material instead,
 * `colour <scoped::name> r g b a 0 0 0` in the same nine fields, compared
 * within 1e-6 (MuJoCo keeps colours as floats); a shape whose file gives
 * no colour has no such line.
 *
 * A FILE of the form WORLDKIT_FILE=REFERENCE_FILE has worldkit read the
 * first and the reference the second: a world written with what the
 * reference cannot read (MuJoCo 3's frames, for Debian's MuJoCo 2.2.2)
 * beside the same world written without it.
 *
 *   oracle_diff ORACLE --refused FILE...
 *
 * checks instead that both refuse each file: the reference exits non-zero
 * and wk_desc_read returns RESOURCE_PARSE_ERROR (WK_PARSE). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "worldkit/wk_formats.h"

#define TOLERANCE 1e-9
#define COLOUR_TOLERANCE 1e-6

typedef struct pose_line {
    char key[600]; /* "kind name" */
    double v[7];
} pose_line;

typedef struct pose_lines {
    pose_line *items;
    size_t count, cap;
} pose_lines;

static pose_line *push(pose_lines *l)
{
    if (l->count == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 64;
        l->items = realloc(l->items, l->cap * sizeof *l->items);
        if (!l->items) {
            fprintf(stderr, "oracle_diff: out of memory\n");
            exit(2);
        }
    }
    return &l->items[l->count++];
}

static int by_key(const void *a, const void *b)
{
    return strcmp(((const pose_line *)a)->key, ((const pose_line *)b)->key);
}

static bool run_oracle(const char *oracle, const char *file, pose_lines *out)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "'%s' '%s'", oracle, file);
    FILE *p = popen(cmd, "r");
    if (!p)
        return false;
    char kind[32], name[512];
    double v[7];
    while (fscanf(p, "%31s %511s %lf %lf %lf %lf %lf %lf %lf", kind, name, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
                  &v[6]) == 9) {
        pose_line *l = push(out);
        snprintf(l->key, sizeof l->key, "%s %s", kind, name);
        memcpy(l->v, v, sizeof v);
    }
    return pclose(p) == 0;
}

static bool read_worldkit(const char *file, pose_lines *out)
{
    wk_world_desc *d = NULL;
    wk_status st = {0};
    if (wk_desc_read(&(wk_read_desc){.uri = file, .ignore_missing_or_unsupported_assets = true}, &d, &st)) {
        fprintf(stderr, "  worldkit: %s: %s\n", wk_code_name(st.code), st.message);
        return false;
    }
    for (uint32_t i = 0; i < wk_desc_node_count(d); i++) {
        const wk_node *n = wk_desc_node(d, i);
        if (n->kind != WK_NODE_MODEL && n->kind != WK_NODE_LINK && n->kind != WK_NODE_JOINT &&
            n->kind != WK_NODE_FRAME && n->kind != WK_NODE_VISUAL && n->kind != WK_NODE_COLLISION)
            continue;
        char name[512];
        wk_desc_scoped_name(d, i, name, sizeof name);
        pose_line *l = push(out);
        snprintf(l->key, sizeof l->key, "%s %s", wk_node_kind_name(n->kind), name);
        const wk_pose *p = &n->world;
        double v[7] = {p->p.x, p->p.y, p->p.z, p->q.x, p->q.y, p->q.z, p->q.w};
        memcpy(l->v, v, sizeof v);
        if ((n->kind == WK_NODE_VISUAL || n->kind == WK_NODE_COLLISION) && n->shape.has_colour) {
            l = push(out);
            snprintf(l->key, sizeof l->key, "colour %s", name);
            memset(l->v, 0, sizeof l->v);
            memcpy(l->v, n->shape.colour, sizeof n->shape.colour);
        }
    }
    wk_desc_free(d);
    return true;
}

static bool same_colour(const double *a, const double *b)
{
    for (int i = 0; i < 7; i++)
        if (!(fabs(a[i] - b[i]) <= COLOUR_TOLERANCE))
            return false;
    return true;
}

static bool same_pose(const double *a, const double *b)
{
    double dq_plus = 0, dq_minus = 0;
    for (int i = 0; i < 3; i++)
        if (!(fabs(a[i] - b[i]) <= TOLERANCE))
            return false;
    for (int i = 3; i < 7; i++) {
        dq_plus = fmax(dq_plus, fabs(a[i] - b[i]));
        dq_minus = fmax(dq_minus, fabs(a[i] + b[i]));
    }
    return fmin(dq_plus, dq_minus) <= TOLERANCE;
}

static void print_line(const char *who, const pose_line *l)
{
    fprintf(stderr, "    %-9s %s %.17g %.17g %.17g | %.17g %.17g %.17g %.17g\n", who, l->key, l->v[0], l->v[1],
            l->v[2], l->v[3], l->v[4], l->v[5], l->v[6]);
}

/* Returns the number of differences between the two sorted lists. */
static int compare(pose_lines *ref, pose_lines *wk)
{
    qsort(ref->items, ref->count, sizeof *ref->items, by_key);
    qsort(wk->items, wk->count, sizeof *wk->items, by_key);
    int diffs = 0;
    size_t i = 0, j = 0;
    while (i < ref->count || j < wk->count) {
        int c = i == ref->count ? 1 : j == wk->count ? -1 : strcmp(ref->items[i].key, wk->items[j].key);
        if (c < 0) {
            fprintf(stderr, "  only in the reference:\n");
            print_line("reference", &ref->items[i++]);
        } else if (c > 0) {
            fprintf(stderr, "  only in worldkit:\n");
            print_line("worldkit", &wk->items[j++]);
        } else {
            bool colour = !strncmp(ref->items[i].key, "colour ", 7);
            if (colour ? !same_colour(ref->items[i].v, wk->items[j].v) : !same_pose(ref->items[i].v, wk->items[j].v)) {
                fprintf(stderr, "  %s differ:\n", colour ? "colours" : "poses");
                print_line("reference", &ref->items[i]);
                print_line("worldkit", &wk->items[j]);
            } else {
                c = 0;
                i++, j++;
                continue;
            }
            i++, j++;
        }
        diffs++;
    }
    return diffs;
}

/* True when both the reference and worldkit refuse file, worldkit with WK_PARSE. */
static bool both_refuse(const char *oracle, const char *file)
{
    pose_lines ref = {0};
    bool reference_refused = !run_oracle(oracle, file, &ref);
    free(ref.items);
    wk_world_desc *d = NULL;
    wk_status st = {0};
    int rc = wk_desc_read(&(wk_read_desc){.uri = file, .ignore_missing_or_unsupported_assets = true}, &d, &st);
    wk_desc_free(d);
    if (!reference_refused)
        fprintf(stderr, "  the reference read %s\n", file);
    if (rc != WK_PARSE)
        fprintf(stderr, "  worldkit: %s: %s\n", wk_code_name(rc), rc ? st.message : "read it");
    else
        fprintf(stderr, "  worldkit: %s\n", st.message);
    return reference_refused && rc == WK_PARSE;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: oracle_diff ORACLE [--refused] FILE...\n");
        return 2;
    }
    int failed = 0;
    if (!strcmp(argv[2], "--refused")) {
        for (int f = 3; f < argc; f++) {
            bool ok = both_refuse(argv[1], argv[f]);
            printf("%-4s %s (refused)\n", ok ? "ok" : "FAIL", argv[f]);
            failed += !ok;
        }
        return failed ? 1 : 0;
    }
    for (int f = 2; f < argc; f++) {
        pose_lines ref = {0}, wk = {0};
        char wk_file[4096];
        snprintf(wk_file, sizeof wk_file, "%s", argv[f]);
        char *ref_file = strchr(wk_file, '=');
        if (ref_file)
            *ref_file++ = '\0';
        else
            ref_file = wk_file;
        bool ok = run_oracle(argv[1], ref_file, &ref);
        if (!ok)
            fprintf(stderr, "  the reference failed on %s\n", ref_file);
        ok = read_worldkit(wk_file, &wk) && ok;
        int diffs = ok ? compare(&ref, &wk) : 1;
        if (ok && ref.count == 0) {
            fprintf(stderr, "  the reference printed no poses for %s\n", argv[f]);
            diffs++;
        }
        printf("%-4s %s (%zu poses)\n", diffs ? "FAIL" : "ok", argv[f], ref.count);
        failed += diffs != 0;
        free(ref.items);
        free(wk.items);
    }
    return failed ? 1 : 0;
}
