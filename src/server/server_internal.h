/* server_internal.h — what the files of src/server share: the server, its
 * workers (a thread and a completion queue each), the simulation loop's
 * thread, and the entry points of each file.
 *
 * Threads. Each worker owns one completion queue, registered with the
 * server, and serves one call at a time on it from start to end: it asks the
 * server for the next call (grpc_server_request_call, every method), waits
 * on its own queue for that call, then runs the call's batches one after the
 * other, waiting for each on the same queue. A queue per worker, rather than
 * one shared, lets a worker block in the middle of a call (a method waiting
 * for the world's lock, a stream waiting for its client to take a message)
 * and still be the only one to see that call's events: nothing is handed
 * between threads, and a call's state lives on its worker's stack. The cost
 * is that at most `workers` calls run at once; more wait in gRPC until a
 * worker is free. Workers after the first serve only while those before
 * them are all held by long calls (worker.c). */
#ifndef WK_SERVER_INTERNAL_H
#define WK_SERVER_INTERNAL_H

#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <pthread.h>
#include <stdatomic.h>

#include "worldkit/wk_server.h"

/* The thread that steps the current world while it is PLAYING (loop.c). */
typedef struct wk__loop {
    wk_api *api;
    double rtf; /* wk_server_desc's */
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    bool stop;
    bool started;
} wk__loop;

int wk__loop_start(wk__loop *loop, wk_api *api, double rtf);
/* Stops the thread and frees what start made; a no-op when not started. */
void wk__loop_stop(wk__loop *loop);

/* The thread that serves grpc.health.v1.Health, Check and Watch
 * (health.c). Both are registered methods with a completion queue of
 * their own, so that no worker serves them: a probe is answered while long
 * world work holds every worker, and a watch, which lasts as long as its
 * client watches, never holds one. */
typedef struct wk__health {
    struct wk_server *server;
    void *methods[2]; /* grpc_server_register_method's handles: Check, Watch */
    grpc_completion_queue *cq;
    pthread_t thread;
    bool started;
} wk__health;

/* Registers the methods and the queue; before grpc_server_start. */
void wk__health_register(wk__health *health, struct wk_server *server);
/* Starts the thread, after grpc_server_start. */
int wk__health_start(wk__health *health);
/* Waits for the thread, which ends once the server's shutdown has begun and
 * every watcher has been told NOT_SERVING; a no-op when not started. */
void wk__health_join(wk__health *health);

typedef struct wk__worker {
    struct wk_server *server;
    int index; /* in server->workers */
    grpc_completion_queue *cq;
    pthread_t thread;
    bool started;
    atomic_llong call_began; /* monotonic ns when its call began; 0 between calls */
    atomic_llong last_began; /* the same for its latest call, kept after it */
    atomic_bool resting;     /* asleep until the worker before takes a call */
} wk__worker;

/* view.c: the live view on libwebsockets, serving desc's http_listen
 * under the TLS and token rules of desc and s, from http_root (NULL: the
 * installed page, else the source tree's web/); stopped before the
 * server's threads, which its streams' checks see stopping. */
struct wk__view;
int wk__view_start(struct wk_server *s, const wk_server_desc *desc, struct wk__view **out, wk_status *st);
const char *wk__view_address(const struct wk__view *v);
void wk__view_stop(struct wk__view *v);

struct wk_server {
    wk_api *api;
    wk_server_desc desc; /* defaults filled in */
    grpc_server *grpc;
    grpc_completion_queue *shutdown_cq;
    wk__worker *workers;
    int worker_count;
    wk__loop loop;
    wk__health health;
    struct wk__view *view; /* the live view, or NULL */
    char token[WK_SERVER_TOKEN_MAX]; /* the bearer token calls must carry; "" for none */
    atomic_bool stopping; /* shutdown has begun: health says NOT_SERVING, new calls are refused */
    atomic_int calls;     /* calls the workers are serving */
    atomic_int held_by_readers; /* workers whose send waits on a client that has not read it (call.c) */
    atomic_bool quit;     /* resting workers end */
    pthread_mutex_t rest_lock;
    pthread_cond_t rest_wake; /* a worker took a call, or quit */
    pthread_mutex_t shutdown_lock;
    bool down; /* shutdown is complete */
    bool notified;     /* gRPC's shutdown has notified */
    bool left_running; /* a shutdown gave up on calls still running at its grace's end */
    int port;
    char address[256];
};

/* worker.c: the worker thread; ending the resting workers' threads, once
 * gRPC's shutdown has ended the others'. */
void *wk__worker_main(void *worker);
void wk__workers_quit(wk_server *s);

/* call.c: serves one call the worker has been given, from its request to
 * its status, and frees it. */
typedef struct wk__call_slot {
    grpc_call *call;
    grpc_call_details details;
    grpc_metadata_array metadata;
} wk__call_slot;
void wk__call_serve(wk__worker *worker, wk__call_slot *slot);

/* credentials.c: the server credentials desc asks for, insecure when it
 * names no TLS files; fails with st naming the file at fault. */
int wk__credentials_create(const wk_server_desc *desc, grpc_server_credentials **out, wk_status *st);

/* auth.c: whether a call with this metadata may go on: always when the
 * server has no token, else when it carries "authorization: Bearer" with
 * the token. */
bool wk__auth_allows(const wk_server *server, const grpc_metadata_array *metadata);
/* Whether given (len bytes) is the server's token; false when it has none. */
bool wk__auth_token_is(const wk_server *server, const char *given, size_t len);

/* grpc_log.c: gRPC's log lines dropped from hold to release, while a
 * server starts, and one line each on stderr otherwise. */
void wk__grpc_log_hold(void);
void wk__grpc_log_release(void);

/* lock_checks.cc: switches abseil's deadlock detection off (see there). */
void wk__server_quiet_lock_checks(void);

/* address.c: whether listen names a local address (loopback or unix
 * socket), and listen with its port replaced by port, into out. */
bool wk__address_is_local(const char *listen);
void wk__address_with_port(const char *listen, int port, char *out, size_t cap);

#endif
