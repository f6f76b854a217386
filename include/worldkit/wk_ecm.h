/* wk_ecm.h — the entity-component manager: the store every world is built on.
 *
 * An ECM holds entities (64-bit ids), component types registered at run time,
 * and one value per (entity, type). Components live in archetype tables: all
 * entities with the same set of types share a table whose columns are plain
 * arrays, so a query walks contiguous memory; a type registered as sparse
 * lives in a sparse set of its own instead. Entities form a parent/child
 * forest. The ECM tracks what changed during the current step (new entities,
 * removed entities, components added, removed or modified) until
 * wk_ecm_end_step(), and serializes its full state or those changes as a
 * protobuf message (proto/worldkit/ecs_state.proto) that another ECM applies.
 *
 * Errors: calls that can fail return a negative WK_* code (wk_base.h) and keep
 * a message naming the culprit, read with wk_ecm_errmsg(). Calls returning a
 * pointer return NULL instead. Nothing aborts on bad input.
 *
 * Pointers to component data are borrowed: they stay valid until the next
 * structural change of the ECM (adding or removing a component, destroying an
 * entity, end of step). While an iterator is open, structural changes are
 * deferred and applied, in order, when the last open iterator finishes, so
 * column pointers held by iterators never move under them.
 *
 * An ECM is not thread-safe; the store layer locks a world around its use. */
#ifndef WK_ECM_H
#define WK_ECM_H

#include "worldkit/wk_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* An entity id: slot index in the low 32 bits, the slot's generation in the
 * high 32. A removed entity's slot gets a new generation, so a stale id is
 * detected instead of aliasing the slot's next entity. Generations stay
 * below 2048: a slot whose generation reaches 2047 is never reused. */
typedef uint64_t wk_entity;
#define WK_NULL_ENTITY ((wk_entity)0)

/* A component type id, dense and starting at 1; 0 means "no type". */
typedef uint32_t wk_type;
#define WK_NO_TYPE ((wk_type)0)

typedef struct wk_ecm wk_ecm;
typedef struct wk_query wk_query;

/* How a component changed during the current step. */
typedef enum wk_change {
    WK_NO_CHANGE = 0,
    WK_ONE_TIME_CHANGE = 1, /* rare change, to be acted on at once */
    WK_PERIODIC_CHANGE = 2, /* changes every step, e.g. a pose under physics */
} wk_change;

/* Hooks of a component type. All are optional: without them a value is its
 * bytes (copied with memcpy, compared with memcmp, serialized as is). Values
 * are moved between tables with memcpy, so a value must not point into itself.
 * copy and deserialize write into uninitialised storage. destroy must accept
 * an all-zero value: that is what adding a component without a value gives.
 * share, when given, replaces copy where src is a value the ECM holds (cloning
 * an ECM), so a type whose held values are immutable can share what they point
 * to, e.g. by counting references, instead of duplicating it; the ECM and its
 * clone may then be used and freed from different threads. */
typedef struct wk_type_hooks {
    int (*copy)(void *dst, const void *src); /* 0 or WK_NOMEM */
    void (*destroy)(void *value);
    bool (*equal)(const void *a, const void *b);
    int (*serialize)(const void *value, wk_buf *out);                    /* appends */
    int (*deserialize)(void *dst, const uint8_t *bytes, size_t len); /* 0 or WK_PARSE */
    int (*share)(void *dst, const void *src);                            /* 0 or WK_NOMEM */
} wk_type_hooks;

typedef struct wk_type_desc {
    const char *name; /* unique within the ECM; copied */
    size_t size;      /* 0 for a tag type that carries no data */
    size_t align;     /* 0: the natural alignment for size, at most 16 */
    wk_type_hooks hooks;
    /* Kept in a sparse set of its own, outside the archetype tables: adding and
     * removing it do not move the entity's other components, while reads and
     * queries over it cost a lookup more. For components added and removed on
     * the fly. */
    bool sparse;
} wk_type_desc;

