/* sdf.h — what the files of the SDFormat reader share: the reader's state,
 * the rules that name the children an element may hold, and the steps every
 * element's reading uses (errors, version checks, numbers, poses, plugins).
 * sdf.c reads worlds, models, frames and includes, sdf_link.c links and
 * joints and what they hold, sdf_common.c the shared steps. Private to those
 * files. */
#ifndef WK_FORMATS_SDF_H
#define WK_FORMATS_SDF_H

#include "formats/xml.h"

#include "base/hash_index.h"

/* The files a read's <include>s name, each parsed once however often it
 * is included: 200 includes of one nested model parsed it 200 times (18 s,
 * 350 MB). Read again from the same tree, a file yields the same nodes:
 * reading changes a tree only where it unflattens SDFormat 1.7 models,
 * which finds nothing more to do the second time. */
typedef struct sdf_included {
    const char *path; /* the file, in the arena */
    xmlDocPtr doc;
} sdf_included;

typedef struct sdf_includes {
    sdf_included *files;
    size_t count, cap;
    wk__index by_path; /* the path's hash -> index in files + 1 */
} sdf_includes;

typedef struct sdf_reader {
    wk_world_desc *d;
    const wk_read_desc *opts;
    wk_status *st;
    const char *file; /* in the arena; NULL for a string */
    int minor;        /* 1.minor */
    int include_depth;
    sdf_includes *includes; /* the read's, shared by the readers of included files */
} sdf_reader;

typedef int (*child_fn)(sdf_reader *r, xmlNodePtr el, uint32_t node);

/* A child an element may hold; a table of them ends with a NULL name. */
typedef struct child_rule {
    const char *name;
    child_fn read; /* NULL: accepted silently: appearance, or what matters only to what is reported elsewhere */
} child_rule;

/* A NULL-terminated list of names, for wk__sdf_check_children. */
#define NAMES(...) ((const char *const[]){__VA_ARGS__, NULL})

/* ---- sdf_common.c: errors and checks ------------------------------------ */

/* Fails with code and a message naming el's file:line and tag. */
int wk__sdf_fail(sdf_reader *r, xmlNodePtr el, int code, const char *what);
int wk__sdf_nomem(sdf_reader *r);
/* Reports el (or its attribute attr) as unsupported: a warning, or
 * WK_UNSUPPORTED_ELEMENTS when the caller asked to fail on them. */
int wk__sdf_unsupported(sdf_reader *r, xmlNodePtr el, const char *attr);
/* True when the specification defines child in parent's kind of element,
 * but not in the file's version. */
bool wk__sdf_child_outside_version(const sdf_reader *r, xmlNodePtr parent, const char *child);
/* el's attribute name when present and the file's version defines it
 * (wk__sdf_check_attrs reports it otherwise); NULL else. */
const char *wk__sdf_version_attr(sdf_reader *r, xmlNodePtr el, const char *name);
/* Reads el's children by the rules; anything else is unsupported. */
int wk__sdf_read_children(sdf_reader *r, xmlNodePtr el, uint32_t node, const child_rule *rules);
/* Reports each child of el that known does not name or that the file's
 * version does not define. */
int wk__sdf_check_children(sdf_reader *r, xmlNodePtr el, const char *const *known);
/* Reports each attribute of el that the file's version does not define
 * for its kind of element. Every element read checks its own, once. */
int wk__sdf_check_attrs(sdf_reader *r, xmlNodePtr el);

/* ---- sdf_common.c: values and elements every kind holds ----------------- */

int wk__sdf_numbers(sdf_reader *r, xmlNodePtr el, double *out, int want);
int wk__sdf_read_double(sdf_reader *r, xmlNodePtr el, double *out);
/* A joint limit: a double, or an infinity (inf, -inf) for no limit. */
int wk__sdf_read_bound(sdf_reader *r, xmlNodePtr el, double *out);
/* A double that has no meaning below zero (a mass, an inertia's diagonal, a
 * friction): a negative one fails naming el. */
int wk__sdf_read_nonnegative(sdf_reader *r, xmlNodePtr el, double *out);
int wk__sdf_read_vec3(sdf_reader *r, xmlNodePtr el, wk_vec3 *out);
int wk__sdf_read_bool(sdf_reader *r, xmlNodePtr el, bool *out);
/* <pose> into node's pose and relative_to. */
int wk__sdf_read_pose(sdf_reader *r, xmlNodePtr el, uint32_t node);
/* Adds a child node for el, named by its @name (required). */
int wk__sdf_add_named(sdf_reader *r, xmlNodePtr el, uint32_t parent, wk_node_kind kind, uint32_t *out);
/* <plugin>: kept whole on node. */
int wk__sdf_read_plugin(sdf_reader *r, xmlNodePtr el, uint32_t node);

/* ---- sdf_unflatten.c ----------------------------------------------------- */

/* Rewrites the flattened models of SDFormat 1.7 in model's children into
 * nested models, as libsdformat reads them (files older than 1.8 only). */
int wk__sdf_unflatten(sdf_reader *r, xmlNodePtr model);

/* ---- sdf_link.c: links, joints, lights ---------------------------------- */

int wk__sdf_read_link(sdf_reader *r, xmlNodePtr el, uint32_t model);
int wk__sdf_read_joint(sdf_reader *r, xmlNodePtr el, uint32_t model);
int wk__sdf_read_light(sdf_reader *r, xmlNodePtr el, uint32_t parent);

#endif
