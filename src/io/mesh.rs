//! Mesh loaders: STL (stl_io), OBJ (tobj) and COLLADA (mesh-loader for the
//! geometry, our own reading of the scene graph for placement and units).
//!
//! Every loader feeds triangles, already in metres in the file's frame, to one
//! `Welder`, which checks the coordinates, applies the per-axis scale, welds
//! vertices that are exactly equal after scaling and fixes the winding of
//! mirrored meshes. Third-party parsers run behind `guarded`, so a parser
//! that panics on malformed input becomes an ordinary bad-input error.
//!
//! # What mesh-loader 0.1.13 does with a COLLADA scene (measured, see tests)
//!
//! `mesh_loader::collada` does apply node transforms and `<unit meter>`, but:
//! - it composes a node's transform with its ancestors in the wrong order
//!   (`node · parent · grandparent` instead of `grandparent · parent · node`);
//! - it multiplies the unit into the innermost end of that chain, so node
//!   translations are not scaled by the unit;
//! - a transform within 1e-2 of the identity in every entry is treated as the
//!   identity and dropped (a 5 mm node offset vanishes);
//! - a geometry instanced by several nodes is emitted once, placed by one of
//!   them; a geometry instanced by none is emitted anyway, unplaced and unscaled;
//! - `<instance_node>` is not followed; transforms are computed in `f32`;
//! - `up_axis` is ignored (which is what we want, as RViz and MoveIt do);
//! - `Mesh::merge` offsets each part's indices by the previous part's last
//!   face index + 1, which is wrong whenever that is not the vertex count.
//!
//! So [`load_mesh`] removes `<library_visual_scenes>` and `<scene>` from the
//! text before handing it to mesh-loader (which then returns every geometry
//! raw, in its own coordinates), walks the visual scene itself in `f64` and
//! places one copy of a geometry per `<instance_geometry>`, scaled by the
//! unit, merging the parts itself.

use crate::error::{Error, Result};
use crate::geom::mesh::TriMesh;
use std::cell::Cell;
use std::collections::HashMap;
use std::io::Cursor;
use std::panic::{self, AssertUnwindSafe};
use std::path::Path;
use std::sync::Once;

/// Default for [`MeshLimits::max_triangles`].
pub const DEFAULT_MAX_TRIANGLES: usize = 5_000_000;

/// Bytes one triangle may take in a mesh file, for the size check made before reading it:
/// twice an ASCII STL facet written with full-precision numbers (about 250 bytes), so that no
/// file within `--max-triangles` is refused, while a multi-gigabyte file that cannot be is
/// refused without being read.
pub const MAX_BYTES_PER_TRIANGLE: u64 = 512;

/// Resource limits applied while reading one mesh file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MeshLimits {
    /// Most triangles one mesh file may hold (command-line flag `--max-triangles`).
    pub max_triangles: usize,
}

impl MeshLimits {
    /// The largest file a mesh within `max_triangles` can be (plus 1 MiB for headers and
    /// unused data), checked before the file is read.
    pub fn max_file_bytes(&self) -> u64 {
        (self.max_triangles as u64)
            .saturating_mul(MAX_BYTES_PER_TRIANGLE)
            .saturating_add(1 << 20)
    }
}

impl Default for MeshLimits {
    fn default() -> Self {
        MeshLimits {
            max_triangles: DEFAULT_MAX_TRIANGLES,
        }
    }
}

/// The format a mesh was read as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MeshFormat {
    StlBinary,
    StlAscii,
    Obj,
    Collada,
}

impl MeshFormat {
    pub fn name(self) -> &'static str {
        match self {
            MeshFormat::StlBinary => "STL (binary)",
            MeshFormat::StlAscii => "STL (ASCII)",
            MeshFormat::Obj => "OBJ",
            MeshFormat::Collada => "COLLADA",
        }
    }
}

/// What was read, besides the mesh itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MeshInfo {
    pub format: MeshFormat,
    /// Parts merged into the mesh: STL solids, OBJ models, COLLADA geometry instances.
    pub parts: usize,
    /// Triangles as read, before welding.
    pub source_triangles: usize,
    /// Triangles dropped because all three corners welded into one vertex.
    pub dropped_point_triangles: usize,
    /// What was read but ignored (trailing bytes, an empty COLLADA scene), one line each
    /// naming the file: the caller prints them.
    pub warnings: Vec<String>,
}

/// Reads a mesh file (`.stl`, `.obj` or `.dae`, case-insensitive) into a welded
/// [`TriMesh`] in metres, with `scale` applied per axis.
pub fn load_mesh(path: &Path, scale: [f64; 3], limits: &MeshLimits) -> Result<TriMesh> {
    load_mesh_with_info(path, scale, limits).map(|(mesh, _)| mesh)
}

/// [`load_mesh`], also returning what was read.
pub fn load_mesh_with_info(
    path: &Path,
    scale: [f64; 3],
    limits: &MeshLimits,
) -> Result<(TriMesh, MeshInfo)> {
    mesh_format_of(path, scale)?;
    let bytes = read_file(path, limits)?;
    parse_mesh(path, bytes, scale, limits)
}

/// [`load_mesh_with_info`] on bytes already in memory (fuzzing, tests): `path`
/// names the file in errors and its extension picks the format.
pub fn parse_mesh(
    path: &Path,
    bytes: Vec<u8>,
    scale: [f64; 3],
    limits: &MeshLimits,
) -> Result<(TriMesh, MeshInfo)> {
    let ext = mesh_format_of(path, scale)?;
    let mut welder = Welder::new(path, scale, limits.max_triangles);
    let (format, parts) = match ext.as_str() {
        "stl" => load_stl(path, bytes, &mut welder)?,
        "obj" => (MeshFormat::Obj, load_obj(path, &bytes, &mut welder)?),
        _ => (
            MeshFormat::Collada,
            load_collada(path, &bytes, &mut welder)?,
        ),
    };
    welder.finish(format, parts)
}