/* A growable list of entities, filled by calls that return several. The
 * caller owns it; zero-initialised is empty; free with wk_entity_list_free. */
typedef struct wk_entity_list {
    wk_entity *items;
    size_t count;
    size_t cap;
} wk_entity_list;

/* Appends e; 0 or WK_NOMEM. */
int wk_entity_list_push(wk_entity_list *list, wk_entity e);
void wk_entity_list_free(wk_entity_list *list);

/* ---- lifetime ---------------------------------------------------------- */

/* A new, empty ECM, or NULL when out of memory. Free with wk_ecm_free. */
wk_ecm *wk_ecm_new(void);
/* Frees the ECM, its components (through their destroy hooks) and every query
 * still attached to it. NULL is a no-op. */
void wk_ecm_free(wk_ecm *ecm);
/* The message of the last failed call; borrowed until the next failure. */
const char *wk_ecm_errmsg(const wk_ecm *ecm);

/* ---- component types --------------------------------------------------- */

/* Registers a type and writes its id to *out. Registering a name again with the
 * same size and alignment returns the same id (so ids are stable for a name);
 * with a different size or alignment it fails with WK_MISMATCH. */
int wk_ecm_register(wk_ecm *ecm, const wk_type_desc *desc, wk_type *out);
/* The id registered for name, or WK_NO_TYPE. */
wk_type wk_ecm_type_by_name(const wk_ecm *ecm, const char *name);
/* The type's name, or NULL for an unknown id; borrowed for the ECM's life. */
const char *wk_ecm_type_name(const wk_ecm *ecm, wk_type type);
/* True when a component of the type has ever been created (HasComponentType). */
bool wk_ecm_type_in_use(const wk_ecm *ecm, wk_type type);

/* ---- entities ---------------------------------------------------------- */

/* A new entity without components, or WK_NULL_ENTITY when out of memory. */
wk_entity wk_ecm_create(wk_ecm *ecm);
/* A new entity with n components at once: types[i] set to a copy of
 * values[i] (zeros when values or values[i] is NULL). It goes straight to its
 * final table, which makes it much cheaper than wk_ecm_create and n sets.
 * WK_NULL_ENTITY for an unregistered or repeated type, or while an iterator
 * is open (n > 0). */
wk_entity wk_ecm_create_with(wk_ecm *ecm, const wk_type *types, const void *const *values, size_t n);
/* Entities created from now on take slot indices starting at offset, so ids
 * from another source (a log, a remote world) cannot collide with them.
 * offset must be in [1, 2^32). */
int wk_ecm_set_create_offset(wk_ecm *ecm, uint64_t offset);
bool wk_ecm_exists(const wk_ecm *ecm, wk_entity e);
size_t wk_ecm_count(const wk_ecm *ecm);
/* Removes the entity at once (deferred while an iterator is open), with all
 * its descendants when recursive; otherwise its children lose their parent. */
int wk_ecm_destroy(wk_ecm *ecm, wk_entity e, bool recursive);

/* ---- components -------------------------------------------------------- */

/* Sets the entity's component of the type to a copy of *value, adding it when
 * missing. Returns 1 when the data changed (always for an added component),
 * 0 when the value was equal already, or a negative code. A change marks the
 * component WK_ONE_TIME_CHANGE unless it is already marked. */
int wk_ecm_set(wk_ecm *ecm, wk_entity e, wk_type type, const void *value);
/* An entity's component found once and set often (a physics engine's poses,
 * every step): wk_ecm_place_set is wk_ecm_set, with the same results and
 * change marks, that looks the component's cell up again only when the
 * ECM's storage moved since the last set (an entity created, destroyed or
 * given or stripped of a component, a table grown). Set it up with
 * wk_ecm_place_init; its other fields are the ECM's. */
