// sdf_poses.cc — the libsdformat side of the SDFormat oracle test. Loads a
// file with sdf::Root and prints the world pose of every model, link, joint,
// frame, visual and collision in the line format of `worldkit poses`:
//   <kind> <scoped::name> x y z qx qy qz qw
// and a visual's colour (its material's diffuse, else its ambient) as
//   colour <scoped::name> r g b a 0 0 0
// Poses inside a model are resolved by libsdformat relative to the model
// frame (__model__) and composed onto the model's world pose here.
#include <cstdio>
#include <string>

#include <sdf/sdf.hh>

using ignition::math::Pose3d;

static int failures = 0;

static void print(const char *kind, const std::string &name, const Pose3d &p)
{
    std::printf("%s %s %.17g %.17g %.17g %.17g %.17g %.17g %.17g\n", kind, name.c_str(), p.Pos().X(), p.Pos().Y(),
                p.Pos().Z(), p.Rot().X(), p.Rot().Y(), p.Rot().Z(), p.Rot().W());
}

static Pose3d resolve(const sdf::SemanticPose &pose, const std::string &to, const std::string &who)
{
    Pose3d out;
    sdf::Errors errors = pose.Resolve(out, to);
    for (const auto &e : errors) {
        std::fprintf(stderr, "sdf_poses: %s: %s\n", who.c_str(), e.Message().c_str());
        failures++;
    }
    return out;
}

static void print_colour(const sdf::Collision *, const std::string &)
{
}

static void print_colour(const sdf::Visual *v, const std::string &name)
{
    const sdf::Material *m = v->Material();
    sdf::ElementPtr e = m ? m->Element() : nullptr;
    if (!e || (!e->HasElement("diffuse") && !e->HasElement("ambient")))
        return;
    ignition::math::Color c = e->HasElement("diffuse") ? m->Diffuse() : m->Ambient();
    std::printf("colour %s %.9g %.9g %.9g %.9g 0 0 0\n", name.c_str(), c.R(), c.G(), c.B(), c.A());
}

template <typename Shape>
static void print_shapes(const char *kind, const sdf::Link *link, const std::string &scope, const Pose3d &world_model,
                         uint64_t count, const Shape *(sdf::Link::*at)(uint64_t) const)
{
    for (uint64_t i = 0; i < count; i++) {
        const Shape *s = (link->*at)(i);
        std::string name = scope + "::" + link->Name() + "::" + s->Name();
        print(kind, name, world_model * resolve(s->SemanticPose(), "__model__", name));
        print_colour(s, name);
    }
}

static void print_model(const sdf::Model *m, const std::string &prefix, const Pose3d &world_model)
{
    const std::string scope = prefix + m->Name();
    print("model", scope, world_model);
    for (uint64_t i = 0; i < m->LinkCount(); i++) {
        const sdf::Link *l = m->LinkByIndex(i);
        const std::string name = scope + "::" + l->Name();
        print("link", name, world_model * resolve(l->SemanticPose(), "__model__", name));
        print_shapes<sdf::Visual>("visual", l, scope, world_model, l->VisualCount(), &sdf::Link::VisualByIndex);
        print_shapes<sdf::Collision>("collision", l, scope, world_model, l->CollisionCount(),
                                     &sdf::Link::CollisionByIndex);
    }
    for (uint64_t i = 0; i < m->JointCount(); i++) {
        const sdf::Joint *j = m->JointByIndex(i);
        const std::string name = scope + "::" + j->Name();
        print("joint", name, world_model * resolve(j->SemanticPose(), "__model__", name));
    }
    for (uint64_t i = 0; i < m->FrameCount(); i++) {
        const sdf::Frame *f = m->FrameByIndex(i);
        const std::string name = scope + "::" + f->Name();
        print("frame", name, world_model * resolve(f->SemanticPose(), "__model__", name));
    }
    for (uint64_t i = 0; i < m->ModelCount(); i++) {
        const sdf::Model *n = m->ModelByIndex(i);
        print_model(n, scope + "::", world_model * resolve(n->SemanticPose(), "__model__", scope + "::" + n->Name()));
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: sdf_poses FILE\n");
        return 2;
    }
    sdf::Root root;
    sdf::Errors errors = root.Load(argv[1]);
    if (!errors.empty()) {
        for (const auto &e : errors)
            std::fprintf(stderr, "sdf_poses: %s\n", e.Message().c_str());
        return 1;
    }
    // A model file's root model: resolved rather than taken as written, so
    // that its placement_frame, if any, places it.
    if (const sdf::Model *m = root.Model())
        print_model(m, "", resolve(m->SemanticPose(), "", m->Name()));
    for (uint64_t w = 0; w < root.WorldCount(); w++) {
        const sdf::World *world = root.WorldByIndex(w);
        for (uint64_t i = 0; i < world->FrameCount(); i++) {
            const sdf::Frame *f = world->FrameByIndex(i);
            print("frame", f->Name(), resolve(f->SemanticPose(), "world", f->Name()));
        }
        for (uint64_t i = 0; i < world->ModelCount(); i++) {
            const sdf::Model *m = world->ModelByIndex(i);
            print_model(m, "", resolve(m->SemanticPose(), "world", m->Name()));
        }
    }
    return failures ? 1 : 0;
}
