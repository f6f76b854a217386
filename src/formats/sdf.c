/* sdf.c — the SDFormat reader (versions 1.4 to 1.11) into a description:
 * worlds, models, frames and includes here, links and joints in
 * sdf_link.c, the steps they share in sdf_common.c.
 *
 * One function per element kind reads the element's attributes and the
 * children it understands, by a table per kind. The table also accepts,
 * silently, what is appearance alone (a world's <scene> and <gui>, a
 * visual's material), which a server that renders nothing has no use for.
 * Any other child, even one the specification defines (<wind>, <audio>, a
 * link's <gravity>, a collision's <surface>), changes the world and is not
 * kept, so it is reported as an unsupported element: a warning, or
 * WK_UNSUPPORTED_ELEMENTS when the caller asked to fail on them. What the
 * file's version does not define is unsupported too: sdf_spec_table.c,
 * generated from the specification's description files, says which
 * versions define each element and attribute. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "formats/assets.h"
#include "formats/sdf.h"

/* ---- frames, models, includes ------------------------------------------ */

static const child_rule frame_rules[] = {{"pose", wk__sdf_read_pose}, {NULL, NULL}};

static int read_frame(sdf_reader *r, xmlNodePtr el, uint32_t scope)
{
    uint32_t node;
    int rc = wk__sdf_add_named(r, el, scope, WK_NODE_FRAME, &node);
    if (rc)
        return rc;
    const char *attached = wk__sdf_version_attr(r, el, "attached_to");
    wk__desc_at(r->d, node)->frame.attached_to = attached && attached[0] ? attached : NULL;
    return wk__sdf_read_children(r, el, node, frame_rules);
}

static int read_static(sdf_reader *r, xmlNodePtr el, uint32_t node)
{
    return wk__sdf_read_bool(r, el, &wk__desc_at(r->d, node)->model.is_static);
}

static int read_self_collide(sdf_reader *r, xmlNodePtr el, uint32_t node)
{
    return wk__sdf_read_bool(r, el, &wk__desc_at(r->d, node)->model.self_collide);
}

static int read_model(sdf_reader *r, xmlNodePtr el, uint32_t parent);
static int read_include(sdf_reader *r, xmlNodePtr el, uint32_t parent);

static const child_rule model_rules[] = {
    {"pose", wk__sdf_read_pose},     {"static", read_static},       {"self_collide", read_self_collide},
    {"link", wk__sdf_read_link},     {"joint", wk__sdf_read_joint}, {"frame", read_frame},
    {"model", read_model},           {"include", read_include},     {"plugin", wk__sdf_read_plugin},
    {NULL, NULL},
};

/* Reads a <model> under parent; *out (when not NULL) gets its node. */
static int read_model_as(sdf_reader *r, xmlNodePtr el, uint32_t parent, uint32_t *out)
{
    uint32_t node;
    int rc = wk__sdf_add_named(r, el, parent, WK_NODE_MODEL, &node);
    if (rc)
        return rc;
    wk_node *m = wk__desc_at(r->d, node);
    m->model.canonical_link = wk__sdf_version_attr(r, el, "canonical_link");
    m->model.placement_frame = wk__sdf_version_attr(r, el, "placement_frame");
    if (out)
        *out = node;
    rc = r->minor < 8 ? wk__sdf_unflatten(r, el) : WK_OK;
    return rc ? rc : wk__sdf_read_children(r, el, node, model_rules);
}

static int read_model(sdf_reader *r, xmlNodePtr el, uint32_t parent)
{
    return read_model_as(r, el, parent, NULL);
}

static int read_sdf_version(sdf_reader *r, xmlNodePtr root);

/* Checks an <include>'s children: what it may hold in the file's version. */
static int check_include(sdf_reader *r, xmlNodePtr el)
{
    int rc = wk__sdf_check_attrs(r, el);
    if (rc == WK_OK)
        rc = wk__sdf_check_children(r, el,
                                    NAMES("uri", "name", "pose", "static", "placement_frame", "plugin"));
    return rc;
}

/* Replaces a relative_to or attached_to naming the merged model's own
 * frame, or left to default to it, by the frame that stands in for it. */
static const char *merged_frame(const char *name, const char *proxy)
{
    return !name || !strcmp(name, "__model__") ? proxy : name;
}

/* Checks that a model merged into a world (SDFormat 1.10) holds no link, as
 * the specification asks. */
