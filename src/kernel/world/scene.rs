//! [`World`]: an occupancy grid and fixtures, what the robot is checked against.

use super::super::distance_hull_box::box_dop;
use super::super::dop26::Dop26;
use super::grid::OccupancyGrid;
use super::solid::{Body, Shape};

/// Most fixtures a world may hold (they are tested one by one, without an index).
pub const MAX_FIXTURES: usize = 4096;

/// A world: occupied cells of one grid and fixtures (known furniture), both in the world
/// frame. Immutable once built; `Send + Sync`; share one between threads.
#[derive(Clone, Debug)]
pub struct World {
    pub(crate) grid: OccupancyGrid,
    /// The DOP of a cell (a cube of the grid's pitch), shared by every cell.
    pub(crate) cell_dop: Dop26,
    pub(crate) fixtures: Vec<Body>,
    shapes: Vec<Shape>,
}

impl World {
    /// A world of `grid`'s cells and the `fixtures` (world frame). Errors name the fixture
    /// (by index) that is not a valid shape; nothing is built on error.
    pub fn new(grid: OccupancyGrid, fixtures: Vec<Shape>) -> Result<World, String> {
        if fixtures.len() > MAX_FIXTURES {
            return Err(format!(
                "{} fixtures, more than the limit of {MAX_FIXTURES}",
                fixtures.len()
            ));
        }
        let bodies = fixtures
            .iter()
            .enumerate()
            .map(|(i, s)| Body::new(s, &format!("fixture {i}")))
            .collect::<Result<Vec<_>, _>>()?;
        let h = 0.5 * grid.pitch();
        Ok(World {
            cell_dop: box_dop([h; 3]),
            grid,
            fixtures: bodies,
            shapes: fixtures,
        })
    }

    /// This world with one more fixture (its index is the old count).
    pub fn with_fixture(&self, shape: Shape) -> Result<World, String> {
        let mut shapes = self.shapes.clone();
        shapes.push(shape);
        World::new(self.grid.clone(), shapes)
    }

    pub fn grid(&self) -> &OccupancyGrid {
        &self.grid
    }

    /// The fixtures as given.
    pub fn fixtures(&self) -> &[Shape] {
        &self.shapes
    }
}
