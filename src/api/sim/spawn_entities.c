/* spawn_entities.c — the SpawnEntities service: each entry reads one model
 * (SDFormat, URDF or MJCF, by uri or string) and adds it to the world under
 * a unique name, at its initial pose in its reference frame, under its
 * namespace. The call is all or nothing (its row's batch, api.c): each
 * entry reports its own result, and when one fails none is kept, the
 * entries that would have spawned answering OPERATION_FAILED with the first
 * that failed; the call's result is OK only when all succeed. An entry
 * still being read or made at the call's deadline ends the call with
 * DEADLINE_EXCEEDED, none kept. */
#include <ctype.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "api/api_internal.h"

static const wk__code_map spawn_codes[] = {
    {WK_UNSUPPORTED_FORMAT, WK_SPAWN_UNSUPPORTED_FORMAT},
    {WK_NO_RESOURCE, WK_SPAWN_NO_RESOURCE},
    {WK_PARSE, WK_SPAWN_RESOURCE_PARSE_ERROR},
    {WK_NOT_FOUND, WK_SPAWN_RESOURCE_PARSE_ERROR}, /* no such file */
    {WK_UNSUPPORTED_ELEMENTS, WK_SPAWN_RESOURCE_PARSE_ERROR},
    {WK_MISSING_ASSETS, WK_SPAWN_MISSING_ASSETS},
    {WK_UNSUPPORTED_ASSETS, WK_SPAWN_UNSUPPORTED_ASSETS},
    {0, WK_RESULT_OPERATION_FAILED},
};

/* An entry's outcome: a result code, a message and the final name. */
typedef struct outcome {
    uint32_t code;
    char message[WK_STATUS_MSG_MAX];
    char name[256];
    bool gave_up; /* at the call's deadline: the call ends DEADLINE_EXCEEDED */
} outcome;

