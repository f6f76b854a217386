/* test_credentials.c — what a server is given to let other machines in:
 * token files as wk_server_read_token reads them (trailing white space
 * dropped; refused, naming the file, when others may read it, when it is
 * empty, holds more than one word or no ASCII, is too long, missing or a
 * folder), PEM files, and wk_server_start's refusals: an address other
 * machines reach without TLS or a token, half a TLS pair, a client CA
 * without TLS, and unreadable files. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "worldkit/wk_server.h"
#include "wk_test.h"

/* A temporary folder for the case, and a file in it. */
typedef struct scratch {
    char dir[64];
    char path[128];
} scratch;

static bool scratch_new(scratch *s)
{
    snprintf(s->dir, sizeof s->dir, "/tmp/wk_credentials_XXXXXX");
    return mkdtemp(s->dir) != NULL;
}

/* Writes text to the file name of s with mode; its path in s->path. */
static const char *scratch_file(scratch *s, const char *name, const char *text, mode_t mode)
{
    snprintf(s->path, sizeof s->path, "%s/%s", s->dir, name);
    FILE *f = fopen(s->path, "w");
    if (!f)
        return NULL;
    fputs(text, f);
    fclose(f);
    chmod(s->path, mode);
    return s->path;
}

static void scratch_free(scratch *s, const char *const *names)
{
    char path[128];
    for (; *names; names++) {
        snprintf(path, sizeof path, "%s/%s", s->dir, *names);
        unlink(path);
    }
    rmdir(s->dir);
}

/* wk_server_read_token of a file holding text with mode, into a buffer of
 * cap bytes: its code, the token in token, the message in st. */
static int read_token(const char *text, mode_t mode, char *token, size_t cap, wk_status *st)
{
    scratch s;
    if (!scratch_new(&s))
        return -1;
    const char *path = scratch_file(&s, "token", text, mode);
    int rc = path ? wk_server_read_token(path, token, cap, st) : -1;
    scratch_free(&s, (const char *const[]){"token", NULL});
    return rc;
}

static void tokens(void)
{
    char token[64];
    wk_status st = {0};
    CHECK_INT(read_token("abc.DEF-123_~+/=\n", 0600, token, sizeof token, &st), ==, WK_OK);
    CHECK_STR(token, "abc.DEF-123_~+/=");
    CHECK_INT(read_token("t0ken \t\r\n\n", 0640, token, sizeof token, &st), ==, WK_OK);
    CHECK_STR(token, "t0ken");
    /* Exactly cap - 1 characters fit; one more does not. */
    char longest[64];
    memset(longest, 'x', sizeof longest - 1);
    longest[sizeof longest - 1] = '\0';
    CHECK_INT(read_token(longest, 0600, token, sizeof token, &st), ==, WK_OK);
    CHECK_INT(read_token(longest, 0600, token, sizeof token - 1, &st), ==, WK_RANGE);
}

