//! Analytic shapes as triangle meshes that CONTAIN the shape (circumscribed),
//! so fitting to the mesh also covers the true solid.

use super::mesh::TriMesh;

pub fn box_mesh(half: [f64; 3]) -> TriMesh {
    let mut vertices = Vec::with_capacity(8);
    for i in 0..8 {
        let s = |bit: usize, h: f64| if i & (1 << bit) != 0 { h } else { -h };
        vertices.push([s(0, half[0]), s(1, half[1]), s(2, half[2])]);
    }
    // Two triangles per face, outward winding.
    let quads = [
        [0, 2, 3, 1],
        [4, 5, 7, 6],
        [0, 1, 5, 4],
        [2, 6, 7, 3],
        [0, 4, 6, 2],
        [1, 3, 7, 5],
    ];
    let mut triangles = Vec::with_capacity(12);
    for q in quads {
        triangles.push([q[0], q[1], q[2]]);
        triangles.push([q[0], q[2], q[3]]);
    }
    TriMesh {
        vertices,
        triangles,
    }
}

/// A z-axis cylinder centred at the origin; the polygon's edges touch the circle.
pub fn cylinder_mesh(radius: f64, length: f64, segments: usize) -> TriMesh {
    let n = segments.max(3);
    let r = radius / (std::f64::consts::PI / n as f64).cos();
    let h = length / 2.0;
    let mut vertices = Vec::with_capacity(2 * n + 2);
    for i in 0..n {
        let a = 2.0 * std::f64::consts::PI * i as f64 / n as f64;
        vertices.push([r * a.cos(), r * a.sin(), -h]);
        vertices.push([r * a.cos(), r * a.sin(), h]);
    }
    let bottom = vertices.len() as u32;
    vertices.push([0.0, 0.0, -h]);
    vertices.push([0.0, 0.0, h]);
    let top = bottom + 1;
    let mut triangles = Vec::with_capacity(4 * n);
    for i in 0..n as u32 {
        let j = (i + 1) % n as u32;
        let (b0, t0, b1, t1) = (2 * i, 2 * i + 1, 2 * j, 2 * j + 1);
        triangles.push([b0, b1, t1]);
        triangles.push([b0, t1, t0]);
        triangles.push([bottom, b1, b0]);
        triangles.push([top, t0, t1]);
    }
    TriMesh {
        vertices,
        triangles,
    }
}

/// A UV sphere scaled so every face plane is at least 1 from the centre, then
/// stretched by `radii`: the affine image of a polyhedron holding the unit ball
/// holds the ellipsoid.
pub fn ellipsoid_mesh(radii: [f64; 3], segments: usize) -> TriMesh {
    let n = segments.max(4);
    let rings = n / 2;
    let mut vertices = vec![[0.0, 0.0, -1.0]];
    for k in 1..rings {
        let phi = std::f64::consts::PI * k as f64 / rings as f64 - std::f64::consts::FRAC_PI_2;
        for i in 0..n {
            let a = 2.0 * std::f64::consts::PI * i as f64 / n as f64;
            vertices.push([phi.cos() * a.cos(), phi.cos() * a.sin(), phi.sin()]);
        }
    }
    vertices.push([0.0, 0.0, 1.0]);
    let top = (vertices.len() - 1) as u32;
    let ring = |k: usize, i: usize| (1 + (k - 1) * n + i % n) as u32;
    let mut triangles = Vec::new();
    for i in 0..n {
        triangles.push([0, ring(1, i + 1), ring(1, i)]);
        triangles.push([top, ring(rings - 1, i), ring(rings - 1, i + 1)]);
    }
    for k in 1..rings - 1 {
        for i in 0..n {
            triangles.push([ring(k, i), ring(k, i + 1), ring(k + 1, i + 1)]);
            triangles.push([ring(k, i), ring(k + 1, i + 1), ring(k + 1, i)]);
        }
    }
    // Distance from the centre to the nearest face plane (faces are outward, centre inside).
    let mut nearest = f64::INFINITY;
    for t in &triangles {
        let [a, b, c] = t.map(|i| vertices[i as usize]);
        let u = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
        let v = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
        let nrm = [
            u[1] * v[2] - u[2] * v[1],
            u[2] * v[0] - u[0] * v[2],
            u[0] * v[1] - u[1] * v[0],
        ];
        let len = (nrm[0] * nrm[0] + nrm[1] * nrm[1] + nrm[2] * nrm[2]).sqrt();
        let d = (nrm[0] * a[0] + nrm[1] * a[1] + nrm[2] * a[2]).abs() / len;
        nearest = nearest.min(d);
    }
    // A hair beyond 1/nearest so rounding in the division cannot leave the ball outside.
    let grow = (1.0 / nearest) * (1.0 + 1e-12);
    for v in &mut vertices {
        for (c, r) in v.iter_mut().zip(radii) {
            *c *= grow * r;
        }
    }
    TriMesh {
        vertices,
        triangles,
    }
}

/// A z-axis capsule as the union of two sphere meshes and a cylinder side.
pub fn capsule_mesh(radius: f64, length: f64, segments: usize) -> TriMesh {
    let mut out = cylinder_mesh(radius, length, segments);
    for z in [-length / 2.0, length / 2.0] {
        let s = ellipsoid_mesh([radius; 3], segments);
        let base = out.vertices.len() as u32;
        out.vertices
            .extend(s.vertices.iter().map(|v| [v[0], v[1], v[2] + z]));
        out.triangles.extend(
            s.triangles
                .iter()
                .map(|t| [t[0] + base, t[1] + base, t[2] + base]),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sphere_mesh_holds_the_sphere() {
        let m = ellipsoid_mesh([0.1; 3], 16);
        // Every face plane is at least the radius from the centre.
        for t in &m.triangles {
            let [a, b, c] = t.map(|i| m.vertices[i as usize]);
            let u = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
            let v = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
            let n = [
                u[1] * v[2] - u[2] * v[1],
                u[2] * v[0] - u[0] * v[2],
                u[0] * v[1] - u[1] * v[0],
            ];
            let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
            let d = (n[0] * a[0] + n[1] * a[1] + n[2] * a[2]) / len;
            assert!(d >= 0.1, "face plane at {d}, inside the sphere");
        }
    }

    #[test]
    fn cylinder_polygon_edges_touch_the_circle() {
        let m = cylinder_mesh(1.0, 2.0, 8);
        let a = m.vertices[0];
        let b = m.vertices[2];
        let mid = [(a[0] + b[0]) / 2.0, (a[1] + b[1]) / 2.0];
        assert!(((mid[0] * mid[0] + mid[1] * mid[1]).sqrt() - 1.0).abs() < 1e-12);
        assert_eq!(m.triangles.len(), 32);
    }

    #[test]
    fn box_has_eight_corners() {
        let m = box_mesh([1.0, 2.0, 3.0]);
        assert_eq!(m.vertices.len(), 8);
        assert!(m.vertices.contains(&[1.0, 2.0, 3.0]) && m.vertices.contains(&[-1.0, -2.0, -3.0]));
    }
}
