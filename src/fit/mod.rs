//! Fitting: one link's truth mesh in, proven collision primitives out.
//!
//! [`fit_link`] fits the candidates (minimum-volume capsule, minimum-volume
//! box, capsule chains of 2 and 3), writes each at 4 decimals, proves each on
//! its written values, measures each against the link's convex hull, and picks
//! one by the rule in [`choice`]. [`fit_tight`] fits box + 26-DOP + hull, on
//! the whole link or on N slabs. Both return a [`LinkFit`] that carries only
//! written (rounded) numbers, and fail rather than return anything unproven.
//! [`proof::prove`] re-runs the proof on primitives parsed from a manifest.
//!
//! Determinism: no hashing, no threads, fixed seeds; the same mesh and options
//! give bit-identical output.

pub mod choice;
pub mod decompose;
pub mod metrics;
pub mod proof;
pub mod rounding;
pub mod tight;

use crate::geom::capsule::{self, Capsule};
use crate::geom::chain::{self, Cuts};
use crate::geom::hull::Hull;
use crate::geom::mesh::TriMesh;
use crate::geom::obb;
use crate::geom::support;
use crate::geom::v3::{self, V3};
pub use proof::{Proof, prove};
pub use rounding::{BoxPrim, ceil4, floor4, round4};
pub use tight::TightSlabInfo;

/// Fitting options; `Default` is the defaults.
#[derive(Debug, Clone, PartialEq)]
pub struct FitOptions {
    /// Clearance capsules, chains and plain boxes keep around every vertex
    /// (m), default 0.001.
    pub headroom: f64,
    /// Clearance a tight piece (box + 26-DOP + hull) keeps (m), default 0:
    /// the exact hull, grown only by what rounding its vertices to 1 µm needs.
    pub hull_headroom: f64,
    /// Directions of the protrusion metrics (Fibonacci sphere), default 1024.
    pub directions: usize,
    /// Monte-Carlo samples for the volume of a union, default 50 000 (split
    /// over the primitives; see `metrics::union_volume`).
    pub mc_samples: usize,
    /// Monte-Carlo seed.
    pub seed: u64,
    /// Hull vertex budget for tight geometry, default 320 (the kernel's cap;
    /// larger values are refused by the proof).
    pub max_hull_vertices: usize,
    /// The rule's tie band on mean protrusion, default 0.03 (3 %).
    pub tie_tolerance: f64,
}

impl Default for FitOptions {
    fn default() -> Self {
        FitOptions {
            headroom: 0.001,
            hull_headroom: 0.0,
            directions: 1024,
            mc_samples: 50_000,
            seed: 0x5eed_c011_1de0_0001,
            max_hull_vertices: proof::MAX_HULL_VERTICES,
            tie_tolerance: 0.03,
        }
    }
}

/// Why a link could not be fitted or proven. Every variant names what failed
/// and by how much; a failed proof is never turned into a written primitive.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FitError {
    #[error("the link has no geometry (no vertices)")]
    Empty,
    #[error("vertex {vertex} has a non-finite coordinate")]
    NonFinite { vertex: usize },
    #[error("triangle {triangle} refers to vertex {index}, but the mesh has {vertices} vertices")]
    BadIndex {
        triangle: usize,
        index: u32,
        vertices: usize,
    },
    #[error("invalid headroom {0} (must be finite and >= 0)")]
    BadHeadroom(f64),
    #[error("slab count {0} is invalid (must be at least 1)")]
    BadSlabs(usize),
    #[error("no primitives to prove containment in")]
    NoPrimitives,
    #[error("{slabs} slabs but {primitives} primitives")]
    SlabMismatch { slabs: usize, primitives: usize },
    #[error("primitive {primitive}: {reason}")]
    InvalidPrimitive { primitive: usize, reason: String },
    #[error("vertex {vertex} at {point:?} is outside every primitive (depth {depth:.6e} m)")]
    VertexOutside {
        vertex: usize,
        point: V3,
        depth: f64,
    },
    #[error(
        "triangle {triangle}: surface point {point:?} is outside {} (depth {depth:.6e} m)",
        which(.primitive)
    )]
    TriangleOutside {
        triangle: usize,
        primitive: Option<usize>,
        point: V3,
        depth: f64,
    },
    #[error("primitive {primitive}: hull is invalid: {reason}")]
    HullInvalid { primitive: usize, reason: String },
    #[error("primitive {primitive}: hull has {count} vertices, more than {max}")]
    TooManyHullVertices {
        primitive: usize,
        count: usize,
        max: usize,
    },
    #[error("primitive {primitive}: hull vertex {vertex} is {excess:.6e} m outside the 26-DOP")]
    HullOutsideDop {
        primitive: usize,
        vertex: usize,
        excess: f64,
    },
    #[error("primitive {primitive}: 26-DOP reaches {excess:.6e} m past the box along axis {axis}")]
    DopOutsideBox {
        primitive: usize,
        axis: usize,
        excess: f64,
    },
    #[error("internal fitting failure: {0}")]
    Internal(String),
}

