/* api_internal.h — what the service handlers of src/api share: the endpoint,
 * a per-call allocation list for the strings and arrays of a response, the
 * mapping from worldkit codes to a service's result codes, entity lookup by
 * name, and conversions between messages and worldkit's math types. */
#ifndef WK_API_INTERNAL_H
#define WK_API_INTERNAL_H

#include <pthread.h>

#include "simulation_interfaces/simulation_interfaces.pb-c.h"
#include "worldkit/wk_api.h"
#include "worldkit/wk_formats.h"
#include "worldkit/wk_sim.h"
#include "worldkit/wk_store.h"
#include "worldkit/wk_watch.h"

/* The store's ids of the current world, the one the simulation_interfaces
 * services and the loop act on, and of the copy LoadWorld keeps of it as
 * the file has it (Intrinsic's clients reset by cloning it onto "world"). */
#define WK__CURRENT_WORLD "world"
#define WK__INITIAL_WORLD "init_world"

/* An endpoint, or the binding of one of its store's worlds to a simulation
 * (bindings.c): the endpoint binds the current world; a call that names
 * another world (wk_api_sink.world_id) runs on that world's binding, made
 * at its first call, with a lock and a simulation of its own. */
struct wk_api {
    wk_api *endpoint;     /* the endpoint this binding belongs to; itself for the endpoint */
    char world_id[WK_WORLD_ID_MAX]; /* the store world it simulates: the endpoint's is "world" */
    wk_sim *sim;          /* runs that world; bound to its scene while a call has it open */
    wk_scene *initial;    /* owned: the world as its simulation began, which a reset puts back */
    wk_scene *elsewhere;  /* owned: the scene sim began on when another server holds the world */
    wk_store *store;      /* every world, by id (the endpoint's, shared by its bindings) */
    bool levels;          /* worlds run their levels (wk_api_desc) */
    wk_physics_engine physics; /* what steps them (wk_api_desc) */
    size_t max_physics_links;  /* the links their engine compiles at most (wk_api_desc) */
    const char *const *roots; /* the folders read from (wk_api_desc), or NULL */
    wk_world *open;       /* the current world while a call has it open, else NULL */
    /* Checkpoints of the PLAYING world's motion (play.c): every
     * checkpoint_s seconds, at the first batch after a level loaded or
     * unloaded, and when it stops playing. */
    double checkpoint_s, checkpoint_at;
    bool levels_changed;
    /* Why the loop paused the world (play.c): its step failed while it was
     * PLAYING; "" once a client sets its state. GetSimulationState tells it
     * while the world stays PAUSED. */
    char paused_why[WK_STATUS_MSG_MAX];
    pthread_mutex_t lock; /* held by every service call: the sim is not thread-safe */
    /* simulation_interfaces' world services (sim/worlds.c) */
    bool unloaded;           /* UnloadWorld left no world: most services refuse */
    char world_uri[4096];    /* the uri the current world was loaded from ("" for a string) */
    uint32_t bounds_type;    /* what GetEntityBounds answers (wk_api_set_bounds_type); 0: TYPE_BOX */
    /* The endpoint's only: wk_api_desc's hooks, or NULL. */
    void (*quit)(void *ctx);
    void *quit_ctx;
    void (*on_level)(const char *world_id, const char *level, bool loaded, double sim_time, void *ctx);
    void *level_ctx;
    size_t max_response_bytes, max_memory_bytes; /* wk_api_desc's, defaults applied */
    /* The endpoint's only: the change stream of every world (watch.c),
     * told of each commit by the store and of each step by the binding's
     * simulation. */
    wk_watch_hub *hub;
    /* The endpoint's only: the bindings of the other worlds called so far,
     * kept for the endpoint's life so that the PLAYING loop can index them. */
    pthread_mutex_t bindings_lock;
    wk_api **bindings;
    size_t binding_count, binding_cap;
};

/* The steps of StepSimulation and SimulateSteps, which run in batches
 * (sim/step_simulation.c), each one dispatch under the world's lock, so that
 * other calls get in between and SimulateSteps' feedback goes out with no
 * world held: a receiver that is slow to read slows the steps, not the
 * world's other callers. */
