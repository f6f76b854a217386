/* wk_api.h — the api layer: worldkit's services, transport-free.
 *
 * A service takes a serialized protobuf request and answers a serialized
 * protobuf response (proto/simulation_interfaces/), so that the gRPC
 * server and the command line run exactly the same code. Every response
 * carries a Result whose code is one of the tables below, from the standard
 * the service answers to (ROS 2 simulation_interfaces), and a message naming
 * the culprit. */
#ifndef WK_API_H
#define WK_API_H

#include "worldkit/wk_base.h"
#include "worldkit/wk_scene.h"
#include "worldkit/wk_sim.h"
#include "worldkit/wk_store.h"

#ifdef __cplusplus
extern "C" {
#endif

/* msg/Result */
#define WK_RESULT_FEATURE_UNSUPPORTED 0
#define WK_RESULT_OK 1
#define WK_RESULT_NOT_FOUND 2
#define WK_RESULT_INCORRECT_STATE 3
#define WK_RESULT_OPERATION_FAILED 4

/* srv/LoadWorld */
#define WK_LOAD_WORLD_UNSUPPORTED_FORMAT 101
#define WK_LOAD_WORLD_NO_RESOURCE 102
#define WK_LOAD_WORLD_RESOURCE_PARSE_ERROR 103
#define WK_LOAD_WORLD_MISSING_ASSETS 104
#define WK_LOAD_WORLD_UNSUPPORTED_ASSETS 105
#define WK_LOAD_WORLD_UNSUPPORTED_ELEMENTS 106

/* srv/SpawnEntity, the result of each entry of SpawnEntities */
#define WK_SPAWN_NAME_NOT_UNIQUE 101
#define WK_SPAWN_NAME_INVALID 102
#define WK_SPAWN_UNSUPPORTED_FORMAT 103
#define WK_SPAWN_NO_RESOURCE 104
#define WK_SPAWN_NAMESPACE_INVALID 105
#define WK_SPAWN_RESOURCE_PARSE_ERROR 106
#define WK_SPAWN_MISSING_ASSETS 107
#define WK_SPAWN_UNSUPPORTED_ASSETS 108
#define WK_SPAWN_INVALID_POSE 109

/* srv/SpawnEntities, the overall result when any entry failed */
#define WK_SPAWN_ENTITIES_FAILED 150
/* The most entries one SpawnEntities takes: each answers a result of its
 * own, so a request of a million empty entries (2 MB) would make the server
 * build a response of tens of megabytes. More is refused whole
 * (OPERATION_FAILED, no entry tried). */
#define WK_SPAWN_ENTITIES_MAX 10000
/* The most sources one GetAvailableWorlds (additional_sources) or
 * GetSpawnables (sources) takes: each is walked, so "." repeated 200,000
 * times walked the same folder for 54 s. More is refused whole
 * (OPERATION_FAILED); the walks of one call also share one budget of
 * entries, and the call gives up at its deadline (DEADLINE_EXCEEDED). */
#define WK_SOURCES_MAX 1000
/* The most footprint pairs (left_set times right_set) one
 * AreFootprintsCompatible checks: 40,000 by 40,000 took 20 s. More is
 * refused (INVALID_ARGUMENT), and the call gives up at its deadline. */
#define WK_FOOTPRINT_PAIRS_MAX 100000

/* srv/SetSimulationState; the states are wk_sim_state's (wk_sim.h) */
#define WK_SET_STATE_ALREADY_IN_TARGET_STATE 101
#define WK_SET_STATE_STATE_TRANSITION_ERROR 102
#define WK_SET_STATE_INCORRECT_TRANSITION 103

/* srv/ResetSimulation, the request's scope: a combination of TIME, STATE
 * and SPAWNED, or DEFAULT or ALL for everything */
#define WK_RESET_SCOPE_DEFAULT 0
#define WK_RESET_SCOPE_TIME 1
#define WK_RESET_SCOPE_STATE 2
#define WK_RESET_SCOPE_SPAWNED 4
#define WK_RESET_SCOPE_ALL 255

/* srv/StepSimulation: the most steps one call takes. A StepSimulation
 * steps in batches, as SimulateSteps does, so other calls get in between,
 * but its client learns nothing before the last: a larger count is refused
 * (OPERATION_FAILED) before any step; the SimulateSteps action, whose
 * client sees each step and can cancel, takes any count. */
#define WK_STEP_SIMULATION_MAX_STEPS 1000000

/* srv/SetEntityState */
#define WK_SET_ENTITY_STATE_INVALID_POSE 101

/* srv/UnloadWorld and srv/GetCurrentWorld */
#define WK_UNLOAD_WORLD_NO_WORLD_LOADED 101

/* srv/GetAvailableWorlds */
#define WK_AVAILABLE_WORLDS_DEFAULT_SOURCES_FAILED 101

/* msg/SimulatorFeatures: those worldkit can list (GetSimulatorFeatures) */
#define WK_FEATURE_SPAWNING 0
#define WK_FEATURE_DELETING 1
#define WK_FEATURE_NAMED_POSES 2
#define WK_FEATURE_POSE_BOUNDS 3
#define WK_FEATURE_ENTITY_TAGS 4
#define WK_FEATURE_ENTITY_BOUNDS 5
#define WK_FEATURE_ENTITY_BOUNDS_BOX 6
#define WK_FEATURE_ENTITY_BOUNDS_CONVEX 7
#define WK_FEATURE_ENTITY_CATEGORIES 8
#define WK_FEATURE_SPAWNING_RESOURCE_STRING 9
#define WK_FEATURE_ENTITY_STATE_GETTING 10
#define WK_FEATURE_ENTITY_STATE_SETTING 11
#define WK_FEATURE_ENTITY_INFO_GETTING 12
#define WK_FEATURE_ENTITY_INFO_SETTING 13
#define WK_FEATURE_SPAWNABLES 14
#define WK_FEATURE_SIMULATION_RESET 20
#define WK_FEATURE_SIMULATION_RESET_TIME 21
#define WK_FEATURE_SIMULATION_RESET_STATE 22
#define WK_FEATURE_SIMULATION_RESET_SPAWNED 23
#define WK_FEATURE_SIMULATION_STATE_GETTING 24
#define WK_FEATURE_SIMULATION_STATE_SETTING 25
#define WK_FEATURE_SIMULATION_STATE_PAUSE 26
#define WK_FEATURE_STEP_SIMULATION_SINGLE 31
#define WK_FEATURE_STEP_SIMULATION_MULTIPLE 32
#define WK_FEATURE_STEP_SIMULATION_ACTION 33
#define WK_FEATURE_WORLD_LOADING 40
#define WK_FEATURE_WORLD_RESOURCE_STRING 41
#define WK_FEATURE_WORLD_TAGS 42
#define WK_FEATURE_WORLD_UNLOADING 43
#define WK_FEATURE_WORLD_INFO_GETTING 44
#define WK_FEATURE_AVAILABLE_WORLDS 45
#define WK_FEATURE_SPAWNING_ENTITIES 50

/* The standard's names of its numbers (src/api/names.c), for people to
 * read next to them. wk_api_result_name: a result code as method (its name,
 * "SpawnEntity") answers it ("NOT_FOUND", "NAME_NOT_UNIQUE"), the codes
 * from 101 on meaning different things in different services; method NULL
 * names only msg/Result's own (0 to 4). wk_api_state_name: a
 * SimulationState ("PAUSED"). wk_api_feature_name: a msg/SimulatorFeatures
 * constant ("SPAWNING_ENTITIES"). Each is NULL for a number it does not
 * define; the strings are static. */
const char *wk_api_result_name(const char *method, uint32_t code);
const char *wk_api_state_name(uint32_t state);
const char *wk_api_feature_name(uint32_t feature);

typedef struct wk_api wk_api;

/* Options of an endpoint; zero is the default. */
typedef struct wk_api_desc {
    bool levels;     /* worlds load and unload their levels around performers */
    wk_physics_engine physics; /* what steps every world's simulation (wk_sim_desc's) */
    wk_store *store; /* ObjectWorldService's worlds, taken (also on failure);
                        NULL: a new store in memory */
    /* The folders whose files the services read (LoadWorld, SpawnEntity,
     * the sources of GetAvailableWorlds and GetSpawnables), besides the
     * resource path: a NULL-terminated list, borrowed for the endpoint's
     * life. NULL: any file. A path outside them is answered as missing. */
    const char *const *roots;
    /* A PLAYING world's motion, which is not journaled step by step, is
     * written to the store this often (and when it stops playing): 0 means
     * every 5 s. */
    double checkpoint_seconds;
    /* SetSimulationState to QUITTING ends the application: quit is called
     * (from the call's thread, holding the world) once the state is
     * QUITTING, and the process that serves the endpoint is to shut down as
     * it does at SIGTERM; the call itself is answered first. NULL: nothing
     * here can quit, and QUITTING is refused (STATE_TRANSITION_ERROR). */
    void (*quit)(void *ctx);
    void *quit_ctx;
    /* Called as a level of a simulated world loads or unloads (levels on),
     * from the thread stepping it, holding that world: the store world's id,
     * the level, which, and the simulated time. NULL: none. */
    void (*on_level)(const char *world_id, const char *level, bool loaded, double sim_time, void *ctx);
    void *level_ctx;
    /* Bounds on what clients can make the endpoint hold, so that one client
     * cannot take the memory others need; each refusal is RESOURCE_EXHAUSTED
     * (ObjectWorldService) or OPERATION_FAILED (simulation_interfaces),
     * naming the bound and the serve flag that raises it.
     * max_world_entities: the entities one world may hold (0: 1,000,000,
     * WK_MAX_WORLD_ENTITIES); whatever would take a world past it (a spawn,
     * a load, an object or frame created, a world created or cloned) is
     * refused, the world left as it was.
     * max_response_bytes: the largest answer (0: 16 MiB); a larger one (a
     * ListObjects FULL of a big world) is refused instead.
     * max_memory_bytes: while the process's resident memory is above it,
     * methods that make the server hold more (spawns, loads, creations,
     * clones) are refused; others, deletions among them, run (0: no bound).
     * max_physics_links: wk_sim_desc's, for every world's simulation; a
     * step past it is refused, naming serve's --max-physics-links. */
    size_t max_world_entities;
    size_t max_response_bytes;
    size_t max_memory_bytes;
    size_t max_physics_links;
} wk_api_desc;

#define WK_MAX_WORLD_ENTITIES 1000000
#define WK_MAX_RESPONSE_BYTES ((size_t)16 << 20)

/* A new service endpoint holding an empty world named "default"; NULL when
 * out of memory. Free with wk_api_free. wk_api_new() is
 * wk_api_new_desc(NULL).
 *
 * Threads: the service calls (wk_api_call, wk_api_simulate_steps,
 * wk_api_invoke, wk_api_play) may come from any number of threads. They act
 * on the one current simulation, which is not thread-safe, so each holds the
 * endpoint's lock from the moment its request has parsed until its response
 * is packed: calls run one at a time, in the order they get the lock. */
wk_api *wk_api_new(void);
wk_api *wk_api_new_desc(const wk_api_desc *desc);
void wk_api_free(wk_api *api);

/* Calls the service named service (the 22 of simulation_interfaces 2.1.0
 * by their names: "LoadWorld", "SpawnEntities", "GetEntities", ...) with a serialized request and appends the serialized
 * response to out. Returns WK_NOT_FOUND for an unknown service and WK_PARSE
 * for a request that does not parse or has a string holding a NUL byte,
 * which C strings cannot carry (nothing is appended then), WK_NOMEM, or
 * WK_OK: the outcome of the service itself is in the response's Result.
 * "SimulateSteps" is the SimulateSteps action run to its end: its request is
 * a SimulateStepsGoal, its response a SimulateStepsResult. */
int wk_api_call(wk_api *api, const char *service, const uint8_t *request, size_t len, wk_buf *out);

/* Receives a serialized SimulateStepsFeedback after each step; returning
 * false cancels the rest of the steps. */
typedef bool (*wk_api_feedback_fn)(const uint8_t *feedback, size_t len, void *ctx);

/* The SimulateSteps action with its feedback: as wk_api_call(api,
 * "SimulateSteps", goal, len, out), and fn (which may be NULL) is called
 * once for every step. A transport streams the feedback from fn (a ROS action
 * server publishes it, a gRPC server writes it to a server stream) and sends
 * out as the final result; a cancelled run answers OPERATION_FAILED, saying
 * how many steps were done. The steps run in batches, each holding the
 * world (at most 256 steps, or about 5 ms), and fn is called for a batch's
 * steps after it, with no world held: fn may wait for its receiver, which
 * holds up these steps only, and returning false stops them after the
 * batch in hand. Calls on the world get in between two batches; one that
 * leaves the simulation other than PAUSED ends the steps (OPERATION_FAILED,
 * saying how many were done). The call returns once all steps are done, so
 * a server runs it on a thread of its own. */
int wk_api_simulate_steps(wk_api *api, const uint8_t *goal, size_t len, wk_api_feedback_fn fn, void *ctx,
                          wk_buf *out);

/* What GetEntityBounds answers with: TYPE_BOX (1, the standard's default),
 * TYPE_CONVEX_HULL (2) or TYPE_SPHERE (3), as msg/Bounds numbers them;
 * WK_INVALID for any other. */
int wk_api_set_bounds_type(wk_api *api, uint32_t type);

/* Where wk_api_invoke sends a method's answer. The caller sets write and
 * ctx (and check if it wants to); wk_api_invoke fills status and message.
 *
 * A unary method writes exactly one message when its status is OK and none
 * otherwise. A server-streaming method writes any number: SimulateSteps writes
 * a SimulateStepsUpdate per step done, holding its feedback, and a last one
 * holding the result. */
typedef struct wk_api_sink {
    /* Receives one serialized response message, borrowed for the call.
     * Returning false says the receiver is gone (the client cancelled): a
     * stream stops at its next message. A stream's messages are written
     * with no world held, so write may wait for its receiver (a transport
     * bounds that wait: the client may have stopped reading). */
    bool (*write)(void *ctx, const uint8_t *msg, size_t len);
    /* Optional: asked once the call holds the endpoint's lock, just before
     * the method runs, so that a call that waited for the lock past its
     * deadline or its client does not act. Answers 0 to go on, or the gRPC
     * status to answer with instead (DEADLINE_EXCEEDED, CANCELLED). */
    int (*check)(void *ctx);
    void *ctx;
    /* Optional: the store world a simulation_interfaces method acts on (a
     * call's metadata worldkit-world-id); NULL or "": the current world.
     * Each world has a simulation of its own, made at its first call. */
    const char *world_id;
    int status;                      /* out: a gRPC status, WK_GRPC_OK when the method ran */
    /* out: the code of the Result a simulation_interfaces method answered
     * (a stream's last message), whose failures travel with status OK; -1
     * when it answered none. */
    int result;
    char message[WK_STATUS_MSG_MAX]; /* out: why, when status is not OK */
} wk_api_sink;

/* Calls a method by its full gRPC path, "/<package>.<Service>/<Method>"
 * (e.g. "/simulation_interfaces.SimulationInterfaces/LoadWorld"), with a
 * serialized request, and answers through sink. Returns sink->status:
 * UNIMPLEMENTED for a path no row of the method table names,
 * INVALID_ARGUMENT for a request that does not parse as the method's
 * request type or has a string holding a NUL byte (the message naming the
 * field), RESOURCE_EXHAUSTED when out of memory, the check's status,
 * or OK: the outcome of the service itself is in the response's Result, as
 * with wk_api_call. It returns when the method is done (for SimulateSteps,
 * after all its steps), so a transport calls it from a thread that may
 * block. */
int wk_api_invoke(wk_api *api, const char *method, const uint8_t *request, size_t len, wk_api_sink *sink);

/* Whether wk_api_invoke serves method; *server_streaming (which may be
 * NULL) says whether it may write more than one message. */
bool wk_api_has_method(const char *method, bool *server_streaming);
/* Whether wk_api_invoke serves any method of the service named by its full
 * name ("simulation_interfaces.SimulationInterfaces"). */
bool wk_api_has_service(const char *service);

/* The clock of the current simulation, as wk_api_play leaves it. */
typedef struct wk_api_clock {
    wk_sim_state state;
    uint64_t iterations; /* steps since the world loaded or time reset */
    uint64_t done;       /* steps this call ran */
    double dt;           /* the step size, seconds */
    double rtf;          /* the world's real_time_factor */
} wk_api_clock;

/* The simulation loop of a PLAYING world, for the thread of a transport that
 * drives it: when the current simulation is PLAYING, runs up to steps steps
 * under the endpoint's lock, so calls get in between two calls of it. Fills
 * *clock (which may be NULL) in any state; steps = 0 only reads it. Returns
 * WK_OK or a failed step's code: the world is then as the step left it and
 * PAUSED, the reason logged once and told by GetSimulationState. The
 * pacing is the caller's: see wk_api_clock's dt and rtf. */
int wk_api_play(wk_api *api, uint64_t steps, wk_api_clock *clock);

/* The simulations of the endpoint's worlds, for a loop that plays them all:
 * the endpoint itself (the current world) first, then one per other world
 * a call has named, in the order they were first named; each is a wk_api
 * that wk_api_play steps, valid for the endpoint's life. Writes up to cap
 * of them to out and returns how many there are. */
size_t wk_api_simulations(wk_api *api, wk_api **out, size_t cap);

/* What GetEntityBounds answers with: TYPE_BOX (1, the standard's default),
 * TYPE_CONVEX_HULL (2) or TYPE_SPHERE (3), as msg/Bounds numbers them;
 * WK_INVALID for any other. */
int wk_api_set_bounds_type(wk_api *api, uint32_t type);

/* The current world's simulation, its scene (the store's world "world")
 * and its root entity, borrowed until the next LoadWorld, or until a client
 * replaces the world through ObjectWorldService (CloneWorld over it,
 * SwapWorlds, DeleteWorld). They are not guarded by the endpoint's lock:
 * use them only while no other thread calls the endpoint. */
wk_sim *wk_api_sim(wk_api *api);
wk_scene *wk_api_scene(wk_api *api);
wk_entity wk_api_world(const wk_api *api);

/* ---- JSON: the proto3 JSON mapping of any message ----
 *
 * protobuf-c has no JSON; these calls are libprotobuf's proto3 JSON mapping
 * (https://protobuf.dev/programming-guides/json/, util/json_util.h), over
 * the message types of proto/ that the library carries as protoc wrote
 * them. protobuf-c's messages reach it as their serialized bytes, and a
 * type is found by its full name. Out: lowerCamelCase names, enums by name,
 * 64-bit integers as strings, bytes in base64, NaN and Infinity as strings,
 * maps as objects, Timestamp, Duration, the wrappers, Empty and Any in their
 * own forms, fields not present left out. In: both names, enums by name or
 * number, numbers as strings too; a field the type does not have is an
 * error. An Any's type URL is type.googleapis.com/<full name> of a type the
 * library knows (an Any of another type is an error both ways). Input errors
 * are libprotobuf's, naming the field by its path in the .proto's names, as
 * in "(spawn_requests[2].initial_pose.pose.position.x): invalid value
 * \"one\" for type TYPE_DOUBLE". */

struct ProtobufCMessage;
struct ProtobufCMessageDescriptor;

/* Options of the calls below; zero is the default. */
typedef struct wk_json_desc {
    /* Output on several lines, each nesting level one space deeper (the one
     * indented form libprotobuf writes); false: one line without spaces. */
    bool indent;
    /* Message types besides those of proto/ (a test's own messages, or the
     * types its Any values hold): a serialized google.protobuf.FileDescriptorSet
     * with everything it imports (protoc --include_imports
     * --descriptor_set_out), of descriptor_set_size bytes, read on every
     * call. NULL: the types of proto/ alone. */
    const uint8_t *descriptor_set;
    size_t descriptor_set_size;
} wk_json_desc;

/* Parses json (len bytes) as a message of type d into *out, which the caller
 * frees with protobuf_c_message_free_unpacked(*out, NULL). Returns WK_OK;
 * WK_PARSE for text that is not JSON, WK_INVALID for JSON that does not fit
 * the type (st names the field's path) or that holds a string with a NUL
 * byte, which protobuf-c's C strings would cut short; WK_NOT_FOUND when d is
 * no type the library knows; or WK_NOMEM. *out is NULL on failure. desc may
 * be NULL. */
int wk_json_to_message(const struct ProtobufCMessageDescriptor *d, const char *json, size_t len,
                       const wk_json_desc *desc, struct ProtobufCMessage **out, wk_status *st);

/* Appends m as JSON text to out, which is also NUL-terminated past its
 * length. Returns WK_OK, WK_NOMEM, WK_NOT_FOUND as above, or WK_INVALID for
 * a message JSON cannot hold (a required field missing, a Timestamp out of
 * range, an Any of an unknown type or whose bytes do not parse), st saying
 * which. Bytes of a string that are not UTF-8 are left out of the text
 * (libprotobuf logs the field's name on stderr). desc may be NULL. */
int wk_json_from_message(const struct ProtobufCMessage *m, const wk_json_desc *desc, wk_buf *out, wk_status *st);

/* The same on serialized messages, as a client or a server needs them:
 * wk_json_to_bytes appends the message json describes, serialized (a NUL in
 * a string travels, for the receiver to judge); wk_json_from_bytes appends
 * the JSON of the serialized message of type d (WK_PARSE when the bytes are
 * not one). */
int wk_json_to_bytes(const struct ProtobufCMessageDescriptor *d, const char *json, size_t len,
                     const wk_json_desc *desc, wk_buf *out, wk_status *st);
int wk_json_from_bytes(const struct ProtobufCMessageDescriptor *d, const uint8_t *bytes, size_t len,
                       const wk_json_desc *desc, wk_buf *out, wk_status *st);

/* One RPC method worldkit serves, from the services' descriptors. */
typedef struct wk_json_method {
    const char *service; /* full name, "intrinsic_proto.world.ObjectWorldService" */
    const char *name;    /* "ListWorlds" */
    const struct ProtobufCMessageDescriptor *input, *output;
} wk_json_method;

/* Finds the method a path names: "/pkg.Service/Method", "pkg.Service/Method",
 * "Service/Method", or "Method" alone when one service has it. Returns WK_OK,
 * or WK_NOT_FOUND or WK_INVALID (ambiguous) with st saying which. */
int wk_json_find_method(const char *path, wk_json_method *m, wk_status *st);
/* The i-th method of all services, in table order; false past the end. */
bool wk_json_method_at(size_t i, wk_json_method *m);

/* The endpoint's store: every world, by world_id. A new endpoint holds
 * the current world "world" (an empty one named "default" until LoadWorld,
 * or the one a store kept on disk brought back) and its initial copy
 * "init_world". The simulation_interfaces services and the PLAYING loop act
 * on "world", ObjectWorldService on any world: one world, two doors.
 * Borrowed for the endpoint's life; the store is thread-safe and locks
 * each world itself. */
wk_store *wk_api_store(wk_api *api);

/* The binary glTF of the mesh a shape's uri names when that is a
 * registration with GeometryService ("worldkit-geometry:" and its
 * fingerprint) whose mesh this process holds in memory (CreateGeometry
 * read it, or a call since did), appended to out: WK_OK; WK_NOT_FOUND
 * when uri names none or the mesh is not held (after a restart, or once
 * evicted), in which case nothing is read; WK_NOMEM. Never waits for a
 * world or the store. */
int wk_api_mesh_glb(const char *uri, wk_buf *out);

#ifdef __cplusplus
}
#endif
#endif
