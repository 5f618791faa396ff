//! `collide-kernel`: the collide self-collision kernel over a manifest, as a C library.
//!
//! The same code `collide verify` and `collide sweep` check with: a manifest read by
//! [`collide::manifest::load_manifest`], loaded by [`collide::manifest::kernel::load_kernel`],
//! checked by [`collide::kernel::Model`]. See docs/kernel-library.md for the contract.
//!
//! * [`CollideModel`]: immutable, `Send + Sync`, shared by every thread.
//! * [`CollideSession`]: one per thread, all scratch preallocated by `collide_session_new`;
//!   `collide_check` and `collide_pair_distances` allocate nothing on success.
//! * Every entry point returns a [`CollideStatus`] (or a documented sentinel), never unwinds
//!   into C, and leaves a message for [`collide_last_error`] when it fails.

#![allow(clippy::missing_safety_doc)] // the safety contract is in each function's doc, in C terms

pub mod coherent;
pub mod world;
pub mod world_coherent;

use coherent::{Cache, Coherence, Preset, Verdict};
use collide::kernel::world::WorldState;
use collide::kernel::{CheckResult, Model, Workspace};
use std::cell::RefCell;
use std::ffi::{CStr, CString, c_char};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::sync::Arc;

/// What a call did. Every function that can fail returns one; on anything but
/// `COLLIDE_STATUS_OK`, `collide_last_error()` names the cause.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CollideStatus {
    /// Success.
    Ok = 0,
    /// A null pointer, a wrong length, a NaN or infinite joint value, a negative or NaN
    /// margin, an index out of range.
    BadArgument = 1,
    /// The file was read but is not a manifest the kernel accepts (the same checks as
    /// `collide verify` reading it).
    BadManifest = 2,
    /// The file could not be read (missing, a directory, no permission).
    Io = 3,
    /// An internal error (a bug in collide: please report it). The session that was
    /// passed should be freed.
    Panic = 4,
}

/// What a check proved. Only `COLLIDE_VERDICT_FREE` lets a robot go.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CollideVerdict {
    /// Every checked pair proven or checked more than `margin` apart.
    Free = 0,
    /// An exact check found a pair at or below `margin`.
    InCollision = 1,
    /// Not proven either way: the `speed` preset's budget of exact checks ran out before
    /// every pair that may be within `margin` was checked. Treat as not free.
    Unknown = 2,
}

/// How `collide_check_coherent` checks on a session (`collide_session_set_preset`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CollidePreset {
    /// No cache: every pair exactly, as `collide_check`.
    Precise = 0,
    /// The cache (the default): a pair is checked exactly only when the motion bound no
    /// longer proves it; the same verdicts as `collide_check`.
    Balanced = 1,
    /// The cache and at most `budget` exact checks per call of pairs that hold an anchor
    /// (the first call, and the first after a reset, a margin change or a `q` outside the
    /// limits, checks every pair), the most threatening first; may answer
    /// `COLLIDE_VERDICT_UNKNOWN`, never `FREE` without a proof.
    Speed = 2,
}

/// The verdict of one configuration, written by `collide_check`, `collide_check_coherent`
/// and `collide_check_batch`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CollideResult {
    /// The pose is not proven free: `verdict != COLLIDE_VERDICT_FREE` (a pair is at or
    /// below `margin`, or, with the `speed` preset only, not every pair was proven).
    /// Never false when a checked pair's primitives are within `margin` of each other.
    pub in_collision: bool,
    /// Every joint value is within its limits (continuous joints always are). The ACM's
    /// proven exemptions (pairs never checked) hold only inside the limits.
    pub within_limits: bool,
    /// A lower bound on the least signed distance (metres, negative in overlap) over the
    /// checked pairs, exact (within 1e-10 m) when it is `<= margin + 0.01`; `+INFINITY`
    /// when the model has no checked pair.
    pub min_distance: f64,
    /// Index (as in `collide_model_pair_links`) of the pair attaining `min_distance`, the
    /// first in pair order on ties; -1 when there is no checked pair. When `in_collision`,
    /// this pair trips.
    pub pair: i64,
    /// Link index of that pair's first link (`collide_model_link_name`); -1 with no pair.
    pub link_a: i64,
    /// Link index of that pair's second link; -1 with no pair.
    pub link_b: i64,
    /// Free, in collision (proven by an exact check) or unknown (`speed` preset only).
    pub verdict: CollideVerdict,
    /// Witness points of `pair` (world frame, metres), when the session computes them
    /// (`collide_session_set_witness`) and `min_distance <= margin + 0.01` (where the value
    /// is exact): apart, the closest points of the two links' primitives (`point_a` on
    /// `link_a`); in overlap, each link's point deepest in the other, so `point_a - point_b`
    /// is the shortest translation of `link_b` that separates them. Always
    /// `|point_a - point_b| = |signed distance|`. NaN otherwise (and in batches).
    pub point_a: [f64; 3],
    /// The witness point on `link_b`; NaN when `point_a` is.
    pub point_b: [f64; 3],
}

/// The verdict-only check's answer for one configuration, written by
/// `collide_check_verdict` and `collide_check_verdict_batch`: `collide_check`'s verdict
/// without its distances.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CollideVerdictResult {
    /// A checked pair is at or below `margin`: exactly `collide_check`'s `in_collision`.
    pub in_collision: bool,
    /// Every joint value is within its limits (as in `CollideResult`).
    pub within_limits: bool,
    /// Index (as in `collide_model_pair_links`) of the first checked pair, in pair order,
    /// at or below `margin`: the pair the check stopped at. -1 when free. Not necessarily
    /// the least pair `collide_check` reports (that needs every pair's distance).
    pub pair: i64,
    /// Link index of that pair's first link (`collide_model_link_name`); -1 with no pair.
    pub link_a: i64,
    /// Link index of that pair's second link; -1 with no pair.
    pub link_b: i64,
}

impl CollideVerdictResult {
    /// No verdict yet: what a failed call leaves in `*result`.
    pub const EMPTY: CollideVerdictResult = CollideVerdictResult {
        in_collision: false,
        within_limits: false,
        pair: -1,
        link_a: -1,
        link_b: -1,
    };
}

impl Default for CollideVerdictResult {
    fn default() -> Self {
        CollideVerdictResult::EMPTY
    }
}

