/* desc.c — the world description: its nodes, its arena, its warnings, and
 * the read-only accessors of wk_formats.h; finding nodes by name, chains of
 * nodes that come back on themselves, and failures naming a node. */
#include "formats/desc_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"

struct wk__chunk {
    wk__chunk *next;
    size_t used, cap;
    _Alignas(16) unsigned char bytes[];
};

wk_world_desc *wk__desc_new(wk_format format)
{
    wk_world_desc *d = calloc(1, sizeof *d);
    if (d)
        d->format = format;
    return d;
}

void wk_desc_free(wk_world_desc *d)
{
    if (!d)
        return;
    for (wk__chunk *c = d->arena, *next; c; c = next) {
        next = c->next;
        free(c);
    }
    for (size_t i = 0; i < d->warning_count; i++)
        free(d->warnings[i]);
    free(d->warnings);
    free(d->names);
    free(d->nodes);
    free(d);
}

void *wk__desc_alloc(wk_world_desc *d, size_t size)
{
    size = (size + 15) & ~(size_t)15;
    wk__chunk *c = d->arena;
    if (!c || c->cap - c->used < size) {
        size_t cap = size > 65536 ? size : 65536;
        c = malloc(sizeof *c + cap);
        if (!c)
            return NULL;
        c->used = 0;
        c->cap = cap;
        c->next = d->arena;
        d->arena = c;
    }
    void *p = c->bytes + c->used;
    c->used += size;
    return p;
}

const char *wk__desc_strdup(wk_world_desc *d, const char *s)
{
    if (!s)
        return NULL;
    size_t n = strlen(s) + 1;
    char *copy = wk__desc_alloc(d, n);
    if (copy)
        memcpy(copy, s, n);
    return copy;
}

bool wk__desc_gives_up(wk_world_desc *d)
{
    if (!d->gave_up && d->over && d->over(d->over_ctx))
        d->gave_up = true;
    return d->gave_up;
}

void wk_desc_set_over(wk_world_desc *d, bool (*over)(void *ctx), void *ctx)
{
    d->over = over;
    d->over_ctx = ctx;
}

uint32_t wk__desc_add(wk_world_desc *d, wk_node_kind kind, uint32_t parent, const char *name, const char *file,
                      uint32_t line)
{
    if (wk__desc_gives_up(d))
        return WK_NO_NODE;
    if (WK__GROW(d->nodes, d->cap, d->count + 1))
        return WK_NO_NODE;
    const char *copy = wk__desc_strdup(d, name ? name : "");
    if (!copy)
        return WK_NO_NODE;
    uint32_t i = (uint32_t)d->count++;
    d->nodes[i] = (wk_node){
        .kind = kind,
        .name = copy,
        .parent = parent,
        .first_child = WK_NO_NODE,
        .next_sibling = WK_NO_NODE,
        .last_child = WK_NO_NODE,
        .file = file,
        .line = line,
        .pose = wk_pose_identity(),
        .relative_node = WK_NO_NODE,
        .world = wk_pose_identity(),
    };
    if (kind == WK_NODE_WORLD) {
        d->nodes[i].settings.max_step_size = 0.001;
        d->nodes[i].settings.real_time_factor = 1;
        d->nodes[i].settings.gravity = (wk_vec3){0, 0, -9.8};
    }
    if (parent != WK_NO_NODE) {
        wk_node *p = &d->nodes[parent];
        if (p->last_child == WK_NO_NODE)
            p->first_child = i;
        else
            d->nodes[p->last_child].next_sibling = i;
        p->last_child = i;
    }
    return i;
}

int wk__desc_warn(wk_world_desc *d, const char *fmt, ...)
{
    if (WK__GROW(d->warnings, d->warning_cap, d->warning_count + 1))
        return WK_NOMEM;
    char buf[WK_STATUS_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    char *copy = strdup(buf);
    if (!copy)
        return WK_NOMEM;
    d->warnings[d->warning_count++] = copy;
    return WK_OK;
}

wk_format wk_desc_format(const wk_world_desc *d)
{
    return d->format;
}

size_t wk_desc_node_count(const wk_world_desc *d)
{
    return d->count;
}

const wk_node *wk_desc_node(const wk_world_desc *d, uint32_t index)
{
    return index < d->count ? &d->nodes[index] : NULL;
}

size_t wk_desc_warning_count(const wk_world_desc *d)
{
    return d->warning_count;
}

const char *wk_desc_warning(const wk_world_desc *d, size_t i)
{
    return i < d->warning_count ? d->warnings[i] : NULL;
}

size_t wk_desc_scoped_name(const wk_world_desc *d, uint32_t index, char *buf, size_t cap)
{
    /* Ancestors below the world, outermost first. */
    uint32_t chain[64];
    size_t depth = 0;
    for (uint32_t i = index; i != WK_NO_NODE && i != 0 && depth < 64; i = d->nodes[i].parent)
        chain[depth++] = i;
    if (depth == 0)
        return (size_t)snprintf(buf, cap, "%s", d->nodes[0].name);
    size_t len = 0;
    for (size_t k = depth; k-- > 0;) {
        int n = snprintf(buf ? buf + (len < cap ? len : cap) : NULL, len < cap ? cap - len : 0, "%s%s",
                         k + 1 < depth ? "::" : "", d->nodes[chain[k]].name);
        len += (size_t)(n > 0 ? n : 0);
    }
    return len;
}

static int by_parent_and_name(const void *a, const void *b)
{
    const wk__desc_name *x = a, *y = b;
    if (x->parent != y->parent)
        return x->parent < y->parent ? -1 : 1;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->node > y->node) - (x->node < y->node);
}

