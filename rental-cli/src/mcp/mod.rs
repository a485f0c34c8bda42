//! `rental mcp`: the agent tools, served with the Model Context Protocol over
//! stdio (JSON-RPC on stdin and stdout; logs go to stderr).

pub mod args;
pub mod backend;
pub mod tools;

use rmcp::ServiceExt;

pub use backend::Backend;
pub use tools::RentalTools;

/// Serves the tools on stdin/stdout until the client closes stdin.
pub async fn serve(backend: Backend) -> Result<(), String> {
    let service = RentalTools::new(backend)
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| format!("the MCP session could not start: {e}"))?;
    service.waiting().await.map_err(|e| format!("the MCP session ended with an error: {e}"))?;
    Ok(())
}
