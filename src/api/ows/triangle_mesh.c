/* triangle_mesh.c — an OBJ or STL file given to GeometryService.
 * CreateGeometry, read by Debian's assimp into the TriangleMesh Intrinsic's
 * Geometry holds: every vertex position once (vertices that share one are
 * joined, so a cube gives 8, not 36) and every face as triangles; and the
 * same scene written by assimp as a binary glTF (glb2) for GetRenderable.
 *
 * assimp reads the file from the request's bytes through a file system of
 * its own that holds that one file and nothing else, so that an OBJ naming
 * a material library (mtllib) cannot make the server open a local file.
 * assimp keeps its last error in one string for the process: a failed read
 * and the reading of its reason happen under wk__assimp_lock, the lock the
 * physics' mesh bounds take too. */
#include <assimp/cfileio.h>
#include <assimp/cexport.h>
#include <assimp/cimport.h>
#include <assimp/config.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "api/ows/triangle_mesh.h"
#include "base/assimp_lock.h"

/* The one file assimp is given: the bytes and where it reads next. */
typedef struct {
    const ProtobufCBinaryData *bytes;
    size_t at;
} in_memory;

static size_t mem_read(struct aiFile *f, char *out, size_t size, size_t count)
{
    in_memory *m = (in_memory *)f->UserData;
    size_t left = m->bytes->len - m->at;
    size_t items = size ? (left / size < count ? left / size : count) : 0;
    memcpy(out, m->bytes->data + m->at, items * size);
    m->at += items * size;
    return items;
}

static size_t mem_write(struct aiFile *f, const char *in, size_t size, size_t count)
{
    (void)f, (void)in, (void)size, (void)count;
    return 0;
}

static size_t mem_tell(struct aiFile *f)
{
    return ((in_memory *)f->UserData)->at;
}

static size_t mem_size(struct aiFile *f)
{
    return ((in_memory *)f->UserData)->bytes->len;
}

static enum aiReturn mem_seek(struct aiFile *f, size_t offset, enum aiOrigin origin)
{
    in_memory *m = (in_memory *)f->UserData;
    size_t base = origin == aiOrigin_CUR ? m->at : origin == aiOrigin_END ? m->bytes->len : 0;
    if (offset > m->bytes->len - base && origin != aiOrigin_END)
        return aiReturn_FAILURE;
    m->at = origin == aiOrigin_END ? (offset > base ? 0 : base - offset) : base + offset;
    return aiReturn_SUCCESS;
}

static void mem_flush(struct aiFile *f)
{
    (void)f;
}

/* The file system: NAME opens the bytes (once at a time), anything else
 * fails. */
#define NAME "geometry."

typedef struct {
    struct aiFile file;
    in_memory memory;
    bool open;
    char name[sizeof NAME + 3];
} one_file;

static struct aiFile *fs_open(struct aiFileIO *io, const char *name, const char *mode)
{
    one_file *f = (one_file *)io->UserData;
    if (f->open || strcmp(name, f->name) || strchr(mode, 'w'))
        return NULL;
    f->open = true;
    f->memory.at = 0;
    return &f->file;
}

static void fs_close(struct aiFileIO *io, struct aiFile *file)
{
    (void)file;
    ((one_file *)io->UserData)->open = false;
}

/* The scene's triangles (faces of three indices: a line or point assimp
 * keeps is no triangle) into mesh, allocated in the call. */
static int copy_triangles(wk__call *call, const struct aiScene *scene, IntrinsicProto__Geometry__TriangleMesh *mesh,
                          const char *what, wk_status *st)
{
    size_t vertices = 0, triangles = 0;
    for (unsigned m = 0; m < scene->mNumMeshes; m++) {
        vertices += scene->mMeshes[m]->mNumVertices;
        for (unsigned f = 0; f < scene->mMeshes[m]->mNumFaces; f++)
            triangles += scene->mMeshes[m]->mFaces[f].mNumIndices == 3;
    }
    if (!triangles)
        return wk_fail(st, WK_INVALID, "%s holds no triangle", what);
    if (vertices > INT32_MAX)
        return wk_fail(st, WK_INVALID, "%s has %zu vertices, past the %d a TriangleMesh indexes", what, vertices,
                       INT32_MAX);
    mesh->vertices = wk__call_alloc(call, 3 * vertices * sizeof *mesh->vertices);
    mesh->faces = wk__call_alloc(call, 3 * triangles * sizeof *mesh->faces);
    if (!mesh->vertices || !mesh->faces)
        return wk_fail(st, WK_NOMEM, "out of memory holding %s's %zu vertices", what, vertices);
    size_t first = 0;
    for (unsigned m = 0; m < scene->mNumMeshes; m++) {
        const struct aiMesh *in = scene->mMeshes[m];
        for (unsigned v = 0; v < in->mNumVertices; v++) {
            struct aiVector3D p = in->mVertices[v];
            if (!isfinite(p.x) || !isfinite(p.y) || !isfinite(p.z))
                return wk_fail(st, WK_INVALID, "%s: vertex %zu is not a finite point", what, first + v + 1);
            double *out = mesh->vertices + mesh->n_vertices;
            out[0] = p.x, out[1] = p.y, out[2] = p.z;
            mesh->n_vertices += 3;
        }
        for (unsigned f = 0; f < in->mNumFaces; f++)
            if (in->mFaces[f].mNumIndices == 3)
                for (unsigned k = 0; k < 3; k++)
                    mesh->faces[mesh->n_faces++] = (int32_t)(first + in->mFaces[f].mIndices[k]);
        first += in->mNumVertices;
    }
    return WK_OK;
}