impl Default for CollideResult {
    /// No verdict yet: what a failed call leaves in `*result`.
    fn default() -> Self {
        CollideResult::EMPTY
    }
}

impl CollideResult {
    const EMPTY: CollideResult = CollideResult {
        in_collision: false,
        within_limits: false,
        min_distance: f64::NAN,
        pair: -1,
        link_a: -1,
        link_b: -1,
        verdict: CollideVerdict::Unknown,
        point_a: [f64::NAN; 3],
        point_b: [f64::NAN; 3],
    };
}

/// A loaded manifest: the kernel model and the names behind its indices. Immutable;
/// share one across threads. Opaque to C.
pub struct CollideModel {
    model: Model,
    coherence: Coherence,
    joint_names: Vec<CString>,
    link_names: Vec<CString>,
}

/// Per-thread scratch for one model: the kernel workspace. Opaque to C. Holds a
/// reference on its model, so the model may be freed first.
pub struct CollideSession {
    model: Arc<CollideModel>,
    ws: Workspace,
    cache: Cache,
    preset: Preset,
    /// Whether checks fill the result's witness points.
    witness: bool,
    /// The world check's payloads, warm starts and counters (`world.rs`).
    world: WorldState,
    /// The coherent world check's per-link anchors (`world_coherent.rs`).
    world_cache: world_coherent::WorldCache,
}

/// What the last `collide_check_coherent` on a session did (`collide_session_stats`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CollideStats {
    /// Pairs whose exact check ran.
    pub exact_pairs: u32,
    /// Pairs skipped: their distance provably stayed above the margin (or, once an exact
    /// check trips, above the tripping pair's).
    pub skipped_pairs: u32,
    /// Pairs the `speed` preset's budget left unchecked.
    pub unchecked_pairs: u32,
    /// Whether forward kinematics ran (it does not when every pair was skipped).
    pub fk: bool,
}

// The contract C callers rely on: a model is shared across threads, a session moves.
const _: () = {
    const fn shared<T: Send + Sync>() {}
    const fn movable<T: Send>() {}
    shared::<CollideModel>();
    movable::<CollideSession>();
};

thread_local! {
    static LAST_ERROR: RefCell<Option<CString>> = const { RefCell::new(None) };
}

/// A failed call: its status and the message `collide_last_error` returns.
struct Failure(CollideStatus, String);

fn bad(msg: impl Into<String>) -> Failure {
    Failure(CollideStatus::BadArgument, msg.into())
}

fn set_error(msg: String) {
    let c = CString::new(msg.replace('\0', " ")).unwrap_or_default();
    let _ = LAST_ERROR.try_with(|e| *e.borrow_mut() = Some(c));
}

/// Runs `f`, catching any panic: the status, with the message stored on failure.
fn guard(what: &str, f: impl FnOnce() -> Result<(), Failure>) -> CollideStatus {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => CollideStatus::Ok,
        Ok(Err(Failure(status, msg))) => {
            set_error(format!("{what}: {msg}"));
            status
        }
        Err(payload) => {
            let why = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            set_error(format!(
                "{what}: internal error: {why} (a bug in collide, please report it)"
            ));
            CollideStatus::Panic
        }
    }
}

/// Runs `f` for a value, catching any panic: `fallback` when it panics.
fn guard_value<T>(fallback: T, f: impl FnOnce() -> T) -> T {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or(fallback)
}

unsafe fn model_ref<'a>(model: *const CollideModel) -> Result<&'a CollideModel, Failure> {
    // SAFETY: the caller passes null or a pointer from `collide_model_load` not yet freed.
    unsafe { model.as_ref() }.ok_or_else(|| bad("the model is null"))
}

unsafe fn session_mut<'a>(session: *mut CollideSession) -> Result<&'a mut CollideSession, Failure> {
    // SAFETY: the caller passes null or a live session, used by one thread at a time.
    unsafe { session.as_mut() }.ok_or_else(|| bad("the session is null"))
}

/// The caller's `q` as a slice, checked: not null (unless the model has no joint), the
/// model's length, every value finite. `row` names a batch row in the message.
unsafe fn joint_values<'a>(
    m: &CollideModel,
    q: *const f64,
    nq: usize,
    row: Option<usize>,
) -> Result<&'a [f64], Failure> {
    let dof = m.model.dof();
    let at = |s: String| match row {
        Some(r) => format!("row {r}: {s}"),
        None => s,
    };
    if nq != dof {
        return Err(bad(at(format!(
            "q has {nq} values, the model has {dof} joints (collide_model_joint_name gives their order)"
        ))));
    }
    if dof == 0 {
        return Ok(&[]);
    }
    if q.is_null() {
        return Err(bad(at("q is null".into())));
    }
    // SAFETY: the caller promises `nq` readable doubles at `q`.
    let q = unsafe { std::slice::from_raw_parts(q, nq) };
    if let Some(i) = q.iter().position(|v| !v.is_finite()) {
        return Err(bad(at(format!(
            "q[{i}] (joint `{}`) is {}, expected a finite number",
            m.joint_names[i].to_string_lossy(),
            q[i]
        ))));
    }
    Ok(q)
}

fn check_margin(margin: f64, what: &str) -> Result<(), Failure> {
    if margin.is_finite() && margin >= 0.0 {
        Ok(())
    } else {
        Err(bad(format!(
            "{what} is {margin}, expected a finite number >= 0 (metres)"
        )))
    }
}

impl CollideModel {
    fn load(path: &Path) -> Result<CollideModel, Failure> {
        let shown = path.display();
        // Reading first tells an unreadable file (IO) from one that is not a manifest.
        match std::fs::metadata(path) {
            Err(e) => return Err(Failure(CollideStatus::Io, format!("{shown}: {e}"))),
            Ok(md) if md.is_dir() => {
                return Err(Failure(
                    CollideStatus::Io,
                    format!("{shown}: is a directory, expected a manifest file"),
                ));
            }
            Ok(_) => {}
        }
        if let Err(e) = std::fs::File::open(path) {
            return Err(Failure(CollideStatus::Io, format!("{shown}: {e}")));
        }
        let manifest = collide::manifest::load_manifest(path)
            .map_err(|e| Failure(CollideStatus::BadManifest, e.to_string()))?;
        let k = collide::manifest::kernel::load_kernel(&manifest)
            .map_err(|e| Failure(CollideStatus::BadManifest, format!("{shown}: {e}")))?;
        let cstrings = |names: &[String]| -> Vec<CString> {
            names
                .iter()
                .map(|n| CString::new(n.replace('\0', " ")).unwrap_or_default())
                .collect()
        };
        Ok(CollideModel {
            coherence: Coherence::new(&k.model),
            joint_names: cstrings(&k.dof_names),
            link_names: cstrings(&k.link_names),
            model: k.model,
        })
    }

