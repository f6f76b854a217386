/* ecm_internal.h — the ECM's data structures, shared by the files of src/ecs.
 *
 * Storage: every entity lives in exactly one archetype table, the one for its
 * set of component types (the root table has no types). A table keeps one
 * column per type: a plain array of values plus a parallel array of change
 * states. An entity's record, found by its slot index in segmented arrays, says
 * which table and row hold it. Adding or removing a component moves the row
 * to the neighbouring table, found through cached edges. A type registered
 * as sparse lives outside the tables instead, in a sparse set of its own
 * (sparse.c), so adding or removing it leaves the entity's row in place.
 *
 * Step tracking: entities created, touched (any component added, changed or
 * removed, or re-parented), marked for removal or destroyed during the step
 * are kept in lists, deduplicated by record flags, so that end of step and
 * the changed-state serializer cost O(changes), not O(entities).
 *
 * Transactions (txn.c): while one is open, every primitive mutation below
 * first records in ecm->txn what undoes it, so a rollback costs O(changes). */
#ifndef WK_ECM_INTERNAL_H
#define WK_ECM_INTERNAL_H

#include "base/bits.h"
#include "base/mem.h"
#include "worldkit/wk_ecm.h"

#include <string.h>

/* The records are one array indexed by slot, in address space reserved for
 * every slot an id can name (32 GB, see wk__mem_reserve): it takes memory
 * only where slots were used, so a lookup is one bounds check and one load
 * however sparse the ids, and a record never moves. Slots are also grouped
 * in segments, segment k = floor(log2 i) holding slots 2^k to 2^(k+1) - 1:
 * the range of slots used in each is what clone and diff walk and a freed
 * ECM clears, and the parent/child links are allocated a segment at a
 * time. */
#define WK__SEGMENTS 32

enum wk__record_flag {
    WK__ALIVE = 1u << 0,
    WK__NEW = 1u << 1,     /* created this step */
    WK__TOUCHED = 1u << 2, /* in ecm->touched this step */
    WK__MARKED = 1u << 3,  /* marked for removal */
    WK__DOOMED = 1u << 4,  /* to be removed by the state being applied */
};

/* An entity's record is 8 bytes, not 16, so that the records a random
 * lookup misses in take half the cache and memory. The price is narrow
 * fields: a slot whose generation reaches WK__GEN_MAX is retired, never
 * reused, so that a stale id still never aliases (a slot is 8 bytes lost
 * per 2,048 entities created in it); and an ECM holds at most
 * WK__TABLE_MAX archetype tables. */
#define WK__GEN_BITS 11
#define WK__GEN_MAX ((1u << WK__GEN_BITS) - 1)
#define WK__TABLE_MAX 65536u

/* Lists of at most this many types are remembered by create_with. */
#define WK__LAST_KIND_MAX 8

typedef struct wk__record {
    uint32_t row;
    uint16_t table;
    uint16_t gen : WK__GEN_BITS;
    uint16_t flags : 5;
} wk__record;
_Static_assert(sizeof(wk__record) == 8, "a record is one 8-byte word");

/* Parent/child links by slot index; 0 is "none" since slot 0 is never used. */
typedef struct wk__link {
    uint32_t parent;
    uint32_t first_child;
    uint32_t last_child;
    uint32_t next;
    uint32_t prev;
} wk__link;

typedef struct wk__column {
    uint8_t *data;   /* size * cap bytes; NULL for tag types */
    uint8_t *change; /* a wk_change per row */
    size_t size;
    size_t align;
    uint32_t data_cap; /* rows each array has room for */
    uint32_t change_cap;
} wk__column;

typedef struct wk__table {
    uint32_t id;
    uint32_t type_count;
    wk_type *types;       /* ascending */
    wk__column *columns;  /* parallel to types */
    uint32_t slot_count;  /* column_of covers type ids below this */
    wk_entity *entities;  /* row -> id */
    uint32_t entities_cap;
    uint32_t count;
    uint32_t cap;         /* rows every array has room for */
    uint32_t *add_edge;    /* type id -> destination table id + 1; 0 unknown */
    uint32_t *remove_edge;
    uint32_t edge_len;
    bool destroys; /* some column's type has a destroy hook */
    bool copies;   /* some column's type has a copy hook */
    int32_t column_of[]; /* type id -> column, or -1 */
} wk__table;

