/* ows_client.h — calling ObjectWorldService's methods in the tests the way a
 * client does, with requests written as proto3 JSON (single quotes for
 * double ones, to keep C strings readable): the request is packed, run by
 * wk__ows_call, and the answer comes back as JSON text, with the gRPC status
 * and message. Also a world in the endpoint's store and its serialized
 * state, to prove that a refused call changed nothing. */
#ifndef WK_TEST_API_OWS_CLIENT_H
#define WK_TEST_API_OWS_CLIENT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/ows/ows.h"
#include "wk_test.h"

/* What one call answered. */
typedef struct ows_answer {
    int status;                      /* gRPC status: 0 for OK */
    char message[WK_STATUS_MSG_MAX]; /* why, when not OK */
    wk_buf json;                     /* the response as JSON (NUL-terminated), when OK */
} ows_answer;

/* text with every ' turned into ", in a malloc'd copy. */
static inline char *ows_quotes(const char *text)
{
    char *s = strdup(text);
    for (char *p = s; p && *p; p++)
        if (*p == '\'')
            *p = '"';
    return s;
}

/* Calls method ("CreateObject") with the request json describes; the
 * answer in *a (free a->json with wk_buf_free). Returns a->status, or -1
 * when the request JSON itself is wrong (printed). */
static inline int ows_call(wk_api *api, const char *method, const char *json, ows_answer *a)
{
    *a = (ows_answer){.status = -1};
    wk_json_method m;
    wk_status st;
    char *text = ows_quotes(json);
    wk_buf request = {0}, response = {0};
    if (wk_json_find_method(method, &m, &st) || wk_json_to_bytes(m.input, text, strlen(text), NULL, &request, &st)) {
        fprintf(stderr, "    %s: bad request JSON: %s\n", method, st.message);
        free(text);
        wk_buf_free(&request);
        return -1;
    }
    free(text);
    int rc = wk__ows_call(api, method, request.data, request.len, NULL, NULL, &response, &st);
    a->status = rc ? wk_code_grpc(rc) : WK_GRPC_OK;
    snprintf(a->message, sizeof a->message, "%s", rc ? st.message : "");
    if (rc == WK_OK && wk_json_from_bytes(m.output, response.data, response.len, NULL, &a->json, &st))
        a->status = -1;
    wk_buf_free(&request);
    wk_buf_free(&response);
    return a->status;
}

/* Whether the answer's JSON holds needle (quotes as in ows_call). */
static inline bool ows_has(const ows_answer *a, const char *needle)
{
    char *n = ows_quotes(needle);
    bool found = a->json.data && strstr((const char *)a->json.data, n) != NULL;
    if (!found)
        fprintf(stderr, "    no %s in %s\n", n, a->json.data ? (const char *)a->json.data : "(nothing)");
    free(n);
    return found;
}

/* Calls, checks the status and that the message (or, when OK, the JSON)
 * holds needle (may be NULL), prints what came back otherwise, and frees
 * the answer. */
#define OWS_EXPECT(api, method, request, status_, needle)                                                      \
    __extension__({                                                                                      \
        ows_answer ows__a;                                                                                \
        ows_call((api), (method), (request), &ows__a);                                                       \
        const char *ows__n = (needle);                                                                    \
        bool ows__ok = CHECK_INT(ows__a.status, ==, (status_));                                            \
        if (ows__ok && ows__n)                                                                             \
            ows__ok = ows__a.status ? CHECK(strstr(ows__a.message, ows__n) != NULL) : CHECK(ows_has(&ows__a, ows__n)); \
        if (!ows__ok)                                                                                     \
            fprintf(stderr, "    %s %s: %d %s\n", (method), (request), ows__a.status, ows__a.message);        \
        wk_buf_free(&ows__a.json);                                                                        \
        ows__ok;                                                                                          \
    })

/* GeometryService's fingerprint of the GeometryData json describes, copied
 * to out (65 bytes); false when CreateGeometry does not answer one. */
static inline bool register_geometry(wk_api *api, const char *data, char *out)
{
    char request[512];
    snprintf(request, sizeof request, "{'data':%s}", data);
    ows_answer a;
    bool ok = CHECK_INT(ows_call(api, "/intrinsic_proto.geometry.GeometryService/CreateGeometry", request, &a), ==,
                        WK_GRPC_OK);
    const char *at = ok ? strstr((const char *)a.json.data, "\"fingerprint\":\"") : NULL;
    ok = CHECK(at != NULL) && CHECK(strspn(at + 15, "0123456789abcdef") == 64);
    if (ok) {
        memcpy(out, at + 15, 64);
        out[64] = 0;
        char ref[128];
        snprintf(ref, sizeof ref, "'geometryRef':'worldkit-geometry:%s'", out);
        ok = CHECK(ows_has(&a, ref));
    }
    wk_buf_free(&a.json);
    return ok;
}

/* A new empty world "w" in the endpoint's store. */
static inline bool ows_world(wk_api *api)
{
    char id[WK_WORLD_ID_MAX];
    wk_status st;
    return wk_store_create(wk_api_store(api), &(wk_world_create_desc){.id = "w"}, id, &st) == WK_OK;
}

/* The full serialized state of world id's scene. */
static inline wk_buf ows_state(wk_api *api, const char *id)
{
    wk_buf out = {0};
    wk_world *w;
    wk_status st;
    if (wk_store_open(wk_api_store(api), id, false, &w, &st) == WK_OK) {
        (void)wk_ecm_state(wk_scene_ecm(wk_world_scene(w)), NULL, &out);
        wk_store_close(w, false, false);
    }
    return out;
}

static inline bool ows_same_bytes(const wk_buf *a, const wk_buf *b)
{
    return a->len == b->len && a->len && memcmp(a->data, b->data, a->len) == 0;
}

/* Whether world id's state is still, byte for byte, before (freed). */
static inline bool ows_unchanged(wk_api *api, const char *id, wk_buf *before)
{
    wk_buf after = ows_state(api, id);
    bool same = ows_same_bytes(before, &after);
    wk_buf_free(before);
    wk_buf_free(&after);
    return same;
}

/* A GeometryComponent of one primitive shape (JSON, e.g.
 * "'box':{'size':{'x':1,'y':2,'z':3}}") in the set Intrinsic_Collision. */
#define OWS_SHAPE(shape)                                                                                        \
    "{'namedGeometries':{'Intrinsic_Collision':{'namedGeometries':{'shape':{'geometry':{'inlineGeometryData':" \
    "{'exactGeometry':{'primitiveSet':{'primitives':[{'shape':{" shape "}}]}}}}}}}}}"

#endif