/// Checks the scale and the file's extension; returns the extension, lower case.
fn mesh_format_of(path: &Path, scale: [f64; 3]) -> Result<String> {
    if scale.iter().any(|s| !s.is_finite() || *s == 0.0) {
        return Err(Error::at(
            path,
            None,
            format!(
                "invalid mesh scale [{}, {}, {}]: every component must be finite and non-zero",
                scale[0], scale[1], scale[2]
            ),
        ));
    }
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .unwrap_or_default();
    if !matches!(ext.as_str(), "stl" | "obj" | "dae") {
        return Err(Error::at(
            path,
            None,
            "unsupported mesh format (expected a .stl, .obj or .dae file)",
        ));
    }
    Ok(ext)
}

/// A binary STL's triangle count, from its 84-byte header alone, against the limit: a
/// file of 50-byte triangles can hold ten times more than the byte cap allows for, and
/// it is refused here before the rest of it is read. (Anything else passes; the parser
/// decides what the file is.)
fn binary_stl_within_limit(path: &Path, len: u64, limits: &MeshLimits) -> Result<()> {
    use std::io::Read;
    let is_stl = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("stl"));
    if !is_stl || len < STL_HEADER as u64 {
        return Ok(());
    }
    let mut header = [0u8; STL_HEADER];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut header))
        .map_err(|e| Error::at(path, None, format!("cannot read mesh: {e}")))?;
    let declared = u32::from_le_bytes([header[80], header[81], header[82], header[83]]);
    let binary = STL_HEADER as u64 + STL_TRIANGLE * u64::from(declared) == len;
    if binary && declared as usize > limits.max_triangles {
        return Err(Welder::new(path, [1.0; 3], limits.max_triangles).over_limit(declared as usize));
    }
    Ok(())
}

fn read_file(path: &Path, limits: &MeshLimits) -> Result<Vec<u8>> {
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => {
            return Err(Error::at(
                path,
                None,
                "is a directory, expected a mesh file",
            ));
        }
        Ok(m) if m.len() > limits.max_file_bytes() => {
            return Err(Error::at(
                path,
                None,
                format!(
                    "mesh file is {} bytes, more than any mesh within the limit of {} triangles can take ({} bytes; raise it with --max-triangles)",
                    m.len(),
                    limits.max_triangles,
                    limits.max_file_bytes()
                ),
            ));
        }
        Ok(m) => binary_stl_within_limit(path, m.len(), limits)?,
        Err(e) => return Err(Error::at(path, None, format!("cannot read mesh: {e}"))),
    }
    std::fs::read(path).map_err(|e| Error::at(path, None, format!("cannot read mesh: {e}")))
}

// ---------------------------------------------------------------------------
// Welding, scaling, checks

struct Welder<'a> {
    path: &'a Path,
    scale: [f64; 3],
    /// An odd number of negative scale components mirrors the mesh.
    mirror: bool,
    max_triangles: usize,
    index: HashMap<[u64; 3], u32>,
    mesh: TriMesh,
    source_triangles: usize,
    dropped: usize,
    warnings: Vec<String>,
}

impl<'a> Welder<'a> {
    fn new(path: &'a Path, scale: [f64; 3], max_triangles: usize) -> Self {
        let negatives = scale.iter().filter(|s| **s < 0.0).count();
        Welder {
            path,
            scale,
            mirror: negatives % 2 == 1,
            max_triangles,
            index: HashMap::new(),
            mesh: TriMesh::default(),
            source_triangles: 0,
            dropped: 0,
            warnings: Vec::new(),
        }
    }

    /// Fails early when a file announces more triangles than allowed.
    fn announce(&mut self, triangles: usize) -> Result<()> {
        if triangles > self.max_triangles {
            return Err(self.over_limit(triangles));
        }
        let capacity = triangles.min(1 << 20);
        self.mesh.triangles.reserve(capacity);
        self.index.reserve(capacity / 2);
        self.mesh.vertices.reserve(capacity / 2);
        Ok(())
    }

    fn over_limit(&self, triangles: usize) -> Error {
        Error::at(
            self.path,
            None,
            format!(
                "mesh has {triangles} triangles, over the limit of {} (raise it with --max-triangles)",
                self.max_triangles
            ),
        )
    }

