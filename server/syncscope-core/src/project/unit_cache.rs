//! Translation units built once per process for the same inputs.
//!
//! The project driver builds a file's unit for its own analysis, and again
//! for every other file of the project whose launch sites, pitched
//! allocations or host code it reads: in a folder of N files the same unit
//! was built (its headers read, their conditionals decided, the whole unit
//! preprocessed) up to N times. A unit depends on the file's path and
//! text, the include folders and context headers, the macros the pass
//! starts with (nvcc's, the `-D`s, the arch), and what it read through
//! [`Sources`]: which candidate paths exist and the text of each header.
//! The first four are the key; the reads are recorded and checked again on
//! every hit (a header edited in the server's buffer or on disk, a header
//! that appeared in a folder searched earlier, is a miss), so a hit is the
//! unit a fresh build would give.

use super::unit::{self, Unit};
use super::Sources;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

/// The bytes of units kept (their texts, about what a unit holds): past
/// it, the units used longest ago are dropped. A count would not bound
/// memory (one unit of a project with large headers weighs a hundred of a
/// small one's); most hits come from the files of one project, analysed
/// close together, so a run keeps what its next files reuse and lets go of
/// the projects it is done with.
const LIMIT_BYTES: usize = 32 << 20;

/// One question a build asked its sources, with its answer.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Probe {
    Exists(PathBuf, bool),
    /// The hash of the text read (`None`: unreadable).
    Read(PathBuf, Option<u64>),
}

impl Probe {
    /// Whether `sources` answers the question as it did.
    fn holds(&self, sources: &dyn Sources) -> bool {
        match self {
            Probe::Exists(p, e) => sources.exists(p) == *e,
            Probe::Read(p, h) => sources.read(p).map(|t| hash(&t)) == *h,
        }
    }
}

fn hash<T: std::hash::Hash + ?Sized>(v: &T) -> u64 {
    use std::hash::Hasher;
    let mut h = std::collections::hash_map::DefaultHasher::new();
    v.hash(&mut h);
    h.finish()
}

/// The sources a build reads through, recording each question.
struct Recording<'a> {
    inner: &'a dyn Sources,
    probes: Mutex<Vec<Probe>>,
}

impl Sources for Recording<'_> {
    fn read(&self, path: &Path) -> Option<String> {
        let text = self.inner.read(path);
        let probe = Probe::Read(path.to_path_buf(), text.as_deref().map(hash));
        self.probes
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(probe);
        text
    }
    fn exists(&self, path: &Path) -> bool {
        let e = self.inner.exists(path);
        self.probes
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(Probe::Exists(path.to_path_buf(), e));
        e
    }
}

struct Built {
    unit: Arc<Unit>,
    probes: Vec<Probe>,
}

impl Built {
    /// What the entry weighs, about: the unit's text, the file's text in
    /// its key, and the paths of its parts and reads.
    fn bytes(&self, key: &Key) -> usize {
        let path = |p: &Path| p.as_os_str().len();
        self.unit.text.len()
            + key.1.len()
            + self
                .unit
                .parts
                .iter()
                .map(|p| path(&p.path) + 64)
                .sum::<usize>()
            + self
                .probes
                .iter()
                .map(|p| match p {
                    Probe::Exists(p, _) | Probe::Read(p, _) => path(p) + 32,
                })
                .sum::<usize>()
    }
}

/// What a unit is built from besides its reads: the file's path and text,
/// the include folders, the context headers, the pass's macros. The table
/// keeps built units by the hash of their key, with the key (a hash
/// collision is a miss).
type Key = (
    PathBuf,
    String,
    Vec<PathBuf>,
    Vec<PathBuf>,
    Vec<(String, String)>,
);

/// One kept unit: its key, the unit, its weight and when it was last
/// asked for (a tick of the table).
struct Slot {
    key: Arc<Key>,
    built: Arc<Built>,
    bytes: usize,
    used: u64,
}

#[derive(Default)]
struct Table {
    /// By the hash of the key; the units built from one key (the same key
    /// read differently replaces its old entry).
    units: HashMap<u64, Vec<Slot>>,
    /// The sum of the slots' weights.
    bytes: usize,
    tick: u64,
    /// Fresh builds per key (the tests read it; kept when emptied).
    #[cfg(test)]
    fresh: HashMap<u64, usize>,
}

