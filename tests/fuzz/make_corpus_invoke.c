/* make_corpus_invoke.c — writes fuzz_invoke's seeds: a few valid requests per
 * method, each written as JSON below (the proto3 JSON mapping) and packed by
 * the api's own JSON reader, so that the seeds follow the .proto files when
 * they change. A seed is the method's index byte, then the request; it is
 * named <Method>_<n>. Each seed is also called on the fuzz world, and its
 * status printed, so that a seed that stopped reaching its method shows.
 *
 * Usage: make_corpus_invoke DIR (tests/fuzz/corpus/invoke). */
#include <stdio.h>
#include <string.h>

#include "fuzz/invoke_world.h"

/* A GeometryComponent holding one inline box for collisions. */
#define BOX                                                                                                 \
    "{\"named_geometries\": {\"Intrinsic_Collision\": {\"named_geometries\": {\"box\": {\"geometry\":" \
    " {\"inline_geometry_data\": {\"exact_geometry\": {\"primitive_set\": {\"primitives\": [{\"shape\":" \
    " {\"box\": {\"size\": {\"x\": 0.2, \"y\": 0.2, \"z\": 0.2}}}}]}}}}}}}}}"

static const struct seed {
    const char *method;
    const char *json;
} seeds[] = {
    /* simulation_interfaces */
    {"DeleteEntity", "{\"entity\": \"cup\"}"},
    {"GetAvailableWorlds", "{\"offline_only\": true}"},
    {"GetCurrentWorld", "{}"},
    {"GetEntities", "{}"},
    {"GetEntities", "{\"filters\": {\"filter\": \"^c.*\"}}"},
    {"GetEntitiesStates", "{\"filters\": {\"bounds\": {\"type\": 1, \"points\": [{\"x\": -1, \"y\": -1, \"z\": 0},"
                          " {\"x\": 1, \"y\": 1, \"z\": 2}]}}}"},
    {"GetEntityBounds", "{\"entity\": \"table\"}"},
    {"GetEntityInfo", "{\"entity\": \"arm\"}"},
    {"GetEntityState", "{\"entity\": \"cup\"}"},
    {"GetNamedPoseBounds", "{\"name\": \"home\"}"},
    {"GetNamedPoses", "{}"},
    {"GetSimulationState", "{}"},
    {"GetSimulatorFeatures", "{}"},
    {"GetSpawnables", "{\"sources\": [\"tests/formats/worlds\"]}"},
    {"LoadWorld", "{\"resource_string\": \"<sdf version='1.9'><world name='w'><model name='m'><link name='l'/>"
                  "</model></world></sdf>\"}"},
    {"LoadWorld", "{\"world_resource\": {\"resource_string\": \"<robot name='r'><link name='a'/></robot>\"}}"},
    {"LoadWorld", "{\"resource_string\": \"<mujoco><worldbody><body name='b'><geom size='1'/></body>"
                  "</worldbody></mujoco>\", \"fail_on_unsupported_element\": true}"},
    {"ResetSimulation", "{\"scope\": 255}"},
    {"SetEntityInfo", "{\"entity\": \"cup\", \"info\": {\"category\": {\"category\": 2},"
                      " \"description\": \"a cup\", \"tags\": [\"kitchen\"]}}"},
    {"SetEntityState", "{\"entity\": \"cup\", \"state\": {\"pose\": {\"position\": {\"x\": 1, \"y\": 2, \"z\": 3},"
                       " \"orientation\": {\"w\": 1}}}, \"set_pose\": true}"},
    {"SetSimulationState", "{\"state\": {\"state\": 2}}"},
    {"SpawnEntities", "{\"spawn_requests\": [{\"name\": \"box\", \"entity_resource\": {\"resource_string\":"
                      " \"<sdf version='1.9'><model name='box'><link name='l'/></model></sdf>\"},"
                      " \"initial_pose\": {\"pose\": {\"position\": {\"z\": 2}}}},"
                      " {\"name\": \"cup\", \"allow_renaming\": true, \"entity_resource\": {\"resource_string\":"
                      " \"<robot name='r'><link name='a'/></robot>\"}}]}"},
    {"SpawnEntity", "{\"name\": \"ball\", \"entity_namespace\": \"ns\", \"entity_resource\": {\"resource_string\":"
                    " \"<sdf version='1.9'><model name='ball'><link name='l'/></model></sdf>\"}}"},
    {"StepSimulation", "{\"steps\": \"3\"}"},
    {"UnloadWorld", "{}"},
    {"SimulateSteps", "{\"steps\": \"2\"}"},
    /* ObjectWorldService */
    {"GetWorld", "{\"world_id\": \"w\"}"},
    {"CloneWorld", "{\"world_id\": \"w\", \"cloned_world_id\": \"w2\", \"user_tag\": \"copy\"}"},
    {"SwapWorld", "{\"world_id\": \"w\", \"target_world_id\": \"w\"}"},
    {"DeleteWorld", "{\"world_id\": \"w\"}"},
    {"ListWorlds", "{}"},
    {"CreateWorld", "{\"world\": {\"world_metadata\": {\"id\": \"made\", \"user_tag\": \"t\"}}}"},
    {"GetCollisionSettings", "{\"world_id\": \"w\"}"},
    {"UpdateCollisionSettings", "{\"world_id\": \"w\", \"collision_settings\": {\"disable_collision_checking\": true}}"},
    {"ToggleCollisions", "{\"world_id\": \"w\", \"toggle_mode\": \"TOGGLE_MODE_DISABLE\","
                         " \"object_a\": {\"reference\": {\"by_name\": {\"object_name\": \"table\"}}},"
                         " \"object_b\": {\"reference\": {\"by_name\": {\"object_name\": \"cup\"}}}}"},
    {"GetObject", "{\"world_id\": \"w\", \"object\": {\"by_name\": {\"object_name\": \"arm\"}}, \"view\": \"FULL\"}"},
    {"ListObjects", "{\"world_id\": \"w\", \"view\": \"BASIC\"}"},
    {"ListObjects", "{\"world_id\": \"w\", \"query_objects\": [{\"by_name\": {\"object_name\": \"cup\"}}]}"},
    {"CreateObject", "{\"world_id\": \"w\", \"name\": \"block\", \"parent_object\": {\"reference\":"
                     " {\"by_name\": {\"object_name\": \"table\"}}}, \"parent_object_t_created_object\":"
                     " {\"position\": {\"z\": 0.1}, \"orientation\": {\"w\": 1}},"
                     " \"create_single_entity_object\": {\"entity_local_name\": \"body\", \"geometry_component\": " BOX "}}"},
    {"DeleteObject", "{\"world_id\": \"w\", \"object\": {\"by_name\": {\"object_name\": \"cup\"}}, \"force\": true}"},
    {"UpdateObjectName", "{\"world_id\": \"w\", \"object\": {\"by_name\": {\"object_name\": \"cup\"}},"
                         " \"name\": \"mug\"}"},
    {"ReparentObject", "{\"world_id\": \"w\", \"object\": {\"by_name\": {\"object_name\": \"cup\"}},"
                       " \"parent_object\": {\"reference\": {\"by_name\": {\"object_name\": \"table\"}}}}"},
    {"UpdateObjectJoints", "{\"world_id\": \"w\", \"object\": {\"by_name\": {\"object_name\": \"arm\"}},"
                           " \"joint_positions\": [0.5]}"},
    {"UpdateKinematicObjectProperties", "{\"world_id\": \"w\", \"object\": {\"by_name\": {\"object_name\": \"arm\"}},"
                                        " \"named_joint_configurations_to_set\": [{\"name\": \"home\","
                                        " \"joint_positions\": [0]}]}"},
    {"UpdateObjectProperties", "{\"world_id\": \"w\", \"object\": {\"by_name\": {\"object_name\": \"cup\"}},"
                               " \"simulation_component\": {}}"},
    {"UpdateEntityProperties", "{\"world_id\": \"w\", \"entity\": {\"reference\": {\"by_name\":"
                               " {\"object_name\": \"cup\"}}, \"entity_filter\": {\"include_base_entity\": true}},"
                               " \"geometry_component\": " BOX "}"},
    {"GetFrame", "{\"world_id\": \"w\", \"frame\": {\"by_name\": {\"object_name\": \"table\","
                 " \"frame_name\": \"edge\"}}}"},
    {"ListFrames", "{\"world_id\": \"w\", \"object\": {\"by_name\": {\"object_name\": \"table\"}}}"},
    {"CreateFrame", "{\"world_id\": \"w\", \"parent_object\": {\"by_name\": {\"object_name\": \"cup\"}},"
                    " \"new_frame_name\": \"rim\", \"parent_t_new_frame\": {\"position\": {\"z\": 0.05},"
                    " \"orientation\": {\"w\": 1}}, \"designate_as_attachment_frame\": true}"},
    {"DeleteFrame", "{\"world_id\": \"w\", \"frame\": {\"by_name\": {\"object_name\": \"table\","
                    " \"frame_name\": \"edge\"}}}"},
    {"UpdateFrameName", "{\"world_id\": \"w\", \"frame\": {\"by_name\": {\"object_name\": \"table\","
                        " \"frame_name\": \"edge\"}}, \"name\": \"rim\"}"},
    {"ReparentFrame", "{\"world_id\": \"w\", \"frame\": {\"by_name\": {\"object_name\": \"table\","
                      " \"frame_name\": \"edge\"}}, \"parent_object\": {\"reference\": {\"by_name\":"
                      " {\"object_name\": \"cup\"}}}}"},
    {"UpdateFrameProperties", "{\"world_id\": \"w\", \"frame\": {\"by_name\": {\"object_name\": \"table\","
                              " \"frame_name\": \"edge\"}}, \"is_attachment_frame\": true}"},
    {"GetTransform", "{\"world_id\": \"w\", \"node_a\": {\"by_name\": {\"object\": {\"object_name\": \"table\"}}},"
                     " \"node_b\": {\"by_name\": {\"frame\": {\"object_name\": \"table\", \"frame_name\": \"edge\"}}}}"},
    {"UpdateTransform", "{\"world_id\": \"w\", \"node_a\": {\"by_name\": {\"object\": {\"object_name\": \"table\"}}},"
                        " \"node_b\": {\"by_name\": {\"frame\": {\"object_name\": \"table\","
                        " \"frame_name\": \"edge\"}}}, \"a_t_b\": {\"position\": {\"x\": 0.2}, \"orientation\": {\"w\": 1}}}"},
    {"UpdateWorldResources", "{\"world_id\": \"w\", \"world_updates\": {\"updates\": ["
                             "{\"update_object_name\": {\"object\": {\"by_name\": {\"object_name\": \"cup\"}},"
                             " \"name\": \"mug\"}},"
                             " {\"create_frame\": {\"parent_object\": {\"by_name\": {\"object_name\": \"mug\"}},"
                             " \"new_frame_name\": \"handle\"}}]}}"},
    {"AreFootprintsCompatible", "{\"world_id\": \"w\"}"},
    {"CompareWorlds", "{\"base_world_id\": \"w\", \"changed_world_id\": \"w\", \"unique_id_mode\": \"BY_NAME\"}"},
    {"SyncObject", "{\"from_world_id\": \"w\", \"to_world_id\": \"w\","
                   " \"object\": {\"by_name\": {\"object_name\": \"cup\"}}}"},    /* GeometryService: mesh files for the OBJ and STL reader (a square of
     * two triangles; one ASCII STL triangle), and a primitive to get back. */
    {"CreateGeometry", "{\"data\": {\"obj_data\": \"diAwIDAgMAp2IDEgMCAwCnYgMSAxIDAKdiAwIDEgMApmIDEgMiAzIDQK\"}}"},
    {"CreateGeometry", "{\"data\": {\"stl_bytes\": \"c29saWQgYQpmYWNldCBub3JtYWwgMCAwIDEKb3V0ZXIgbG9vcAp2ZXJ0ZXggMCAw"
                       "IDAKdmVydGV4IDEgMCAwCnZlcnRleCAwIDIgMAplbmRsb29wCmVuZGZhY2V0CmVuZHNvbGlkIGEK\"}}"},
    {"GetGeometry", "{\"geometry_storage_refs\": {\"exact_geometry_ref\": \"worldkit-geometry:beef\"}}"},
    /* v1 inline: a triangle mesh (checked, then read as OBJ) and a primitive set. */
    {"CreateGeometry", "{\"data\": {\"inline_geometry\": {\"exact_geometry\": {\"triangle_mesh\":"
                       " {\"vertices\": [0, 0, 0, 1, 0, 0, 0, 2, 0], \"faces\": [0, 1, 2]}}}}}"},
    {"CreateGeometry", "{\"data\": {\"primitive_set\": {\"primitives\": [{\"shape\": {\"sphere\":"
                       " {\"radius\": 0.5}}}]}}}"},
};

