//! `rental completions SHELL`: prints the shell completion script of the
//! whole command tree, generated from the same definition clap parses.

use clap::{Args, CommandFactory};
use clap_complete::Shell;

use crate::cli::Cli;

/// Arguments of `rental completions`.
#[derive(Debug, Args)]
#[command(after_help = "Examples:
  rental completions bash > ~/.local/share/bash-completion/completions/rental
  rental completions zsh > \"${fpath[1]}/_rental\"
  rental completions fish > ~/.config/fish/completions/rental.fish")]
pub struct CompletionsArgs {
    /// The shell: bash, zsh, fish (also elvish, powershell)
    #[arg(value_name = "SHELL")]
    pub shell: Shell,
}

/// The completion script for the chosen shell.
pub fn run(args: &CompletionsArgs) -> String {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut Cli::command(), "rental", &mut script);
    String::from_utf8_lossy(&script).into_owned()
}
