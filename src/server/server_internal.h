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
 * worker is free. */
#ifndef WK_SERVER_INTERNAL_H
#define WK_SERVER_INTERNAL_H

#include <grpc/grpc.h>
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

typedef struct wk__worker {
    struct wk_server *server;
    grpc_completion_queue *cq;
    pthread_t thread;
    bool started;
} wk__worker;

struct wk_server {
    wk_api *api;
    wk_server_desc desc; /* defaults filled in */
    grpc_server *grpc;
    grpc_completion_queue *shutdown_cq;
    wk__worker *workers;
    int worker_count;
    wk__loop loop;
    atomic_bool stopping; /* shutdown has begun: health says NOT_SERVING */
    pthread_mutex_t shutdown_lock;
    bool down; /* shutdown is complete */
    int port;
    char address[256];
};

/* worker.c: the worker thread. */
void *wk__worker_main(void *worker);

/* call.c: serves one call the worker has been given, from its request to
 * its status, and frees it. */
typedef struct wk__call_slot {
    grpc_call *call;
    grpc_call_details details;
    grpc_metadata_array metadata;
} wk__call_slot;
void wk__call_serve(wk__worker *worker, wk__call_slot *slot);

/* health.c: grpc.health.v1.Health/Check, answered through sink as
 * wk_api_invoke answers. */
int wk__health_check(wk_server *server, const uint8_t *request, size_t len, wk_api_sink *sink);

/* address.c: whether listen names a local address (loopback or unix
 * socket), and listen with its port replaced by port, into out. */
bool wk__address_is_local(const char *listen);
void wk__address_with_port(const char *listen, int port, char *out, size_t cap);

#endif