/* A sparse type's components: dense arrays of owners, values and change
 * states, and a map from slot index to dense position + 1, 0 meaning
 * absent. The map is one flat array (huge pages once big), not segments
 * like the records: a lookup is one load, with no page of its own to miss
 * in the TLB. */
typedef struct wk__sparse {
    uint32_t *map;
    uint32_t map_len; /* slots covered */
    wk_entity *entities;
    uint8_t *data; /* size bytes per position; NULL for tag types */
    uint8_t *change;
    uint32_t count;
    uint32_t cap;
    size_t size;
    size_t align;
} wk__sparse;

typedef struct wk__type_info {
    wk_type_desc desc; /* desc.name owned */
    bool in_use;
    bool plain; /* no hooks: memcpy/memcmp/raw bytes */
    wk__sparse *sparse; /* NULL: the type lives in the tables */
    /* Table id -> that table's values of this type (NULL where it has none,
     * or the type is a tag), for every table id below ecm->table_cap: a copy
     * of the column's data pointer, so that wk_ecm_get finds a value with
     * one load after the entity's record, and no bounds check. */
    uint8_t **values;
} wk__type_info;

typedef struct wk__removed_component {
    wk_entity entity;
    wk_type type;
} wk__removed_component;

typedef enum wk__deferred_op { WK__OP_SET, WK__OP_REMOVE, WK__OP_DESTROY } wk__deferred_op;

typedef struct wk__deferred {
    wk__deferred_op op;
    wk_entity entity;
    wk_type type;
    bool recursive;
    void *value; /* WK__OP_SET: owned copy, in its own allocation */
} wk__deferred;

#define WK__VEC(T)      \
    struct {            \
        T *items;       \
        size_t count;   \
        size_t cap;     \
    }

typedef WK__VEC(wk_entity) wk__entity_vec;

typedef struct wk__txn wk__txn;

struct wk_ecm {
    wk__type_info *types; /* index = type id; slot 0 unused */
    uint32_t type_count;  /* ids in use are 1..type_count */
    WK__VEC(wk_type) sparse_types; /* ascending */

    wk__table **tables; /* index = table id; 0 is the root table */
    uint32_t table_count;
    uint32_t table_cap;
    uint32_t *table_index; /* open addressing: table id + 1, 0 empty */
    uint32_t table_index_cap;

    wk__record *records;  /* slot index -> record, below slot_limit */
    uint64_t slot_limit;  /* 2^32, every slot, unless the reservation was cut */
    wk__link *link_segments[WK__SEGMENTS]; /* allocated on first use of the graph */
    uint32_t used_lo[WK__SEGMENTS];        /* offsets of the slots ever used in a segment; */
    uint32_t used_hi[WK__SEGMENTS];        /* used_hi 0 when none */
    bool links_used;
    uint32_t next_index;  /* next never-used slot */
    uint32_t min_index;   /* create offset */
    WK__VEC(uint32_t) free_slots;
    size_t alive;

    wk__entity_vec created; /* created this step */
    wk__entity_vec touched;
    /* The lengths at which wk__step_lists_trim next trims created and
     * touched: twice what the last trim left, plus 64. */
    size_t created_trim_at, touched_trim_at;
    /* False once an entity is freed: the list may hold its id. */
    bool created_live, touched_live;
    wk__entity_vec marked;
    wk__entity_vec destroyed; /* destroyed this step, not by end of step */
    WK__VEC(wk__removed_component) removed_components;

    /* The types wk_ecm_create_with was last given, checked, and their table:
     * creating entity after entity of one kind finds the table with one
     * compare, not a walk through the add edges with every type checked. */
    struct {
        wk__table *table; /* NULL until the first create */
        uint32_t n;
        wk_type types[WK__LAST_KIND_MAX];
    } last_kind;

    WK__VEC(wk_query *) queries;
    int iter_depth;
    WK__VEC(wk__deferred) deferred;