int wk__desc_index(wk_world_desc *d)
{
    free(d->names);
    d->name_count = 0;
    d->names = malloc((d->count ? d->count : 1) * sizeof *d->names);
    if (!d->names)
        return WK_NOMEM;
    for (uint32_t i = 0; i < d->count; i++)
        if (d->nodes[i].parent != WK_NO_NODE)
            d->names[d->name_count++] = (wk__desc_name){d->nodes[i].name, d->nodes[i].parent, i};
    qsort(d->names, d->name_count, sizeof *d->names, by_parent_and_name);
    return WK_OK;
}

/* How an index entry compares with the key (scope, the len bytes of name). */
static int compare_key(const wk__desc_name *e, uint32_t scope, const char *name, size_t len)
{
    if (e->parent != scope)
        return e->parent < scope ? -1 : 1;
    int c = strncmp(e->name, name, len);
    return c ? c : e->name[len] != '\0';
}

uint32_t wk__desc_child(const wk_world_desc *d, uint32_t scope, const char *name, size_t len,
                        bool (*accepts)(wk_node_kind))
{
    size_t lo = 0, hi = d->name_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (compare_key(&d->names[mid], scope, name, len) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    /* Names a scope holds twice (SDFormat allows it before 1.7) follow in
     * document order. */
    for (; lo < d->name_count && compare_key(&d->names[lo], scope, name, len) == 0; lo++)
        if (accepts(d->nodes[d->names[lo].node].kind))
            return d->names[lo].node;
    return WK_NO_NODE;
}

static bool is_model(wk_node_kind kind)
{
    return kind == WK_NODE_MODEL;
}

uint32_t wk__desc_find(const wk_world_desc *d, uint32_t scope, const char *name, bool (*accepts)(wk_node_kind))
{
    const char *sep;
    while (scope != WK_NO_NODE && (sep = strstr(name, "::"))) {
        scope = wk__desc_child(d, scope, name, (size_t)(sep - name), is_model);
        name = sep + 2;
    }
    return scope == WK_NO_NODE ? WK_NO_NODE : wk__desc_child(d, scope, name, strlen(name), accepts);
}

int wk__desc_find_cycle(const wk_world_desc *d, uint32_t (*next)(const wk_world_desc *d, uint32_t node, void *ctx),
                        void *ctx, uint32_t *on_cycle)
{
    /* seen[n] is the number of the walk that first met node n, so that each
     * node is walked over once: meeting the current walk again is a cycle,
     * meeting an earlier one is a known way out. */
    uint32_t *seen = calloc(d->count ? d->count : 1, sizeof *seen);
    if (!seen)
        return WK_NOMEM;
    *on_cycle = WK_NO_NODE;
    for (uint32_t walk = 1; walk <= d->count && *on_cycle == WK_NO_NODE; walk++) {
        uint32_t n = walk - 1;
        while (n != WK_NO_NODE && !seen[n]) {
            seen[n] = walk;
            n = next(d, n, ctx);
        }
        if (n != WK_NO_NODE && seen[n] == walk)
            *on_cycle = n;
    }
    free(seen);
    return WK_OK;
}

int wk__desc_fail(const wk_world_desc *d, uint32_t node, wk_status *st, const char *fmt, ...)
{
    char scoped[256], msg[WK_STATUS_MSG_MAX];
    const wk_node *n = &d->nodes[node];
    wk_desc_scoped_name(d, node, scoped, sizeof scoped);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return wk_fail(st, WK_PARSE, "%s:%u: %s %s: %s", n->file ? n->file : "<string>", n->line,
                   wk_node_kind_name(n->kind), scoped, msg);
}
