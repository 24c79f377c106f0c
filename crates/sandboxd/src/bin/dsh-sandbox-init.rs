//! pid 1 of a dsh sandbox. Started only by `dsh_sandbox::Launcher`; see `docs/sandboxes.md`.
//! Its code is the isolation crate's (`dsh_sandbox::init`); the binary is built with the
//! daemon, which finds it beside itself.

fn main() {
    dsh_sandbox::init::main()
}
