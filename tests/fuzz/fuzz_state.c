/* fuzz_state.c — libFuzzer target for the state decoder: any bytes given to
 * wk_ecm_set_state must either be refused with the ECM unchanged, or be
 * applied so that the receiver's own full state, applied to a fresh ECM,
 * reproduces it. The ECM keeps one type in a sparse set. Built with
 * -fsanitize=fuzzer under clang (WK_FUZZ=ON), and replayed over its corpus
 * by the tests in every build. */
#include <stdio.h>
#include <stdlib.h>

#include "ecs/fixture.h"

static void die(const char *what, const wk_ecm *ecm)
{
    fprintf(stderr, "fuzz_state: %s: %s\n", what, ecm ? wk_ecm_errmsg(ecm) : "");
    abort(); /* a fuzz target reports a finding by crashing */
}

/* Registers "Mark", a double kept in a sparse set, so that states reach
 * the sparse sets' blocks too. */
static int with_sparse_type(wk_ecm *ecm, wk_type *out)
{
    return wk_ecm_register(ecm, &(wk_type_desc){.name = "Mark", .size = sizeof(double), .sparse = true}, out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fixture f = fixture_new();
    wk_type mark;
    if (!f.ecm || with_sparse_type(f.ecm, &mark))
        return 0;
    wk_entity a = wk_ecm_create(f.ecm), b = wk_ecm_create(f.ecm);
    set_name(&f, a, "a");
    wk_ecm_set(f.ecm, b, f.pos, &(vec){1, 2, 3});
    wk_ecm_set(f.ecm, a, mark, &(double){4});
    wk_ecm_set_parent(f.ecm, b, a);
    wk_ecm *before = wk_ecm_clone(f.ecm);
    if (!before)
        die("clone", f.ecm);

    int rc = wk_ecm_set_state(f.ecm, data, size);
    if (rc == WK_PARSE || rc == WK_NOT_FOUND || rc == WK_MISMATCH || rc == WK_EXISTS || rc == WK_INVALID ||
        rc == WK_RANGE) {
        if (!wk_ecm_equal(before, f.ecm, NULL))
            die("a refused state changed the ECM", f.ecm);
    } else if (rc == WK_OK) {
        wk_buf buf = {0};
        fixture g = fixture_new();
        if (!g.ecm || with_sparse_type(g.ecm, &mark) || wk_ecm_state(f.ecm, NULL, &buf) ||
            wk_ecm_set_state(g.ecm, buf.data, buf.len))
            die("round trip of an accepted state", g.ecm);
        if (!wk_ecm_equal(f.ecm, g.ecm, NULL))
            die("round trip differs", g.ecm);
        wk_buf_free(&buf);
        wk_ecm_free(g.ecm);
    } else {
        die(wk_code_name(rc), f.ecm);
    }
    wk_ecm_free(before);
    wk_ecm_free(f.ecm);
    return 0;
}
