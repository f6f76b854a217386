/* entity_query.h — the entities the simulation_interfaces services list, and
 * the EntityFilters that select among them (entities.c), shared by
 * GetEntities, GetEntitiesStates, GetEntityInfo and the bounds services. */
#ifndef WK_API_ENTITY_QUERY_H
#define WK_API_ENTITY_QUERY_H

#include "api/sim/bounds.h"
#include "base/name_regex.h"

/* The entities GetEntities lists: the models directly under the world (those
 * of the world file and the spawned ones), in the order they were added.
 * Their names are their local names, which SpawnEntities keeps unique. */
int wk__api_entities(wk_api *api, wk_entity_list *out);

/* The entity's category: its EntityInfo's, else STATIC_OBJECT for a static
 * model and OBJECT for any other. */
uint32_t wk__api_category(wk_api *api, wk_entity e);

/* EntityFilters, checked and ready to apply. */
typedef struct wk__filters {
    wk__name_regex *regex; /* owned; NULL: no name filter */
    const SimulationInterfaces__EntityFilters *msg;
    wk__region region;
    wk_vec3 *region_points; /* owned: a hull region's points */
} wk__filters;

/* Reads msg (may be NULL: no filter). Returns WK_RESULT_OK, or the Result
 * code for a bad filter with why written: OPERATION_FAILED for a regular
 * expression that does not compile or that base/name_regex.h refuses (a
 * back-reference, too many repetitions, past its memory budget), a tags
 * filter_mode that is neither ANY nor ALL, or bounds without the points their type takes; FEATURE_UNSUPPORTED
 * for an unknown bounds type. f needs wk__filters_fini either way. */
uint32_t wk__filters_init(wk__filters *f, const SimulationInterfaces__EntityFilters *msg, char *why, size_t cap);
void wk__filters_fini(wk__filters *f);
/* Whether entity e (called name) passes every filter: its name matches the
 * regular expression (anywhere, as POSIX regexec does; anchor with ^ and $),
 * its category is one of those listed, its tags satisfy the tags filter, and
 * its collision geometry meets the bounds (a plane, mesh or heightmap counts
 * as meeting every region, since worldkit cannot bound it). */
bool wk__filters_match(wk_api *api, const wk__filters *f, wk_entity e, const char *name);

/* Whether tags (n of them) satisfy a TagsFilter (NULL or without tags:
 * everything does). */
bool wk__tags_match(const SimulationInterfaces__TagsFilter *filter, const char *const *tags, size_t n);
/* Whether a TagsFilter's mode is one the standard defines. */
bool wk__tags_filter_valid(const SimulationInterfaces__TagsFilter *filter, char *why, size_t cap);

/* A Bounds message of the hull in the type asked for (BOX, SPHERE or
 * CONVEX_HULL), or TYPE_EMPTY when unbounded is true; owned by the call. */
SimulationInterfaces__Bounds *wk__msg_bounds(wk__call *call, const wk__hull *h, uint32_t type, bool unbounded);

/* An EntityCategory message, and a copy of n strings, owned by the call. */
SimulationInterfaces__EntityCategory *wk__msg_category(wk__call *call, uint32_t category);
char **wk__msg_strings(wk__call *call, const char *const *strings, size_t n);

#endif
