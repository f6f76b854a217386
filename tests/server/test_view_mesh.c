/* test_view_mesh.c — the live view's "/mesh/ID" in-process, asked over a
 * plain HTTP socket: the file of a world's STL visual comes back byte for
 * byte; while the test holds the world open for writing (as a long batch
 * would) the answer comes at once, 503 with Retry-After, instead of the
 * view's thread waiting for the world; once the world is closed, the file
 * again. An object made of a mesh registered with GeometryService gets
 * the glb held of it, a binary glTF 2.0 as long as its header says. */
#define _GNU_SOURCE /* memmem, strcasestr */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "api/api_call.h"
#include "api/ows_client.h"
#include "base/clock.h"
#include "worldkit/wk_server.h"
#include "wk_test.h"

#define STL WK_TEST_WORLDS "/meshes/pyramid.stl"

/* GET path from the view on port: the whole reply (status line, headers,
 * body) in *out, read until the server closes; false when no reply came
 * within 5 s. */
static bool get(int port, const char *path, wk_buf *out)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in at = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    at.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    struct timeval wait = {.tv_sec = 5};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof wait);
    char request[256];
    int n = snprintf(request, sizeof request, "GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", path);
    bool ok = connect(fd, (struct sockaddr *)&at, sizeof at) == 0 && write(fd, request, (size_t)n) == n;
    char piece[4096];
    ssize_t got;
    while (ok && (got = read(fd, piece, sizeof piece)) > 0)
        ok = wk_buf_append(out, piece, (size_t)got) == WK_OK;
    ok = ok && got == 0 && out->len > 12 && wk_buf_append(out, "", 1) == WK_OK;
    out->len -= ok; /* the NUL is there, not counted */
    close(fd);
    return ok;
}

/* The entity whose MeshFile holds file, or whose Uri is uri; 0 when none. */
static wk_entity mesh_entity(wk_api *api, const char *file, const char *uri)
{
    wk_world *w;
    wk_status st;
    if (wk_store_open(wk_api_store(api), "world", false, &w, &st))
        return 0;
    wk_scene *s = wk_world_scene(w);
    wk_entity found = 0;
    for (wk_entity e = 1; e < 10000 && !found; e++) {
        bool exists = wk_ecm_exists(wk_scene_ecm(s), e);
        const char *const *path = exists ? wk_ecm_get(wk_scene_ecm(s), e, wk_scene_types_of(s)->mesh_file) : NULL;
        const char *const *ref = exists ? wk_ecm_get(wk_scene_ecm(s), e, wk_scene_types_of(s)->uri) : NULL;
        found = (file && path && *path && strstr(*path, file)) || (uri && ref && *ref && !strcmp(*ref, uri)) ? e : 0;
    }
    wk_store_close(w, false, false);
    return found;
}

/* Whether reply is status code with body (NULL: any). */
static bool replied(const wk_buf *reply, int code, const wk_buf *body)
{
    char head[16];
    snprintf(head, sizeof head, "HTTP/1.1 %d", code);
    const char *text = (const char *)reply->data;
    const char *end = memmem(text, reply->len, "\r\n\r\n", 4);
    bool ok = CHECK(reply->len > 12 && !strncmp(text, head, strlen(head))) && CHECK(end != NULL);
    if (ok && body)
        ok = CHECK_INT(reply->len - (size_t)(end + 4 - text), ==, body->len) &&
             CHECK(memcmp(end + 4, body->data, body->len) == 0);
    if (!ok)
        fprintf(stderr, "    reply: %.*s\n", (int)(reply->len < 200 ? reply->len : 200), text);
    return ok;
}

