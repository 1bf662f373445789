//! Questions about a collection answered by scanning its file: which of
//! some values a key holds (on several threads when the file is large),
//! documents per value, a repeated key, which fields are present, documents
//! fetched by value and reread by `_id`.

use super::FileSource;
use crate::source::{
    CheckMethod, CollectionMeta, PresenceCheck, Probes, Reread, Result, SourceError,
};

impl Probes for FileSource {
    fn group_method(&self) -> &'static str {
        "file-scan"
    }

    async fn probe(
        &mut self,
        meta: &CollectionMeta,
        key: &str,
        values: &[bson::Bson],
    ) -> Result<Vec<bson::Bson>> {
        self.probe_scan(meta, key, values)
    }

    async fn probe_many(
        &mut self,
        meta: &CollectionMeta,
        asks: &[(&str, &[bson::Bson])],
    ) -> Result<Vec<Result<Vec<bson::Bson>>>> {
        match self.probe_many_scan(meta, asks) {
            Ok(answers) => Ok(answers.into_iter().map(Ok).collect()),
            Err(e) if e.is_fatal() => Err(e),
            // The one scan failed: so did every probe, for the same reason.
            Err(e) => {
                let msg = e.to_string();
                let mut first = Some(e);
                Ok(asks
                    .iter()
                    .map(|_| {
                        Err(first
                            .take()
                            .unwrap_or_else(|| SourceError::NotFound(msg.clone())))
                    })
                    .collect())
            }
        }
    }

    async fn group_counts(&mut self, meta: &CollectionMeta, key: &str) -> Result<Vec<(u64, u64)>> {
        self.group_scan(meta, key)
    }

    async fn value_counts(
        &mut self,
        meta: &CollectionMeta,
        key: &str,
        max: usize,
    ) -> Result<Option<Vec<(bson::Bson, u64)>>> {
        Ok(self
            .tally(meta, key, max)?
            .map(|t| t.into_values().collect()))
    }

    async fn duplicate_key(
        &mut self,
        meta: &CollectionMeta,
        key: &str,
    ) -> Result<Option<bson::Bson>> {
        use crate::source::value;
        let keys: Vec<&str> = key.split('.').collect();
        let mut seen = std::collections::HashSet::new();
        let mut repeated = None;
        self.stream(meta, &mut |doc| {
            if repeated.is_some() {
                return;
            }
            let mut here = Vec::new();
            crate::profile::extract::query_visit(doc, &keys, &mut |el| {
                if let Some(k) = value::of_element(el) {
                    if !here.contains(&k) {
                        here.push(k);
                        if !seen.insert(here[here.len() - 1].clone()) && repeated.is_none() {
                            repeated = crate::profile::value_of(el);
                        }
                    }
                }
            });
        })?;
        Ok(repeated)
    }

    async fn reread(
        &mut self,
        meta: &CollectionMeta,
        ids: &[bson::Bson],
        paths: &[String],
    ) -> Result<Vec<Reread>> {
        self.reread_scan(meta, ids, paths)
    }

    async fn presence(
        &mut self,
        meta: &CollectionMeta,
        groups: &[Vec<String>],
    ) -> Result<Vec<PresenceCheck>> {
        let keys: Vec<Vec<Vec<&str>>> = groups
            .iter()
            .map(|g| g.iter().map(|p| p.split('.').collect()).collect())
            .collect();
        let mut found = vec![false; groups.len()];
        self.stream(meta, &mut |doc| {
            for (hit, paths) in found.iter_mut().zip(&keys) {
                if !*hit {
                    *hit = paths
                        .iter()
                        .any(|k| crate::profile::extract::has_value(doc, k));
                }
            }
        })?;
        Ok(groups
            .iter()
            .zip(found)
            .map(|(paths, found)| PresenceCheck {
                paths: paths.clone(),
                found,
                method: CheckMethod::FileScan,
            })
            .collect())
    }

    async fn fetch(
        &mut self,
        meta: &CollectionMeta,
        key: &str,
        values: &[bson::Bson],
        fields: &[String],
    ) -> Result<Vec<bson::Document>> {
        use crate::source::value;
        let wanted: std::collections::HashSet<value::ValueKey> =
            values.iter().filter_map(value::of_bson).collect();
        let keys: Vec<&str> = key.split('.').collect();
        let mut out = Vec::new();
        self.stream(meta, &mut |doc| {
            if out.len() >= values.len() {
                return;
            }
            let mut hit = false;
            crate::profile::extract::query_visit(doc, &keys, &mut |el| {
                hit |= value::of_element(el).is_some_and(|k| wanted.contains(&k));
            });
            if !hit {
                return;
            }
            let Ok(full) = bson::Document::from_reader(doc) else {
                return;
            };
            let mut d = bson::Document::new();
            for f in std::iter::once(key).chain(fields.iter().map(String::as_str)) {
                if let Some(v) = full.get(f) {
                    d.insert(f, v.clone());
                }
            }
            out.push(d);
        })?;
        Ok(out)
    }
}