static int check_world_merge(sdf_reader *r, xmlNodePtr el, const wk_node *m)
{
    if (r->minor < 10)
        return wk__sdf_unsupported(r, el, "merge");
    for (uint32_t c = m->first_child; c != WK_NO_NODE; c = wk__desc_at(r->d, c)->next_sibling)
        if (wk__desc_at(r->d, c)->kind == WK_NODE_LINK)
            return wk__sdf_fail(r, el, WK_PARSE, "a model merged into a world may hold no link");
    return WK_OK;
}

/* Folds an included model into its parent model, or from SDFormat 1.10 its
 * world (include merge="true"): the model's node becomes the frame
 * _merged__<name>__model__, attached to the model's canonical link (in a
 * world, where it holds no link, to its first nested model, whose canonical
 * link is the model's) and placed where the model was, and its children
 * become the parent's, their references to the model frame redirected to
 * that frame. */
static int merge_model(sdf_reader *r, xmlNodePtr el, uint32_t node)
{
    wk_world_desc *d = r->d;
    wk_node *m = wk__desc_at(d, node);
    uint32_t parent = m->parent;
    bool in_world = wk__desc_at(d, parent)->kind == WK_NODE_WORLD;
    int rc = in_world ? check_world_merge(r, el, m) : WK_OK;
    if (rc)
        return rc;
    if (m->model.placement_frame)
        return wk__sdf_unsupported(r, el, "merge");
    const char *canonical = m->model.canonical_link;
    wk_node_kind canonical_kind = in_world ? WK_NODE_MODEL : WK_NODE_LINK;
    for (uint32_t c = m->first_child; !canonical && c != WK_NO_NODE; c = wk__desc_at(d, c)->next_sibling)
        if (wk__desc_at(d, c)->kind == canonical_kind)
            canonical = wk__desc_at(d, c)->name;
    char proxy_name[256];
    snprintf(proxy_name, sizeof proxy_name, "_merged__%s__model__", m->name);
    const char *proxy = wk__desc_strdup(d, proxy_name);
    if (!proxy)
        return wk__sdf_nomem(r);
    for (uint32_t c = m->first_child; c != WK_NO_NODE; c = wk__desc_at(d, c)->next_sibling) {
        wk_node *n = wk__desc_at(d, c);
        n->parent = parent;
        bool framed = n->kind == WK_NODE_FRAME && n->frame.attached_to && strcmp(n->frame.attached_to, "__model__");
        if (n->kind != WK_NODE_JOINT && !framed)
            n->relative_to = merged_frame(n->relative_to, proxy);
        else if (n->relative_to && !strcmp(n->relative_to, "__model__"))
            n->relative_to = proxy;
        if (n->kind == WK_NODE_FRAME)
            n->frame.attached_to = merged_frame(n->frame.attached_to, proxy);
        if (n->kind == WK_NODE_JOINT)
            n->joint.parent = !strcmp(n->joint.parent, "__model__") ? proxy : n->joint.parent;
    }
    /* The children join the parent's list after the model node itself. */
    wk_node *p = wk__desc_at(d, parent);
    if (m->first_child != WK_NO_NODE) {
        wk__desc_at(d, m->last_child)->next_sibling = m->next_sibling;
        if (p->last_child == node)
            p->last_child = m->last_child;
        m->next_sibling = m->first_child;
    }
    /* Not left empty: a frame's pose would then be relative to its attached_to. */
    const char *relative_to = m->relative_to ? m->relative_to : in_world ? "world" : "__model__";
    m->kind = WK_NODE_FRAME;
    m->name = proxy;
    m->first_child = m->last_child = WK_NO_NODE;
    m->relative_to = relative_to;
    m->frame.attached_to = canonical;
    return WK_OK;
}

/* The parsed tree of an included file, from the read's includes, parsed
 * and kept there at its first include; NULL when it does not parse (r->st
 * says why). */
static xmlDocPtr included_doc(sdf_reader *r, const char *path)
{
    sdf_includes *in = r->includes;
    uint64_t hash = wk__hash(path, strlen(path), 0);
    size_t cursor = 0;
    for (uint64_t v; (v = wk__index_next(&in->by_path, hash, &cursor));)
        if (!strcmp(in->files[v - 1].path, path))
            return in->files[v - 1].doc;
    if (WK__GROW(in->files, in->cap, in->count + 1)) {
        wk__sdf_nomem(r);
        return NULL;
    }
    xmlDocPtr doc = wk__xml_parse(path, NULL, r->d, r->st);
    if (!doc)
        return NULL;
    if (wk__index_add(&in->by_path, hash, in->count + 1)) {
        xmlFreeDoc(doc);
        wk__sdf_nomem(r);
        return NULL;
    }
    in->files[in->count++] = (sdf_included){.path = path, .doc = doc};
    return doc;
}

