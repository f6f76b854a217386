/* sdf_unflatten.c — nested models out of the flattened ones of SDFormat 1.7.
 *
 * Tools of the SDFormat 1.7 era wrote an included model into its parent
 * model flattened: the included model's links, joints, frames and nested
 * models sit in the parent with names scoped by the included model's name
 * (`inner::hub`), and a frame `inner::__model__`, attached to its canonical
 * link, stands for its model frame. libsdformat reads such files as the
 * nested models they came from (its conversion of 1.7 files to 1.8), and
 * so does worldkit: before a model of a file older than 1.8 is read, the
 * elements of each scope `P::` move into a new nested model P, their names
 * and the names they refer to in that scope losing the prefix, and the
 * frame `P::__model__` gives P its pose and canonical link. References from
 * outside (`P::hub`) are left as written: they name the frame in the nested
 * model now. */
#include <string.h>

#include "formats/sdf.h"

/* The kinds of element a flattened model scopes by name. */
static bool scoped_kind(xmlNodePtr el)
{
    return wk__xml_is(el, "link") || wk__xml_is(el, "joint") || wk__xml_is(el, "frame") || wk__xml_is(el, "model");
}

/* Drops prefix from the front of value, written back by set. */
typedef int (*set_fn)(xmlNodePtr el, const char *name, const char *value);

static int set_attr(xmlNodePtr el, const char *name, const char *value)
{
    return xmlSetProp(el, (const xmlChar *)name, (const xmlChar *)value) ? WK_OK : WK_NOMEM;
}

static int set_text(xmlNodePtr el, const char *name, const char *value)
{
    (void)name;
    xmlNodeSetContent(el, NULL);
    xmlNodeAddContent(el, (const xmlChar *)value);
    return WK_OK;
}

/* When what (an attribute of el, or with set_text, el's text) starts with
 * prefix, writes it back without it; *stripped (when not NULL) tells. */
static int strip(sdf_reader *r, xmlNodePtr el, const char *attr, const char *prefix, set_fn set, bool *stripped)
{
    const char *value = !el ? NULL : attr ? wk__xml_attr(r->d, el, attr) : wk__xml_text(r->d, el);
    size_t n = strlen(prefix);
    bool has = value && !strncmp(value, prefix, n);
    if (stripped)
        *stripped = has;
    int rc = has ? set(el, attr, value + n) : WK_OK;
    return rc == WK_NOMEM ? wk__sdf_nomem(r) : rc;
}

static int strip_pose(sdf_reader *r, xmlNodePtr el, const char *prefix)
{
    return strip(r, wk__xml_child(el, "pose"), "relative_to", prefix, set_attr, NULL);
}

/* What refers to frames inside a moved element, beside its own pose: a
 * link's visuals, collisions, sensors and lights, and a joint's parent,
 * child, axes and sensors. */
static int strip_inside(sdf_reader *r, xmlNodePtr el, const char *prefix)
{
    int rc = WK_OK;
    if (wk__xml_is(el, "joint")) {
        rc = strip(r, wk__xml_child(el, "parent"), NULL, prefix, set_text, NULL);
        if (rc == WK_OK)
            rc = strip(r, wk__xml_child(el, "child"), NULL, prefix, set_text, NULL);
        for (xmlNodePtr axis = wk__xml_first(el); rc == WK_OK && axis; axis = wk__xml_next(axis))
            if (wk__xml_is(axis, "axis") || wk__xml_is(axis, "axis2"))
                rc = strip(r, wk__xml_child(axis, "xyz"), "expressed_in", prefix, set_attr, NULL);
    }
    if (wk__xml_is(el, "joint") || wk__xml_is(el, "link"))
        for (xmlNodePtr c = wk__xml_first(el); rc == WK_OK && c; c = wk__xml_next(c))
            rc = strip_pose(r, c, prefix);
    return rc;
}

/* Moves el into model, dropping prefix from its name and its references;
 * the frame prefix__model__ becomes model's pose and canonical link. */
static int move_into(sdf_reader *r, xmlNodePtr el, xmlNodePtr model, const char *prefix)
{
    int rc = strip(r, el, "name", prefix, set_attr, NULL);
    if (rc == WK_OK)
        rc = strip_pose(r, el, prefix);
    if (rc == WK_OK)
        rc = strip_inside(r, el, prefix);
    if (rc == WK_OK && wk__xml_is(el, "frame"))
        rc = strip(r, el, "attached_to", prefix, set_attr, NULL);
    const char *name = rc ? NULL : wk__xml_attr(r->d, el, "name");
    if (rc || !name)
        return rc ? rc : wk__sdf_nomem(r);
    xmlUnlinkNode(el);
    if (!wk__xml_is(el, "frame") || strcmp(name, "__model__")) {
        xmlAddChild(model, el);
        return WK_OK;
    }
    const char *canonical = wk__xml_attr(r->d, el, "attached_to");
    xmlNodePtr pose = wk__xml_child(el, "pose");
    model->line = el->line;
    if (canonical && canonical[0] && set_attr(model, "canonical_link", canonical))
        rc = wk__sdf_nomem(r);
    if (pose) {
        xmlUnlinkNode(pose);
        xmlAddChild(model, pose);
    }
    xmlFreeNode(el);
    return rc;
}

/* Moves every element of the scope prefix (`P::`) under model into a new
 * nested model named scope (P), wherever they are among model's children. */
static int unflatten_scope(sdf_reader *r, xmlNodePtr model, const char *scope, const char *prefix, uint16_t line)
{
    xmlNodePtr nested = xmlNewNode(NULL, (const xmlChar *)"model");
    if (!nested || set_attr(nested, "name", scope)) {
        xmlFreeNode(nested);
        return wk__sdf_nomem(r);
    }
    nested->line = line;
    int rc = WK_OK;
    for (xmlNodePtr c = wk__xml_first(model), next; rc == WK_OK && c; c = next) {
        next = wk__xml_next(c);
        const char *name = scoped_kind(c) ? wk__xml_attr(r->d, c, "name") : NULL;
        if (name && !strncmp(name, prefix, strlen(prefix)))
            rc = move_into(r, c, nested, prefix);
    }
    xmlAddChild(model, nested);
    return rc;
}

int wk__sdf_unflatten(sdf_reader *r, xmlNodePtr model)
{
    for (xmlNodePtr el = wk__xml_first(model); el;) {
        const char *name = scoped_kind(el) ? wk__xml_attr(r->d, el, "name") : NULL;
        const char *sep = name ? strstr(name, "::") : NULL;
        if (!sep) {
            el = wk__xml_next(el);
            continue;
        }
        if (sep - name > WK_NAME_MAX)
            return wk__sdf_fail(r, el, WK_PARSE, "a scoped name whose scope is longer than a name may be");
        char scope[WK_NAME_MAX + 1], prefix[WK_NAME_MAX + 3];
        snprintf(scope, sizeof scope, "%.*s", (int)(sep - name), name);
        snprintf(prefix, sizeof prefix, "%s::", scope);
        int rc = unflatten_scope(r, model, scope, prefix, el->line);
        if (rc)
            return rc;
        el = wk__xml_first(model); /* el has moved: look again from the start */
    }
    return WK_OK;
}
