/* geometry.c — an entity's Geometry (and Uri) as a GeometryComponent,
 * and back. worldkit keeps one shape per entity (wk_scene_geometry); the
 * message keeps named sets of placed geometries. The mapping:
 *
 * - The set's name says what the shape is for: "Intrinsic_Collision" for a
 *   collision entity, "Intrinsic_Visual" for a visual one, both (the same
 *   shape twice, as the service documents) for any other entity that has a
 *   geometry (the single entity of an object made by CreateObject).
 * - Each set holds one named geometry, named after the entity.
 * - Box, sphere, cylinder, capsule and ellipsoid are inline primitives
 *   (InlineGeometry.exact_geometry.primitive_set with one shape, placed at
 *   the identity); ellipsoid radii are the shape's size.
 * - Mesh and heightmap are stored geometries: GeometryStorageRefs with the
 *   uri as exact_geometry_ref and renderable_ref, placed by ref_t_shape, a
 *   4x4 matrix whose diagonal is the mesh's scale (1 when unset). They are
 *   also listed in the older `geometries` list (geometry_storage_refs.
 *   geometry_ref = the uri, ref_t_shape_aff the same matrix), which the
 *   service fills on output. A heightmap's size has no field: it is lost.
 * - A stored geometry's reference that names a geometry registered with
 *   GeometryService.CreateGeometry (geometry_service.c) is read as that
 *   geometry: one primitive becomes that primitive, a mesh stays a mesh
 *   whose uri is the reference.
 * - Plane, polyline and none have no counterpart: a visual or collision
 *   of such a shape (or of none) reports its set, empty, so that its kind
 *   still shows; any other entity reports no geometry component.
 *
 * wk__ows_geometry_kind reads the mapping's first rule back: a component
 * holding only the collision set is a collision's, only the visual set a
 * visual's (CreateWorld keeps a world file's visuals and collisions so).
 *
 * Reading (wk__ows_geometry_in) takes the set "Intrinsic_Collision", else
 * "Intrinsic_Visual", else the first; its first named geometry, else its
 * first older entry. What worldkit cannot keep (a frustum, an inline
 * triangle mesh: it is registered with GeometryService instead, a shape
 * placed other than at the identity, a scale that is not a diagonal) is
 * refused with WK_UNSUPPORTED, not dropped. */
#include <string.h>

#include "api/ows/ows.h"

#define COLLISION_SET "Intrinsic_Collision"
#define VISUAL_SET "Intrinsic_Visual"

/* A 4x4 matrix, column after column, with d on the diagonal (d[3] = 1). */
static IntrinsicProto__Matrixd *diagonal(wk__call *call, wk_vec3 d)
{
    IntrinsicProto__Matrixd *m = wk__ows_new(call, &intrinsic_proto__matrixd__descriptor);
    double *v = wk__ows_array(call, 16, sizeof *v);
    if (!m || !v)
        return NULL;
    m->has_rows = m->has_cols = true;
    m->rows = m->cols = 4;
    v[0] = d.x, v[5] = d.y, v[10] = d.z, v[15] = 1;
    m->values = v;
    m->n_values = 16;
    return m;
}

static IntrinsicProto__Geometry__V1__GeometricTransform *transform(wk__call *call, wk_vec3 d)
{
    IntrinsicProto__Geometry__V1__GeometricTransform *m =
        wk__ows_new(call, &intrinsic_proto__geometry__v1__geometric_transform__descriptor);
    if (!m)
        return NULL;
    m->data_case = INTRINSIC_PROTO__GEOMETRY__V1__GEOMETRIC_TRANSFORM__DATA_MATRIX4D;
    m->matrix4d = diagonal(call, d);
    return m;
}

