/* mesh_bounds.c — the box a mesh file's vertices fill, read with assimp
 * (ASCII STL, COLLADA, glTF and the other formats it knows), with every
 * node's transform applied to its meshes; and a simulation's boxes of the
 * files its world names, so that each file is read once per simulation
 * however often bounds are asked. A file that cannot be read is
 * remembered as such: it is not tried again until the world is loaded
 * anew (a new simulation). */
#include <assimp/cimport.h>
#include <assimp/config.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/assimp_lock.h"
#include "sim/mesh_bounds.h"
#include "sim/sim_internal.h"
#include "base/grow.h"

int wk__mesh_bounds(const char *file, wk_vec3 *lo, wk_vec3 *hi, char *why, size_t cap)
{
    struct aiPropertyStore *props = aiCreatePropertyStore();
    if (!props)
        return WK_NOMEM;
    /* assimp turns a Z-up COLLADA file to Y-up; SDFormat takes it as it is. */
    aiSetImportPropertyInteger(props, AI_CONFIG_IMPORT_COLLADA_IGNORE_UP_DIRECTION, 1);
    pthread_mutex_lock(&wk__assimp_lock);
    const struct aiScene *scene = aiImportFileExWithProperties(file, aiProcess_PreTransformVertices, NULL, props);
    if (!scene)
        snprintf(why, cap, "assimp cannot read it: %s", aiGetErrorString());
    pthread_mutex_unlock(&wk__assimp_lock);
    aiReleasePropertyStore(props);
    if (!scene)
        return WK_INVALID;
    *lo = (wk_vec3){INFINITY, INFINITY, INFINITY};
    *hi = (wk_vec3){-INFINITY, -INFINITY, -INFINITY};
    size_t vertices = 0;
    for (unsigned m = 0; m < scene->mNumMeshes; m++)
        for (unsigned v = 0; v < scene->mMeshes[m]->mNumVertices; v++, vertices++) {
            struct aiVector3D p = scene->mMeshes[m]->mVertices[v];
            *lo = wk_vec3_min(*lo, (wk_vec3){p.x, p.y, p.z});
            *hi = wk_vec3_max(*hi, (wk_vec3){p.x, p.y, p.z});
        }
    aiReleaseImport(scene);
    if (!vertices)
        return snprintf(why, cap, "it holds no vertex"), WK_INVALID;
    return WK_OK;
}

static uint64_t name_hash(const char *name)
{
    return wk__hash(name, strlen(name), 0);
}

const wk__mesh_box *wk__mesh_boxes_find(const wk__mesh_boxes *c, const char *name)
{
    size_t cursor = 0;
    for (uint64_t at; (at = wk__index_next(&c->by_name, name_hash(name), &cursor));)
        if (!strcmp(c->boxes[at - 1].name, name))
            return &c->boxes[at - 1];
    return NULL;
}

int wk__mesh_boxes_keep(wk__mesh_boxes *c, const char *name, wk_vec3 lo, wk_vec3 hi, const char *why)
{
    wk__mesh_box box = {.name = strdup(name), .lo = lo, .hi = hi, .why = why ? strdup(why) : NULL};
    if (!box.name || (why && !box.why) || WK__GROW(c->boxes, c->cap, c->count + 1) ||
        wk__index_add(&c->by_name, name_hash(name), c->count + 1)) {
        free(box.name);
        free(box.why);
        return WK_NOMEM;
    }
    c->boxes[c->count++] = box;
    return WK_OK;
}

int wk_sim_mesh_box(wk_sim *sim, const char *file, wk_vec3 *lo, wk_vec3 *hi, wk_status *st)
{
    const wk__mesh_box *box = wk__mesh_boxes_find(&sim->mesh_boxes, file);
    if (!box) {
        char why[WK_STATUS_MSG_MAX] = "";
        wk_vec3 a = {0}, b = {0};
        int rc = wk__mesh_bounds(file, &a, &b, why, sizeof why);
        if (rc == WK_NOMEM || wk__mesh_boxes_keep(&sim->mesh_boxes, file, a, b, rc ? why : NULL))
            return wk_fail(st, WK_NOMEM, "out of memory reading mesh '%s'", file);
        box = &sim->mesh_boxes.boxes[sim->mesh_boxes.count - 1];
    }
    if (box->why)
        return wk_fail(st, WK_INVALID, "mesh '%s': %s", file, box->why);
    *lo = box->lo, *hi = box->hi;
    return WK_OK;
}

void wk__mesh_boxes_free(wk__mesh_boxes *c)
{
    for (size_t i = 0; i < c->count; i++) {
        free(c->boxes[i].name);
        free(c->boxes[i].why);
    }
    free(c->boxes);
    wk__index_free(&c->by_name);
    *c = (wk__mesh_boxes){0};
}
