/* desc_internal.h — building a world description, shared by the readers
 * and the pose resolver of src/formats. */
#ifndef WK_DESC_INTERNAL_H
#define WK_DESC_INTERNAL_H

#include "worldkit/wk_formats.h"

typedef struct wk__chunk wk__chunk;

struct wk_world_desc {
    wk_format format;
    wk_node *nodes;
    size_t count, cap;
    wk__chunk *arena; /* strings and arrays the nodes point to */
    char **warnings;
    size_t warning_count, warning_cap;
};

wk_world_desc *wk__desc_new(wk_format format);
/* Appends a node under parent (WK_NO_NODE for the root) and returns its
 * index, or WK_NO_NODE when out of memory. Node pointers move when nodes are
 * added: hold indices across calls. */
uint32_t wk__desc_add(wk_world_desc *d, wk_node_kind kind, uint32_t parent, const char *name, const char *file,
                      uint32_t line);
static inline wk_node *wk__desc_at(wk_world_desc *d, uint32_t i) { return &d->nodes[i]; }
/* Arena memory, freed with the description; NULL when out of memory. */
void *wk__desc_alloc(wk_world_desc *d, size_t size);
/* A copy of s in the arena; NULL for NULL s or out of memory. */
const char *wk__desc_strdup(wk_world_desc *d, const char *s);
int wk__desc_warn(wk_world_desc *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Computes every node's world pose. WK_PARSE for an unknown frame or a cycle
 * of frames, naming the node. */
int wk__desc_resolve(wk_world_desc *d, wk_status *st);

/* The readers: each fills d from a parsed document (path NULL for a string). */
typedef struct _xmlDoc *wk__xml_doc;
int wk__sdf_read(wk_world_desc *d, const wk_read_desc *opts, const char *path, wk__xml_doc doc, wk_status *st);
int wk__urdf_read(wk_world_desc *d, const wk_read_desc *opts, const char *path, wk__xml_doc doc, wk_status *st);
int wk__mjcf_read(wk_world_desc *d, const wk_read_desc *opts, const char *path, wk__xml_doc doc, wk_status *st);

#endif