    wk__txn *txn;     /* the open transaction, or NULL */
    uint64_t version; /* wk_ecm_version */
    /* Moves whenever a component's cell may have moved or changed owner
     * (wk__layout_moved): the places found before are stale (place.c).
     * Each ECM starts its count far from every other's, so that a place
     * of a freed ECM never matches one made at its address. */
    uint64_t layout;

    wk_status err;
};

struct wk_query {
    wk_ecm *ecm;
    wk_type with[WK_QUERY_MAX_TERMS];
    wk_type without[WK_QUERY_MAX_TERMS];
    uint32_t with_count;
    uint32_t without_count;
    /* Matching tables, each followed by with_count column indices (of the
     * table types; sparse terms are tested entity by entity). */
    WK__VEC(uint32_t) cache;
    bool sparse_terms;  /* some term is a sparse type */
    wk_type driver;     /* no `with` type is a table's: the set iterated */
    bool contiguous;    /* every `with` type's values lie in the iterated arrays */
};

/* Grows a WK__VEC to hold one more item; 0 or WK_NOMEM. Its items are a
 * large array (base/mem.h): the step's lists reach a few bytes an entity,
 * and so get pages a freed ECM's lists had faulted in. */
int wk__vec_grow(void **items, size_t *cap, size_t count, size_t item_size);
#define WK__VEC_FREE(ecm_vec) wk__mem_free((ecm_vec).items, (ecm_vec).cap * sizeof *(ecm_vec).items)
#define WK__VEC_PUSH(ecm_vec, value)                                                              \
    ((ecm_vec).count < (ecm_vec).cap ||                                                           \
             wk__vec_grow((void **)&(ecm_vec).items, &(ecm_vec).cap, (ecm_vec).count,             \
                          sizeof *(ecm_vec).items) == 0                                           \
         ? ((ecm_vec).items[(ecm_vec).count++] = (value), 0)                                      \
         : WK_NOMEM)

/* Where a new ECM's storage count starts (ecm.c). */
uint64_t wk__layout_start(void);
static inline void wk__layout_moved(wk_ecm *ecm)
{
    ecm->layout++;
}

