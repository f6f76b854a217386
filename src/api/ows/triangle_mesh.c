/* triangle_mesh.c — an OBJ or STL file given to GeometryService.
 * CreateGeometry, read by Debian's assimp, once, into all GeometryService
 * serves of it: the TriangleMesh Intrinsic's Geometry holds (every vertex
 * position once: vertices that share one are joined, so a cube gives 8,
 * not 36; every face as triangles), the same scene written by assimp as a
 * binary glTF (glb2) for GetRenderable, and the box the vertices fill, an
 * object's bounds. mesh_cache.c keeps the result by fingerprint. A
 * triangle mesh given inline (v1) is checked here and written as the OBJ
 * file it amounts to, so that assimp makes its glb the same way.
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
#include <stdatomic.h>
#include <stdlib.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "api/ows/triangle_mesh.h"
#include "base/assimp_lock.h"

/* Files read by assimp since the process began (wk__triangle_mesh_parses). */
static atomic_ulong parses;

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
 * keeps is no triangle) packed as a TriangleMesh into m->triangles, and the
 * box their vertices fill. */
static int pack_triangles(const struct aiScene *scene, const char *what, wk__parsed_mesh *m, wk_status *st)
{
    size_t vertices = 0, triangles = 0;
    for (unsigned i = 0; i < scene->mNumMeshes; i++) {
        vertices += scene->mMeshes[i]->mNumVertices;
        for (unsigned f = 0; f < scene->mMeshes[i]->mNumFaces; f++)
            triangles += scene->mMeshes[i]->mFaces[f].mNumIndices == 3;
    }
    if (!triangles)
        return wk_fail(st, WK_INVALID, "%s holds no triangle", what);
    if (vertices > INT32_MAX)
        return wk_fail(st, WK_INVALID, "%s has %zu vertices, past the %d a TriangleMesh indexes", what, vertices,
                       INT32_MAX);
    IntrinsicProto__Geometry__TriangleMesh mesh = INTRINSIC_PROTO__GEOMETRY__TRIANGLE_MESH__INIT;
    mesh.vertices = malloc(3 * vertices * sizeof *mesh.vertices);
    mesh.faces = malloc(3 * triangles * sizeof *mesh.faces);
    int rc = mesh.vertices && mesh.faces ? WK_OK
                                         : wk_fail(st, WK_NOMEM, "out of memory holding %s's %zu vertices", what, vertices);
    size_t first = 0;
    for (unsigned i = 0; rc == WK_OK && i < scene->mNumMeshes; i++) {
        const struct aiMesh *in = scene->mMeshes[i];
        for (unsigned v = 0; rc == WK_OK && v < in->mNumVertices; v++) {
            struct aiVector3D p = in->mVertices[v];
            if (!isfinite(p.x) || !isfinite(p.y) || !isfinite(p.z)) {
                rc = wk_fail(st, WK_INVALID, "%s: vertex %zu is not a finite point", what, first + v + 1);
                break;
            }
            wk_vec3 q = {p.x, p.y, p.z};
            m->lo = first + v ? wk_vec3_min(m->lo, q) : q;
            m->hi = first + v ? wk_vec3_max(m->hi, q) : q;
            double *out = mesh.vertices + mesh.n_vertices;
            out[0] = q.x, out[1] = q.y, out[2] = q.z;
            mesh.n_vertices += 3;
        }
        for (unsigned f = 0; f < in->mNumFaces; f++)
            if (in->mFaces[f].mNumIndices == 3)
                for (unsigned k = 0; k < 3; k++)
                    mesh.faces[mesh.n_faces++] = (int32_t)(first + in->mFaces[f].mIndices[k]);
        first += in->mNumVertices;
    }
    if (rc == WK_OK) {
        size_t len = protobuf_c_message_get_packed_size(&mesh.base);
        if (wk_buf_reserve(&m->triangles, len))
            rc = wk_fail(st, WK_NOMEM, "out of memory holding %s's triangles (%zu bytes)", what, len);
        else
            m->triangles.len = protobuf_c_message_pack(&mesh.base, m->triangles.data);
    }
    free(mesh.vertices);
    free(mesh.faces);
    return rc;
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

int wk__triangle_mesh_parse(const ProtobufCBinaryData *file, const char *format, const char *what,
                            wk__parsed_mesh *out, wk_status *st)
{
    *out = (wk__parsed_mesh){0};
    const struct aiScene *scene;
    int rc = import(file, format, what, &scene, st);
    if (rc)
        return rc;
    atomic_fetch_add(&parses, 1);
    rc = pack_triangles(scene, what, out, st);
    const struct aiExportDataBlob *blob = rc ? NULL : aiExportSceneToBlob(scene, "glb2", 0);
    aiReleaseImport(scene);
    if (rc == WK_OK && (!blob || blob->next))
        rc = wk_fail(st, WK_IO, "assimp wrote no single glb for %s", what);
    else if (rc == WK_OK && wk_buf_append(&out->glb, blob->data, blob->size))
        rc = wk_fail(st, WK_NOMEM, "out of memory holding the glb of %s (%zu bytes)", what, (size_t)blob->size);
    if (blob)
        aiReleaseExportBlob(blob);
    if (rc)
        wk__parsed_mesh_free(out);
    return rc;
}

void wk__parsed_mesh_free(wk__parsed_mesh *m)
{
    wk_buf_free(&m->triangles);
    wk_buf_free(&m->glb);
}

unsigned long wk__triangle_mesh_parses(void)
{
    return atomic_load(&parses);
}

int wk__triangle_mesh_check(const IntrinsicProto__Geometry__V1__TriangleMesh *m, const char *what, wk_status *st)
{
    if (m->n_vertices % 3 || m->n_faces % 3)
        return wk_fail(st, WK_INVALID, "%s has %zu vertex coordinates and %zu face indices: each must be a multiple of 3",
                       what, m->n_vertices, m->n_faces);
    if (!m->n_faces)
        return wk_fail(st, WK_INVALID, "%s holds no triangle", what);
    for (size_t i = 0; i < m->n_vertices; i++)
        if (!isfinite(m->vertices[i]))
            return wk_fail(st, WK_INVALID, "%s: vertex %zu is not a finite point", what, i / 3 + 1);
    for (size_t i = 0; i < m->n_faces; i++)
        if (m->faces[i] < 0 || (size_t)m->faces[i] >= m->n_vertices / 3)
            return wk_fail(st, WK_INVALID, "%s: face %zu names vertex %d, and there are %zu (numbered from 0)", what,
                           i / 3 + 1, m->faces[i], m->n_vertices / 3);
    return WK_OK;
}

int wk__triangle_mesh_obj(const IntrinsicProto__Geometry__V1__TriangleMesh *m, wk_buf *out)
{
    char line[96];
    int rc = WK_OK;
    /* %.17g: every double back as it was (assimp then keeps floats). */
    for (size_t i = 0; rc == WK_OK && i + 2 < m->n_vertices; i += 3)
        rc = wk_buf_append(out, line,
                           (size_t)snprintf(line, sizeof line, "v %.17g %.17g %.17g\n", m->vertices[i],
                                            m->vertices[i + 1], m->vertices[i + 2]));
    /* OBJ counts vertices from 1. */
    for (size_t i = 0; rc == WK_OK && i + 2 < m->n_faces; i += 3)
        rc = wk_buf_append(out, line,
                           (size_t)snprintf(line, sizeof line, "f %ld %ld %ld\n", (long)m->faces[i] + 1,
                                            (long)m->faces[i + 1] + 1, (long)m->faces[i + 2] + 1));
    return rc;
}

void wk__triangle_mesh_box(const IntrinsicProto__Geometry__V1__TriangleMesh *m, wk_vec3 *lo, wk_vec3 *hi)
{
    for (size_t i = 0; i + 2 < m->n_vertices; i += 3) {
        wk_vec3 q = {m->vertices[i], m->vertices[i + 1], m->vertices[i + 2]};
        *lo = i ? wk_vec3_min(*lo, q) : q;
        *hi = i ? wk_vec3_max(*hi, q) : q;
    }
}