/* The scene assimp reads from file into *out (release with
 * aiReleaseImport); WK_INVALID with st naming what and assimp's reason. */
static int import(const ProtobufCBinaryData *file, const char *format, const char *what,
                  const struct aiScene **out, wk_status *st)
{
    one_file f = {.memory = {.bytes = file}};
    snprintf(f.name, sizeof f.name, NAME "%s", format);
    f.file = (struct aiFile){.ReadProc = mem_read, .WriteProc = mem_write, .TellProc = mem_tell,
                             .FileSizeProc = mem_size, .SeekProc = mem_seek, .FlushProc = mem_flush,
                             .UserData = (aiUserData)&f.memory};
    struct aiFileIO io = {.OpenProc = fs_open, .CloseProc = fs_close, .UserData = (aiUserData)&f};
    struct aiPropertyStore *props = aiCreatePropertyStore();
    if (!props)
        return wk_fail(st, WK_NOMEM, "out of memory reading %s", what);
    /* Positions alone, so that vertices differing only in a normal or a
     * texture coordinate are joined. */
    aiSetImportPropertyInteger(props, AI_CONFIG_PP_RVC_FLAGS,
                               aiComponent_NORMALS | aiComponent_TANGENTS_AND_BITANGENTS | aiComponent_COLORS |
                                   aiComponent_TEXCOORDS | aiComponent_BONEWEIGHTS | aiComponent_ANIMATIONS |
                                   aiComponent_TEXTURES | aiComponent_LIGHTS | aiComponent_CAMERAS |
                                   aiComponent_MATERIALS);
    pthread_mutex_lock(&wk__assimp_lock);
    const struct aiScene *scene = aiImportFileExWithProperties(
        f.name,
        aiProcess_Triangulate | aiProcess_RemoveComponent | aiProcess_JoinIdenticalVertices |
            aiProcess_PreTransformVertices | aiProcess_ValidateDataStructure,
        &io, props);
    aiReleasePropertyStore(props);
    int rc = scene ? WK_OK
                   : wk_fail(st, WK_INVALID, "%s is not a mesh assimp reads as %s: %s", what, format,
                             aiGetErrorString());
    pthread_mutex_unlock(&wk__assimp_lock);
    *out = scene;
    return rc;
}

int wk__triangle_mesh_read(wk__call *call, const ProtobufCBinaryData *file, const char *format, const char *what,
                           IntrinsicProto__Geometry__TriangleMesh **out, wk_status *st)
{
    const struct aiScene *scene;
    int rc = import(file, format, what, &scene, st);
    if (rc)
        return rc;
    IntrinsicProto__Geometry__TriangleMesh *mesh =
        wk__ows_new(call, &intrinsic_proto__geometry__triangle_mesh__descriptor);
    rc = mesh ? copy_triangles(call, scene, mesh, what, st) : wk_fail(st, WK_NOMEM, "out of memory reading %s", what);
    aiReleaseImport(scene);
    *out = rc ? NULL : mesh;
    return rc;
}

int wk__triangle_mesh_glb(wk__call *call, const ProtobufCBinaryData *file, const char *format, const char *what,
                          ProtobufCBinaryData *glb, wk_status *st)
{
    const struct aiScene *scene;
    int rc = import(file, format, what, &scene, st);
    if (rc)
        return rc;
    const struct aiExportDataBlob *blob = aiExportSceneToBlob(scene, "glb2", 0);
    aiReleaseImport(scene);
    if (!blob || blob->next)
        rc = wk_fail(st, WK_IO, "assimp wrote no single glb for %s", what);
    else if (!(glb->data = wk__call_alloc(call, blob->size)))
        rc = wk_fail(st, WK_NOMEM, "out of memory holding the glb of %s (%zu bytes)", what, blob->size);
    else
        memcpy(glb->data, blob->data, glb->len = blob->size);
    if (blob)
        aiReleaseExportBlob(blob);
    return rc;
}