    /// The index of checked pair `(a, b)`: the pairs are in ascending order, so a binary
    /// search (no allocation) finds it.
    fn pair_index(&self, pair: Option<(usize, usize)>) -> i64 {
        let Some(p) = pair else { return -1 };
        let pairs = self.model.checked_pairs();
        match pairs.binary_search(&p) {
            Ok(i) => i as i64,
            // Not sorted after all: the linear search is still allocation-free.
            Err(_) => pairs.iter().position(|&x| x == p).map_or(-1, |i| i as i64),
        }
    }

    /// The C result of a kernel result; `verdict` defaults to what `r.tripped` proves.
    fn result(&self, r: &CheckResult, q: &[f64], verdict: Option<Verdict>) -> CollideResult {
        let (a, b) = r.min_pair.map_or((-1, -1), |(a, b)| (a as i64, b as i64));
        let verdict = match verdict {
            Some(Verdict::Free) => CollideVerdict::Free,
            Some(Verdict::InCollision) => CollideVerdict::InCollision,
            Some(Verdict::Unknown) => CollideVerdict::Unknown,
            None if r.tripped => CollideVerdict::InCollision,
            None => CollideVerdict::Free,
        };
        CollideResult {
            in_collision: verdict != CollideVerdict::Free,
            within_limits: self.model.within_limits(q),
            min_distance: r.min_distance,
            pair: self.pair_index(r.min_pair),
            link_a: a,
            link_b: b,
            verdict,
            ..CollideResult::EMPTY
        }
    }

    /// The verdict-only check at `q` (`collide_check_verdict`).
    fn verdict(&self, ws: &mut Workspace, q: &[f64], margin: f64) -> CollideVerdictResult {
        let v = self.model.check_verdict(q, ws, margin);
        let (a, b) = v
            .first_tripping_pair
            .map_or((-1, -1), |(a, b)| (a as i64, b as i64));
        CollideVerdictResult {
            in_collision: v.tripped,
            within_limits: self.model.within_limits(q),
            pair: self.pair_index(v.first_tripping_pair),
            link_a: a,
            link_b: b,
        }
    }

    /// Fills `r`'s witness points when its pair's value is in the exact band. `ws` must
    /// hold the poses of `q` for that pair's links (`placed`), else they are computed.
    fn witness(
        &self,
        r: &mut CollideResult,
        ws: &mut Workspace,
        q: &[f64],
        margin: f64,
        placed: bool,
    ) {
        let Ok(pair) = usize::try_from(r.pair) else {
            return;
        };
        // NaN (a non-finite value) is not in the band either.
        let in_band = r.min_distance <= margin + self.model.refine_band();
        if !in_band {
            return;
        }
        if !placed {
            self.model.fk(q, ws);
        }
        let w = self.model.pair_witness(pair, ws, margin);
        r.point_a = w.point_a;
        r.point_b = w.point_b;
    }
}

/// Loads a manifest (the YAML `collide lower` writes) into a model.
///
/// `path`: a NUL-terminated file path. On success `*out_model` is a model to free with
/// `collide_model_free`; on failure it is set to NULL and the status is `COLLIDE_STATUS_IO`
/// (the file cannot be read) or `COLLIDE_STATUS_BAD_MANIFEST` (it is not a manifest
/// `collide verify` can read, or the kernel refuses it), with the file, line and field in
/// `collide_last_error()`. Allocates.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn collide_model_load(
    path: *const c_char,
    out_model: *mut *const CollideModel,
) -> CollideStatus {
    guard("collide_model_load", || {
        if out_model.is_null() {
            return Err(bad("out_model is null"));
        }
        // SAFETY: checked non-null; the caller gives a writable pointer.
        unsafe { *out_model = std::ptr::null() };
        if path.is_null() {
            return Err(bad("path is null"));
        }
        // SAFETY: the caller gives a NUL-terminated string.
        let bytes = unsafe { CStr::from_ptr(path) }.to_bytes();
        #[cfg(unix)]
        let path = {
            use std::os::unix::ffi::OsStrExt;
            Path::new(std::ffi::OsStr::from_bytes(bytes))
        };
        #[cfg(not(unix))]
        let owned =
            String::from_utf8(bytes.to_vec()).map_err(|_| bad("path is not valid UTF-8"))?;
        #[cfg(not(unix))]
        let path = Path::new(&owned);
        let model = CollideModel::load(path)?;
        // SAFETY: checked non-null above.
        unsafe { *out_model = Arc::into_raw(Arc::new(model)) };
        Ok(())
    })
}

/// Frees a model from `collide_model_load`. NULL is ignored. Sessions made from it stay
/// valid: the model lives until its last session is freed. Using `model` afterwards (or
/// freeing it twice) is undefined behaviour.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn collide_model_free(model: *const CollideModel) {
    if model.is_null() {
        return;
    }
    let _ = catch_unwind(|| {
        // SAFETY: the pointer came from `Arc::into_raw` in `collide_model_load`.
        drop(unsafe { Arc::from_raw(model) });
    });
}

/// Number of joint values `q` has (the independent joints; mimic joints follow their
/// leaders, fixed joints are not counted). 0 for a NULL model.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn collide_model_joint_count(model: *const CollideModel) -> usize {
    // SAFETY: null or a live model.
    guard_value(0, || unsafe { model.as_ref() }.map_or(0, |m| m.model.dof()))
}

/// Name of joint `i` (the joint behind `q[i]`), NUL-terminated, valid while the model
/// lives. NULL for a NULL model or `i >= collide_model_joint_count(model)`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn collide_model_joint_name(
    model: *const CollideModel,
    i: usize,
) -> *const c_char {
    guard_value(std::ptr::null(), || {
        // SAFETY: null or a live model.
        unsafe { model.as_ref() }
            .and_then(|m| m.joint_names.get(i))
            .map_or(std::ptr::null(), |s| s.as_ptr())
    })
}