typedef struct wk_ecm_place {
    wk_entity entity;
    wk_type type;
    const wk_ecm *ecm; /* the ECM the cell below is in, or NULL */
    uint64_t layout;   /* the ECM's storage when the cell was found */
    void *value;
    uint8_t *change;
    void *record;
    size_t size;
} wk_ecm_place;
void wk_ecm_place_init(wk_ecm_place *place, wk_entity e, wk_type type);
int wk_ecm_place_set(wk_ecm *ecm, wk_ecm_place *place, const void *value);
/* For a writer that compares and writes a component where it lies, field by
 * field in its own type (the physics engine, 21 components a step for an
 * arm of 7 links), rather than through wk_ecm_place_set's copy of a value
 * and comparison of bytes: the place's cell, found again when the storage
 * moved; NULL where the component cannot be written in place (missing, not
 * plain data, or a transaction open), and wk_ecm_place_set is the way.
 * Having written a different value there, the writer calls
 * wk_ecm_place_changed, which marks the change as wk_ecm_set does. */
void *wk_ecm_place_cell(wk_ecm *ecm, wk_ecm_place *place);
void wk_ecm_place_changed(wk_ecm *ecm, wk_ecm_place *place);
/* The component's data, or NULL when the entity or component is missing (and
 * for tag types, which have no data; use wk_ecm_has). */
void *wk_ecm_get(const wk_ecm *ecm, wk_entity e, wk_type type);
/* The component's data, adding it as a copy of *dflt first when missing
 * (ComponentDefault). NULL on error. */
void *wk_ecm_get_or_add(wk_ecm *ecm, wk_entity e, wk_type type, const void *dflt);
/* Returns 1 when removed, 0 when the entity had no such component, or a
 * negative code for a missing entity. */
int wk_ecm_remove(wk_ecm *ecm, wk_entity e, wk_type type);
bool wk_ecm_has(const wk_ecm *ecm, wk_entity e, wk_type type);
/* True when the entity exists and has every one of the n types. */
bool wk_ecm_matches(const wk_ecm *ecm, wk_entity e, const wk_type *types, size_t n);
/* Writes up to cap of the entity's types, ascending, to out; returns how many
 * it has (which may exceed cap). */
size_t wk_ecm_component_types(const wk_ecm *ecm, wk_entity e, wk_type *out, size_t cap);
/* The first component of the type in storage order, with its owner in *owner
 * when owner is not NULL; NULL when no entity has one. */
void *wk_ecm_first(const wk_ecm *ecm, wk_type type, wk_entity *owner);

/* A (type, value) pair that entities are matched against with the type's
 * equal hook. value may be NULL to match on presence only. */
typedef struct wk_match {
    wk_type type;
    const void *value;
} wk_match;

/* Appends to out every entity matching all n pairs (EntitiesByComponents). */
int wk_ecm_find(const wk_ecm *ecm, const wk_match *match, size_t n, wk_entity_list *out);
/* The first entity matching all n pairs, or WK_NULL_ENTITY. */
wk_entity wk_ecm_find_one(const wk_ecm *ecm, const wk_match *match, size_t n);
/* Appends to out the children of parent that match all n pairs. */
int wk_ecm_find_children(const wk_ecm *ecm, wk_entity parent, const wk_match *match, size_t n,
                         wk_entity_list *out);

/* ---- parent/child graph ------------------------------------------------ */

/* Makes parent the parent of child; WK_NULL_ENTITY detaches child. Fails with
 * WK_INVALID when parent is child or one of its descendants. */
int wk_ecm_set_parent(wk_ecm *ecm, wk_entity child, wk_entity parent);
/* The parent, or WK_NULL_ENTITY for a root or missing entity. */
wk_entity wk_ecm_parent(const wk_ecm *ecm, wk_entity e);
/* The first child (in the order they were attached) and the next sibling,
 * WK_NULL_ENTITY when there is none: a walk of the tree that allocates
 * nothing. */
wk_entity wk_ecm_first_child(const wk_ecm *ecm, wk_entity e);
wk_entity wk_ecm_next_sibling(const wk_ecm *ecm, wk_entity e);
/* Appends the entity's children to out, in the order they were attached. */
int wk_ecm_children(const wk_ecm *ecm, wk_entity e, wk_entity_list *out);
/* Appends the entity and all its descendants to out, breadth first (every
 * parent before its children). */
