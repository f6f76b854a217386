/* call_short.c — the short forms of `worldkit call` for daily use: each
 * builds its request message from its arguments and calls one method, then
 * prints the response as `call` does.
 *
 *   worlds                       ObjectWorldService/ListWorlds
 *   spawn FILE [--name N] [--pose x y z roll pitch yaw] [--ignore-missing-assets]
 *                                SimulationInterfaces/SpawnEntities
 *   tf A B [--world ID]          ObjectWorldService/GetTransform (a_t_b)
 *   state [playing|paused|stopped]
 *                                SimulationInterfaces/Get|SetSimulationState
 *   step N                       SimulationInterfaces/StepSimulation
 *   levels                       worldkit.Levels/ListLevels
 *   performer NAME               worldkit.Levels/SetPerformer
 *
 * For the simulation_interfaces methods the exit status also reflects the
 * response's Result: 1 when it is not OK, with its message on stderr (but
 * `state X` when the simulation is in state X already exits 0). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "client.h"
#include "intrinsic/world/proto/object_world_service.pb-c.h"
#include "simulation_interfaces/simulation_interfaces.pb-c.h"
#include "worldkit/levels.pb-c.h"
#include "worldkit/wk_math.h"
#include "worldkit/wk_sim.h"

#define WORLDS_USAGE "worlds " WK_CLIENT_USAGE
#define SPAWN_USAGE                                                      \
    "spawn FILE [--name NAME] [--pose x y z roll pitch yaw] [--ignore-missing-assets] " WK_CLIENT_USAGE \
    "\n       (--pose: metres and radians, as SDFormat's <pose>; --ignore-missing-assets: a mesh not found\n" \
    "       or not fetched is a warning, not a failure)"
#define TF_USAGE                     \
    "tf A B " WK_CLIENT_USAGE \
    "\n       (A, B: OBJECT, OBJECT/FRAME or a scoped OBJECT::LINK; ID defaults to 'world'; prints a_t_b)"
#define STATE_USAGE "state [playing|paused|stopped] " WK_CLIENT_USAGE
#define STEP_USAGE "step N " WK_CLIENT_USAGE "\n       (N >= 1)"
#define LEVELS_USAGE "levels " WK_CLIENT_USAGE
#define PERFORMER_USAGE "performer NAME " WK_CLIENT_USAGE "\n       (NAME: an entity directly under the world)"

/* The message's `result` field when it is a simulation_interfaces Result. */
static const SimulationInterfaces__Result *result_of(const ProtobufCMessage *msg)
{
    const ProtobufCFieldDescriptor *f = protobuf_c_message_descriptor_get_field_by_name(msg->descriptor, "result");
    if (!f || f->type != PROTOBUF_C_TYPE_MESSAGE || f->descriptor != &simulation_interfaces__result__descriptor ||
        f->label == PROTOBUF_C_LABEL_REPEATED)
        return NULL;
    return *(const SimulationInterfaces__Result **)((const char *)msg + f->offset);
}

/* One line on stderr for a Result that is not OK: its code, its name and
 * its message, after the field and index of an entry's (field NULL for the
 * response's own). */
static void report(const wk_json_method *m, const char *field, size_t index, const SimulationInterfaces__Result *r)
{
    const char *name = wk_api_result_name(m->name, r->result);
    fprintf(stderr, "worldkit: %s: ", m->name);
    if (field)
        fprintf(stderr, "%s[%zu]: ", field, index);
    fprintf(stderr, "result %u %s: %s\n", (unsigned)r->result, name ? name : "(unnamed)",
            r->error_message ? r->error_message : "");
}

/* Reports the Results inside the response's repeated messages that are not
 * OK (SpawnEntities' per-entity results), which say what went wrong where
 * the top-level one only counts the failures. */
