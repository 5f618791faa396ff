//! Where `acm regenerate`'s time goes: with `COLLIDE_ACM_TIMING` set, each phase's wall time
//! and every pair that took more than 50 ms are printed on stderr. For profiling only: the
//! output files and the report never depend on it.

use std::sync::OnceLock;
use std::time::Instant;

/// Whether `COLLIDE_ACM_TIMING` is set (read once).
pub fn enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("COLLIDE_ACM_TIMING").is_some())
}

/// A phase's timer: prints its wall time when dropped (when enabled).
pub struct Phase {
    name: &'static str,
    start: Instant,
}

impl Phase {
    pub fn start(name: &'static str) -> Phase {
        Phase {
            name,
            start: Instant::now(),
        }
    }
}

impl Drop for Phase {
    fn drop(&mut self) {
        if enabled() {
            eprintln!(
                "acm timing: {:<32} {:8.3} s",
                self.name,
                self.start.elapsed().as_secs_f64()
            );
        }
    }
}

/// One pair's time by step, printed when the pair took more than 50 ms (when enabled).
pub struct PairClock {
    start: Instant,
    last: Instant,
    steps: Vec<(&'static str, f64)>,
}

impl PairClock {
    pub fn start() -> PairClock {
        let now = Instant::now();
        PairClock {
            start: now,
            last: now,
            steps: Vec::new(),
        }
    }

    /// Ends step `name` (the time since the previous step ended).
    pub fn step(&mut self, name: &'static str) {
        if !enabled() {
            return;
        }
        let now = Instant::now();
        self.steps
            .push((name, now.duration_since(self.last).as_secs_f64()));
        self.last = now;
    }

    pub fn report(&self, a: &str, b: &str, outcome: &str) {
        let total = self.start.elapsed().as_secs_f64();
        if !enabled() || total < 0.05 {
            return;
        }
        let steps: Vec<String> = self
            .steps
            .iter()
            .filter(|(_, s)| *s >= 0.005)
            .map(|(n, s)| format!("{n} {s:.2}"))
            .collect();
        eprintln!(
            "acm timing: pair {a} / {b} {total:.2} s ({outcome}): {}",
            steps.join(", ")
        );
    }
}
