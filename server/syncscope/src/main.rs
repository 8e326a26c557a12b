//! The `syncscope` binary: `check` (the CLI) and `lsp` (the language server).
fn main() {
    let code = syncscope::cli::main_with_args(std::env::args_os().collect());
    std::process::exit(code);
}
