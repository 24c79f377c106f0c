//! `dsh`: the command line. `dsh tour` shows the whole product; `dsh sandbox`, `dsh exec`
//! and `dsh fs` drive sandboxes directly. The binary also carries the in-sandbox daemon
//! and the sandbox init as hidden subcommands, so one file is all a machine needs.

mod cli;
mod config;
mod connect;
mod doctor;
mod mcp;
mod output;
mod secret;
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
        Some(connect::HIDDEN_SANDBOX_INIT) => dsh_sandboxd::init::main(),
        Some(connect::HIDDEN_ENVD) => {
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
    if !rustix::process::geteuid().is_root() {
        // SAFETY: no thread has been started yet.
        unsafe { dsh_sandboxd::rootless::add_system_dirs_to_path() };
    }
    // An ordinary user's local sandboxes run in a user namespace of their own: this
    // process re-executes itself there before any thread exists (`rootless.rs`).
    if let Some(required) = connect::local_sandboxes_wanted(&args) {
        match dsh_sandboxd::rootless::enter() {
            Ok(dsh_sandboxd::rootless::Entered::Continue) => {}
            Ok(dsh_sandboxd::rootless::Entered::Exited(code)) => {
                return std::process::ExitCode::from(u8::try_from(code).unwrap_or(1));
            }
            Err(err) if required => {
                eprintln!("dsh: local sandboxes cannot run as this user: {err}");
                return std::process::ExitCode::FAILURE;
            }
            // Said when a local sandbox is actually started (the command may be
            // configured for E2B in dsh.toml).
            Err(err) => connect::set_rootless_error(err.to_string()),
        }
    }
    cli::main(args)
}
