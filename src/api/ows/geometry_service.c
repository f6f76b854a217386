/* geometry_service.c — intrinsic_proto.geometry.GeometryService, which
 * Intrinsic's ObjectWorldClient calls to register geometry before it makes
 * an object that refers to it, and the reading of such a reference into an
 * entity's shape.
 *
 * CreateGeometry keeps the request's GeometryData, packed, in the store
 * (wk_store_put_geometry: the store's, not a world's, since the service's
 * calls name no world) under its fingerprint: the SHA-256 of those bytes in
 * hex, so that registering the same data twice gives the same references.
 * It answers GeometryStorageRefs with that fingerprint and a geometry_ref
 * of REF_PREFIX + fingerprint (renderable_ref the same when a renderable
 * can be served), once the store has committed it. GetGeometry and
 * GetRenderable find the registration by fingerprint, else by either ref.
 *
 * What is served is what the data holds, never made up: GetGeometry a
 * Geometry (the one given; a primitive_set as its exact geometry; an OBJ or
 * STL file as its exact geometry's triangle mesh; glTF bytes as its
 * renderable; and in v1's inline_geometry what was given inline, or a
 * v1 primitive set), GetRenderable the glTF given (gltf_bytes, or a Geometry's
 * renderable), else for an OBJ or STL file the glb assimp writes of it, at
 * lod_level 0, the only one kept. An OBJ or STL file is read by assimp
 * (triangle_mesh.c) once, when CreateGeometry registers it, so that a file
 * it cannot read is refused then; mesh_cache.c keeps what the read made
 * for the calls that serve it, the live view's /mesh its glb
 * (wk_api_mesh_glb, from memory only), and an entity's bounds its box. A
 * v1 inline triangle mesh (how Intrinsic's C++ client registers meshes) is
 * checked, then read the same way as the OBJ file it amounts to;
 * GetGeometry serves it exactly as given.
 * worldkit makes no glTF from primitive shapes: that call answers
 * FAILED_PRECONDITION saying so (not UNIMPLEMENTED, which the client
 * retries for a minute); an object may still use them. */
#include <openssl/evp.h>
#include <stdio.h>
#include <string.h>

#include "api/ows/edit.h"
#include "api/ows/mesh_cache.h"
#include "intrinsic/geometry/proto/geometry_service.pb-c.h"

#define REF_PREFIX "worldkit-geometry:"

typedef IntrinsicProto__Geometry__GeometryData GeometryData;
typedef IntrinsicProto__Geometry__GeometryStorageRefs StorageRefs;
typedef IntrinsicProto__Geometry__V1__GeometryStorageRefs StorageRefsV1;
typedef IntrinsicProto__Geometry__V1__TriangleMesh TriangleMeshV1;

#define INLINE_MESH "data.inline_geometry.exact_geometry.triangle_mesh"

static const char *data_kind(const GeometryData *d)
{
    switch (d->data_case) {
    case INTRINSIC_PROTO__GEOMETRY__GEOMETRY_DATA__DATA_GEOMETRY_V0:
        return "geometry_v0";
    case INTRINSIC_PROTO__GEOMETRY__GEOMETRY_DATA__DATA_PRIMITIVE_SET_V0:
        return "primitive_set_v0";
    case INTRINSIC_PROTO__GEOMETRY__GEOMETRY_DATA__DATA_OBJ_DATA:
        return "obj_data";
    case INTRINSIC_PROTO__GEOMETRY__GEOMETRY_DATA__DATA_GLTF_BYTES:
        return "gltf_bytes";
    case INTRINSIC_PROTO__GEOMETRY__GEOMETRY_DATA__DATA_STL_BYTES:
        return "stl_bytes";
    case INTRINSIC_PROTO__GEOMETRY__GEOMETRY_DATA__DATA_PRIMITIVE_SET:
        return "primitive_set";
    case INTRINSIC_PROTO__GEOMETRY__GEOMETRY_DATA__DATA_INLINE_GEOMETRY:
        return "inline_geometry";
    default:
        return NULL;
    }
}

/* The file of data that is an OBJ or STL file, its format in *format
 * ("obj", "stl") and its field in what; NULL for other data. */