static void report_inner_results(const wk_json_method *m, const ProtobufCMessage *r)
{
    const ProtobufCMessageDescriptor *d = r->descriptor;
    for (unsigned i = 0; i < d->n_fields; i++) {
        const ProtobufCFieldDescriptor *f = &d->fields[i];
        if (f->label != PROTOBUF_C_LABEL_REPEATED || f->type != PROTOBUF_C_TYPE_MESSAGE)
            continue;
        size_t n = *(const size_t *)((const char *)r + f->quantifier_offset);
        ProtobufCMessage *const *items = *(ProtobufCMessage *const **)((const char *)r + f->offset);
        for (size_t k = 0; k < n; k++) {
            const SimulationInterfaces__Result *inner = result_of(items[k]);
            if (inner && inner->result != WK_RESULT_OK)
                report(m, f->name, k, inner);
        }
    }
}

/* A Result in the response's `result` field other than OK, reported; it
 * fails the command unless it is fine, the outcome the command wants
 * reached another way (WK_RESULT_OK when there is none). */
static int check_result(const wk_json_method *m, const wk_buf *response, uint32_t fine)
{
    ProtobufCMessage *r = protobuf_c_message_unpack(m->output, NULL, response->len, response->data);
    if (!r)
        return 1; /* printed as JSON already, so it did parse: out of memory */
    const SimulationInterfaces__Result *result = result_of(r);
    int rc = 0;
    if (result && result->result != WK_RESULT_OK) {
        report(m, NULL, 0, result);
        report_inner_results(m, r);
        rc = result->result != fine;
    }
    protobuf_c_message_free_unpacked(r, NULL);
    return rc;
}

/* Calls the method at path with request, printing the response; fine is
 * a Result that does not fail the command (check_result). */
static int call_accepting(const wk_client *c, const char *path, const ProtobufCMessage *request, uint32_t fine)
{
    wk_json_method m;
    wk_status st = {0};
    if (wk_json_find_method(path, &m, &st)) {
        fprintf(stderr, "worldkit: %s\n", st.message);
        return 1;
    }
    wk_buf bytes = {0}, response = {0};
    size_t size = protobuf_c_message_get_packed_size(request);
    if (wk_buf_reserve(&bytes, size ? size : 1)) {
        fprintf(stderr, "worldkit: out of memory\n");
        return 1;
    }
    bytes.len = protobuf_c_message_pack(request, bytes.data);
    int rc = wk_client_call(c, &m, bytes.data, bytes.len, &response);
    if (rc == 0 && response.data)
        rc = check_result(&m, &response, fine);
    wk_buf_free(&bytes);
    wk_buf_free(&response);
    return rc;
}

static int call(const wk_client *c, const char *path, const ProtobufCMessage *request)
{
    return call_accepting(c, path, request, WK_RESULT_OK);
}

int wk_cli_worlds(int argc, char **argv)
{
    wk_client c;
    if (!wk_client_options(&argc, argv, &c))
        return 2;
    if (argc != 1)
        return wk_cli_usage_error(WORLDS_USAGE, "worlds takes no argument, not '%s'", argv[1]);
    IntrinsicProto__World__ListWorldsRequest req = INTRINSIC_PROTO__WORLD__LIST_WORLDS_REQUEST__INIT;
    return call(&c, "intrinsic_proto.world.ObjectWorldService/ListWorlds", &req.base);
}

