/* assimp_lock.h — assimp keeps the reason its last import failed in one
 * string for the whole process, so an import whose failure is reported
 * holds this lock from the import to the read of aiGetErrorString: the
 * physics' mesh bounds (loop threads) and the GeometryService's meshes
 * (workers) would otherwise read each other's reasons. */
#ifndef WK_BASE_ASSIMP_LOCK_H
#define WK_BASE_ASSIMP_LOCK_H

#include <pthread.h>

extern pthread_mutex_t wk__assimp_lock;

#endif
