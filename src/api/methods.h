/* methods.h — the registry of every RPC method worldkit serves, one row a
 * method of every service (methods.c): what the router, the lock mode, the
 * list of features and the answers without a world all read. */
#ifndef WK_API_METHODS_H
#define WK_API_METHODS_H

#include "api/api_internal.h"

/* What a method is, as flags of its row. */
enum wk__method_flags {
    /* simulation_interfaces: runs on a world's simulation (the current
     * world's, or the one its call names), under that simulation's lock,
     * with the world open; a Result in its response tells its outcome. */
    WK__METHOD_SIM = 1,
    /* Changes the world it acts on: the dispatcher opens its world for
     * writing (else for reading); a simulation_interfaces method's change
     * is committed before it answers, an ObjectWorldService mutation
     * commits its own batch. */
    WK__METHOD_WRITES = 2,
    /* Answers even while no world is loaded (after UnloadWorld); every
     * other simulation_interfaces method then answers INCORRECT_STATE. */
    WK__METHOD_ANY_WORLD = 4,
    /* Writes any number of messages (a server stream). */
    WK__METHOD_STREAMING = 8,
    /* The transport's own (the health service): no handler here. */
    WK__METHOD_TRANSPORT = 16,
    /* Makes the server hold more (a world loaded, created or cloned,
     * entities added): refused while the process is past its memory bound
     * (limits.c), as Redis refuses its commands flagged denyoom. */
    WK__METHOD_GROWS = 32,
    /* ObjectWorldService: acts on the one world its request's world_id
     * names, which the dispatcher opens for the handler (for writing with
     * WRITES) and closes after it (ows/ows.c). */
    WK__METHOD_OPENS = 64,
    /* simulation_interfaces: all or nothing. The dispatcher runs the
     * handler in a scene batch on the open world and keeps what it changed
     * only when its Result says OK (api.c). LoadWorld and UnloadWorld have
     * none: they replace the world whole (after reading what replaces it),
     * all or nothing by the store's replace; nor has ResetSimulation: a
     * reset ends the ECM's step, which a batch does not allow. */
    WK__METHOD_BATCH = 128,
    /* simulation_interfaces: reads files only, never the world (the walks
     * of GetAvailableWorlds and GetSpawnables, which last until their
     * deadline): runs without the simulation's lock, so that no call on
     * the world waits for it. */
    WK__METHOD_FILES = 256,
};

typedef struct wk__method {
    const ProtobufCServiceDescriptor *service;
    const char *name; /* "LoadWorld"; the path is "/<service full name>/<name>" */
    wk__handler handle;
    unsigned flags;
    uint8_t feature_count;
    uint32_t features[4]; /* the msg/SimulatorFeatures codes it brings */
} wk__method;

/* The row of a method by its full path ("/pkg.Service/Method", the leading
 * slash optional), or NULL. */
const wk__method *wk__method_find(const char *path);
/* The row of a method of service by its name alone, or NULL. */
const wk__method *wk__method_named(const ProtobufCServiceDescriptor *service, const char *name);
/* The i-th row, in the registry's order; NULL past the end. */
const wk__method *wk__method_at(size_t i);
/* The types of its request, and of the message its handler answers (for
 * SimulateSteps, the SimulateStepsResult its stream ends with). */
const ProtobufCMessageDescriptor *wk__method_request(const wk__method *m);
const ProtobufCMessageDescriptor *wk__method_response(const wk__method *m);

/* The method's request, unpacked from len bytes into *out (free with
 * protobuf_c_message_free_unpacked); WK_PARSE, with st naming the method
 * and the field, for bytes that do not parse or a string holding a NUL. */
int wk__method_unpack(const wk__method *m, const uint8_t *request, size_t len, ProtobufCMessage **out,
                      wk_status *st);

/* limits.c: WK_OK, or WK_LIMIT with st naming the bound and the serve flag
 * that raises it: for m, a method that grows what the server holds, while
 * the process's resident memory is past api's bound; for an answer of
 * size bytes to m, past api's bound on answers. */
int wk__api_memory_room(const wk_api *api, const wk__method *m, wk_status *st);
int wk__api_response_room(const wk_api *api, const wk__method *m, size_t size, wk_status *st);
/* limits.c: bounds the links of the worlds of api's store that its physics
 * would step, as the store bounds their entities. */
void wk__api_bound_links(wk_api *api);

/* The features of every row (msg/SimulatorFeatures codes), ascending:
 * writes up to cap to out and returns how many there are. */
size_t wk__method_features(uint32_t *out, size_t cap);

#endif
