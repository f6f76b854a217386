/* test_status.c — the code table: names, default messages, the gRPC status
 * each code answers with, and wk_fail's message. */
#include "worldkit/wk_base.h"
#include "wk_test.h"

static void names_messages_and_grpc(void)
{
    CHECK_STR(wk_code_name(WK_NOT_FOUND), "NOT_FOUND");
    CHECK_STR(wk_code_name(12345), "UNKNOWN");
    CHECK_STR(wk_strerror(WK_NOMEM), "out of memory");
    CHECK_INT(wk_code_grpc(WK_OK), ==, WK_GRPC_OK);
    CHECK_INT(wk_code_grpc(WK_NOT_FOUND), ==, WK_GRPC_NOT_FOUND);
    CHECK_INT(wk_code_grpc(WK_EXISTS), ==, WK_GRPC_ALREADY_EXISTS);
    CHECK_INT(wk_code_grpc(WK_INVALID), ==, WK_GRPC_INVALID_ARGUMENT);
    CHECK_INT(wk_code_grpc(WK_PRECONDITION), ==, WK_GRPC_FAILED_PRECONDITION);
    CHECK_INT(wk_code_grpc(WK_RANGE), ==, WK_GRPC_OUT_OF_RANGE);
    CHECK_INT(wk_code_grpc(-999), ==, WK_GRPC_INTERNAL);
}

static void fail_fills_the_status(void)
{
    wk_status st;
    CHECK_INT(wk_fail(&st, WK_EXISTS, "object '%s' exists", "cup"), ==, WK_EXISTS);
    CHECK_INT(st.code, ==, WK_EXISTS);
    CHECK_STR(st.message, "object 'cup' exists");
    CHECK_INT(wk_fail(NULL, WK_INVALID, "ignored"), ==, WK_INVALID);
}

static const wk_test_case cases[] = {
    {"names_messages_and_grpc", names_messages_and_grpc},
    {"fail_fills_the_status", fail_fills_the_status},
};
WK_TEST_MAIN(cases)