static uint32_t refuse(outcome *o, uint32_t code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static uint32_t refuse(outcome *o, uint32_t code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(o->message, sizeof o->message, fmt, ap);
    va_end(ap);
    return o->code = code;
}

/* One ROS 2 name token: a letter or underscore, then letters, digits and
 * underscores. Entity names and each part of a namespace follow it. */
static bool is_token(const char *s, size_t len)
{
    if (len == 0 || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
        return false;
    for (size_t i = 1; i < len; i++)
        if (!(isalnum((unsigned char)s[i]) || s[i] == '_'))
            return false;
    return true;
}

/* ROS 2 namespace rules: empty, "/", or tokens joined by single slashes,
 * optionally led by one, with no slash at the end. */
static bool valid_namespace(const char *ns)
{
    if (!ns[0] || !strcmp(ns, "/"))
        return true;
    const char *s = ns[0] == '/' ? ns + 1 : ns;
    for (;;) {
        const char *slash = strchr(s, '/');
        size_t len = slash ? (size_t)(slash - s) : strlen(s);
        if (!is_token(s, len))
            return false;
        if (!slash)
            return true;
        s = slash + 1;
    }
}

static bool name_taken(wk_api *api, const char *name)
{
    return wk_scene_scoped(wk_api_scene(api), wk_api_world(api), name) != WK_NULL_ENTITY;
}

/* Picks the entry's name: the requested one, else the file's; unique, or
 * made unique with a _N suffix when renaming is allowed. */
static uint32_t choose_name(wk_api *api, const SimulationInterfaces__SpawnEntityRequest *e, const char *file_name,
                            outcome *o)
{
    const char *want = e->name && e->name[0] ? e->name : file_name;
    if (!want || !want[0]) {
        if (!e->allow_renaming)
            return refuse(o, WK_SPAWN_NAME_INVALID, "no name given and the resource names none");
        want = "entity";
    }
    if (!is_token(want, strlen(want)))
        return refuse(o, WK_SPAWN_NAME_INVALID,
                      "name '%s' is invalid: it must be a letter or '_' followed by letters, digits or '_'", want);
    if (strlen(want) + 12 > sizeof o->name)
        return refuse(o, WK_SPAWN_NAME_INVALID, "name '%.40s...' is too long", want);
    snprintf(o->name, sizeof o->name, "%s", want);
    if (!name_taken(api, o->name))
        return WK_RESULT_OK;
    if (!e->allow_renaming)
        return refuse(o, WK_SPAWN_NAME_NOT_UNIQUE, "name '%s' is already taken", want);
    for (unsigned n = 0;; n++) {
        snprintf(o->name, sizeof o->name, "%s_%u", want, n);
        if (!name_taken(api, o->name))
            return WK_RESULT_OK;
    }
}

/* The pose of the entry relative to the world entity, or a refusal. */
static uint32_t placement(wk_api *api, const SimulationInterfaces__SpawnEntityRequest *e, const wk_node *model,
                          wk_pose *world_T_model, outcome *o)
{
    const SimulationInterfaces__PoseStamped *ps = e->initial_pose;
    if (!ps || !ps->pose) {
        *world_T_model = model->world; /* where the file puts it */
        return WK_RESULT_OK;
    }
    wk_pose pose = wk__msg_to_pose(ps->pose);
    char why[128];
    if (wk_pose_problem(pose, why, sizeof why))
        return refuse(o, WK_SPAWN_INVALID_POSE, "initial pose: %s", why);
    const char *frame_name = ps->header && ps->header->frame_id ? ps->header->frame_id : "";
    wk_entity frame = wk__api_frame(api, frame_name);
    if (!frame)
        return refuse(o, WK_RESULT_NOT_FOUND, "reference frame '%s' is not known to the world", frame_name);
    wk_pose world_T_frame = wk_pose_compose(wk_pose_inverse(wk_scene_world_pose(wk_api_scene(api), wk_api_world(api))),
                                            wk_scene_world_pose(wk_api_scene(api), frame));
    *world_T_model = wk_pose_compose(world_T_frame, pose);
    /* Kept as the model's ParentPose under the world: within the bound too. */
    if (wk_pose_problem(*world_T_model, why, sizeof why))
        return refuse(o, WK_SPAWN_INVALID_POSE, "initial pose relative to '%s', in the world frame: %s", frame_name,
                      why);
    return WK_RESULT_OK;
}

/* Records each entity's pose as spawned, which a reset of the state puts
 * back. */
static int keep_spawn_poses(wk_ecm *ecm, const wk_scene_types *t, wk_entity entity)
{
    wk_entity_list all = {0};
    int rc = wk_ecm_descendants(ecm, entity, &all);
    for (size_t i = 0; rc == WK_OK && i < all.count; i++) {
        const wk_pose *pose = wk_ecm_get(ecm, all.items[i], t->parent_pose);
        if (pose) {
            wk_pose copy = *pose;
            rc = wk_ecm_set(ecm, all.items[i], t->spawn_pose, &copy) < 0 ? WK_NOMEM : WK_OK;
        }
    }
    wk_entity_list_free(&all);
    return rc;
}

/* The one model a spawned resource must hold: node index, or WK_NO_NODE. */
static uint32_t single_model(const wk_world_desc *d, size_t *count)
{
    uint32_t found = WK_NO_NODE;
    *count = 0;
    for (uint32_t c = wk_desc_node(d, 0)->first_child; c != WK_NO_NODE; c = wk_desc_node(d, c)->next_sibling)
        if (wk_desc_node(d, c)->kind == WK_NODE_MODEL && (*count)++ == 0)
            found = c;
    return *count == 1 ? found : WK_NO_NODE;
}

static uint32_t spawn_one(wk_api *api, wk__call *call, const SimulationInterfaces__SpawnEntityRequest *e, outcome *o)
{
    const SimulationInterfaces__Resource *res = e->entity_resource;
    const char *ns = e->entity_namespace ? e->entity_namespace : "";
    if (!valid_namespace(ns))
        return refuse(o, WK_SPAWN_NAMESPACE_INVALID, "namespace '%s' does not follow ROS 2 namespace rules", ns);
    wk_world_desc *d = NULL;
    wk_status st = {0};
    int rc = wk_desc_read(&(wk_read_desc){.uri = res ? res->uri : NULL,
                                          .resource_string = res ? res->resource_string : NULL,
                                          .ignore_missing_or_unsupported_assets =
                                              e->ignore_missing_or_unsupported_assets,
                                          .roots = api->roots,
                                          .over = wk__call_over_ctx,
                                          .over_ctx = call},
                          &d, &st);
    o->gave_up = rc == WK_DEADLINE;
    if (rc)
        return refuse(o, wk__map_code(spawn_codes, rc), "%s", st.message);
    size_t models;
    uint32_t model = single_model(d, &models);
    wk_pose world_T_model;
    const char *source = res && res->uri && res->uri[0] ? res->uri : "<string>";
    uint32_t code = model == WK_NO_NODE ? refuse(o, WK_SPAWN_RESOURCE_PARSE_ERROR,
                                                 "%s holds %zu models; spawning takes one", source, models)
                                        : choose_name(api, e, wk_desc_node(d, model)->name, o);
    if (code == WK_RESULT_OK)
        code = placement(api, e, wk_desc_node(d, model), &world_T_model, o);
    wk_entity entity = WK_NULL_ENTITY;
    if (code == WK_RESULT_OK &&
        wk_desc_instantiate(wk_api_scene(api), d, model, wk_api_world(api), &world_T_model, o->name, &entity, &st)) {
        o->gave_up = st.code == WK_DEADLINE;
        code = refuse(o, WK_RESULT_OPERATION_FAILED, "%s", st.message);
    }
    wk_desc_free(d);
    if (code != WK_RESULT_OK)
        return code;
    const wk_scene_types *t = wk_scene_types_of(wk_api_scene(api));
    wk_ecm *ecm = wk_scene_ecm(wk_api_scene(api));
    if (wk_ecm_set(ecm, entity, t->spawned, NULL) < 0 || (ns[0] && wk_ecm_set(ecm, entity, t->ns, &ns) < 0) ||
        keep_spawn_poses(ecm, t, entity)) {
        wk_ecm_destroy(ecm, entity, true);
        return refuse(o, WK_RESULT_OPERATION_FAILED, "%s", wk_ecm_errmsg(ecm));
    }
    /* An object of the object world from now on, for ObjectWorldService;
     * kept only while the world holds no more entities than it may. */
    if (wk_scene_objects_add(wk_api_scene(api), entity, &st) || wk_store_room(api->open, &st)) {
        wk_scene_delete_object(wk_api_scene(api), entity, true, NULL);
        return refuse(o, WK_RESULT_OPERATION_FAILED, "%s", st.message);
    }
    return o->code = WK_RESULT_OK;
}

int wk__spawn_entities(wk_api *api, wk__call *call, const ProtobufCMessage *request, ProtobufCMessage **response)
{
    const SimulationInterfaces__SpawnEntitiesRequest *req = (const void *)request;
    SimulationInterfaces__SpawnEntitiesResponse *resp = (void *)*response;
    size_t n = req->n_spawn_requests;
    if (n > WK_SPAWN_ENTITIES_MAX) {
        resp->result = wk__call_result(call, WK_RESULT_OPERATION_FAILED,
                                       "%zu spawn requests: at most %d per call, none was tried", n,
                                       WK_SPAWN_ENTITIES_MAX);
        return WK_OK;
    }
    SimulationInterfaces__SpawnResult **results = wk__call_alloc(call, (n ? n : 1) * sizeof *results);
    if (!results)
        return WK_NOMEM;
    resp->results = results;
    size_t failed = 0, first_failed = 0;
    for (size_t i = 0; i < n; i++) {
        outcome o = {.code = WK_RESULT_OK};
        uint32_t code = spawn_one(api, call, req->spawn_requests[i], &o);
        if (o.gave_up) /* the batch is rolled back: no entry is kept */
            return wk_fail(call->status, WK_DEADLINE, "SpawnEntities: entry %zu: %s", i, o.message);
        SimulationInterfaces__SpawnResult *r = wk__call_alloc(call, sizeof *r);
        if (!r)
            return WK_NOMEM;
        simulation_interfaces__spawn_result__init(r);
        r->result = wk__call_result(call, code, "%s", o.message);
        r->entity_name = wk__call_strdup(call, code == WK_RESULT_OK ? o.name : "");
        results[resp->n_results++] = r;
        if (code != WK_RESULT_OK && !failed++)
            first_failed = i;
    }
    for (size_t i = 0; failed && i < n; i++)
        if (results[i]->result && results[i]->result->result == WK_RESULT_OK) {
            results[i]->result = wk__call_result(call, WK_RESULT_OPERATION_FAILED,
                                                 "not spawned: entry %zu failed, and a call spawns all its entries "
                                                 "or none",
                                                 first_failed);
            results[i]->entity_name = wk__call_strdup(call, "");
        }
    resp->result = failed ? wk__call_result(call, WK_SPAWN_ENTITIES_FAILED, "%zu of %zu spawn requests failed", failed, n)
                          : wk__call_result(call, WK_RESULT_OK, "%s", "");
    return WK_OK;
}
