/* names.c — the numbers of simulation_interfaces by their names in the
 * standard: result codes (msg/Result's, and each service's own from 101 on,
 * which mean different things in different services), simulation states
 * and simulator features. Each table is built from wk_api.h's constants
 * with the name the preprocessor makes of them, so a name cannot drift from
 * its number. Readers are people: the command line prints a name next to
 * each number, the server's log names an in-band failure. */
#include <string.h>

#include "worldkit/wk_api.h"

/* A result code and the services that answer it, by method name, ' '
 * between them; NULL: msg/Result's own, which every service answers. */
typedef struct result_name {
    const char *methods;
    uint32_t code;
    const char *name;
} result_name;

#define SPAWNING "SpawnEntity SpawnEntities"
#define CODE(methods, prefix, name) {methods, prefix##name, #name}

static const result_name results[] = {
    CODE(NULL, WK_RESULT_, FEATURE_UNSUPPORTED),
    CODE(NULL, WK_RESULT_, OK),
    CODE(NULL, WK_RESULT_, NOT_FOUND),
    CODE(NULL, WK_RESULT_, INCORRECT_STATE),
    CODE(NULL, WK_RESULT_, OPERATION_FAILED),
    CODE("LoadWorld", WK_LOAD_WORLD_, UNSUPPORTED_FORMAT),
    CODE("LoadWorld", WK_LOAD_WORLD_, NO_RESOURCE),
    CODE("LoadWorld", WK_LOAD_WORLD_, RESOURCE_PARSE_ERROR),
    CODE("LoadWorld", WK_LOAD_WORLD_, MISSING_ASSETS),
    CODE("LoadWorld", WK_LOAD_WORLD_, UNSUPPORTED_ASSETS),
    CODE("LoadWorld", WK_LOAD_WORLD_, UNSUPPORTED_ELEMENTS),
    CODE(SPAWNING, WK_SPAWN_, NAME_NOT_UNIQUE),
    CODE(SPAWNING, WK_SPAWN_, NAME_INVALID),
    CODE(SPAWNING, WK_SPAWN_, UNSUPPORTED_FORMAT),
    CODE(SPAWNING, WK_SPAWN_, NO_RESOURCE),
    CODE(SPAWNING, WK_SPAWN_, NAMESPACE_INVALID),
    CODE(SPAWNING, WK_SPAWN_, RESOURCE_PARSE_ERROR),
    CODE(SPAWNING, WK_SPAWN_, MISSING_ASSETS),
    CODE(SPAWNING, WK_SPAWN_, UNSUPPORTED_ASSETS),
    CODE(SPAWNING, WK_SPAWN_, INVALID_POSE),
    CODE("SpawnEntities", WK_, SPAWN_ENTITIES_FAILED),
    CODE("SetSimulationState", WK_SET_STATE_, ALREADY_IN_TARGET_STATE),
    CODE("SetSimulationState", WK_SET_STATE_, STATE_TRANSITION_ERROR),
    CODE("SetSimulationState", WK_SET_STATE_, INCORRECT_TRANSITION),
    CODE("SetEntityState", WK_SET_ENTITY_STATE_, INVALID_POSE),
    CODE("UnloadWorld GetCurrentWorld", WK_UNLOAD_WORLD_, NO_WORLD_LOADED),
    CODE("GetAvailableWorlds", WK_AVAILABLE_WORLDS_, DEFAULT_SOURCES_FAILED),
};

/* Whether method is one of the words of list. */
static bool among(const char *list, const char *method)
{
    size_t n = strlen(method);
    for (const char *p = list; (p = strstr(p, method)) != NULL; p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
            return true;
    return false;
}

const char *wk_api_result_name(const char *method, uint32_t code)
{
    for (size_t i = 0; i < sizeof results / sizeof results[0]; i++)
        if (results[i].code == code && (!results[i].methods || (method && among(results[i].methods, method))))
            return results[i].name;
    return NULL;
}

const char *wk_api_state_name(uint32_t state)
{
    static const char *const names[] = {"STOPPED", "PLAYING", "PAUSED", "QUITTING", "NO_WORLD", "LOADING_WORLD"};
    return state < sizeof names / sizeof names[0] ? names[state] : NULL;
}

#define FEATURE(name) {WK_FEATURE_##name, #name}

const char *wk_api_feature_name(uint32_t feature)
{
    static const struct {
        uint32_t feature;
        const char *name;
    } features[] = {
        FEATURE(SPAWNING),
        FEATURE(DELETING),
        FEATURE(NAMED_POSES),
        FEATURE(POSE_BOUNDS),
        FEATURE(ENTITY_TAGS),
        FEATURE(ENTITY_BOUNDS),
        FEATURE(ENTITY_BOUNDS_BOX),
        FEATURE(ENTITY_BOUNDS_CONVEX),
        FEATURE(ENTITY_CATEGORIES),
        FEATURE(SPAWNING_RESOURCE_STRING),
        FEATURE(ENTITY_STATE_GETTING),
        FEATURE(ENTITY_STATE_SETTING),
        FEATURE(ENTITY_INFO_GETTING),
        FEATURE(ENTITY_INFO_SETTING),
        FEATURE(SPAWNABLES),
        FEATURE(SIMULATION_RESET),
        FEATURE(SIMULATION_RESET_TIME),
        FEATURE(SIMULATION_RESET_STATE),
        FEATURE(SIMULATION_RESET_SPAWNED),
        FEATURE(SIMULATION_STATE_GETTING),
        FEATURE(SIMULATION_STATE_SETTING),
        FEATURE(SIMULATION_STATE_PAUSE),
        FEATURE(STEP_SIMULATION_SINGLE),
        FEATURE(STEP_SIMULATION_MULTIPLE),
        FEATURE(STEP_SIMULATION_ACTION),
        FEATURE(WORLD_LOADING),
        FEATURE(WORLD_RESOURCE_STRING),
        FEATURE(WORLD_TAGS),
        FEATURE(WORLD_UNLOADING),
        FEATURE(WORLD_INFO_GETTING),
        FEATURE(AVAILABLE_WORLDS),
        FEATURE(SPAWNING_ENTITIES),
    };
    for (size_t i = 0; i < sizeof features / sizeof features[0]; i++)
        if (features[i].feature == feature)
            return features[i].name;
    return NULL;
}