static bool ignore(void *ctx, const uint8_t *msg, size_t len)
{
    (void)ctx, (void)msg, (void)len;
    return true;
}

/* The index of the method called name; false when no service has it. */
static bool method_index(const char *name, size_t *index)
{
    wk_json_method m;
    for (size_t i = 0; wk_json_method_at(i, &m); i++)
        if (!strcmp(m.name, name)) {
            *index = i;
            return true;
        }
    return false;
}

/* Writes one seed and says what the fuzz world answers to it. */
static int write_seed(const char *dir, const struct seed *s, int n)
{
    size_t index;
    wk_json_method m;
    wk_status st = {0};
    wk_buf bytes = {0};
    if (!method_index(s->method, &index) || !wk_json_method_at(index, &m)) {
        fprintf(stderr, "no method %s\n", s->method);
        return 1;
    }
    if (index > 255 || wk_buf_append(&bytes, &(uint8_t){(uint8_t)index}, 1) ||
        wk_json_to_bytes(m.input, s->json, strlen(s->json), NULL, &bytes, &st)) {
        fprintf(stderr, "%s: %s\n", s->method, st.message);
        wk_buf_free(&bytes);
        return 1;
    }
    char path[4096], call_path[256];
    snprintf(path, sizeof path, "%s/%s_%d", dir, s->method, n);
    FILE *f = fopen(path, "wb");
    bool written = f && fwrite(bytes.data, 1, bytes.len, f) == bytes.len;
    if (f)
        written = !fclose(f) && written;
    wk_api *api = fuzz_invoke_world();
    wk_api_sink sink = {.write = ignore};
    if (written && api && fuzz_invoke_path(index, call_path, sizeof call_path))
        printf("%-40s %2d %s\n", path, wk_api_invoke(api, call_path, bytes.data + 1, bytes.len - 1, &sink),
               sink.message);
    wk_api_free(api);
    wk_buf_free(&bytes);
    if (!written)
        fprintf(stderr, "cannot write %s\n", path);
    return written ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
        return 2;
    }
    int failed = 0;
    for (size_t i = 0; i < sizeof seeds / sizeof seeds[0]; i++) {
        int n = 0;
        for (size_t j = 0; j < i; j++)
            n += !strcmp(seeds[j].method, seeds[i].method);
        failed |= write_seed(argv[1], &seeds[i], n);
    }
    return failed;
}
