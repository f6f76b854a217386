/* limits.c — the endpoint's bounds on what a client makes the server hold
 * (wk_api_desc): the process's resident memory, above which the methods
 * whose rows say they grow what the server holds are refused, and the
 * size of an answer. The entities of a world are bounded by the store
 * (wk_store_room), which every door that adds them asks, and so are the
 * links the endpoint's physics would compile (physics_room). */
#include <stdio.h>
#include <unistd.h>

#include "api/methods.h"

/* The process's resident memory in bytes, from /proc/self/statm (its
 * second field counts pages); 0 when it cannot be read, which bounds
 * nothing. */
static size_t resident_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long size, resident;
    int got = f ? fscanf(f, "%lu %lu", &size, &resident) : 0;
    if (f)
        fclose(f);
    return got == 2 ? (size_t)resident * (size_t)sysconf(_SC_PAGESIZE) : 0;
}

static double mib(size_t bytes)
{
    return (double)bytes / 1048576.0;
}

int wk__api_memory_room(const wk_api *api, const wk__method *m, wk_status *st)
{
    if (!api->max_memory_bytes || !(m->flags & WK__METHOD_GROWS))
        return WK_OK;
    size_t held = resident_bytes();
    if (held <= api->max_memory_bytes)
        return WK_OK;
    return wk_fail(st, WK_LIMIT,
                   "%s refused: the server holds %.0f MiB, past its limit of %.0f MiB (serve --max-memory-mib); "
                   "deleting worlds or entities makes room",
                   m->name, mib(held), mib(api->max_memory_bytes));
}

int wk__api_response_room(const wk_api *api, const wk__method *m, size_t size, wk_status *st)
{
    if (size <= api->max_response_bytes)
        return WK_OK;
    /* A write is committed before its answer is made: the client must not
     * take the refusal for the change's. */
    return wk_fail(st, WK_LIMIT,
                   "%s: the response would be %.1f MiB, past the limit of %.1f MiB (serve --max-response-mib)%s",
                   m->name, mib(size), mib(api->max_response_bytes),
                   m->flags & WK__METHOD_WRITES ? "; what it changed was kept" : "");
}

/* The store's further bound (wk_store_set_room): the links of a world
 * that MuJoCo would step, whose compile nothing interrupts, so that a
 * world its step would refuse is not made. */
static int physics_room(wk_scene *scene, void *ctx, wk_status *st)
{
    const wk_api *api = ctx;
    return wk_sim_physics_room(scene, api->physics, api->max_physics_links, st);
}

void wk__api_bound_links(wk_api *api)
{
    wk_store_set_room(api->store, physics_room, api);
}