/* The primitive shape of g, or NULL (call->failed set when out of memory). */
static IntrinsicProto__Geometry__V1__PrimitiveShape *primitive(wk__call *call, const wk_scene_geometry *g)
{
    IntrinsicProto__Geometry__V1__PrimitiveShape *m =
        wk__ows_new(call, &intrinsic_proto__geometry__v1__primitive_shape__descriptor);
    if (!m)
        return NULL;
    switch (g->type) {
    case WK_GEOMETRY_BOX:
        m->shape_case = INTRINSIC_PROTO__GEOMETRY__V1__PRIMITIVE_SHAPE__SHAPE_BOX;
        if ((m->box = wk__ows_new(call, &intrinsic_proto__geometry__v1__box__descriptor)))
            m->box->size = wk__ows_vector3(call, g->size);
        break;
    case WK_GEOMETRY_SPHERE:
        m->shape_case = INTRINSIC_PROTO__GEOMETRY__V1__PRIMITIVE_SHAPE__SHAPE_SPHERE;
        if ((m->sphere = wk__ows_new(call, &intrinsic_proto__geometry__v1__sphere__descriptor)))
            m->sphere->has_radius = true, m->sphere->radius = g->radius;
        break;
    case WK_GEOMETRY_CYLINDER:
        m->shape_case = INTRINSIC_PROTO__GEOMETRY__V1__PRIMITIVE_SHAPE__SHAPE_CYLINDER;
        if ((m->cylinder = wk__ows_new(call, &intrinsic_proto__geometry__v1__cylinder__descriptor))) {
            m->cylinder->has_radius = m->cylinder->has_length = true;
            m->cylinder->radius = g->radius, m->cylinder->length = g->length;
        }
        break;
    case WK_GEOMETRY_CAPSULE:
        m->shape_case = INTRINSIC_PROTO__GEOMETRY__V1__PRIMITIVE_SHAPE__SHAPE_CAPSULE;
        if ((m->capsule = wk__ows_new(call, &intrinsic_proto__geometry__v1__capsule__descriptor))) {
            m->capsule->has_radius = m->capsule->has_length = true;
            m->capsule->radius = g->radius, m->capsule->length = g->length;
        }
        break;
    case WK_GEOMETRY_ELLIPSOID:
        m->shape_case = INTRINSIC_PROTO__GEOMETRY__V1__PRIMITIVE_SHAPE__SHAPE_ELLIPSOID;
        if ((m->ellipsoid = wk__ows_new(call, &intrinsic_proto__geometry__v1__ellipsoid__descriptor)))
            m->ellipsoid->radii = wk__ows_vector3(call, g->size);
        break;
    default:
        return NULL;
    }
    return m;
}

static bool is_primitive(wk_geometry_type type)
{
    return type == WK_GEOMETRY_BOX || type == WK_GEOMETRY_SPHERE || type == WK_GEOMETRY_CYLINDER ||
           type == WK_GEOMETRY_CAPSULE || type == WK_GEOMETRY_ELLIPSOID;
}

static wk_vec3 mesh_scale(const wk_scene_geometry *g)
{
    bool unset = g->scale.x == 0 && g->scale.y == 0 && g->scale.z == 0;
    return g->type == WK_GEOMETRY_MESH && !unset ? g->scale : (wk_vec3){1, 1, 1};
}

static IntrinsicProto__Geometry__V1__TransformedGeometry *placed(wk__call *call, const wk_scene_geometry *g,
                                                                 const char *uri)
{
    IntrinsicProto__Geometry__V1__TransformedGeometry *m =
        wk__ows_new(call, &intrinsic_proto__geometry__v1__transformed_geometry__descriptor);
    IntrinsicProto__Geometry__V1__Geometry *geo = wk__ows_new(call, &intrinsic_proto__geometry__v1__geometry__descriptor);
    if (!m || !geo)
        return NULL;
    if (is_primitive(g->type)) {
        IntrinsicProto__Geometry__V1__InlineGeometry *in =
            wk__ows_new(call, &intrinsic_proto__geometry__v1__inline_geometry__descriptor);
        IntrinsicProto__Geometry__V1__ExactGeometry *exact =
            wk__ows_new(call, &intrinsic_proto__geometry__v1__exact_geometry__descriptor);
        IntrinsicProto__Geometry__V1__TransformedPrimitiveShapeSet *set =
            wk__ows_new(call, &intrinsic_proto__geometry__v1__transformed_primitive_shape_set__descriptor);
        IntrinsicProto__Geometry__V1__TransformedPrimitiveShape *shape =
            wk__ows_new(call, &intrinsic_proto__geometry__v1__transformed_primitive_shape__descriptor);
        IntrinsicProto__Geometry__V1__TransformedPrimitiveShape **list = wk__ows_array(call, 1, sizeof *list);
        if (!in || !exact || !set || !shape || !list)
            return NULL;
        shape->shape = primitive(call, g);
        shape->ref_t_shape = transform(call, (wk_vec3){1, 1, 1});
        list[0] = shape;
        set->primitives = list;
        set->n_primitives = 1;
        exact->data_case = INTRINSIC_PROTO__GEOMETRY__V1__EXACT_GEOMETRY__DATA_PRIMITIVE_SET;
        exact->primitive_set = set;
        in->exact_geometry = exact;
        geo->data_case = INTRINSIC_PROTO__GEOMETRY__V1__GEOMETRY__DATA_INLINE_GEOMETRY_DATA;
        geo->inline_geometry_data = in;
    } else {
        IntrinsicProto__Geometry__V1__GeometryStorageRefs *refs =
            wk__ows_new(call, &intrinsic_proto__geometry__v1__geometry_storage_refs__descriptor);
        if (!refs)
            return NULL;
        refs->exact_geometry_ref = wk__call_strdup(call, uri ? uri : "");
        refs->renderable_ref = wk__call_strdup(call, uri ? uri : "");
        geo->data_case = INTRINSIC_PROTO__GEOMETRY__V1__GEOMETRY__DATA_GEO_REF;
        geo->geo_ref = refs;
    }
    m->geometry = geo;
    m->ref_t_shape = transform(call, is_primitive(g->type) ? (wk_vec3){1, 1, 1} : mesh_scale(g));
    return m;
}

