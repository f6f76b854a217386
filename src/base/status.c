/* status.c — names and messages for result codes, and filling a wk_status. */
#include "worldkit/wk_base.h"

#include <stdio.h>
#include <string.h>

const char *wk_code_name(int code)
{
    switch (code) {
#define WK__CODE_NAME(name, value, grpc, msg) \
    case value:                         \
        return #name;
        WK_CODE_TABLE(WK__CODE_NAME)
#undef WK__CODE_NAME
    }
    return "UNKNOWN";
}

const char *wk_strerror(int code)
{
    switch (code) {
#define WK__CODE_MSG(name, value, grpc, msg) \
    case value:                        \
        return msg;
        WK_CODE_TABLE(WK__CODE_MSG)
#undef WK__CODE_MSG
    }
    return "unknown result code";
}

int wk_code_grpc(int code)
{
    switch (code) {
#define WK__CODE_GRPC(name, value, grpc, msg) \
    case value:                               \
        return WK_GRPC_##grpc;
        WK_CODE_TABLE(WK__CODE_GRPC)
#undef WK__CODE_GRPC
    }
    return WK_GRPC_INTERNAL;
}

int wk_failv(wk_status *st, int code, const char *fmt, va_list ap)
{
    if (st) {
        st->code = code;
        vsnprintf(st->message, sizeof st->message, fmt, ap);
    }
    return code;
}

int wk_fail(wk_status *st, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    wk_failv(st, code, fmt, ap);
    va_end(ap);
    return code;
}

void wk_status_clear(wk_status *st)
{
    st->code = WK_OK;
    st->message[0] = '\0';
}
