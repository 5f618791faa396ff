//! Progress bars on stderr, shown only when stderr is a terminal and the run has lasted a
//! second: a quick command prints nothing but its result.

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
