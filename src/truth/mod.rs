//! The ground truth every command measures against: the links' real meshes, which pairs
//! touch on seeded poses, and a kernel model judged against those contacts.
//!
//! - [`meshes`]: every link's truth mesh (collision and visual pieces in the link frame),
//!   loaded once per file;
//! - [`mesh`]: the mesh oracle ([`mesh::MeshTruth`]: do two placed links touch, how deep is
//!   a point in a link's closed parts);
//! - [`contacts`]: the touching pairs of seeded poses, computed once;
//! - [`judge`]: a kernel model against those contacts, cheaply enough to repeat after every
//!   refit;
//! - [`hull`]: the second truth, each link's hull split among its primitives, exact GJK;
//! - [`poses`]: seeded in-limit configurations and the one loop over them;
//! - [`design`]: contacts by design (near pairs whose meshes touch at rest or in most
//!   poses, with their evidence) and the search for a rest pose where the meshes are apart;
//! - [`cells`]: a link's real mesh and its written primitives against an occupancy
//!   grid's cells (`collide sweep --world`), independently of the kernel;
//! - [`reach`]: free space, rays from the rest pose: the poses where the meshes are apart,
//!   how many of them a kernel refuses, and how far along each ray it lets the robot go.

pub mod cells;
pub mod contacts;
pub mod design;
pub mod hull;
pub mod judge;
pub mod mesh;
pub mod meshes;
pub mod poses;
pub mod reach;
