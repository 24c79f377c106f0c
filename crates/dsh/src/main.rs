//! `dsh`: the command line. `dsh tour` shows the whole product; `dsh sandbox`, `dsh exec`
//! and `dsh fs` drive sandboxes directly. The binary also carries the in-sandbox daemon
//! and the sandbox init as hidden subcommands, so one file is all a machine needs.

mod cli;
mod config;
mod connect;
mod doctor;
mod mcp;
mod output;
mod shell;
mod stop;
mod template;
mod tour;
mod workbench;

use std::ffi::OsString;

fn main() -> std::process::ExitCode {
    let args: Vec<OsString> = std::env::args_os().collect();
    // The embedded roles run before anything else (no runtime, no logging setup): they
    // are other programs that happen to live in this binary.
    match args.get(1).and_then(|a| a.to_str()) {
        Some(cli::HIDDEN_SANDBOX_INIT) => dsh_sandboxd::init::main(),
        Some(cli::HIDDEN_ENVD) => {
            let forwarded =
                std::iter::once(OsString::from("dsh-envd")).chain(args.into_iter().skip(2));
            return match dsh_envd::cli::main_with_args(forwarded) {
                Ok(()) => std::process::ExitCode::SUCCESS,
                Err(err) => {
                    eprintln!("dsh-envd: {err:#}");
                    std::process::ExitCode::FAILURE
                }
            };
        }
        _ => {}
    }
    cli::main(args)
}