fn table() -> &'static Mutex<Table> {
    static TABLE: OnceLock<Mutex<Table>> = OnceLock::new();
    TABLE.get_or_init(Mutex::default)
}

/// [`unit::build_in_context`], answered from the table when the same
/// inputs were built before and every header it read reads the same now.
pub(crate) fn build_in_context(
    path: &Path,
    text: &str,
    dirs: &[PathBuf],
    context: &[PathBuf],
    sources: &dyn Sources,
    options: &crate::Options,
) -> Unit {
    let key: Key = (
        super::compile_commands::normalize(path),
        text.to_string(),
        dirs.to_vec(),
        context.to_vec(),
        crate::frontend::pass_defines(options),
    );
    let h = hash(&key);
    let known: Vec<Arc<Built>> = {
        let mut t = table().lock().unwrap_or_else(|e| e.into_inner());
        t.tick += 1;
        let now = t.tick;
        t.units
            .get_mut(&h)
            .map(|v| {
                v.iter_mut()
                    .filter(|s| *s.key == key)
                    .map(|s| {
                        s.used = now;
                        s.built.clone()
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    if let Some(hit) = known
        .iter()
        .find(|b| b.probes.iter().all(|p| p.holds(sources)))
    {
        return Unit::clone(&hit.unit);
    }
    let recording = Recording {
        inner: sources,
        probes: Mutex::default(),
    };
    let unit = unit::build_in_context(path, text, dirs, context, &recording, options);
    let built = Arc::new(Built {
        unit: Arc::new(unit.clone()),
        probes: recording
            .probes
            .into_inner()
            .unwrap_or_else(|e| e.into_inner()),
    });
    let mut t = table().lock().unwrap_or_else(|e| e.into_inner());
    #[cfg(test)]
    {
        *t.fresh.entry(h).or_default() += 1;
    }
    t.insert(h, key, built, LIMIT_BYTES);
    unit
}

impl Table {
    /// Keeps `built` under `key` (hashed `h`), replacing what the same key
    /// read before, then drops the units used longest ago past `limit`.
    fn insert(&mut self, h: u64, key: Key, built: Arc<Built>, limit: usize) {
        let bytes = built.bytes(&key);
        self.tick += 1;
        let used = self.tick;
        let same = self.units.entry(h).or_default();
        // The same inputs read differently now: the old reading is stale.
        let stale: usize = same.iter().filter(|s| *s.key == key).map(|s| s.bytes).sum();
        same.retain(|s| *s.key != key);
        same.push(Slot {
            key: Arc::new(key),
            built,
            bytes,
            used,
        });
        self.bytes = self.bytes - stale + bytes;
        self.shrink_to(limit);
    }

    /// Drops the units used longest ago until the rest weigh at most
    /// `limit` bytes (the one just built stays, whatever it weighs).
    fn shrink_to(&mut self, limit: usize) {
        while self.bytes > limit {
            let oldest = self
                .units
                .iter()
                .flat_map(|(h, v)| v.iter().enumerate().map(move |(i, s)| (s.used, *h, i)))
                .min();
            let Some((used, h, i)) = oldest else { break };
            if used == self.tick {
                break;
            }
            let v = self.units.get_mut(&h).expect("the slot was just found");
            self.bytes -= v.remove(i).bytes;
            if v.is_empty() {
                self.units.remove(&h);
            }
        }
    }
}

/// [`build_in_context`] without context headers.
pub(crate) fn build(
    path: &Path,
    text: &str,
    dirs: &[PathBuf],
    sources: &dyn Sources,
    options: &crate::Options,
) -> Unit {
    build_in_context(path, text, dirs, &[], sources, options)
}

/// How many times the unit of these inputs was built afresh.
#[cfg(test)]
pub(crate) fn fresh_builds(
    path: &Path,
    text: &str,
    dirs: &[PathBuf],
    options: &crate::Options,
) -> usize {
    let key: Key = (
        super::compile_commands::normalize(path),
        text.to_string(),
        dirs.to_vec(),
        Vec::new(),
        crate::frontend::pass_defines(options),
    );
    let t = table().lock().unwrap_or_else(|e| e.into_inner());
    t.fresh.get(&hash(&key)).copied().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Mem(Mutex<HashMap<PathBuf, String>>);
    impl Sources for Mem {
        fn read(&self, path: &Path) -> Option<String> {
            self.0.lock().unwrap().get(path).cloned()
        }
        fn exists(&self, path: &Path) -> bool {
            self.0.lock().unwrap().contains_key(path)
        }
    }

    #[test]
    fn a_unit_is_built_again_only_when_a_header_it_read_changed() {
        let files = Mem(Mutex::new(HashMap::from([(
            PathBuf::from("/unit_cache/inc/h.h"),
            "#define WIDTH_UNIT_CACHE 16\n".to_string(),
        )])));
        let me = Path::new("/unit_cache/src/k.cu");
        let text = "#include \"h.h\"\nint w = WIDTH_UNIT_CACHE;\n";
        let dirs = [PathBuf::from("/unit_cache/inc")];
        let o = crate::Options::default();
        let first = build(me, text, &dirs, &files, &o);
        let again = build(me, text, &dirs, &files, &o);
        assert_eq!(first.text, again.text);
        assert_eq!(fresh_builds(me, text, &dirs, &o), 1);
        // The header edited: a fresh build that sees the edit.
        files.0.lock().unwrap().insert(
            PathBuf::from("/unit_cache/inc/h.h"),
            "#define WIDTH_UNIT_CACHE 32\n".to_string(),
        );
        let edited = build(me, text, &dirs, &files, &o);
        assert!(edited.text.contains("WIDTH_UNIT_CACHE 32"));
        assert_eq!(fresh_builds(me, text, &dirs, &o), 2);
        // A header appearing in the includer's folder, searched first.
        files.0.lock().unwrap().insert(
            PathBuf::from("/unit_cache/src/h.h"),
            "#define WIDTH_UNIT_CACHE 64\n".to_string(),
        );
        let shadowed = build(me, text, &dirs, &files, &o);
        assert!(shadowed.text.contains("WIDTH_UNIT_CACHE 64"));
        // Another -D is another unit.
        let mut defined = o.clone();
        defined
            .defines
            .push(("EXTRA_UNIT_CACHE".into(), "1".into()));
        build(me, text, &dirs, &files, &defined);
        assert_eq!(fresh_builds(me, text, &dirs, &defined), 1);
    }

    #[test]
    fn the_table_drops_the_units_used_longest_ago_past_its_bytes() {
        let files = Mem(Mutex::new(HashMap::new()));
        let o = crate::Options::default();
        let entry = |name: &str, size: usize| {
            let path = PathBuf::from(format!("/unit_cache_bytes/{name}.cu"));
            let text = format!("int {name};\n{}", " ".repeat(size));
            let unit = unit::build_in_context(&path, &text, &[], &[], &files, &o);
            let key: Key = (path, text, Vec::new(), Vec::new(), Vec::new());
            let built = Arc::new(Built {
                unit: Arc::new(unit),
                probes: Vec::new(),
            });
            (hash(&key), key, built)
        };
        let names = |t: &Table| {
            let mut v: Vec<String> = t
                .units
                .values()
                .flatten()
                .map(|s| s.key.0.display().to_string())
                .collect();
            v.sort();
            v
        };
        let mut t = Table::default();
        let (ha, a, ba) = entry("a", 1000);
        let weight = ba.bytes(&a);
        t.insert(ha, a, ba, 3 * weight);
        let (hb, b, bb) = entry("b", 1000);
        t.insert(hb, b, bb, 3 * weight);
        // `a` asked for again: `b` is now the one used longest ago.
        t.tick += 1;
        for s in t.units.get_mut(&ha).into_iter().flatten() {
            s.used = t.tick;
        }
        let (hc, c, bc) = entry("c", 1000);
        t.insert(hc, c, bc, 3 * weight);
        assert_eq!(names(&t).len(), 3, "three units fit");
        let (hd, d, bd) = entry("d", 1000);
        t.insert(hd, d, bd, 3 * weight);
        assert_eq!(
            names(&t),
            [
                "/unit_cache_bytes/a.cu",
                "/unit_cache_bytes/c.cu",
                "/unit_cache_bytes/d.cu"
            ]
        );
        assert!(t.bytes <= 3 * weight);
        // A unit heavier than the whole limit is still kept, alone.
        let (he, e, be) = entry("e", 10_000);
        t.insert(he, e, be, 3 * weight);
        assert_eq!(names(&t), ["/unit_cache_bytes/e.cu"]);
    }
}