int wk_cli_spawn(int argc, char **argv)
{
    wk_client c;
    if (!wk_client_options(&argc, argv, &c))
        return 2;
    const char *file = NULL, *name = NULL;
    double pose[6];
    bool posed = false, ignore_assets = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--ignore-missing-assets")) {
            ignore_assets = true;
        } else if (!strcmp(argv[i], "--name") && i + 1 < argc) {
            name = argv[++i];
        } else if (!strcmp(argv[i], "--pose") && i + 6 < argc) {
            for (int k = 0; k < 6; k++)
                if (!wk_cli_finite(argv[++i], &pose[k]))
                    return wk_cli_usage_error(SPAWN_USAGE, "--pose: '%s' is not a finite number", argv[i]);
            posed = true;
        } else if (!strcmp(argv[i], "--name") || !strcmp(argv[i], "--pose")) {
            return wk_cli_usage_error(SPAWN_USAGE, "%s needs %s", argv[i],
                                      argv[i][2] == 'n' ? "a value" : "6 numbers: x y z roll pitch yaw");
        } else if (argv[i][0] != '-' && !file) {
            file = argv[i];
        } else {
            return wk_cli_usage_error(SPAWN_USAGE, "unexpected argument '%s'", argv[i]);
        }
    }
    if (!file)
        return wk_cli_usage_error(SPAWN_USAGE, "no FILE to spawn");
    char why[128];
    if (posed && wk_translation_problem((wk_vec3){pose[0], pose[1], pose[2]}, why, sizeof why))
        return wk_cli_usage_error(SPAWN_USAGE, "--pose: %s", why);
    /* The server reads the file: give it a path that does not depend on
     * where this command runs. */
    struct stat st;
    char *uri = realpath(file, NULL);
    if (!uri || stat(uri, &st) || !S_ISREG(st.st_mode)) {
        fprintf(stderr, "worldkit: spawn '%s': %s\n", file, uri ? "not a regular file" : strerror(errno));
        free(uri);
        return 1;
    }
    SimulationInterfaces__Resource resource = SIMULATION_INTERFACES__RESOURCE__INIT;
    resource.uri = uri;
    SimulationInterfaces__Point position = SIMULATION_INTERFACES__POINT__INIT;
    SimulationInterfaces__Quaternion orientation = SIMULATION_INTERFACES__QUATERNION__INIT;
    SimulationInterfaces__Pose p = SIMULATION_INTERFACES__POSE__INIT;
    SimulationInterfaces__PoseStamped stamped = SIMULATION_INTERFACES__POSE_STAMPED__INIT;
    SimulationInterfaces__SpawnEntityRequest spawn = SIMULATION_INTERFACES__SPAWN_ENTITY_REQUEST__INIT;
    spawn.entity_resource = &resource;
    /* Without a name, the file's own is used, made unique if taken. */
    spawn.name = (char *)name;
    spawn.has_allow_renaming = 1;
    spawn.allow_renaming = name == NULL;
    spawn.has_ignore_missing_or_unsupported_assets = ignore_assets;
    spawn.ignore_missing_or_unsupported_assets = ignore_assets;
    if (posed) {
        wk_quat q = wk_quat_from_rpy(pose[3], pose[4], pose[5]);
        position = (SimulationInterfaces__Point)SIMULATION_INTERFACES__POINT__INIT;
        position.has_x = position.has_y = position.has_z = 1;
        position.x = pose[0], position.y = pose[1], position.z = pose[2];
        orientation.has_x = orientation.has_y = orientation.has_z = orientation.has_w = 1;
        orientation.x = q.x, orientation.y = q.y, orientation.z = q.z, orientation.w = q.w;
        p.position = &position;
        p.orientation = &orientation;
        stamped.pose = &p;
        spawn.initial_pose = &stamped;
    }
    SimulationInterfaces__SpawnEntityRequest *spawns[] = {&spawn};
    SimulationInterfaces__SpawnEntitiesRequest req = SIMULATION_INTERFACES__SPAWN_ENTITIES_REQUEST__INIT;
    req.n_spawn_requests = 1;
    req.spawn_requests = spawns;
    int rc = call(&c, "simulation_interfaces.SimulationInterfaces/SpawnEntities", &req.base);
    free(uri);
    return rc;
}

/* A node of the transform tree by name: "OBJECT" or "OBJECT/FRAME". The
 * strings point into name, whose '/' becomes '\0'. */
typedef struct node_ref {
    IntrinsicProto__World__ObjectReferenceByName object;
    IntrinsicProto__World__FrameReferenceByName frame;
    IntrinsicProto__World__TransformNodeReferenceByName by_name;
    IntrinsicProto__World__TransformNodeReference ref;
    IntrinsicProto__World__ObjectEntityFilter filter; /* a link's, for OBJECT::ENTITY */
    char *entity;
} node_ref;

/* The last "::" of a scoped name, or NULL. */
static char *last_scope(char *name)
{
    char *last = NULL;
    for (char *sep = strstr(name, "::"); sep; sep = strstr(sep + 2, "::"))
        last = sep;
    return last;
}

