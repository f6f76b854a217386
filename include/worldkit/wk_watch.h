/* wk_watch.h — the watch layer: a world's change stream.
 *
 * A hub hears of every change to the worlds it covers: whoever ends a
 * write (a commit, a simulation step) calls wk_watch_publish while it still
 * holds the world and its ECM still tracks what changed. Watchers subscribe
 * to one world and, each on its own thread and pace, take messages
 * (serialized worldkit.WatchUpdate, proto/worldkit/watch.proto): first the
 * world's full state, then what changed since the last message they took.
 *
 * Nothing is queued per watcher. The hub keeps, per world, the version at
 * which each entity was created or last changed and each component type
 * last changed (one record per entity that changed while watched), and a
 * log of the last WK_WATCH_REMOVALS_MAX removals; a watcher keeps only the
 * version it has seen. A message is made when the watcher asks for it,
 * from the world's current values: the changes a slow watcher missed are
 * merged (the latest value of each component wins), and a watcher so far
 * behind that the removal log no longer reaches back to it is sent a full
 * state. So what the hub holds is bounded by the world's size whatever the
 * watchers do, publishing costs O(changes) with any number of watchers
 * (nothing when nobody watches), and a watcher that never reads costs
 * nothing but its subscription.
 *
 * Threads: every call is thread-safe. wk_watch_publish is called with the
 * world open for writing; wk_watch_next with it open for reading (a
 * watcher holds the world only while it makes a message, never while it
 * sends one). */
#ifndef WK_WATCH_H
#define WK_WATCH_H

#include "worldkit/wk_base.h"
#include "worldkit/wk_ecm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Removals (of entities or components) a world's log holds: a watcher
 * more than this many removals behind is sent a full state. */
#define WK_WATCH_REMOVALS_MAX 65536

typedef struct wk_watch_hub wk_watch_hub;
typedef struct wk_watcher wk_watcher;

/* A new hub; NULL when out of memory. Free it after every watcher. */
wk_watch_hub *wk_watch_hub_new(void);
void wk_watch_hub_free(wk_watch_hub *hub);

/* A simulation's clock, which stamps the messages after it. */
typedef struct wk_watch_clock {
    uint64_t step;   /* steps since the simulation began or its time was reset */
    double sim_time; /* seconds */
} wk_watch_clock;

/* What the world's ECM changed since its tracking was last reset, recorded
 * as the world's next version: called holding world_id open for writing,
 * before the tracking is reset (wk_ecm_end_step). clock: the simulation's,
 * when a step made the change; NULL (a change made by a call) leaves the
 * clock the messages carry as it was. Costs nothing while the world has no
 * watcher. A change the hub has no memory to record makes every watcher of
 * the world take a full state next. */
void wk_watch_publish(wk_watch_hub *hub, const char *world_id, const wk_ecm *ecm, const wk_watch_clock *clock);
/* The world's content was replaced whole (loaded again, cloned or swapped
 * over, deleted): its watchers take a full state next. */
void wk_watch_reset(wk_watch_hub *hub, const char *world_id);

/* A subscription; zero is the default. */
typedef struct wk_watch_desc {
    const char *world_id;
    /* Only components of these type names (NULL: every type); a name the
     * world's ECM does not have is left out. Copied. */
    const char *const *kinds;
    size_t kind_count;
    /* Only this entity and its descendants (WK_NULL_ENTITY: every entity).
     * Removals are sent unfiltered: a removed entity's place is gone. */
    wk_entity subtree;
} wk_watch_desc;

/* Subscribes to a world (whether or not it exists yet); NULL when out of
 * memory. Free with wk_watcher_free. */
wk_watcher *wk_watch_subscribe(wk_watch_hub *hub, const wk_watch_desc *desc);
void wk_watcher_free(wk_watcher *w);

/* Waits until the world has changed past what the watcher took, or
 * seconds pass, or wk_watch_hub_wake is called; whether there is something
 * to take. */
bool wk_watch_wait(wk_watcher *w, double seconds);
/* Wakes every waiting watcher (a server shutting down). */
void wk_watch_hub_wake(wk_watch_hub *hub);

/* The watcher's next message, appended to out as a serialized
 * worldkit.WatchUpdate, made from ecm, the world's ECM, which the caller
 * holds open for reading: the full state at first and when it fell too far
 * behind, else what changed since the last. *made says whether there was
 * anything to send (nothing changed: nothing appended). WK_OK, WK_NOMEM
 * (st says which world), or WK_INVALID when the subtree entity does not
 * exist in the world. */
int wk_watch_next(wk_watcher *w, wk_ecm *ecm, wk_buf *out, bool *made, wk_status *st);

#ifdef __cplusplus
}
#endif
#endif
