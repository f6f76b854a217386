/* call.c — `worldkit call METHOD [JSON]`: any RPC of the services worldkit
 * serves, its request given in proto3 JSON and each response printed as
 * JSON, over gRPC's core C client. The method table and the mapping are
 * the api layer's (wk_json_*); this file is the transport: one call with its
 * batches of operations on a completion queue, a RECV_MESSAGE per response
 * until the server closes the stream, then the status. */
#include <grpc/byte_buffer_reader.h>
#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <grpc/support/alloc.h>
#include <grpc/support/time.h>
#include <ctype.h>
#include <protobuf-c/protobuf-c.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "client.h"

#define USAGE "call " WK_CLIENT_USAGE " METHOD [JSON|-]\n       (call --list: the methods)"

/* Where the client options that take a value keep it. */
static const char **valued_option(wk_client *c, const char *name)
{
    const char *names[] = {"--server", "--token-file", "--tls-ca", "--tls-cert", "--tls-key", "--world"};
    const char **fields[] = {&c->server, &c->token_file, &c->tls_ca, &c->tls_cert, &c->tls_key, &c->world};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(name, names[i]))
            return fields[i];
    return NULL;
}

/* A deadline gRPC can hold: gpr_time_from_micros takes an int64_t. */
#define TIMEOUT_MAX 1e9

bool wk_client_options(int *argc, char **argv, wk_client *c)
{
    const char *env = getenv("WORLDKIT_SERVER");
    *c = (wk_client){.server = env && env[0] ? env : "127.0.0.1:50051"};
    int kept = 1;
    for (int i = 1; i < *argc; i++) {
        const char **value = valued_option(c, argv[i]);
        bool timeout = !strcmp(argv[i], "--timeout");
        if ((value || timeout) && i + 1 == *argc) {
            fprintf(stderr, "worldkit: %s needs a value\n", argv[i]);
            return false;
        }
        if (value) {
            *value = argv[++i];
        } else if (timeout) {
            if (!wk_cli_finite(argv[++i], &c->timeout) || c->timeout < 0 || c->timeout > TIMEOUT_MAX) {
                fprintf(stderr, "worldkit: --timeout takes seconds from 0 (none) to 1e9, not '%s'\n", argv[i]);
                return false;
            }
        } else if (!strcmp(argv[i], "--tls")) {
            c->tls = true;
        } else {
            argv[kept++] = argv[i];
        }
    }
    c->tls |= c->tls_ca || c->tls_cert || c->tls_key;
    *argc = kept;
    return wk_cli_address_ok(env && c->server == env ? "WORLDKIT_SERVER" : "--server", c->server);
}

static const char *status_name(grpc_status_code code)
{
    static const char *const names[] = {
        "OK",           "CANCELLED",         "UNKNOWN",           "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
        "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE",
        "UNIMPLEMENTED", "INTERNAL",          "UNAVAILABLE",       "DATA_LOSS",        "UNAUTHENTICATED",
    };
    return (unsigned)code < sizeof names / sizeof names[0] ? names[code] : "UNKNOWN";
}

/* Runs one batch of ops on call and waits for it on cq. */
static bool run_batch(grpc_call *call, grpc_completion_queue *cq, const grpc_op *ops, size_t n, void *tag)
{
    if (grpc_call_start_batch(call, ops, n, tag, NULL) != GRPC_CALL_OK)
        return false;
    grpc_event ev = grpc_completion_queue_next(cq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL);
    return ev.type == GRPC_OP_COMPLETE && ev.tag == tag && ev.success;
}

