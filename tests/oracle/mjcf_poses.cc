// mjcf_poses.cc — the MuJoCo side of the MJCF oracle test. Loads a file with
// mj_loadXML, computes the kinematics at qpos0 (where every body sits at the
// pose its file gives it) and prints the world pose of the model, every
// body, joint, geom, site and camera in the line format of `worldkit poses`:
//   <kind> <scoped::name> x y z qx qy qz qw
// and every geom's colour as MuJoCo draws it (its rgba, or its material's
// when its rgba is MuJoCo's default grey) as
//   colour <scoped::name> r g b a 0 0 0
// The names follow worldkit's MJCF node tree: bodies are links of the one
// model, joints belong to the model, and geoms, sites and cameras belong to
// their body's link (or to the model for the world body's own). Unnamed
// elements get worldkit's generated names, "<element><index>" by MuJoCo's
// index. A joint's frame is its body's frame moved to the joint's anchor; a
// body with no joint inside another body has a fixed joint "<body>_weld".
#include <algorithm>
#include <cstdio>
#include <string>

#include <mujoco/mujoco.h>

static std::string model_name;

static void print(const char *kind, const std::string &name, const mjtNum pos[3], const mjtNum quat[4])
{
    std::printf("%s %s %.17g %.17g %.17g %.17g %.17g %.17g %.17g\n", kind, name.c_str(), pos[0], pos[1], pos[2],
                quat[1], quat[2], quat[3], quat[0]);
}

static void print_mat(const char *kind, const std::string &name, const mjtNum pos[3], const mjtNum mat[9])
{
    mjtNum quat[4];
    mju_mat2Quat(quat, mat);
    print(kind, name, pos, quat);
}

static std::string name_of(const mjModel *m, int type, int id, const char *element)
{
    const char *n = mj_id2name(m, type, id);
    return n && n[0] ? std::string(n) : element + std::to_string(id);
}

// The scope an element of body b lives in: the model for the world body.
static std::string scope_of(const mjModel *m, int body)
{
    return body == 0 ? model_name : model_name + "::" + name_of(m, mjOBJ_BODY, body, "body");
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: mjcf_poses FILE\n");
        return 2;
    }
    char error[1024] = "";
    mjModel *m = mj_loadXML(argv[1], nullptr, error, sizeof error);
    if (!m) {
        std::fprintf(stderr, "mjcf_poses: %s\n", error);
        return 1;
    }
    mjData *d = mj_makeData(m);
    mj_kinematics(m, d);
    mj_camlight(m, d);

    // MuJoCo names an unnamed model "MuJoCo Model"; worldkit names it "default".
    model_name = m->names[0] && std::string(m->names) != "MuJoCo Model" ? m->names : "default";
    const mjtNum origin[3] = {0, 0, 0}, identity[4] = {1, 0, 0, 0};
    print("model", model_name, origin, identity);
    for (int i = 1; i < m->nbody; i++)
        print("link", scope_of(m, i), d->xpos + 3 * i, d->xquat + 4 * i);
    for (int i = 0; i < m->njnt; i++)
        print("joint", model_name + "::" + name_of(m, mjOBJ_JOINT, i, "joint"), d->xanchor + 3 * i,
              d->xquat + 4 * m->jnt_bodyid[i]);
    // A body with no joint inside another body is welded to it: worldkit's
    // fixed joint "<body>_weld", in the body's frame.
    for (int i = 1; i < m->nbody; i++)
        if (!m->body_jntnum[i] && m->body_parentid[i] != 0)
            print("joint", scope_of(m, i) + "_weld", d->xpos + 3 * i, d->xquat + 4 * i);
    for (int i = 0; i < m->ngeom; i++) {
        std::string name = scope_of(m, m->geom_bodyid[i]) + "::" + name_of(m, mjOBJ_GEOM, i, "geom");
        print_mat("collision", name, d->geom_xpos + 3 * i, d->geom_xmat + 9 * i);
        const float grey[4] = {0.5f, 0.5f, 0.5f, 1.0f}, *rgba = m->geom_rgba + 4 * i;
        if (m->geom_matid[i] >= 0 && std::equal(rgba, rgba + 4, grey))
            rgba = m->mat_rgba + 4 * m->geom_matid[i];
        std::printf("colour %s %.9g %.9g %.9g %.9g 0 0 0\n", name.c_str(), rgba[0], rgba[1], rgba[2], rgba[3]);
    }
    for (int i = 0; i < m->nsite; i++)
        print_mat("frame", scope_of(m, m->site_bodyid[i]) + "::" + name_of(m, mjOBJ_SITE, i, "site"),
                  d->site_xpos + 3 * i, d->site_xmat + 9 * i);
    for (int i = 0; i < m->ncam; i++)
        print_mat("frame", scope_of(m, m->cam_bodyid[i]) + "::" + name_of(m, mjOBJ_CAMERA, i, "camera"),
                  d->cam_xpos + 3 * i, d->cam_xmat + 9 * i);

    mj_deleteData(d);
    mj_deleteModel(m);
    return 0;
}
