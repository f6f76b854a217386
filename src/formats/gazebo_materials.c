/* gazebo_materials.c — Gazebo's standard named materials of one colour
 * ("Gazebo/Red", ...), each with the diffuse colour that Gazebo's own
 * gazebo.material file gives it, which Gazebo draws a visual in when its
 * <material><script><name> names one. Materials drawn from a texture
 * (Gazebo/Wood, Gazebo/WoodFloor, ...) are left out: no one colour stands
 * for them. */
#include <string.h>

#include "formats/gazebo_materials.h"

static const struct gazebo_material {
    const char *name;
    double rgba[4];
} materials[] = {
    {"Gazebo/Grey", {0.7, 0.7, 0.7, 1}},
    {"Gazebo/Gray", {0.7, 0.7, 0.7, 1}},
    {"Gazebo/DarkGrey", {0.175, 0.175, 0.175, 1}},
    {"Gazebo/DarkGray", {0.175, 0.175, 0.175, 1}},
    {"Gazebo/White", {1, 1, 1, 1}},
    {"Gazebo/FlatBlack", {0.1, 0.1, 0.1, 1}},
    {"Gazebo/Black", {0, 0, 0, 1}},
    {"Gazebo/Red", {1, 0, 0, 1}},
    {"Gazebo/RedBright", {0.87, 0.26, 0.07, 1}},
    {"Gazebo/Green", {0, 1, 0, 1}},
    {"Gazebo/Blue", {0, 0, 1, 1}},
    {"Gazebo/SkyBlue", {0, 0, 1, 1}}, /* its ambient is sky blue, its diffuse plain blue */
    {"Gazebo/Yellow", {1, 1, 0, 1}},
    {"Gazebo/ZincYellow", {0.9725, 0.9529, 0.2078, 1}},
    {"Gazebo/DarkYellow", {0.7, 0.7, 0, 1}},
    {"Gazebo/Purple", {1, 0, 1, 1}},
    {"Gazebo/Turquoise", {0, 1, 1, 1}},
    {"Gazebo/Orange", {1, 0.5088, 0.0468, 1}},
    {"Gazebo/Indigo", {0.33, 0, 0.5, 1}},
    {"Gazebo/Gold", {0.8, 0.64869, 0.120759, 1}},
    {"Gazebo/RedGlow", {1, 0, 0, 1}},
    {"Gazebo/GreenGlow", {0, 1, 0, 1}},
    {"Gazebo/BlueGlow", {0, 0, 1, 1}},
    {"Gazebo/YellowGlow", {1, 1, 0, 1}},
    {"Gazebo/PurpleGlow", {1, 0, 1, 1}},
    {"Gazebo/TurquoiseGlow", {0, 1, 1, 1}},
};

bool wk__gazebo_material_colour(const char *name, double rgba[4])
{
    for (size_t i = 0; name && i < sizeof materials / sizeof materials[0]; i++)
        if (!strcmp(name, materials[i].name)) {
            memcpy(rgba, materials[i].rgba, sizeof materials[i].rgba);
            return true;
        }
    return false;
}