/* Prints one response as JSON; false (reason printed) when it cannot. */
static bool print_response(const wk_json_method *m, grpc_byte_buffer *bb, bool one_line, wk_buf *last)
{
    grpc_byte_buffer_reader reader;
    if (!grpc_byte_buffer_reader_init(&reader, bb)) {
        fprintf(stderr, "worldkit: %s: a response could not be read\n", m->name);
        return false;
    }
    grpc_slice all = grpc_byte_buffer_reader_readall(&reader);
    grpc_byte_buffer_reader_destroy(&reader);
    const uint8_t *bytes = GRPC_SLICE_START_PTR(all);
    size_t len = GRPC_SLICE_LENGTH(all);
    wk_buf json = {0}, named = {0};
    wk_status st = {0};
    bool ok = wk_json_from_bytes(m->output, bytes, len, &(wk_json_desc){.indent = !one_line}, &json, &st) == WK_OK;
    /* simulation_interfaces' numbers are read by their names, in its
     * answers and in worldkit's Levels', which carry its Result. */
    bool names = !strcmp(m->service, "simulation_interfaces.SimulationInterfaces") ||
                 !strcmp(m->service, "worldkit.Levels");
    if (!ok) {
        fprintf(stderr, "worldkit: %s: the response is not JSON: %s\n", m->name, st.message);
    } else if (names && wk_cli_json_names(m->name, (const char *)json.data, &named)) {
        fprintf(stderr, "worldkit: %s: out of memory\n", m->name);
        ok = false;
    } else {
        printf("%s\n", (const char *)(names ? named.data : json.data));
    }
    if (ok && last) {
        last->len = 0;
        ok = wk_buf_append(last, bytes, len) == WK_OK;
    }
    wk_buf_free(&json);
    wk_buf_free(&named);
    grpc_slice_unref(all);
    return ok;
}

/* The address an UNAVAILABLE answer's trailing metadata worldkit-owner
 * names (the server holding the world, when servers share a database),
 * into owner (WK_OWNER_MAX bytes); false when there is none. */
static bool owner_of(const grpc_metadata_array *trailing, char *owner)
{
    for (size_t i = 0; i < trailing->count; i++) {
        if (grpc_slice_str_cmp(trailing->metadata[i].key, "worldkit-owner"))
            continue;
        size_t n = GRPC_SLICE_LENGTH(trailing->metadata[i].value);
        snprintf(owner, WK_OWNER_MAX, "%.*s", (int)(n < WK_OWNER_MAX ? n : WK_OWNER_MAX - 1),
                 (const char *)GRPC_SLICE_START_PTR(trailing->metadata[i].value));
        return *owner != '\0';
    }
    return false;
}

/* The call's batches: the request out and the initial metadata in, then a
 * message at a time until there is none, then the status. Returns 2, with
 * nothing printed but a note, when the answer names another server to ask
 * (owner); else the exit status. */
static int exchange(grpc_call *call, grpc_completion_queue *cq, const wk_json_method *m, const uint8_t *request,
                    size_t len, grpc_metadata *metadata, size_t metadata_count, const wk_client *c, const char *server,
                    wk_buf *last, char *owner)
{
    grpc_slice body = grpc_slice_from_copied_buffer(len ? (const char *)request : "", len);
    grpc_byte_buffer *send = grpc_raw_byte_buffer_create(&body, 1);
    grpc_slice_unref(body);
    grpc_metadata_array initial, trailing;
    grpc_metadata_array_init(&initial);
    grpc_metadata_array_init(&trailing);
    grpc_op ops[4] = {{.op = GRPC_OP_SEND_INITIAL_METADATA,
                       .data.send_initial_metadata = {.count = metadata_count, .metadata = metadata}},
                      {.op = GRPC_OP_SEND_MESSAGE, .data.send_message.send_message = send},
                      {.op = GRPC_OP_SEND_CLOSE_FROM_CLIENT},
                      {.op = GRPC_OP_RECV_INITIAL_METADATA, .data.recv_initial_metadata.recv_initial_metadata = &initial}};
    /* A failed batch is not the end: the status below says why. */
    bool connected = run_batch(call, cq, ops, 4, (void *)1), streaming = connected;
    grpc_byte_buffer_destroy(send);
    int rc = 0;
    while (streaming) {
        grpc_byte_buffer *recv = NULL;
        grpc_op op = {.op = GRPC_OP_RECV_MESSAGE, .data.recv_message.recv_message = &recv};
        if (!run_batch(call, cq, &op, 1, (void *)2) || !recv)
            break;
        if (!print_response(m, recv, c->one_line, last))
            rc = 1;
        grpc_byte_buffer_destroy(recv);
        fflush(stdout);
    }
    grpc_status_code status = GRPC_STATUS_UNKNOWN;
    grpc_slice details = grpc_empty_slice();
    const char *error = NULL;
    grpc_op op = {.op = GRPC_OP_RECV_STATUS_ON_CLIENT,
                  .data.recv_status_on_client = {.trailing_metadata = &trailing,
                                                 .status = &status,
                                                 .status_details = &details,
                                                 .error_string = &error}};
    if (!run_batch(call, cq, &op, 1, (void *)3)) {
        fprintf(stderr, "worldkit: %s: the call ended without a status\n", m->name);
        rc = 1;
    } else if (status == GRPC_STATUS_UNAVAILABLE && owner_of(&trailing, owner) && strcmp(owner, server)) {
        fprintf(stderr, "worldkit: %s: the world is served at %s: asking there\n", m->name, owner);
        rc = 2;
    } else if (status != GRPC_STATUS_OK) {
        fprintf(stderr, "worldkit: %s: %s: %.*s\n", m->name, status_name(status), (int)GRPC_SLICE_LENGTH(details),
                (const char *)GRPC_SLICE_START_PTR(details));
        /* gRPC's words for a refused connection name no cause a user knows. */
        if (status == GRPC_STATUS_UNAVAILABLE && !connected)
            fprintf(stderr, "worldkit: no server answers at %s (is `worldkit serve` running there? --server or "
                            "WORLDKIT_SERVER name another)\n", server);
        rc = 1;
    }
    grpc_slice_unref(details);
    gpr_free((void *)error);
    grpc_metadata_array_destroy(&initial);
    grpc_metadata_array_destroy(&trailing);
    return rc;
}