/* The older list's entry of a stored geometry. */
static IntrinsicProto__World__GeometryComponent__Geometry *older(wk__call *call, const wk_scene_geometry *g,
                                                                 const char *uri)
{
    IntrinsicProto__World__GeometryComponent__Geometry *m =
        wk__ows_new(call, &intrinsic_proto__world__geometry_component__geometry__descriptor);
    IntrinsicProto__Geometry__GeometryStorageRefs *refs =
        wk__ows_new(call, &intrinsic_proto__geometry__geometry_storage_refs__descriptor);
    if (!m || !refs)
        return NULL;
    refs->geometry_ref = wk__call_strdup(call, uri ? uri : "");
    refs->renderable_ref = wk__call_strdup(call, uri ? uri : "");
    m->geometry_storage_refs = refs;
    m->ref_t_shape_aff = diagonal(call, mesh_scale(g));
    return m;
}

static IntrinsicProto__World__GeometryComponent__NamedGeometriesEntry *named_set(wk__call *call, const char *set_name,
                                                                                const char *entity_name,
                                                                                const wk_scene_geometry *g,
                                                                                const char *uri)
{
    IntrinsicProto__World__GeometryComponent__NamedGeometriesEntry *entry =
        wk__ows_new(call, &intrinsic_proto__world__geometry_component__named_geometries_entry__descriptor);
    IntrinsicProto__World__GeometryComponent__GeometrySet *set =
        wk__ows_new(call, &intrinsic_proto__world__geometry_component__geometry_set__descriptor);
    IntrinsicProto__World__GeometryComponent__GeometrySet__NamedGeometriesEntry *named =
        wk__ows_new(call, &intrinsic_proto__world__geometry_component__geometry_set__named_geometries_entry__descriptor);
    void **one = wk__ows_array(call, 1, sizeof(void *));
    void **two = wk__ows_array(call, 1, sizeof(void *));
    if (!entry || !set || !named || !one || !two)
        return NULL;
    named->key = wk__call_strdup(call, entity_name);
    named->value = placed(call, g, uri);
    one[0] = named;
    set->named_geometries = (IntrinsicProto__World__GeometryComponent__GeometrySet__NamedGeometriesEntry **)one;
    set->n_named_geometries = 1;
    if (!is_primitive(g->type)) {
        two[0] = older(call, g, uri);
        set->geometries = (IntrinsicProto__World__GeometryComponent__Geometry **)two;
        set->n_geometries = 1;
    }
    entry->key = wk__call_strdup(call, set_name);
    entry->value = set;
    return entry;
}

/* A component holding one empty set: a visual's or collision's whose
 * shape the message cannot hold. */