/// Limits of joint `i` (radians or metres) into `*lower`, `*upper`; a continuous joint
/// gives [-pi, pi] (it has none). `COLLIDE_STATUS_BAD_ARGUMENT` for a NULL pointer or
/// `i` out of range.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn collide_model_joint_limits(
    model: *const CollideModel,
    i: usize,
    lower: *mut f64,
    upper: *mut f64,
) -> CollideStatus {
    guard("collide_model_joint_limits", || {
        // SAFETY: null or a live model.
        let m = unsafe { model_ref(model) }?;
        if lower.is_null() || upper.is_null() {
            return Err(bad("lower or upper is null"));
        }
        if i >= m.model.dof() {
            return Err(bad(format!(
                "joint {i} out of range: the model has {} joints",
                m.model.dof()
            )));
        }
        let (lo, hi) = m.model.dof_range(i);
        // SAFETY: checked non-null; the caller gives writable pointers.
        unsafe {
            *lower = lo;
            *upper = hi;
        }
        Ok(())
    })
}

/// Number of links (every link of the tree, with or without geometry). 0 for NULL.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn collide_model_link_count(model: *const CollideModel) -> usize {
    // SAFETY: null or a live model.
    guard_value(0, || {
        unsafe { model.as_ref() }.map_or(0, |m| m.link_names.len())
    })
}

/// Name of link `i`, NUL-terminated, valid while the model lives. NULL for a NULL model or
/// `i >= collide_model_link_count(model)`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn collide_model_link_name(
    model: *const CollideModel,
    i: usize,
) -> *const c_char {
    guard_value(std::ptr::null(), || {
        // SAFETY: null or a live model.
        unsafe { model.as_ref() }
            .and_then(|m| m.link_names.get(i))
            .map_or(std::ptr::null(), |s| s.as_ptr())
    })
}

/// Number of checked link pairs: the pairs the ACM does not exempt whose links both carry
/// geometry. `collide_pair_distances` writes one value per pair. 0 for NULL.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn collide_model_pair_count(model: *const CollideModel) -> usize {
    // SAFETY: null or a live model.
    guard_value(0, || {
        unsafe { model.as_ref() }.map_or(0, |m| m.model.checked_pairs().len())
    })
}

/// The two link indices of checked pair `i` into `*link_a < *link_b`.
/// `COLLIDE_STATUS_BAD_ARGUMENT` for a NULL pointer or `i` out of range.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn collide_model_pair_links(
    model: *const CollideModel,
    i: usize,
    link_a: *mut usize,
    link_b: *mut usize,
) -> CollideStatus {
    guard("collide_model_pair_links", || {
        // SAFETY: null or a live model.
        let m = unsafe { model_ref(model) }?;
        if link_a.is_null() || link_b.is_null() {
            return Err(bad("link_a or link_b is null"));
        }
        let pairs = m.model.checked_pairs();
        let &(a, b) = pairs.get(i).ok_or_else(|| {
            bad(format!(
                "pair {i} out of range: the model has {} checked pairs",
                pairs.len()
            ))
        })?;
        // SAFETY: checked non-null; the caller gives writable pointers.
        unsafe {
            *link_a = a;
            *link_b = b;
        }
        Ok(())
    })
}

/// The manifest's margin (metres): the margin the ACM's `never` exemptions were proven
/// for. NaN for NULL.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn collide_model_margin(model: *const CollideModel) -> f64 {
    // SAFETY: null or a live model.
    guard_value(f64::NAN, || {
        unsafe { model.as_ref() }.map_or(f64::NAN, |m| m.model.margin())
    })
}

/// A session for `model`: the preallocated scratch one thread checks with. Allocates (once);
/// `collide_check` and `collide_pair_distances` on it then never do. On success
/// `*out_session` is a session to free with `collide_session_free`; on failure NULL.
/// A session may move between threads but must not be used by two at once.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn collide_session_new(
    model: *const CollideModel,
    out_session: *mut *mut CollideSession,
) -> CollideStatus {
    guard("collide_session_new", || {
        if out_session.is_null() {
            return Err(bad("out_session is null"));
        }
        // SAFETY: checked non-null.
        unsafe { *out_session = std::ptr::null_mut() };
        if model.is_null() {
            return Err(bad("the model is null"));
        }
        // SAFETY: a live model from `Arc::into_raw`: take one more reference on it.
        let model = unsafe {
            Arc::increment_strong_count(model);
            Arc::from_raw(model)
        };
        let s = Box::new(CollideSession::new(model));
        // SAFETY: checked non-null.
        unsafe { *out_session = Box::into_raw(s) };
        Ok(())
    })
}

/// Frees a session (and its reference on the model). NULL is ignored.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn collide_session_free(session: *mut CollideSession) {
    if session.is_null() {
        return;
    }
    let _ = catch_unwind(|| {
        // SAFETY: the pointer came from `Box::into_raw` in `collide_session_new`.
        drop(unsafe { Box::from_raw(session) });
    });
}

/// Forgets whatever the session carries between calls: the coherent mode's cache (the next
/// `collide_check_coherent` checks every pair) and the kernel's warm-start witnesses (off:
/// `collide_check` never depends on earlier calls). No allocation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn collide_session_reset(session: *mut CollideSession) -> CollideStatus {
    guard("collide_session_reset", || {
        // SAFETY: null or a live session.
        let s = unsafe { session_mut(session) }?;
        s.ws.reset_warm_start();
        s.cache.reset();
        s.world_cache.reset();
        Ok(())
    })
}

/// What the last `collide_check_coherent` on `session` did, into `*stats`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn collide_session_stats(
    session: *const CollideSession,
    stats: *mut CollideStats,
) -> CollideStatus {
    guard("collide_session_stats", || {
        // SAFETY: null or a live session.
        let s = unsafe { session.as_ref() }.ok_or_else(|| bad("the session is null"))?;
        if stats.is_null() {
            return Err(bad("stats is null"));
        }
        let c = s.cache.stats();
        // SAFETY: checked non-null.
        unsafe { *stats = stats_of(c) };
        Ok(())
    })
}

fn stats_of(c: coherent::CoherentStats) -> CollideStats {
    CollideStats {
        exact_pairs: c.exact_pairs,
        skipped_pairs: c.skipped_pairs,
        unchecked_pairs: c.unchecked_pairs,
        fk: c.fk,
    }
}

