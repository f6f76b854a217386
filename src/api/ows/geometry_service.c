/* geometry_service.c — intrinsic_proto.geometry.GeometryService, which
 * Intrinsic's ObjectWorldClient calls to register geometry before it makes
 * an object that refers to it. worldkit keeps no geometry store (an object's
 * primitives live in its Geometry component, a mesh as a uri the object
 * names), so each method is answered at once with WK_UNSUPPORTED
 * (INVALID_ARGUMENT), which the client does not retry, saying what worldkit
 * takes instead. */
#include "api/ows/ows.h"
#include "intrinsic/geometry/proto/geometry_service.pb-c.h"

WK__HANDLER(wk__geometry_unsupported)
{
    (void)api;
    (void)response;
    return wk_fail(call->status, WK_UNSUPPORTED,
                   "GeometryService.%s is not supported: worldkit keeps no geometry store; give an object's "
                   "primitives inline in its GeometryComponent (inline_geometry_data) and its meshes as uris "
                   "(geometry_storage_refs naming the mesh file)",
                   request->descriptor == &intrinsic_proto__geometry__create_geometry_request__descriptor
                       ? "CreateGeometry"
                   : request->descriptor == &intrinsic_proto__geometry__get_geometry_request__descriptor
                       ? "GetGeometry"
                       : "GetRenderable");
}