static const ProtobufCBinaryData *mesh_file(const GeometryData *d, const char **format, char *what, size_t cap)
{
    bool obj = d->data_case == INTRINSIC_PROTO__GEOMETRY__GEOMETRY_DATA__DATA_OBJ_DATA;
    if (!obj && d->data_case != INTRINSIC_PROTO__GEOMETRY__GEOMETRY_DATA__DATA_STL_BYTES)
        return NULL;
    *format = obj ? "obj" : "stl";
    snprintf(what, cap, "data.%s", data_kind(d));
    return obj ? &d->obj_data : &d->stl_bytes;
}

/* The exact geometry of data given inline (v1), or NULL. */
static const IntrinsicProto__Geometry__V1__ExactGeometry *inline_exact(const GeometryData *d)
{
    return d->data_case == INTRINSIC_PROTO__GEOMETRY__GEOMETRY_DATA__DATA_INLINE_GEOMETRY && d->inline_geometry
               ? d->inline_geometry->exact_geometry
               : NULL;
}

/* The triangle mesh data gives inline, or NULL. */
static const TriangleMeshV1 *inline_mesh(const GeometryData *d)
{
    const IntrinsicProto__Geometry__V1__ExactGeometry *e = inline_exact(d);
    return e && e->data_case == INTRINSIC_PROTO__GEOMETRY__V1__EXACT_GEOMETRY__DATA_TRIANGLE_MESH ? e->triangle_mesh
                                                                                                : NULL;
}

/* The mesh of registration id whose data is d, the parts asked for
 * (mesh_cache.h), copied into call: from the cache, else read by assimp
 * from the OBJ or STL file, or from an inline triangle mesh written as an
 * OBJ file. *is_mesh false, and nothing copied, for other data. A failure
 * names method and the field. */
static int mesh_of(wk__call *call, const char *method, const char *id, const GeometryData *d, unsigned parts,
                   bool *is_mesh, wk__mesh_copy *mesh, wk_status *st)
{
    const char *format;
    char what[64];
    const ProtobufCBinaryData *file = mesh_file(d, &format, what, sizeof what);
    const TriangleMeshV1 *given = inline_mesh(d);
    *is_mesh = file || given;
    if (given)
        snprintf(what, sizeof what, INLINE_MESH);
    int rc = *is_mesh ? wk__mesh_find(call, id, what, parts, mesh, st) : 1;
    wk_buf obj = {0};
    if (rc == 0 && given && wk__triangle_mesh_obj(given, &obj))
        rc = wk_fail(st, WK_NOMEM, "out of memory writing %s as OBJ", what);
    if (rc == 0) {
        ProtobufCBinaryData text = {obj.len, obj.data};
        rc = wk__mesh_read(call, id, given ? &text : file, given ? "obj" : format, what, parts, mesh, st);
    }
    wk_buf_free(&obj);
    return rc < 0 ? wk__ows_context(st, rc, "GeometryService.%s", method) : WK_OK;
}

/* The glTF the data holds, or NULL. */
static IntrinsicProto__Geometry__Renderable *given_renderable(wk__call *call, const GeometryData *d)
{
    if (d->data_case == INTRINSIC_PROTO__GEOMETRY__GEOMETRY_DATA__DATA_GEOMETRY_V0 && d->geometry_v0)
        return d->geometry_v0->renderable_type_case ==
                       INTRINSIC_PROTO__GEOMETRY__GEOMETRY__RENDERABLE_TYPE_GENERATED_RENDERABLE
                   ? d->geometry_v0->generated_renderable
                   : d->geometry_v0->renderable;
    const IntrinsicProto__Geometry__V1__InlineGeometry *in =
        d->data_case == INTRINSIC_PROTO__GEOMETRY__GEOMETRY_DATA__DATA_INLINE_GEOMETRY ? d->inline_geometry : NULL;
    const IntrinsicProto__Geometry__V1__Renderable *v1 =
        !in ? NULL
        : in->renderable_type_case == INTRINSIC_PROTO__GEOMETRY__V1__INLINE_GEOMETRY__RENDERABLE_TYPE_GENERATED_RENDERABLE
            ? in->generated_renderable
            : in->renderable;
    if (d->data_case != INTRINSIC_PROTO__GEOMETRY__GEOMETRY_DATA__DATA_GLTF_BYTES && !(v1 && v1->has_glb_bytes))
        return NULL;
    IntrinsicProto__Geometry__Renderable *r = wk__ows_new(call, &intrinsic_proto__geometry__renderable__descriptor);
    if (r) {
        r->has_gltf_string = true;
        r->gltf_string = v1 ? v1->glb_bytes : d->gltf_bytes;
    }
    return r;
}