static void free_includes(sdf_includes *in)
{
    for (size_t i = 0; i < in->count; i++)
        xmlFreeDoc(in->files[i].doc);
    free(in->files);
    wk__index_free(&in->by_path);
}

/* <include>: reads the model file the uri names and places it under parent,
 * with the include's name, pose, static and placement_frame overriding the
 * file's, or merges it into parent (merge="true"). */
static int read_include(sdf_reader *r, xmlNodePtr el, uint32_t parent)
{
    if (r->include_depth >= 16)
        return wk__sdf_fail(r, el, WK_PARSE, "includes nest deeper than 16 levels");
    int rc = check_include(r, el);
    const char *merge = rc ? NULL : wk__sdf_version_attr(r, el, "merge");
    if (rc)
        return rc;
    const char *uri = wk__xml_text(r->d, wk__xml_child(el, "uri"));
    if (!uri || !uri[0])
        return wk__sdf_fail(r, el, WK_PARSE, "needs a <uri>");
    const char *path = NULL;
    rc = wk__model_resolve(r->d, r->opts, r->file, uri, wk__xml_line(el), &path, r->st);
    if (rc || !path)
        return rc; /* missing and ignored: a warning is recorded */
    xmlDocPtr doc = included_doc(r, path);
    if (!doc)
        return r->st->code;
    sdf_reader inner = *r;
    inner.file = path;
    inner.include_depth++;
    xmlNodePtr root = xmlDocGetRootElement(doc);
    xmlNodePtr model = wk__xml_child(root, "model");
    uint32_t node = WK_NO_NODE;
    rc = !wk__xml_is(root, "sdf") || !model
             ? wk__sdf_fail(&inner, root, WK_PARSE, "an included file must hold an <sdf><model>")
             : read_sdf_version(&inner, root);
    if (rc == WK_OK)
        rc = read_model_as(&inner, model, parent, &node);
    if (rc == WK_OK) {
        wk_node *m = wk__desc_at(r->d, node);
        const char *name = wk__xml_text(r->d, wk__xml_child(el, "name"));
        const char *placement = wk__xml_text(r->d, wk__xml_child(el, "placement_frame"));
        if (name && name[0])
            m->name = name;
        if (placement && placement[0])
            m->model.placement_frame = placement;
        xmlNodePtr c;
        if ((c = wk__xml_child(el, "pose")))
            rc = wk__sdf_read_pose(r, c, node);
        else
            wk__desc_at(r->d, node)->relative_to = NULL; /* the file's pose is relative to its own world */
        if (rc == WK_OK && (c = wk__xml_child(el, "static")))
            rc = read_static(r, c, node);
        for (c = wk__xml_first(el); rc == WK_OK && c; c = wk__xml_next(c))
            if (wk__xml_is(c, "plugin"))
                rc = wk__sdf_read_plugin(r, c, node);
    }
    if (rc == WK_OK && merge && (!strcmp(merge, "true") || !strcmp(merge, "1")))
        rc = merge_model(r, el, node);
    return rc;
}

/* ---- worlds, levels and performers ------------------------------------- */

static int read_box_size(sdf_reader *r, xmlNodePtr el, wk_vec3 *size)
{
    xmlNodePtr box = wk__xml_child(wk__xml_child(el, "geometry"), "box");
    xmlNodePtr s = wk__xml_child(box, "size");
    if (!s)
        return wk__sdf_fail(r, el, WK_PARSE, "needs <geometry><box><size>");
    return wk__sdf_read_vec3(r, s, size);
}

/* The level and performer elements of the gz::sim plugin (seed 003). */
static int read_region(sdf_reader *r, xmlNodePtr el, uint32_t world, wk_node_kind kind)
{
    uint32_t node;
    int rc = wk__sdf_add_named(r, el, world, kind, &node);
    if (rc == WK_OK)
        rc = read_box_size(r, el, &wk__desc_at(r->d, node)->region.size);
    size_t n = 0;
    for (xmlNodePtr c = wk__xml_first(el); c; c = wk__xml_next(c))
        n += wk__xml_is(c, "ref");
    if (rc == WK_OK && (kind == WK_NODE_PERFORMER ? n != 1 : n == 0))
        return wk__sdf_fail(r, el, WK_PARSE,
                            kind == WK_NODE_PERFORMER ? "needs exactly one <ref>" : "needs at least one <ref>");
    const char **refs = wk__desc_alloc(r->d, (n ? n : 1) * sizeof *refs);
    if (!refs)
        return wk__sdf_nomem(r);
    size_t k = 0;
    for (xmlNodePtr c = wk__xml_first(el); rc == WK_OK && c; c = wk__xml_next(c)) {
        if (wk__xml_is(c, "ref") && !(refs[k++] = wk__xml_text(r->d, c)))
            rc = wk__sdf_nomem(r);
        else if (wk__xml_is(c, "pose"))
            rc = wk__sdf_read_pose(r, c, node);
        else if (wk__xml_is(c, "buffer"))
            rc = wk__sdf_read_double(r, c, &wk__desc_at(r->d, node)->region.buffer);
        else if (!wk__xml_is(c, "ref") && !wk__xml_is(c, "geometry"))
            rc = wk__sdf_unsupported(r, c, NULL);
    }
    if (rc == WK_OK) {
        wk_node *nd = wk__desc_at(r->d, node);
        nd->region.refs = refs;
        nd->region.ref_count = k;
        if (kind == WK_NODE_LEVEL)
            nd->pose.q = wk_quat_identity(); /* a level's orientation is ignored */
    }
    return rc;
}

