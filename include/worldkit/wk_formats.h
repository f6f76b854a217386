/* wk_formats.h — the formats layer: SDFormat, URDF and MJCF readers into one
 * format-independent world description.
 *
 * A description is a tree of nodes (world, models, links, joints, frames,
 * visuals, collisions, ...) kept in one allocation arena. Each node carries
 * its pose as written, the frame that pose is expressed in, and, once the
 * description is resolved, its pose in the world frame. Readers fill nodes;
 * wk_desc_resolve applies the format's frame semantics (SDFormat's
 * relative_to / attached_to / placement_frame rules, URDF's joint chain,
 * MJCF's body tree). wk_desc_instantiate turns a description into scene
 * entities; the sim layer keeps descriptions to reload levels. */
#ifndef WK_FORMATS_H
#define WK_FORMATS_H

#include "worldkit/wk_base.h"
#include "worldkit/wk_math.h"
#include "worldkit/wk_scene.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A real-time factor is 0 (as fast as possible) or from WK_RTF_MIN to
 * WK_RTF_MAX: past those, a step's wait or the steps due would not fit
 * their types. */
#define WK_RTF_MIN 1e-6
#define WK_RTF_MAX 1e9
static inline bool wk_rtf_valid(double rtf)
{
    return rtf == 0 || (rtf >= WK_RTF_MIN && rtf <= WK_RTF_MAX);
}

typedef enum wk_format {
    WK_FORMAT_UNKNOWN = 0,
    WK_FORMAT_SDF,
    WK_FORMAT_URDF,
    WK_FORMAT_MJCF,
} wk_format;

#define WK_NO_NODE UINT32_MAX

typedef struct wk_joint_axis {
    bool present;
    wk_vec3 xyz;              /* unit direction */
    const char *expressed_in; /* NULL: the joint frame */
    double lower, upper;      /* -inf / +inf when unlimited */
    double effort, velocity;  /* +inf when unlimited */
    double damping, friction;
    double spring_stiffness, spring_reference; /* a spring's stiffness, and the position where it pulls nothing */
} wk_joint_axis;

/* One outline of a polyline shape, extruded upward by its height. */
typedef struct wk_polyline {
    const double *points; /* x, y pairs */
    size_t point_count;
    double height;
} wk_polyline;

typedef struct wk_geometry {
    wk_geometry_type type;
    wk_vec3 size;     /* box size, ellipsoid radii, plane size (x, y), heightmap size */
    double radius;    /* sphere, cylinder, capsule */
    double length;    /* cylinder, capsule; polylines: the tallest one's height */
    wk_vec3 normal;   /* plane */
    const char *uri;  /* mesh, heightmap: as written */
    const char *path; /* mesh, heightmap: the resolved file, NULL when not found */
    wk_vec3 scale;    /* mesh */
    const char *submesh;
    const wk_polyline *polylines; /* polyline: one or more outlines, in file order */
    size_t polyline_count;
} wk_geometry;

/* A <plugin>, kept verbatim for the systems that will run it. */
typedef struct wk_plugin {
    const char *name;
    const char *filename;
    const char *xml; /* the whole element */
} wk_plugin;

typedef struct wk_node {
    wk_node_kind kind;
    const char *name; /* local name; the world's name for the world node */
    uint32_t parent, first_child, next_sibling, last_child;
    const char *file; /* source file, NULL for a string */
    uint32_t line;

    wk_pose pose;            /* as written */
    const char *relative_to; /* frame of pose by name (SDFormat); NULL: the kind's default */
    uint32_t relative_node;  /* frame of pose by node, set by readers that know it; else WK_NO_NODE */
    wk_pose world;           /* the pose in the world frame, after wk_desc_resolve */
    const wk_plugin *plugins; /* the node's plugins, in file order */
    size_t plugin_count;

    union {
        struct {
            double max_step_size;    /* seconds; 0.001 unless the file says */
            double real_time_factor; /* 1 unless the file says */
            wk_vec3 gravity;         /* m/s^2; (0, 0, -9.8) unless the file says */
            wk_vec3 magnetic_field;  /* tesla */
            struct {
                bool present;
                const char *surface_model;          /* e.g. EARTH_WGS84 */
                double latitude_deg, longitude_deg; /* of the world origin */
                double elevation;                   /* m */
                double heading_deg;                 /* of the world's x axis, from east */
            } spherical;
        } settings; /* the world node's */
        struct {
            bool is_static, self_collide;
            const char *canonical_link;  /* NULL: the first link */
            const char *placement_frame; /* NULL: the model frame */
        } model;
        struct {
            wk_inertial inertial;
        } link;
        struct {
            wk_joint_type type;
            const char *parent, *child; /* link or frame names in the model's scope */
            wk_joint_axis axis[2];
            const char *mimic_joint;
            double mimic_multiplier, mimic_offset;
        } joint;
        struct {
            const char *attached_to; /* NULL: the kind's default */
        } frame;
        struct {
            wk_geometry geometry;
            /* A collision's contact friction, when the file gives it:
             * sliding, torsional and rolling, as MuJoCo's geom friction
             * (SDFormat's ode mu is the first; the others keep MuJoCo's
             * 0.005 and 0.0001). */
            bool has_friction;
            double friction[3];
            /* Its colour, when its file's material gives one: as the
             * Material component has it (wk_scene.h). */
            bool has_colour;
            double colour[4];
        } shape; /* visual, collision */
        struct {
            const char *type;
            double update_rate;
            const char *xml; /* the whole element, for what worldkit does not read */
        } sensor;
        struct {
            const char *type;
            const char *xml;
        } light;
        struct {
            wk_vec3 size;        /* the box, centred on the node's position */
            double buffer;       /* level: inflation of the box */
            const char **refs;   /* level: model names; performer: its one ref */
            size_t ref_count;
        } region; /* level, performer */
    };
} wk_node;