fn preset_of(preset: CollidePreset, budget: u32) -> Result<Preset, Failure> {
    match (preset, budget) {
        (CollidePreset::Precise, 0) => Ok(Preset::Precise),
        (CollidePreset::Balanced, 0) => Ok(Preset::Balanced),
        (CollidePreset::Speed, 0) => Ok(Preset::Balanced),
        (CollidePreset::Speed, b) => Ok(Preset::Speed { budget: b }),
        (p, b) => Err(bad(format!(
            "a budget of {b} exact checks with preset {p:?}: only the speed preset takes one (0 for none)"
        ))),
    }
}

/// `collide_check`: every pair at `margin`, and the witness points when asked.
fn exact_check(
    m: &CollideModel,
    ws: &mut Workspace,
    witness: bool,
    q: &[f64],
    margin: f64,
) -> CollideResult {
    let r = m
        .model
        .check_self_collision_with_margin(q, ws, margin, false);
    let mut out = m.result(&r, q, None);
    if witness {
        m.witness(&mut out, ws, q, margin, true);
    }
    out
}

/// The session's preset at `q`: `Precise` is `collide_check`; the others go through the cache.
fn coherent_check(
    m: &CollideModel,
    ws: &mut Workspace,
    cache: &mut Cache,
    preset: Preset,
    witness: bool,
    q: &[f64],
    margin: f64,
) -> CollideResult {
    let budget = match preset {
        Preset::Precise => return exact_check(m, ws, witness, q, margin),
        Preset::Balanced => None,
        Preset::Speed { budget } => Some(budget),
    };
    let o = cache.check_with(&m.coherence, &m.model, ws, q, margin, budget);
    let mut out = m.result(&o.result, q, Some(o.verdict));
    if witness {
        // The cache posed only the links of the pairs it checked.
        m.witness(&mut out, ws, q, margin, false);
    }
    out
}

/// Whether checks on `session` fill their result's witness points (`on` nonzero) or leave
/// them NaN (0, the default). They cost one more exact evaluation of the least pair
/// (closest points, or the deepest points in overlap), and in the cached presets forward
/// kinematics of every link. `collide_check_world` fills them too, for its nearest body and
/// obstacle. No allocation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn collide_session_set_witness(
    session: *mut CollideSession,
    on: u32,
) -> CollideStatus {
    guard("collide_session_set_witness", || {
        // SAFETY: null or a live session.
        let s = unsafe { session_mut(session) }?;
        s.witness = on != 0;
        Ok(())
    })
}

/// Whether `collide_check` (and the precise preset, and `collide_check_verdict`) on
/// `session` start each primitive pair's exact check from its last one on this session (`on`
/// nonzero) or cold (0, the default). On a smooth path it is faster (docs/benchmarks.md,
/// issue 32). It never changes a verdict or a tripping pair; a distance may differ from the
/// cold one within the GJK tolerance (1e-9 m), never within 1e-8 m of the margin, and is a
/// lower bound on the exact one either way. The cached presets always warm-start.
/// `collide_session_reset` forgets what it carries. No allocation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn collide_session_set_warm_start(
    session: *mut CollideSession,
    on: u32,
) -> CollideStatus {
    guard("collide_session_set_warm_start", || {
        // SAFETY: null or a live session.
        let s = unsafe { session_mut(session) }?;
        s.set_warm_start(on != 0);
        Ok(())
    })
}

/// Sets how `collide_check_coherent` checks on `session`: `preset` is a `CollidePreset`
/// value, `COLLIDE_PRESET_PRECISE` (no
/// cache), `COLLIDE_PRESET_BALANCED` (the default) or `COLLIDE_PRESET_SPEED` with at most
/// `budget` exact pair checks per call (0: no budget, as balanced). `budget` must be 0
/// for the other presets. The cache is kept: its anchors stay valid whatever the preset.
/// No allocation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn collide_session_set_preset(
    session: *mut CollideSession,
    preset: u32,
    budget: u32,
) -> CollideStatus {
    guard("collide_session_set_preset", || {
        // SAFETY: null or a live session.
        let s = unsafe { session_mut(session) }?;
        // An integer, not the enum: a value C passes outside it must be an error, not UB.
        let preset = match preset {
            0 => CollidePreset::Precise,
            1 => CollidePreset::Balanced,
            2 => CollidePreset::Speed,
            p => {
                return Err(bad(format!(
                    "preset {p}: expected COLLIDE_PRESET_PRECISE (0), BALANCED (1) or SPEED (2)"
                )));
            }
        };
        s.preset = preset_of(preset, budget)?;
        Ok(())
    })
}

/// Checks one configuration: forward kinematics, then every checked pair at `margin`.
///
/// `q`: `nq` joint values in `collide_model_joint_name` order (radians, metres), finite;
/// `nq` must equal `collide_model_joint_count`. Values outside the limits are checked
/// (and flagged in `within_limits`). `margin` (metres, finite, >= 0): a pair trips when a
/// lower bound on its distance is `<= margin`, so `in_collision` is false only when every
/// checked pair's primitives are more than `margin` apart. The primitives contain the
/// robot's meshes (proven when the manifest was written); the pairs the ACM exempts are
/// not checked, and its `never` rows are proven for the manifest's margin
/// (`collide_model_margin`) inside the joint limits.
///
/// Writes `*result` on success (and a result with `pair = -1` on failure). Allocates
/// nothing on success.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn collide_check(
    session: *mut CollideSession,
    q: *const f64,
    nq: usize,
    margin: f64,
    result: *mut CollideResult,
) -> CollideStatus {
    guard("collide_check", || {
        if result.is_null() {
            return Err(bad("result is null"));
        }
        // SAFETY: checked non-null; the caller gives a writable result.
        unsafe { *result = CollideResult::EMPTY };
        // SAFETY: null or a live session.
        let s = unsafe { session_mut(session) }?;
        let m = &*s.model;
        // SAFETY: the caller gives `nq` doubles at `q`.
        let q = unsafe { joint_values(m, q, nq, None) }?;
        check_margin(margin, "margin")?;
        let out = exact_check(m, &mut s.ws, s.witness, q, margin);
        // SAFETY: checked non-null.
        unsafe { *result = out };
        Ok(())
    })
}