fn which(p: &Option<usize>) -> String {
    match p {
        Some(p) => format!("primitive {p}, which holds its slab"),
        None => "every primitive".to_string(),
    }
}

impl From<FitError> for crate::error::Error {
    fn from(e: FitError) -> Self {
        match e {
            FitError::Empty
            | FitError::NonFinite { .. }
            | FitError::BadIndex { .. }
            | FitError::BadHeadroom(_)
            | FitError::BadSlabs(_) => crate::error::Error::input(e.to_string()),
            _ => crate::error::Error::check(e.to_string()),
        }
    }
}

/// A box with tight geometry: 26-DOP values in the box frame (order in
/// `geom::dop26`), hull vertices in the link frame.
#[derive(Debug, Clone, PartialEq)]
pub struct TightBox {
    pub bbox: BoxPrim,
    pub dop26: [f64; 26],
    pub hull: Vec<V3>,
}

/// One written primitive, link frame, every number on the 4-decimal grid.
/// (A link has a handful of these; boxing the tight variant would only make
/// callers' pattern matching noisier.)
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum Primitive {
    Capsule(Capsule),
    Box(BoxPrim),
    TightBox(TightBox),
}

/// Candidate kinds, in the manifest's spelling via `Display`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Capsule,
    CapsuleChain2,
    CapsuleChain3,
    Box,
    /// Box + 26-DOP + hull per slab (`--tight-link`).
    BoxHull {
        slabs: usize,
    },
}

impl std::fmt::Display for Kind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Kind::Capsule => f.write_str("capsule"),
            Kind::CapsuleChain2 => f.write_str("capsule_chain_2"),
            Kind::CapsuleChain3 => f.write_str("capsule_chain_3"),
            Kind::Box => f.write_str("box"),
            Kind::BoxHull { slabs: 1 } => f.write_str("box_hull"),
            Kind::BoxHull { slabs } => write!(f, "box_hull_{slabs}"),
        }
    }
}

/// A candidate's figures, all at 4 decimals. For tight geometry the volume
/// and protrusions are the boxes' (the broad phase); the hulls' own figures
/// are in [`TightSlabInfo`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Metrics {
    /// Volume (union; Monte Carlo when several primitives) over the link's
    /// convex-hull volume; `None` when the hull has no volume (flat, a
    /// segment or a point).
    pub vol_ratio: Option<f64>,
    /// Largest `h_P(u) - h_hull(u)` over the directions (m).
    pub max_protrusion_m: f64,
    /// Mean of `h_P(u) - h_hull(u)` over the directions (m).
    pub mean_protrusion_m: f64,
    /// Achieved margin from the proof: least depth of a mesh vertex (m,
    /// rounded down).
    pub min_margin_m: f64,
}

