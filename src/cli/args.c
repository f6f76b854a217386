/* args.c — what every subcommand does with its arguments the same way:
 * numbers read whole or refused, addresses checked before gRPC reads them
 * (it wraps a port past 65535 and logs its own errors for an empty one),
 * and a mistake reported as one line naming the argument, then the usage. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "worldkit/wk_formats.h"

bool wk_cli_is_help(const char *arg)
{
    return !strcmp(arg, "--help") || !strcmp(arg, "-h");
}

int wk_cli_usage_error(const char *usage, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("worldkit: ", stderr);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nusage: worldkit %s\n", usage);
    return 2;
}

bool wk_cli_finite(const char *s, double *out)
{
    char *end;
    errno = 0;
    *out = strtod(s, &end);
    return end != s && !*end && !errno && isfinite(*out);
}

bool wk_cli_rtf(const char *s, double *out)
{
    return wk_cli_finite(s, out) && wk_rtf_valid(*out);
}

bool wk_cli_physics(const char *s, wk_physics_engine *out)
{
    if (strcmp(s, "mujoco") && strcmp(s, "none"))
        return false;
    *out = strcmp(s, "mujoco") ? WK_PHYSICS_NONE : WK_PHYSICS_MUJOCO;
    return true;
}

bool wk_cli_count(const char *s, unsigned long long *out)
{
    char *end;
    errno = 0;
    if (s[0] < '0' || s[0] > '9')
        return false;
    *out = strtoull(s, &end, 10);
    return !*end && !errno;
}

bool wk_cli_address_ok(const char *option, const char *addr)
{
    if (!addr[0]) {
        fprintf(stderr, "worldkit: %s: the address is empty (HOST:PORT or unix:PATH)\n", option);
        return false;
    }
    if (!strncmp(addr, "unix:", 5) || !strncmp(addr, "unix-abstract:", 14))
        return true;
    /* The port is what follows the last ':' after any "[v6 address]". */
    const char *bracket = strrchr(addr, ']');
    const char *colon = strrchr(bracket ? bracket : addr, ':');
    unsigned long long port;
    if (colon && colon[1] && (!wk_cli_count(colon + 1, &port) || port > 65535)) {
        fprintf(stderr, "worldkit: %s %s: the port '%s' is not a number from 0 to 65535\n", option, addr, colon + 1);
        return false;
    }
    return true;
}