typedef struct wk__progress {
    wk_api_feedback_fn feedback; /* SimulateSteps' per step, or NULL */
    void *ctx;
    uint64_t goal;     /* steps asked for */
    uint64_t done;     /* steps the batches so far ran */
    uint64_t reported; /* steps whose feedback went out */
    bool more;         /* the batch stopped short of the goal: another follows, the response waits */
    bool cancelled;    /* the feedback's receiver is gone: the next batch answers without stepping */
} wk__progress;

/* How much a batch of steps runs at most: after this many steps, or once
 * it has held the world this long, it lets go. 256 steps of an empty world
 * take some 0.1 ms; a world whose steps take a millisecond lets go after
 * about 5. */
#define WK__BATCH_STEPS 256
#define WK__BATCH_SECONDS 0.005

/* Hands the feedback of the steps done since the last report to the
 * progress's receiver, with no world held, until it cancels. */
void wk__progress_report(wk__progress *p);

/* Everything a response points to, freed once it is packed. */
typedef struct wk__call {
    void **blocks;
    size_t count, cap;
    bool failed; /* out of memory somewhere */
    wk_status *status; /* why a handler failed (may be NULL): ObjectWorldService answers it as a gRPC status */
    wk__progress *progress; /* the steps' batches (every simulation_interfaces call has one; only stepping uses it) */
    int (*check)(void *);   /* the transport's wk_api_sink check, or NULL */
    void *check_ctx;
    unsigned checks;        /* wk__call_over's calls, so that it asks the transport now and then */
    /* The world an ObjectWorldService request names, which the dispatcher
     * opened in the row's mode (methods.h) and closes once the handler
     * returns; NULL for a method on no one world. (A simulation_interfaces
     * handler has its binding's world open as api->open, bindings.c.) */
    wk_world *world;
    /* The store whose registered geometries (GeometryService) an
     * ObjectWorldService request's geometry references name; NULL: none. */
    wk_store *store;
    /* Set by a handler for what must wait until that world is closed (an
     * ObjectWorldService World reply's metadata, which the store reads under
     * the world's own lock); run by the dispatcher when the handler
     * succeeded. */
    int (*after)(wk_api *api, struct wk__call *call, const ProtobufCMessage *request, ProtobufCMessage *response);
    /* A stream's (WorldWatch/Watch): the transport's wk_api_sink write, to
     * which the handler writes each message with no world held; NULL for
     * the others, which answer one response. */
    bool (*write)(void *ctx, const uint8_t *msg, size_t len);
    void *write_ctx;
} wk__call;

/* Whether the call should give up: its deadline has passed or its client
 * has gone, as the transport's check says. A handler whose loop runs as
 * long as its request makes it asks once per round, and gives up with
 * WK_DEADLINE, having changed nothing; the transport is asked every 64th
 * time, as asking costs a look at the call's queue. */
bool wk__call_over(wk__call *call);
/* wk__call_over asking the transport this time, before a step that cannot
 * be interrupted (a store write). */
bool wk__call_over_now(wk__call *call);
/* wk__call_over for a reader's wk_read_desc.over, whose ctx is the call. */
bool wk__call_over_ctx(void *call);