static void token_refusals(void)
{
    static const struct {
        const char *text;
        mode_t mode;
        int code;
        const char *says;
    } cases[] = {
        {"secret\n", 0644, WK_INVALID, "chmod 600"},
        {"secret\n", 0602, WK_INVALID, "every user"},
        {"", 0600, WK_INVALID, "holds no token"},
        {" \n\t\n", 0600, WK_INVALID, "holds no token"},
        {"two words\n", 0600, WK_INVALID, "(byte 4)"},
        {"line\nline\n", 0600, WK_INVALID, "on one line"},
        {"caf\xc3\xa9\n", 0600, WK_INVALID, "visible ASCII"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char token[64] = "untouched";
        wk_status st = {0};
        if (!CHECK_INT(read_token(cases[i].text, cases[i].mode, token, sizeof token, &st), ==, cases[i].code) ||
            !CHECK(strstr(st.message, cases[i].says) && strstr(st.message, "/tmp/wk_credentials_")))
            fprintf(stderr, "    case %zu: %s\n", i, st.message);
        CHECK_STR(token, "untouched");
    }
    char token[64];
    wk_status st = {0};
    CHECK_INT(wk_server_read_token("/no/such/token", token, sizeof token, &st), ==, WK_NOT_FOUND);
    CHECK(strstr(st.message, "/no/such/token") != NULL);
    CHECK_INT(wk_server_read_token("/tmp", token, sizeof token, &st), ==, WK_INVALID);
    CHECK(strstr(st.message, "not a regular file") != NULL);
}

static void pem_files(void)
{
    scratch s;
    REQUIRE(scratch_new(&s));
    const char *path = scratch_file(&s, "ca.pem", "-----BEGIN CERTIFICATE-----\n", 0644);
    wk_buf pem = {0};
    wk_status st = {0};
    CHECK_INT(wk_server_read_pem("the CA", path, &pem, &st), ==, WK_OK);
    CHECK_U64(pem.len, ==, strlen("-----BEGIN CERTIFICATE-----\n"));
    CHECK(pem.data && pem.data[pem.len] == '\0');
    CHECK_INT(wk_server_read_pem("the CA", "/no/such.pem", &pem, &st), ==, WK_NOT_FOUND);
    CHECK(strstr(st.message, "the CA /no/such.pem") != NULL);
    wk_buf_free(&pem);
    scratch_free(&s, (const char *const[]){"ca.pem", NULL});
}

/* wk_server_start with desc: its code (a server that starts is freed) and
 * the message in st. */
static int start(wk_server_desc desc, wk_status *st)
{
    wk_api *api = wk_api_new();
    wk_server *server = NULL;
    int rc = api ? wk_server_start(api, &desc, &server, st) : WK_NOMEM;
    wk_server_free(server);
    wk_api_free(api);
    return rc;
}

static void start_refusals(void)
{
    scratch s;
    REQUIRE(scratch_new(&s));
    char token[128], open_token[128];
    snprintf(token, sizeof token, "%s", scratch_file(&s, "token", "secret\n", 0600));
    snprintf(open_token, sizeof open_token, "%s", scratch_file(&s, "open", "secret\n", 0644));
    wk_status st = {0};

    CHECK_INT(start((wk_server_desc){.listen = "0.0.0.0:0"}, &st), ==, WK_UNSUPPORTED);
    CHECK(strstr(st.message, "0.0.0.0:0") && strstr(st.message, "TLS") && strstr(st.message, "token"));
    CHECK_INT(start((wk_server_desc){.listen = "[::]:0"}, &st), ==, WK_UNSUPPORTED);
    /* A token opens any address; a token file others can read none. */
    CHECK_INT(start((wk_server_desc){.listen = "0.0.0.0:0", .token_file = token}, &st), ==, WK_OK);
    CHECK_INT(start((wk_server_desc){.listen = "127.0.0.1:0", .token_file = open_token}, &st), ==, WK_INVALID);
    CHECK(strstr(st.message, open_token) != NULL);
    CHECK_INT(start((wk_server_desc){.listen = "127.0.0.1:0", .tls_key_file = token}, &st), ==, WK_INVALID);
    CHECK(strstr(st.message, "certificate file is missing") != NULL);
    CHECK_INT(start((wk_server_desc){.listen = "127.0.0.1:0", .tls_cert_file = token}, &st), ==, WK_INVALID);
    CHECK(strstr(st.message, "key file is missing") != NULL);
    CHECK_INT(start((wk_server_desc){.listen = "127.0.0.1:0", .tls_client_ca_file = token}, &st), ==, WK_INVALID);
    CHECK(strstr(st.message, "client CA") != NULL);
    CHECK_INT(start((wk_server_desc){.listen = "0.0.0.0:0", .tls_cert_file = "/no/cert.pem", .tls_key_file = token},
                    &st),
              ==, WK_NOT_FOUND);
    CHECK(strstr(st.message, "/no/cert.pem") != NULL);
    scratch_free(&s, (const char *const[]){"token", "open", NULL});
}

static const wk_test_case cases[] = {
    {"tokens", tokens},
    {"token_refusals", token_refusals},
    {"pem_files", pem_files},
    {"start_refusals", start_refusals},
};

WK_TEST_MAIN(cases)
