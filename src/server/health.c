/* health.c — the standard health check, grpc.health.v1.Health/Check: the
 * server as a whole ("") and every service with a method in the api's table
 * are SERVING until shutdown begins, then NOT_SERVING; any other name is
 * NOT_FOUND, as the protocol says. Watch, which streams the same status,
 * is health_watch.c's. Neither asks for the server's bearer token: probes
 * (Kubernetes', load balancers') call them without credentials, and they
 * tell no more than whether the server is up. */
#include <stdio.h>

#include "grpc/health/v1/health.pb-c.h"
#include "server/server_internal.h"

int wk__health_status(const wk_server *server, const char *service)
{
    if (service[0] && !wk_api_has_service(service))
        return GRPC__HEALTH__V1__HEALTH_CHECK_RESPONSE__SERVING_STATUS__SERVICE_UNKNOWN;
    return atomic_load(&server->stopping) ? GRPC__HEALTH__V1__HEALTH_CHECK_RESPONSE__SERVING_STATUS__NOT_SERVING
                                          : GRPC__HEALTH__V1__HEALTH_CHECK_RESPONSE__SERVING_STATUS__SERVING;
}

int wk__health_check(wk_server *server, const uint8_t *request, size_t len, wk_api_sink *sink)
{
    Grpc__Health__V1__HealthCheckRequest *req = grpc__health__v1__health_check_request__unpack(NULL, len, request);
    if (!req) {
        snprintf(sink->message, sizeof sink->message, "the request is no HealthCheckRequest");
        return sink->status = WK_GRPC_INVALID_ARGUMENT;
    }
    const char *service = req->service ? req->service : "";
    int status = wk__health_status(server, service);
    if (status == GRPC__HEALTH__V1__HEALTH_CHECK_RESPONSE__SERVING_STATUS__SERVICE_UNKNOWN) {
        snprintf(sink->message, sizeof sink->message, "unknown service '%.200s'", service);
        grpc__health__v1__health_check_request__free_unpacked(req, NULL);
        return sink->status = WK_GRPC_NOT_FOUND;
    }
    grpc__health__v1__health_check_request__free_unpacked(req, NULL);

    Grpc__Health__V1__HealthCheckResponse resp = GRPC__HEALTH__V1__HEALTH_CHECK_RESPONSE__INIT;
    resp.has_status = true;
    resp.status = (Grpc__Health__V1__HealthCheckResponse__ServingStatus)status;
    uint8_t bytes[8]; /* one enum field */
    size_t n = grpc__health__v1__health_check_response__pack(&resp, bytes);
    sink->message[0] = '\0';
    sink->status = WK_GRPC_OK;
    (void)sink->write(sink->ctx, bytes, n);
    return WK_GRPC_OK;
}