static void node_by_name(node_ref *n, char *name)
{
    n->object = (IntrinsicProto__World__ObjectReferenceByName)INTRINSIC_PROTO__WORLD__OBJECT_REFERENCE_BY_NAME__INIT;
    n->frame = (IntrinsicProto__World__FrameReferenceByName)INTRINSIC_PROTO__WORLD__FRAME_REFERENCE_BY_NAME__INIT;
    n->by_name = (IntrinsicProto__World__TransformNodeReferenceByName)
        INTRINSIC_PROTO__WORLD__TRANSFORM_NODE_REFERENCE_BY_NAME__INIT;
    n->ref = (IntrinsicProto__World__TransformNodeReference)INTRINSIC_PROTO__WORLD__TRANSFORM_NODE_REFERENCE__INIT;
    n->filter = (IntrinsicProto__World__ObjectEntityFilter)INTRINSIC_PROTO__WORLD__OBJECT_ENTITY_FILTER__INIT;
    /* A scoped name, as SDFormat and `poses` write it (model::link, or
     * model::nested::link): the last part is an entity of the object the
     * part before it names (nested models are objects of their own). */
    char *scope = last_scope(name);
    if (scope) {
        *scope = '\0';
        n->entity = scope + 2;
        n->filter.n_entity_names = 1;
        n->filter.entity_names = &n->entity;
        char *object = last_scope(name);
        name = object ? object + 2 : name;
    }
    char *slash = strchr(name, '/');
    if (slash) {
        *slash = '\0';
        n->frame.object_name = name;
        n->frame.frame_name = slash + 1;
        n->by_name.transform_node_reference_by_name_case =
            INTRINSIC_PROTO__WORLD__TRANSFORM_NODE_REFERENCE_BY_NAME__TRANSFORM_NODE_REFERENCE_BY_NAME_FRAME;
        n->by_name.frame = &n->frame;
    } else {
        n->object.object_name = name;
        n->by_name.transform_node_reference_by_name_case =
            INTRINSIC_PROTO__WORLD__TRANSFORM_NODE_REFERENCE_BY_NAME__TRANSFORM_NODE_REFERENCE_BY_NAME_OBJECT;
        n->by_name.object = &n->object;
    }
    n->ref.transform_node_reference_case =
        INTRINSIC_PROTO__WORLD__TRANSFORM_NODE_REFERENCE__TRANSFORM_NODE_REFERENCE_BY_NAME;
    n->ref.by_name = &n->by_name;
}

/* "OBJECT", "OBJECT/FRAME" or a scoped "OBJECT::ENTITY", no name empty. */
static bool node_name_ok(const char *name)
{
    const char *slash = strchr(name, '/'), *scope = strstr(name, "::");
    if (scope)
        return !slash && name != scope && scope[2] && !strstr(name, "::::") &&
               strcmp(name + strlen(name) - 2, "::") != 0;
    return name[0] && name[0] != '/' && (!slash || (slash[1] && !strchr(slash + 1, '/')));
}

int wk_cli_tf(int argc, char **argv)
{
    wk_client c;
    if (!wk_client_options(&argc, argv, &c))
        return 2;
    char *names[2] = {NULL, NULL};
    const char *world = c.world ? c.world : "world";
    int n = 0;
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] != '-' && n < 2)
            names[n++] = argv[i];
        else
            return wk_cli_usage_error(TF_USAGE, "unexpected argument '%s'", argv[i]);
    }
    if (n != 2)
        return wk_cli_usage_error(TF_USAGE, "tf takes two nodes, A and B");
    for (int i = 0; i < 2; i++)
        if (!node_name_ok(names[i]))
            return wk_cli_usage_error(TF_USAGE, "'%s' is not OBJECT, OBJECT/FRAME or OBJECT::LINK", names[i]);
    node_ref a, b;
    node_by_name(&a, names[0]);
    node_by_name(&b, names[1]);
    IntrinsicProto__World__GetTransformRequest req = INTRINSIC_PROTO__WORLD__GET_TRANSFORM_REQUEST__INIT;
    req.world_id = (char *)world;
    req.node_a = &a.ref;
    req.node_b = &b.ref;
    req.node_a_filter = a.filter.n_entity_names ? &a.filter : NULL;
    req.node_b_filter = b.filter.n_entity_names ? &b.filter : NULL;
    return call(&c, "intrinsic_proto.world.ObjectWorldService/GetTransform", &req.base);
}

