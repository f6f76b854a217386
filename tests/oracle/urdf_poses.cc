// urdf_poses.cc — the urdfdom side of the URDF oracle test. Parses a file
// with urdf::parseURDFFile and prints the world pose of the robot (a model at
// the world origin) and of every link, joint, visual and collision in the
// line format of `worldkit poses`:
//   <kind> <scoped::name> x y z qx qy qz qw
// and the colour of a visual whose material has one (urdfdom's: the robot's
// material of that name, else the visual's own) as
//   colour <scoped::name> r g b a 0 0 0
// Poses are composed here from urdfdom's joint and shape origins, walking the
// tree down from the root link, so that worldkit's frame chaining is checked
// against urdfdom's reading of the file, not against itself.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <urdf_parser/urdf_parser.h>

static void print(const char *kind, const std::string &name, const urdf::Pose &p)
{
    std::printf("%s %s %.17g %.17g %.17g %.17g %.17g %.17g %.17g\n", kind, name.c_str(), p.position.x, p.position.y,
                p.position.z, p.rotation.x, p.rotation.y, p.rotation.z, p.rotation.w);
}

// a_T_c from a_T_b and b_T_c.
static urdf::Pose compose(const urdf::Pose &a, const urdf::Pose &b)
{
    urdf::Pose c;
    urdf::Vector3 origin = a.position;
    c.position = origin + a.rotation * b.position;
    c.rotation = a.rotation * b.rotation;
    return c;
}

static void print_colour(const urdf::Collision &, const std::string &)
{
}

// urdfdom keeps a material without a <color> with a colour of its own
// making; one with a texture is the only kind that may lack it.
static void print_colour(const urdf::Visual &v, const std::string &name)
{
    if (!v.material || !v.material->texture_filename.empty())
        return;
    const urdf::Color &c = v.material->color;
    std::printf("colour %s %.17g %.17g %.17g %.17g 0 0 0\n", name.c_str(), c.r, c.g, c.b, c.a);
}

// urdfdom keeps an absent visual or collision name as ""; worldkit names
// those <link>_visual_<i> / <link>_collision_<i>, i counting from 0.
template <typename Shape>
static void print_shapes(const char *kind, const std::string &link_scope, const std::string &link_name,
                         const std::vector<std::shared_ptr<Shape>> &shapes, const urdf::Pose &world_link)
{
    for (size_t i = 0; i < shapes.size(); i++) {
        std::string name = shapes[i]->name;
        if (name.empty())
            name = link_name + "_" + kind + "_" + std::to_string(i);
        print(kind, link_scope + "::" + name, compose(world_link, shapes[i]->origin));
        print_colour(*shapes[i], link_scope + "::" + name);
    }
}

static void print_link(const urdf::ModelInterface &model, const urdf::LinkConstSharedPtr &link,
                       const urdf::Pose &world_link)
{
    const std::string scope = model.getName() + "::" + link->name;
    print("link", scope, world_link);
    print_shapes("visual", scope, link->name, link->visual_array, world_link);
    print_shapes("collision", scope, link->name, link->collision_array, world_link);
    for (const urdf::JointSharedPtr &joint : link->child_joints) {
        urdf::Pose world_joint = compose(world_link, joint->parent_to_joint_origin_transform);
        print("joint", model.getName() + "::" + joint->name, world_joint);
        print_link(model, model.getLink(joint->child_link_name), world_joint);
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: urdf_poses FILE\n");
        return 2;
    }
    urdf::ModelInterfaceSharedPtr model = urdf::parseURDFFile(argv[1]);
    if (!model) {
        std::fprintf(stderr, "urdf_poses: urdfdom could not parse %s\n", argv[1]);
        return 1;
    }
    urdf::Pose identity;
    print("model", model->getName(), identity);
    print_link(*model, model->getRoot(), identity);
    return 0;
}
