/* spawnables.c — GetSpawnables: the models SpawnEntities can spawn, found
 * as Gazebo keeps them: a folder holding a model.config, in the folders of
 * the resource path (a few levels deep) and in the request's sources
 * (folders, as paths or file:// URIs). Each spawnable's resource is the
 * SDFormat file its model.config names (the highest version worldkit reads,
 * 1.0 to 1.11), its description the config's <description>. A source that
 * cannot be searched (remote, missing, not a folder) is named in the
 * message without failing the call, as the standard asks. Spawn bounds are
 * left empty: worldkit does not read a model to offer them. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/sim/sources.h"

typedef struct found {
    wk__call *call;
    wk__walks walks;
    SimulationInterfaces__Spawnable **items;
    size_t count, cap;
    char (*seen)[PATH_MAX];
    char message[WK_STATUS_MSG_MAX];
} found;

static void note(found *f, const char *fmt, const char *what)
{
    size_t used = strlen(f->message);
    snprintf(f->message + used, sizeof f->message - used, "%s", used ? "; " : "");
    used = strlen(f->message);
    snprintf(f->message + used, sizeof f->message - used, fmt, what);
}

/* The SDFormat file model.config in dir names, written to out; the
 * config's description (xmlFree it) in *description. */
static bool read_config(const char *dir, char *out, size_t cap, char **description)
{
    char config[PATH_MAX];
    *description = NULL;
    if (snprintf(config, sizeof config, "%s/model.config", dir) >= (int)sizeof config)
        return false;
    xmlDocPtr doc = wk__read_xml(config);
    xmlNodePtr root = doc ? xmlDocGetRootElement(doc) : NULL;
    int best = -1;
    for (xmlNodePtr c = root ? root->children : NULL; c; c = c->next) {
        if (c->type != XML_ELEMENT_NODE || strcmp((const char *)c->name, "sdf"))
            continue;
        xmlChar *version = xmlGetProp(c, (const xmlChar *)"version");
        xmlChar *file = xmlNodeGetContent(c);
        int major, minor;
        if (version && file && file[0] && sscanf((const char *)version, "%d.%d", &major, &minor) == 2 &&
            major == 1 && minor <= 11 && minor > best &&
            snprintf(out, cap, "%s/%s", dir, (const char *)file) < (int)cap)
            best = minor;
        xmlFree(version);
        xmlFree(file);
    }
    if (best >= 0)
        *description = wk__xml_child_text(root, "description");
    xmlFreeDoc(doc);
    return best >= 0;
}

static int add(found *f, const char *file, const char *description)
{
    char real[PATH_MAX];
    if (!realpath(file, real))
        snprintf(real, sizeof real, "%s", file);
    for (size_t i = 0; i < f->count; i++)
        if (!strcmp(f->seen[i], real))
            return 0;
    if (f->count == f->cap) {
        size_t cap = f->cap ? f->cap * 2 : 16;
        SimulationInterfaces__Spawnable **items = wk__call_alloc(f->call, cap * sizeof *items);
        char(*seen)[PATH_MAX] = realloc(f->seen, cap * sizeof *seen);
        if (seen)
            f->seen = seen;
        if (!items || !seen)
            return -1;
        if (f->count)
            memcpy(items, f->items, f->count * sizeof *items);
        f->items = items;
        f->cap = cap;
    }
    SimulationInterfaces__Spawnable *s = wk__call_alloc(f->call, sizeof *s);
    SimulationInterfaces__Resource *r = wk__call_alloc(f->call, sizeof *r);
    if (!s || !r)
        return -1;
    simulation_interfaces__spawnable__init(s);
    simulation_interfaces__resource__init(r);
    r->uri = wk__call_strdup(f->call, file);
    s->entity_resource = r;
    s->description = wk__call_strdup(f->call, description ? description : "");
    snprintf(f->seen[f->count], PATH_MAX, "%s", real);
    f->items[f->count++] = s;
    return 0;
}

/* Adds dir when it is a model folder. */
static int visit(const char *path, bool is_dir, void *ctx)
{
    char file[PATH_MAX];
    char *description;
    if (!is_dir || !read_config(path, file, sizeof file, &description))
        return 0;
    int rc = add(ctx, file, description);
    xmlFree(description);
    return rc;
}

/* A folder to search: itself a model folder, or one holding some. */
static int search(const char *dir, void *ctx)
{
    if (!wk__is_dir(dir)) {
        note(ctx, "'%s' is not a folder", dir);
        return 0;
    }
    int rc = visit(dir, true, ctx);
    return rc ? rc : wk__walk(&((found *)ctx)->walks, dir, visit, ctx);
}

int wk__get_spawnables(wk_api *api, wk__call *call, const ProtobufCMessage *request, ProtobufCMessage **response)
{
    const SimulationInterfaces__GetSpawnablesRequest *req = (const void *)request;
    SimulationInterfaces__GetSpawnablesResponse *resp = (void *)*response;
    found f = {.call = call, .walks = {.call = call, .roots = api->roots, .left = WK__WALK_MAX}};
    if (req->n_sources > WK_SOURCES_MAX) {
        resp->result = wk__call_result(call, WK_RESULT_OPERATION_FAILED, "%zu sources: at most %d per call",
                                       req->n_sources, WK_SOURCES_MAX);
        return WK_OK;
    }
    int rc = wk__resource_dirs(search, &f);
    for (size_t i = 0; rc == 0 && i < req->n_sources && !wk__walks_over(&f.walks); i++) {
        const char *uri = req->sources[i] ? req->sources[i] : "";
        char path[PATH_MAX];
        wk__source why = wk__source_path(api, uri, path, sizeof path);
        if (why == WK__SOURCE_PATH)
            rc = search(path, &f);
        else
            note(&f, wk__source_refusal(why), uri);
    }
    free(f.seen);
    if (f.walks.over)
        return WK_DEADLINE;
    if (rc)
        return WK_NOMEM;
    resp->spawnables = f.items;
    resp->n_spawnables = f.count;
    resp->result = wk__call_result(call, WK_RESULT_OK, "%s", f.message);
    return WK_OK;
}
