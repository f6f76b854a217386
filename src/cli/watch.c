/* watch.c — `worldkit watch [--world ID] [--rate HZ]`: follows a world's
 * change stream (worldkit.WorldWatch/Watch) and prints each message as one
 * line of JSON, the full state first, then what changed, until the server
 * ends the stream or the command is stopped; for people and pipelines
 * (`worldkit watch | jq .version`). */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "client.h"
#include "worldkit/watch.pb-c.h"

#define USAGE                                                                                        \
    "watch [--rate HZ] [--kind NAME]... " WK_CLIENT_USAGE                                            \
    "\n       (--world: the store world to watch, 'world' unless given; --rate: messages a second " \
    "at most, 30 unless given; --kind: only components of that type, e.g. ParentPose)"

#define KINDS_MAX 64

int wk_cli_watch(int argc, char **argv)
{
    wk_client c;
    if (!wk_client_options(&argc, argv, &c))
        return 2;
    Worldkit__WatchRequest req = WORLDKIT__WATCH_REQUEST__INIT;
    char *kinds[KINDS_MAX];
    req.component_kinds = kinds;
    for (int i = 1; i < argc; i += 2) {
        if (i + 1 >= argc)
            return wk_cli_usage_error(USAGE, "%s needs a value", argv[i]);
        if (!strcmp(argv[i], "--rate")) {
            if (!wk_cli_finite(argv[i + 1], &req.max_rate_hz) || req.max_rate_hz <= 0)
                return wk_cli_usage_error(USAGE, "--rate takes a number above 0, not '%s'", argv[i + 1]);
            req.has_max_rate_hz = true;
        } else if (!strcmp(argv[i], "--kind")) {
            if (req.n_component_kinds == KINDS_MAX)
                return wk_cli_usage_error(USAGE, "at most %d --kind", KINDS_MAX);
            kinds[req.n_component_kinds++] = argv[i + 1];
        } else {
            return wk_cli_usage_error(USAGE, "unknown argument '%s'", argv[i]);
        }
    }
    /* The world travels in the request: a watch is not a simulation call. */
    req.world_id = (char *)(c.world ? c.world : "");
    c.world = NULL;
    c.one_line = true;
    wk_json_method m;
    wk_status st = {0};
    if (wk_json_find_method("worldkit.WorldWatch/Watch", &m, &st)) {
        fprintf(stderr, "worldkit: %s\n", st.message);
        return 1;
    }
    wk_buf bytes = {0};
    size_t size = worldkit__watch_request__get_packed_size(&req);
    if (wk_buf_reserve(&bytes, size ? size : 1)) {
        fprintf(stderr, "worldkit: out of memory\n");
        return 1;
    }
    bytes.len = worldkit__watch_request__pack(&req, bytes.data);
    int rc = wk_client_call(&c, &m, bytes.data, bytes.len, NULL);
    wk_buf_free(&bytes);
    return rc;
}
