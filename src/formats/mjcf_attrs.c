/* mjcf_attrs.c — the MJCF reader's attribute values and default classes.
 *
 * Attribute values follow MuJoCo's default classes: an element's value is
 * built from the top-level defaults, then each class down to the element's
 * (its class attribute, else the nearest childclass), then the element; each
 * level overwrites what it gives (a short size overwrites only its first
 * numbers). The five orientation forms are separate attributes, so a level
 * may give one form and a deeper level another; mjcf_pose.c decides between
 * them. Keyword and boolean attributes are checked against their words here
 * too. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "formats/mjcf.h"

static const struct attr_rule {
    const char *name;
    size_t offset;
    int min, max; /* 0, 0: a string */
} attr_rules[] = {
#define ATTR_RULE(name, lo, hi) {#name, offsetof(attrs, name), lo, hi},
    NUMBER_ATTRS(ATTR_RULE) STRING_ATTRS(ATTR_RULE)
#undef ATTR_RULE
};

attrs wk__mjcf_builtin_attrs(void)
{
    return (attrs){.quat = {1, 0, 0, 0},
                   .axis = {0, 0, 1},
                   .dir = {0, 0, -1},
                   .scale = {1, 1, 1},
                   .friction = {1, 0.005, 0.0001},
                   .rgba = {0.5, 0.5, 0.5, 1}};
}

int wk__mjcf_read_level(mjcf_reader *r, xmlNodePtr level, attrs *a)
{
    uint32_t own = 0;
    for (size_t i = 0; i < COUNT(attr_rules); i++) {
        const struct attr_rule *rule = &attr_rules[i];
        xmlAttrPtr attr = xmlHasProp(level, (const xmlChar *)rule->name);
        if (!attr)
            continue;
        char *field = (char *)a + rule->offset;
        if (rule->max == 0) {
            const char *s = wk__xml_attr(r->d, level, rule->name);
            if (!s)
                return wk__mjcf_nomem(r);
            memcpy(field, &s, sizeof s);
        } else {
            /* An attribute node's content is its value. */
            int n = wk__xml_numbers((xmlNodePtr)attr, (double *)(void *)field, rule->max);
            if (n < rule->min)
                return wk__mjcf_fail(r, level, WK_PARSE, "attribute %s: expected %s%d finite number%s", rule->name,
                                     rule->min < rule->max ? "1 to " : "", rule->max, rule->max > 1 ? "s" : "");
        }
        own |= 1u << i;
    }
    uint32_t forms = own & ORIENTATION_BITS;
    if (forms & (forms - 1))
        return wk__mjcf_fail(r, level, WK_PARSE, "more than one of quat, axisangle, xyaxes, zaxis and euler");
    a->given |= own;
    return WK_OK;
}

/* Applies the levels of cls, outermost first: their children named tag. */
static int read_class(mjcf_reader *r, const mjcf_class *cls, const xmlChar *tag, attrs *a)
{
    int rc = cls && cls->parent ? read_class(r, cls->parent, tag, a) : WK_OK;
    for (xmlNodePtr c = cls ? wk__xml_first(cls->el) : NULL; rc == WK_OK && c; c = wk__xml_next(c))
        if (xmlStrEqual(c->name, tag))
            rc = wk__mjcf_read_level(r, c, a);
    return rc;
}

int wk__mjcf_read_attrs(mjcf_reader *r, xmlNodePtr el, const mjcf_class *cls, attrs *a)
{
    *a = wk__mjcf_builtin_attrs();
    /* MuJoCo's sizes default to 0.005 for a site, 0 for anything else. */
    if (xmlStrEqual(el->name, (const xmlChar *)"site"))
        a->size[0] = a->size[1] = a->size[2] = 0.005;
    int rc = read_class(r, cls, el->name, a);
    return rc ? rc : wk__mjcf_read_level(r, el, a);
}

int wk__mjcf_element_attrs(mjcf_reader *r, xmlNodePtr el, const body_ctx *b, attrs *a)
{
    const mjcf_class *cls;
    int rc = wk__mjcf_class_of(r, el, "class", b->cls, &cls);
    return rc ? rc : wk__mjcf_read_attrs(r, el, cls, a);
}

/* Finds a class by name; *out is NULL for "main" when no defaults exist. */
static bool find_class(const mjcf_reader *r, const char *name, const mjcf_class **out)
{
    *out = NULL;
    if (!strcmp(name, r->root_name)) {
        *out = r->root;
        return true;
    }
    for (const mjcf_class *c = r->classes; c; c = c->next)
        if (c->name && !strcmp(c->name, name))
            return (*out = c), true;
    return false;
}

int wk__mjcf_class_of(mjcf_reader *r, xmlNodePtr el, const char *attr, const mjcf_class *inherited,
                      const mjcf_class **out)
{
    const char *name = wk__xml_attr(r->d, el, attr);
    *out = inherited;
    if (name && !find_class(r, name, out))
        return wk__mjcf_fail(r, el, WK_PARSE, "unknown default class '%s'", name);
    return WK_OK;
}

int wk__mjcf_keyword(mjcf_reader *r, xmlNodePtr el, const char *attr, const char *value, const char *const *words,
                     int *out)
{
    if (!value)
        return WK_OK;
    for (int i = 0; words[i]; i++)
        if (!strcmp(value, words[i]))
            return (*out = i), WK_OK;
    char list[128] = "";
    for (size_t i = 0, len = 0; words[i] && len < sizeof list; i++)
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "", words[i]);
    return wk__mjcf_fail(r, el, WK_PARSE, "attribute %s must be one of %s, not '%s'", attr, list, value);
}

const char *const wk__mjcf_false_true[] = {"false", "true", NULL};

int wk__mjcf_flag(mjcf_reader *r, xmlNodePtr el, const char *attr, bool *out)
{
    int v = *out;
    int rc = wk__mjcf_keyword(r, el, attr, wk__xml_attr(r->d, el, attr), wk__mjcf_false_true, &v);
    *out = v;
    return rc;
}

/* Records a <default> and its nested classes. top: a top-level section,
 * which is the root class whatever its class attribute says; as in MuJoCo,
 * that attribute renames the root. */
static int read_default(mjcf_reader *r, xmlNodePtr el, const mjcf_class *parent, bool top)
{
    mjcf_class *c = wk__desc_alloc(r->d, sizeof *c);
    if (!c)
        return wk__mjcf_nomem(r);
    const char *name = wk__xml_attr(r->d, el, "class");
    const mjcf_class *existing;
    if (!top && !name)
        return wk__mjcf_fail(r, el, WK_PARSE, "a nested default needs a class attribute");
    if (!top && find_class(r, name, &existing))
        return wk__mjcf_fail(r, el, WK_PARSE, "default class '%s' is defined twice", name);
    *c = (mjcf_class){.name = top ? NULL : name, .parent = top ? r->root : parent, .el = el, .next = r->classes};
    r->classes = c;
    if (top) {
        r->root = c;
        r->root_name = name ? name : "main";
    }
    for (xmlNodePtr k = wk__xml_first(el); k; k = wk__xml_next(k)) {
        int rc = wk__xml_is(k, "default") ? read_default(r, k, c, false) : WK_OK;
        if (rc)
            return rc;
    }
    return WK_OK;
}

int wk__mjcf_read_default_section(mjcf_reader *r, xmlNodePtr el)
{
    return read_default(r, el, NULL, true);
}