/* Reserves the address space of ecm->records: 0 or WK_NOMEM. */
int wk__records_reserve(wk_ecm *ecm);
/* Records a failure message on the ECM and returns code. */
int wk__ecm_fail(const wk_ecm *ecm, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* After a table lookup gave NULL: WK_RANGE when the ECM has all the tables
 * it can hold, else WK_NOMEM with this message. */
int wk__no_table(const wk_ecm *ecm, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static inline uint32_t wk__index(wk_entity e) { return (uint32_t)e; }
static inline uint32_t wk__gen(wk_entity e) { return (uint32_t)(e >> 32); }
static inline wk_entity wk__id(uint32_t index, uint32_t gen) { return ((uint64_t)gen << 32) | index; }

static inline uint32_t wk__segment(uint32_t index)
{
    return wk__log2(index);
}
static inline size_t wk__segment_len(uint32_t k) { return (size_t)1 << k; }

/* The record of a slot, live or not (index below ecm->slot_limit). */
static inline wk__record *wk__slot(const wk_ecm *ecm, uint32_t index)
{
    return &ecm->records[index];
}

/* The record of slot index, or NULL past the slots the ECM can hold. */
static inline wk__record *wk__slot_or_null(const wk_ecm *ecm, uint32_t index)
{
    return index < ecm->slot_limit ? wk__slot(ecm, index) : NULL;
}

/* The record of a live entity, or NULL for a stale or unknown id (slot 0
 * is never alive). */
static inline wk__record *wk__record_of(const wk_ecm *ecm, wk_entity e)
{
    uint32_t index = wk__index(e);
    if (index >= ecm->slot_limit)
        return NULL;
    wk__record *r = wk__slot(ecm, index);
    /* Bit-fields fill their unit from the low bits up, so the record's last
     * 16 bits hold the generation and then WK__ALIVE: one compare of those
     * 12 bits tests both. A generation past WK__GEN_MAX in e makes a sum
     * no record holds. */
    uint16_t last;
    memcpy(&last, (const uint8_t *)r + 6, sizeof last);
    return (last & 0xfff) == (uint64_t)wk__gen(e) + (WK__ALIVE << WK__GEN_BITS) ? r : NULL;
}

static inline int32_t wk__column_index(const wk__table *t, wk_type type)
{
    return type < t->slot_count ? t->column_of[type] : -1;
}

/* Copies one value of size bytes. The sizes components usually have get
 * fixed-size copies the compiler turns into a few moves; a call to memcpy
 * would cost more than the copy, and table moves do several per row. */
static inline void wk__copy_value(void *restrict dst, const void *restrict src, size_t size)
{
    /* Inlined (with LTO) where src is a caller's object of known size, GCC
     * would warn about the cases for other sizes, which never run there;
     * the empty asm hides where src points, at no cost. */
    __asm__("" : "+r"(src));
    switch (size) {
    case 4:
        memcpy(dst, src, 4);
        break;
    case 8:
        memcpy(dst, src, 8);
        break;
    case 12:
        memcpy(dst, src, 12);
        break;
    case 16:
        memcpy(dst, src, 16);
        break;
    case 24:
        memcpy(dst, src, 24);
        break;
    case 32:
        memcpy(dst, src, 32);
        break;
    case 48:
        memcpy(dst, src, 48);
        break;
    case 56:
        memcpy(dst, src, 56);
        break;
    case 64:
        memcpy(dst, src, 64);
        break;
    default:
        memcpy(dst, src, size);
    }
}

/* Whether two values of size bytes hold the same bytes: as with
 * wk__copy_value, the usual sizes compare in a few instructions, with no
 * call. */
static inline bool wk__same_bytes(const void *a, const void *b, size_t size)
{
    switch (size) {
    case 8:
        return memcmp(a, b, 8) == 0;
    case 16:
        return memcmp(a, b, 16) == 0;
    case 24:
        return memcmp(a, b, 24) == 0;
    case 32:
        return memcmp(a, b, 32) == 0;
    case 48:
        return memcmp(a, b, 48) == 0;
    case 56:
        return memcmp(a, b, 56) == 0;
    default:
        return memcmp(a, b, size) == 0;
    }
}

/* Writes value's size bytes into cell, or zeros when value is NULL. */
static inline void wk__fill_value(void *restrict cell, const void *restrict value, size_t size)
{
    if (value)
        wk__copy_value(cell, value, size);
    else
        memset(cell, 0, size);
}

static inline void *wk__cell(const wk__table *t, int32_t column, uint32_t row)
{
    const wk__column *c = &t->columns[column];
    return c->data ? c->data + (size_t)row * c->size : NULL;
}

/* sparse.c */
/* The dense position + 1 of slot index in s, 0 when absent. */
static inline uint32_t wk__sparse_find(const wk__sparse *s, uint32_t index)
{
    return index < s->map_len ? s->map[index] : 0;
}
/* The same for any type: 0 for a table type. */
static inline uint32_t wk__sparse_pos(const wk_ecm *ecm, wk_type type, uint32_t index)
{
    const wk__sparse *s = ecm->types[type].sparse;
    return s ? wk__sparse_find(s, index) : 0;
}
static inline void *wk__sparse_cell(const wk__sparse *s, uint32_t pos)
{
    return s->data ? s->data + (size_t)pos * s->size : NULL;
}
/* Puts e at position pos with the bytes at value (zeros when NULL). */
static inline void wk__sparse_place(wk__sparse *s, uint32_t pos, wk_entity e, const void *value, uint8_t change)
{
    s->entities[pos] = e;
    s->change[pos] = change;
    if (s->size)
        wk__fill_value(s->data + (size_t)pos * s->size, value, s->size);
    s->map[wk__index(e)] = pos + 1;
}
/* Appends e (room reserved) with the bytes at value, or zeros, and a
 * one-time change. */
static inline void wk__sparse_append(wk__sparse *s, wk_entity e, const void *value)
{
    wk__sparse_place(s, s->count++, e, value, WK_ONE_TIME_CHANGE);
}
/* Removes e (a member), moving the last member into its place. Its value
 * is destroyed, or, when removed is not NULL, its bytes are moved there. */
static inline void wk__sparse_remove(const wk_ecm *ecm, wk_type type, wk_entity e, void *removed)
{
    wk__sparse *s = ecm->types[type].sparse;
    uint32_t *slot = &s->map[wk__index(e)];
    uint32_t pos = *slot - 1, last = --s->count;
    void *cell = wk__sparse_cell(s, pos);
    void (*destroy)(void *) = ecm->types[type].desc.hooks.destroy;
    if (removed && cell)
        wk__copy_value(removed, cell, s->size);
    else if (destroy && cell)
        destroy(cell);
    *slot = 0;
    if (pos != last)
        wk__sparse_place(s, pos, s->entities[last], wk__sparse_cell(s, last), s->change[last]);
}
/* Finds the entity's component of type, in a table or a sparse set: true,
 * with its value (NULL for a tag) in *cell and its change state in *change. */
static inline bool wk__component_at(const wk_ecm *ecm, const wk__record *r, wk_entity e, wk_type type, void **cell,
                                    uint8_t **change)
{
    wk__sparse *s = ecm->types[type].sparse;
    if (s) {
        uint32_t pos = wk__sparse_find(s, wk__index(e));
        if (!pos)
            return false;
        *cell = wk__sparse_cell(s, pos - 1);
        *change = &s->change[pos - 1];
        return true;
    }
    const wk__table *t = ecm->tables[r->table];
    int32_t c = wk__column_index(t, type);
    if (c < 0)
        return false;
    *cell = wk__cell(t, c, r->row);
    *change = &t->columns[c].change[r->row];
    return true;
}
wk__sparse *wk__sparse_new(size_t size, size_t align);
void wk__sparse_free(const wk_ecm *ecm, wk_type type, wk__sparse *s);
/* A deep copy (values through the share or copy hook), or NULL. */
wk__sparse *wk__sparse_clone(const wk_ecm *ecm, wk_type type, const wk__sparse *s);
/* Makes room for one more member, and in the map for index; 0 or WK_NOMEM. */
int wk__sparse_reserve(wk__sparse *s, uint32_t index);
/* True when p points into s's values. */
bool wk__sparse_holds(const wk__sparse *s, const void *p);
/* The inverse of a removal from position pos: the member there (if any)
 * goes back to the end and e takes pos, with the bytes at value and change
 * (room reserved: a removal keeps it). */
void wk__sparse_reopen(wk__sparse *s, uint32_t pos, wk_entity e, const void *value, uint8_t change);
/* How many sparse components the entity has. */
size_t wk__sparse_count_of(const wk_ecm *ecm, wk_entity e);
/* Removes the entity from every sparse set, as removals a transaction can
 * undo (which fails only out of memory in one, having removed some). */
int wk__sparse_drop_entity(wk_ecm *ecm, wk_entity e);

/* entities.c */
/* 0 for a slot below ecm->slot_limit, else WK_RANGE (message set). */
int wk__slot_check(const wk_ecm *ecm, uint32_t index);
/* Counts slot index in its segment's used range, after wk__slot_check. */
int wk__slot_use(wk_ecm *ecm, uint32_t index);
/* Makes the entity with exactly this id, whose slot is free, live in a new
 * row of t holding the n given components of t's types: plain values
 * copied, values of types with a copy hook zeroed, for the caller to set. */
int wk__entity_adopt_with(wk_ecm *ecm, wk_entity e, wk__table *t, const wk_type *types, const void *const *values,
                          size_t n);
/* The table for the n given types, found from the root through the add
 * edges, or NULL (message set) for a bad or repeated type. Sparse types
 * have no column: *sparse says whether there were any. */
wk__table *wk__table_of(wk_ecm *ecm, const wk_type *types, size_t n, bool *sparse);
/* Removes one entity now: its components, links and record. Fails (out of
 * memory, without effect) only inside a transaction. */
int wk__entity_free(wk_ecm *ecm, wk_entity e);
/* The same, given the entity's record. */
int wk__entity_free_at(wk_ecm *ecm, wk__record *r, wk_entity e);
/* Adds the entity to the step's touched list (once). Inlined: every
 * change of a value makes this check, the physics 21 a step for an arm. */
static inline int wk__touch(wk_ecm *ecm, wk__record *r, wk_entity e)
{
    if (r->flags & (WK__NEW | WK__TOUCHED))
        return WK_OK;
    if (WK__VEC_PUSH(ecm->touched, e))
        return wk__ecm_fail(ecm, WK_NOMEM, "out of memory tracking a change of entity %llu",
                            (unsigned long long)e);
    r->flags |= WK__TOUCHED;
    return WK_OK;
}
/* Marks a component whose value changed, at *change, and its entity as
 * touched this step. Fails only out of memory; the value is set either
 * way, and the message is on the ECM. */
static inline void wk__mark_changed(wk_ecm *ecm, wk__record *r, wk_entity e, uint8_t *change)
{
    if (*change == WK_NO_CHANGE)
        *change = WK_ONE_TIME_CHANGE;
    (void)wk__touch(ecm, r, e);
}
/* Drops destroyed entities from the step's created and touched lists once
 * either has doubled since the last time; outside a transaction only (its
 * savepoints hold list lengths). */
void wk__step_lists_trim(wk_ecm *ecm);

/* table.c */
wk__table *wk__table_for_types(wk_ecm *ecm, const wk_type *types, uint32_t n);
/* The table for exactly these types (ascending), or NULL; never creates one. */
wk__table *wk__table_find(const wk_ecm *ecm, const wk_type *types, uint32_t n);
/* The table for from's types plus (adding) or minus (removing) type, found
 * or made when no edge of from knows it yet; NULL when out of memory. */
wk__table *wk__table_neighbour(wk_ecm *ecm, wk__table *from, wk_type type, bool adding);
/* The same through the edge when there is one, inline: creating an entity
 * with n components follows n edges, and a call each cost a tenth of it. */
static inline wk__table *wk__table_next(wk_ecm *ecm, wk__table *from, wk_type type, bool adding)
{
    const uint32_t *edges = adding ? from->add_edge : from->remove_edge;
    if (type < from->edge_len && edges[type])
        return ecm->tables[edges[type] - 1];
    return wk__table_neighbour(ecm, from, type, adding);
}
static inline wk__table *wk__table_with(wk_ecm *ecm, wk__table *from, wk_type type)
{
    return wk__table_next(ecm, from, type, true);
}
static inline wk__table *wk__table_without(wk_ecm *ecm, wk__table *from, wk_type type)
{
    return wk__table_next(ecm, from, type, false);
}
/* Appends a row with uninitialised values and change states; returns its
 * index or -1 (OOM). */
int64_t wk__table_append(wk_ecm *ecm, wk__table *t, wk_entity e);
/* Moves an entity's row into table `to`, whose types are those of its table
 * plus or minus `type`. An added value gets the bytes at added, or zeros, and
 * a one-time change; added may point into the entity's table. A removed value
 * is destroyed, or, when removed is not NULL, its bytes are moved there (a
 * transaction keeps them). */
int wk__table_move(wk_ecm *ecm, wk__record *r, wk__table *to, wk_type type, const void *added, void *removed);
/* True when p points into one of the table's columns. */
bool wk__table_holds(const wk__table *t, const void *p);
/* Removes a row, destroying its values, moving the last row into its place. */
void wk__table_delete_row(wk_ecm *ecm, wk__table *t, uint32_t row);
/* The same without destroying the values (their bytes were moved away). */
void wk__table_remove_row(wk_ecm *ecm, wk__table *t, uint32_t row);
/* The inverse of wk__table_remove_row: the row's occupant (if any) goes back
 * to the end, from where the removal took it, and the row is free to refill.
 * The table must have room for one more row. */
void wk__table_reopen_row(wk_ecm *ecm, wk__table *t, uint32_t row);
void wk__table_free(wk_ecm *ecm, wk__table *t);
/* Grows a type's values from old_cap table ids to cap, the new ones NULL:
 * 0 or WK_NOMEM (leaving them as they were). */
int wk__values_grow(wk__type_info *info, uint32_t old_cap, uint32_t cap);
/* Writes where t's columns keep their values into their types' `values`. */
void wk__table_publish(wk_ecm *ecm, const wk__table *t);
void wk__table_destroy_value(const wk_ecm *ecm, wk_type type, void *value);

/* registry.c */
int wk__value_copy(const wk_ecm *ecm, wk_type type, void *dst, const void *src);
bool wk__value_equal(const wk_ecm *ecm, wk_type type, const void *a, const void *b);

/* query.c */
int wk__query_add_table(wk_query *q, const wk__table *t);
bool wk__query_matches(const wk_query *q, const wk__table *t);

/* hierarchy.c */
wk__link *wk__link_of(const wk_ecm *ecm, uint32_t index);
void wk__unlink(wk_ecm *ecm, uint32_t index);
void wk__link_detach(wk_ecm *ecm, uint32_t index);
void wk__link_insert(wk_ecm *ecm, uint32_t index, uint32_t parent, uint32_t prev, uint32_t next);
int wk__descendants(const wk_ecm *ecm, wk_entity e, wk_entity_list *out);
int wk__list_push(wk_entity_list *list, wk_entity e);

/* components.c */
int wk__set_now(wk_ecm *ecm, wk_entity e, wk_type type, const void *value);
int wk__remove_now(wk_ecm *ecm, wk_entity e, wk_type type);
int wk__destroy_now(wk_ecm *ecm, wk_entity e, bool recursive);

/* defer.c */
int wk__defer(wk_ecm *ecm, wk__deferred_op op, wk_entity e, wk_type type, const void *value,
              bool recursive, void **staged);
void wk__defer_flush(wk_ecm *ecm);

/* txn.c — called only while ecm->txn is set. Each wk__txn_note_* records how
 * to undo a mutation about to happen and returns 0, or WK_NOMEM when it cannot
 * (the caller then gives up the mutation); a caller whose mutation fails
 * after a note calls wk__txn_drop. */
int wk__txn_note_create(wk_ecm *ecm, wk_entity e, uint32_t old_gen);
/* Also moves the entity's values into the log: the caller removes its row
 * without destroying them. */
int wk__txn_note_destroy(wk_ecm *ecm, wk_entity e, const wk__record *r);
/* Also for a sparse type's add or remove. For a removal, *removed receives
 * where wk__table_move or wk__sparse_remove puts the value. */
int wk__txn_note_move(wk_ecm *ecm, wk_entity e, const wk__record *r, wk_type type, bool adding, void **removed);
/* Moves the current value of cell into the log: the caller overwrites it
 * without destroying it. */
int wk__txn_note_set(wk_ecm *ecm, wk_entity e, wk_type type, void *cell, uint8_t change);
int wk__txn_note_change(wk_ecm *ecm, wk_entity e, wk_type type, uint8_t change);
int wk__txn_note_parent(wk_ecm *ecm, wk_entity child, const wk__link *old);
/* Before a free slot's generation is raised. */
int wk__txn_note_gen(wk_ecm *ecm, uint32_t index, uint32_t old_gen);
/* Called before the top of the free-slot list is popped. */
int wk__txn_note_pop(wk_ecm *ecm);
void wk__txn_drop(wk_ecm *ecm);
/* Fault injection for tests: when not zero, counts down on every attempt to
 * record, and the attempt that brings it to zero fails as out of memory. */
extern size_t wk__txn_fail_countdown;

/* A point inside a transaction that a failed compound mutation (create_with,
 * a recursive destroy) goes back to, so that it fails without effect. */
typedef struct wk__savepoint {
    size_t entries, created, touched, marked, destroyed, removed_components;
} wk__savepoint;
wk__savepoint wk__txn_savepoint(const wk_ecm *ecm);
void wk__txn_undo_to(wk_ecm *ecm, const wk__savepoint *sp);
/* Frees an open transaction's log, keeping its changes (wk_ecm_free). */
void wk__txn_free(wk_ecm *ecm);

#endif