/// The verdict-only check: `collide_check`'s verdict (`in_collision`) at `margin`, exactly,
/// without the least distance or any penetration depth. It stops at the first checked
/// pair, in pair order, at or below `margin` and reports it (`pair`, `link_a`, `link_b`);
/// an overlapping pair decides at once. What a sampling planner needs: a pose in collision
/// costs about what a free one does, where `collide_check` pays for the depth of every
/// overlapping pair that could be the least. The witness setting and the cache of the
/// session are not used.
///
/// `q`, `nq`, `margin` as in `collide_check`. Writes `*result` on success (and a result with
/// `pair = -1` on failure). Allocates nothing on success.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn collide_check_verdict(
    session: *mut CollideSession,
    q: *const f64,
    nq: usize,
    margin: f64,
    result: *mut CollideVerdictResult,
) -> CollideStatus {
    guard("collide_check_verdict", || {
        if result.is_null() {
            return Err(bad("result is null"));
        }
        // SAFETY: checked non-null; the caller gives a writable result.
        unsafe { *result = CollideVerdictResult::EMPTY };
        // SAFETY: null or a live session.
        let s = unsafe { session_mut(session) }?;
        let m = &*s.model;
        // SAFETY: the caller gives `nq` doubles at `q`.
        let q = unsafe { joint_values(m, q, nq, None) }?;
        check_margin(margin, "margin")?;
        let out = m.verdict(&mut s.ws, q, margin);
        // SAFETY: checked non-null.
        unsafe { *result = out };
        Ok(())
    })
}

/// `collide_check` with the session's cache (its preset, `collide_session_set_preset`;
/// balanced by default): the same contract, cheaper on smooth motion.
///
/// Per pair the session keeps a lower bound `L_p` on its distance at the configuration
/// `q_p` of its last exact check. `δ_p = Σ |q_i - q_p,i| · R_i` over the joints on the tree
/// path between the pair's links bounds how far their geometry can have moved relative to
/// each other on the whole segment from `q_p` to `q` (docs/kernel-library.md has the
/// proof); while `L_p - δ_p > margin` the pair is proven clear and not checked. A clock
/// (the path's length in its largest joint step) schedules each pair for when it may have
/// lost its slack, so a call only visits the pairs that come due. Once an exact check
/// trips, a pair proven farther apart than the tripping pair is not checked either (it
/// cannot be the least). Only an exact check reports `COLLIDE_VERDICT_IN_COLLISION`;
/// `FREE` means every pair was proven or checked more than `margin` apart, exactly as
/// `collide_check` guarantees, so the verdicts are `collide_check`'s (the `speed` preset
/// may answer `UNKNOWN` instead). In collision, `min_distance` and `pair` are
/// `collide_check`'s; when free, `min_distance` is a lower bound, looser than
/// `collide_check`'s for pairs that were not visited (`pair = -1` when such a bound is
/// the least). Outside the joint limits every pair is checked and the cache forgotten.
/// Forward kinematics runs only for the links of the pairs checked. Allocates nothing
/// on success.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn collide_check_coherent(
    session: *mut CollideSession,
    q: *const f64,
    nq: usize,
    margin: f64,
    result: *mut CollideResult,
) -> CollideStatus {
    guard("collide_check_coherent", || {
        if result.is_null() {
            return Err(bad("result is null"));
        }
        // SAFETY: checked non-null; the caller gives a writable result.
        unsafe { *result = CollideResult::EMPTY };
        // SAFETY: null or a live session.
        let s = unsafe { session_mut(session) }?;
        let m = &*s.model;
        // SAFETY: the caller gives `nq` doubles at `q`.
        let q = unsafe { joint_values(m, q, nq, None) }?;
        check_margin(margin, "margin")?;
        let out = coherent_check(m, &mut s.ws, &mut s.cache, s.preset, s.witness, q, margin);
        // SAFETY: checked non-null.
        unsafe { *result = out };
        Ok(())
    })
}

/// Every checked pair's value at one configuration, into `out[0..pair_count]`.
///
/// Each value is a lower bound on that pair's signed distance (metres, negative in
/// overlap), exact (within 1e-10 m) when it is `<= cutoff + 0.01`; pairs farther apart may
/// get a cheaper bound (a bounding-sphere gap). `cutoff`: finite and >= 0, or `+INFINITY`
/// for every pair exact. `n_out` must be at least `collide_model_pair_count`; entries past
/// it are left alone. `q`, `nq` as in `collide_check`. Allocates nothing on success.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn collide_pair_distances(
    session: *mut CollideSession,
    q: *const f64,
    nq: usize,
    cutoff: f64,
    out: *mut f64,
    n_out: usize,
) -> CollideStatus {
    guard("collide_pair_distances", || {
        // SAFETY: null or a live session.
        let s = unsafe { session_mut(session) }?;
        let m = &*s.model;
        // SAFETY: the caller gives `nq` doubles at `q`.
        let q = unsafe { joint_values(m, q, nq, None) }?;
        if cutoff.is_nan() || cutoff < 0.0 {
            return Err(bad(format!(
                "cutoff is {cutoff}, expected a number >= 0 (metres) or +INFINITY"
            )));
        }
        let n = m.model.checked_pairs().len();
        if n_out < n {
            return Err(bad(format!(
                "out has room for {n_out} values, the model has {n} checked pairs"
            )));
        }
        if n == 0 {
            return Ok(());
        }
        if out.is_null() {
            return Err(bad("out is null"));
        }
        m.model
            .check_self_collision_with_margin(q, &mut s.ws, cutoff, true);
        // SAFETY: checked non-null; the caller gives `n_out >= n` writable doubles.
        let out = unsafe { std::slice::from_raw_parts_mut(out, n) };
        out.copy_from_slice(s.ws.pair_distances());
        Ok(())
    })
}

/// Checks `n` configurations, `q` row-major (`n` rows of `nq` values), into `out[0..n]`,
/// each exactly what `collide_check` gives for that row (bit for bit, whatever `threads`).
///
/// `threads`: how many threads share the rows (contiguous blocks); 0 for one per CPU; 1 runs
/// on the calling thread. Every row is validated before any is checked: a bad row fails
/// the whole call and names the row. Allocates (a workspace per thread, the threads).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn collide_check_batch(
    model: *const CollideModel,
    q: *const f64,
    n: usize,
    nq: usize,
    margin: f64,
    out: *mut CollideResult,
    threads: usize,
) -> CollideStatus {
    guard("collide_check_batch", || {
        // SAFETY: the caller's contract, passed on.
        unsafe {
            batch(model, q, n, nq, margin, out, threads, |m, ws, qr| {
                let c = m
                    .model
                    .check_self_collision_with_margin(qr, ws, margin, false);
                m.result(&c, qr, None)
            })
        }
    })
}