/* One call to server; 2 with owner set when it names another server. */
static int call_at(const wk_client *c, const char *server, const char *path, const wk_json_method *m,
                   const uint8_t *request, size_t len, wk_buf *last, char *owner)
{
    grpc_metadata metadata[2];
    size_t metadata_count;
    if (!wk_client_metadata(c, metadata, &metadata_count))
        return 1;
    /* Debian's c-ares 1.18.1 leaks a name it resolves from /etc/hosts
     * (c-ares issue 439), so "localhost" would end every call with a leak
     * report under the sanitizers; the system's resolver has no such leak.
     * A GRPC_DNS_RESOLVER the user set is kept. */
    setenv("GRPC_DNS_RESOLVER", "native", 0);
    grpc_init();
    grpc_channel_credentials *creds;
    if (!wk_client_credentials(c, &creds)) {
        wk_client_metadata_free(metadata, metadata_count);
        grpc_shutdown();
        return 1;
    }
    grpc_channel *channel = grpc_channel_create(server, creds, NULL);
    grpc_channel_credentials_release(creds);
    grpc_completion_queue *cq = grpc_completion_queue_create_for_next(NULL);
    gpr_timespec deadline = gpr_inf_future(GPR_CLOCK_REALTIME);
    if (c->timeout > 0)
        deadline = gpr_time_add(gpr_now(GPR_CLOCK_REALTIME),
                                gpr_time_from_micros((int64_t)(c->timeout * 1e6), GPR_TIMESPAN));
    grpc_slice method = grpc_slice_from_copied_string(path);
    grpc_call *call =
        grpc_channel_create_call(channel, NULL, GRPC_PROPAGATE_DEFAULTS, cq, method, NULL, deadline, NULL);
    grpc_slice_unref(method);
    int rc = 1;
    if (call) {
        rc = exchange(call, cq, m, request, len, metadata, metadata_count, c, server, last, owner);
        grpc_call_unref(call);
    } else {
        fprintf(stderr, "worldkit: %s: the call could not be made on %s\n", m->name, server);
    }
    grpc_completion_queue_shutdown(cq);
    while (grpc_completion_queue_next(cq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL).type != GRPC_QUEUE_SHUTDOWN)
        ;
    grpc_completion_queue_destroy(cq);
    grpc_channel_destroy(channel);
    wk_client_metadata_free(metadata, metadata_count);
    grpc_shutdown();
    return rc;
}

/* Servers sharing a database answer a call for a world another holds with
 * its address: the call follows it, a few times at most (a world may move
 * while it is followed). */
#define MAX_HOPS 4

int wk_client_call(const wk_client *c, const wk_json_method *m, const uint8_t *request, size_t len, wk_buf *last)
{
    char path[512];
    if ((size_t)snprintf(path, sizeof path, "/%s/%s", m->service, m->name) >= sizeof path) {
        fprintf(stderr, "worldkit: %s: method name too long\n", m->name);
        return 1;
    }
    char server[2][WK_OWNER_MAX];
    snprintf(server[0], sizeof server[0], "%s", c->server);
    int rc = 2;
    for (int hop = 0; rc == 2 && hop < MAX_HOPS; hop++)
        rc = call_at(c, server[hop % 2], path, m, request, len, last, server[(hop + 1) % 2]);
    if (rc == 2)
        fprintf(stderr, "worldkit: %s: the world moved %d times while the call followed it\n", m->name, MAX_HOPS);
    return rc ? 1 : 0;
}

