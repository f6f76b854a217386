/* client.h — what `worldkit call` (call.c) and its short forms
 * (call_short.c) share: the client options and one RPC over gRPC with its
 * responses printed as JSON. */
#ifndef WK_CLI_CLIENT_H
#define WK_CLI_CLIENT_H

#include "worldkit/wk_api.h"

typedef struct wk_client {
    const char *server; /* host:port; --server, else WORLDKIT_SERVER, else 127.0.0.1:50051 */
    double timeout;     /* seconds before the call's deadline; 0: none */
} wk_client;

/* Takes --server HOST:PORT and --timeout SECONDS out of argv (argv[0], the
 * subcommand, stays), shifting the rest down and lowering *argc. Returns
 * false, with the reason printed, for a bad value. */
bool wk_client_options(int *argc, char **argv, wk_client *c);

/* Calls method with a serialized request and prints every response message
 * as JSON on stdout, one after the other (a server stream writes many).
 * Returns the exit status: 0 when the call ends with status OK, else 1 with
 * the status printed on stderr. The last response's bytes are appended to
 * last, which may be NULL. */
int wk_client_call(const wk_client *c, const wk_json_method *method, const uint8_t *request, size_t len,
                   wk_buf *last);

#endif