impl Metrics {
    fn written(self) -> Metrics {
        Metrics {
            vol_ratio: self.vol_ratio.map(round4),
            max_protrusion_m: round4(self.max_protrusion_m),
            mean_protrusion_m: round4(self.mean_protrusion_m),
            min_margin_m: floor4(self.min_margin_m),
        }
    }
}

/// One candidate: its written primitives, the slab cuts they were fitted on
/// (chains and tight slabs; needed to re-run the clipped-triangle proof; at 4
/// decimals too, the normal not necessarily unit), and its metrics.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    pub kind: Kind,
    pub primitives: Vec<Primitive>,
    pub cuts: Option<Cuts>,
    pub metrics: Metrics,
}

/// A fitted, proven link.
#[derive(Debug, Clone, PartialEq)]
pub struct LinkFit {
    /// The chosen kind.
    pub choice: Kind,
    /// The chosen candidate's written primitives.
    pub primitives: Vec<Primitive>,
    /// The chosen candidate's slab cuts, if any.
    pub cuts: Option<Cuts>,
    /// The chosen candidate's metrics.
    pub metrics: Metrics,
    /// The proof of the chosen primitives on the written values (margins
    /// rounded down to 4 decimals).
    pub proof: Proof,
    /// Mesh size as fitted.
    pub vertices: usize,
    pub triangles: usize,
    /// Every candidate fitted, chosen one included, in the order capsule,
    /// chain 2, chain 3, box (tight fits: the one tight candidate).
    pub candidates: Vec<Candidate>,
    /// Per-slab facts of a tight fit (empty otherwise).
    pub tight: Vec<TightSlabInfo>,
    /// Why a candidate kind was skipped, e.g. chains of a point.
    pub notes: Vec<String>,
}

/// What every candidate shares: the link hull and the metric directions.
struct Context<'a> {
    mesh: &'a TriMesh,
    opts: &'a FitOptions,
    hull: Hull,
    dirs: Vec<V3>,
    hull_support: Vec<f64>,
}

impl<'a> Context<'a> {
    fn new(mesh: &'a TriMesh, opts: &'a FitOptions) -> Result<Self, FitError> {
        for h in [opts.headroom, opts.hull_headroom] {
            if !(h.is_finite() && h >= 0.0) {
                return Err(FitError::BadHeadroom(h));
            }
        }
        proof::validate_mesh(mesh)?;
        let hull = Hull::new(&mesh.vertices);
        let dirs = support::fibonacci_directions(opts.directions.max(1));
        let hull_support = dirs.iter().map(|u| hull.support(*u)).collect();
        Ok(Context {
            mesh,
            opts,
            hull,
            dirs,
            hull_support,
        })
    }

    /// Proves and measures written primitives into a candidate.
    fn candidate(
        &self,
        kind: Kind,
        primitives: Vec<Primitive>,
        cuts: Option<Cuts>,
    ) -> Result<(Candidate, Proof), FitError> {
        proof::check_written(&primitives)?;
        let mut p = prove(self.mesh, &primitives, cuts.as_ref())?;
        let headroom = match kind {
            Kind::BoxHull { .. } => self.opts.hull_headroom,
            _ => self.opts.headroom,
        };
        // Every construction keeps the headroom; a shortfall is a fitter bug.
        if p.min_margin_m < headroom * (1.0 - 1e-9) {
            return Err(FitError::Internal(format!(
                "{kind}: achieved margin {:.6e} m is below the headroom {headroom} m",
                p.min_margin_m
            )));
        }
        p.min_margin_m = floor4(p.min_margin_m);
        p.min_piece_margin_m = floor4(p.min_piece_margin_m);
        let m = metrics::measure(
            &primitives,
            &self.dirs,
            &self.hull_support,
            self.hull.volume,
            self.opts.mc_samples,
            self.opts.seed,
            p.min_margin_m,
        );
        Ok((
            Candidate {
                kind,
                primitives,
                cuts,
                metrics: m.written(),
            },
            p,
        ))
    }
}

