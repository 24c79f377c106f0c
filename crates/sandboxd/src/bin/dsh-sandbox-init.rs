//! pid 1 of a dsh sandbox. Started only by `dsh_sandboxd::Launcher`; see `docs/sandboxes.md`.

fn main() {
    dsh_sandboxd::init::main()
}
