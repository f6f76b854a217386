/* credentials.c — what a server needs to let other machines in: its TLS
 * credentials (a certificate chain and key, and optionally the CA that
 * client certificates must be signed by) and the bearer token of a token
 * file, read from their files at start with messages naming the file. A
 * token file, like an ssh key, must be kept from other users: a file they
 * could read would hand anyone on the machine the server's keys. */
#define _DEFAULT_SOURCE /* explicit_bzero */
#include <errno.h>
#include <fcntl.h>
#include <grpc/grpc_security.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "server/server_internal.h"

/* PEM files are a few KiB; a bound keeps a wrong path (a device, a log)
 * from being read whole. */
#define MAX_PEM_BYTES ((size_t)1 << 20)

/* Reads the regular file path, NUL-terminated, into out; when private is
 * set, refuses one that every user may read or write (its "other" bits).
 * what names the file in messages. */
static int read_text(const char *what, const char *path, size_t max, bool private, wk_buf *out, wk_status *st)
{
    out->len = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return wk_fail(st, WK_NOT_FOUND, "%s %s: %s", what, path, strerror(errno));
    struct stat info;
    int rc = WK_OK;
    if (fstat(fd, &info) || !S_ISREG(info.st_mode))
        rc = wk_fail(st, WK_INVALID, "%s %s is not a regular file", what, path);
    else if (private && (info.st_mode & (S_IROTH | S_IWOTH)))
        rc = wk_fail(st, WK_INVALID, "%s %s can be read or written by every user (mode %03o); keep it to its owner: "
                     "chmod 600 %s",
                     what, path, (unsigned)(info.st_mode & 0777), path);
    else if ((size_t)info.st_size > max)
        rc = wk_fail(st, WK_RANGE, "%s %s holds %lld bytes, more than the %zu such a file can", what, path,
                     (long long)info.st_size, max);
    else if (wk_buf_reserve(out, (size_t)info.st_size + 1))
        rc = wk_fail(st, WK_NOMEM, "out of memory reading %s %s", what, path);
    for (ssize_t n = 1; rc == WK_OK && n > 0 && out->len < (size_t)info.st_size;) {
        n = read(fd, out->data + out->len, (size_t)info.st_size - out->len);
        if (n < 0 && errno != EINTR)
            rc = wk_fail(st, WK_IO, "%s %s: %s", what, path, strerror(errno));
        out->len += n > 0 ? (size_t)n : 0;
    }
    close(fd);
    if (rc == WK_OK)
        out->data[out->len] = '\0';
    return rc;
}

int wk_server_read_pem(const char *what, const char *path, wk_buf *out, wk_status *st)
{
    return read_text(what, path, MAX_PEM_BYTES, false, out, st);
}

int wk_server_read_token(const char *path, char *out, size_t cap, wk_status *st)
{
    wk_buf text = {0};
    int rc = read_text("the token file", path, cap, true, &text, st);
    size_t len = text.len;
    /* A file written by echo or an editor ends with a newline. */
    while (rc == WK_OK && len && (text.data[len - 1] == '\n' || text.data[len - 1] == '\r' ||
                                  text.data[len - 1] == ' ' || text.data[len - 1] == '\t'))
        len--;
    if (rc == WK_OK && !len)
        rc = wk_fail(st, WK_INVALID, "the token file %s holds no token", path);
    /* What an "authorization: Bearer" header can carry: visible ASCII. */
    for (size_t i = 0; rc == WK_OK && i < len; i++)
        if (text.data[i] <= ' ' || text.data[i] > '~')
            rc = wk_fail(st, WK_INVALID,
                         "the token file %s holds a character (byte %zu) a bearer token cannot: only visible ASCII, "
                         "on one line",
                         path, i + 1);
    if (rc == WK_OK && len >= cap)
        rc = wk_fail(st, WK_RANGE, "the token in %s is longer than %zu characters", path, cap - 1);
    if (rc == WK_OK) {
        memcpy(out, text.data, len);
        out[len] = '\0';
    }
    /* The token's bytes are not left behind in freed memory. */
    if (text.data)
        explicit_bzero(text.data, text.cap);
    wk_buf_free(&text);
    return rc;
}

int wk__credentials_create(const wk_server_desc *d, grpc_server_credentials **out, wk_status *st)
{
    *out = NULL;
    if (!d->tls_cert_file != !d->tls_key_file)
        return wk_fail(st, WK_INVALID, "TLS takes a certificate and its key: the %s is missing",
                       d->tls_cert_file ? "key file" : "certificate file");
    if (d->tls_client_ca_file && !d->tls_cert_file)
        return wk_fail(st, WK_INVALID, "a client CA (%s) checks clients over TLS, which takes a certificate and key",
                       d->tls_client_ca_file);
    if (!d->tls_cert_file) {
        *out = grpc_insecure_server_credentials_create();
        return WK_OK;
    }
    wk_buf cert = {0}, key = {0}, ca = {0};
    int rc = wk_server_read_pem("the TLS certificate", d->tls_cert_file, &cert, st);
    if (rc == WK_OK)
        rc = wk_server_read_pem("the TLS key", d->tls_key_file, &key, st);
    if (rc == WK_OK && d->tls_client_ca_file)
        rc = wk_server_read_pem("the client CA", d->tls_client_ca_file, &ca, st);
    if (rc == WK_OK) {
        grpc_ssl_pem_key_cert_pair pair = {.private_key = (const char *)key.data, .cert_chain = (const char *)cert.data};
        grpc_ssl_server_certificate_config *config =
            grpc_ssl_server_certificate_config_create((const char *)ca.data, &pair, 1);
        grpc_ssl_server_credentials_options *options = grpc_ssl_server_credentials_create_options_using_config(
            d->tls_client_ca_file ? GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY
                                  : GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE,
            config);
        *out = grpc_ssl_server_credentials_create_with_options(options);
        if (!*out)
            rc = wk_fail(st, WK_INVALID, "gRPC refused the TLS certificate %s and key %s", d->tls_cert_file,
                         d->tls_key_file);
    }
    if (key.data)
        explicit_bzero(key.data, key.cap);
    wk_buf_free(&cert);
    wk_buf_free(&key);
    wk_buf_free(&ca);
    return rc;
}
