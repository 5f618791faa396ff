//! The robot against its world: an occupancy grid with a sparse index, fixtures, payloads
//! attached to links, and the world check (docs/world.md).
//!
//! * [`grid`]: [`OccupancyGrid`], cells `origin + pitch · [i, i+1] × [j, j+1] × [k, k+1]`,
//!   held in 8³ bricks so a window query reads occupied cells only.
//! * [`voxelise`]: grids from a point cloud or a triangle mesh, conservatively.
//! * [`solid`]: [`Shape`] (box, capsule, sphere, convex hull) prepared and placed, and the
//!   staged distance of two placed solids (the kernel's own narrow phases).
//! * [`scene`]: [`World`], a grid and fixtures.
//! * [`payload`]: [`WorldState`], attached payloads, warm starts, counters.
//! * [`check`]: [`Model::check_world`](super::Model::check_world) and its verdict-only
//!   form.
//! * [`witness`]: [`Model::world_witness`](super::Model::world_witness), the points and
//!   exact signed distance of a result's hit.
//!
//! Above the self check in the kernel's import order: it uses the model, the workspace, FK,
//! the check's placed hulls and every distance routine below.

pub mod check;
pub mod grid;
pub mod payload;
pub mod scene;
pub mod solid;
pub mod voxelise;
pub mod witness;

pub use check::{LinkSelection, Obstacle, WorldBody, WorldHit, WorldResult};
pub use grid::{MAX_BRICK_SPAN, MAX_CELLS, MAX_INDEX, OccupancyGrid};
pub use payload::{MAX_PAYLOADS, WorldState, WorldStats};
pub use scene::{MAX_FIXTURES, World};
pub use solid::Shape;