/* The references answered for the registration fingerprint, in both the
 * older message and v1, whose exact_geometry_ref is the geometry_ref;
 * false when out of memory. */
static bool refs_of(wk__call *call, const char *fingerprint, bool renderable, StorageRefs **v0, StorageRefsV1 **v1)
{
    *v0 = wk__ows_new(call, &intrinsic_proto__geometry__geometry_storage_refs__descriptor);
    *v1 = wk__ows_new(call, &intrinsic_proto__geometry__v1__geometry_storage_refs__descriptor);
    char *ref = wk__call_alloc(call, sizeof REF_PREFIX + strlen(fingerprint));
    if (!*v0 || !*v1 || !ref)
        return false;
    sprintf(ref, REF_PREFIX "%s", fingerprint);
    (*v0)->fingerprint = wk__call_strdup(call, fingerprint);
    (*v0)->geometry_ref = (*v1)->exact_geometry_ref = ref;
    (*v0)->renderable_ref = (*v1)->renderable_ref = renderable ? ref : NULL;
    /* The only renderable kept is the one the user gave. */
    (*v1)->has_keep_renderable = renderable;
    (*v1)->keep_renderable = renderable;
    return (*v0)->fingerprint != NULL;
}

/* The registration references name: v0's fingerprint, else the part after
 * REF_PREFIX of v0's geometry_ref or renderable_ref or v1's
 * exact_geometry_ref or renderable_ref; NULL when none does. */
static const char *id_of(const StorageRefs *v0, const StorageRefsV1 *v1)
{
    if (v0 && v0->fingerprint && *v0->fingerprint)
        return v0->fingerprint;
    const char *refs_held[] = {v0 ? v0->geometry_ref : NULL, v0 ? v0->renderable_ref : NULL,
                               v1 ? v1->exact_geometry_ref : NULL, v1 ? v1->renderable_ref : NULL};
    for (size_t i = 0; i < sizeof refs_held / sizeof refs_held[0]; i++)
        if (refs_held[i] && !strncmp(refs_held[i], REF_PREFIX, strlen(REF_PREFIX)))
            return refs_held[i] + strlen(REF_PREFIX);
    return NULL;
}

/* protobuf-c allocating in the call, which frees everything at its end. */
static void *call_alloc(void *call, size_t size)
{
    return wk__call_alloc(call, size);
}

static void call_free(void *call, void *p)
{
    (void)call, (void)p;
}

/* The GeometryData registered as id, owned by the call. */
static int load(wk_store *store, wk__call *call, const char *id, GeometryData **out, wk_status *st)
{
    wk_buf bytes = {0};
    int rc = wk_store_get_geometry(store, id, &bytes, st);
    if (rc)
        return rc;
    ProtobufCAllocator in_call = {call_alloc, call_free, call};
    *out = intrinsic_proto__geometry__geometry_data__unpack(&in_call, bytes.len, bytes.data);
    wk_buf_free(&bytes);
    if (!*out)
        return call->failed ? wk_fail(st, WK_NOMEM, "out of memory reading geometry '%s'", id)
                            : wk_fail(st, WK_IO, "the stored geometry '%s' does not parse", id);
    return WK_OK;
}

/* The registration a request's refs name (method and field name it in
 * failures). */
static int load_named(wk_api *api, wk__call *call, const char *method, const StorageRefs *v0, const StorageRefsV1 *v1,
                      const char **id, GeometryData **out, wk_status *st)
{
    *id = id_of(v0, v1);
    if (!*id)
        return wk_fail(st, WK_INVALID,
                       "GeometryService.%s: geometry_storage_refs and geometry_storage_refs_v0 name no geometry "
                       "registered here: give the fingerprint, or a geometry_ref or exact_geometry_ref (" REF_PREFIX
                       "...), that CreateGeometry answered",
                       method);
    int rc = load(api->store, call, *id, out, st);
    return rc ? wk__ows_context(st, rc, "GeometryService.%s", method) : WK_OK;
}