static int read_world_plugin(sdf_reader *r, xmlNodePtr el, uint32_t world)
{
    int rc = wk__sdf_read_plugin(r, el, world);
    if (rc)
        return rc;
    const char *name = wk__xml_attr(r->d, el, "name");
    bool sim = name && (!strcmp(name, "gz::sim") || !strcmp(name, "ignition::gazebo"));
    for (xmlNodePtr c = sim ? wk__xml_first(el) : NULL; c; c = wk__xml_next(c)) {
        int rc = wk__xml_is(c, "level")       ? read_region(r, c, world, WK_NODE_LEVEL)
                 : wk__xml_is(c, "performer") ? read_region(r, c, world, WK_NODE_PERFORMER)
                                              : WK_OK;
        if (rc)
            return rc;
    }
    return WK_OK;
}

/* An <actor> is kept as its pose: its skin, animations and script are not
 * played, so they are reported. */
static int read_actor(sdf_reader *r, xmlNodePtr el, uint32_t world)
{
    static const child_rule actor_rules[] = {{"pose", wk__sdf_read_pose}, {NULL, NULL}};
    uint32_t node;
    int rc = wk__sdf_add_named(r, el, world, WK_NODE_ACTOR, &node);
    return rc ? rc : wk__sdf_read_children(r, el, node, actor_rules);
}

/* <physics>: the default profile (or the first one) gives the step size
 * and real-time factor; before 1.5 it also held the gravity. Its engine's
 * settings (ode, bullet...), update rate and contact cap are not kept:
 * reported. The other profiles are not used, so not looked at. */
static int read_physics(sdf_reader *r, xmlNodePtr el, uint32_t world)
{
    const char *is_default = wk__xml_attr(r->d, el, "default");
    bool chosen_before = false;
    for (xmlNodePtr p = wk__xml_first(el->parent); p && p != el; p = wk__xml_next(p))
        chosen_before |= wk__xml_is(p, "physics");
    if (chosen_before && !(is_default && (!strcmp(is_default, "true") || !strcmp(is_default, "1"))))
        return WK_OK;
    xmlNodePtr c;
    int rc = wk__sdf_check_attrs(r, el);
    if (rc == WK_OK)
        rc = wk__sdf_check_children(r, el, NAMES("max_step_size", "real_time_factor", "gravity"));
    if (rc == WK_OK && (c = wk__xml_child(el, "max_step_size")))
        rc = wk__sdf_read_double(r, c, &wk__desc_at(r->d, world)->settings.max_step_size);
    if (rc == WK_OK && (c = wk__xml_child(el, "real_time_factor")))
        rc = wk__sdf_read_double(r, c, &wk__desc_at(r->d, world)->settings.real_time_factor);
    if (rc == WK_OK && (c = wk__xml_child(el, "gravity")) && !wk__sdf_child_outside_version(r, el, "gravity"))
        rc = wk__sdf_read_vec3(r, c, &wk__desc_at(r->d, world)->settings.gravity);
    if (rc == WK_OK && !(wk__desc_at(r->d, world)->settings.max_step_size > 0))
        return wk__sdf_fail(r, el, WK_PARSE, "max_step_size must be positive");
    double rtf = wk__desc_at(r->d, world)->settings.real_time_factor;
    if (rc == WK_OK && !wk_rtf_valid(rtf)) {
        char what[128];
        snprintf(what, sizeof what, "real_time_factor %g is neither 0 (as fast as possible) nor from %g to %g", rtf,
                 WK_RTF_MIN, WK_RTF_MAX);
        return wk__sdf_fail(r, el, WK_PARSE, what);
    }
    return rc;
}