/* The request text: the argument, standard input for "-", "{}" for none. */
static char *request_text(const char *arg, size_t *len)
{
    if (!arg || strcmp(arg, "-")) {
        const char *text = arg ? arg : "{}";
        *len = strlen(text);
        return strdup(text);
    }
    wk_buf in = {0};
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, stdin)) > 0)
        if (wk_buf_append(&in, chunk, n)) {
            wk_buf_free(&in);
            return NULL;
        }
    *len = in.len;
    if (wk_buf_append(&in, "", 1)) {
        wk_buf_free(&in);
        return NULL;
    }
    return (char *)in.data;
}

/* The edit distance of a and b (insertions, deletions, substitutions),
 * case ignored; names past 63 bytes count as far from everything. */
static size_t distance(const char *a, const char *b)
{
    size_t n = strlen(a), m = strlen(b), row[64];
    if (n >= 64 || m >= 64)
        return SIZE_MAX;
    for (size_t j = 0; j <= m; j++)
        row[j] = j;
    for (size_t i = 1; i <= n; i++) {
        size_t diagonal = row[0];
        row[0] = i;
        for (size_t j = 1; j <= m; j++) {
            size_t up = row[j];
            size_t best = diagonal + (tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]));
            best = up + 1 < best ? up + 1 : best;
            row[j] = row[j - 1] + 1 < best ? row[j - 1] + 1 : best;
            diagonal = up;
        }
    }
    return row[m];
}

/* The method whose name is nearest the one path asks for, when it is near
 * enough to be a slip (a third of the name's letters, at least 2); NULL
 * else. */
static const char *nearest_method(const char *path, wk_json_method *m)
{
    const char *slash = strrchr(path, '/');
    const char *want = slash ? slash + 1 : path;
    size_t best = SIZE_MAX, limit = strlen(want) / 3 > 2 ? strlen(want) / 3 : 2;
    const char *found = NULL;
    wk_json_method each;
    for (size_t i = 0; wk_json_method_at(i, &each); i++) {
        size_t d = distance(want, each.name);
        if (d <= limit && d < best) {
            best = d;
            *m = each;
            found = each.name;
        }
    }
    return found;
}

static void list_methods(void)
{
    wk_json_method m;
    for (size_t i = 0; wk_json_method_at(i, &m); i++)
        printf("%s/%s  %s -> %s\n", m.service, m.name, m.input->name, m.output->name);
}

int wk_cli_call(int argc, char **argv)
{
    wk_client c;
    if (!wk_client_options(&argc, argv, &c))
        return 2;
    if (argc >= 2 && !strcmp(argv[1], "--list")) {
        if (argc > 2)
            return wk_cli_usage_error(USAGE, "call --list takes no argument, not '%s'", argv[2]);
        list_methods();
        return 0;
    }
    if (argc < 2)
        return wk_cli_usage_error(USAGE, "call needs a METHOD");
    if (argc > 3 || argv[1][0] == '-')
        return wk_cli_usage_error(USAGE, "unexpected argument '%s'", argv[argc > 3 ? 3 : 1]);
    wk_json_method m;
    wk_status st = {0};
    int found = wk_json_find_method(argv[1], &m, &st);
    if (found) {
        wk_json_method near;
        if (found == WK_NOT_FOUND && nearest_method(argv[1], &near))
            fprintf(stderr, "worldkit: %s; did you mean %s/%s? (worldkit call --list lists them)\n", st.message,
                    near.service, near.name);
        else
            fprintf(stderr, "worldkit: %s (worldkit call --list lists them)\n", st.message);
        return 2;
    }
    size_t len = 0;
    char *text = request_text(argc == 3 ? argv[2] : NULL, &len);
    if (!text) {
        fprintf(stderr, "worldkit: out of memory\n");
        return 1;
    }
    wk_buf request = {0};
    int rc = wk_json_to_bytes(m.input, text, len, NULL, &request, &st);
    free(text);
    if (rc) {
        fprintf(stderr, "worldkit: %s request: %s\n", m.input->name, st.message);
        return 2;
    }
    rc = wk_client_call(&c, &m, request.data, request.len, NULL);
    wk_buf_free(&request);
    return rc;
}
