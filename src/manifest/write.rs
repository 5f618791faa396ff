//! Writing is deterministic: fields in a fixed order, joints and links in the order
//! given, floats in their shortest round-trip form, short records in flow style.

use super::schema::*;
use super::validate::validate;
use crate::error::{Error, Result};
use crate::io::atomic::write_atomic;
use std::path::Path;

impl Manifest {
    /// Every float of the manifest, for normalisation.
    fn floats_mut(&mut self, f: &mut dyn FnMut(&mut f64)) {
        f(&mut self.headroom_m);
        f(&mut self.hull_headroom_m);
        f(&mut self.margin_m);
        f(&mut self.rest_pose.min_distance_m);
        self.rest_pose.q.0.iter_mut().for_each(|(_, v)| f(v));
        for j in &mut self.joints {
            j.origin_xyz
                .iter_mut()
                .chain(&mut j.origin_rpy)
                .chain(&mut j.axis)
                .for_each(&mut *f);
            j.limits.iter_mut().flatten().for_each(&mut *f);
            j.pivot.iter_mut().flatten().for_each(&mut *f);
            if let Some(m) = &mut j.mimic {
                f(&mut m.multiplier);
                f(&mut m.offset);
            }
        }
        for l in &mut self.links {
            for p in &mut l.primitives {
                match p {
                    Primitive::Capsule(c) => {
                        c.a.iter_mut().chain(&mut c.b).for_each(&mut *f);
                        f(&mut c.radius);
                    }
                    Primitive::Box(b) => {
                        b.center
                            .iter_mut()
                            .chain(&mut b.rpy)
                            .chain(&mut b.half_extents)
                            .for_each(&mut *f);
                        b.dop26.iter_mut().flatten().for_each(&mut *f);
                        b.hull.iter_mut().flatten().flatten().for_each(&mut *f);
                    }
                }
            }
            let fit = &mut l.fit;
            fit.vol_ratio.iter_mut().for_each(&mut *f);
            for x in [
                &mut fit.max_protrusion_m,
                &mut fit.mean_protrusion_m,
                &mut fit.min_margin_m,
            ] {
                f(x);
            }
            fit.hull_excess_m.iter_mut().for_each(&mut *f);
            for c in &mut fit.candidates {
                c.vol_ratio.iter_mut().for_each(&mut *f);
                for x in [&mut c.max_protrusion_m, &mut c.mean_protrusion_m] {
                    f(x);
                }
            }
        }
    }
}

/// The manifest as YAML text, after [`validate`]: a manifest the loader would
/// refuse is never written. `-0.0` is written as `0.0`.
pub fn to_yaml(manifest: &Manifest) -> Result<String> {
    validate(manifest).map_err(|e| {
        Error::check(format!(
            "refusing to write an invalid manifest: {}",
            e.describe()
        ))
    })?;
    let mut m = manifest.clone();
    m.floats_mut(&mut |x| *x += 0.0);
    // Lists indented under their key, as in the example.
    let options = serde_saphyr::ser_options! { compact_list_indent: false };
    serde_saphyr::to_string_with_options(&m, options)
        .map_err(|e| Error::check(format!("cannot render the manifest as YAML: {e}")))
}

/// Writes the manifest atomically (see [`write_atomic`]).
pub fn write_manifest(path: &Path, manifest: &Manifest) -> Result<()> {
    let text = to_yaml(manifest).map_err(|e| Error {
        message: format!("{}: {}", path.display(), e.message),
        ..e
    })?;
    write_atomic(path, text.as_bytes())
}
