/* mjcf.h — what the files of the MJCF reader share: the reader's state, the
 * default classes, meshes and included files it records, the body being
 * read, and the attribute values an element gets from its classes. mjcf.c
 * reads the body tree, mjcf_attrs.c the attributes and default classes,
 * mjcf_pose.c the orientation forms and poses, mjcf_include.c the includes
 * and mesh assets. Private to those files. */
#ifndef WK_FORMATS_MJCF_H
#define WK_FORMATS_MJCF_H

#include "formats/xml.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* A <default> element. The top-level sections together make the root class
 * (MuJoCo's "main"): each is a record whose parent is the section before it,
 * so that walking a chain from the root applies them in order. */
typedef struct mjcf_class {
    const char *name; /* NULL for a top-level section */
    const struct mjcf_class *parent;
    xmlNodePtr el;
    struct mjcf_class *next;
} mjcf_class;

typedef struct mjcf_mesh {
    const char *name, *uri, *path; /* path NULL when missing and ignored */
    wk_vec3 scale;
    struct mjcf_mesh *next;
} mjcf_mesh;

/* A material asset: only its colour matters to worldkit. */
typedef struct mjcf_material {
    const char *name;
    double rgba[4];
    struct mjcf_material *next;
} mjcf_material;

/* An included file. Its copied elements point to it from _private. */
typedef struct mjcf_file {
    const char *path, *real;       /* as resolved, and its realpath */
    const struct mjcf_file *from;  /* the file holding its <include>; NULL: the main file */
    struct mjcf_file *next;        /* all included files */
} mjcf_file;

/* The element kinds MuJoCo indexes, in the order of mjcf.c's index_names. */
enum { BODY, JOINT, GEOM, SITE, CAMERA, LIGHT, INDEX_KINDS };

typedef struct mjcf_reader {
    wk_world_desc *d;
    const wk_read_desc *opts;
    wk_status *st;
    xmlDocPtr doc;
    const char *file;     /* the main file, in the arena; NULL for a string */
    const char *main_dir; /* its folder, absolute */
    /* <compiler> */
    bool degree, autolimits, strippath;
    char eulerseq[4];
    const char *meshdir;

    mjcf_class *classes;
    const mjcf_class *root; /* the last top-level section, NULL when none */
    const char *root_name;
    mjcf_mesh *meshes;
    mjcf_material *materials;
    mjcf_file *included;
    uint32_t model;
    uint32_t index[INDEX_KINDS];
} mjcf_reader;

/* The body whose content is being read. */
typedef struct body_ctx {
    const mjcf_class *cls; /* the childclass in force */
    uint32_t node;         /* its link, or the model for the world body */
    const char *name;      /* NULL for the world body */
    const char *parent;    /* its parent body's name, which joints name */
    wk_pose in_body;       /* the enclosing <frame>s' pose in the body; identity outside frames */
} body_ctx;

/* The attributes worldkit reads from elements and their default classes.
 * X(name, fewest numbers, most numbers); strings have 0, 0. */
#define NUMBER_ATTRS(X)                                                                                    \
    X(pos, 3, 3) X(quat, 4, 4) X(axisangle, 4, 4) X(xyaxes, 6, 6) X(zaxis, 3, 3) X(euler, 3, 3)          \
        X(fromto, 6, 6) X(size, 1, 3) X(axis, 3, 3) X(range, 2, 2) X(damping, 1, 1) X(frictionloss, 1, 1) \
            X(dir, 3, 3) X(scale, 3, 3) X(mass, 1, 1) X(diaginertia, 3, 3) X(fullinertia, 6, 6)      \
                X(density, 1, 1) X(stiffness, 1, 1) X(springref, 1, 1) X(friction, 1, 3) X(rgba, 4, 4)
#define STRING_ATTRS(X) X(type, 0, 0) X(mesh, 0, 0) X(limited, 0, 0) X(directional, 0, 0) X(material, 0, 0)

typedef struct attrs {
#define NUMBER_FIELD(name, lo, hi) double name[hi];
    NUMBER_ATTRS(NUMBER_FIELD)
#undef NUMBER_FIELD
#define STRING_FIELD(name, lo, hi) const char *name;
    STRING_ATTRS(STRING_FIELD)
#undef STRING_FIELD
    uint32_t given; /* one bit per attribute, HAS_<name> */
} attrs;

enum {
#define ATTR_BIT(name, lo, hi) HAS_##name,
    NUMBER_ATTRS(ATTR_BIT) STRING_ATTRS(ATTR_BIT)
#undef ATTR_BIT
};
#define GIVEN(a, name) (((a)->given >> HAS_##name) & 1u)
#define ORIENTATION_BITS \
    ((1u << HAS_quat) | (1u << HAS_axisangle) | (1u << HAS_xyaxes) | (1u << HAS_zaxis) | (1u << HAS_euler))

static inline wk_vec3 wk__mjcf_vec3(const double *v)
{
    return (wk_vec3){v[0], v[1], v[2]};
}

/* ---- mjcf.c: errors ----------------------------------------------------- */

int wk__mjcf_nomem(mjcf_reader *r);
/* Fails with code and a message naming el's file:line and tag. */
int wk__mjcf_fail(mjcf_reader *r, xmlNodePtr el, int code, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Reports something worldkit does not read: a warning, or
 * WK_UNSUPPORTED_ELEMENTS when the caller asked to fail on them. */
int wk__mjcf_unsupported(mjcf_reader *r, xmlNodePtr el, const char *what);
int wk__mjcf_unsupported_element(mjcf_reader *r, xmlNodePtr el);

/* ---- mjcf_attrs.c: attributes and default classes ----------------------- */

/* MuJoCo's values when nothing gives an attribute. */
attrs wk__mjcf_builtin_attrs(void);
/* Reads the attributes one level (a default child or the element) gives. */
int wk__mjcf_read_level(mjcf_reader *r, xmlNodePtr level, attrs *a);
/* el's attributes over its class's and MuJoCo's defaults, into *a. */
int wk__mjcf_read_attrs(mjcf_reader *r, xmlNodePtr el, const mjcf_class *cls, attrs *a);
/* The attributes of el, an element of body b, over its class. */
int wk__mjcf_element_attrs(mjcf_reader *r, xmlNodePtr el, const body_ctx *b, attrs *a);
/* The class named by el's attr, or inherited when el has none. */
int wk__mjcf_class_of(mjcf_reader *r, xmlNodePtr el, const char *attr, const mjcf_class *inherited,
                      const mjcf_class **out);
/* Picks attr's value of el among words (NULL-terminated) into *out, which
 * keeps its value when el has no attr. */
int wk__mjcf_keyword(mjcf_reader *r, xmlNodePtr el, const char *attr, const char *value, const char *const *words,
                     int *out);
/* The words of a boolean attribute, for wk__mjcf_keyword. */
extern const char *const wk__mjcf_false_true[];
/* Reads el's boolean attr into *out, which keeps its value when el has none. */
int wk__mjcf_flag(mjcf_reader *r, xmlNodePtr el, const char *attr, bool *out);
/* Records a top-level <default> section and its nested classes. */
int wk__mjcf_read_default_section(mjcf_reader *r, xmlNodePtr el);

/* ---- mjcf_pose.c: orientations and poses -------------------------------- */

/* Normalises v into *out; false when it is too short to have a direction. */
bool wk__mjcf_direction(wk_vec3 v, wk_vec3 *out);
/* The minimal rotation taking the z axis to unit v, as MuJoCo computes it. */
wk_quat wk__mjcf_z_to(wk_vec3 v);
/* What an angle of the file is in radians: <compiler angle>. */
double wk__mjcf_angle_unit(const mjcf_reader *r);
/* The pose a gives by pos and the orientation forms. */
int wk__mjcf_pose_of(mjcf_reader *r, xmlNodePtr el, const attrs *a, wk_pose *out);
/* A geom's or site's pose, which fromto may give instead; fromto_axis is the
 * size index fromto sets (0: the shape takes no fromto). */
int wk__mjcf_shape_pose(mjcf_reader *r, xmlNodePtr el, int fromto_axis, attrs *a, wk_pose *pose);

/* ---- mjcf_include.c: included files and mesh assets --------------------- */

/* The file el came from: the main file's name (NULL for a string) or an
 * included file's path. */
const char *wk__mjcf_file_of(const mjcf_reader *r, xmlNodePtr el);
/* Expands the includes below el, and those the included content holds. */
int wk__mjcf_expand_includes(mjcf_reader *r, xmlNodePtr el);
/* Reads an <asset> section: its meshes into r->meshes. */
int wk__mjcf_read_assets(mjcf_reader *r, xmlNodePtr el);

#endif
