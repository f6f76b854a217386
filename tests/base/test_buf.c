/* test_buf.c — the growable byte buffer: appends keep their bytes, and a
 * reservation of nothing still gives a buffer to write nothing at (packing
 * an empty message writes at data + len). */
#include <string.h>

#include "worldkit/wk_base.h"
#include "wk_test.h"

static void reserve_nothing_gives_a_buffer(void)
{
    wk_buf b = {0};
    CHECK_INT(wk_buf_reserve(&b, 0), ==, WK_OK);
    CHECK(b.data != NULL);
    CHECK_INT(b.len, ==, 0);
    wk_buf_free(&b);
    CHECK(b.data == NULL);
}

static void appends_grow_and_keep_bytes(void)
{
    wk_buf b = {0};
    char chunk[100];
    for (int i = 0; i < 50; i++) {
        memset(chunk, 'a' + i % 26, sizeof chunk);
        CHECK_INT(wk_buf_append(&b, chunk, sizeof chunk), ==, WK_OK);
    }
    CHECK_INT(b.len, ==, 5000);
    CHECK(b.cap >= b.len);
    CHECK_INT(b.data[0], ==, 'a');
    CHECK_INT(b.data[4999], ==, 'a' + 49 % 26);
    CHECK_INT(wk_buf_reserve(&b, SIZE_MAX), ==, WK_NOMEM);
    CHECK_INT(b.len, ==, 5000);
    wk_buf_free(&b);
}

static const wk_test_case cases[] = {
    {"reserve_nothing_gives_a_buffer", reserve_nothing_gives_a_buffer},
    {"appends_grow_and_keep_bytes", appends_grow_and_keep_bytes},
};
WK_TEST_MAIN(cases)
