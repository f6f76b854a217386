/* messages.c — geometry_msgs and std_msgs values to worldkit's math types
 * and back. Requests come from any protobuf client, so every absent field
 * takes the value a ROS message would have: zero, and w = 1 for a
 * quaternion (the .proto's default). */
#include <math.h>
#include <stdio.h>

#include "api/api_internal.h"

wk_pose wk__msg_to_pose(const SimulationInterfaces__Pose *msg)
{
    const SimulationInterfaces__Point *p = msg ? msg->position : NULL;
    const SimulationInterfaces__Quaternion *q = msg ? msg->orientation : NULL;
    return (wk_pose){{p ? p->x : 0, p ? p->y : 0, p ? p->z : 0},
                     {q ? q->w : 1, q ? q->x : 0, q ? q->y : 0, q ? q->z : 0}};
}

wk_vec3 wk__msg_to_vec3(const SimulationInterfaces__Vector3 *msg)
{
    return msg ? (wk_vec3){msg->x, msg->y, msg->z} : (wk_vec3){0, 0, 0};
}

SimulationInterfaces__Vector3 *wk__msg_vec3(wk__call *call, wk_vec3 v)
{
    SimulationInterfaces__Vector3 *m = wk__call_alloc(call, sizeof *m);
    if (!m)
        return NULL;
    simulation_interfaces__vector3__init(m);
    m->has_x = m->has_y = m->has_z = true;
    m->x = v.x, m->y = v.y, m->z = v.z;
    return m;
}

SimulationInterfaces__Pose *wk__msg_pose(wk__call *call, wk_pose pose)
{
    SimulationInterfaces__Pose *m = wk__call_alloc(call, sizeof *m);
    SimulationInterfaces__Point *p = wk__call_alloc(call, sizeof *p);
    SimulationInterfaces__Quaternion *q = wk__call_alloc(call, sizeof *q);
    if (!m || !p || !q)
        return NULL;
    simulation_interfaces__pose__init(m);
    simulation_interfaces__point__init(p);
    simulation_interfaces__quaternion__init(q);
    p->has_x = p->has_y = p->has_z = true;
    p->x = pose.p.x, p->y = pose.p.y, p->z = pose.p.z;
    q->has_x = q->has_y = q->has_z = q->has_w = true;
    q->x = pose.q.x, q->y = pose.q.y, q->z = pose.q.z, q->w = pose.q.w;
    m->position = p;
    m->orientation = q;
    return m;
}

SimulationInterfaces__Header *wk__msg_header(wk__call *call, double seconds, const char *frame)
{
    SimulationInterfaces__Header *h = wk__call_alloc(call, sizeof *h);
    SimulationInterfaces__Time *t = wk__call_alloc(call, sizeof *t);
    if (!h || !t)
        return NULL;
    simulation_interfaces__header__init(h);
    simulation_interfaces__time__init(t);
    /* Whole nanoseconds first, so that rounding never gives 1e9 of them. */
    double ns = round(seconds * 1e9);
    t->has_sec = t->has_nanosec = true;
    t->sec = (int32_t)floor(ns / 1e9);
    t->nanosec = (uint32_t)(ns - (double)t->sec * 1e9);
    h->stamp = t;
    h->frame_id = wk__call_strdup(call, frame);
    return h;
}