impl FileSource {
    pub(super) fn probe_scan(
        &self,
        meta: &CollectionMeta,
        key: &str,
        values: &[bson::Bson],
    ) -> Result<Vec<bson::Bson>> {
        let mut answers = self.probe_many_scan(meta, &[(key, values)])?;
        Ok(answers.pop().unwrap_or_default())
    }

    /// Every probe of `asks` answered by one scan of the file (reading an
    /// Extended JSON file costs far more than looking a value up).
    fn probe_many_scan(
        &self,
        meta: &CollectionMeta,
        asks: &[(&str, &[bson::Bson])],
    ) -> Result<Vec<Vec<bson::Bson>>> {
        self.probe_many_scan_on(crate::profile::threads_from_env(), meta, asks)
    }

    fn probe_many_scan_on(
        &self,
        threads: usize,
        meta: &CollectionMeta,
        asks: &[(&str, &[bson::Bson])],
    ) -> Result<Vec<Vec<bson::Bson>>> {
        use crate::source::value;
        type Wanted<'v> = std::collections::HashMap<value::ValueKey, &'v bson::Bson>;
        let wanted: Vec<Wanted<'_>> = asks
            .iter()
            .map(|(_, values)| {
                values
                    .iter()
                    .filter_map(|b| value::of_bson(b).map(|k| (k, b)))
                    .collect()
            })
            .collect();
        let keys: Vec<Vec<&str>> = asks
            .iter()
            .map(|(key, _)| key.split('.').collect())
            .collect();
        // Each thread gathers what it finds; the union is the answer.
        let per_thread = self.scan_on(
            threads,
            meta,
            || vec![std::collections::BTreeSet::new(); asks.len()],
            |found, doc| {
                for ((keys, wanted), found) in keys.iter().zip(&wanted).zip(found.iter_mut()) {
                    crate::profile::extract::query_visit(doc, keys, &mut |el| {
                        if let Some(k) = value::of_element(el) {
                            if wanted.contains_key(&k) {
                                found.insert(k);
                            }
                        }
                    });
                }
            },
        )?;
        let mut found = vec![std::collections::BTreeSet::new(); asks.len()];
        for part in per_thread {
            for (all, some) in found.iter_mut().zip(part) {
                all.extend(some);
            }
        }
        Ok(found
            .iter()
            .zip(&wanted)
            .map(|(found, wanted)| {
                found
                    .iter()
                    .filter_map(|k| wanted.get(k).map(|b| (*b).clone()))
                    .collect()
            })
            .collect())
    }

    pub(super) fn group_scan(&self, meta: &CollectionMeta, key: &str) -> Result<Vec<(u64, u64)>> {
        let Some(per_value) = self.tally(meta, key, crate::source::MAX_GROUPS)? else {
            return Err(SourceError::NotFound(format!(
                "{} has more than {} distinct values of {key}; fan-out not counted",
                meta.namespace(),
                crate::source::MAX_GROUPS
            )));
        };
        let mut hist: std::collections::BTreeMap<u64, u64> = std::collections::BTreeMap::new();
        for (_, n) in per_value.into_values() {
            *hist.entry(n).or_insert(0) += 1;
        }
        Ok(hist.into_iter().collect())
    }