WK__HANDLER(wk__geometry_create)
{
    const IntrinsicProto__Geometry__CreateGeometryRequest *req = (const void *)request;
    const GeometryData *data = req->data;
    wk_status *st = call->status;
    if (!data || !data_kind(data))
        return wk_fail(st, WK_INVALID, "GeometryService.CreateGeometry: data holds no geometry (give one of "
                                       "geometry_v0, primitive_set_v0, obj_data, gltf_bytes, stl_bytes, "
                                       "primitive_set, inline_geometry)");
    const ProtobufCBinaryData *file = data->data_case == INTRINSIC_PROTO__GEOMETRY__GEOMETRY_DATA__DATA_OBJ_DATA
                                          ? &data->obj_data
                                      : data->data_case == INTRINSIC_PROTO__GEOMETRY__GEOMETRY_DATA__DATA_STL_BYTES
                                          ? &data->stl_bytes
                                      : data->data_case == INTRINSIC_PROTO__GEOMETRY__GEOMETRY_DATA__DATA_GLTF_BYTES
                                          ? &data->gltf_bytes
                                          : NULL;
    if (file && !file->len)
        return wk_fail(st, WK_INVALID, "GeometryService.CreateGeometry: data.%s is empty", data_kind(data));
    const IntrinsicProto__Geometry__V1__ExactGeometry *exact = inline_exact(data);
    if (data->data_case == INTRINSIC_PROTO__GEOMETRY__GEOMETRY_DATA__DATA_INLINE_GEOMETRY &&
        (!exact || exact->data_case == INTRINSIC_PROTO__GEOMETRY__V1__EXACT_GEOMETRY__DATA__NOT_SET))
        return wk_fail(st, WK_INVALID, "GeometryService.CreateGeometry: data.inline_geometry holds no exact_geometry "
                                       "(give its primitive_set or triangle_mesh)");
    int rc = inline_mesh(data) ? wk__triangle_mesh_check(inline_mesh(data), INLINE_MESH, st) : WK_OK;
    if (rc)
        return wk__ows_context(st, rc, "GeometryService.CreateGeometry");
    size_t len = protobuf_c_message_get_packed_size(&data->base);
    uint8_t *packed = wk__call_alloc(call, len);
    if (!packed)
        return wk_fail(st, WK_NOMEM, "GeometryService.CreateGeometry: out of memory");
    protobuf_c_message_pack(&data->base, packed);
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int digest_len = 0;
    if (!EVP_Digest(packed, len, digest, &digest_len, EVP_sha256(), NULL))
        return wk_fail(st, WK_NOMEM, "GeometryService.CreateGeometry: SHA-256 of the data failed");
    char fingerprint[2 * EVP_MAX_MD_SIZE + 1];
    for (unsigned i = 0; i < digest_len; i++)
        sprintf(fingerprint + 2 * i, "%02x", digest[i]);
    /* Read now, so that a file that is no mesh is refused, and kept for
     * the calls that serve it. */
    bool is_mesh;
    wk__mesh_copy mesh;
    rc = mesh_of(call, "CreateGeometry", fingerprint, data, 0, &is_mesh, &mesh, st);
    if (rc)
        return rc;
    rc = wk_store_put_geometry(api->store, fingerprint, packed, len, st);
    if (rc)
        return wk__ows_context(st, rc, "GeometryService.CreateGeometry");
    IntrinsicProto__Geometry__GeometryWithMetadata *m =
        wk__call_response(call, &intrinsic_proto__geometry__geometry_with_metadata__descriptor, response);
    if (!m || !refs_of(call, fingerprint, given_renderable(call, data), &m->geometry_storage_refs_v0,
                       &m->geometry_storage_refs))
        return wk_fail(st, WK_NOMEM, "GeometryService.CreateGeometry: out of memory");
    return WK_OK;
}

/* The v1 InlineGeometry GetGeometry answers of d: data given inline as
 * given, a v1 primitive set in one; NULL for other data (a mesh file's
 * triangles go in geometry_v0 only, not twice in one answer), and when out
 * of memory (call->failed). */
static IntrinsicProto__Geometry__V1__InlineGeometry *as_inline(wk__call *call, const GeometryData *d)
{
    if (d->data_case == INTRINSIC_PROTO__GEOMETRY__GEOMETRY_DATA__DATA_INLINE_GEOMETRY)
        return d->inline_geometry;
    if (d->data_case != INTRINSIC_PROTO__GEOMETRY__GEOMETRY_DATA__DATA_PRIMITIVE_SET)
        return NULL;
    IntrinsicProto__Geometry__V1__InlineGeometry *in =
        wk__ows_new(call, &intrinsic_proto__geometry__v1__inline_geometry__descriptor);
    IntrinsicProto__Geometry__V1__ExactGeometry *exact =
        wk__ows_new(call, &intrinsic_proto__geometry__v1__exact_geometry__descriptor);
    if (!in || !exact)
        return NULL;
    exact->data_case = INTRINSIC_PROTO__GEOMETRY__V1__EXACT_GEOMETRY__DATA_PRIMITIVE_SET;
    exact->primitive_set = d->primitive_set;
    in->exact_geometry = exact;
    return in;
}

