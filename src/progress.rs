//! Progress on stderr. On a terminal, bars shown once the run has lasted a second: a quick
//! command prints nothing but its result. Elsewhere (a CI log, a pipe), plain lines: a long
//! command's start line ([`start`]), then each bar's state at most every 10 s once it has
//! run that long, so a log is never silent for minutes.
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

/// A long command's first line, where stderr is not a terminal (not under `-q`): what it
/// runs, so a log shows it working before its first progress line. Printed once the command
/// has run two seconds: a quick one, or one refused at once (bad input is one line), says
/// nothing more than its result.
#[cfg(feature = "cli")]
pub fn start(what: &str) {
    use std::io::IsTerminal;
    if std::io::stderr().is_terminal() {
        return;
    }
    let line = format!("{what} (a progress line at most every 10 s)");
    std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_secs(2));
        crate::messages::note(&line);
    });
}

#[cfg(not(feature = "cli"))]
pub fn start(_what: &str) {}

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
    use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle, TermLike};
    use std::io::IsTerminal;
    use std::sync::Mutex;
    use std::time::{Duration, Instant};

    /// How long a run goes without a bar.
    const SHOW_AFTER: Duration = Duration::from_secs(1);

    /// Where stderr is not a terminal: the least time between two lines of a bar.
    pub const PLAIN_EVERY: Duration = Duration::from_secs(10);

    pub fn bar(len: u64, what: &str) -> ProgressBar {
        let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::hidden());
        if !std::io::stderr().is_terminal() {
            return plain(bar, what, PLAIN_EVERY, Box::new(crate::messages::note));
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

    /// `bar` drawn as plain lines handed to `emit`, the first once it has run `every`, then
    /// at most one per `every` (a tick redraws it while no work is counted).
    pub fn plain(
        bar: ProgressBar,
        what: &str,
        every: Duration,
        emit: Box<dyn Fn(&str) + Send + Sync>,
    ) -> ProgressBar {
        bar.set_style(
            ProgressStyle::with_template("{msg}: {pos}/{len}, {elapsed} so far")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar.set_message(what.to_string());
        bar.set_draw_target(ProgressDrawTarget::term_like(Box::new(PlainLines {
            every,
            last: Mutex::new(Instant::now()),
            emit,
        })));
        bar.enable_steady_tick(every / 4);
        bar
    }

    /// A "terminal" that prints a bar's line as it is drawn, at most one per `every`;
    /// cursor moves and clears are dropped (a log cannot take them back).
    struct PlainLines {
        every: Duration,
        last: Mutex<Instant>,
        emit: Box<dyn Fn(&str) + Send + Sync>,
    }

    impl std::fmt::Debug for PlainLines {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("PlainLines")
        }
    }

    impl PlainLines {
        fn line(&self, s: &str) {
            let s = s.trim();
            if s.is_empty() {
                return;
            }
            let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
            if last.elapsed() >= self.every {
                *last = Instant::now();
                (self.emit)(s);
            }
        }
    }

    impl TermLike for PlainLines {
        fn width(&self) -> u16 {
            200
        }
        fn move_cursor_up(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_down(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_right(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_left(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn write_line(&self, s: &str) -> std::io::Result<()> {
            self.line(s);
            Ok(())
        }
        fn write_str(&self, s: &str) -> std::io::Result<()> {
            self.line(s);
            Ok(())
        }
        fn clear_line(&self) -> std::io::Result<()> {
            Ok(())
        }
        fn flush(&self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;
        use std::sync::Arc;

        /// Lines come at most one per interval, the first only after one interval, and
        /// each says what runs and how far it got.
        #[test]
        fn plain_lines_come_at_most_once_per_interval() {
            let lines = Arc::new(Mutex::new(Vec::<(Instant, String)>::new()));
            let sink = lines.clone();
            let every = Duration::from_millis(200);
            let started = Instant::now();
            let bar = plain(
                ProgressBar::with_draw_target(Some(100), ProgressDrawTarget::hidden()),
                "deciding pairs",
                every,
                Box::new(move |l| sink.lock().unwrap().push((Instant::now(), l.to_string()))),
            );
            for _ in 0..100 {
                bar.inc(1);
                std::thread::sleep(Duration::from_millis(10));
            }
            bar.finish_and_clear();
            let lines = lines.lock().unwrap();
            let total = started.elapsed();
            assert!(!lines.is_empty(), "a bar that ran {total:?} said nothing");
            assert!(lines[0].0 - started >= every, "the first line came early");
            for w in lines.windows(2) {
                assert!(w[1].0 - w[0].0 >= every, "two lines within {every:?}");
            }
            assert!(
                lines.len() as u32 <= total.as_millis() as u32 / 200,
                "{lines:?}"
            );
            assert!(lines[0].1.starts_with("deciding pairs: "), "{}", lines[0].1);
            assert!(lines[0].1.contains("/100"), "{}", lines[0].1);
        }
    }
}
