use clap::Parser;
use collide::cli::{self, args::Cli};

fn main() {
    // A panic is a bug in collide, never the user's fault; still one line, never a backtrace.
    std::panic::set_hook(Box::new(|info| {
        let at = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        let what = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_default();
        collide::messages::failure(&format!("internal error{at}: {what} (please report this)"));
    }));
    let parsed = Cli::parse();
    let code = match std::panic::catch_unwind(|| cli::run(parsed)) {
        Ok(Ok(code)) => code,
        Ok(Err(err)) => {
            collide::messages::error(&err);
            err.kind.exit_code()
        }
        Err(_) => 2,
    };
    collide::messages::finish();
    std::process::exit(code);
}
