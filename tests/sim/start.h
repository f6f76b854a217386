/* start.h — starting a simulation of one of the test worlds, shared by the
 * sim tests. */
#ifndef WK_TEST_SIM_START_H
#define WK_TEST_SIM_START_H

#include <stdio.h>

#include "worldkit/wk_sim.h"

/* A simulation of tests/formats/worlds/<file>, or NULL (reason printed). */
static inline wk_sim *start(const char *file, bool levels)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", WK_TEST_WORLDS, file);
    wk_world_desc *d = NULL;
    wk_status st = {0};
    wk_sim *sim = NULL;
    if (wk_desc_read(&(wk_read_desc){.uri = path}, &d, &st) ||
        wk_sim_new(d, &(wk_sim_desc){.levels = levels}, &sim, &st))
        fprintf(stderr, "    %s: %s\n", path, st.message);
    return sim;
}

/* A simulation of the world in text (levels off), or NULL (reason printed). */
static inline wk_sim *start_string(const char *text)
{
    wk_world_desc *d = NULL;
    wk_status st = {0};
    wk_sim *sim = NULL;
    if (wk_desc_read(&(wk_read_desc){.resource_string = text}, &d, &st) || wk_sim_new(d, NULL, &sim, &st))
        fprintf(stderr, "    %s\n", st.message);
    return sim;
}

#endif
