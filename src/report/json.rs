//! The contract's JSON report.

use super::{CollectionReport, Open, Report, WriteError};

pub fn render(report: &Report) -> String {
    let mut s = serde_json::to_string_pretty(report)
        .unwrap_or_else(|e| format!("{{\"error\": \"report could not be serialised: {e}\"}}"));
    s.push('\n');
    s
}

/// Writes the report as [`render`] gives it, without holding its text: a
/// deployment of thousands of collections makes tens of megabytes of JSON.
pub(crate) fn write(
    report: &Report,
    out: &mut (impl std::io::Write + ?Sized),
) -> std::io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, report).map_err(std::io::Error::from)?;
    out.write_all(b"\n")
}

/// One collection's profile, as `docshape schema --format json` prints it.
pub(crate) fn render_collection(c: &CollectionReport) -> String {
    let mut s = serde_json::to_string_pretty(c)
        .unwrap_or_else(|e| format!("{{\"error\": \"profile could not be serialised: {e}\"}}"));
    s.push('\n');
    s
}

/// Where the collections begin in the pretty JSON of a report that has
/// none yet: a top-level key is indented by two spaces, and no string in
/// JSON holds a raw line break, so this is found only where it is meant.
const COLLECTIONS: &str = "\n  \"collections\": []";

/// The JSON report written as its collections come, one at a time, without
/// holding them: the same bytes [`write`] gives for the whole report, or
/// with `lines`, JSON lines (`--format jsonl`): a `head` line, a
/// `collection` line per collection, and an `end` line with the rest of
/// the report, each an object whose first key, `type`, says which.
pub struct Streamed<W: std::io::Write> {
    out: W,
    lines: bool,
    written: usize,
}

impl<W: std::io::Write> Streamed<W> {
    pub(crate) fn new(out: W, lines: bool) -> Streamed<W> {
        Streamed {
            out,
            lines,
            written: 0,
        }
    }

    /// Writes collection `c`; with the report's `head` (no collections)
    /// first, when it is the first.
    pub(crate) fn collection(
        &mut self,
        head: &Report,
        c: &CollectionReport,
    ) -> std::io::Result<()> {
        if self.lines {
            if self.written == 0 {
                self.head_line(head)?;
            }
            let text = serde_json::to_string(c)?;
            self.out.write_all(b"{\"type\":\"collection\",")?;
            self.out.write_all(&text.as_bytes()[1..])?;
            self.out.write_all(b"\n")?;
        } else {
            if self.written == 0 {
                let text = serde_json::to_string_pretty(head)?;
                let (before, _) = split_at_collections(&text)?;
                self.out.write_all(before.as_bytes())?;
            }
            self.out
                .write_all(if self.written == 0 { b"\n" } else { b",\n" })?;
            let text = serde_json::to_string_pretty(c)?;
            for (i, line) in text.split('\n').enumerate() {
                if i > 0 {
                    self.out.write_all(b"\n")?;
                }
                self.out.write_all(b"    ")?;
                self.out.write_all(line.as_bytes())?;
            }
        }
        self.written += 1;
        Ok(())
    }

    /// Writes the rest of `report` (its collections already written) and
    /// gives back the output.
    pub(crate) fn finish(mut self, report: &Report) -> std::io::Result<W> {
        if self.lines {
            if self.written == 0 {
                self.head_line(report)?;
            }
            let serde_json::Value::Object(all) = serde_json::to_value(report)? else {
                return Err(std::io::Error::other("a report is a JSON object"));
            };
            let mut end = serde_json::Map::new();
            end.insert("type".into(), "end".into());
            end.extend(all.into_iter().filter(|(k, _)| !is_head(k)));
            serde_json::to_writer(&mut self.out, &end)?;
            self.out.write_all(b"\n")?;
        } else if self.written == 0 {
            write(report, &mut self.out)?;
        } else {
            let text = serde_json::to_string_pretty(report)?;
            let (_, after) = split_at_collections(&text)?;
            self.out.write_all(b"\n  ]")?;
            self.out.write_all(after.as_bytes())?;
            self.out.write_all(b"\n")?;
        }
        self.out.flush()?;
        Ok(self.out)
    }