    /// Adds one triangle given by its corners in the file's frame, in metres.
    /// `flip` reverses its winding (a mirroring placement); `what` names the
    /// triangle in an error message.
    fn push(
        &mut self,
        corners: [[f64; 3]; 3],
        flip: bool,
        what: impl Fn() -> String,
    ) -> Result<()> {
        self.source_triangles += 1;
        if self.source_triangles > self.max_triangles {
            return Err(self.over_limit(self.source_triangles));
        }
        let mut ids = [0u32; 3];
        for (k, corner) in corners.iter().enumerate() {
            let mut key = [0u64; 3];
            let mut v = [0.0f64; 3];
            for axis in 0..3 {
                let raw = corner[axis];
                if !raw.is_finite() {
                    return Err(Error::at(
                        self.path,
                        None,
                        format!(
                            "{} has a non-finite coordinate ({raw}); NaN and infinity are not allowed",
                            what()
                        ),
                    ));
                }
                // `+ 0.0` turns -0.0 into 0.0, so both weld together.
                let scaled = raw * self.scale[axis] + 0.0;
                if !scaled.is_finite() {
                    return Err(Error::at(
                        self.path,
                        None,
                        format!(
                            "{}: coordinate {raw} overflows when scaled by {}",
                            what(),
                            self.scale[axis]
                        ),
                    ));
                }
                v[axis] = scaled;
                key[axis] = scaled.to_bits();
            }
            ids[k] = match self.index.get(&key) {
                Some(&id) => id,
                None => {
                    let id = u32::try_from(self.mesh.vertices.len()).map_err(|_| {
                        Error::at(
                            self.path,
                            None,
                            "mesh has more vertices than fit a 32-bit index",
                        )
                    })?;
                    self.mesh.vertices.push(v);
                    self.index.insert(key, id);
                    id
                }
            };
        }
        if ids[0] == ids[1] && ids[1] == ids[2] {
            self.dropped += 1;
            return Ok(());
        }
        if flip != self.mirror {
            ids.swap(1, 2);
        }
        self.mesh.triangles.push(ids);
        Ok(())
    }

    fn finish(self, format: MeshFormat, parts: usize) -> Result<(TriMesh, MeshInfo)> {
        if self.mesh.triangles.is_empty() {
            let msg = if self.source_triangles == 0 {
                "mesh is empty: it contains no triangles".to_string()
            } else {
                format!(
                    "mesh is empty: all {} of its triangles are single points",
                    self.source_triangles
                )
            };
            return Err(Error::at(self.path, None, msg));
        }
        let info = MeshInfo {
            format,
            parts,
            source_triangles: self.source_triangles,
            dropped_point_triangles: self.dropped,
            warnings: self.warnings,
        };
        Ok((self.mesh, info))
    }
}

// ---------------------------------------------------------------------------
// Panic guard around third-party parsers

thread_local! {
    static GUARDED: Cell<u32> = const { Cell::new(0) };
}

/// Installs, once, a panic hook that stays silent for panics caught by
/// [`guarded`] on the current thread and defers to the previous hook otherwise.
fn install_quiet_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if GUARDED.with(Cell::get) == 0 {
                previous(info);
            }
        }));
    });
}

/// Runs a third-party parser; a panic becomes a bad-input error naming the file.
fn guarded<T>(path: &Path, parser: &str, f: impl FnOnce() -> T) -> Result<T> {
    install_quiet_hook();
    GUARDED.with(|g| g.set(g.get() + 1));
    let result = panic::catch_unwind(AssertUnwindSafe(f));
    GUARDED.with(|g| g.set(g.get() - 1));
    result.map_err(|payload| {
        let why = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown reason".to_string());
        Error::at(
            path,
            None,
            format!("malformed mesh: the {parser} parser gave up ({why})"),
        )
    })
}

// ---------------------------------------------------------------------------
// STL

const STL_HEADER: usize = 84;
const STL_TRIANGLE: u64 = 50;

/// Reads a binary or ASCII STL. A file whose size is exactly 84 + 50·n bytes,
/// n being the count in its header, is binary whatever its header says (some
/// exporters start binary headers with `solid`); otherwise a text file that
/// starts with `solid` is ASCII.
fn load_stl(path: &Path, mut bytes: Vec<u8>, w: &mut Welder) -> Result<(MeshFormat, usize)> {
    let len = bytes.len() as u64;
    let declared = (bytes.len() >= STL_HEADER)
        .then(|| u32::from_le_bytes([bytes[80], bytes[81], bytes[82], bytes[83]]));
    let binary_size = declared.map(|n| STL_HEADER as u64 + STL_TRIANGLE * u64::from(n));
    if binary_size == Some(len) {
        return load_stl_binary(path, &mut bytes, declared.unwrap_or(0), w);
    }
    if starts_with_solid(&bytes) && !bytes.contains(&0) {
        return load_stl_ascii(path, &bytes, w);
    }
    match (declared, binary_size) {
        (Some(n), Some(size)) if len < size => Err(Error::at(
            path,
            None,
            format!(
                "truncated binary STL: its header declares {n} triangles ({size} bytes) but the file has {len} bytes"
            ),
        )),
        (Some(n), Some(size)) => {
            w.warnings.push(format!(
                "{}: binary STL has {} bytes after its {n} triangles; they are ignored",
                path.display(),
                len - size
            ));
            bytes.truncate(size as usize);
            load_stl_binary(path, &mut bytes, n, w)
        }
        _ => Err(Error::at(
            path,
            None,
            format!(
                "not an STL file: {len} bytes is too short for a binary STL (84-byte header) and it does not start with `solid`"
            ),
        )),
    }
}

fn starts_with_solid(bytes: &[u8]) -> bool {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let start = bytes
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(bytes.len());
    bytes[start..].len() >= 5 && bytes[start..start + 5].eq_ignore_ascii_case(b"solid")
}

fn load_stl_binary(
    path: &Path,
    bytes: &mut [u8],
    declared: u32,
    w: &mut Welder,
) -> Result<(MeshFormat, usize)> {
    w.announce(declared as usize)?;
    // stl_io decides binary or ASCII by the header; blank it so a binary file
    // whose header starts with `solid` is read as binary.
    bytes[..80].fill(0);
    let triangles = guarded(path, "STL", || -> std::io::Result<Vec<stl_io::Triangle>> {
        let mut cursor = Cursor::new(&*bytes);
        stl_io::create_stl_reader(&mut cursor)?.collect()
    })?
    .map_err(|e| Error::at(path, None, format!("bad binary STL: {e}")))?;
    for (i, t) in triangles.iter().enumerate() {
        w.push(t.vertices.map(|v| v.0.map(f64::from)), false, || {
            format!("triangle {}", i + 1)
        })?;
    }
    Ok((MeshFormat::StlBinary, 1))
}