static int read_gravity(sdf_reader *r, xmlNodePtr el, uint32_t world)
{
    return wk__sdf_read_vec3(r, el, &wk__desc_at(r->d, world)->settings.gravity);
}

static int read_magnetic_field(sdf_reader *r, xmlNodePtr el, uint32_t world)
{
    return wk__sdf_read_vec3(r, el, &wk__desc_at(r->d, world)->settings.magnetic_field);
}

/* <spherical_coordinates>: where the world's origin is on the planet. Its
 * world_frame_orientation and custom surface axes are not kept: reported. */
static int read_spherical(sdf_reader *r, xmlNodePtr el, uint32_t world)
{
    static const char *const names[] = {"latitude_deg", "longitude_deg", "elevation", "heading_deg"};
    double values[4] = {0};
    int rc = wk__sdf_check_children(
        r, el, NAMES("surface_model", "latitude_deg", "longitude_deg", "elevation", "heading_deg"));
    for (int i = 0; rc == WK_OK && i < 4; i++) {
        xmlNodePtr c = wk__xml_child(el, names[i]);
        if (c)
            rc = wk__sdf_read_double(r, c, &values[i]);
    }
    const char *surface = wk__xml_text(r->d, wk__xml_child(el, "surface_model"));
    if (rc == WK_OK) {
        wk_node *w = wk__desc_at(r->d, world);
        w->settings.spherical.present = true;
        w->settings.spherical.surface_model = surface ? surface : "EARTH_WGS84";
        w->settings.spherical.latitude_deg = values[0];
        w->settings.spherical.longitude_deg = values[1];
        w->settings.spherical.elevation = values[2];
        w->settings.spherical.heading_deg = values[3];
    }
    return rc;
}

static const child_rule world_rules[] = {
    {"model", read_model},     {"include", read_include},     {"frame", read_frame},
    {"joint", wk__sdf_read_joint},
    {"light", wk__sdf_read_light},     {"actor", read_actor},         {"plugin", read_world_plugin},
    {"physics", read_physics}, {"gravity", read_gravity},     {"magnetic_field", read_magnetic_field},
    {"spherical_coordinates", read_spherical}, {"scene", NULL}, {"gui", NULL},
    {NULL, NULL},
};

static int read_sdf_version(sdf_reader *r, xmlNodePtr root)
{
    const char *version = wk__xml_attr(r->d, root, "version");
    int major = 0, minor = -1;
    if (!version)
        return wk__sdf_fail(r, root, WK_PARSE, "needs a version attribute such as \"1.9\"");
    if (sscanf(version, "%d.%d", &major, &minor) != 2) {
        char what[96];
        snprintf(what, sizeof what, "version \"%.32s\" is not MAJOR.MINOR, such as \"1.9\"", version);
        return wk__sdf_fail(r, root, WK_PARSE, what);
    }
    if (major != 1 || minor < 4 || minor > 11)
        return wk__sdf_fail(r, root, WK_UNSUPPORTED_FORMAT, "worldkit reads SDFormat versions 1.4 to 1.11");
    r->minor = minor;
    return WK_OK;
}

int wk__sdf_read(wk_world_desc *d, const wk_read_desc *opts, const char *path, xmlDocPtr doc, wk_status *st)
{
    sdf_includes includes = {0};
    sdf_reader r = {.d = d, .opts = opts, .st = st, .file = wk__desc_strdup(d, path), .includes = &includes};
    xmlNodePtr root = xmlDocGetRootElement(doc);
    int rc = read_sdf_version(&r, root);
    xmlNodePtr world = rc ? NULL : wk__xml_child(root, "world");
    xmlNodePtr model = rc ? NULL : wk__xml_child(root, "model");
    if (rc == WK_OK && !world && !model)
        rc = wk__sdf_fail(&r, root, WK_PARSE, "holds neither a <world> nor a <model>");
    const char *name = world ? wk__xml_attr(d, world, "name") : "default";
    uint32_t line = wk__xml_line(world ? world : root);
    uint32_t w = rc ? WK_NO_NODE : wk__desc_add(d, WK_NODE_WORLD, WK_NO_NODE, name, r.file, line);
    if (rc == WK_OK && w == WK_NO_NODE)
        rc = wk__sdf_nomem(&r);
    if (rc == WK_OK && world)
        rc = wk__sdf_check_attrs(&r, world);
    if (rc == WK_OK)
        rc = world ? wk__sdf_read_children(&r, world, w, world_rules) : read_model(&r, model, w);
    free_includes(&includes);
    return rc;
}
