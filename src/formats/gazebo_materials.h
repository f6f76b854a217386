/* gazebo_materials.h — the colours of Gazebo's standard named materials,
 * for an SDFormat visual whose <material> names a script and gives no
 * colour of its own. */
#ifndef WK_FORMATS_GAZEBO_MATERIALS_H
#define WK_FORMATS_GAZEBO_MATERIALS_H

#include <stdbool.h>

/* The diffuse colour (red, green, blue, alpha) Gazebo's gazebo.material
 * gives the material name (such as "Gazebo/Red"), in rgba; false for a name
 * it does not hold, or one drawn from a texture. */
bool wk__gazebo_material_colour(const char *name, double rgba[4]);

#endif
