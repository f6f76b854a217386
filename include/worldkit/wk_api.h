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

typedef struct wk_api wk_api;

/* A new service endpoint holding an empty world named "default"; NULL when
 * out of memory. Free with wk_api_free. */
wk_api *wk_api_new(void);
void wk_api_free(wk_api *api);

/* Calls the service named service ("LoadWorld", "SpawnEntities") with a
 * serialized request and appends the serialized response to out. Returns
 * WK_NOT_FOUND for an unknown service and WK_PARSE for a request that does
 * not parse (nothing is appended then), WK_NOMEM, or WK_OK: the outcome of
 * the service itself is in the response's Result. */
int wk_api_call(wk_api *api, const char *service, const uint8_t *request, size_t len, wk_buf *out);

/* The current world's scene and its root entity, borrowed until the next
 * LoadWorld. */
wk_scene *wk_api_scene(wk_api *api);
wk_entity wk_api_world(const wk_api *api);

#ifdef __cplusplus
}
#endif
#endif
