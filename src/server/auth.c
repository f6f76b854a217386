/* auth.c — the bearer token check of a server started with a token file:
 * a call goes on only when its metadata holds "authorization: Bearer
 * <token>" with the server's token. The comparison takes the same time
 * wherever the first difference is, so that timing replies does not spell
 * the token out a byte at a time. */
#include <string.h>
#include <strings.h>

#include "server/server_internal.h"

#define SCHEME "bearer "

/* Whether given (given_len bytes) equals the NUL-terminated secret, in a
 * time that depends on the lengths only. */
static bool same_secret(const char *secret, const uint8_t *given, size_t given_len)
{
    size_t len = strlen(secret);
    volatile unsigned char diff = len != given_len;
    for (size_t i = 0; i < len; i++)
        diff |= (unsigned char)secret[i] ^ (i < given_len ? given[i] : 0);
    return diff == 0;
}

bool wk__auth_token_is(const wk_server *server, const char *given, size_t len)
{
    return server->token[0] && same_secret(server->token, (const uint8_t *)given, len);
}

bool wk__auth_allows(const wk_server *server, const grpc_metadata_array *metadata)
{
    if (!server->token[0])
        return true;
    bool allowed = false;
    for (size_t i = 0; i < metadata->count; i++) {
        const grpc_metadata *m = &metadata->metadata[i];
        const size_t scheme_len = sizeof SCHEME - 1;
        size_t len = GRPC_SLICE_LENGTH(m->value);
        const char *value = (const char *)GRPC_SLICE_START_PTR(m->value);
        /* Keys arrive in lower case; the scheme's case is free (RFC 7235). */
        if (grpc_slice_str_cmp(m->key, "authorization") || len < scheme_len || strncasecmp(value, SCHEME, scheme_len))
            continue;
        allowed |= wk__auth_token_is(server, value + scheme_len, len - scheme_len);
    }
    return allowed;
}
