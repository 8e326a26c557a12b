//! Link settings of the `syncscope` binary.
//!
//! On Linux the binary looks for its shared libraries in its own folder
//! first (`RUNPATH $ORIGIN`): the VS Code extension's platform package
//! ships the `libz3` the server was linked with next to it
//! (`editors/vscode/scripts/bundle-server.sh`), so the bundled server starts
//! on a machine without Z3, and with that exact Z3 on a machine with
//! another. A folder without a `libz3` (`target/release`, `~/.cargo/bin`)
//! changes nothing: the system's is found as before.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        // Passed to the linker as one argument, never through a shell, so
        // `$ORIGIN` reaches the dynamic section literally.
        println!("cargo:rustc-link-arg-bins=-Wl,-rpath,$ORIGIN");
    }
}