/// Reads an ASCII STL, which may hold several `solid ... endsolid` blocks.
fn load_stl_ascii(path: &Path, bytes: &[u8], w: &mut Welder) -> Result<(MeshFormat, usize)> {
    let text = String::from_utf8_lossy(bytes);
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    // Byte offsets and line numbers (1-based) of the lines that start a solid.
    let mut starts = Vec::new();
    let mut offset = 0;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        let first = line.split_whitespace().next().unwrap_or("");
        if first.eq_ignore_ascii_case("solid") {
            starts.push((offset, i + 1));
        }
        offset += line.len();
    }
    for (k, &(start, first_line)) in starts.iter().enumerate() {
        let end = starts.get(k + 1).map_or(text.len(), |s| s.0);
        let chunk = &text[start..end];
        let body = chunk.find('\n').map_or("", |nl| &chunk[nl + 1..]);
        // stl_io wants exactly `solid ` at the start; the solid's name is unused.
        let normalized = format!("solid x\n{body}");
        let result = guarded(
            path,
            "STL",
            || -> (Vec<stl_io::Triangle>, Option<std::io::Error>) {
                let mut cursor = Cursor::new(normalized.as_bytes());
                let mut read = Vec::new();
                match stl_io::create_stl_reader(&mut cursor) {
                    Err(e) => (read, Some(e)),
                    Ok(iter) => {
                        for t in iter {
                            match t {
                                Ok(t) => read.push(t),
                                Err(e) => return (read, Some(e)),
                            }
                            if read.len() > w.max_triangles {
                                break;
                            }
                        }
                        (read, None)
                    }
                }
            },
        )?;
        let (triangles, error) = result;
        for (i, t) in triangles.iter().enumerate() {
            w.push(t.vertices.map(|v| v.0.map(f64::from)), false, || {
                format!("facet {} of solid {}", i + 1, k + 1)
            })?;
        }
        if let Some(e) = error {
            return Err(ascii_stl_error(path, body, first_line, triangles.len(), &e));
        }
    }
    Ok((MeshFormat::StlAscii, starts.len()))
}

/// Locates an ASCII STL parse error: the facet that failed (stl_io reads seven
/// non-blank lines per facet) and, when a number is bad, the exact token.
fn ascii_stl_error(
    path: &Path,
    body: &str,
    header_line: usize,
    facets_read: usize,
    e: &std::io::Error,
) -> Error {
    let lines: Vec<(usize, &str)> = body
        .lines()
        .enumerate()
        .map(|(i, l)| (header_line + 1 + i, l))
        .filter(|(_, l)| !l.trim().is_empty())
        .collect();
    let facet = &lines[(7 * facets_read).min(lines.len())..];
    let facet = &facet[..facet.len().min(7)];
    for &(line_no, line) in facet {
        let mut words = line.split_whitespace();
        let numbers_from = match words.next() {
            Some("facet") => 2,
            Some("vertex") => 1,
            _ => continue,
        };
        for word in line.split_whitespace().skip(numbers_from) {
            let col = word.as_ptr() as usize - line.as_ptr() as usize + 1;
            match word.parse::<f32>() {
                Ok(x) if x.is_finite() => {}
                Ok(x) => {
                    return Error::at(
                        path,
                        Some((line_no as u32, col as u32)),
                        format!(
                            "bad ASCII STL: `{word}` is not a finite number ({x}); NaN and infinity are not allowed"
                        ),
                    );
                }
                Err(_) => {
                    return Error::at(
                        path,
                        Some((line_no as u32, col as u32)),
                        format!("bad ASCII STL: `{word}` is not a number"),
                    );
                }
            }
        }
    }
    match facet.first() {
        Some(&(line_no, line)) => {
            let col = line.len() - line.trim_start().len() + 1;
            Error::at(
                path,
                Some((line_no as u32, col as u32)),
                format!("bad ASCII STL in the facet starting here: {e}"),
            )
        }
        None => Error::at(
            path,
            None,
            format!("bad ASCII STL at the end of the file: {e}"),
        ),
    }
}

// ---------------------------------------------------------------------------
// OBJ