int wk_ecm_descendants(const wk_ecm *ecm, wk_entity e, wk_entity_list *out);

/* ---- queries ----------------------------------------------------------- */

#define WK_QUERY_MAX_TERMS 8

/* The types an entity must have (at least one) and must not have; unused
 * slots stay WK_NO_TYPE. */
typedef struct wk_query_desc {
    wk_type with[WK_QUERY_MAX_TERMS];
    wk_type without[WK_QUERY_MAX_TERMS];
} wk_query_desc;

/* A cached view: the list of tables that match stays current as tables are
 * created, so iterating costs nothing per non-matching entity. NULL on error.
 * Owned by the caller (wk_query_free) or, if still alive, freed with the ECM. */
wk_query *wk_query_new(wk_ecm *ecm, const wk_query_desc *desc);
void wk_query_free(wk_query *q);

/* An open iteration. The public fields are read-only. */
typedef struct wk_iter {
    size_t count;              /* rows in the current batch */
    const wk_entity *entities; /* their ids */
    /* private */
    wk_query *query;
    void *columns[WK_QUERY_MAX_TERMS];
    size_t position;
    size_t row;
    size_t end;
    int mode;
    bool open;
    wk_entity single;
} wk_iter;

/* Every entity matching the query (Each), a table-sized batch at a time:
 *     wk_iter it = wk_query_iter(q);
 *     while (wk_iter_next(&it)) {
 *         Position *p = wk_iter_column(&it, 0);
 *         for (size_t i = 0; i < it.count; i++) ...
 *     }
 * Entities marked for removal are included. */
wk_iter wk_query_iter(wk_query *q);
/* Entities created this step that match the query (EachNew), one per batch. */
wk_iter wk_query_iter_new(wk_query *q);
/* Entities marked for removal that match the query (EachRemoved), one per batch. */
wk_iter wk_query_iter_removed(wk_query *q);
/* Advances to the next batch; false (and the iterator closed) at the end. */
bool wk_iter_next(wk_iter *it);
/* The batch's values of the query's term-th `with` type: an array of count
 * values, or NULL for a tag type. */
void *wk_iter_column(const wk_iter *it, size_t term);
/* Closes an iterator left before wk_iter_next returned false. Idempotent. */
void wk_iter_fini(wk_iter *it);

/* ---- steps: removal requests, newness, change tracking ---------------- */

/* Marks the entity (and its descendants when recursive) for removal at the
 * end of the step (RequestRemoveEntity). */
int wk_ecm_request_remove(wk_ecm *ecm, wk_entity e, bool recursive);
/* Marks every entity for removal at the end of the step. */
void wk_ecm_request_remove_all(wk_ecm *ecm);
bool wk_ecm_is_marked_for_removal(const wk_ecm *ecm, wk_entity e);
bool wk_ecm_has_marked_for_removal(const wk_ecm *ecm);
bool wk_ecm_is_new(const wk_ecm *ecm, wk_entity e);
bool wk_ecm_has_new_entities(const wk_ecm *ecm);

/* Sets a component's change state for this step. */
int wk_ecm_set_changed(wk_ecm *ecm, wk_entity e, wk_type type, wk_change change);
/* The component's change state; WK_NO_CHANGE when it is missing. */
wk_change wk_ecm_changed(const wk_ecm *ecm, wk_entity e, wk_type type);
bool wk_ecm_has_one_time_changes(const wk_ecm *ecm);
/* Writes up to cap types having a periodic change to out (ascending);
 * returns how many there are. */
size_t wk_ecm_periodic_types(const wk_ecm *ecm, wk_type *out, size_t cap);

