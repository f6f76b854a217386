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
 * Geometry (the one given; a primitive_set as its exact geometry; glTF bytes
 * as its renderable), GetRenderable the glTF given (gltf_bytes, or a
 * Geometry's renderable) at lod_level 0, the only one kept. Mesh files
 * (obj_data, stl_bytes) have no Geometry or glTF form here: those calls
 * answer FAILED_PRECONDITION saying so (not UNIMPLEMENTED, which the client
 * retries for a minute); an object may still use them as a mesh. */
#include <openssl/evp.h>
#include <stdio.h>
#include <string.h>

#include "api/ows/edit.h"
#include "intrinsic/geometry/proto/geometry_service.pb-c.h"

#define REF_PREFIX "worldkit-geometry:"

typedef IntrinsicProto__Geometry__GeometryData GeometryData;
typedef IntrinsicProto__Geometry__GeometryStorageRefs StorageRefs;

static const char *data_kind(const GeometryData *d)
{
    switch (d->data_case) {
    case INTRINSIC_PROTO__GEOMETRY__GEOMETRY_DATA__DATA_GEOMETRY:
        return "geometry";
    case INTRINSIC_PROTO__GEOMETRY__GEOMETRY_DATA__DATA_PRIMITIVE_SET:
        return "primitive_set";
    case INTRINSIC_PROTO__GEOMETRY__GEOMETRY_DATA__DATA_OBJ_DATA:
        return "obj_data";
    case INTRINSIC_PROTO__GEOMETRY__GEOMETRY_DATA__DATA_GLTF_BYTES:
        return "gltf_bytes";
    case INTRINSIC_PROTO__GEOMETRY__GEOMETRY_DATA__DATA_STL_BYTES:
        return "stl_bytes";
    default:
        return NULL;
    }
}

/* The glTF the data holds, or NULL. */
static IntrinsicProto__Geometry__Renderable *given_renderable(wk__call *call, const GeometryData *d)
{
    if (d->data_case == INTRINSIC_PROTO__GEOMETRY__GEOMETRY_DATA__DATA_GEOMETRY && d->geometry)
        return d->geometry->renderable_type_case ==
                       INTRINSIC_PROTO__GEOMETRY__GEOMETRY__RENDERABLE_TYPE_GENERATED_RENDERABLE
                   ? d->geometry->generated_renderable
                   : d->geometry->renderable;
    if (d->data_case != INTRINSIC_PROTO__GEOMETRY__GEOMETRY_DATA__DATA_GLTF_BYTES)
        return NULL;
    IntrinsicProto__Geometry__Renderable *r = wk__ows_new(call, &intrinsic_proto__geometry__renderable__descriptor);
    if (r) {
        r->has_gltf_string = true;
        r->gltf_string = d->gltf_bytes;
    }
    return r;
}

static StorageRefs *refs_of(wk__call *call, const char *fingerprint, bool renderable)
{
    StorageRefs *refs = wk__ows_new(call, &intrinsic_proto__geometry__geometry_storage_refs__descriptor);
    char *ref = wk__call_alloc(call, sizeof REF_PREFIX + strlen(fingerprint));
    if (!refs || !ref)
        return NULL;
    sprintf(ref, REF_PREFIX "%s", fingerprint);
    refs->fingerprint = wk__call_strdup(call, fingerprint);
    refs->geometry_ref = ref;
    refs->renderable_ref = renderable ? ref : NULL;
    return refs;
}

/* The registration a reference names: its fingerprint, else the part of
 * geometry_ref or renderable_ref after REF_PREFIX; NULL when none does. */
static const char *id_of(const StorageRefs *refs)
{
    if (!refs)
        return NULL;
    if (refs->fingerprint && *refs->fingerprint)
        return refs->fingerprint;
    const char *refs_held[] = {refs->geometry_ref, refs->renderable_ref};
    for (size_t i = 0; i < 2; i++)
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
static int load_named(wk_api *api, wk__call *call, const char *method, const StorageRefs *refs, const char **id,
                      GeometryData **out, wk_status *st)
{
    *id = id_of(refs);
    if (!*id)
        return wk_fail(st, WK_INVALID,
                       "GeometryService.%s: geometry_storage_refs names no geometry registered here: give the "
                       "fingerprint or the geometry_ref (" REF_PREFIX "...) CreateGeometry answered",
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
                                       "geometry, primitive_set, obj_data, gltf_bytes, stl_bytes)");
    const ProtobufCBinaryData *file = data->data_case == INTRINSIC_PROTO__GEOMETRY__GEOMETRY_DATA__DATA_OBJ_DATA
                                          ? &data->obj_data
                                      : data->data_case == INTRINSIC_PROTO__GEOMETRY__GEOMETRY_DATA__DATA_STL_BYTES
                                          ? &data->stl_bytes
                                      : data->data_case == INTRINSIC_PROTO__GEOMETRY__GEOMETRY_DATA__DATA_GLTF_BYTES
                                          ? &data->gltf_bytes
                                          : NULL;
    if (file && !file->len)
        return wk_fail(st, WK_INVALID, "GeometryService.CreateGeometry: data.%s is empty", data_kind(data));
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
    int rc = wk_store_put_geometry(api->store, fingerprint, packed, len, st);
    if (rc)
        return wk__ows_context(st, rc, "GeometryService.CreateGeometry");
    IntrinsicProto__Geometry__GeometryWithMetadata *m =
        wk__call_response(call, &intrinsic_proto__geometry__geometry_with_metadata__descriptor, response);
    if (!m || !(m->geometry_storage_refs = refs_of(call, fingerprint, given_renderable(call, data))))
        return wk_fail(st, WK_NOMEM, "GeometryService.CreateGeometry: out of memory");
    return WK_OK;
}

/* Refuses, for method, data that has no form it can serve. */
static int no_form(wk_status *st, const char *method, const char *id, const GeometryData *d, const char *form)
{
    return wk_fail(st, WK_PRECONDITION,
                   "GeometryService.%s: geometry '%s' was registered as %s, and worldkit makes no %s from it (it "
                   "keeps the bytes: an object refers to them as a mesh)",
                   method, id, data_kind(d), form);
}

WK__HANDLER(wk__geometry_get)
{
    const IntrinsicProto__Geometry__GetGeometryRequest *req = (const void *)request;
    wk_status *st = call->status;
    const char *id;
    GeometryData *d;
    int rc = load_named(api, call, "GetGeometry", req->geometry_storage_refs, &id, &d, st);
    if (rc)
        return rc;
    IntrinsicProto__Geometry__Renderable *renderable = given_renderable(call, d);
    IntrinsicProto__Geometry__Geometry *geometry = d->geometry;
    if (d->data_case == INTRINSIC_PROTO__GEOMETRY__GEOMETRY_DATA__DATA_PRIMITIVE_SET) {
        IntrinsicProto__Geometry__LazyExactGeometry *exact =
            wk__ows_new(call, &intrinsic_proto__geometry__lazy_exact_geometry__descriptor);
        if ((geometry = wk__ows_new(call, &intrinsic_proto__geometry__geometry__descriptor)) && exact) {
            exact->primitive_set = d->primitive_set;
            geometry->exact_geometry = exact;
        }
    } else if (d->data_case == INTRINSIC_PROTO__GEOMETRY__GEOMETRY_DATA__DATA_GLTF_BYTES) {
        if ((geometry = wk__ows_new(call, &intrinsic_proto__geometry__geometry__descriptor))) {
            geometry->renderable_type_case = INTRINSIC_PROTO__GEOMETRY__GEOMETRY__RENDERABLE_TYPE_RENDERABLE;
            geometry->renderable = renderable;
        }
    } else if (d->data_case != INTRINSIC_PROTO__GEOMETRY__GEOMETRY_DATA__DATA_GEOMETRY) {
        return no_form(st, "GetGeometry", id, d, "Geometry (a triangle mesh)");
    }
    IntrinsicProto__Geometry__GeometryWithMetadata *m =
        wk__call_response(call, &intrinsic_proto__geometry__geometry_with_metadata__descriptor, response);
    if (!m || call->failed || !geometry || !(m->geometry_storage_refs = refs_of(call, id, renderable)))
        return wk_fail(st, WK_NOMEM, "GeometryService.GetGeometry: out of memory");
    m->geometry = geometry;
    return WK_OK;
}

WK__HANDLER(wk__geometry_get_renderable)
{
    const IntrinsicProto__Geometry__GetRenderableRequest *req = (const void *)request;
    wk_status *st = call->status;
    const char *id;
    GeometryData *d;
    int rc = load_named(api, call, "GetRenderable", req->geometry_storage_refs, &id, &d, st);
    if (rc)
        return rc;
    IntrinsicProto__Geometry__Renderable *renderable = given_renderable(call, d);
    if (!renderable && !call->failed)
        return no_form(st, "GetRenderable", id, d, "glTF renderable");
    IntrinsicProto__Geometry__RenderableWithMetadata *m =
        wk__call_response(call, &intrinsic_proto__geometry__renderable_with_metadata__descriptor, response);
    if (!m || !renderable || !(m->geometry_storage_refs = refs_of(call, id, true)))
        return wk_fail(st, WK_NOMEM, "GeometryService.GetRenderable: out of memory");
    /* The glTF as given: the only level of detail kept, whatever was asked. */
    m->has_lod_level = true;
    m->lod_level = 0;
    m->renderable = renderable;
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
        d->data_case == INTRINSIC_PROTO__GEOMETRY__GEOMETRY_DATA__DATA_PRIMITIVE_SET ? d->primitive_set
        : d->data_case == INTRINSIC_PROTO__GEOMETRY__GEOMETRY_DATA__DATA_GEOMETRY && d->geometry &&
                d->geometry->exact_geometry
            ? d->geometry->exact_geometry->primitive_set
            : NULL;
    if (!set)
        return WK_OK; /* a mesh: the entity keeps the reference as its uri */
    wk_vec3 scale = g->scale;
    if (scale.x != 1 || scale.y != 1 || scale.z != 1)
        return wk_fail(st, WK_UNSUPPORTED, "geometry '%s': a primitive shape cannot be scaled; give its size", id);
    memset(g, 0, sizeof *g);
    *uri = NULL;
    return primitive_in(set, id, g, st);
}
