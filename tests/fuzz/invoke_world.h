/* invoke_world.h — what fuzz_invoke and its seed maker share: the methods by
 * index (the first byte of an input), and the endpoint every input starts
 * from: FUZZ_INVOKE_SDF loaded as the simulation's world and also created
 * as the store's world "w". */
#ifndef WK_TESTS_FUZZ_INVOKE_WORLD_H
#define WK_TESTS_FUZZ_INVOKE_WORLD_H

#include <stdio.h>
#include <stdlib.h>

#include "simulation_interfaces/simulation_interfaces.pb-c.h"
#include "worldkit/wk_api.h"
#include "worldkit/wk_formats.h"
#include "worldkit/wk_store.h"
#include "fuzz/world_state.h"

/* A table with a cup on it, a frame, and a two-link arm on a revolute joint. */
#define FUZZ_INVOKE_SDF                                                                                          \
    "<sdf version='1.9'><world name='fuzz'>"                                                                     \
    "<model name='table'><static>true</static><pose>0 0 0.5 0 0 0</pose>"                                        \
    "<link name='top'><collision name='c'><geometry><box><size>1 1 0.1</size></box></geometry></collision></link>" \
    "<frame name='edge'><pose>0.5 0 0 0 0 0</pose></frame></model>"                                              \
    "<model name='cup'><pose>0 0 1.1 0 0 0</pose><link name='body'><inertial><mass>0.2</mass></inertial>"         \
    "<collision name='c'><geometry><cylinder><radius>0.04</radius><length>0.1</length></cylinder></geometry>"    \
    "</collision></link></model>"                                                                                \
    "<model name='arm'><pose>1 0 0 0 0 0</pose><link name='base'/><link name='upper'><pose>0 0 0.3 0 0 0</pose>" \
    "</link><joint name='shoulder' type='revolute'><parent>base</parent><child>upper</child>"                    \
    "<axis><xyz>0 0 1</xyz><limit><lower>-1</lower><upper>1</upper></limit></axis></joint></model>"             \
    "</world></sdf>"

static inline size_t fuzz_invoke_method_count(void)
{
    size_t n = 0;
    wk_json_method m;
    while (wk_json_method_at(n, &m))
        n++;
    return n;
}

/* The full gRPC path of method i into buf; false past the end. */
static inline bool fuzz_invoke_path(size_t i, char *buf, size_t cap)
{
    wk_json_method m;
    return wk_json_method_at(i, &m) && snprintf(buf, cap, "/%s/%s", m.service, m.name) < (int)cap;
}

/* A new endpoint holding the fuzz world twice over; NULL on failure, said
 * on stderr. */
static inline wk_api *fuzz_invoke_world(void)
{
    wk_api *api = wk_api_new();
    if (!api)
        return NULL;
    SimulationInterfaces__LoadWorldRequest load = SIMULATION_INTERFACES__LOAD_WORLD_REQUEST__INIT;
    load.resource_string = FUZZ_INVOKE_SDF;
    uint8_t request[4096];
    size_t len = protobuf_c_message_get_packed_size(&load.base);
    wk_buf loaded = {0};
    wk_world_desc *desc = NULL;
    wk_status st = {0};
    char id[WK_WORLD_ID_MAX];
    int rc = len > sizeof request ? WK_RANGE : WK_OK;
    if (rc == WK_OK)
        rc = wk_api_call(api, "LoadWorld", request, protobuf_c_message_pack(&load.base, request), &loaded);
    if (rc == WK_OK)
        rc = wk_desc_read(&(wk_read_desc){.resource_string = FUZZ_INVOKE_SDF}, &desc, &st);
    if (rc == WK_OK)
        rc = wk_store_create(wk_api_store(api), &(wk_world_create_desc){.id = "w", .file = desc}, id, &st);
    wk_buf_free(&loaded);
    if (rc) {
        fprintf(stderr, "fuzz world: %s %s\n", wk_code_name(rc), st.message);
        wk_api_free(api);
        return NULL;
    }
    return api;
}

#endif
