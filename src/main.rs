use clap::Parser;
use collide::cli::{self, args::Cli};

fn main() {
    let parsed = Cli::parse();
    let code = match cli::run(parsed) {
        Ok(code) => code,
        Err(err) => {
            collide::messages::error(&err);
            err.kind.exit_code()
        }
    };
    std::process::exit(code);
}
