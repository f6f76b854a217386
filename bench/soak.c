/* soak.c — memory under world churn: the api in-process, with its store in
 * memory, runs cycles of LoadWorld (a world of 5,000 models, so its
 * component arrays are large enough to get mappings of their own), CloneWorld
 * of it, SpawnEntities of 16 models and DeleteEntity of each, and DeleteWorld
 * of the clone, for WK_BENCH_SECONDS (default 600) seconds. The process's
 * resident memory is read after every cycle; after a warm-up (a fifth of the
 * run) it must stay flat, so the figure is
 *   soak.world_churn_rss_growth_mb  MB, RSS at the end minus RSS after the warm-up
 * beside soak.world_churn_rss_peak_mb and the cycles run. Every call must
 * answer OK: a soak of failing calls measures nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BENCH_NAME "bench/soak"
#include "bench.h"
#include "invoke.h"
#include "intrinsic/world/proto/object_world_service.pb-c.h"
#include "simulation_interfaces/simulation_interfaces.pb-c.h"
#include "worldkit/wk_api.h"

#define MODELS 5000
#define SPAWNS 16
#define SI "/simulation_interfaces.SimulationInterfaces/"
#define OWS "/intrinsic_proto.world.ObjectWorldService/"

static double rss_mb(void)
{
    long size = 0, pages = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f || fscanf(f, "%ld %ld", &size, &pages) != 2)
        die("cannot read /proc/self/statm");
    fclose(f);
    return (double)pages * (double)sysconf(_SC_PAGESIZE) / 1048576.0;
}

/* The world and the model spawned, in dir. */
static void write_files(const char *dir, char *world, char *model, size_t cap)
{
    snprintf(world, cap, "%s/churn.sdf", dir);
    snprintf(model, cap, "%s/crate.sdf", dir);
    FILE *w = fopen(world, "w"), *m = fopen(model, "w");
    if (!w || !m)
        die("cannot write in %s", dir);
    fputs("<?xml version=\"1.0\"?>\n<sdf version=\"1.9\"><world name=\"churn\">\n", w);
    for (int i = 0; i < MODELS; i++)
        fprintf(w,
                "<model name=\"m%d\"><pose>%d %d 0 0 0 0.1</pose><link name=\"body\"><collision name=\"c\">"
                "<geometry><box><size>1 1 1</size></box></geometry></collision></link></model>\n",
                i, i % 100, i / 100);
    fputs("</world></sdf>\n", w);
    fputs("<?xml version=\"1.0\"?>\n<sdf version=\"1.9\"><model name=\"crate\"><link name=\"body\">"
          "<collision name=\"c\"><geometry><box><size>0.5 0.5 0.5</size></box></geometry></collision>"
          "</link></model></sdf>\n",
          m);
    fclose(w);
    fclose(m);
}

static void cycle(wk_api *api, char *world, char *model, wk_buf *out)
{
    SimulationInterfaces__LoadWorldRequest load = SIMULATION_INTERFACES__LOAD_WORLD_REQUEST__INIT;
    load.uri = world;
    bench_invoke(api, NULL, SI "LoadWorld", &load.base, out, true);

    IntrinsicProto__World__CloneWorldRequest clone = INTRINSIC_PROTO__WORLD__CLONE_WORLD_REQUEST__INIT;
    clone.world_id = "world";
    clone.cloned_world_id = "churn";
    bench_invoke(api, NULL, OWS "CloneWorld", &clone.base, out, true);

    SimulationInterfaces__Resource resource = SIMULATION_INTERFACES__RESOURCE__INIT;
    resource.uri = model;
    SimulationInterfaces__SpawnEntityRequest one = SIMULATION_INTERFACES__SPAWN_ENTITY_REQUEST__INIT;
    one.entity_resource = &resource;
    one.has_allow_renaming = 1;
    one.allow_renaming = 1;
    SimulationInterfaces__SpawnEntityRequest *spawns[SPAWNS];
    for (int i = 0; i < SPAWNS; i++)
        spawns[i] = &one;
    SimulationInterfaces__SpawnEntitiesRequest spawn = SIMULATION_INTERFACES__SPAWN_ENTITIES_REQUEST__INIT;
    spawn.n_spawn_requests = SPAWNS;
    spawn.spawn_requests = spawns;
    bench_invoke(api, NULL, SI "SpawnEntities", &spawn.base, out, true);
    SimulationInterfaces__SpawnEntitiesResponse *spawned =
        simulation_interfaces__spawn_entities_response__unpack(NULL, out->len, out->data);
    if (!spawned || spawned->n_results != SPAWNS)
        die("SpawnEntities: no reply of %d results", SPAWNS);
    for (size_t i = 0; i < spawned->n_results; i++) {
        SimulationInterfaces__DeleteEntityRequest del = SIMULATION_INTERFACES__DELETE_ENTITY_REQUEST__INIT;
        del.entity = spawned->results[i]->entity_name;
        bench_invoke(api, NULL, SI "DeleteEntity", &del.base, out, true);
    }
    simulation_interfaces__spawn_entities_response__free_unpacked(spawned, NULL);

    IntrinsicProto__World__DeleteWorldRequest drop = INTRINSIC_PROTO__WORLD__DELETE_WORLD_REQUEST__INIT;
    drop.world_id = "churn";
    bench_invoke(api, NULL, OWS "DeleteWorld", &drop.base, out, true);
}

int main(void)
{
    const char *env = getenv("WK_BENCH_SECONDS");
    double seconds = env ? strtod(env, NULL) : 600;
    if (!(seconds > 0))
        die("WK_BENCH_SECONDS=%s: a positive number of seconds, please", env);
    char dir[] = "/tmp/wk_soak_XXXXXX", world[256], model[256];
    if (!mkdtemp(dir))
        die("no temporary folder");
    write_files(dir, world, model, sizeof world);
    const char *roots[] = {dir, NULL};
    wk_api *api = wk_api_new_desc(&(wk_api_desc){.roots = roots});
    if (!api)
        die("no api");
    wk_buf out = {0};
    double start = now_s(), warm_up = seconds / 5, rss_warm = 0, rss = 0, peak = 0;
    long cycles = 0;
    bool warm = false;
    while (now_s() - start < seconds) {
        cycle(api, world, model, &out);
        cycles++;
        rss = rss_mb();
        peak = rss > peak ? rss : peak;
        if (!warm && now_s() - start >= warm_up) {
            warm = true;
            rss_warm = rss;
            fprintf(stderr, "bench/soak: %ld cycles in the %.0f s warm-up, RSS %.1f MB\n", cycles, warm_up, rss);
        }
    }
    if (!warm)
        die("the run ended before its warm-up did");
    fprintf(stderr, "bench/soak: %ld cycles in %.0f s, RSS %.1f MB at the end\n", cycles, now_s() - start, rss);
    printf("bench soak.world_churn_rss_growth_mb %.1f MB\n", rss - rss_warm);
    printf("bench soak.world_churn_rss_peak_mb %.1f MB\n", peak);
    printf("bench soak.world_churn_cycles %ld cycles\n", cycles);
    wk_buf_free(&out);
    wk_api_free(api);
    remove(world);
    remove(model);
    rmdir(dir);
    return 0;
}
