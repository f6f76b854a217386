/* client.h — what `worldkit call` (call.c) and its short forms
 * (call_short.c) share: the client options and one RPC over gRPC with its
 * responses printed as JSON. */
#ifndef WK_CLI_CLIENT_H
#define WK_CLI_CLIENT_H

#include <grpc/grpc_security.h>

#include "worldkit/wk_api.h"

typedef struct wk_client {
    const char *server;     /* host:port; --server, else WORLDKIT_SERVER, else 127.0.0.1:50051 */
    double timeout;         /* seconds before the call's deadline; 0: none */
    const char *token_file; /* --token-file: the bearer token to send; NULL: none */
    bool tls;               /* --tls, or implied by the three below */
    const char *tls_ca;     /* --tls-ca: the PEM CA the server's certificate must be signed by;
                               NULL: the system's roots */
    const char *tls_cert;   /* --tls-cert and --tls-key: a client certificate for mutual TLS */
    const char *tls_key;
    const char *world;      /* --world: the world a simulation_interfaces call acts on (metadata
                               worldkit-world-id) and tf reads; NULL: the current world */
    bool one_line;          /* print each response's JSON on one line (watch), not indented */
} wk_client;

/* The client options as usage text, for the commands' messages. */
#define WK_CLIENT_USAGE                                                                                   \
    "[--server HOST:PORT] [--world ID] [--timeout SECONDS] [--token-file FILE]\n"                         \
    "                [--tls | --tls-ca FILE] [--tls-cert FILE --tls-key FILE]"

/* Takes the client options (WK_CLIENT_USAGE) out of argv (argv[0], the
 * subcommand, stays), shifting the rest down and lowering *argc. Returns
 * false, with the reason printed, for a bad value. */
bool wk_client_options(int *argc, char **argv, wk_client *c);

/* client_credentials.c: the channel credentials c asks for (TLS or none),
 * and the call's metadata (into md, room for 2, to be freed with
 * wk_client_metadata_free): the world it names, and the "authorization" of
 * its token file. Each returns false, with the reason printed, when a file cannot
 * be used. */
bool wk_client_credentials(const wk_client *c, grpc_channel_credentials **out);
bool wk_client_metadata(const wk_client *c, grpc_metadata *md, size_t *count);
void wk_client_metadata_free(grpc_metadata *md, size_t count);

/* json_names.c: json, the JSON of a response of method (its name,
 * "SpawnEntity") of simulation_interfaces, with the names of its result
 * codes, states and features added after them (resultName, stateName,
 * featureNames), appended to out, which is also NUL-terminated past its
 * length. WK_OK or WK_NOMEM. */
int wk_cli_json_names(const char *method, const char *json, wk_buf *out);

/* Calls method with a serialized request and prints every response message
 * as JSON on stdout, one after the other (a server stream writes many).
 * Returns the exit status: 0 when the call ends with status OK, else 1 with
 * the status printed on stderr. The last response's bytes are appended to
 * last, which may be NULL. */
int wk_client_call(const wk_client *c, const wk_json_method *method, const uint8_t *request, size_t len,
                   wk_buf *last);

#endif
