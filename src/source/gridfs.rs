//! GridFS buckets: `B.files`, one document per stored file (`length`,
//! `chunkSize`, `uploadDate`, `filename`), and `B.chunks`, the files' bytes
//! in pieces (`files_id`, `n`, `data`). Drivers write both; they are the
//! driver's layout, not the application's design, so an audit reports
//! them as GridFS — files, sizes, chunk size, orphan chunks — instead of
//! judging them by the rules.
//!
//! A collection is taken for a bucket's part when its name ends in
//! `.files` or `.chunks` and its documents are shaped as GridFS writes
//! them (every sampled document holds the part's fields); an empty one
//! when it has the index GridFS makes, or its other part is a bucket's.

use serde::Serialize;

use crate::profile::FieldProfile;
use crate::source::value::{self, ValueKey};
use crate::source::{bson_as_i64, CollectionMeta, IndexInfo, Probes, Result};

/// Most distinct values counted for a bucket's figures (file lengths,
/// chunks' `files_id`s); past it a figure is not measured.
pub const MAX_VALUES: usize = 100_000;
/// Most chunks read to count orphans: past it (some hundred GB of files)
/// the count is not made.
pub const MAX_CHUNKS: u64 = 2_000_000;
/// `_id`s looked up in `B.files` at a time.
const PROBE_BATCH: usize = 10_000;

/// The part of a bucket a collection is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Part {
    Files,
    Chunks,
}

impl Part {
    /// The fields every document of the part holds.
    pub fn fields(self) -> &'static [&'static str] {
        match self {
            Part::Files => &["length", "chunkSize"],
            Part::Chunks => &["files_id", "n", "data"],
        }
    }

    /// The key of the index GridFS makes on the part.
    fn index(self) -> &'static [&'static str] {
        match self {
            Part::Files => &["filename", "uploadDate"],
            Part::Chunks => &["files_id", "n"],
        }
    }

    /// The other part's collection name, in bucket `bucket`.
    pub fn other(self, bucket: &str) -> String {
        match self {
            Part::Files => format!("{bucket}.chunks"),
            Part::Chunks => format!("{bucket}.files"),
        }
    }
}

/// The bucket and part a collection's name says it is, if any:
/// `fs.files` → (`fs`, files).
pub(crate) fn part_of(name: &str) -> Option<(&str, Part)> {
    if let Some(b) = name.strip_suffix(".files") {
        return Some((b, Part::Files)).filter(|(b, _)| !b.is_empty());
    }
    name.strip_suffix(".chunks")
        .filter(|b| !b.is_empty())
        .map(|b| (b, Part::Chunks))
}

/// What a collection's reading says of it as a bucket's part.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// Its documents are the part's.
    Part,
    /// Not a bucket's part: a document lacks the part's fields.
    Other,
    /// No document was read: the index GridFS makes, or the other part,
    /// decides.
    Empty { indexed: bool },
}

/// How `fields` (a profile of `sampled` documents) and `indexes` fit
/// `part`.
pub(crate) fn shape(
    part: Part,
    sampled: u64,
    fields: &[FieldProfile],
    indexes: &[IndexInfo],
) -> Shape {
    if sampled == 0 {
        let key = part.index();
        let indexed = indexes.iter().any(|i| {
            i.key.len() == key.len()
                && i.key
                    .iter()
                    .zip(key)
                    .all(|((k, _), want)| k.as_str() == *want)
        });
        return Shape::Empty { indexed };
    }
    let held = |name: &str| {
        fields
            .iter()
            .any(|f| f.depth == 0 && f.path == name && f.count == sampled)
    };
    if part.fields().iter().all(|f| held(f)) {
        Shape::Part
    } else {
        Shape::Other
    }
}

/// A chunk size the files declare, and how many declare it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ChunkSize {
    pub bytes: u64,
    pub files: u64,
}

