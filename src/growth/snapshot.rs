//! Growth over time: a small snapshot per collection (sampled `_id`s, their
//! array lengths and document sizes) kept in the user's state directory; the
//! next run re-reads the same documents and measures how much each array
//! actually grew per day. A snapshot holds ids and numbers only.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{days_to_limit, Growth};
use crate::profile::{extract, Profile, Seg};

/// Documents remembered per collection.
pub const SNAPSHOT_IDS: usize = 200;
/// Snapshots closer together than this cannot show a pace.
pub const MIN_INTERVAL_SECS: f64 = 3600.0;

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Snapshot {
    pub version: u32,
    /// Seconds since the epoch when it was taken.
    pub taken_at: f64,
    pub namespace: String,
    /// Array paths measured (contract notation).
    pub paths: Vec<String>,
    pub docs: Vec<SnapDoc>,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct SnapDoc {
    /// The `_id` as canonical Extended JSON.
    pub id: serde_json::Value,
    pub size: u64,
    /// Array length per path, `None` where the document has no such array.
    pub lengths: Vec<Option<u64>>,
}

/// Where snapshots live: `$XDG_STATE_HOME/docshape/snapshots`, else
/// `~/.local/state/docshape/snapshots`.
pub(crate) fn dir() -> Option<PathBuf> {
    Some(crate::paths::state_dir()?.join("snapshots"))
}

/// The snapshot file of one collection of one (password-masked) target.
pub(crate) fn file_for(dir: &Path, target_label: &str, namespace: &str) -> PathBuf {
    let key = format!("{target_label}\u{0}{namespace}");
    let h = crate::profile::sketch::hash_bytes(0xD0C5_4A9E, key.as_bytes());
    dir.join(format!("{h:016x}.json"))
}

/// The array paths a snapshot follows: arrays not nested in arrays.
pub(crate) fn tracked_paths(profile: &Profile) -> Vec<(String, Vec<Seg>)> {
    profile
        .fields
        .iter()
        .filter(|f| f.array.is_some() && !f.segments.contains(&Seg::Elem))
        .map(|f| (f.path.clone(), f.segments.clone()))
        .collect()
}

/// Array lengths of one document at the tracked paths.
pub(crate) fn lengths_of(doc: &[u8], segs: &[Vec<Seg>]) -> Vec<Option<u64>> {
    segs.iter()
        .map(|s| extract::values(doc, s).first().and_then(extract::array_len))
        .collect()
}

/// Takes a snapshot from the kept documents; `sizes` holds each one's
/// size as read (a kept document may be cut), its own length where absent.
pub(crate) fn take(
    namespace: &str,
    profile: &Profile,
    docs: &[Vec<u8>],
    sizes: &[u64],
    now: f64,
) -> Option<Snapshot> {
    let tracked = tracked_paths(profile);
    if tracked.is_empty() {
        return None;
    }
    let segs: Vec<Vec<Seg>> = tracked.iter().map(|t| t.1.clone()).collect();
    let mut out = Vec::new();
    let step = (docs.len() / SNAPSHOT_IDS).max(1);
    for (k, doc) in docs.iter().enumerate().step_by(step).take(SNAPSHOT_IDS) {
        let Some(id) = extract::top(doc, "_id") else {
            continue;
        };
        let Some(b) = crate::profile::value_of(&id) else {
            continue;
        };
        out.push(SnapDoc {
            id: b.into_canonical_extjson(),
            size: sizes.get(k).copied().unwrap_or(doc.len() as u64),
            lengths: lengths_of(doc, &segs),
        });
    }
    (!out.is_empty()).then(|| Snapshot {
        version: 1,
        taken_at: now,
        namespace: namespace.to_owned(),
        paths: tracked.into_iter().map(|t| t.0).collect(),
        docs: out,
    })
}

/// Compares an old snapshot with the same documents re-read now (`now`
/// holds, per id found again, its size and lengths at `old.paths`).
pub(crate) fn compare(
    old: &Snapshot,
    now: &[SnapDoc],
    now_secs: f64,
    largest_size: f64,
) -> Vec<(String, Growth)> {
    let days = (now_secs - old.taken_at) / 86_400.0;
    if now_secs - old.taken_at < MIN_INTERVAL_SECS {
        return Vec::new();
    }
    let mut out = Vec::new();
    for (pi, path) in old.paths.iter().enumerate() {
        let mut deltas = Vec::new();
        let mut bytes_per_el = Vec::new();
        for d in now {
            let Some(o) = old.docs.iter().find(|o| o.id == d.id) else {
                continue;
            };
            let (Some(Some(a)), Some(Some(b))) = (o.lengths.get(pi), d.lengths.get(pi)) else {
                continue;
            };
            deltas.push(*b as f64 - *a as f64);
            if b > a && d.size > o.size {
                bytes_per_el.push((d.size - o.size) as f64 / (b - a) as f64);
            }
        }
        if deltas.is_empty() {
            continue;
        }
        let grew = deltas.iter().filter(|&&x| x > 0.0).count() as f64 / deltas.len() as f64;
        let per_day = deltas.iter().sum::<f64>() / deltas.len() as f64 / days;
        let bpe = if bytes_per_el.is_empty() {
            0.0
        } else {
            bytes_per_el.iter().sum::<f64>() / bytes_per_el.len() as f64
        };
        out.push((
            path.clone(),
            Growth {
                method: "snapshot".into(),
                correlation: (grew * 1000.0).round() / 1000.0,
                per_day: (per_day * 10_000.0).round() / 10_000.0,
                days_to_limit: days_to_limit(largest_size, per_day, bpe),
                n: deltas.len() as u64,
                bytes_per_element: (bpe * 10.0).round() / 10.0,
                age_from: None,
                within: None,
                days_observed: Some((days * 100.0).round() / 100.0),
                decision: None,
            },
        ));
    }
    out
}

/// Reads a snapshot, if one exists and is readable.
pub(crate) fn load(path: &Path) -> Option<Snapshot> {
    let text = std::fs::read_to_string(path).ok()?;
    serde_json::from_str(&text).ok()
}

/// Writes a snapshot readable by the user only.
pub(crate) fn save(path: &Path, snap: &Snapshot) -> std::io::Result<()> {
    if let Some(parent) = path.parent() {
        create_private_dir(parent)?;
    }
    let text = serde_json::to_string(snap).map_err(std::io::Error::other)?;
    let tmp = path.with_extension("tmp");
    write_private(&tmp, text.as_bytes())?;
    std::fs::rename(&tmp, path)
}

#[cfg(unix)]
fn create_private_dir(p: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(p)
}

#[cfg(not(unix))]
fn create_private_dir(p: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(p)
}

#[cfg(unix)]
fn write_private(p: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(p)?;
    f.write_all(bytes)
}

#[cfg(not(unix))]
fn write_private(p: &Path, bytes: &[u8]) -> std::io::Result<()> {
    std::fs::write(p, bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snap_doc(id: i32, size: u64, len: u64) -> SnapDoc {
        SnapDoc {
            id: serde_json::json!({"$numberInt": id.to_string()}),
            size,
            lengths: vec![Some(len)],
        }
    }

    #[test]
    fn compares_growth_per_day() {
        let old = Snapshot {
            version: 1,
            taken_at: 0.0,
            namespace: "d.c".into(),
            paths: vec!["a".into()],
            docs: (0..10).map(|i| snap_doc(i, 1000, 10)).collect(),
        };
        let now: Vec<SnapDoc> = (0..10).map(|i| snap_doc(i, 1000 + 20 * 50, 30)).collect();
        let g = compare(&old, &now, 10.0 * 86_400.0, 2000.0);
        assert_eq!(g.len(), 1);
        let g = &g[0].1;
        assert!((g.per_day - 2.0).abs() < 1e-9);
        assert!((g.bytes_per_element - 50.0).abs() < 1e-9);
        assert!((g.correlation - 1.0).abs() < 1e-9);
        assert_eq!(g.days_observed, Some(10.0));
        assert!(g.days_to_limit.is_some());
        assert!(compare(&old, &now, 60.0, 2000.0).is_empty(), "too soon");
    }

    #[test]
    fn saved_snapshots_are_private() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = file_for(&dir.path().join("s"), "mongodb://u:****@h", "d.c");
        let snap = Snapshot {
            version: 1,
            taken_at: 5.0,
            namespace: "d.c".into(),
            paths: vec!["a".into()],
            docs: vec![snap_doc(1, 10, 1)],
        };
        save(&p, &snap).expect("save");
        assert_eq!(load(&p), Some(snap));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&p).expect("meta").permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
    }
}
