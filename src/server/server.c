/* server.c — a server's life: options and their defaults, the gRPC server
 * bound to its address (another machine's only with TLS or a token) with
 * its request size limit, the workers, the health service's thread and the
 * simulation loop's, and the graceful shutdown: no new calls, those in
 * flight finish (or are cancelled once the grace has passed), the clients
 * read what they were sent, then the threads stop and the queues drain. */
#define _DEFAULT_SOURCE /* explicit_bzero */
#include <grpc/grpc_security.h>
#include <grpc/support/time.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "server/server_internal.h"

#define DEFAULT_LISTEN "127.0.0.1:50051"
#define DEFAULT_MAX_REQUEST_BYTES ((size_t)16 << 20)
#define DEFAULT_GRACE 30.0
/* How long, once no call is left, clients have to close their connections
 * (read what was sent to them) before the shutdown closes them. */
#define CLOSE_SECONDS 0.5

static char shutdown_tag;

/* A worker per CPU, at least 4: workers past the first serve only while
 * long calls hold those before them (worker.c), so a spare costs nothing
 * until then, and lets short calls through beside a few long ones. */
static int default_workers(void)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    return cpus > 4 ? (cpus < 64 ? (int)cpus : 64) : 4;
}

/* The server's mutexes and condition; false when they are all made. */
static bool init_locks(wk_server *s)
{
    if (pthread_mutex_init(&s->shutdown_lock, NULL))
        return true;
    if (pthread_mutex_init(&s->rest_lock, NULL)) {
        pthread_mutex_destroy(&s->shutdown_lock);
        return true;
    }
    if (pthread_cond_init(&s->rest_wake, NULL)) {
        pthread_mutex_destroy(&s->rest_lock);
        pthread_mutex_destroy(&s->shutdown_lock);
        return true;
    }
    return false;
}

static void destroy_locks(wk_server *s)
{
    pthread_cond_destroy(&s->rest_wake);
    pthread_mutex_destroy(&s->rest_lock);
    pthread_mutex_destroy(&s->shutdown_lock);
}

static wk_server_desc with_defaults(const wk_server_desc *desc)
{
    wk_server_desc d = desc ? *desc : (wk_server_desc){0};
    if (!d.listen || !d.listen[0])
        d.listen = DEFAULT_LISTEN;
    if (!d.max_request_bytes)
        d.max_request_bytes = DEFAULT_MAX_REQUEST_BYTES;
    if (d.workers <= 0)
        d.workers = default_workers();
    if (d.shutdown_grace <= 0)
        d.shutdown_grace = DEFAULT_GRACE;
    return d;
}

/* Shuts a completion queue down, takes what is left on it, and frees it. */
static void drain(grpc_completion_queue *cq)
{
    if (!cq)
        return;
    grpc_completion_queue_shutdown(cq);
    while (grpc_completion_queue_next(cq, gpr_inf_future(GPR_CLOCK_MONOTONIC), NULL).type != GRPC_QUEUE_SHUTDOWN)
        ;
    grpc_completion_queue_destroy(cq);
}

/* Destroys the gRPC server and every queue it was given, once no thread
 * waits on them. */
static void destroy_grpc(wk_server *s)
{
    grpc_server_destroy(s->grpc);
    for (int i = 0; i < s->worker_count; i++)
        drain(s->workers[i].cq);
    drain(s->health.cq);
    grpc_completion_queue_shutdown(s->shutdown_cq);
    grpc_completion_queue_destroy(s->shutdown_cq);
}

/* Frees a server that was never started (no listener, no thread). */
static void discard(wk_server *s)
{
    destroy_grpc(s);
    grpc_shutdown();
    explicit_bzero(s->token, sizeof s->token);
    destroy_locks(s);
    free(s->workers);
    free(s);
}

/* Binds d's address with the credentials d asks for, setting s->port. */
static int listen_on(wk_server *s, const wk_server_desc *d, wk_status *st)
{
    grpc_server_credentials *creds;
    int rc = wk__credentials_create(d, &creds, st);
    if (rc)
        return rc;
    s->port = grpc_server_add_http2_port(s->grpc, d->listen, creds);
    grpc_server_credentials_release(creds);
    if (s->port <= 0)
        return wk_fail(st, WK_INVALID, "cannot listen on %s: the port is taken, or it is no address%s", d->listen,
                       d->tls_cert_file ? ", or the TLS certificate and key are no PEM pair" : "");
    return WK_OK;
}