static void mesh_answers_while_the_world_is_written(void)
{
    wk_api *api = wk_api_new();
    REQUIRE(api);
    SimulationInterfaces__LoadWorldRequest load = SIMULATION_INTERFACES__LOAD_WORLD_REQUEST__INIT;
    load.uri = WK_TEST_WORLDS "/meshes.sdf";
    SimulationInterfaces__LoadWorldResponse *loaded = load_world(api, &load);
    REQUIRE_INT(result_code(loaded, loaded ? loaded->result : NULL, NULL), ==, WK_RESULT_OK);
    wk_server *server;
    wk_status st;
    REQUIRE_INT(wk_server_start(api,
                                &(wk_server_desc){.listen = "127.0.0.1:0", .http_listen = "127.0.0.1:0",
                                                  .http_root = WK_TEST_WORLDS},
                                &server, &st),
                ==, WK_OK);
    int port = atoi(strrchr(wk_server_view_address(server), ':') + 1);
    wk_entity e = mesh_entity(api, "pyramid.stl", NULL);
    CHECK(e != 0);
    char path[64];
    snprintf(path, sizeof path, "/mesh/%llu", (unsigned long long)e);
    wk_buf file = {0};
    FILE *f = fopen(STL, "rb");
    char piece[4096];
    for (size_t n; f && (n = fread(piece, 1, sizeof piece, f)) > 0;)
        wk_buf_append(&file, piece, n);
    if (f)
        fclose(f);
    CHECK(file.len > 0);

    wk_buf reply = {0};
    /* (Each reply is read as text: a NUL is put after it.) */
    CHECK(get(port, path, &reply) && replied(&reply, 200, &file));
    /* A writer holds the world: answered at once, not after it. */
    wk_world *w;
    REQUIRE_INT(wk_store_open(wk_api_store(api), "world", true, &w, &st), ==, WK_OK);
    reply.len = 0;
    double t0 = wk__monotonic_s();
    bool got = CHECK(get(port, path, &reply));
    double waited = wk__monotonic_s() - t0;
    wk_store_close(w, false, false);
    if (got && replied(&reply, 503, NULL))
        CHECK(strcasestr((const char *)reply.data, "\r\nretry-after: 1\r\n") != NULL);
    CHECK(waited < 2);
    /* Closed: the file again. */
    reply.len = 0;
    CHECK(get(port, path, &reply) && replied(&reply, 200, &file));
    wk_buf_free(&reply);
    wk_buf_free(&file);
    wk_server_free(server);
    wk_api_free(api);
}

/* A tetrahedron registered as an OBJ file, an object made of it: its
 * /mesh is the glb GeometryService holds, whole. */
static void registered_mesh_as_glb(void)
{
    wk_api *api = wk_api_new();
    REQUIRE(api);
    char fingerprint[65], request[512], uri[128];
    REQUIRE(register_geometry(api,
                              "{'objData':'diAxIDIgMwp2IDIgMiAzCnYgMSA0IDMKdiAxIDIgNgpmIDEgMiAzCmYgMSAyIDQKZiAxIDMgNApmIDIg"
                              "MyA0Cg=='}",
                              fingerprint));
    snprintf(uri, sizeof uri, "worldkit-geometry:%s", fingerprint);
    snprintf(request, sizeof request,
             "{'worldId':'world','name':'tetra','createSingleEntityObject':{'geometryComponent':{'namedGeometries':{"
             "'Intrinsic_Collision':{'namedGeometries':{'shape':{'geometry':{'geoRef':{'exactGeometryRef':'%s'}}}}}}}}}",
             uri);
    REQUIRE(OWS_EXPECT(api, "CreateObject", request, WK_GRPC_OK, "'name':'tetra'"));
    wk_server *server;
    wk_status st;
    REQUIRE_INT(wk_server_start(api, &(wk_server_desc){.listen = "127.0.0.1:0", .http_listen = "127.0.0.1:0"},
                                &server, &st),
                ==, WK_OK);
    int port = atoi(strrchr(wk_server_view_address(server), ':') + 1);
    wk_entity e = mesh_entity(api, NULL, uri);
    CHECK(e != 0);
    char path[64];
    snprintf(path, sizeof path, "/mesh/%llu", (unsigned long long)e);
    wk_buf glb = {0}, reply = {0};
    REQUIRE_INT(wk_api_mesh_glb(uri, &glb), ==, WK_OK);
    uint32_t header[3] = {0};
    memcpy(header, glb.data, glb.len >= sizeof header ? sizeof header : 0);
    CHECK(!memcmp(&header[0], "glTF", 4) && header[1] == 2 && header[2] == glb.len);
    if (CHECK(get(port, path, &reply)) && replied(&reply, 200, &glb))
        CHECK(strcasestr((const char *)reply.data, "\r\ncontent-type: model/gltf-binary\r\n") != NULL);
    CHECK_INT(wk_api_mesh_glb("worldkit-geometry:0000", &glb), ==, WK_NOT_FOUND);
    CHECK_INT(wk_api_mesh_glb("meshes/pyramid.stl", &glb), ==, WK_NOT_FOUND);
    wk_buf_free(&reply);
    wk_buf_free(&glb);
    wk_server_free(server);
    wk_api_free(api);
}

static const wk_test_case cases[] = {
    {"mesh_answers_while_the_world_is_written", mesh_answers_while_the_world_is_written},
    {"registered_mesh_as_glb", registered_mesh_as_glb},
};
WK_TEST_MAIN(cases)