/* What changed this step, one call of fn per fact, for an observer that
 * keeps its own record of changes (the change stream's hub) without
 * serializing them: WK_STEP_CREATED for each entity created (type
 * WK_NO_TYPE); WK_STEP_TOUCHED for each other entity touched (a component
 * added, set, removed, or the entity re-parented), once with WK_NO_TYPE and
 * once per component whose change state is not WK_NO_CHANGE;
 * WK_STEP_COMPONENT_REMOVED per component removed from an entity that
 * lives on; WK_STEP_REMOVED for each entity removed or marked for removal.
 * The facts are those a changed-only wk_ecm_state holds, at O(changes). */
typedef enum wk_step_fact {
    WK_STEP_CREATED = 1,
    WK_STEP_TOUCHED = 2,
    WK_STEP_COMPONENT_REMOVED = 3,
    WK_STEP_REMOVED = 4,
} wk_step_fact;
typedef void (*wk_step_fact_fn)(wk_entity e, wk_step_fact fact, wk_type type, void *ctx);
void wk_ecm_step_facts(const wk_ecm *ecm, wk_step_fact_fn fn, void *ctx);

/* Ends the step, in this order: entities marked for removal are removed;
 * newness, change states and the step's record of removals are cleared.
 * Fails with WK_BUSY while an iterator or a transaction is open. */
int wk_ecm_end_step(wk_ecm *ecm);

/* ---- transactions ------------------------------------------------------ */

/* A transaction makes a run of mutations all or nothing: after
 * wk_ecm_txn_begin, every change to entities, components, values, parents,
 * change states, removal marks and the create offset is recorded, and
 * wk_ecm_txn_rollback undoes them all, newest first, leaving the ECM as it was
 * at begin: the same entities with the same ids (a destroyed entity comes
 * back with its slot, generation, components, values, parent and place among
 * its siblings; ids of entities created meanwhile are stale again), the same
 * step tracking, and the same rows in the same order, so wk_ecm_state writes
 * the same bytes. The next entity created gets the id it would have had.
 * Each change costs O(its size) to record and to undo, whatever the size of
 * the world. Removed, overwritten and destroyed values are moved into the
 * log, not copied; rollback moves them back and cannot fail.
 *
 * While a transaction is open:
 * - a mutation that cannot be recorded fails with WK_NOMEM and changes nothing;
 * - wk_ecm_end_step fails with WK_BUSY;
 * - writes through pointers returned by wk_ecm_get, wk_ecm_get_or_add or an
 *   iterator's columns are not recorded: change values with wk_ecm_set
 *   (a component added by wk_ecm_get_or_add goes away on rollback, with
 *   whatever was written into it);
 * - component types registered stay registered after a rollback (types are
 *   schema, not state; wk_ecm_type_in_use is restored).
 * Transactions do not nest. */

/* Opens a transaction. WK_BUSY when one is open already or while an iterator
 * is open; WK_NOMEM. */
int wk_ecm_txn_begin(wk_ecm *ecm);
/* Keeps the transaction's changes and frees its log (destroying the values
 * it held). WK_INVALID when none is open, WK_BUSY while an iterator is open
 * (its queued changes belong to the transaction). */
int wk_ecm_txn_commit(wk_ecm *ecm);
/* Undoes every change since wk_ecm_txn_begin and closes the transaction.
 * Fails only when none is open (WK_INVALID) or while an iterator is open
 * (WK_BUSY); never for lack of memory. */
int wk_ecm_txn_rollback(wk_ecm *ecm);
/* True while a transaction is open. */
bool wk_ecm_txn_open(const wk_ecm *ecm);

/* A counter that grows with every change made through this API: entities
 * created or destroyed, components added, set to a different value or
 * removed, parents, change states, removal marks, the create offset, the end
 * of a step, a rollback (which moves it forward, not back). A cache of
 * something derived from the ECM is current while the counter has not moved.
 * Writes through pointers into component data do not move it. Each ECM
 * counts on its own from 0, clones too. */
uint64_t wk_ecm_version(const wk_ecm *ecm);

/* ---- state ------------------------------------------------------------- */

typedef struct wk_state_desc {
    const wk_entity *entities; /* NULL: every entity */
    size_t entity_count;
    const wk_type *types; /* NULL: every type */
    size_t type_count;
    bool changed_only; /* only what changed this step (ChangedState) */
} wk_state_desc;