int wk_cli_state(int argc, char **argv)
{
    static const struct {
        const char *name;
        wk_sim_state state;
    } states[] = {{"stopped", WK_SIM_STOPPED}, {"playing", WK_SIM_PLAYING}, {"paused", WK_SIM_PAUSED}};
    wk_client c;
    if (!wk_client_options(&argc, argv, &c))
        return 2;
    if (argc == 1) {
        SimulationInterfaces__GetSimulationStateRequest get = SIMULATION_INTERFACES__GET_SIMULATION_STATE_REQUEST__INIT;
        return call(&c, "simulation_interfaces.SimulationInterfaces/GetSimulationState", &get.base);
    }
    if (argc > 2)
        return wk_cli_usage_error(STATE_USAGE, "state takes one state, not '%s' too", argv[2]);
    for (size_t i = 0; i < sizeof states / sizeof states[0]; i++)
        if (!strcmp(argv[1], states[i].name)) {
            SimulationInterfaces__SimulationState state = SIMULATION_INTERFACES__SIMULATION_STATE__INIT;
            state.has_state = 1;
            state.state = (uint32_t)states[i].state;
            SimulationInterfaces__SetSimulationStateRequest set =
                SIMULATION_INTERFACES__SET_SIMULATION_STATE_REQUEST__INIT;
            set.state = &state;
            /* A script that wants the simulation paused has it so when it
             * was paused already: said on stderr, not a failure. */
            return call_accepting(&c, "simulation_interfaces.SimulationInterfaces/SetSimulationState", &set.base,
                                  WK_SET_STATE_ALREADY_IN_TARGET_STATE);
        }
    return wk_cli_usage_error(STATE_USAGE, "'%s' is not a state: playing, paused or stopped", argv[1]);
}

int wk_cli_step(int argc, char **argv)
{
    wk_client c;
    if (!wk_client_options(&argc, argv, &c))
        return 2;
    unsigned long long steps = 0;
    if (argc != 2)
        return wk_cli_usage_error(STEP_USAGE, "step takes one count N");
    if (!wk_cli_count(argv[1], &steps) || !steps)
        return wk_cli_usage_error(STEP_USAGE, "'%s' is not a count from 1 to 18446744073709551615", argv[1]);
    SimulationInterfaces__StepSimulationRequest req = SIMULATION_INTERFACES__STEP_SIMULATION_REQUEST__INIT;
    req.has_steps = 1;
    req.steps = steps;
    return call(&c, "simulation_interfaces.SimulationInterfaces/StepSimulation", &req.base);
}

int wk_cli_levels(int argc, char **argv)
{
    wk_client c;
    if (!wk_client_options(&argc, argv, &c))
        return 2;
    if (argc != 1)
        return wk_cli_usage_error(LEVELS_USAGE, "levels takes no argument, not '%s'", argv[1]);
    Worldkit__ListLevelsRequest req = WORLDKIT__LIST_LEVELS_REQUEST__INIT;
    return call(&c, "worldkit.Levels/ListLevels", &req.base);
}

int wk_cli_performer(int argc, char **argv)
{
    wk_client c;
    if (!wk_client_options(&argc, argv, &c))
        return 2;
    if (argc != 2 || argv[1][0] == '-')
        return wk_cli_usage_error(PERFORMER_USAGE, "performer takes one entity NAME");
    Worldkit__SetPerformerRequest req = WORLDKIT__SET_PERFORMER_REQUEST__INIT;
    req.name = argv[1];
    return call(&c, "worldkit.Levels/SetPerformer", &req.base);
}