/// `collide_check_verdict` on `n` configurations, as `collide_check_batch` (the same
/// arguments, validation and threads) into `out[0..n]`: each row exactly what
/// `collide_check_verdict` gives for it, whatever `threads`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn collide_check_verdict_batch(
    model: *const CollideModel,
    q: *const f64,
    n: usize,
    nq: usize,
    margin: f64,
    out: *mut CollideVerdictResult,
    threads: usize,
) -> CollideStatus {
    guard("collide_check_verdict_batch", || {
        // SAFETY: the caller's contract, passed on.
        unsafe {
            batch(model, q, n, nq, margin, out, threads, |m, ws, qr| {
                m.verdict(ws, qr, margin)
            })
        }
    })
}

/// The batch entry points' body: validates the model, margin and every row, then runs
/// `check` on each row, `threads` contiguous blocks each with its own workspace.
#[allow(clippy::too_many_arguments)]
unsafe fn batch<T: Send>(
    model: *const CollideModel,
    q: *const f64,
    n: usize,
    nq: usize,
    margin: f64,
    out: *mut T,
    threads: usize,
    check: impl Fn(&CollideModel, &mut Workspace, &[f64]) -> T + Sync,
) -> Result<(), Failure> {
    // SAFETY: null or a live model.
    let m = unsafe { model_ref(model) }?;
    check_margin(margin, "margin")?;
    if n == 0 {
        return Ok(());
    }
    if out.is_null() {
        return Err(bad("out is null"));
    }
    let dof = m.model.dof();
    if nq != dof {
        return Err(bad(format!(
            "rows have {nq} values, the model has {dof} joints (collide_model_joint_name gives their order)"
        )));
    }
    let total = n
        .checked_mul(nq)
        .ok_or_else(|| bad(format!("{n} rows of {nq} values overflow")))?;
    let all: &[f64] = if total == 0 {
        &[]
    } else if q.is_null() {
        return Err(bad("q is null"));
    } else {
        // SAFETY: the caller gives `n * nq` doubles at `q`.
        unsafe { std::slice::from_raw_parts(q, total) }
    };
    for r in 0..n {
        // SAFETY: row `r` lies inside `all`.
        unsafe { joint_values(m, all.as_ptr().wrapping_add(r * nq), nq, Some(r)) }?;
    }
    // SAFETY: checked non-null; the caller gives `n` writable results.
    let out = unsafe { std::slice::from_raw_parts_mut(out, n) };
    let threads = match threads {
        0 => std::thread::available_parallelism().map_or(1, |t| t.get()),
        t => t,
    }
    .min(n);
    let run = |rows: std::ops::Range<usize>, out: &mut [T]| {
        let mut ws = m.model.workspace();
        for (r, o) in rows.zip(out.iter_mut()) {
            *o = check(m, &mut ws, &all[r * nq..(r + 1) * nq]);
        }
    };
    if threads <= 1 {
        run(0..n, out);
        return Ok(());
    }
    let chunk = n.div_ceil(threads);
    std::thread::scope(|scope| {
        for (k, block) in out.chunks_mut(chunk).enumerate() {
            let start = k * chunk;
            let run = &run;
            scope.spawn(move || run(start..start + block.len(), block));
        }
    });
    Ok(())
}

/// A failed call of the Rust API: the status the C ABI returns for it and its message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    /// What kind of failure (never `Ok`).
    pub status: CollideStatus,
    /// What failed and why, for a human (the text `collide_last_error` gives).
    pub message: String,
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

/// Runs `f` for the Rust API, catching any panic as `CollideStatus::Panic`.
fn rust_guard<T>(what: &str, f: impl FnOnce() -> Result<T, Failure>) -> Result<T, Error> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(Failure(status, msg))) => Err(Error {
            status,
            message: format!("{what}: {msg}"),
        }),
        Err(_) => Err(Error {
            status: CollideStatus::Panic,
            message: format!("{what}: internal error (a bug in collide, please report it)"),
        }),
    }
}

/// The Rust API (what the Python module wraps): the same checks and verdicts as the C
/// functions of the same names, on slices.
impl CollideModel {
    /// `collide_model_load`.
    pub fn open(path: &Path) -> Result<Arc<CollideModel>, Error> {
        rust_guard("load", || CollideModel::load(path).map(Arc::new))
    }

    /// Number of joint values `q` has (`collide_model_joint_count`).
    pub fn dof(&self) -> usize {
        self.model.dof()
    }

    /// Joint names in `q`'s order.
    pub fn joint_names(&self) -> Vec<String> {
        self.joint_names
            .iter()
            .map(|c| c.to_string_lossy().into_owned())
            .collect()
    }

    /// Link names, indexed as in [`CollideModel::pairs`] and [`CollideResult`].
    pub fn link_names(&self) -> Vec<String> {
        self.link_names
            .iter()
            .map(|c| c.to_string_lossy().into_owned())
            .collect()
    }

    /// The checked pairs' link indices, in pair order.
    pub fn pairs(&self) -> &[(usize, usize)] {
        self.model.checked_pairs()
    }

    /// Limits of joint `i` (`collide_model_joint_limits`); panics when `i >= dof()`.
    pub fn joint_limits(&self, i: usize) -> (f64, f64) {
        self.model.dof_range(i)
    }

    /// The manifest's margin (`collide_model_margin`).
    pub fn margin(&self) -> f64 {
        self.model.margin()
    }

    /// `collide_check_batch` on `q`, `n` rows of `dof()` values, into `out[..n]`.
    pub fn check_batch(
        &self,
        q: &[f64],
        margin: f64,
        out: &mut [CollideResult],
        threads: usize,
    ) -> Result<(), Error> {
        self.rust_batch(
            "check_batch",
            "collide_check_batch: ",
            q,
            out,
            |q, n, nq, o| {
                // SAFETY: `q` holds `n * nq` values and `o` at least `n` results.
                unsafe { collide_check_batch(self, q, n, nq, margin, o, threads) }
            },
        )
    }