WK__HANDLER(wk__geometry_get)
{
    const IntrinsicProto__Geometry__GetGeometryRequest *req = (const void *)request;
    wk_status *st = call->status;
    const char *id;
    GeometryData *d;
    int rc = load_named(api, call, "GetGeometry", req->geometry_storage_refs_v0, req->geometry_storage_refs, &id, &d,
                        st);
    if (rc)
        return rc;
    /* A mesh given inline is served as given; a file's from its one read. */
    const TriangleMeshV1 *given = inline_mesh(d);
    bool is_file = false;
    wk__mesh_copy copy;
    if (!given && (rc = mesh_of(call, "GetGeometry", id, d, WK__MESH_TRIANGLES, &is_file, &copy, st)))
        return rc;
    ProtobufCAllocator in_call = {call_alloc, call_free, call};
    IntrinsicProto__Geometry__TriangleMesh *mesh =
        is_file ? intrinsic_proto__geometry__triangle_mesh__unpack(&in_call, copy.triangles.len, copy.triangles.data)
        : given ? wk__ows_new(call, &intrinsic_proto__geometry__triangle_mesh__descriptor)
                : NULL;
    if (given && mesh) {
        mesh->n_vertices = given->n_vertices, mesh->vertices = given->vertices;
        mesh->n_faces = given->n_faces, mesh->faces = given->faces;
    }
    IntrinsicProto__Geometry__Renderable *renderable = given_renderable(call, d);
    /* (data is a oneof: geometry_v0 is read only when it is the one set.) */
    bool v0 = d->data_case == INTRINSIC_PROTO__GEOMETRY__GEOMETRY_DATA__DATA_GEOMETRY_V0;
    IntrinsicProto__Geometry__Geometry *geometry = v0 ? d->geometry_v0 : NULL;
    if (d->data_case == INTRINSIC_PROTO__GEOMETRY__GEOMETRY_DATA__DATA_PRIMITIVE_SET_V0 || mesh) {
        IntrinsicProto__Geometry__LazyExactGeometry *exact =
            wk__ows_new(call, &intrinsic_proto__geometry__lazy_exact_geometry__descriptor);
        if ((geometry = wk__ows_new(call, &intrinsic_proto__geometry__geometry__descriptor)) && exact) {
            exact->primitive_set = mesh ? NULL : d->primitive_set_v0;
            exact->triangle_mesh = mesh;
            geometry->exact_geometry = exact;
        }
    }
    if (renderable && !v0 &&
        (geometry || (geometry = wk__ows_new(call, &intrinsic_proto__geometry__geometry__descriptor)))) {
        geometry->renderable_type_case = INTRINSIC_PROTO__GEOMETRY__GEOMETRY__RENDERABLE_TYPE_RENDERABLE;
        geometry->renderable = renderable;
    }
    IntrinsicProto__Geometry__GeometryWithMetadata *m =
        wk__call_response(call, &intrinsic_proto__geometry__geometry_with_metadata__descriptor, response);
    if (m) {
        m->geometry_v0 = geometry;
        m->inline_geometry = as_inline(call, d);
    }
    if (!m || call->failed || !refs_of(call, id, renderable, &m->geometry_storage_refs_v0, &m->geometry_storage_refs))
        return wk_fail(st, WK_NOMEM, "GeometryService.GetGeometry: out of memory");
    return WK_OK;
}