/// The search budget of a chain's capsules (a chain has up to three of them,
/// each on a piece whose axis is known to be near the chain's).
pub const CHAIN_SEARCH: capsule::Search = capsule::Search {
    scan: 48,
    starts: 2,
    coreset: 256,
};

/// Capsule chain of `k`: equal slabs along `axis`, one written capsule per
/// non-empty slab piece. Empty slabs (a gap in the geometry) are merged away.
fn chain_of(ctx: &Context, axis: V3, k: usize, extra: &[V3]) -> Option<(Vec<Primitive>, Cuts)> {
    let normal = rounding::round4_v(axis);
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for p in &ctx.mesh.vertices {
        let t = v3::dot(normal, *p);
        lo = lo.min(t);
        hi = hi.max(t);
    }
    if hi - lo <= 1e-3 {
        return None;
    }
    let mut cuts = rounding::written_cuts(&Cuts::equal(normal, lo, hi, k))?;
    let pieces = chain::slab_points_nonempty(ctx.mesh, &mut cuts);
    let h = ctx.opts.headroom;
    let mut prims = Vec::with_capacity(pieces.len());
    let mut axes = vec![axis];
    axes.extend_from_slice(extra);
    for pts in &pieces {
        // The search runs on the piece's directional coreset; no hull needed.
        let cap = capsule::fit_capsule_with(pts, h, &axes, &CHAIN_SEARCH)?;
        prims.push(Primitive::Capsule(rounding::written_capsule(&cap, pts, h)));
    }
    Some((prims, cuts))
}

/// Fits a link's candidates and picks one (module doc). Degenerate meshes (a
/// point, a segment, a flat plate, a single triangle) are fitted too: the
/// capsule and box then have headroom-sized radius or thickness, chains are
/// skipped when the link is under 1 mm long along the capsule axis, and
/// `vol_ratio` is `None` when the link hull has no volume.
pub fn fit_link(mesh: &TriMesh, opts: &FitOptions) -> Result<LinkFit, FitError> {
    let ctx = Context::new(mesh, opts)?;
    let h = opts.headroom;
    let mut notes = Vec::new();
    let mut candidates = Vec::with_capacity(4);
    let mut proofs = Vec::with_capacity(4);

    let bx = obb::fit_obb(&ctx.hull, h).ok_or(FitError::Empty)?;
    let box_axes = [
        v3::col(&bx.rot, 0),
        v3::col(&bx.rot, 1),
        v3::col(&bx.rot, 2),
    ];
    let mut extra: Vec<V3> = box_axes.to_vec();
    extra.extend(obb::distinct_normals(&ctx.hull, 12));
    let cap = capsule::fit_capsule(&ctx.hull.points, h, &extra).ok_or(FitError::Empty)?;
    let written = rounding::written_capsule(&cap, &mesh.vertices, h);
    let (c, p) = ctx.candidate(Kind::Capsule, vec![Primitive::Capsule(written)], None)?;
    candidates.push(c);
    proofs.push(p);

    let axis = cap.axis().unwrap_or_else(|| {
        let (_, cov) = v3::mean_cov(&mesh.vertices);
        v3::col(&v3::sym_eigen(&cov).1, 0)
    });
    for (k, kind) in [(2, Kind::CapsuleChain2), (3, Kind::CapsuleChain3)] {
        match chain_of(&ctx, axis, k, &box_axes) {
            Some((prims, cuts)) => {
                let (c, p) = ctx.candidate(kind, prims, Some(cuts))?;
                candidates.push(c);
                proofs.push(p);
            }
            None => notes.push(format!(
                "{kind}: skipped, the link is under 1 mm long along the capsule axis"
            )),
        }
    }

    let written = rounding::written_box(&bx.rot, &mesh.vertices, h, &[]);
    let (c, p) = ctx.candidate(Kind::Box, vec![Primitive::Box(written)], None)?;
    candidates.push(c);
    proofs.push(p);

    let i = choice::choose(&candidates, opts.tie_tolerance)
        .ok_or_else(|| FitError::Internal("no candidate has finite metrics".into()))?;
    let chosen = candidates[i].clone();
    Ok(LinkFit {
        choice: chosen.kind,
        primitives: chosen.primitives,
        cuts: chosen.cuts,
        metrics: chosen.metrics,
        proof: proofs[i],
        vertices: mesh.vertices.len(),
        triangles: mesh.triangles.len(),
        candidates,
        tight: Vec::new(),
        notes,
    })
}

