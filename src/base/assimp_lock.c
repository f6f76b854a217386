/* assimp_lock.c — the lock of assimp_lock.h. */
#include "base/assimp_lock.h"

pthread_mutex_t wk__assimp_lock = PTHREAD_MUTEX_INITIALIZER;