static IntrinsicProto__World__GeometryComponent *empty_set(wk__call *call, const char *set_name)
{
    IntrinsicProto__World__GeometryComponent *m =
        wk__ows_new(call, &intrinsic_proto__world__geometry_component__descriptor);
    IntrinsicProto__World__GeometryComponent__NamedGeometriesEntry **entries =
        wk__ows_array(call, 1, sizeof *entries);
    if (!m || !entries ||
        !(entries[0] = wk__ows_new(call, &intrinsic_proto__world__geometry_component__named_geometries_entry__descriptor)) ||
        !(entries[0]->value = wk__ows_new(call, &intrinsic_proto__world__geometry_component__geometry_set__descriptor)))
        return NULL;
    entries[0]->key = wk__call_strdup(call, set_name);
    m->named_geometries = entries;
    m->n_named_geometries = 1;
    return m;
}

IntrinsicProto__World__GeometryComponent *wk__ows_geometry(wk__call *call, const wk_scene *s, wk_entity e)
{
    wk_ecm *ecm = wk_scene_ecm((wk_scene *)s);
    const wk_scene_types *t = wk_scene_types_of(s);
    const wk_scene_geometry *g = wk_ecm_get(ecm, e, t->geometry);
    const uint8_t *kind = wk_ecm_get(ecm, e, t->kind);
    if (!g || !(is_primitive(g->type) || g->type == WK_GEOMETRY_MESH || g->type == WK_GEOMETRY_HEIGHTMAP)) {
        if (kind && (*kind == WK_NODE_VISUAL || *kind == WK_NODE_COLLISION))
            return empty_set(call, *kind == WK_NODE_VISUAL ? VISUAL_SET : COLLISION_SET);
        return NULL;
    }
    char *const *uri = wk_ecm_get(ecm, e, t->uri);
    const char *sets[2];
    size_t n = 0;
    if (!kind || *kind != WK_NODE_VISUAL)
        sets[n++] = COLLISION_SET;
    if (!kind || *kind != WK_NODE_COLLISION)
        sets[n++] = VISUAL_SET;
    IntrinsicProto__World__GeometryComponent *m =
        wk__ows_new(call, &intrinsic_proto__world__geometry_component__descriptor);
    IntrinsicProto__World__GeometryComponent__NamedGeometriesEntry **entries =
        wk__ows_array(call, n, sizeof *entries);
    if (!m || !entries)
        return NULL;
    const char *name = wk_scene_name(s, e);
    for (size_t i = 0; i < n; i++)
        entries[i] = named_set(call, sets[i], name ? name : "", g, uri ? *uri : NULL);
    m->named_geometries = entries;
    m->n_named_geometries = n;
    return m;
}

/* ---- reading ---------------------------------------------------------- */

/* Reads a 4x4 column-major matrix that must be a diagonal (d, 1): the
 * scale of a mesh, or (1, 1, 1) for a shape placed at the identity. An
 * absent matrix is the identity. */
static int read_diagonal(const IntrinsicProto__Matrixd *m, wk_vec3 *d, wk_status *st)
{
    *d = (wk_vec3){1, 1, 1};
    if (!m)
        return WK_OK;
    if (m->rows != 4 || m->cols != 4 || m->n_values != 16)
        return wk_fail(st, WK_INVALID, "geometry: a placement must be a 4x4 matrix");
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 4; r++)
            if (r != c && m->values[c * 4 + r] != 0)
                return wk_fail(st, WK_UNSUPPORTED,
                               "geometry: worldkit keeps a shape at its entity's origin, scaled along its axes; "
                               "this placement rotates, shears or moves it");
    if (m->values[15] != 1)
        return wk_fail(st, WK_INVALID, "geometry: the placement matrix is not affine");
    *d = (wk_vec3){m->values[0], m->values[5], m->values[10]};
    return WK_OK;
}

static wk_vec3 vec_in(const IntrinsicProto__Vector3 *v)
{
    return v ? (wk_vec3){v->x, v->y, v->z} : (wk_vec3){0, 0, 0};
}