/// A bucket as an audit reports it, on both its collections.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Gridfs {
    /// The bucket's name (`fs`).
    pub bucket: String,
    /// Files stored: documents of `B.files`.
    pub files: Option<u64>,
    /// Their bytes, by their `length`.
    pub total_bytes: Option<u64>,
    pub largest_bytes: Option<u64>,
    /// The chunk sizes the files declare (GridFS's default is 255 KiB,
    /// 261,120 bytes), most declared first.
    pub chunk_sizes: Vec<ChunkSize>,
    /// Documents of `B.chunks`.
    pub chunks: Option<u64>,
    /// Chunks whose `files_id` names no file of `B.files`: bytes nothing
    /// can read, left by an interrupted upload or a delete that did not
    /// finish.
    pub orphan_chunks: Option<u64>,
    /// What was not measured, and why.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_measured: Vec<String>,
}

/// A bucket's collections as the run read them: each part's listing and
/// how many documents it holds.
pub struct Bucket<'a> {
    pub name: &'a str,
    pub files: Option<(&'a CollectionMeta, Option<u64>)>,
    pub chunks: Option<(&'a CollectionMeta, Option<u64>)>,
}

/// Measures `bucket` on `source`: the files' lengths and chunk sizes
/// from `B.files`, and the chunks whose `files_id` no file has. An error
/// that ends the run is returned; any other leaves its figure unmeasured,
/// with why.
pub(crate) async fn measure<S: Probes>(source: &mut S, bucket: &Bucket<'_>) -> Result<Gridfs> {
    let mut out = Gridfs {
        bucket: bucket.name.to_owned(),
        files: bucket.files.and_then(|(_, n)| n),
        chunks: bucket.chunks.and_then(|(_, n)| n),
        ..Gridfs::default()
    };
    if let Some((files, _)) = bucket.files {
        match source.value_counts(files, "length", MAX_VALUES).await {
            Ok(Some(lengths)) => {
                let sized: Vec<(u64, u64)> = lengths
                    .iter()
                    .filter_map(|(v, n)| Some((u64::try_from(bson_as_i64(v)?).ok()?, *n)))
                    .collect();
                out.total_bytes = Some(sized.iter().map(|(l, n)| l * n).sum());
                out.largest_bytes = Some(sized.iter().map(|(l, _)| *l).max().unwrap_or(0));
            }
            Ok(None) => out.not_measured.push(format!(
                "file sizes: more than {MAX_VALUES} distinct lengths"
            )),
            Err(e) if e.is_fatal() => return Err(e),
            Err(e) => out.not_measured.push(format!("file sizes: {e}")),
        }
        match source.value_counts(files, "chunkSize", 1_000).await {
            Ok(Some(sizes)) => {
                out.chunk_sizes = sizes
                    .iter()
                    .filter_map(|(v, n)| {
                        Some(ChunkSize {
                            bytes: u64::try_from(bson_as_i64(v)?).ok()?,
                            files: *n,
                        })
                    })
                    .collect();
                out.chunk_sizes
                    .sort_by(|a, b| b.files.cmp(&a.files).then(a.bytes.cmp(&b.bytes)));
            }
            Ok(None) => out
                .not_measured
                .push("chunk size: more than 1000 distinct sizes".to_owned()),
            Err(e) if e.is_fatal() => return Err(e),
            Err(e) => out.not_measured.push(format!("chunk size: {e}")),
        }
    }
    match orphans(source, bucket).await {
        Ok(n) => out.orphan_chunks = n,
        Err(Why::Fatal(e)) => return Err(e),
        Err(Why::Not(why)) => out.not_measured.push(format!("orphan chunks: {why}")),
    }
    Ok(out)
}

/// Why a figure was not measured.
enum Why {
    Fatal(crate::source::SourceError),
    Not(String),
}

impl From<crate::source::SourceError> for Why {
    fn from(e: crate::source::SourceError) -> Why {
        if e.is_fatal() {
            Why::Fatal(e)
        } else {
            Why::Not(e.to_string())
        }
    }
}

/// Chunks whose `files_id` names no file: the chunks counted by
/// `files_id`, then each `files_id` looked up among the files' `_id`s.
/// `None` when the bucket has no chunks collection.
async fn orphans<S: Probes>(
    source: &mut S,
    bucket: &Bucket<'_>,
) -> std::result::Result<Option<u64>, Why> {
    let Some((chunks, count)) = bucket.chunks else {
        return Ok(None);
    };
    let Some((files, _)) = bucket.files else {
        return Err(Why::Not(format!(
            "{}.files is not among the collections read",
            bucket.name
        )));
    };
    if count.is_some_and(|n| n > MAX_CHUNKS) {
        return Err(Why::Not(format!("more than {MAX_CHUNKS} chunks")));
    }
    let Some(per_file) = source.value_counts(chunks, "files_id", MAX_VALUES).await? else {
        return Err(Why::Not(format!(
            "the chunks name more than {MAX_VALUES} files"
        )));
    };
    let ids: Vec<bson::Bson> = per_file.iter().map(|(v, _)| v.clone()).collect();
    let mut found: std::collections::HashSet<ValueKey> = std::collections::HashSet::new();
    for batch in ids.chunks(PROBE_BATCH) {
        for v in source.probe(files, "_id", batch).await? {
            found.extend(value::of_bson(&v));
        }
    }
    Ok(Some(
        per_file
            .iter()
            .filter(|(v, _)| value::of_bson(v).is_none_or(|k| !found.contains(&k)))
            .map(|(_, n)| n)
            .sum(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_say_the_part() {
        assert_eq!(part_of("fs.files"), Some(("fs", Part::Files)));
        assert_eq!(part_of("anexos.chunks"), Some(("anexos", Part::Chunks)));
        assert_eq!(part_of("a.b.chunks"), Some(("a.b", Part::Chunks)));
        assert_eq!(part_of("files"), None);
        assert_eq!(part_of(".files"), None);
        assert_eq!(part_of("profiles"), None);
        assert_eq!(Part::Files.other("fs"), "fs.chunks");
    }

    fn profile(docs: &[bson::Document]) -> crate::profile::Profile {
        let mut p = crate::profile::ShardedProfiler::new(1, 100);
        for d in docs {
            let mut v = Vec::new();
            d.to_writer(&mut v).expect("serialise");
            p.add(&v).expect("valid");
        }
        p.finish()
    }

    #[test]
    fn the_documents_decide_the_part() {
        let chunk = |n: i32| {
            bson::doc! {"_id": n, "files_id": 1, "n": n, "data": bson::Binary {subtype: bson::spec::BinarySubtype::Generic, bytes: vec![1, 2]}}
        };
        let p = profile(&[chunk(0), chunk(1)]);
        assert_eq!(shape(Part::Chunks, p.sampled, &p.fields, &[]), Shape::Part);
        // A document without `data`: an application's collection.
        let mut odd = chunk(2);
        odd.remove("data");
        let p = profile(&[chunk(0), odd]);
        assert_eq!(shape(Part::Chunks, p.sampled, &p.fields, &[]), Shape::Other);
        let files = bson::doc! {"_id": 1, "length": 10, "chunkSize": 261_120, "filename": "a.png"};
        let p = profile(&[files]);
        assert_eq!(shape(Part::Files, p.sampled, &p.fields, &[]), Shape::Part);
        // An application's `project.files`.
        let p = profile(&[bson::doc! {"_id": 1, "path": "src/main.rs"}]);
        assert_eq!(shape(Part::Files, p.sampled, &p.fields, &[]), Shape::Other);
        let index = IndexInfo::from_spec(
            &bson::doc! {"key": {"files_id": 1, "n": 1}, "name": "files_id_1_n_1", "unique": true},
        )
        .expect("an index");
        assert_eq!(
            shape(Part::Chunks, 0, &[], &[index]),
            Shape::Empty { indexed: true }
        );
        assert_eq!(
            shape(Part::Files, 0, &[], &[]),
            Shape::Empty { indexed: false }
        );
    }
}