typedef struct wk_world_desc wk_world_desc;

typedef struct wk_read_desc {
    const char *uri;             /* a path or file:// / model:// / package:// URI */
    const char *resource_string; /* used when uri is NULL or empty */
    bool fail_on_unsupported_element;
    bool ignore_missing_or_unsupported_assets;
    /* NULL: any file may be read. Else a NULL-terminated list of folders:
     * the uri, and every file it refers to, must lie inside one of them or
     * a folder of the resource path (a file's own folder counts for what it
     * refers to, a string's does not); a server given by clients the paths
     * it reads sets these. */
    const char *const *roots;
    /* Optional: asked as the read goes (at every megabyte of XML parsed,
     * every element kept, and between its phases); true makes it give up
     * with WK_DEADLINE, as a server's call does once its deadline has
     * passed or its client left. The description read keeps it, and
     * instantiating the description asks it too (wk_desc_set_over). */
    bool (*over)(void *ctx);
    void *over_ctx;
} wk_read_desc;

/* Reads a world (or a single model, which gets a world around it) and
 * resolves its poses. Codes: WK_NO_RESOURCE, WK_NOT_FOUND (no such file,
 * or one outside the roots), WK_UNSUPPORTED_FORMAT,
 * WK_PARSE (file:line in the message), WK_MISSING_ASSETS,
 * WK_UNSUPPORTED_ASSETS, WK_UNSUPPORTED_ELEMENTS, WK_DEADLINE (desc->over
 * said to give up), WK_NOMEM. *out is owned
 * by the caller (wk_desc_free) and NULL on failure. */
int wk_desc_read(const wk_read_desc *desc, wk_world_desc **out, wk_status *st);
/* Sets the check instantiating d asks at every entity it makes, giving up
 * with WK_DEADLINE and nothing left behind when it answers true; NULL asks
 * nothing. A description keeps its read's wk_read_desc.over: a caller that
 * keeps it past the call that check belongs to sets NULL first. */
void wk_desc_set_over(wk_world_desc *d, bool (*over)(void *ctx), void *ctx);
/* Whether the existing file or folder path lies, once links are followed,
 * inside a folder of roots (NULL-terminated) or of the resource path: what
 * wk_desc_read under those roots may read. */
bool wk_path_under_roots(const char *path, const char *const *roots);
void wk_desc_free(wk_world_desc *d);

/* Creates scene entities for node root of d and everything under it, the
 * root's entity a child of parent (WK_NULL_ENTITY: a root entity) placed at
 * parent_T_root (NULL: where the description puts it relative to the
 * parent's world pose; a subtree placed elsewhere moves rigidly). name, when
 * not NULL, replaces the root's name. Each entity gets Name, Kind and
 * ParentPose, and as its kind calls for Static, Joint, JointLinks, Geometry,
 * Uri, Inertial. A <frame> hangs below the link (or model) its attached_to
 * chain ends at, through frames and joints (a joint's frame is its child
 * link's), posed relative to it, so it follows that link or model; a
 * world's frame stays below the world when it is attached to nothing, when
 * the model it is attached to is not instantiated in the same call, or when
 * that model holds a part of the same name (object worlds name an object's
 * parts apart).
 * The root's entity goes to *out. On failure (WK_DEADLINE when d's check
 * says so, wk_desc_set_over) nothing is left behind. */
int wk_desc_instantiate(wk_scene *s, const wk_world_desc *d, uint32_t root, wk_entity parent,
                        const wk_pose *parent_T_root, const char *name, wk_entity *out, wk_status *st);
/* Creates only the world node's own entity, for callers that pick which of
 * the world's children to add (levels). */
int wk_desc_instantiate_world(wk_scene *s, const wk_world_desc *d, wk_entity *out, wk_status *st);
/* Creates the world's children, but those skip (when not NULL) answers true
 * for (a level's models, which come later), below world, the world's
 * entity, in one call: a world's frame attached to a model made in it hangs
 * below that model, as wk_desc_instantiate of the whole world does. On
 * failure nothing is left behind. */
int wk_desc_instantiate_children(wk_scene *s, const wk_world_desc *d, wk_entity world,
                                 bool (*skip)(uint32_t node, void *ctx), void *ctx, wk_status *st);

wk_format wk_desc_format(const wk_world_desc *d);
/* Node 0 is the world. Pointers are borrowed for the description's life. */
size_t wk_desc_node_count(const wk_world_desc *d);
const wk_node *wk_desc_node(const wk_world_desc *d, uint32_t index);
/* Writes the node's scoped name (`model::nested::link`; the world node has
 * its own name) into buf; returns the full length, like snprintf. */
size_t wk_desc_scoped_name(const wk_world_desc *d, uint32_t index, char *buf, size_t cap);
/* Warnings gathered while reading (unsupported elements when not failing on
 * them, ignored assets), each naming file:line and element. */
size_t wk_desc_warning_count(const wk_world_desc *d);
const char *wk_desc_warning(const wk_world_desc *d, size_t i);

#ifdef __cplusplus
}
#endif
#endif
