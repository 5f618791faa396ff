//! Progress bars on stderr, shown only when stderr is a terminal and the run has lasted a
//! second: a quick command prints nothing but its result.
//!
//! Without the `cli` feature (the library as `collide-kernel` links it) there is no
//! indicatif: [`ProgressBar`] is a no-op with the same methods, so the callers do not change.

#[cfg(feature = "cli")]
pub use indicatif::ProgressBar;

#[cfg(not(feature = "cli"))]
pub use quiet::ProgressBar;

#[cfg(feature = "cli")]
pub fn bar(len: u64, what: &str) -> ProgressBar {
    shown::bar(len, what)
}

/// Without the `cli` feature nothing is ever drawn.
#[cfg(not(feature = "cli"))]
pub fn bar(_len: u64, _what: &str) -> ProgressBar {
    ProgressBar::hidden()
}

#[cfg(not(feature = "cli"))]
mod quiet {
    /// A bar that draws nothing: the methods the crate calls on indicatif's.
    #[derive(Clone, Debug, Default)]
    pub struct ProgressBar;

    impl ProgressBar {
        pub fn hidden() -> ProgressBar {
            ProgressBar
        }
        pub fn inc(&self, _delta: u64) {}
        pub fn finish_and_clear(&self) {}
    }
}

#[cfg(feature = "cli")]
mod shown {
    use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
    use std::io::IsTerminal;
    use std::time::Duration;

    /// How long a run goes without a bar.
    const SHOW_AFTER: Duration = Duration::from_secs(1);

    pub fn bar(len: u64, what: &str) -> ProgressBar {
        let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::hidden());
        if !std::io::stderr().is_terminal() {
            return bar;
        }
        bar.set_style(
            ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len} {elapsed}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar.set_message(what.to_string());
        // A weak handle: a bar finished or dropped within the second is never drawn.
        let later = bar.downgrade();
        std::thread::spawn(move || {
            std::thread::sleep(SHOW_AFTER);
            if let Some(bar) = later.upgrade()
                && !bar.is_finished()
            {
                bar.set_draw_target(ProgressDrawTarget::stderr());
                bar.enable_steady_tick(Duration::from_millis(250));
            }
        });
        bar
    }
}