int wk__ows_exact_geometry_in(const IntrinsicProto__Geometry__V1__ExactGeometry *exact, wk_scene_geometry *g,
                              wk_status *st)
{
    if (!exact || exact->data_case != INTRINSIC_PROTO__GEOMETRY__V1__EXACT_GEOMETRY__DATA_PRIMITIVE_SET)
        return wk_fail(st, WK_UNSUPPORTED,
                       "geometry: an inline exact_geometry is taken as a primitive_set only; register a "
                       "triangle_mesh with GeometryService.CreateGeometry (data.inline_geometry) and refer to it by "
                       "geo_ref");
    const IntrinsicProto__Geometry__V1__TransformedPrimitiveShapeSet *set = exact->primitive_set;
    if (!set || set->n_primitives != 1 || !set->primitives[0]->shape)
        return wk_fail(st, WK_UNSUPPORTED, "geometry: worldkit keeps one primitive shape per entity, not %zu",
                       set ? set->n_primitives : 0);
    wk_vec3 d;
    const IntrinsicProto__Geometry__V1__GeometricTransform *t = set->primitives[0]->ref_t_shape;
    int rc = read_diagonal(t && t->data_case == INTRINSIC_PROTO__GEOMETRY__V1__GEOMETRIC_TRANSFORM__DATA_MATRIX4D
                               ? t->matrix4d
                               : NULL,
                           &d, st);
    if (rc == WK_OK && (d.x != 1 || d.y != 1 || d.z != 1))
        rc = wk_fail(st, WK_UNSUPPORTED, "geometry: a primitive shape cannot be scaled; give its size");
    if (rc)
        return rc;
    const IntrinsicProto__Geometry__V1__PrimitiveShape *p = set->primitives[0]->shape;
    switch (p->shape_case) {
    case INTRINSIC_PROTO__GEOMETRY__V1__PRIMITIVE_SHAPE__SHAPE_BOX:
        g->type = WK_GEOMETRY_BOX, g->size = vec_in(p->box->size);
        return WK_OK;
    case INTRINSIC_PROTO__GEOMETRY__V1__PRIMITIVE_SHAPE__SHAPE_SPHERE:
        g->type = WK_GEOMETRY_SPHERE, g->radius = p->sphere->radius;
        return WK_OK;
    case INTRINSIC_PROTO__GEOMETRY__V1__PRIMITIVE_SHAPE__SHAPE_CYLINDER:
        g->type = WK_GEOMETRY_CYLINDER, g->radius = p->cylinder->radius, g->length = p->cylinder->length;
        return WK_OK;
    case INTRINSIC_PROTO__GEOMETRY__V1__PRIMITIVE_SHAPE__SHAPE_CAPSULE:
        g->type = WK_GEOMETRY_CAPSULE, g->radius = p->capsule->radius, g->length = p->capsule->length;
        return WK_OK;
    case INTRINSIC_PROTO__GEOMETRY__V1__PRIMITIVE_SHAPE__SHAPE_ELLIPSOID:
        g->type = WK_GEOMETRY_ELLIPSOID, g->size = vec_in(p->ellipsoid->radii);
        return WK_OK;
    case INTRINSIC_PROTO__GEOMETRY__V1__PRIMITIVE_SHAPE__SHAPE_FRUSTUM:
        return wk_fail(st, WK_UNSUPPORTED, "geometry: worldkit has no frustum shape");
    default:
        return wk_fail(st, WK_INVALID, "geometry: the primitive shape is empty");
    }
}

