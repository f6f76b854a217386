/* api_internal.h — what the service handlers of src/api share: the endpoint,
 * a per-call allocation list for the strings and arrays of a response, and
 * the mapping from worldkit codes to a service's result codes. */
#ifndef WK_API_INTERNAL_H
#define WK_API_INTERNAL_H

#include "simulation_interfaces/simulation_interfaces.pb-c.h"
#include "worldkit/wk_api.h"
#include "worldkit/wk_formats.h"
#include "worldkit/wk_sim.h"

struct wk_api {
    wk_sim *sim; /* the current world */
};

/* Everything a response points to, freed once it is packed. */
typedef struct wk__call {
    void **blocks;
    size_t count, cap;
    bool failed; /* out of memory somewhere */
} wk__call;

void *wk__call_alloc(wk__call *call, size_t size);
char *wk__call_strdup(wk__call *call, const char *s);
/* A Result with code and message (printf-style), owned by the call. */
SimulationInterfaces__Result *wk__call_result(wk__call *call, uint32_t code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A worldkit code and the result code a service gives for it. */
typedef struct wk__code_map {
    int code;
    uint32_t result;
} wk__code_map;

/* The service's result for code; WK_RESULT_OPERATION_FAILED when unlisted. */
uint32_t wk__map_code(const wk__code_map *map, int code);

/* The handlers: each reads its request and fills *response in the call. */
int wk__load_world(wk_api *api, wk__call *call, const ProtobufCMessage *request, ProtobufCMessage **response);
int wk__spawn_entities(wk_api *api, wk__call *call, const ProtobufCMessage *request, ProtobufCMessage **response);

/* Replaces the api's world with a simulation of desc (which it takes), or of
 * an empty world named "default" when desc is NULL. */
int wk__api_set_world(wk_api *api, wk_world_desc *desc, wk_status *st);

#endif