WK__HANDLER(wk__geometry_get_renderable)
{
    const IntrinsicProto__Geometry__GetRenderableRequest *req = (const void *)request;
    wk_status *st = call->status;
    const char *id;
    GeometryData *d;
    int rc = load_named(api, call, "GetRenderable", req->geometry_storage_refs_v0, req->geometry_storage_refs, &id,
                        &d, st);
    if (rc)
        return rc;
    IntrinsicProto__Geometry__Renderable *renderable = given_renderable(call, d);
    bool given = renderable != NULL;
    bool is_mesh = false;
    wk__mesh_copy copy;
    /* A glTF given wins over the one assimp would write. */
    if (!given && (rc = mesh_of(call, "GetRenderable", id, d, WK__MESH_GLB, &is_mesh, &copy, st)))
        return rc;
    if (is_mesh && (renderable = wk__ows_new(call, &intrinsic_proto__geometry__renderable__descriptor))) {
        renderable->has_gltf_string = true;
        renderable->gltf_string = copy.glb;
    }
    if (!renderable && !call->failed)
        return wk_fail(st, WK_PRECONDITION,
                       "GeometryService.GetRenderable: geometry '%s' was registered as %s, and worldkit makes no glTF "
                       "renderable from it (it writes glTF of meshes only: GetGeometry serves its shape)",
                       id, data_kind(d));
    IntrinsicProto__Geometry__RenderableWithMetadata *m =
        wk__call_response(call, &intrinsic_proto__geometry__renderable_with_metadata__descriptor, response);
    IntrinsicProto__Geometry__V1__Renderable *glb =
        wk__ows_new(call, &intrinsic_proto__geometry__v1__renderable__descriptor);
    if (!m || !renderable || !glb ||
        !refs_of(call, id, given, &m->geometry_storage_refs_v0, &m->geometry_storage_refs))
        return wk_fail(st, WK_NOMEM, "GeometryService.GetRenderable: out of memory");
    /* The only level of detail kept, whatever was asked. */
    m->has_lod_level = true;
    m->lod_level = 0;
    m->renderable_v0 = renderable;
    /* v1 names the same bytes glb_bytes. */
    glb->has_glb_bytes = renderable->has_gltf_string;
    glb->glb_bytes = renderable->gltf_string;
    m->renderable = glb;
    return WK_OK;
}

/* The one primitive of a set, as the scene's shape. */
static int primitive_in(const IntrinsicProto__Geometry__PrimitiveShapeSet *set, const char *id, wk_scene_geometry *g,
                        wk_status *st)
{
    if (!set || set->n_primitives != 1)
        return wk_fail(st, WK_UNSUPPORTED, "geometry '%s': worldkit keeps one primitive shape per entity, not %zu",
                       id, set ? set->n_primitives : 0);
    const IntrinsicProto__Geometry__PrimitiveShape *p = set->primitives[0];
    const IntrinsicProto__Vector3 zero = INTRINSIC_PROTO__VECTOR3__INIT;
    switch (p->shape_case) {
    case INTRINSIC_PROTO__GEOMETRY__PRIMITIVE_SHAPE__SHAPE_BOX: {
        const IntrinsicProto__Vector3 *v = p->box->size ? p->box->size : &zero;
        g->type = WK_GEOMETRY_BOX, g->size = (wk_vec3){v->x, v->y, v->z};
        return WK_OK;
    }
    case INTRINSIC_PROTO__GEOMETRY__PRIMITIVE_SHAPE__SHAPE_ELLIPSOID: {
        const IntrinsicProto__Vector3 *v = p->ellipsoid->radii ? p->ellipsoid->radii : &zero;
        g->type = WK_GEOMETRY_ELLIPSOID, g->size = (wk_vec3){v->x, v->y, v->z};
        return WK_OK;
    }
    case INTRINSIC_PROTO__GEOMETRY__PRIMITIVE_SHAPE__SHAPE_SPHERE:
        g->type = WK_GEOMETRY_SPHERE, g->radius = p->sphere->radius;
        return WK_OK;
    case INTRINSIC_PROTO__GEOMETRY__PRIMITIVE_SHAPE__SHAPE_CYLINDER:
        g->type = WK_GEOMETRY_CYLINDER, g->radius = p->cylinder->radius, g->length = p->cylinder->length;
        return WK_OK;
    case INTRINSIC_PROTO__GEOMETRY__PRIMITIVE_SHAPE__SHAPE_CAPSULE:
        g->type = WK_GEOMETRY_CAPSULE, g->radius = p->capsule->radius, g->length = p->capsule->length;
        return WK_OK;
    case INTRINSIC_PROTO__GEOMETRY__PRIMITIVE_SHAPE__SHAPE_FRUSTUM:
        return wk_fail(st, WK_UNSUPPORTED, "geometry '%s': worldkit has no frustum shape", id);
    default:
        return wk_fail(st, WK_INVALID, "geometry '%s': the primitive shape is empty", id);
    }
}

