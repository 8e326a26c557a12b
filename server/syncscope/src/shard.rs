//! `check --shard I/N`: one of N disjoint parts of a run, for a CI job
//! matrix whose N reports together are the single run's report.
//!
//! A file belongs to the part its *key* hashes to: its path relative to the
//! working folder (lexically normalised, `/`-separated), or its absolute
//! path when it lies outside that folder. The key names the file the same
//! way on every machine and in every checkout (CI runs in the checkout's
//! root, wherever that is), however the file was named on the command line
//! (`src/`, `./src/a.cu` or `$PWD/src/a.cu`). A hash rather than a position
//! in the sorted list, so that adding or removing a file moves no other
//! file to another part (a job's cache and its findings' history stay put).
//! The hash is written out here (FNV-1a, then a mixing step) because the
//! standard library's hashers promise no stability across releases.

use std::fmt;
use std::path::{Component, Path, PathBuf};

/// Part `index` (1-based) of `count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// `2/4` → part 2 of 4. Parts count from 1, as a job matrix's do.
pub fn parse_shard(s: &str) -> Result<Shard, String> {
    let usage = |why: &str| format!("`{s}` is not a shard: {why} (I/N with 1 <= I <= N, e.g. 2/4)");
    let (i, n) = s
        .trim()
        .split_once('/')
        .ok_or_else(|| usage("expected I/N"))?;
    let number = |t: &str| {
        t.trim()
            .parse::<u32>()
            .map_err(|_| usage("I and N are whole numbers"))
    };
    let (index, count) = (number(i)?, number(n)?);
    if count == 0 {
        return Err(usage("N is at least 1"));
    }
    if index == 0 || index > count {
        return Err(usage(&format!("I counts from 1 to {count}")));
    }
    Ok(Shard { index, count })
}

/// The name a file is sharded by (see the module comment), given the
/// working folder `cwd` (absolute).
pub fn key(file: &Path, cwd: &Path) -> String {
    let absolute = syncscope_core::project::compile_commands::normalize(&cwd.join(file));
    let cwd = syncscope_core::project::compile_commands::normalize(cwd);
    let name = absolute.strip_prefix(&cwd).unwrap_or(&absolute);
    let parts: Vec<String> = name
        .components()
        .filter_map(|c| match c {
            Component::Normal(s) => Some(s.to_string_lossy().into_owned()),
            // The root of a file outside the working folder: a leading `/`.
            Component::RootDir => Some(String::new()),
            Component::Prefix(p) => Some(p.as_os_str().to_string_lossy().into_owned()),
            Component::CurDir | Component::ParentDir => None,
        })
        .collect();
    parts.join("/")
}

/// A stable 64-bit hash of `key`: FNV-1a, then SplitMix64's finaliser so
/// that the low bits (which `% count` reads) depend on every byte.
fn stable_hash(key: &str) -> u64 {
    mix(fnv1a(key.as_bytes()))
}

/// FNV-1a, 64 bits.
fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// SplitMix64's finaliser.
fn mix(mut h: u64) -> u64 {
    h ^= h >> 30;
    h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h ^= h >> 27;
    h = h.wrapping_mul(0x94d0_49bb_1331_11eb);
    h ^ (h >> 31)
}

impl Shard {
    /// Whether the file named `key` belongs to this part.
    pub fn owns(&self, key: &str) -> bool {
        stable_hash(key) % u64::from(self.count) + 1 == u64::from(self.index)
    }

    /// The files of this part, in their order.
    pub fn select(&self, files: Vec<PathBuf>, cwd: &Path) -> Vec<PathBuf> {
        files
            .into_iter()
            .filter(|f| self.owns(&key(f, cwd)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_count_from_one_and_anything_else_is_refused_with_the_reason() {
        assert_eq!(parse_shard("2/4"), Ok(Shard { index: 2, count: 4 }));
        assert_eq!(parse_shard("1/1"), Ok(Shard { index: 1, count: 1 }));
        assert_eq!(parse_shard("4/4").map(|s| s.to_string()), Ok("4/4".into()));
        for (bad, why) in [
            ("0/4", "I counts from 1 to 4"),
            ("5/4", "I counts from 1 to 4"),
            ("1/0", "N is at least 1"),
            ("x", "expected I/N"),
            ("2", "expected I/N"),
            ("a/b", "whole numbers"),
            ("-1/4", "whole numbers"),
            ("1/4/2", "whole numbers"),
        ] {
            let e = parse_shard(bad).unwrap_err();
            assert!(e.contains(why) && e.contains(bad), "{bad}: {e}");
        }
    }

    #[test]
    fn a_file_has_one_key_however_it_is_named() {
        let cwd = Path::new("/checkout");
        for name in [
            "src/a.cu",
            "./src/a.cu",
            "src/./b/../a.cu",
            "/checkout/src/a.cu",
        ] {
            assert_eq!(key(Path::new(name), cwd), "src/a.cu", "{name}");
        }
        assert_eq!(key(Path::new("/elsewhere/a.cu"), cwd), "/elsewhere/a.cu");
        assert_eq!(key(Path::new("../other/a.cu"), cwd), "/other/a.cu");
    }

    #[test]
    fn every_file_is_in_exactly_one_part_and_stays_there_when_files_are_added() {
        let cwd = Path::new("/checkout");
        let files: Vec<PathBuf> = (0..200)
            .map(|i| PathBuf::from(format!("src/k{i}.cu")))
            .collect();
        for count in 1..=5 {
            let parts: Vec<Vec<PathBuf>> = (1..=count)
                .map(|index| Shard { index, count }.select(files.clone(), cwd))
                .collect();
            let mut union: Vec<PathBuf> = parts.concat();
            union.sort();
            let mut all = files.clone();
            all.sort();
            assert_eq!(union, all, "{count} parts: each file once");
            // Every part gets some of 200 files (a hash that ignored the
            // name would put them all in one part).
            assert!(parts.iter().all(|p| !p.is_empty()), "{count}: {parts:?}");
            // More files: the old ones keep their part.
            let more: Vec<PathBuf> = files
                .iter()
                .cloned()
                .chain((0..50).map(|i| PathBuf::from(format!("src/new{i}.cu"))))
                .collect();
            for (index, part) in (1..=count).zip(&parts) {
                let grown = Shard { index, count }.select(more.clone(), cwd);
                assert!(part.iter().all(|f| grown.contains(f)), "{index}/{count}");
            }
        }
    }

    #[test]
    fn the_hash_is_the_published_one() {
        // Both halves against their published test vectors: a hash that
        // changed would reshuffle every CI matrix's parts.
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a(b"foobar"), 0x8594_4171_f739_67e8);
        // SplitMix64 seeded with 0: its first output mixes the golden gamma.
        assert_eq!(mix(0x9e37_79b9_7f4a_7c15), 0xe220_a839_7b1d_cdaf);
    }
}