    /// `collide_check_verdict_batch` on `q`, `n` rows of `dof()` values, into `out[..n]`.
    pub fn check_verdict_batch(
        &self,
        q: &[f64],
        margin: f64,
        out: &mut [CollideVerdictResult],
        threads: usize,
    ) -> Result<(), Error> {
        let what = "check_verdict_batch";
        self.rust_batch(
            what,
            "collide_check_verdict_batch: ",
            q,
            out,
            |q, n, nq, o| {
                // SAFETY: `q` holds `n * nq` values and `o` at least `n` results.
                unsafe { collide_check_verdict_batch(self, q, n, nq, margin, o, threads) }
            },
        )
    }

    /// A batch entry point on slices: whole rows, room in `out`, and the C call's message
    /// (without its `prefix`) on failure.
    fn rust_batch<T>(
        &self,
        what: &str,
        prefix: &str,
        q: &[f64],
        out: &mut [T],
        call: impl FnOnce(*const f64, usize, usize, *mut T) -> CollideStatus,
    ) -> Result<(), Error> {
        rust_guard(what, || {
            let nq = self.model.dof();
            let n = q.len().checked_div(nq).unwrap_or(out.len());
            if q.len() != n * nq {
                return Err(bad(format!(
                    "{} values are not whole rows of {nq} (the model's joints)",
                    q.len()
                )));
            }
            if out.len() < n {
                return Err(bad(format!("out has room for {}, not {n} rows", out.len())));
            }
            let st = call(q.as_ptr(), n, nq, out.as_mut_ptr());
            if st == CollideStatus::Ok {
                Ok(())
            } else {
                let msg = last_error_string();
                Err(Failure(
                    st,
                    msg.strip_prefix(prefix).unwrap_or(&msg).to_string(),
                ))
            }
        })
    }
}

/// The message `collide_last_error` holds on this thread, as a Rust string.
fn last_error_string() -> String {
    LAST_ERROR
        .try_with(|e| {
            e.borrow()
                .as_ref()
                .map(|c| c.to_string_lossy().into_owned())
        })
        .ok()
        .flatten()
        .unwrap_or_default()
}

impl CollideSession {
    /// `collide_session_new`: a session holding a reference on `model`.
    pub fn new(model: Arc<CollideModel>) -> CollideSession {
        let ws = model.model.workspace();
        let cache = Cache::new(&model.coherence);
        CollideSession {
            world: WorldState::new(&model.model),
            world_cache: world_coherent::WorldCache::new(&model.model),
            model,
            ws,
            cache,
            preset: Preset::Balanced,
            witness: false,
        }
    }

    /// The session's model.
    pub fn model(&self) -> &Arc<CollideModel> {
        &self.model
    }

    /// `collide_check`.
    pub fn check(&mut self, q: &[f64], margin: f64) -> Result<CollideResult, Error> {
        rust_guard("check", || {
            let m = &*self.model;
            // SAFETY: a slice of `q.len()` values.
            let q = unsafe { joint_values(m, q.as_ptr(), q.len(), None) }?;
            check_margin(margin, "margin")?;
            Ok(exact_check(m, &mut self.ws, self.witness, q, margin))
        })
    }

    /// `collide_check_verdict`.
    pub fn check_verdict(&mut self, q: &[f64], margin: f64) -> Result<CollideVerdictResult, Error> {
        rust_guard("check_verdict", || {
            let m = &*self.model;
            // SAFETY: a slice of `q.len()` values.
            let q = unsafe { joint_values(m, q.as_ptr(), q.len(), None) }?;
            check_margin(margin, "margin")?;
            Ok(m.verdict(&mut self.ws, q, margin))
        })
    }

    /// `collide_check_coherent`.
    pub fn check_coherent(&mut self, q: &[f64], margin: f64) -> Result<CollideResult, Error> {
        rust_guard("check", || {
            let m = &*self.model;
            // SAFETY: a slice of `q.len()` values.
            let q = unsafe { joint_values(m, q.as_ptr(), q.len(), None) }?;
            check_margin(margin, "margin")?;
            Ok(coherent_check(
                m,
                &mut self.ws,
                &mut self.cache,
                self.preset,
                self.witness,
                q,
                margin,
            ))
        })
    }

    /// `collide_pair_distances` into `out[..pair count]`.
    pub fn pair_distances(&mut self, q: &[f64], cutoff: f64, out: &mut [f64]) -> Result<(), Error> {
        // SAFETY: slices of their lengths.
        let st = unsafe {
            collide_pair_distances(
                self,
                q.as_ptr(),
                q.len(),
                cutoff,
                out.as_mut_ptr(),
                out.len(),
            )
        };
        if st == CollideStatus::Ok {
            return Ok(());
        }
        let msg = last_error_string();
        Err(Error {
            status: st,
            message: msg.strip_prefix("collide_").unwrap_or(&msg).to_string(),
        })
    }

    /// `collide_session_stats`.
    pub fn stats(&self) -> CollideStats {
        stats_of(self.cache.stats())
    }

    /// `collide_session_set_witness`.
    pub fn set_witness(&mut self, on: bool) {
        self.witness = on;
    }

    /// `collide_session_set_warm_start`.
    pub fn set_warm_start(&mut self, on: bool) {
        self.ws.set_warm_start(on);
    }

    /// `collide_session_set_preset`.
    pub fn set_preset(&mut self, preset: CollidePreset, budget: u32) -> Result<(), Error> {
        rust_guard("set_preset", || {
            self.preset = preset_of(preset, budget)?;
            Ok(())
        })
    }

    /// `collide_session_reset`.
    pub fn reset(&mut self) {
        self.ws.reset_warm_start();
        self.cache.reset();
        self.world_cache.reset();
    }
}

/// The message of the last call on this thread that did not return `COLLIDE_STATUS_OK`:
/// what failed and why, for a human. Successful calls leave it as it was. An empty string
/// when nothing failed yet. Valid until the next failing call on this thread.
#[unsafe(no_mangle)]
pub extern "C" fn collide_last_error() -> *const c_char {
    static EMPTY: &CStr = c"";
    guard_value(EMPTY.as_ptr(), || {
        LAST_ERROR
            .try_with(|e| e.borrow().as_ref().map_or(EMPTY.as_ptr(), |c| c.as_ptr()))
            .unwrap_or(EMPTY.as_ptr())
    })
}
