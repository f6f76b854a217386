/* mesh_bounds.c — the box a mesh file's vertices fill, read with assimp
 * (ASCII STL, COLLADA, glTF and the other formats it knows), with every
 * node's transform applied to its meshes. */
#include <assimp/cimport.h>
#include <assimp/config.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <math.h>
#include <stdio.h>

#include "base/assimp_lock.h"
#include "sim/mesh_bounds.h"

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
            *lo = (wk_vec3){fmin(lo->x, p.x), fmin(lo->y, p.y), fmin(lo->z, p.z)};
            *hi = (wk_vec3){fmax(hi->x, p.x), fmax(hi->y, p.y), fmax(hi->z, p.z)};
        }
    aiReleaseImport(scene);
    if (!vertices)
        return snprintf(why, cap, "it holds no vertex"), WK_INVALID;
    return WK_OK;
}