    fn head_line(&mut self, head: &Report) -> std::io::Result<()> {
        let serde_json::Value::Object(all) = serde_json::to_value(head)? else {
            return Err(std::io::Error::other("a report is a JSON object"));
        };
        let mut line = serde_json::Map::new();
        line.insert("type".into(), "head".into());
        line.extend(
            all.into_iter()
                .filter(|(k, _)| is_head(k) && k != "collections"),
        );
        serde_json::to_writer(&mut self.out, &line)?;
        self.out.write_all(b"\n")
    }
}

/// The JSON report (or JSON lines) written as the audit hands out its
/// judged collections. The output is opened with the first of them, so a
/// run that fails before writes nothing.
pub struct JsonWriter {
    open: Option<Open>,
    lines: bool,
    streamed: Option<Streamed<Box<dyn std::io::Write>>>,
    /// True once the output could not be opened or written: the
    /// collections after are counted, not written.
    failed: bool,
    /// The worst finding of the collections taken.
    worst: Option<crate::rules::Severity>,
}

impl JsonWriter {
    pub fn new(open: Open, lines: bool) -> JsonWriter {
        JsonWriter {
            open: Some(open),
            lines,
            streamed: None,
            failed: false,
            worst: None,
        }
    }

    /// The output, opened when first asked for.
    fn streamed(&mut self) -> std::io::Result<&mut Streamed<Box<dyn std::io::Write>>> {
        if self.streamed.is_none() {
            let open = self
                .open
                .take()
                .ok_or_else(|| std::io::Error::other("no output"))?;
            self.streamed = Some(Streamed::new(open()?, self.lines));
        }
        self.streamed
            .as_mut()
            .ok_or_else(|| std::io::Error::other("no output"))
    }
}

impl super::Writer for JsonWriter {
    fn collection(&mut self, head: &Report, c: CollectionReport) -> Result<(), WriteError> {
        self.worst = self.worst.max(c.findings.iter().map(|f| f.severity).max());
        if self.failed {
            return Ok(());
        }
        let written = self.streamed().and_then(|w| w.collection(head, &c));
        self.failed = written.is_err();
        written.map_err(WriteError::Output)
    }

    fn worst(&self) -> Option<crate::rules::Severity> {
        self.worst
    }

    fn finish(mut self: Box<Self>, report: &Report) -> Result<(), WriteError> {
        self.streamed().map_err(WriteError::Output)?;
        self.streamed
            .take()
            .map_or(Ok(()), |w| w.finish(report).map(drop))
            .map_err(WriteError::Output)
    }
}

/// The keys of the report written before its collections.
fn is_head(key: &str) -> bool {
    matches!(
        key,
        "docshape" | "target" | "generated_at" | "sampling" | "collections"
    )
}

