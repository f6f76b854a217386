/* signal.c — SIGINT and SIGTERM for a process that is a server. They are
 * blocked in every thread and taken with sigwait by the one that waits, so
 * that shutting down runs as ordinary code on an ordinary thread rather than
 * inside a handler, where next to nothing is allowed. */
#include <pthread.h>
#include <signal.h>

#include "server/server_internal.h"

static void stop_signals(sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGTERM);
}

int wk_server_block_signals(void)
{
    sigset_t set;
    stop_signals(&set);
    return pthread_sigmask(SIG_BLOCK, &set, NULL) ? WK_INVALID : WK_OK;
}

int wk_server_wait_signal(void)
{
    sigset_t set;
    int sig = 0;
    stop_signals(&set);
    return sigwait(&set, &sig) ? WK_INVALID : sig;
}
