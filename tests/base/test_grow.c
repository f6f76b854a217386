/* test_grow.c — wk__grow: capacity reaches what is asked, items survive a
 * move, and a growth too big for a size_t fails with the array untouched. */
#include <stdint.h>
#include <stdlib.h>

#include "base/grow.h"
#include "worldkit/wk_base.h"
#include "wk_test.h"

static void grows_from_empty_and_keeps_items(void)
{
    int *items = NULL;
    size_t cap = 0;
    for (size_t i = 0; i < 1000; i++) {
        CHECK_INT(WK__GROW(items, cap, i + 1), ==, WK_OK);
        CHECK(cap >= i + 1);
        items[i] = (int)i * 3;
    }
    for (size_t i = 0; i < 1000; i++)
        CHECK_INT(items[i], ==, (int)i * 3);
    free(items);
}

static void doubles_and_leaves_room_alone(void)
{
    int *items = NULL;
    size_t cap = 0;
    CHECK_INT(WK__GROW(items, cap, 1), ==, WK_OK);
    CHECK_INT(cap, ==, 8);
    int *before = items;
    CHECK_INT(WK__GROW(items, cap, 8), ==, WK_OK);
    CHECK(items == before);
    CHECK_INT(cap, ==, 8);
    CHECK_INT(WK__GROW(items, cap, 9), ==, WK_OK);
    CHECK_INT(cap, ==, 16);
    CHECK_INT(WK__GROW(items, cap, 100), ==, WK_OK);
    CHECK_INT(cap, ==, 128);
    free(items);
}

static void overflow_fails_untouched(void)
{
    double *items = NULL;
    size_t cap = 0;
    CHECK_INT(WK__GROW(items, cap, 4), ==, WK_OK);
    items[3] = 2.5;
    double *before = items;
    size_t cap_before = cap;
    /* Bytes past SIZE_MAX, and a count whose doubling overflows. */
    CHECK_INT(WK__GROW(items, cap, SIZE_MAX / sizeof *items + 1), ==, WK_NOMEM);
    CHECK_INT(WK__GROW(items, cap, SIZE_MAX), ==, WK_NOMEM);
    CHECK(items == before);
    CHECK_INT(cap, ==, cap_before);
    CHECK(items[3] == 2.5);
    free(items);
}

static const wk_test_case cases[] = {
    {"grows_from_empty_and_keeps_items", grows_from_empty_and_keeps_items},
    {"doubles_and_leaves_room_alone", doubles_and_leaves_room_alone},
    {"overflow_fails_untouched", overflow_fails_untouched},
};
WK_TEST_MAIN(cases)