/* True when a and b, two values of type, are equal: by the type's equal
 * hook, else bytewise. */
bool wk_ecm_values_equal(const wk_ecm *ecm, wk_type type, const void *a, const void *b);

/* Appends the serialized state (a worldkit.ecs.State message) to out. A full
 * state of every entity and type is marked complete: applying it removes the
 * entities the message does not hold. */
int wk_ecm_state(wk_ecm *ecm, const wk_state_desc *desc, wk_buf *out);
/* Applies a serialized state (SetState): creates the entities and components
 * it holds with the same ids, updates values and parents, removes what it
 * marks removed. Types are matched by name and must be registered here.
 * Checked before anything is changed: the message parses, every type is
 * known and every value decodes; a failed call changes nothing, even one
 * that runs out of memory halfway: that is undone, inside the caller's
 * transaction when one is open, else inside one of the call's own. */
int wk_ecm_set_state(wk_ecm *ecm, const uint8_t *bytes, size_t len);

/* A deep copy of the ECM: types, entities, components, parents and the
 * current step's tracking; queries are not copied. NULL when out of memory. */
wk_ecm *wk_ecm_clone(const wk_ecm *ecm);
/* True when both hold the same entities with the same parents and the same
 * components by type name and value. When they differ and why is not NULL,
 * the first difference found is described there. */
bool wk_ecm_equal(const wk_ecm *a, const wk_ecm *b, wk_status *why);

/* ---- differences between two ECMs ------------------------------------- */

/* How an entity differs from one ECM to the other. An id is the same entity
 * in both only with the same generation: when b's slot holds another
 * generation, a's entity is reported only in a and b's only in b. */
typedef enum wk_ecm_diff_kind {
    WK_DIFF_ONLY_A = 1, /* alive in a, not in b */
    WK_DIFF_ONLY_B = 2, /* alive in b, not in a */
    WK_DIFF_CHANGED = 3, /* in both; its parent, its set of types or a value differs */
} wk_ecm_diff_kind;

/* One reported entity. For WK_DIFF_CHANGED, the lists say what differs
 * (any may be empty, not all together with parent_changed false); for the
 * other kinds they are empty. Types match by name (and size: a type of the
 * same name and another size is another type). The lists are borrowed for
 * the duration of the callback. */
typedef struct wk_ecm_diff_entry {
    wk_entity entity;
    wk_ecm_diff_kind kind;
    bool parent_changed;
    const wk_type *changed; /* a's ids of the types both have with unequal values */
    size_t changed_count;
    const wk_type *removed; /* a's ids of the types only a has */
    size_t removed_count;
    const wk_type *added; /* b's ids of the types only b has */
    size_t added_count;
} wk_ecm_diff_entry;

/* Called once per differing entity; a nonzero result stops the diff, which
 * returns it. The callback may read a and b but must not change them. */
typedef int (*wk_ecm_diff_fn)(const wk_ecm_diff_entry *entry, void *ctx);

/* Reports every entity alive in only one of a and b, and every entity in
 * both whose parent, set of component types or any component value differs
 * (values compared with a's equal hooks, else bytewise; change states are not
 * compared). Order: the entities only in a or only in b first, by slot, then
 * the changed ones in a's storage order.
 *
 * It costs O(entities) with memory read in order: the records of both side
 * by side, then each table of a beside the table of b with the same types.
 * Between an ECM and its clone (same type ids, same tables, same rows) every
 * unchanged row is matched without a lookup and a plain column is compared a
 * block of rows per memcmp; a row that moved is found through b's records.
 * Returns 0, the callback's nonzero result, or WK_NOMEM. It writes nothing
 * to either ECM, not even an error message, so readers holding a world's
 * read lock may run it at the same time. */
int wk_ecm_diff(const wk_ecm *a, const wk_ecm *b, wk_ecm_diff_fn fn, void *ctx);

#ifdef __cplusplus
}
#endif
#endif