int wk_server_start(wk_api *api, const wk_server_desc *desc, wk_server **out, wk_status *st)
{
    *out = NULL;
    wk_server_desc d = with_defaults(desc);
    if (!wk__address_is_local(d.listen) && !d.tls_cert_file && !d.token_file)
        return wk_fail(st, WK_UNSUPPORTED,
                       "%s is not a loopback address, and other machines are served only over TLS (--tls-cert and "
                       "--tls-key) or with a bearer token (--token-file); give one, or listen on 127.0.0.1, ::1, "
                       "localhost or a unix socket",
                       d.listen);
    if (d.max_request_bytes > INT_MAX)
        return wk_fail(st, WK_RANGE, "a request size limit of %zu bytes is past gRPC's %d", d.max_request_bytes,
                       INT_MAX);
    wk_server *s = calloc(1, sizeof *s);
    int rc = WK_OK;
    if (!s || !(s->workers = calloc((size_t)d.workers, sizeof *s->workers)) || init_locks(s)) {
        rc = wk_fail(st, WK_NOMEM, "out of memory starting a server");
        goto fail_free;
    }
    if (d.token_file && (rc = wk_server_read_token(d.token_file, s->token, sizeof s->token, st))) {
        destroy_locks(s);
        goto fail_free;
    }
    s->api = api;
    s->desc = d;
    /* The caller's strings are borrowed only for this call. */
    s->desc.tls_cert_file = s->desc.tls_key_file = s->desc.tls_client_ca_file = s->desc.token_file = NULL;
    atomic_init(&s->stopping, false);
    atomic_init(&s->calls, 0);
    atomic_init(&s->quit, false);

    wk__server_quiet_lock_checks();
    wk__grpc_log_hold();
    grpc_init();
    /* gRPC binds with SO_REUSEPORT unless told not to: a second server on
     * a taken port would start, and the kernel would share the calls out
     * between two servers holding different worlds. Compressed requests
     * are refused (UNIMPLEMENTED, from the call's headers): gRPC inflates a
     * message whole before it checks the size limit, so a megabyte of gzip
     * made the server take 1.5 GB and 11 s of CPU only to refuse it. */
    grpc_arg args[] = {
        {.type = GRPC_ARG_INTEGER,
         .key = GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH,
         .value.integer = (int)d.max_request_bytes},
        {.type = GRPC_ARG_INTEGER, .key = GRPC_ARG_ALLOW_REUSEPORT, .value.integer = 0},
        {.type = GRPC_ARG_INTEGER,
         .key = GRPC_COMPRESSION_CHANNEL_ENABLED_ALGORITHMS_BITSET,
         .value.integer = 1 << GRPC_COMPRESS_NONE},
    };
    s->grpc = grpc_server_create(&(grpc_channel_args){.num_args = sizeof args / sizeof args[0], .args = args}, NULL);
    s->shutdown_cq = grpc_completion_queue_create_for_pluck(NULL);
    for (; s->worker_count < d.workers; s->worker_count++) {
        wk__worker *w = &s->workers[s->worker_count];
        *w = (wk__worker){.server = s, .index = s->worker_count, .cq = grpc_completion_queue_create_for_next(NULL)};
        grpc_server_register_completion_queue(s->grpc, w->cq, NULL);
    }
    wk__health_register(&s->health, s);
    rc = listen_on(s, &d, st);
    wk__grpc_log_release();
    if (rc) {
        discard(s);
        return rc;
    }
    wk__address_with_port(d.listen, s->port, s->address, sizeof s->address);
    s->desc.listen = s->address;
    grpc_server_start(s->grpc);

    for (int i = 0; i < s->worker_count; i++) {
        if (pthread_create(&s->workers[i].thread, NULL, wk__worker_main, &s->workers[i]))
            goto fail_shutdown;
        s->workers[i].started = true;
    }
    if (wk__health_start(&s->health) || wk__loop_start(&s->loop, api, d.rtf))
        goto fail_shutdown;
    if (d.http_listen && (rc = wk__view_start(s, &d, &s->view, st))) {
        wk_server_free(s);
        return rc;
    }
    s->desc.http_listen = s->desc.http_root = NULL;
    *out = s;
    return WK_OK;

fail_shutdown:
    wk_server_free(s);
    return wk_fail(st, WK_NOMEM, "cannot start the server's threads");

fail_free:
    if (s)
        free(s->workers);
    free(s);
    return rc;
}

int wk_server_port(const wk_server *server)
{
    return server->port;
}

const char *wk_server_address(const wk_server *server)
{
    return server->address;
}

const char *wk_server_view_address(const wk_server *server)
{
    return server->view ? wk__view_address(server->view) : NULL;
}

/* Waits for the workers to end the calls they serve, until the deadline at
 * most. */
static void wait_for_calls(const wk_server *s, gpr_timespec deadline)
{
    while (atomic_load(&s->calls) > 0 && gpr_time_cmp(gpr_now(GPR_CLOCK_MONOTONIC), deadline) < 0)
        gpr_sleep_until(gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC), gpr_time_from_millis(2, GPR_TIMESPAN)));
}

