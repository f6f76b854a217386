/* entities.c — GetEntities and GetEntitiesStates: the models of the world
 * that pass an EntityFilters (a POSIX extended regular expression on names,
 * base/name_regex.h's, categories, tags and overlap with bounds), with their
 * states for the second. Also what the other entity services share: which entities are
 * listed, their categories, and the filters themselves. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/sim/entity_query.h"

int wk__api_entities(wk_api *api, wk_entity_list *out)
{
    wk_scene *s = wk_api_scene(api);
    wk_ecm *ecm = wk_scene_ecm(s);
    const wk_scene_types *t = wk_scene_types_of(s);
    for (wk_entity c = wk_ecm_first_child(ecm, wk_api_world(api)); c; c = wk_ecm_next_sibling(ecm, c)) {
        const uint8_t *kind = wk_ecm_get(ecm, c, t->kind);
        if (kind && *kind == WK_NODE_MODEL && wk_scene_local_name(s, c) && wk_entity_list_push(out, c))
            return WK_NOMEM;
    }
    return WK_OK;
}

uint32_t wk__api_category(wk_api *api, wk_entity e)
{
    wk_scene *s = wk_api_scene(api);
    const wk_entity_info *info = wk_scene_entity_info(s, e);
    if (info)
        return info->category;
    return wk_ecm_has(wk_scene_ecm(s), e, wk_scene_types_of(s)->is_static) ? WK_CATEGORY_STATIC_OBJECT
                                                                             : WK_CATEGORY_OBJECT;
}

bool wk__tags_filter_valid(const SimulationInterfaces__TagsFilter *filter, char *why, size_t cap)
{
    if (!filter || filter->filter_mode <= 1)
        return true;
    snprintf(why, cap, "tags filter_mode %u is neither FILTER_MODE_ANY (0) nor FILTER_MODE_ALL (1)",
             filter->filter_mode);
    return false;
}

static bool has_tag(const char *const *tags, size_t n, const char *tag)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(tags[i], tag))
            return true;
    return false;
}

bool wk__tags_match(const SimulationInterfaces__TagsFilter *filter, const char *const *tags, size_t n)
{
    if (!filter || filter->n_tags == 0)
        return true;
    bool all = filter->filter_mode == 1;
    for (size_t i = 0; i < filter->n_tags; i++) {
        bool found = has_tag(tags, n, filter->tags[i]);
        if (found && !all)
            return true;
        if (!found && all)
            return false;
    }
    return all;
}

static bool finite_point(const SimulationInterfaces__Vector3 *v)
{
    return !v || (isfinite(v->x) && isfinite(v->y) && isfinite(v->z));
}

/* Reads the bounds of a filter into f->region. */
static uint32_t read_region(wk__filters *f, const SimulationInterfaces__Bounds *b, char *why, size_t cap)
{
    f->region = (wk__region){.type = b ? b->type : WK_BOUNDS_TYPE_EMPTY};
    if (f->region.type == WK_BOUNDS_TYPE_EMPTY)
        return WK_RESULT_OK;
    static const char *const names[] = {"TYPE_EMPTY", "TYPE_BOX", "TYPE_CONVEX_HULL", "TYPE_SPHERE"};
    if (b->type > WK_BOUNDS_TYPE_SPHERE)
        return snprintf(why, cap, "bounds type %u is not TYPE_BOX (1), TYPE_CONVEX_HULL (2) or TYPE_SPHERE (3)",
                        b->type),
               WK_RESULT_FEATURE_UNSUPPORTED;
    size_t n = b->n_points;
    bool enough = b->type == WK_BOUNDS_TYPE_CONVEX_HULL ? n >= 3 : n == 2;
    if (!enough)
        return snprintf(why, cap, "bounds of %s take %s points, not %zu", names[b->type],
                        b->type == WK_BOUNDS_TYPE_CONVEX_HULL ? "3 or more" : "2", n),
               WK_RESULT_OPERATION_FAILED;
    wk_vec3 *p = calloc(n, sizeof *p);
    if (!p)
        return snprintf(why, cap, "out of memory"), WK_RESULT_OPERATION_FAILED;
    f->region_points = p;
    for (size_t i = 0; i < n; i++) {
        if (!finite_point(b->points[i]))
            return snprintf(why, cap, "bounds point %zu is not finite", i), WK_RESULT_OPERATION_FAILED;
        p[i] = wk__msg_to_vec3(b->points[i]);
    }
    if (b->type == WK_BOUNDS_TYPE_BOX) {
        f->region.lo = wk_vec3_min(p[0], p[1]);
        f->region.hi = wk_vec3_max(p[0], p[1]);
    } else if (b->type == WK_BOUNDS_TYPE_SPHERE) {
        if (p[1].x < 0)
            return snprintf(why, cap, "the sphere's radius %g is negative", p[1].x), WK_RESULT_OPERATION_FAILED;
        f->region.center = p[0];
        f->region.radius = p[1].x;
    } else {
        f->region.points = p;
        f->region.count = n;
    }
    return WK_RESULT_OK;
}

/* How much of a refused filter its message quotes. */
#define FILTER_SHOWN_MAX 64

