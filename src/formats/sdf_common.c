/* sdf_common.c — the steps every part of the SDFormat reader uses: errors
 * naming file:line and element, unsupported elements and attributes (what
 * worldkit does not read, and what the file's version does not define, by
 * the table of sdf_spec_table.c), numbers, booleans, poses, named nodes and
 * plugins. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/sdf.h"
#include "formats/sdf_spec.h"

static const char *where(const sdf_reader *r)
{
    return r->file ? r->file : "<string>";
}

int wk__sdf_fail(sdf_reader *r, xmlNodePtr el, int code, const char *what)
{
    return wk_fail(r->st, code, "%s:%u: <%s>: %s", where(r), wk__xml_line(el), (const char *)el->name, what);
}

int wk__sdf_nomem(sdf_reader *r)
{
    return wk_fail(r->st, WK_NOMEM, "out of memory reading %s", where(r));
}

/* Reports an element or attribute worldkit does not read. */
int wk__sdf_unsupported(sdf_reader *r, xmlNodePtr el, const char *attr)
{
    return wk__xml_unsupported(r->d, r->opts, r->file, el, attr, r->st);
}

static uint32_t fnv1a(uint32_t h, const char *s)
{
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

/* The versions (bit n: 1.(4 + n)) that define child in an element named
 * parent, child being an attribute's name when attr (its key "@name"); 0
 * when none does. */
static unsigned spec_versions(const char *parent, const char *child, bool attr)
{
    uint32_t h = fnv1a(2166136261u, parent) * 16777619u; /* and the 0 byte between */
    h = fnv1a(attr ? (h ^ '@') * 16777619u : h, child);
    for (uint32_t k = h % WK_SDF_SPEC_SLOTS; wk__sdf_spec_slots[k]; k = (k + 1) % WK_SDF_SPEC_SLOTS) {
        const wk__sdf_spec_entry *e = &wk__sdf_spec[wk__sdf_spec_slots[k] - 1];
        const char *name = attr ? (e->child[0] == '@' ? e->child + 1 : NULL) : e->child;
        if (name && !strcmp(name, child) && !strcmp(e->parent, parent))
            return e->versions;
    }
    return 0;
}

static unsigned version_bit(const sdf_reader *r)
{
    return 1u << (r->minor - WK_SDF_SPEC_FIRST_MINOR);
}

/* What the specification defines, but not in the file's version, is
 * unsupported: reported and ignored as that version's reader would. What no
 * version defines is left to the rules of the element holding it. */
bool wk__sdf_child_outside_version(const sdf_reader *r, xmlNodePtr parent, const char *child)
{
    unsigned versions = spec_versions((const char *)parent->name, child, false);
    return versions && !(versions & version_bit(r));
}

static bool attr_in_version(const sdf_reader *r, xmlNodePtr el, const char *name)
{
    return spec_versions((const char *)el->name, name, true) & version_bit(r);
}

const char *wk__sdf_version_attr(sdf_reader *r, xmlNodePtr el, const char *name)
{
    return attr_in_version(r, el, name) ? wk__xml_attr(r->d, el, name) : NULL;
}

/* Reads el's children by the rules; anything else is unsupported. */
int wk__sdf_read_children(sdf_reader *r, xmlNodePtr el, uint32_t node, const child_rule *rules)
{
    for (xmlNodePtr c = wk__xml_first(el); c; c = wk__xml_next(c)) {
        const child_rule *rule = rules;
        while (rule->name && !wk__xml_is(c, rule->name))
            rule++;
        int rc = !rule->name || wk__sdf_child_outside_version(r, el, rule->name) ? wk__sdf_unsupported(r, c, NULL)
                 : rule->read ? rule->read(r, c, node)
                              : WK_OK;
        if (rc)
            return rc;
    }
    return WK_OK;
}

/* Reports each child of el that known (NULL-terminated) does not name or
 * that the file's version does not define. */
int wk__sdf_check_children(sdf_reader *r, xmlNodePtr el, const char *const *known)
{
    int rc = WK_OK;
    for (xmlNodePtr c = wk__xml_first(el); rc == WK_OK && c; c = wk__xml_next(c)) {
        const char *const *k = known;
        while (*k && !wk__xml_is(c, *k))
            k++;
        if (!*k || wk__sdf_child_outside_version(r, el, *k))
            rc = wk__sdf_unsupported(r, c, NULL);
    }
    return rc;
}

/* Reports each attribute of el that the file's version does not define
 * for its kind of element (namespaced ones, which no version defines,
 * included). */
int wk__sdf_check_attrs(sdf_reader *r, xmlNodePtr el)
{
    for (xmlAttrPtr a = el->properties; a; a = a->next) {
        int rc = a->ns || !attr_in_version(r, el, (const char *)a->name)
                     ? wk__sdf_unsupported(r, el, (const char *)a->name)
                     : WK_OK;
        if (rc)
            return rc;
    }
    return WK_OK;
}

int wk__sdf_numbers(sdf_reader *r, xmlNodePtr el, double *out, int want)
{
    if (wk__xml_numbers(el, out, want) != want) {
        char what[64];
        snprintf(what, sizeof what, "expected %d finite number%s", want, want > 1 ? "s" : "");
        return wk__sdf_fail(r, el, WK_PARSE, what);
    }
    return WK_OK;
}

int wk__sdf_read_double(sdf_reader *r, xmlNodePtr el, double *out)
{
    return wk__sdf_numbers(r, el, out, 1);
}

int wk__sdf_read_bound(sdf_reader *r, xmlNodePtr el, double *out)
{
    return wk__xml_bound(el, out) ? WK_OK
                                  : wk__sdf_fail(r, el, WK_PARSE, "expected a number, inf or -inf");
}

int wk__sdf_read_nonnegative(sdf_reader *r, xmlNodePtr el, double *out)
{
    double v;
    int rc = wk__sdf_numbers(r, el, &v, 1);
    if (rc == WK_OK && v < 0) {
        char what[64];
        snprintf(what, sizeof what, "%g is negative", v);
        return wk__sdf_fail(r, el, WK_PARSE, what);
    }
    if (rc == WK_OK)
        *out = v;
    return rc;
}

int wk__sdf_read_vec3(sdf_reader *r, xmlNodePtr el, wk_vec3 *out)
{
    double v[3];
    int rc = wk__sdf_numbers(r, el, v, 3);
    if (rc == WK_OK)
        *out = (wk_vec3){v[0], v[1], v[2]};
    return rc;
}

int wk__sdf_read_bool(sdf_reader *r, xmlNodePtr el, bool *out)
{
    const char *t = wk__xml_text(r->d, el);
    if (!t)
        return wk__sdf_nomem(r);
    if (!strcmp(t, "true") || !strcmp(t, "1"))
        *out = true;
    else if (!strcmp(t, "false") || !strcmp(t, "0"))
        *out = false;
    else
        return wk__sdf_fail(r, el, WK_PARSE, "expected true, false, 1 or 0");
    return WK_OK;
}

/* <pose> with @relative_to (@frame in 1.5 and 1.6), @degrees and
 * @rotation_format: six numbers x y z roll pitch yaw, or seven x y z qx qy qz qw. */
int wk__sdf_read_pose(sdf_reader *r, xmlNodePtr el, uint32_t node)
{
    int rc = wk__sdf_check_attrs(r, el);
    if (rc)
        return rc;
    const char *format = wk__sdf_version_attr(r, el, "rotation_format");
    const char *degrees = wk__sdf_version_attr(r, el, "degrees");
    /* @frame (1.5 and 1.6) became @relative_to in 1.7. */
    const char *rel = wk__sdf_version_attr(r, el, "relative_to");
    const char *frame = wk__sdf_version_attr(r, el, "frame");
    bool quat = format && !strcmp(format, "quat_xyzw");
    if (format && !quat && strcmp(format, "euler_rpy"))
        return wk__sdf_fail(r, el, WK_PARSE, "rotation_format must be euler_rpy or quat_xyzw");
    double v[7] = {0};
    int n = wk__xml_numbers(el, v, 7);
    if (n != 0 && n != (quat ? 7 : 6))
        return wk__sdf_fail(r, el, WK_PARSE,
                            quat ? "expected 7 numbers: x y z qx qy qz qw"
                                 : "expected 6 numbers: x y z roll pitch yaw");
    wk_pose pose = {{v[0], v[1], v[2]}, wk_quat_identity()};
    if (quat && n) {
        if (wk_quat_normalize((wk_quat){v[6], v[3], v[4], v[5]}, &pose.q))
            return wk__sdf_fail(r, el, WK_PARSE, "the quaternion is zero");
    } else if (n) {
        double k = degrees && !strcmp(degrees, "true") ? acos(-1.0) / 180.0 : 1.0;
        pose.q = wk_quat_from_rpy(v[3] * k, v[4] * k, v[5] * k);
    }
    rel = rel ? rel : frame;
    wk_node *nd = wk__desc_at(r->d, node);
    nd->pose = pose;
    nd->relative_to = rel && rel[0] ? rel : NULL;
    return WK_OK;
}

/* Adds a child node for el, named by its @name (required). */
int wk__sdf_add_named(sdf_reader *r, xmlNodePtr el, uint32_t parent, wk_node_kind kind, uint32_t *out)
{
    /* The gz::sim plugin's levels and performers are no SDFormat elements:
     * the specification's table knows nothing of their attributes. */
    int rc = kind == WK_NODE_LEVEL || kind == WK_NODE_PERFORMER ? WK_OK : wk__sdf_check_attrs(r, el);
    if (rc)
        return rc;
    const char *name = wk__xml_attr(r->d, el, "name");
    if (!name || !name[0])
        return wk__sdf_fail(r, el, WK_PARSE, "missing the name attribute");
    *out = wk__desc_add(r->d, kind, parent, name, r->file, wk__xml_line(el));
    return *out == WK_NO_NODE ? wk__sdf_nomem(r) : WK_OK;
}

/* <plugin>: kept whole on its node, for the systems that will load it. */
int wk__sdf_read_plugin(sdf_reader *r, xmlNodePtr el, uint32_t node)
{
    int rc = wk__sdf_check_attrs(r, el);
    if (rc)
        return rc;
    wk_plugin p = {wk__xml_attr(r->d, el, "name"), wk__xml_attr(r->d, el, "filename"), wk__xml_dump(r->d, el)};
    const wk_node *n = wk__desc_at(r->d, node);
    wk_plugin *list = wk__desc_alloc(r->d, (n->plugin_count + 1) * sizeof *list);
    if (!p.xml || !list)
        return wk__sdf_nomem(r);
    for (size_t i = 0; i < n->plugin_count; i++)
        list[i] = n->plugins[i];
    list[n->plugin_count] = p;
    wk_node *m = wk__desc_at(r->d, node);
    m->plugins = list;
    m->plugin_count++;
    return WK_OK;
}