void *wk__call_alloc(wk__call *call, size_t size);
char *wk__call_strdup(wk__call *call, const char *s);
/* A Result with code and message (printf-style), owned by the call. */
SimulationInterfaces__Result *wk__call_result(wk__call *call, uint32_t code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* A new, initialised message of the type, owned by the call and stored in
 * *response as well; NULL when out of memory. */
void *wk__call_response(wk__call *call, const ProtobufCMessageDescriptor *type, ProtobufCMessage **response);

/* Answers result in the response's `result` field (a simulation_interfaces
 * response, or worldkit.Levels'). */
int wk__call_reply(ProtobufCMessage *response, SimulationInterfaces__Result *result);
/* A change that says its outcome as a Result code, and why in a message
 * (at most cap bytes), of the request it is given. */
typedef uint32_t (*wk__change_fn)(wk_api *api, const void *request, char *why, size_t cap);
/* Runs change on the request and answers its outcome (wk__call_reply). */
int wk__call_change(wk_api *api, wk__call *call, const void *request, ProtobufCMessage *response,
                    wk__change_fn change);

/* A worldkit code and the result code a service gives for it. A table ends
 * with {0, fallback}: the result for every code it does not list. */
typedef struct wk__code_map {
    int code;
    uint32_t result;
} wk__code_map;

uint32_t wk__map_code(const wk__code_map *map, int code);

/* watch.c: makes the store tell the endpoint's hub of every commit and
 * every world replaced. */
void wk__api_watch_store(wk_api *api);

/* The one handler signature. The dispatcher (api.c for the simulation
 * services, ows/ows.c for ObjectWorldService) unpacks the request, makes
 * *response a new message of the row's response type owned by call, and
 * opens the world the row says in its lock mode (call->world); the handler
 * reads its request and fills *response (or points it at a message of that
 * type it rendered); a code other than WK_OK, with call->status saying why,
 * answers no message. WK__HANDLER declares one. */
typedef int (*wk__handler)(wk_api *api, wk__call *call, const ProtobufCMessage *request, ProtobufCMessage **response);
#define WK__HANDLER(fn) int fn(wk_api *api, wk__call *call, const ProtobufCMessage *request, ProtobufCMessage **response)

/* simulation_interfaces' handlers. */
WK__HANDLER(wk__load_world);
WK__HANDLER(wk__spawn_entities);
WK__HANDLER(wk__get_simulator_features);
WK__HANDLER(wk__get_simulation_state);
WK__HANDLER(wk__set_simulation_state);
WK__HANDLER(wk__step_simulation);
WK__HANDLER(wk__simulate_steps);
WK__HANDLER(wk__reset_simulation);
WK__HANDLER(wk__get_entity_state);
WK__HANDLER(wk__set_entity_state);
WK__HANDLER(wk__unload_world);
WK__HANDLER(wk__get_current_world);
WK__HANDLER(wk__get_available_worlds);
WK__HANDLER(wk__get_spawnables);
WK__HANDLER(wk__spawn_entity);
WK__HANDLER(wk__delete_entity);
WK__HANDLER(wk__get_entities);
WK__HANDLER(wk__get_entities_states);
WK__HANDLER(wk__get_entity_info);
WK__HANDLER(wk__set_entity_info);
WK__HANDLER(wk__get_entity_bounds);
WK__HANDLER(wk__get_named_poses);
WK__HANDLER(wk__get_named_pose_bounds);
/* worldkit.WorldWatch's (watch.c): a stream that ends when its client goes. */
WK__HANDLER(wk__watch);
/* worldkit.Levels' handlers (sim/levels.c). */
WK__HANDLER(wk__set_performer);
WK__HANDLER(wk__list_levels);
WK__HANDLER(wk__list_performers);

struct wk__method;

/* sim/worlds.c: records that a world was loaded from uri (NULL or "": a
 * string); and, while no world is loaded, answers a method that needs one
 * with INCORRECT_STATE in *response, returning true (false: run it). */
void wk__api_world_loaded(wk_api *api, const char *uri);
bool wk__api_refuse_without_world(wk_api *api, wk__call *call, const struct wk__method *m,
                                  ProtobufCMessage *response);
/* sim/entity_state.c: an EntityState of motion m in the world frame, stamped
 * with the simulated time, owned by the call. */
SimulationInterfaces__EntityState *wk__msg_entity_state(wk_api *api, wk__call *call, const wk_motion *m);

/* Runs a simulation_interfaces method (its registry row, methods.h) on a
 * serialized request, appending the packed response to out: under the lock
 * of api's simulation, with its world open for writing when the method
 * writes (committed before it answers); the steps of StepSimulation and
 * SimulateSteps run in batches, each under the lock. fn receives
 * SimulateSteps' feedback (may be NULL), between batches, with no lock
 * held. check (may be NULL) is asked under the lock before each batch: a
 * non-zero answer (a gRPC status, positive) is returned as it is, nothing
 * more having run. Otherwise returns as wk_api_call, with st (may be NULL)
 * saying why, and *result (result may be NULL) the code of the Result
 * answered, -1 for none. */
int wk__api_dispatch(wk_api *api, const struct wk__method *m, const uint8_t *request, size_t len,
                     wk_api_feedback_fn fn, void *ctx, int (*check)(void *), void *check_ctx, wk_buf *out,
                     int *result, wk_status *st);

/* Whether every string of the message of type desc packed in data (len
 * bytes, which protobuf-c unpacked) is free of NUL bytes, which protobuf-c's
 * C strings would cut short; false with why naming the field and what comes
 * before the NUL ("simulation_interfaces.SpawnEntityRequest.name holds a NUL
 * byte after 'obj'"), or with why empty for bytes that do not frame. */
bool wk__request_strings_clean(const ProtobufCMessageDescriptor *desc, const uint8_t *data, size_t len, char *why,
                               size_t cap);

/* bindings.c: replaces the binding's world, in the store and in the
 * simulation, with the world of desc (which it takes), or an empty world
 * named "default" when desc is NULL; for the endpoint, init_world becomes a
 * copy of it. source (NULL or "": none) is the absolute path of the file
 * desc was read from, kept on the world entity so that a restart runs its
 * levels again. With call (NULL for none), its deadline is asked as the
 * world is made (the description's check, wk_desc_set_over, which is let
 * go before this returns), before the store is written and, in a store on
 * disk, once the world is serialized for it: WK_DEADLINE, nothing
 * replaced, once it has passed. */
int wk__api_set_world(wk_api *api, wk_world_desc *desc, const char *source, wk__call *call, wk_status *st);
/* Makes the binding's simulation, of its store world as it is; when the
 * store has no such world, of a new empty one with create, else NOT_FOUND. */
int wk__api_bind(wk_api *api, bool create, wk_status *st);
/* The binding of world_id (NULL or "": the endpoint itself), made when the
 * store has the world and it has none yet; NOT_FOUND naming the world. */
int wk__api_binding(wk_api *endpoint, const char *world_id, wk_api **out, wk_status *st);
/* The simulation of world_id whose physics engine places the bodies of
 * scene (the world as the caller has it open for writing), or NULL: none
 * is bound to it yet, it runs another scene, or it has no engine. Makes
 * no binding. */
wk_sim *wk__api_engine_on(wk_api *endpoint, const char *world_id, const wk_scene *scene);
void wk__api_free_bindings(wk_api *endpoint);
/* Opens the binding's world (api->open), for writing or reading, and binds
 * the simulation to its scene; NOT_FOUND when the store has no such world. */
int wk__api_open_world(wk_api *api, bool write, wk_status *st);
/* Commits what the call changed (with commit) and closes the current world. */
int wk__api_close_world(wk_api *api, bool commit, wk_status *st);
/* play.c: checkpoints the open current world's motion; failures go to
 * stderr, since the steps themselves were done. */
void wk__api_checkpoint(wk_api *api);

/* The entity a name gives: a model, or a scoped `model::link::...`, as
 * SpawnEntities names them; WK_NULL_ENTITY when unknown or empty. */
wk_entity wk__api_entity(wk_api *api, const char *name);
/* The NOT_FOUND of a name the world lacks, its message in why: naming the
 * level it belongs to when that is unloaded, since a client that found it
 * there a moment ago would otherwise not know where it went. */
uint32_t wk__api_no_entity(wk_api *api, const char *name, char *why, size_t cap);
/* As wk__api_entity; when there is no such entity, *result is a NOT_FOUND
 * Result naming it, for the services that answer about one entity. */
wk_entity wk__api_named(wk_api *api, wk__call *call, const char *name, SimulationInterfaces__Result **result);
/* The entity a reference frame names: the world entity for "" and "world",
 * else as wk__api_entity. */
wk_entity wk__api_frame(wk_api *api, const char *frame);
/* The state's name in messages ("paused"). */
const char *wk__state_name(uint32_t state);

/* messages.c: messages to math types, absent fields taking ROS's defaults
 * (zero, and w = 1 for a quaternion), and back, owned by the call. */
wk_pose wk__msg_to_pose(const SimulationInterfaces__Pose *msg);
wk_vec3 wk__msg_to_vec3(const SimulationInterfaces__Vector3 *msg);
SimulationInterfaces__Pose *wk__msg_pose(wk__call *call, wk_pose pose);
SimulationInterfaces__Vector3 *wk__msg_vec3(wk__call *call, wk_vec3 v);
/* A stamped header: seconds of simulated time and a frame name. */
SimulationInterfaces__Header *wk__msg_header(wk__call *call, double seconds, const char *frame);

#endif
