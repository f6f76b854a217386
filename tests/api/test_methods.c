/* test_methods.c — the registry of methods (src/api/methods.c): one row for
 * every method of every service worldkit serves, each naming a method its
 * service has, found by path and by name, and the features GetSimulatorFeatures
 * lists taken from the rows. */
#include <string.h>

#include "api/methods.h"
#include "grpc/health/v1/health.pb-c.h"
#include "intrinsic/world/proto/object_world_service.pb-c.h"
#include "wk_test.h"
#include "worldkit/levels.pb-c.h"
#include "worldkit/watch.pb-c.h"

static const ProtobufCServiceDescriptor *const services[] = {
    &simulation_interfaces__simulation_interfaces__descriptor,
    &intrinsic_proto__world__object_world_service__descriptor,
    &grpc__health__v1__health__descriptor,
    &worldkit__levels__descriptor,
    &worldkit__world_watch__descriptor,
};

/* Every method of the five services has exactly one row, and nothing else
 * has one; simulation_interfaces' and worldkit.Levels' run on a simulation,
 * and WorldWatch/Watch is a stream. */
static void one_row_per_method(void)
{
    size_t described = 0, rows = 0;
    for (size_t s = 0; s < sizeof services / sizeof services[0]; s++)
        for (unsigned i = 0; i < services[s]->n_methods; i++, described++) {
            const wk__method *m = wk__method_named(services[s], services[s]->methods[i].name);
            if (!CHECK(m))
                fprintf(stderr, "    no row for %s/%s\n", services[s]->name, services[s]->methods[i].name);
        }
    for (const wk__method *m; (m = wk__method_at(rows)); rows++) {
        CHECK(wk__method_request(m) != NULL);
        CHECK(wk__method_response(m) != NULL);
        CHECK_INT(!!(m->flags & WK__METHOD_SIM), ==, m->service == services[0] || m->service == services[3]);
        CHECK_INT(!m->handle, ==, m->service == services[2]);
        if (m->service == services[4])
            CHECK(m->flags & WK__METHOD_STREAMING);
    }
    CHECK_INT(rows, ==, described);
}

static void found_by_path(void)
{
    const wk__method *m = wk__method_find("/intrinsic_proto.world.ObjectWorldService/ListObjects");
    REQUIRE(m);
    CHECK_STR(m->name, "ListObjects");
    CHECK(wk__method_find("intrinsic_proto.world.ObjectWorldService/ListObjects") == m);
    CHECK(wk__method_find("/simulation_interfaces.SimulationInterfaces/ListObjects") == NULL);
    CHECK(wk__method_find("/intrinsic_proto.world.ObjectWorldService") == NULL);
    CHECK(wk__method_find("ListObjects") == NULL);
    CHECK(wk__method_find(NULL) == NULL);
    m = wk__method_find("/simulation_interfaces.SimulationInterfaces/SimulateSteps");
    REQUIRE(m);
    CHECK(m->flags & WK__METHOD_STREAMING);
    CHECK(wk__method_response(m) == &simulation_interfaces__simulate_steps_result__descriptor);
    /* A method of the transport's own is listed, but served by the server. */
    CHECK(wk_api_has_method("/grpc.health.v1.Health/Check", NULL) == false);
    bool streaming = false;
    CHECK(wk_api_has_method("/simulation_interfaces.SimulationInterfaces/SimulateSteps", &streaming));
    CHECK(streaming);
}

/* The features are the rows', ascending, each once. */
static void features(void)
{
    uint32_t f[64];
    size_t n = wk__method_features(f, 64);
    REQUIRE_INT(n, <=, 64);
    CHECK_INT(n, >, 20);
    for (size_t i = 1; i < n; i++)
        CHECK_INT(f[i - 1], <, f[i]);
    size_t listed = 0;
    for (size_t i = 0; wk__method_at(i); i++)
        for (size_t k = 0; k < wk__method_at(i)->feature_count; k++)
            for (size_t j = 0; j < n; j++)
                listed += f[j] == wk__method_at(i)->features[k];
    CHECK_INT(listed, >=, n);
    CHECK_INT(wk__method_features(NULL, 0), ==, n);
}

static const wk_test_case cases[] = {
    {"one_row_per_method", one_row_per_method},
    {"found_by_path", found_by_path},
    {"features", features},
};
WK_TEST_MAIN(cases)