uint32_t wk__filters_init(wk__filters *f, const SimulationInterfaces__EntityFilters *msg, char *why, size_t cap)
{
    *f = (wk__filters){.msg = msg};
    if (!msg)
        return WK_RESULT_OK;
    if (msg->filter && msg->filter[0]) {
        char reason[WK_STATUS_MSG_MAX];
        f->regex = wk__name_regex_new(msg->filter, reason, sizeof reason);
        if (!f->regex) {
            /* The filter's head names it; the reason must fit after it. */
            return snprintf(why, cap, "filter '%.*s%s': %s", FILTER_SHOWN_MAX, msg->filter,
                            strlen(msg->filter) > FILTER_SHOWN_MAX ? "..." : "", reason),
                   WK_RESULT_OPERATION_FAILED;
        }
    }
    if (!wk__tags_filter_valid(msg->tags, why, cap))
        return WK_RESULT_OPERATION_FAILED;
    return read_region(f, msg->bounds, why, cap);
}

void wk__filters_fini(wk__filters *f)
{
    wk__name_regex_free(f->regex);
    free(f->region_points);
    *f = (wk__filters){0};
}

static bool category_listed(const SimulationInterfaces__EntityFilters *msg, uint32_t category)
{
    if (msg->n_categories == 0)
        return true;
    for (size_t i = 0; i < msg->n_categories; i++)
        if (msg->categories[i] && msg->categories[i]->category == category)
            return true;
    return false;
}

bool wk__filters_match(wk_api *api, const wk__filters *f, wk_entity e, const char *name)
{
    const SimulationInterfaces__EntityFilters *msg = f->msg;
    if (!msg)
        return true;
    if (f->regex && !wk__name_regex_match(f->regex, name))
        return false;
    if (!category_listed(msg, wk__api_category(api, e)))
        return false;
    const wk_entity_info *info = wk_scene_entity_info(wk_api_scene(api), e);
    if (!wk__tags_match(msg->tags, info ? info->tags : NULL, info ? info->tag_count : 0))
        return false;
    if (f->region.type == WK_BOUNDS_TYPE_EMPTY)
        return true;
    wk__hull h;
    char why[WK_STATUS_MSG_MAX] = "";
    int kind = wk__hull_of(api, e, wk_api_world(api), &h, why, sizeof why);
    /* Out of memory: kept, so that a filter never hides what it cannot check. */
    bool meets = kind != WK__BOUNDED || wk__overlaps(&h, &f->region);
    wk__hull_free(&h);
    return meets;
}

/* The entities passing the request's filters; a Result code, why written
 * when it is not OK. */
static uint32_t select_entities(wk_api *api, const SimulationInterfaces__EntityFilters *msg, wk_entity_list *out,
                                char *why, size_t cap)
{
    wk__filters f;
    uint32_t code = wk__filters_init(&f, msg, why, cap);
    wk_entity_list all = {0};
    if (code == WK_RESULT_OK && wk__api_entities(api, &all))
        code = WK_RESULT_OPERATION_FAILED, snprintf(why, cap, "out of memory");
    for (size_t i = 0; code == WK_RESULT_OK && i < all.count; i++)
        if (wk__filters_match(api, &f, all.items[i], wk_scene_local_name(wk_api_scene(api), all.items[i])) &&
            wk_entity_list_push(out, all.items[i]))
            code = WK_RESULT_OPERATION_FAILED, snprintf(why, cap, "out of memory");
    wk_entity_list_free(&all);
    wk__filters_fini(&f);
    return code;
}

/* The names of the entities, owned by the call. */
static char **names_of(wk_api *api, wk__call *call, const wk_entity_list *list)
{
    char **names = wk__call_alloc(call, (list->count ? list->count : 1) * sizeof *names);
    for (size_t i = 0; names && i < list->count; i++)
        names[i] = wk__call_strdup(call, wk_scene_local_name(wk_api_scene(api), list->items[i]));
    return names;
}

/* The entities the filters select, in found, and their names in *names
 * (the call's; NULL unless all were selected); the call's Result. */
static SimulationInterfaces__Result *select_named(wk_api *api, wk__call *call,
                                                  const SimulationInterfaces__EntityFilters *filters,
                                                  wk_entity_list *found, char ***names)
{
    char why[WK_STATUS_MSG_MAX] = "";
    uint32_t code = select_entities(api, filters, found, why, sizeof why);
    if (code == WK_RESULT_OK)
        *names = names_of(api, call, found);
    return wk__call_result(call, code, "%s", why);
}

int wk__get_entities(wk_api *api, wk__call *call, const ProtobufCMessage *request, ProtobufCMessage **response)
{
    const SimulationInterfaces__GetEntitiesRequest *req = (const void *)request;
    SimulationInterfaces__GetEntitiesResponse *resp = (void *)*response;
    wk_entity_list found = {0};
    resp->result = select_named(api, call, req->filters, &found, &resp->entities);
    resp->n_entities = resp->entities ? found.count : 0;
    wk_entity_list_free(&found);
    return WK_OK;
}

int wk__get_entities_states(wk_api *api, wk__call *call, const ProtobufCMessage *request,
                            ProtobufCMessage **response)
{
    const SimulationInterfaces__GetEntitiesStatesRequest *req = (const void *)request;
    SimulationInterfaces__GetEntitiesStatesResponse *resp = (void *)*response;
    wk_entity_list found = {0};
    resp->result = select_named(api, call, req->filters, &found, &resp->entities);
    if (resp->entities) {
        resp->states = wk__call_alloc(call, (found.count ? found.count : 1) * sizeof *resp->states);
        for (size_t i = 0; resp->states && i < found.count; i++) {
            wk_motion m = wk_sim_motion(api->sim, found.items[i]);
            resp->states[i] = wk__msg_entity_state(api, call, &m);
        }
        resp->n_entities = resp->n_states = found.count;
    }
    wk_entity_list_free(&found);
    return WK_OK;
}
