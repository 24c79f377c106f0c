//! `dsh-envd`: the in-sandbox daemon binary.

fn main() -> anyhow::Result<()> {
    dsh_envd::cli::main_with_args(std::env::args_os())
}