/// Proof and metrics of primitives that were not fitted here, e.g. parsed
/// from an existing manifest: the loosening guard compares their mean
/// protrusion with a new fit's, and `verify` re-checks containment. Same
/// figures as a fit's (4 decimals, margins rounded down); no headroom is
/// required, only containment. `cuts` as in [`prove`].
pub fn evaluate(
    mesh: &TriMesh,
    primitives: &[Primitive],
    cuts: Option<&Cuts>,
    opts: &FitOptions,
) -> Result<(Metrics, Proof), FitError> {
    let ctx = Context::new(mesh, opts)?;
    let mut p = prove(mesh, primitives, cuts)?;
    p.min_margin_m = floor4(p.min_margin_m);
    p.min_piece_margin_m = floor4(p.min_piece_margin_m);
    let m = metrics::measure(
        primitives,
        &ctx.dirs,
        &ctx.hull_support,
        ctx.hull.volume,
        opts.mc_samples,
        opts.seed,
        p.min_margin_m,
    );
    Ok((m.written(), p))
}

/// Tight geometry for a link: box + 26-DOP + exact hull (at most 320
/// vertices), on the whole link (`max_pieces == 1`) or on at most
/// `max_pieces` pieces of its convex decomposition ([`decompose`]). Proven:
/// mesh within the union of the hulls, each hull within its DOP within its
/// box, on the written values.
pub fn fit_tight(
    mesh: &TriMesh,
    max_pieces: usize,
    opts: &FitOptions,
) -> Result<LinkFit, FitError> {
    fit_tight_avoiding(mesh, max_pieces, opts, &[])
}

/// [`fit_tight`] whose decomposition keeps the points of `avoid` (link frame) out of the
/// pieces' hulls where a cut can ([`decompose::decompose_avoiding`]).
pub fn fit_tight_avoiding(
    mesh: &TriMesh,
    max_pieces: usize,
    opts: &FitOptions,
    avoid: &[V3],
) -> Result<LinkFit, FitError> {
    if max_pieces == 0 || max_pieces > decompose::PIECE_BUDGET {
        return Err(FitError::BadSlabs(max_pieces));
    }
    let ctx = Context::new(mesh, opts)?;
    let pieces = if max_pieces > 1 {
        decompose::decompose_avoiding(mesh, max_pieces, avoid)?
    } else {
        vec![mesh.clone()]
    };
    let mut notes = Vec::new();
    if max_pieces > 1 && pieces.len() < max_pieces {
        notes.push(format!(
            "{} of at most {max_pieces} pieces: no further cut removes {:.0} % of the hull volume",
            pieces.len(),
            decompose::MIN_GAIN * 100.0
        ));
    }
    let mut prims = Vec::with_capacity(pieces.len());
    let mut infos = Vec::with_capacity(pieces.len());
    for piece in &pieces {
        let (t, info) = tight::tight_piece(&piece.vertices, opts, &ctx.dirs)?;
        prims.push(Primitive::TightBox(t));
        infos.push(info);
    }
    let kind = Kind::BoxHull { slabs: prims.len() };
    let (c, p) = ctx.candidate(kind, prims, None)?;
    Ok(LinkFit {
        choice: kind,
        primitives: c.primitives.clone(),
        cuts: None,
        metrics: c.metrics,
        proof: p,
        vertices: mesh.vertices.len(),
        triangles: mesh.triangles.len(),
        candidates: vec![c],
        tight: infos,
        notes,
    })
}
