//! `dsh mcp`: every dsh tool over the Model Context Protocol.

use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct McpArgs {}

pub async fn run(_args: McpArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("dsh mcp is being written")
}