fn load_obj(path: &Path, bytes: &[u8], w: &mut Welder) -> Result<usize> {
    let text = match std::str::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            let good = &bytes[..e.valid_up_to()];
            let line = good.iter().filter(|b| **b == b'\n').count() + 1;
            return Err(Error::at(
                path,
                Some((line as u32, 1)),
                "OBJ is not UTF-8 text",
            ));
        }
    };
    let triangles = obj_prescan(path, text)?;
    w.announce(triangles)?;
    // `..Default::default()` keeps this compiling if tobj's optional features
    // (which add fields) are ever enabled.
    #[allow(clippy::needless_update)]
    let options = tobj::LoadOptions {
        single_index: true,
        triangulate: true,
        ignore_points: true,
        ignore_lines: true,
        ..Default::default()
    };
    let mut cursor = Cursor::new(bytes);
    let loaded = guarded(path, "OBJ", || {
        // Materials are not needed: never open .mtl files.
        tobj::load_obj_buf(&mut cursor, &options, |_| {
            Err(tobj::LoadError::OpenFileFailed)
        })
    })?;
    let models = match loaded {
        Ok((models, _materials)) => models,
        Err(e) => {
            let pos = cursor.position() as usize;
            let line = bytes[..pos.saturating_sub(1)]
                .iter()
                .filter(|b| **b == b'\n')
                .count()
                + 1;
            return Err(Error::at(
                path,
                Some((line as u32, 1)),
                format!("bad OBJ: {e}"),
            ));
        }
    };
    let mut parts = 0;
    for model in &models {
        let m = &model.mesh;
        if m.indices.is_empty() {
            continue;
        }
        parts += 1;
        for (t, tri) in m.indices.chunks_exact(3).enumerate() {
            let mut corners = [[0.0f64; 3]; 3];
            for (k, &i) in tri.iter().enumerate() {
                let i = i as usize;
                let p = m.positions.get(3 * i..3 * i + 3).ok_or_else(|| {
                    Error::at(
                        path,
                        None,
                        format!(
                            "bad OBJ: object `{}` has a vertex index out of range",
                            model.name
                        ),
                    )
                })?;
                corners[k] = [f64::from(p[0]), f64::from(p[1]), f64::from(p[2])];
            }
            w.push(corners, false, || {
                format!("triangle {} of object `{}`", t + 1, model.name)
            })?;
        }
    }
    Ok(parts)
}

/// Checks every face index before tobj sees the file (tobj reports a bad index
/// without a line, and can overflow on index 0 or huge ones) and counts the
/// triangles the faces will make. Returns that count.
fn obj_prescan(path: &Path, text: &str) -> Result<usize> {
    const KINDS: [&str; 3] = ["vertices", "texture coordinates", "normals"];
    let mut defined = [0usize; 3];
    // Largest absolute index per kind, with where it was written.
    let mut largest: [Option<(usize, u32, u32, String)>; 3] = [None, None, None];
    let mut triangles = 0usize;
    for (i, line) in text.lines().enumerate() {
        let line_no = (i + 1) as u32;
        let mut words = line.split_whitespace();
        let keyword = words.next();
        match keyword {
            Some("v") => defined[0] += 1,
            Some("vt") => defined[1] += 1,
            Some("vn") => defined[2] += 1,
            Some("f") | Some("l") => {
                let mut corners = 0usize;
                for word in words {
                    corners += 1;
                    let col = (word.as_ptr() as usize - line.as_ptr() as usize + 1) as u32;
                    let at = |msg: String| {
                        Error::at(path, Some((line_no, col)), format!("bad OBJ: {msg}"))
                    };
                    let parts: Vec<&str> = word.split('/').collect();
                    if parts.len() > 3 {
                        return Err(at(format!(
                            "`{word}` has more than three /-separated indices"
                        )));
                    }
                    for (k, part) in parts.iter().enumerate() {
                        if part.is_empty() {
                            if k == 0 {
                                return Err(at(format!("`{word}` has no vertex index")));
                            }
                            continue;
                        }
                        let x: i64 = part
                            .parse()
                            .map_err(|_| at(format!("`{part}` in `{word}` is not an index")))?;
                        if x == 0 {
                            return Err(at(format!("index 0 in `{word}`: OBJ indices start at 1")));
                        }
                        if x < 0 {
                            if x.unsigned_abs() as usize > defined[k] {
                                return Err(at(format!(
                                    "relative index {x} in `{word}` is out of range: only {} {} are defined before this line",
                                    defined[k], KINDS[k]
                                )));
                            }
                        } else if largest[k].as_ref().is_none_or(|l| (x as u64) > l.0 as u64) {
                            largest[k] = Some((x as usize, line_no, col, word.to_string()));
                        }
                    }
                }
                triangles += corners.saturating_sub(2);
            }
            _ => {}
        }
    }
    for k in 0..3 {
        if let Some((x, line, col, word)) = &largest[k]
            && *x > defined[k]
        {
            return Err(Error::at(
                path,
                Some((*line, *col)),
                format!(
                    "bad OBJ: index {x} in `{word}` is out of range: the file defines {} {}",
                    defined[k], KINDS[k]
                ),
            ));
        }
    }
    Ok(triangles)
}

// ---------------------------------------------------------------------------
// COLLADA

type Mat4 = [[f64; 4]; 4];

const IDENTITY: Mat4 = [
    [1.0, 0.0, 0.0, 0.0],
    [0.0, 1.0, 0.0, 0.0],
    [0.0, 0.0, 1.0, 0.0],
    [0.0, 0.0, 0.0, 1.0],
];

fn mat_mul(a: &Mat4, b: &Mat4) -> Mat4 {
    let mut c = [[0.0; 4]; 4];
    for (i, row) in c.iter_mut().enumerate() {
        for (j, cell) in row.iter_mut().enumerate() {
            *cell = (0..4).map(|k| a[i][k] * b[k][j]).sum();
        }
    }
    c
}

fn det3(m: &Mat4) -> f64 {
    m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
        - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
        + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
}

fn transform_point(m: &Mat4, p: [f64; 3]) -> [f64; 3] {
    let mut q = [0.0; 3];
    for (i, out) in q.iter_mut().enumerate() {
        *out = m[i][0] * p[0] + m[i][1] * p[1] + m[i][2] * p[2] + m[i][3];
    }
    q
}

/// One `<instance_geometry>`: which geometry, placed where (unit included).
struct Instance {
    geometry: String,
    transform: Mat4,
    pos: (u32, u32),
}

