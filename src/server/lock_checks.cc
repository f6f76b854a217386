// lock_checks.cc — turns off abseil's mutex deadlock detection for the
// process. gRPC core locks abseil mutexes on every call, and Debian builds
// abseil with debug checks on, so each lock also walks a lock-order graph:
// about a tenth of the server's CPU under load. worldkit's own threads use
// pthread locks, which the graph never saw anyway. C++ because the switch
// has no C interface.
#include <absl/synchronization/mutex.h>

extern "C" void wk__server_quiet_lock_checks(void)
{
    absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
}