int wk__geometry_registered(wk__call *call, const char *ref, wk_scene_geometry *g, const char **uri, wk_status *st)
{
    if (!call->store || strncmp(ref, REF_PREFIX, strlen(REF_PREFIX)))
        return WK_OK;
    const char *id = ref + strlen(REF_PREFIX);
    GeometryData *d;
    int rc = load(call->store, call, id, &d, st);
    if (rc)
        return rc;
    const IntrinsicProto__Geometry__PrimitiveShapeSet *set =
        d->data_case == INTRINSIC_PROTO__GEOMETRY__GEOMETRY_DATA__DATA_PRIMITIVE_SET_V0 ? d->primitive_set_v0
        : d->data_case == INTRINSIC_PROTO__GEOMETRY__GEOMETRY_DATA__DATA_GEOMETRY_V0 && d->geometry_v0 &&
                d->geometry_v0->exact_geometry
            ? d->geometry_v0->exact_geometry->primitive_set
            : NULL;
    /* v1's sets, given alone or as an inline exact geometry. */
    bool alone = d->data_case == INTRINSIC_PROTO__GEOMETRY__GEOMETRY_DATA__DATA_PRIMITIVE_SET;
    IntrinsicProto__Geometry__V1__ExactGeometry given = INTRINSIC_PROTO__GEOMETRY__V1__EXACT_GEOMETRY__INIT;
    given.data_case = INTRINSIC_PROTO__GEOMETRY__V1__EXACT_GEOMETRY__DATA_PRIMITIVE_SET;
    given.primitive_set = alone ? d->primitive_set : NULL;
    const IntrinsicProto__Geometry__V1__ExactGeometry *exact = alone ? &given : inline_exact(d);
    bool v1_set = exact && exact->data_case == INTRINSIC_PROTO__GEOMETRY__V1__EXACT_GEOMETRY__DATA_PRIMITIVE_SET;
    if (!set && !v1_set)
        return WK_OK; /* a mesh: the entity keeps the reference as its uri */
    wk_vec3 scale = g->scale;
    if (scale.x != 1 || scale.y != 1 || scale.z != 1)
        return wk_fail(st, WK_UNSUPPORTED, "geometry '%s': a primitive shape cannot be scaled; give its size", id);
    memset(g, 0, sizeof *g);
    *uri = NULL;
    if (set)
        return primitive_in(set, id, g, st);
    rc = wk__ows_exact_geometry_in(exact, g, st);
    return rc ? wk__ows_context(st, rc, "geometry '%s'", id) : WK_OK;
}

int wk__geometry_mesh_box(wk_store *store, const char *uri, bool *known, wk_vec3 *lo, wk_vec3 *hi, wk_status *st)
{
    *known = false;
    if (!store || strncmp(uri, REF_PREFIX, strlen(REF_PREFIX)))
        return WK_OK;
    const char *id = uri + strlen(REF_PREFIX);
    /* A registration never changes (its id is the SHA-256 of its data, and
     * the store keeps the first data put under an id): its box is kept. */
    if ((*known = wk__mesh_box_kept(id, lo, hi)))
        return WK_OK;
    wk_buf bytes = {0};
    int rc = wk_store_get_geometry(store, id, &bytes, st);
    GeometryData *d = rc ? NULL : intrinsic_proto__geometry__geometry_data__unpack(NULL, bytes.len, bytes.data);
    wk_buf_free(&bytes);
    if (rc)
        return rc;
    if (!d)
        return wk_fail(st, WK_IO, "the stored geometry '%s' does not parse", id);
    /* No part but the box is copied: no call is needed to hold it. An
     * inline mesh's box is read from its vertices as given. */
    wk__mesh_copy box;
    const TriangleMeshV1 *given = inline_mesh(d);
    if (given)
        wk__triangle_mesh_box(given, lo, hi);
    else if ((rc = mesh_of(NULL, "mesh bounds", id, d, 0, known, &box, st)) == WK_OK && *known)
        *lo = box.lo, *hi = box.hi;
    *known = *known || given;
    if (rc == WK_OK && *known)
        wk__mesh_box_keep(id, *lo, *hi);
    protobuf_c_message_free_unpacked(&d->base, NULL);
    return rc;
}

int wk_api_mesh_glb(const char *uri, wk_buf *out)
{
    if (strncmp(uri, REF_PREFIX, strlen(REF_PREFIX)))
        return WK_NOT_FOUND;
    return wk__mesh_held_glb(uri + strlen(REF_PREFIX), out);
}
