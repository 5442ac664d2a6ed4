// Ray tracing: the SPLASH-2 / lecture ray-tracing case study as library
// code. Triangle meshes (raytrace/mesh.hpp; OBJ through tinyobjloader in
// raytrace/mesh_io.hpp, not included here), binned-SAH BVHs built in
// parallel with refit and a wide variant (8 children per node on a CPU, 4
// on a GPU; raytrace/bvh.hpp), single-ray
// and packet traversal with reordering (raytrace/traverse.hpp), and a
// renderer with Lambert shading, point-light shadows and ambient occlusion
// (raytrace/render.hpp).
//
// Cost: build O(n log n) (a scan and a scatter per tree level); a closest
// hit visits O(log n) nodes for coherent rays; packets share node fetches
// and box tests among rays that go the same way.
#pragma once

#include <sweep/raytrace/bvh.hpp>
#include <sweep/raytrace/geometry.hpp>
#include <sweep/raytrace/mesh.hpp>
#include <sweep/raytrace/traverse.hpp>
#include <sweep/raytrace/render.hpp>