static int read_placed(wk__call *call, const IntrinsicProto__Geometry__V1__TransformedGeometry *tg,
                       wk_scene_geometry *g, const char **uri, wk_status *st)
{
    const IntrinsicProto__Geometry__V1__Geometry *geo = tg ? tg->geometry : NULL;
    if (geo && geo->data_case == INTRINSIC_PROTO__GEOMETRY__V1__GEOMETRY__DATA_INLINE_GEOMETRY_DATA &&
        geo->inline_geometry_data) {
        wk_vec3 d;
        const IntrinsicProto__Geometry__V1__GeometricTransform *t = tg->ref_t_shape;
        int rc = read_diagonal(
            t && t->data_case == INTRINSIC_PROTO__GEOMETRY__V1__GEOMETRIC_TRANSFORM__DATA_MATRIX4D ? t->matrix4d : NULL,
            &d, st);
        if (rc == WK_OK && (d.x != 1 || d.y != 1 || d.z != 1))
            rc = wk_fail(st, WK_UNSUPPORTED, "geometry: a primitive shape cannot be scaled; give its size");
        return rc ? rc : wk__ows_exact_geometry_in(geo->inline_geometry_data->exact_geometry, g, st);
    }
    if (geo && geo->data_case == INTRINSIC_PROTO__GEOMETRY__V1__GEOMETRY__DATA_GEO_REF && geo->geo_ref) {
        const char *ref = geo->geo_ref->exact_geometry_ref;
        if (!ref || !*ref)
            ref = geo->geo_ref->renderable_ref;
        if (!ref || !*ref)
            return wk_fail(st, WK_INVALID, "geometry: the stored geometry names no reference");
        const IntrinsicProto__Geometry__V1__GeometricTransform *t = tg->ref_t_shape;
        g->type = WK_GEOMETRY_MESH;
        *uri = ref;
        int rc = read_diagonal(
            t && t->data_case == INTRINSIC_PROTO__GEOMETRY__V1__GEOMETRIC_TRANSFORM__DATA_MATRIX4D ? t->matrix4d : NULL,
            &g->scale, st);
        return rc ? rc : wk__geometry_registered(call, ref, g, uri, st);
    }
    return wk_fail(st, WK_INVALID, "geometry: the geometry holds neither a stored nor an inline shape");
}

/* Whether msg holds a set of that name. */
static bool has_set(const IntrinsicProto__World__GeometryComponent *msg, const char *name)
{
    for (size_t i = 0; msg && i < msg->n_named_geometries; i++)
        if (msg->named_geometries[i]->key && !strcmp(msg->named_geometries[i]->key, name))
            return true;
    return false;
}

bool wk__ows_geometry_is_empty(const IntrinsicProto__World__GeometryComponent *msg)
{
    if (!msg || msg->n_named_geometries != 1)
        return false;
    const IntrinsicProto__World__GeometryComponent__GeometrySet *set = msg->named_geometries[0]->value;
    return !set || (!set->n_named_geometries && !set->n_geometries);
}

uint8_t wk__ows_geometry_kind(const IntrinsicProto__World__GeometryComponent *msg)
{
    if (!msg || msg->n_named_geometries != 1)
        return 0;
    return has_set(msg, COLLISION_SET) ? WK_NODE_COLLISION : has_set(msg, VISUAL_SET) ? WK_NODE_VISUAL : 0;
}

int wk__ows_geometry_in(wk__call *call, const IntrinsicProto__World__GeometryComponent *msg,
                        wk_scene_geometry *out, const char **uri, wk_status *st)
{
    memset(out, 0, sizeof *out);
    *uri = NULL;
    const IntrinsicProto__World__GeometryComponent__GeometrySet *set = NULL;
    for (size_t i = 0; msg && i < msg->n_named_geometries && !set; i++)
        if (msg->named_geometries[i]->key && !strcmp(msg->named_geometries[i]->key, COLLISION_SET))
            set = msg->named_geometries[i]->value;
    for (size_t i = 0; msg && i < msg->n_named_geometries && !set; i++)
        if (msg->named_geometries[i]->key && !strcmp(msg->named_geometries[i]->key, VISUAL_SET))
            set = msg->named_geometries[i]->value;
    if (!set && msg && msg->n_named_geometries)
        set = msg->named_geometries[0]->value;
    if (!set)
        return wk_fail(st, WK_INVALID, "the geometry component holds no geometry");
    /* named_geometries wins over the older list, as the service says. */
    if (set->n_named_geometries)
        return read_placed(call, set->named_geometries[0]->value, out, uri, st);
    if (set->n_geometries && set->geometries[0]->geometry_storage_refs) {
        const IntrinsicProto__Geometry__GeometryStorageRefs *refs = set->geometries[0]->geometry_storage_refs;
        const char *ref = refs->geometry_ref && *refs->geometry_ref ? refs->geometry_ref : refs->renderable_ref;
        if (!ref || !*ref)
            return wk_fail(st, WK_INVALID, "geometry: the stored geometry names no reference");
        out->type = WK_GEOMETRY_MESH;
        *uri = ref;
        int rc = read_diagonal(set->geometries[0]->ref_t_shape_aff, &out->scale, st);
        return rc ? rc : wk__geometry_registered(call, ref, out, uri, st);
    }
    return wk_fail(st, WK_INVALID, "the geometry set holds no geometry");
}