struct SceneWalk<'a, 'input> {
    path: &'a Path,
    doc: &'a roxmltree::Document<'input>,
    nodes_by_id: HashMap<&'a str, roxmltree::Node<'a, 'input>>,
    instances: Vec<Instance>,
    stack: Vec<roxmltree::NodeId>,
    /// Nodes visited so far, and the most allowed: `<instance_node>`s that
    /// fan out place a node exponentially often (a 4 kB file can ask for
    /// 64 million placed copies), so visits are counted against the mesh's
    /// triangle limit, which a scene that places more nodes cannot meet.
    visits: usize,
    max_visits: usize,
}

const MAX_NODE_DEPTH: usize = 256;

impl<'a, 'input> SceneWalk<'a, 'input> {
    fn pos(&self, node: roxmltree::Node) -> (u32, u32) {
        let p = self.doc.text_pos_at(node.range().start);
        (p.row, p.col)
    }

    fn err(&self, node: roxmltree::Node, msg: impl std::fmt::Display) -> Error {
        Error::at(self.path, Some(self.pos(node)), format!("COLLADA: {msg}"))
    }

    /// A `#id` reference within this file.
    fn local_ref<'n>(&self, node: roxmltree::Node<'n, 'input>, attr: &str) -> Result<&'n str> {
        let url = node.attribute(attr).ok_or_else(|| {
            self.err(
                node,
                format!("<{}> has no `{attr}`", node.tag_name().name()),
            )
        })?;
        url.strip_prefix('#').ok_or_else(|| {
            self.err(
                node,
                format!("`{url}`: only references within the file (`#id`) are supported"),
            )
        })
    }

    fn numbers(&self, node: roxmltree::Node, count: usize) -> Result<Vec<f64>> {
        let text = node.text().unwrap_or("");
        let mut values = Vec::with_capacity(count);
        for word in text.split_whitespace() {
            let x: f64 = word.parse().map_err(|_| {
                self.err(
                    node,
                    format!("`{word}` in <{}> is not a number", node.tag_name().name()),
                )
            })?;
            if !x.is_finite() {
                return Err(self.err(
                    node,
                    format!("non-finite value `{word}` in <{}>", node.tag_name().name()),
                ));
            }
            values.push(x);
        }
        if values.len() != count {
            return Err(self.err(
                node,
                format!(
                    "<{}> needs {count} numbers, found {}",
                    node.tag_name().name(),
                    values.len()
                ),
            ));
        }
        Ok(values)
    }

    /// The transform elements of a `<node>`, composed in document order.
    fn local_transform(&self, node: roxmltree::Node) -> Result<Mat4> {
        let mut m = IDENTITY;
        for child in node.children().filter(|c| c.is_element()) {
            let t = match child.tag_name().name() {
                "matrix" => {
                    let v = self.numbers(child, 16)?;
                    let mut t = [[0.0; 4]; 4];
                    for (i, row) in t.iter_mut().enumerate() {
                        row.copy_from_slice(&v[4 * i..4 * i + 4]);
                    }
                    t
                }
                "translate" => {
                    let v = self.numbers(child, 3)?;
                    let mut t = IDENTITY;
                    t[0][3] = v[0];
                    t[1][3] = v[1];
                    t[2][3] = v[2];
                    t
                }
                "scale" => {
                    let v = self.numbers(child, 3)?;
                    let mut t = IDENTITY;
                    t[0][0] = v[0];
                    t[1][1] = v[1];
                    t[2][2] = v[2];
                    t
                }
                "rotate" => {
                    let v = self.numbers(child, 4)?;
                    rotation(&v[..3], v[3].to_radians())
                        .ok_or_else(|| self.err(child, "<rotate> has a zero axis"))?
                }
                "lookat" => {
                    let v = self.numbers(child, 9)?;
                    lookat(&v).ok_or_else(|| self.err(child, "degenerate <lookat>"))?
                }
                "skew" => return Err(self.err(child, "<skew> transforms are not supported")),
                _ => continue,
            };
            m = mat_mul(&m, &t);
        }
        Ok(m)
    }

    fn visit(&mut self, node: roxmltree::Node<'a, 'input>, parent: &Mat4) -> Result<()> {
        if self.stack.contains(&node.id()) {
            return Err(self.err(node, "<instance_node> cycle"));
        }
        if self.stack.len() >= MAX_NODE_DEPTH {
            return Err(self.err(node, format!("nodes nested deeper than {MAX_NODE_DEPTH}")));
        }
        self.visits += 1;
        if self.visits > self.max_visits {
            return Err(self.err(
                node,
                format!(
                    "the scene places nodes more than {} times, more than its triangle limit allows (raise it with --max-triangles)",
                    self.max_visits
                ),
            ));
        }
        self.stack.push(node.id());
        let world = mat_mul(parent, &self.local_transform(node)?);
        for child in node.children().filter(|c| c.is_element()) {
            match child.tag_name().name() {
                "node" => self.visit(child, &world)?,
                "instance_geometry" => {
                    let id = self.local_ref(child, "url")?;
                    self.instances.push(Instance {
                        geometry: id.to_string(),
                        transform: world,
                        pos: self.pos(child),
                    });
                }
                "instance_node" => {
                    let id = self.local_ref(child, "url")?;
                    let target = *self.nodes_by_id.get(id).ok_or_else(|| {
                        self.err(child, format!("<instance_node> names unknown node `#{id}`"))
                    })?;
                    self.visit(target, &world)?;
                }
                "instance_controller" => {
                    return Err(self.err(
                        child,
                        "<instance_controller> (skinned or morphed meshes) is not supported",
                    ));
                }
                _ => {}
            }
        }
        self.stack.pop();
        Ok(())
    }
}

