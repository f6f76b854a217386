/* grpc_log.c — gRPC's own log lines. While a server starts they are
 * dropped: a failure there (a port already taken, say) comes back to
 * wk_server_start as a result, which worldkit reports in one line naming
 * the address, where gRPC's line is a page of nested internals. Later ones
 * (a client's failed TLS handshake, which nothing else reports) go to
 * stderr, one line each. With GRPC_VERBOSITY set, gRPC's own logger stays. */
#include <grpc/support/log.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "server/server_internal.h"

static atomic_int starting; /* servers between hold and release */

static void log_line(gpr_log_func_args *args)
{
    if (atomic_load(&starting) == 0)
        fprintf(stderr, "worldkit: gRPC %s: %s (%s:%d)\n", gpr_log_severity_string(args->severity), args->message,
                args->file, args->line);
}

void wk__grpc_log_hold(void)
{
    if (atomic_fetch_add(&starting, 1) == 0 && !getenv("GRPC_VERBOSITY"))
        gpr_set_log_function(log_line);
}

void wk__grpc_log_release(void)
{
    atomic_fetch_sub(&starting, 1);
}
