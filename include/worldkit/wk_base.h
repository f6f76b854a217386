/* wk_base.h — the base layer: result codes, status values and growable buffers.
 *
 * Every fallible worldkit call returns an int: zero or a positive value on
 * success, a negative WK_E* code on failure. Calls that can say more fill a
 * wk_status with the code and a message naming the culprit (entity, element,
 * file:line). The code table below is the single source of codes, their names
 * and their default messages. */
#ifndef WK_BASE_H
#define WK_BASE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* X(NAME, value, gRPC status the code answers with, default message)
 * A feature of a request that worldkit does not support (UNSUPPORTED)
 * answers INVALID_ARGUMENT, not UNIMPLEMENTED: Intrinsic's clients take
 * UNIMPLEMENTED for a server not there yet and retry it for about a minute,
 * and the request will not be taken however often it comes. */
#define WK_CODE_TABLE(X)                                                                      \
    X(OK, 0, OK, "success")                                                                   \
    X(NOMEM, -1, RESOURCE_EXHAUSTED, "out of memory")                                         \
    X(INVALID, -2, INVALID_ARGUMENT, "invalid argument")                                      \
    X(NOT_FOUND, -3, NOT_FOUND, "not found")                                                  \
    X(STALE, -4, NOT_FOUND, "entity id is stale or was never created")                        \
    X(EXISTS, -5, ALREADY_EXISTS, "already exists")                                           \
    X(MISMATCH, -6, FAILED_PRECONDITION, "definition does not match the existing one")        \
    X(PARSE, -7, INVALID_ARGUMENT, "malformed input")                                         \
    X(RANGE, -8, OUT_OF_RANGE, "value out of range")                                          \
    X(BUSY, -9, FAILED_PRECONDITION, "not allowed while an iteration is open")                \
    X(UNSUPPORTED, -10, INVALID_ARGUMENT, "unsupported")                                      \
    X(NO_RESOURCE, -11, INVALID_ARGUMENT, "neither a uri nor a resource string")              \
    X(UNSUPPORTED_FORMAT, -12, INVALID_ARGUMENT, "unsupported format")                        \
    X(MISSING_ASSETS, -13, NOT_FOUND, "missing assets")                                       \
    X(UNSUPPORTED_ASSETS, -14, UNIMPLEMENTED, "unsupported assets")                           \
    X(UNSUPPORTED_ELEMENTS, -15, UNIMPLEMENTED, "unsupported elements")                       \
    X(PRECONDITION, -16, FAILED_PRECONDITION, "the world is not in a state that allows this") \
    X(IO, -17, INTERNAL, "storage failed")                                                    \
    X(DEADLINE, -18, DEADLINE_EXCEEDED, "the call's deadline passed before it was done")      \
    X(LIMIT, -19, RESOURCE_EXHAUSTED, "past a limit the server was given")                   \
    X(MOVED, -20, UNAVAILABLE, "another server holds the world's lease")                      \
    X(UNAVAILABLE, -21, UNAVAILABLE, "the database cannot be reached")

enum wk_code {
#define WK__CODE_ENUM(name, value, grpc, msg) WK_##name = (value),
    WK_CODE_TABLE(WK__CODE_ENUM)
#undef WK__CODE_ENUM
};

/* "NOMEM" for WK_NOMEM; "UNKNOWN" for a value outside the table. */
const char *wk_code_name(int code);
/* The table's default message for a code. */
const char *wk_strerror(int code);

/* The gRPC status codes (grpc/status.h), by name, for servers and callers
 * that answer in them. */
enum wk_grpc_status {
    WK_GRPC_OK = 0,
    WK_GRPC_INVALID_ARGUMENT = 3,
    WK_GRPC_DEADLINE_EXCEEDED = 4,
    WK_GRPC_NOT_FOUND = 5,
    WK_GRPC_ALREADY_EXISTS = 6,
    WK_GRPC_RESOURCE_EXHAUSTED = 8,
    WK_GRPC_FAILED_PRECONDITION = 9,
    WK_GRPC_OUT_OF_RANGE = 11,
    WK_GRPC_UNIMPLEMENTED = 12,
    WK_GRPC_INTERNAL = 13,
    WK_GRPC_UNAVAILABLE = 14,
};
/* The gRPC status a code answers with; INTERNAL outside the table. */
int wk_code_grpc(int code);

#define WK_STATUS_MSG_MAX 256
/* The longest name worldkit takes, in bytes, of anything named (world,
 * model, link, joint, frame, object, entity): a name travels in every answer
 * about its owner, and one of megabytes would make each of them as large. */
#define WK_NAME_MAX 255

/* A result code plus a message naming what failed. Caller-allocated. */
typedef struct wk_status {
    int code;
    char message[WK_STATUS_MSG_MAX];
} wk_status;

/* Records code and a printf-style message in st (which may be NULL) and
 * returns code, so that `return wk_fail(st, WK_INVALID, "...")` reads well. */
int wk_fail(wk_status *st, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int wk_failv(wk_status *st, int code, const char *fmt, va_list ap);
/* Resets st to WK_OK with an empty message. */
void wk_status_clear(wk_status *st);

/* A growable byte buffer. Zero-initialised is empty and valid. */
typedef struct wk_buf {
    uint8_t *data;
    size_t len;
    size_t cap;
} wk_buf;

/* Makes room for at least n more bytes; b->data is not NULL afterwards,
 * even for n = 0. Returns 0 or WK_NOMEM. */
int wk_buf_reserve(wk_buf *b, size_t n);
/* Appends n bytes. Returns 0 or WK_NOMEM. */
int wk_buf_append(wk_buf *b, const void *bytes, size_t n);
void wk_buf_free(wk_buf *b);

#ifdef __cplusplus
}
#endif
#endif
