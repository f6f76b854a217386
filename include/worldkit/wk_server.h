/* wk_server.h — the server layer: the api's services over gRPC.
 *
 * A server listens on one address with HTTP/2 (gRPC's core C library) and
 * answers every method of wk_api_invoke's table, plus the standard health
 * service grpc.health.v1.Health (Check and Watch). Each call runs on one of
 * a small pool of worker threads, the health service's on a thread of its
 * own; a further thread runs the current world's simulation loop while it
 * is PLAYING, paced at its real-time factor. Shutting down refuses new
 * calls and lets those in flight finish, within a bound.
 *
 * Security. A server listens on a loopback address (127.0.0.0/8, ::1,
 * localhost) or a unix socket unless it is given TLS (a certificate and
 * key, optionally a CA that client certificates must be signed by) or a
 * bearer token, or both; on any other address without either it refuses to
 * start with WK_UNSUPPORTED. Either also works on loopback. With a token,
 * every call must carry the metadata "authorization: Bearer <token>" or it
 * fails UNAUTHENTICATED, except the health service's: probes call it
 * without credentials, and it tells only whether the server is up. A token
 * without TLS crosses the network in clear text. */
#ifndef WK_SERVER_H
#define WK_SERVER_H

#include "worldkit/wk_api.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct wk_server wk_server;

/* What a server tells its on_call hook about one call. */
typedef struct wk_server_call {
    const char *method; /* its full path, borrowed for the hook's call */
    bool done;          /* false as it starts, true once its status is sent */
    int status;         /* the gRPC status sent, when done */
    /* The code of the Result a simulation_interfaces method answered with
     * status OK (its in-band outcome, wk_api_sink.result); -1 for none. */
    int result;
    double seconds;     /* from start to status, when done */
    const char *message; /* the status's message when done and not OK ("" for none), borrowed */
} wk_server_call;

/* Options of a server; zero is the default. */
typedef struct wk_server_desc {
    const char *listen;       /* "host:port"; port 0 picks a free one. Default "127.0.0.1:50051" */
    size_t max_request_bytes; /* larger requests fail RESOURCE_EXHAUSTED. Default 16 MiB */
    int workers;              /* calls served at once. Default: the CPU count, at least 4 */
    double rtf;               /* real-time factor of a PLAYING world: 0 for the world's own
                                 (its real_time_factor, 1 unless the file says), negative
                                 for as fast as possible */
    double shutdown_grace;    /* seconds a shutdown waits at most: calls in flight finish, and
                                 those still running a second before its end (halfway, for a
                                 grace under 2 s) are cancelled. Default 30 */
    /* PEM files, read by wk_server_start. A certificate chain and its key
     * together make the server speak TLS; a client CA also makes it require
     * a client certificate signed by that CA (mutual TLS). NULL: none. */
    const char *tls_cert_file;
    const char *tls_key_file;
    const char *tls_client_ca_file;
    /* A file holding the bearer token calls must carry (wk_server_read_token
     * says what it may hold). NULL: no token. */
    const char *token_file;
    /* The live view (src/server/view.c): "host:port" to serve the page and
     * its WebSocket on (port 0 picks a free one), under the rules of
     * listen: an address other machines reach needs TLS (which the view
     * then speaks, with the same files) or a token (which its WebSocket
     * and mesh files then ask for); NULL: none.
     * http_root: the page's folder (NULL: share/worldkit/web installed
     * beside the program, else web/ of the source tree). */
    const char *http_listen;
    const char *http_root;
    /* Called from a worker thread as each call starts and ends; must be
     * thread-safe. NULL for none. */
    void (*on_call)(const wk_server_call *call, void *ctx);
    void *ctx;
} wk_server_desc;

/* Starts serving api (borrowed until wk_server_free) as desc says (NULL for
 * the defaults). Fails with WK_UNSUPPORTED for an address that is not local
 * when there is neither TLS nor a token, WK_NOT_FOUND or WK_INVALID for a
 * file of desc's that cannot be read or is not fit (see
 * wk_server_read_token), WK_INVALID when the address cannot be bound, or
 * WK_NOMEM; st says which. */
int wk_server_start(wk_api *api, const wk_server_desc *desc, wk_server **out, wk_status *st);

/* The longest token, with its NUL. */
#define WK_SERVER_TOKEN_MAX 1024

/* Reads the bearer token of a token file into out (cap bytes with the
 * NUL): the file's text without trailing white space, which must be one
 * word of visible ASCII. Refuses, naming the file, one that is not a
 * regular file, that every user may read or write (mode bits 006), that
 * holds no token, or one longer than cap - 1. Servers and clients read
 * their token files with it. */
int wk_server_read_token(const char *path, char *out, size_t cap, wk_status *st);

/* Reads a PEM file (a certificate chain, a key, a CA) into out, with a NUL
 * after its bytes (out->len does not count it); what names the file in
 * st's message ("the TLS key"). Fails WK_NOT_FOUND when it cannot be
 * opened, WK_INVALID for no regular file, WK_RANGE past 1 MiB. */
int wk_server_read_pem(const char *what, const char *path, wk_buf *out, wk_status *st);

/* The port bound (what port 0 became), and "host:port" with it, borrowed for
 * the server's life. */
int wk_server_port(const wk_server *server);
const char *wk_server_address(const wk_server *server);
/* The live view's address, "http://host:port/" ("https://" with TLS);
 * NULL without one. */
const char *wk_server_view_address(const wk_server *server);

/* Stops taking calls, waits for those in flight (cancelling them shortly
 * before the shutdown grace ends), and stops the threads: WK_OK. Returns
 * within the grace even when calls run on, such as one waiting for a
 * world's lock, which sees no cancel: then it answers WK_DEADLINE and
 * leaves the server as it is, threads and all, for the process to exit
 * without it (its calls' work unanswered; what was answered is in the
 * store) or for a later wk_server_shutdown or wk_server_free to wait for
 * those calls, without bound. Safe to call more than once, and from any
 * thread but the server's own. */
int wk_server_shutdown(wk_server *server);
/* Shuts down (if not yet; waiting as long as its calls run) and frees.
 * NULL is a no-op. */
void wk_server_free(wk_server *server);

/* Signals for a process that is a server: wk_server_block_signals blocks
 * SIGINT and SIGTERM in the calling thread, so that threads started after it
 * (the server's, gRPC's) inherit the mask and the signals wait for
 * wk_server_wait_signal, which returns the number of the first to arrive.
 * Call the first before wk_server_start. */
int wk_server_block_signals(void);
int wk_server_wait_signal(void);

#ifdef __cplusplus
}
#endif
#endif
