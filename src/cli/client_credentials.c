/* client_credentials.c — what `worldkit call` and its short forms need to
 * reach a secured `worldkit serve`: TLS channel credentials (the server's
 * CA, or the system's roots, and a client certificate for mutual TLS) and
 * the bearer token's "authorization" metadata. The files are read the way
 * the server reads its own (wk_server_read_pem, wk_server_read_token), so a
 * token file others can read is refused on both ends. */
#define _DEFAULT_SOURCE /* explicit_bzero */
#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <stdio.h>
#include <string.h>

#include "client.h"
#include "worldkit/wk_server.h"

/* Reads a PEM file; 0, else the code with st naming the file. gRPC takes
 * any bytes here and fails only when it connects, as "empty address
 * list" after lines of its own log, so a file without a PEM block is
 * refused before. */
static int read_pem(const char *what, const char *path, wk_buf *out, wk_status *st)
{
    int rc = wk_server_read_pem(what, path, out, st);
    if (rc == WK_OK && (!out->data || !strstr((const char *)out->data, "-----BEGIN ")))
        rc = wk_fail(st, WK_INVALID, "%s %s holds no PEM block (-----BEGIN ...)", what, path);
    return rc;
}

bool wk_client_credentials(const wk_client *c, grpc_channel_credentials **out)
{
    *out = NULL;
    if (!c->tls) {
        *out = grpc_insecure_credentials_create();
        return true;
    }
    if (!c->tls_cert != !c->tls_key) {
        fprintf(stderr, "worldkit: a client certificate takes both --tls-cert and --tls-key\n");
        return false;
    }
    wk_buf ca = {0}, cert = {0}, key = {0};
    wk_status st = {0};
    bool ok = (!c->tls_ca || !read_pem("the CA", c->tls_ca, &ca, &st)) &&
              (!c->tls_cert || (!read_pem("the TLS certificate", c->tls_cert, &cert, &st) &&
                                !read_pem("the TLS key", c->tls_key, &key, &st)));
    if (ok) {
        grpc_ssl_pem_key_cert_pair pair = {.private_key = (const char *)key.data, .cert_chain = (const char *)cert.data};
        *out = grpc_ssl_credentials_create((const char *)ca.data, c->tls_cert ? &pair : NULL, NULL, NULL);
        ok = *out != NULL;
        if (!ok)
            snprintf(st.message, sizeof st.message, "gRPC refused the TLS files");
    }
    if (!ok)
        fprintf(stderr, "worldkit: %s\n", st.message);
    if (key.data)
        explicit_bzero(key.data, key.cap);
    wk_buf_free(&ca);
    wk_buf_free(&cert);
    wk_buf_free(&key);
    return ok;
}

bool wk_client_metadata(const wk_client *c, grpc_metadata *md, size_t *count)
{
    *count = 0;
    if (c->world)
        md[(*count)++] = (grpc_metadata){.key = grpc_slice_from_static_string("worldkit-world-id"),
                                         .value = grpc_slice_from_copied_string(c->world)};
    if (!c->token_file)
        return true;
    char value[sizeof "Bearer " + WK_SERVER_TOKEN_MAX] = "Bearer ";
    size_t scheme = strlen(value);
    wk_status st = {0};
    if (wk_server_read_token(c->token_file, value + scheme, sizeof value - scheme, &st)) {
        fprintf(stderr, "worldkit: %s\n", st.message);
        wk_client_metadata_free(md, *count);
        return false;
    }
    md[(*count)++] = (grpc_metadata){.key = grpc_slice_from_static_string("authorization"),
                                     .value = grpc_slice_from_copied_string(value)};
    explicit_bzero(value, sizeof value);
    return true;
}

void wk_client_metadata_free(grpc_metadata *md, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        grpc_slice_unref(md[i].key);
        grpc_slice_unref(md[i].value);
    }
}