/* When, of the grace, calls in flight are cancelled: most of it is theirs
 * to finish in, and the rest lets those that look at their call (between
 * steps, in the loops a request lengthens) see the cancel and stop. */
static double cancel_after(double grace)
{
    return grace > 2 ? grace - 1 : grace / 2;
}

static gpr_timespec seconds_after(gpr_timespec t, double seconds)
{
    return gpr_time_add(t, gpr_time_from_millis((int64_t)(seconds * 1e3), GPR_TIMESPAN));
}

/* Stops the threads and frees the queues, once gRPC's shutdown is done. */
static void finish_shutdown(wk_server *s)
{
    wk__view_stop(s->view);
    s->view = NULL;
    wk__workers_quit(s);
    for (int i = 0; i < s->worker_count; i++)
        if (s->workers[i].started)
            pthread_join(s->workers[i].thread, NULL);
    wk__health_join(&s->health);
    wk__loop_stop(&s->loop);
    destroy_grpc(s);
    s->down = true;
}

/* The shutdown goes in two steps. First the workers refuse new calls
 * (UNAVAILABLE) while those in flight finish, the connections still open:
 * once gRPC's shutdown has begun, a connection closes as soon as its last
 * call ends, and a close with bytes from the client still unread is a
 * reset, which throws away what the kernel has not yet delivered, such as
 * the tail of a stream its client is still reading. Then gRPC's shutdown
 * sends every client a GOAWAY and a ping, fails the workers' requests for
 * a new call (each worker ends), tells the health watchers, and notifies
 * once every connection is closed, which gRPC does when its client has
 * answered the ping, so has read everything before it. A client that
 * polls its connection only while it has calls pending (Python's grpcio)
 * never answers: CLOSE_SECONDS after the last call, the connections still
 * open are cut. Calls not done near the grace's end are cancelled; a call whose work does not look (a wait
 * for a world's lock, one long load) still runs at its end, and is left
 * to run: the shutdown gives up rather than wait past its bound. */
int wk_server_shutdown(wk_server *s)
{
    pthread_mutex_lock(&s->shutdown_lock);
    if (s->down) {
        pthread_mutex_unlock(&s->shutdown_lock);
        return WK_OK;
    }
    if (s->left_running) {
        /* An earlier shutdown gave up on calls; now they are waited for. */
        if (!s->notified)
            grpc_completion_queue_pluck(s->shutdown_cq, &shutdown_tag, gpr_inf_future(GPR_CLOCK_MONOTONIC), NULL);
        wait_for_calls(s, gpr_inf_future(GPR_CLOCK_MONOTONIC));
        finish_shutdown(s);
        pthread_mutex_unlock(&s->shutdown_lock);
        return WK_OK;
    }
    atomic_store(&s->stopping, true);
    gpr_timespec now = gpr_now(GPR_CLOCK_MONOTONIC);
    gpr_timespec cancel_at = seconds_after(now, cancel_after(s->desc.shutdown_grace));
    gpr_timespec end = seconds_after(now, s->desc.shutdown_grace);
    wait_for_calls(s, cancel_at);
    grpc_server_shutdown_and_notify(s->grpc, s->shutdown_cq, &shutdown_tag);
    gpr_timespec closed_by = gpr_time_min(cancel_at, seconds_after(gpr_now(GPR_CLOCK_MONOTONIC), CLOSE_SECONDS));
    s->notified = grpc_completion_queue_pluck(s->shutdown_cq, &shutdown_tag, closed_by, NULL).type == GRPC_OP_COMPLETE;
    /* gRPC may notify while a worker still runs its cancelled call: the
     * workers' own count says when they are done. */
    if (!s->notified || atomic_load(&s->calls) > 0)
        grpc_server_cancel_all_calls(s->grpc);
    if (!s->notified)
        s->notified = grpc_completion_queue_pluck(s->shutdown_cq, &shutdown_tag, end, NULL).type == GRPC_OP_COMPLETE;
    wait_for_calls(s, end);
    if (!s->notified || atomic_load(&s->calls) > 0) {
        s->left_running = true;
        pthread_mutex_unlock(&s->shutdown_lock);
        return WK_DEADLINE;
    }
    finish_shutdown(s);
    pthread_mutex_unlock(&s->shutdown_lock);
    return WK_OK;
}

void wk_server_free(wk_server *s)
{
    if (!s)
        return;
    /* Freeing must wait for every call: a second shutdown waits for those
     * the first left running. */
    if (wk_server_shutdown(s))
        wk_server_shutdown(s);
    explicit_bzero(s->token, sizeof s->token);
    destroy_locks(s);
    free(s->workers);
    free(s);
    grpc_shutdown();
}
