/* address.c — listen addresses: which are local, and the address a client
 * dials once the port is known. gRPC takes "host:port" ("[v6]:port" for an
 * IPv6 literal, optionally behind an "ipv4:" or "ipv6:" scheme) and
 * "unix:path". Until the server has TLS and tokens, only addresses no other
 * machine can reach are allowed. */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "server/server_internal.h"

static bool starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* The host part of listen, without brackets, into host; false when there
 * is no ":port" or the host does not fit. */
static bool host_of(const char *listen, char *host, size_t cap)
{
    if (starts_with(listen, "ipv4:") || starts_with(listen, "ipv6:"))
        listen += 5;
    const char *colon = strrchr(listen, ':');
    if (!colon)
        return false;
    size_t len = (size_t)(colon - listen);
    if (len >= 2 && listen[0] == '[' && listen[len - 1] == ']') {
        listen++;
        len -= 2;
    }
    if (len >= cap)
        return false;
    memcpy(host, listen, len);
    host[len] = '\0';
    return true;
}

bool wk__address_is_local(const char *listen)
{
    if (starts_with(listen, "unix:") || starts_with(listen, "unix-abstract:"))
        return true;
    char host[64];
    if (!host_of(listen, host, sizeof host))
        return false;
    struct in_addr v4;
    struct in6_addr v6;
    if (inet_pton(AF_INET, host, &v4) == 1)
        return (ntohl(v4.s_addr) >> 24) == 127; /* 127.0.0.0/8 */
    if (inet_pton(AF_INET6, host, &v6) == 1)
        return IN6_IS_ADDR_LOOPBACK(&v6);
    return strcmp(host, "localhost") == 0;
}

void wk__address_with_port(const char *listen, int port, char *out, size_t cap)
{
    const char *colon = strrchr(listen, ':');
    if (starts_with(listen, "unix") || !colon || port <= 0)
        snprintf(out, cap, "%s", listen);
    else
        snprintf(out, cap, "%.*s:%d", (int)(colon - listen), listen, port);
}