/// Rotation by `angle` radians about `axis` (normalised here).
fn rotation(axis: &[f64], angle: f64) -> Option<Mat4> {
    let n = (axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]).sqrt();
    if n == 0.0 {
        return if angle == 0.0 { Some(IDENTITY) } else { None };
    }
    let (x, y, z) = (axis[0] / n, axis[1] / n, axis[2] / n);
    let (s, c) = angle.sin_cos();
    let t = 1.0 - c;
    Some([
        [t * x * x + c, t * x * y - s * z, t * x * z + s * y, 0.0],
        [t * x * y + s * z, t * y * y + c, t * y * z - s * x, 0.0],
        [t * x * z - s * y, t * y * z + s * x, t * z * z + c, 0.0],
        [0.0, 0.0, 0.0, 1.0],
    ])
}

/// COLLADA `<lookat>`: eye, interest point, up; the camera looks down its -z.
fn lookat(v: &[f64]) -> Option<Mat4> {
    let normalize = |a: [f64; 3]| {
        let n = (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt();
        (n > 0.0).then(|| [a[0] / n, a[1] / n, a[2] / n])
    };
    let cross = |a: [f64; 3], b: [f64; 3]| {
        [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ]
    };
    let eye = [v[0], v[1], v[2]];
    let dir = normalize([v[3] - v[0], v[4] - v[1], v[5] - v[2]])?;
    let up = normalize([v[6], v[7], v[8]])?;
    let right = normalize(cross(dir, up))?;
    let up = cross(right, dir);
    Some([
        [right[0], up[0], -dir[0], eye[0]],
        [right[1], up[1], -dir[1], eye[1]],
        [right[2], up[2], -dir[2], eye[2]],
        [0.0, 0.0, 0.0, 1.0],
    ])
}

/// XML text: UTF-8 (with or without BOM) or UTF-16 with a BOM.
fn xml_text(path: &Path, bytes: &[u8]) -> Result<String> {
    let utf16 = |big: bool| -> Result<String> {
        let units = bytes[2..].chunks(2).map(|c| {
            if c.len() == 2 {
                if big {
                    u16::from_be_bytes([c[0], c[1]])
                } else {
                    u16::from_le_bytes([c[0], c[1]])
                }
            } else {
                0xFFFF
            }
        });
        char::decode_utf16(units)
            .collect::<std::result::Result<String, _>>()
            .map_err(|_| Error::at(path, None, "COLLADA file is not valid UTF-16 text"))
    };
    if bytes.starts_with(&[0xFF, 0xFE]) {
        return utf16(false);
    }
    if bytes.starts_with(&[0xFE, 0xFF]) {
        return utf16(true);
    }
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    match std::str::from_utf8(bytes) {
        Ok(t) => Ok(t.to_string()),
        Err(e) => {
            let line = bytes[..e.valid_up_to()]
                .iter()
                .filter(|b| **b == b'\n')
                .count()
                + 1;
            Err(Error::at(
                path,
                Some((line as u32, 1)),
                "COLLADA file is not UTF-8 text",
            ))
        }
    }
}

fn load_collada(path: &Path, bytes: &[u8], w: &mut Welder) -> Result<usize> {
    let text = xml_text(path, bytes)?;
    let options = roxmltree::ParsingOptions {
        allow_dtd: true,
        ..Default::default()
    };
    let doc = roxmltree::Document::parse_with_options(&text, options).map_err(|e| {
        let pos = e.pos();
        let msg = e.to_string();
        let msg = msg
            .strip_suffix(&format!(" at {pos}"))
            .unwrap_or(&msg)
            .to_string();
        Error::at(
            path,
            Some((pos.row, pos.col)),
            format!("malformed COLLADA XML: {msg}"),
        )
    })?;
    let root = doc.root_element();
    if root.tag_name().name() != "COLLADA" {
        return Err(Error::at(
            path,
            Some((1, 1)),
            "not a COLLADA file: the root element is not <COLLADA>",
        ));
    }
    let mut walk = SceneWalk {
        path,
        doc: &doc,
        nodes_by_id: HashMap::new(),
        instances: Vec::new(),
        stack: Vec::new(),
        visits: 0,
        max_visits: w.max_triangles,
    };
    // <asset><unit meter="..."/></asset>: metres per file unit (default 1).
    let mut unit = 1.0f64;
    for asset in root.children().filter(|c| c.has_tag_name("asset")) {
        for u in asset.children().filter(|c| c.has_tag_name("unit")) {
            if let Some(m) = u.attribute("meter") {
                unit = match m.trim().parse::<f64>() {
                    Ok(x) if x.is_finite() && x > 0.0 => x,
                    _ => {
                        return Err(
                            walk.err(u, format!("<unit meter=\"{m}\"> is not a positive number"))
                        );
                    }
                };
            }
        }
    }
    for node in root.descendants().filter(|n| n.has_tag_name("node")) {
        if let Some(id) = node.attribute("id") {
            walk.nodes_by_id.entry(id).or_insert(node);
        }
    }
    let scenes: Vec<_> = root
        .children()
        .filter(|c| c.has_tag_name("library_visual_scenes"))
        .flat_map(|l| l.children().filter(|c| c.has_tag_name("visual_scene")))
        .collect();
    let chosen = root
        .children()
        .filter(|c| c.has_tag_name("scene"))
        .flat_map(|s| {
            s.children()
                .filter(|c| c.has_tag_name("instance_visual_scene"))
        })
        .next();
    let scene = match chosen {
        Some(inst) => {
            let id = walk.local_ref(inst, "url")?;
            Some(
                *scenes
                    .iter()
                    .find(|s| s.attribute("id") == Some(id))
                    .ok_or_else(|| {
                        walk.err(
                            inst,
                            format!("<instance_visual_scene> names unknown scene `#{id}`"),
                        )
                    })?,
            )
        }
        None => scenes.first().copied(),
    };
    if let Some(scene) = scene {
        for node in scene.children().filter(|c| c.has_tag_name("node")) {
            walk.visit(node, &IDENTITY)?;
        }
    }

    // Hand mesh-loader the file without its scene graph, so it returns every
    // geometry unplaced; keep the newlines so its line numbers stay right.
    let mut stripped = String::with_capacity(text.len());
    let mut last = 0;
    for child in root
        .children()
        .filter(|c| c.has_tag_name("library_visual_scenes") || c.has_tag_name("scene"))
    {
        let r = child.range();
        stripped.push_str(&text[last..r.start]);
        stripped.extend(text[r.clone()].chars().filter(|c| *c == '\n'));
        last = r.end;
    }
    stripped.push_str(&text[last..]);
    let parsed = guarded(path, "COLLADA", || {
        mesh_loader::collada::from_str(&stripped)
    })?
    .map_err(|e| Error::at(path, None, format!("bad COLLADA: {e}")))?;
    let geometries: HashMap<&str, &mesh_loader::Mesh> =
        parsed.meshes.iter().map(|m| (m.name.as_str(), m)).collect();

    let scale = {
        let mut s = IDENTITY;
        s[0][0] = unit;
        s[1][1] = unit;
        s[2][2] = unit;
        s
    };
    let mut placed: Vec<(&mesh_loader::Mesh, Mat4, String)> = Vec::new();
    for inst in &walk.instances {
        let mesh = geometries.get(inst.geometry.as_str()).ok_or_else(|| {
            Error::at(
                path,
                Some(inst.pos),
                format!(
                    "COLLADA: <instance_geometry> names unknown geometry `#{}`",
                    inst.geometry
                ),
            )
        })?;
        placed.push((
            mesh,
            mat_mul(&scale, &inst.transform),
            inst.geometry.clone(),
        ));
    }
    if placed.is_empty() && !parsed.meshes.is_empty() {
        if scene.is_some() {
            w.warnings.push(format!(
                "{}: the COLLADA visual scene places no geometry; using all {} geometries of the file unplaced",
                path.display(),
                parsed.meshes.len()
            ));
        }
        placed = parsed
            .meshes
            .iter()
            .map(|m| (m, scale, m.name.clone()))
            .collect();
    }
    let total: usize = placed.iter().map(|(m, _, _)| m.faces.len()).sum();
    w.announce(total)?;
    for (mesh, transform, name) in &placed {
        let flip = det3(transform) < 0.0;
        for (t, face) in mesh.faces.iter().enumerate() {
            let mut corners = [[0.0f64; 3]; 3];
            for (k, &i) in face.iter().enumerate() {
                let v = mesh.vertices.get(i as usize).ok_or_else(|| {
                    Error::at(
                        path,
                        None,
                        format!("bad COLLADA: geometry `{name}` has a vertex index out of range"),
                    )
                })?;
                if !v.iter().all(|x| x.is_finite()) {
                    return Err(Error::at(
                        path,
                        None,
                        format!(
                            "triangle {} of geometry `{name}` has a non-finite coordinate; NaN and infinity are not allowed",
                            t + 1
                        ),
                    ));
                }
                corners[k] = transform_point(transform, v.map(f64::from));
            }
            w.push(corners, flip, || {
                format!("triangle {} of geometry `{name}`", t + 1)
            })?;
        }
    }
    Ok(placed
        .iter()
        .filter(|(m, _, _)| !m.faces.is_empty())
        .count())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rotation_about_z_by_90_degrees() {
        let m = rotation(&[0.0, 0.0, 2.0], 90f64.to_radians()).unwrap();
        let p = transform_point(&m, [1.0, 0.0, 0.0]);
        assert!((p[0]).abs() < 1e-15 && (p[1] - 1.0).abs() < 1e-15 && p[2] == 0.0);
    }

    #[test]
    fn guarded_turns_a_panic_into_an_input_error() {
        let e = guarded(Path::new("x.dae"), "COLLADA", || -> u32 { panic!("boom") }).unwrap_err();
        assert_eq!(e.kind, crate::error::ErrorKind::Input);
        assert!(
            e.message.contains("x.dae") && e.message.contains("boom"),
            "{}",
            e.message
        );
    }

    #[test]
    fn obj_prescan_counts_triangles_and_checks_indices() {
        let p = Path::new("a.obj");
        assert_eq!(
            obj_prescan(p, "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nf 1 2 4 3\n").unwrap(),
            2
        );
        let e = obj_prescan(p, "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 4\n").unwrap_err();
        assert!(e.message.starts_with("a.obj:4:7: "), "{}", e.message);
        assert!(
            obj_prescan(p, "v 0 0 0\nf 0 1 1\n")
                .unwrap_err()
                .message
                .contains("index 0")
        );
        assert!(obj_prescan(p, "v 0 0 0\nf -2 1 1\n").is_err());
        assert!(obj_prescan(p, "v 0 0 0\nvt 0 0\nf 1/2 1/1 1/1\n").is_err());
        assert!(obj_prescan(p, "v 0 0 0\nf 1/1/1/1 1 1\n").is_err());
    }
}