/// The pretty JSON of a report with no collections, cut where they go:
/// what comes up to their `[`, and what after their `]`.
fn split_at_collections(text: &str) -> std::io::Result<(&str, &str)> {
    let at = text
        .find(COLLECTIONS)
        .ok_or_else(|| std::io::Error::other("the report's head holds collections already"))?;
    let open = at + COLLECTIONS.len() - 1;
    Ok((&text[..open], &text[open + 1..]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{RulesUsed, Sampling};

    fn report(collections: usize) -> Report {
        let mut r = Report::empty(
            "a \"collections\": [] target\n".into(),
            Sampling {
                mode: "sample",
                size: Some(10),
            },
            RulesUsed {
                profile: "default".into(),
                lang: crate::i18n::Lang::En,
                disabled: Vec::new(),
            },
            256 << 20,
        );
        r.notes.push("a note".into());
        let docs: Vec<Vec<u8>> = (0..5)
            .map(|i| {
                let mut v = Vec::new();
                bson::doc! {"_id": i, "s": format!("x{i}"), "a": [1, 2]}
                    .to_writer(&mut v)
                    .expect("serialise");
                v
            })
            .collect();
        for k in 0..collections {
            let mut p = crate::profile::ShardedProfiler::new(1, 100);
            for d in &docs[..=k % 5] {
                p.add(d).expect("valid");
            }
            let mut profile = p.finish();
            let meta = crate::source::CollectionMeta::new("db", &format!("c{k}"));
            r.collections.push(CollectionReport {
                namespace: meta.namespace(),
                kind: meta.kind,
                documents: Some(profile.sampled),
                sampled: profile.sampled,
                sample_method: "all".into(),
                partial: (k == 2).then(|| "stopped".into()),
                doc_size: profile.doc_size,
                max_depth: profile.max_depth,
                storage: None,
                indexes: Vec::new(),
                options: None,
                fields: std::mem::take(&mut profile.fields),
                findings: Vec::new(),
                paths_capped: false,
                notes: vec![format!("note {k}\nwith a line break")],
                round_trips: None,
                extremes: None,
                growth: crate::growth::ByPath::new(),
                profile,
                kept: Vec::new(),
                meta,
            });
        }
        r
    }

    fn streamed(whole: &Report, lines: bool) -> String {
        let mut head = whole.clone();
        head.collections.clear();
        let mut s = Streamed::new(Vec::new(), lines);
        for c in &whole.collections {
            s.collection(&head, c).expect("written");
        }
        String::from_utf8(s.finish(&head).expect("finished")).expect("UTF-8")
    }

    #[test]
    fn the_streamed_report_is_the_whole_one_byte_for_byte() {
        for n in [0, 1, 2, 7] {
            let whole = report(n);
            assert_eq!(streamed(&whole, false), render(&whole), "{n} collections");
        }
    }

    /// Each format written a collection at a time through its writer
    /// (text, Markdown and HTML spooled on disk, JSON streamed) is the report
    /// rendered whole.
    #[test]
    fn each_writer_writes_the_whole_report() {
        use crate::report::{markdown, sarif, text, writer, Format, Options};
        /// Memory the test reads back once the writer is done with it.
        #[derive(Clone, Default)]
        struct Shared(std::rc::Rc<std::cell::RefCell<Vec<u8>>>);
        impl std::io::Write for Shared {
            fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
                self.0.borrow_mut().extend_from_slice(b);
                Ok(b.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        for n in [0, 1, 4] {
            let whole = report(n);
            let mut head = whole.clone();
            head.collections.clear();
            let style = text::Style { color: true };
            for (format, want) in [
                (Format::Text, text::render(&whole, style)),
                (Format::Markdown, markdown::render(&whole)),
                (Format::Json, render(&whole)),
                (Format::Sarif, sarif::render(&whole)),
                (Format::Html, crate::report::html::render(&whole)),
            ] {
                let out = Shared::default();
                let to = out.clone();
                let open: Open = Box::new(move || Ok(Box::new(to)));
                let mut w = writer(format, Options { color: true, open });
                for c in &whole.collections {
                    w.collection(&head, c.clone()).expect("taken");
                }
                let worst = whole.collections.iter().flat_map(|c| &c.findings);
                let worst = worst.map(|f| f.severity).max();
                assert_eq!(w.worst(), worst, "{format:?}");
                w.finish(&head).expect("written");
                let got = String::from_utf8(out.0.take()).expect("UTF-8");
                assert_eq!(got, want, "{format:?}, {n} collections");
            }
        }
    }

    #[test]
    fn json_lines_hold_the_same_report() {
        for n in [0, 1, 3] {
            let whole = report(n);
            let text = streamed(&whole, true);
            let lines: Vec<serde_json::Value> = text
                .lines()
                .map(|l| serde_json::from_str(l).expect("a JSON line"))
                .collect();
            assert_eq!(lines.len(), n + 2);
            let types: Vec<&str> = lines
                .iter()
                .map(|l| l["type"].as_str().unwrap_or(""))
                .collect();
            assert_eq!(types[0], "head");
            assert_eq!(types[n + 1], "end");
            assert!(types[1..=n].iter().all(|t| *t == "collection"));
            // Put back together, the lines are the report.
            let mut joined = serde_json::Map::new();
            for l in [&lines[0], &lines[n + 1]] {
                for (k, v) in l.as_object().expect("an object") {
                    if k != "type" {
                        joined.insert(k.clone(), v.clone());
                    }
                }
            }
            let strip = |l: &serde_json::Value| {
                let mut l = l.clone();
                l.as_object_mut().expect("an object").remove("type");
                l
            };
            joined.insert(
                "collections".into(),
                lines[1..=n].iter().map(strip).collect(),
            );
            let mut want = serde_json::to_value(&whole).expect("a value");
            let want = want.as_object_mut().expect("an object");
            assert_eq!(
                joined.keys().collect::<std::collections::BTreeSet<_>>(),
                want.keys().collect::<std::collections::BTreeSet<_>>()
            );
            for (k, v) in want {
                assert_eq!(&joined[k.as_str()], v, "{k}");
            }
        }
    }
}
