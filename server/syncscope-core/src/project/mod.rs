//! The project model: a file is analysed as a real build compiles it.
//!
//! - `unit`: the translation unit (local headers found relative to the
//!   includer, then in the include folders; the built-in system headers of
//!   `system`), one text whose prefix is the headers;
//! - `compile_commands`: the build's flags for the file (`-I`, `-D`, arch);
//! - `config`: `syncscope.toml`, the one parser shared by CLI and server;
//! - `settings`: the one declaration of every setting (keys, flag, type,
//!   value types, default, description) the file and client parsers read
//!   through; it imports neither parser;
//!
//! The checks that need the front end (launch sites in host code, names a
//! missing header would define, kernels emptied by the preprocessor) are in
//! the driver layer: `analysis::launch`, `analysis::names`.
//!
//! Open editor buffers win over the disk: the server passes them as a
//! [`Sources`] overlay. Nothing here knows of LSP or async; the driver that
//! analyses a file in its project is `analysis::project`.

pub mod compile_commands;
pub(crate) mod conditions;
pub mod config;
pub mod settings;
pub(crate) mod system;
pub(crate) mod unit;
pub(crate) mod unit_cache;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Where file contents come from.
pub trait Sources: Sync {
    fn read(&self, path: &Path) -> Option<String>;
    fn exists(&self, path: &Path) -> bool;
}

/// The file system.
pub struct Disk;

impl Sources for Disk {
    fn read(&self, path: &Path) -> Option<String> {
        std::fs::read_to_string(path).ok()
    }
    fn exists(&self, path: &Path) -> bool {
        path.is_file()
    }
}

/// Open buffers (by normalized absolute path) over the file system.
pub struct Overlay<'a> {
    pub buffers: &'a HashMap<PathBuf, String>,
}

impl Sources for Overlay<'_> {
    fn read(&self, path: &Path) -> Option<String> {
        self.buffers.get(path).cloned().or_else(|| Disk.read(path))
    }
    fn exists(&self, path: &Path) -> bool {
        self.buffers.contains_key(path) || Disk.exists(path)
    }
}

/// Where headers are searched beyond the includer's folder.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SearchPaths {
    /// `-I` folders (command line, then `include-dirs` of `syncscope.toml`).
    pub include_dirs: Vec<PathBuf>,
    /// A named `compile_commands.json` (file or folder); `None`: the nearest
    /// one walking up from the file.
    pub compile_commands: Option<PathBuf>,
    /// Headers read before the file itself: for a header analysed in the
    /// context of a file that includes it, the headers that file reads.
    pub context: Vec<PathBuf>,
}