    /// Documents per distinct value of the dotted `key` (a document holding
    /// a value twice counts once); `None` beyond `max` distinct values.
    fn tally(
        &self,
        meta: &CollectionMeta,
        key: &str,
        max: usize,
    ) -> Result<Option<std::collections::HashMap<crate::source::value::ValueKey, (bson::Bson, u64)>>>
    {
        use crate::source::value;
        let keys: Vec<&str> = key.split('.').collect();
        let mut per_value: std::collections::HashMap<value::ValueKey, (bson::Bson, u64)> =
            std::collections::HashMap::new();
        let mut overflow = false;
        self.stream(meta, &mut |doc| {
            let mut seen_here: Vec<(value::ValueKey, bson::Bson)> = Vec::new();
            crate::profile::extract::query_visit(doc, &keys, &mut |el| {
                if let (Some(k), Some(b)) = (value::of_element(el), crate::profile::value_of(el)) {
                    if !seen_here.iter().any(|s| s.0 == k) {
                        seen_here.push((k, b));
                    }
                }
            });
            for (k, b) in seen_here {
                if let Some(e) = per_value.get_mut(&k) {
                    e.1 += 1;
                } else if per_value.len() >= max {
                    overflow = true;
                } else {
                    per_value.insert(k, (b, 1));
                }
            }
        })?;
        Ok((!overflow).then_some(per_value))
    }

    pub(super) fn reread_scan(
        &self,
        meta: &CollectionMeta,
        ids: &[bson::Bson],
        paths: &[String],
    ) -> Result<Vec<Reread>> {
        use crate::source::value;
        let wanted: std::collections::HashMap<value::ValueKey, &bson::Bson> = ids
            .iter()
            .filter_map(|b| value::of_bson(b).map(|k| (k, b)))
            .collect();
        let segs: Vec<Vec<crate::profile::Seg>> = paths
            .iter()
            .map(|p| {
                p.split('.')
                    .map(|k| crate::profile::Seg::Key(k.to_owned()))
                    .collect()
            })
            .collect();
        let mut out = Vec::new();
        self.stream(meta, &mut |doc| {
            let Some(id) = crate::profile::extract::top(doc, "_id") else {
                return;
            };
            let Some(b) = value::of_element(&id).and_then(|k| wanted.get(&k)) else {
                return;
            };
            out.push(Reread {
                id: (*b).clone(),
                size: doc.len() as u64,
                lengths: crate::growth::snapshot::lengths_of(doc, &segs),
            });
        })?;
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::extjson::Relaxed as _;
    use crate::profile::parallel::PARALLEL_AFTER;

    /// A probe of a file large enough to be scanned on several threads
    /// finds exactly what one thread finds, in both formats.
    #[test]
    fn probes_on_several_threads_find_what_one_finds() {
        let dir = tempfile::tempdir().expect("temp dir");
        let pad = "x".repeat(300);
        let docs: Vec<bson::Document> = (0..6_000i64)
            .map(|i| bson::doc! {"_id": i * 3, "tags": [format!("t{}", i % 101)], "pad": &pad})
            .collect();
        let mut bytes = Vec::new();
        for d in &docs {
            d.to_writer(&mut bytes).expect("encode");
        }
        assert!(
            bytes.len() > PARALLEL_AFTER,
            "large enough to scan in parallel"
        );
        std::fs::write(dir.path().join("items.bson"), &bytes).expect("write bson");
        let lines: String = docs
            .iter()
            .map(|d| bson::Bson::Document(d.clone()).relaxed().to_string() + "\n")
            .collect();
        std::fs::write(dir.path().join("lines.json"), lines).expect("write json");
        let src = FileSource::open(dir.path()).expect("open");
        let ids: Vec<bson::Bson> = (0..2_000i64).map(bson::Bson::Int64).collect();
        let tags: Vec<bson::Bson> = (90..120)
            .map(|i| bson::Bson::String(format!("t{i}")))
            .collect();
        let asks: [(&str, &[bson::Bson]); 2] = [("_id", &ids), ("tags", &tags)];
        for name in ["items", "lines"] {
            let entry = src.entries.iter().find(|e| e.coll == name).expect("entry");
            let meta = CollectionMeta::new(&entry.db, &entry.coll);
            let one = src.probe_many_scan_on(1, &meta, &asks).expect("one thread");
            assert_eq!(one[0].len(), 667, "{name}: multiples of 3 below 2,000");
            assert_eq!(one[1].len(), 11, "{name}: t90..t100");
            for threads in [2, 3, 8] {
                let many = src
                    .probe_many_scan_on(threads, &meta, &asks)
                    .expect("threads");
                assert_eq!(many, one, "{name} on {threads} threads");
            }
        }
    }
}
