/* desc_internal.h — building a world description, shared by the readers
 * and the pose resolver of src/formats. */
#ifndef WK_DESC_INTERNAL_H
#define WK_DESC_INTERNAL_H

#include "worldkit/wk_formats.h"

typedef struct wk__chunk wk__chunk;

/* A node in the description's name index: the index is the nodes sorted by
 * parent, then name, then document order. */
typedef struct wk__desc_name {
    const char *name;
    uint32_t parent, node;
} wk__desc_name;

struct wk_world_desc {
    wk_format format;
    wk_node *nodes;
    size_t count, cap;
    wk__desc_name *names; /* every node but the root, once read (wk__desc_index) */
    size_t name_count;
    wk__chunk *arena; /* strings and arrays the nodes point to */
    char **warnings;
    size_t warning_count, warning_cap;
    bool (*over)(void *ctx); /* wk_read_desc's, asked while read and instantiated (wk__desc_gives_up) */
    void *over_ctx;
    bool gave_up; /* over said so: the read fails with WK_DEADLINE */
};

wk_world_desc *wk__desc_new(wk_format format);
/* Asks d's over (when it has one) unless it said so already: true, and
 * d->gave_up set, when the work on d is to stop at the call's deadline. */
bool wk__desc_gives_up(wk_world_desc *d);
/* Appends a node under parent (WK_NO_NODE for the root) and returns its
 * index, or WK_NO_NODE when out of memory or when the read is to give up
 * (d->gave_up set: the read then fails with WK_DEADLINE). Node pointers move when nodes are
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
/* Refuses joints a scene cannot hold (joints.c): WK_PARSE naming the joint. */
int wk__desc_check_joints(wk_world_desc *d, wk_status *st);

/* Indexes every node by its parent and name, once the reader is done (and
 * before the poses are resolved): a lookup then costs a binary search, not
 * a scan of the scope's children, which made a chain of N joints or
 * attached frames take N^2 / 2 string compares (50k joints: 20 s). WK_OK or
 * WK_NOMEM. */
int wk__desc_index(wk_world_desc *d);
/* The first child of scope, in document order, named by the len bytes of
 * name and of a kind that accepts, or WK_NO_NODE; through the index. */
uint32_t wk__desc_child(const wk_world_desc *d, uint32_t scope, const char *name, size_t len,
                        bool (*accepts)(wk_node_kind));
/* The node named name (`a::b` going down nested models) among scope's
 * children of a kind that accepts, or WK_NO_NODE; through the index. */
uint32_t wk__desc_find(const wk_world_desc *d, uint32_t scope, const char *name, bool (*accepts)(wk_node_kind));
/* Follows next from every node (WK_NO_NODE ends a chain) and sets *on_cycle
 * to a node of the first chain that comes back on itself, or WK_NO_NODE;
 * each node is visited once. WK_OK or WK_NOMEM. */
int wk__desc_find_cycle(const wk_world_desc *d, uint32_t (*next)(const wk_world_desc *d, uint32_t node, void *ctx),
                        void *ctx, uint32_t *on_cycle);
/* Fails with WK_PARSE, the message (printf-style) after the node's file,
 * line, kind and scoped name: "w.sdf:7: joint m::j: ...". */
int wk__desc_fail(const wk_world_desc *d, uint32_t node, wk_status *st, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The readers: each fills d from a parsed document (path NULL for a string). */
typedef struct _xmlDoc *wk__xml_doc;
int wk__sdf_read(wk_world_desc *d, const wk_read_desc *opts, const char *path, wk__xml_doc doc, wk_status *st);
int wk__urdf_read(wk_world_desc *d, const wk_read_desc *opts, const char *path, wk__xml_doc doc, wk_status *st);
int wk__mjcf_read(wk_world_desc *d, const wk_read_desc *opts, const char *path, wk__xml_doc doc, wk_status *st);

#endif
