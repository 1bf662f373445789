//! Any size: memory that does not grow with the documents read from a
//! server, collections read several at once through a slow link, and a
//! memory budget that holds for many collections of large documents.

use crate::common;
use crate::common::proxy;

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use bson::{doc, Document};
use docshape::audit::{self, Plan};
use docshape::source::{MongoSource, SampleMode, Selection};
use serde_json::Value;

use common::{client, collection, collections, unique_db, uri};
use proxy::{upstream_of, DelayProxy};

/// One test of this file at a time: they measure wall time or memory.
fn serial() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(PoisonError::into_inner)
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime")
}

/// The process's peak resident set (`VmHWM`, KiB), while it runs.
fn peak_rss_kib(pid: u32) -> Option<u64> {
    audit::peak_memory_of(&format!("/proc/{pid}/status")).map(|b| b / 1024)
}

/// Runs docshape with `args` (hermetic, as `common::docshape_env`), polling
/// its peak RSS until it exits; returns the peak (KiB), the wall time and
/// the JSON report it wrote to stdout.
fn run_measuring(args: &[&str], limit: Duration) -> (u64, Duration, Value) {
    let home = tempfile::tempdir().expect("tempdir");
    let out = home.path().join("report.json");
    let start = Instant::now();
    let mut child = Command::new(common::docshape_bin())
        .args(args)
        .args(["--format", "json", "--fail-on", "never", "-o"])
        .arg(&out)
        .env("XDG_STATE_HOME", home.path().join("state"))
        .env("XDG_CONFIG_HOME", home.path().join("config"))
        .env("LANG", "C.UTF-8")
        .env("DOCSHAPE_THREADS", "2")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run docshape");
    let pid = child.id();
    let mut peak = 0;
    let status = loop {
        if let Some(kib) = peak_rss_kib(pid) {
            peak = peak.max(kib);
        }
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("docshape {args:?} ran past {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let took = start.elapsed();
    let mut err = String::new();
    if let Some(mut e) = child.stderr.take() {
        let _ = e.read_to_string(&mut err);
    }
    assert!(status.success(), "docshape {args:?}: {status}: {err}");
    let report = serde_json::from_slice(&std::fs::read(&out).expect("the report"))
        .expect("the report is JSON");
    (peak, took, report)
}

/// A document of a dozen small fields (about 250 bytes), none of which
/// looks like a reference to another collection.
fn small_doc(i: u32) -> Document {
    let f = f64::from(i);
    let kind = ["a", "b", "c"][(i % 3) as usize];
    let colour = ["red", "green", "blue", "black"][(i % 4) as usize];
    doc! {
        "name": format!("item {i}"),
        "kind": kind,
        "price": f * 0.25 + 0.5,
        "weight": f * 0.125 + 0.25,
        "ok": i.is_multiple_of(2),
        "tag": format!("t{}", i % 17),
        "size": f * 1.5 + 0.5,
        "colour": colour,
        "note": "an ordinary document",
        "ratio": f / 7.0 + 0.5,
        "code": format!("c-{:06}", i),
        "score": f * 0.01 + 0.5,
    }
}

async fn insert(db: &str, coll: &str, n: u32) {
    let c = client().await.database(db).collection::<Document>(coll);
    let docs: Vec<Document> = (0..n).map(small_doc).collect();
    for chunk in docs.chunks(5000) {
        c.insert_many(chunk.to_vec()).await.expect("insert");
    }
}

/// `audit --full` of a server collection holds at most one reply of
/// documents, not every document read: from 3,000 to 30,000 documents the
/// peak may grow by the bytes of the larger reply (read from the wire, then
/// profiled) and a little noise, not by the documents themselves. Before
/// the reads left command monitoring, every reply was also parsed into a
/// `Document` tree (about 2 KB per small document): 61.6 MB at 30,000
/// documents against 12.9 MB for a sample.
#[test]
fn full_reads_from_a_server_do_not_grow_with_the_documents() {
    let _serial = serial();
    if !Path::new("/proc/self/status").exists() {
        eprintln!("server memory: needs /proc to read a child's peak RSS; skipped");
        return;
    }
    let db = unique_db("fullmem");
    let rt = runtime();
    let gen = Instant::now();
    rt.block_on(async {
        insert(&db, "small", 3_000).await;
        insert(&db, "large", 30_000).await;
    });
    eprintln!(
        "server memory: loaded in {:.1} s",
        gen.elapsed().as_secs_f64()
    );
    let limit = Duration::from_secs(120);
    let mut measured = Vec::new();
    for (coll, n) in [("small", 3_000u64), ("large", 30_000)] {
        let ns = format!("{db}.{coll}");
        let (peak, took, report) = run_measuring(
            &["audit", &uri(), "-c", &ns, "--full", "--no-snapshot"],
            limit,
        );
        let c = collection(&report, &ns);
        assert_eq!(c["sampled"], n, "every document is profiled");
        let bytes = c["doc_size"]["avg"].as_f64().expect("avg size") * n as f64;
        eprintln!(
            "server memory: {n} documents ({:.1} MB): peak RSS {:.1} MiB, {:.1} s",
            bytes / 1e6,
            peak as f64 / 1024.0,
            took.as_secs_f64()
        );
        measured.push((peak, bytes));
    }
    rt.block_on(async {
        let _ = client().await.database(&db).drop().await;
    });
    let (small_peak, _) = measured[0];
    let (large_peak, large_bytes) = measured[1];
    // One reply of the larger read, counted twice (the wire buffer and the
    // reply it becomes), 10 % of the smaller peak and 4 MiB of noise.
    let reply_kib = (2.0 * large_bytes / 1024.0) as u64;
    let bound = small_peak + small_peak / 10 + reply_kib + 4 * 1024;
    assert!(
        large_peak <= bound,
        "peak RSS grew with the documents read: {small_peak} KiB for 3,000, {large_peak} KiB for 30,000 (bound {bound} KiB)"
    );
}

const COLLECTIONS: usize = 120;
const DELAY: Duration = Duration::from_millis(25);

/// 120 small collections behind a link that adds 25 ms to every reply.
/// Read one after another, each costs its round trips × 25 ms (16.6 s in
/// all, measured before collections were read several at once); with `n`
/// in flight the run must finish within
/// 1.5 × 120 × 25 ms × (round trips per collection) / n,
/// plus the run's own round trips (connecting, listing) at 25 ms each.
/// The report keeps the listing's order, and progress counts every
/// collection once as it completes, whatever order that is in.
#[test]
fn collections_in_flight_through_a_slow_link() {
    let _serial = serial();
    let Some(upstream) = upstream_of(&uri()) else {
        eprintln!(
            "in flight: the proxy cannot stand in for {}; skipped",
            uri()
        );
        return;
    };
    let db = unique_db("flight");
    let rt = runtime();
    rt.block_on(async {
        let c = client().await;
        for i in 0..COLLECTIONS {
            // Sizes differ so that reads finish out of order.
            let docs: Vec<Document> = (0..(1 + i % 7) as u32).map(small_doc).collect();
            c.database(&db)
                .collection::<Document>(&format!("c{i:03}"))
                .insert_many(docs)
                .await
                .expect("insert");
        }
    });
    let proxy = DelayProxy::start(&upstream, DELAY);
    let via = format!("mongodb://127.0.0.1:{}/?directConnection=true", proxy.port);

    // The reading stage only: the relationship stage probes pairs of
    // collections one after another, and has its own budget.
    let mut plan = Plan::new(
        Selection {
            dbs: vec![db.clone()],
            collections: Vec::new(),
        },
        SampleMode::Sample(1000),
    );
    plan.relationships = false;
    let in_flight = docshape::source::server::mongo::IN_FLIGHT;
    let mut done: Vec<(String, (usize, usize))> = Vec::new();
    let mut arrived: Vec<(String, (usize, usize))> = Vec::new();
    let mut stages: Vec<audit::Stage> = Vec::new();
    let mut running_ok = true;
    let start = Instant::now();
    let report = rt.block_on(async {
        let mut src = MongoSource::connect(&via, Duration::from_secs(30))
            .await
            .expect("connect through the proxy");
        audit::run(&mut src, &plan, &mut |p| {
            if let Some(c) = p.finished {
                arrived.push((c.namespace.clone(), p.position));
            } else if p.stage != audit::Stage::Sampling {
                stages.push(p.stage);
            } else if p.done {
                done.push((p.namespace.to_owned(), p.position));
            } else {
                running_ok &= p.position.0 >= 1 && p.position.0 <= p.position.1;
            }
        })
        .await
        .expect("audit through the proxy")
    });
    let took = start.elapsed();
    let report = serde_json::to_value(&report).expect("the report as JSON");
    let colls = collections(&report);
    assert_eq!(colls.len(), COLLECTIONS);
    let names: Vec<&str> = colls
        .iter()
        .map(|c| c["namespace"].as_str().expect("namespace"))
        .collect();
    let mut sorted = names.clone();
    sorted.sort_unstable();
    assert_eq!(names, sorted, "the report keeps the listing's order");
    for (i, c) in colls.iter().enumerate() {
        assert_eq!(c["sampled"], 1 + i as u64 % 7, "{}", c["namespace"]);
    }
    // Round trips per collection, as the report counts them.
    let trips: u64 = colls
        .iter()
        .map(|c| {
            c["round_trips"]
                .as_object()
                .expect("round_trips")
                .values()
                .map(|v| v.as_u64().expect("a count"))
                .sum::<u64>()
        })
        .max()
        .expect("collections");
    // The run's own: a handshake per connection (at most the pool, and the
    // reading client's), ping, listDatabases, listCollections.
    let own: u32 = 2 * 10 + 3;
    let per_coll = DELAY.as_secs_f64() * trips as f64;
    let bound = 1.5 * COLLECTIONS as f64 * per_coll / in_flight as f64
        + f64::from(own) * DELAY.as_secs_f64();
    eprintln!(
        "in flight: {COLLECTIONS} collections, {trips} round trips each, {in_flight} in flight, 25 ms a reply: {:.2} s (bound {bound:.2} s; one at a time would take {:.2} s)",
        took.as_secs_f64(),
        COLLECTIONS as f64 * per_coll
    );
    assert!(
        took.as_secs_f64() <= bound,
        "{COLLECTIONS} collections through a 25 ms link took {took:?}, more than {bound:.2} s"
    );

    // Progress: every collection reported done once, the count of finished
    // collections rising 1, 2, … N whatever order they finished in.
    assert!(running_ok, "positions while reading stay within 1..=N");
    let positions: Vec<usize> = done.iter().map(|(_, p)| p.0).collect();
    assert_eq!(positions, (1..=COLLECTIONS).collect::<Vec<_>>());
    assert!(done.iter().all(|(_, p)| p.1 == COLLECTIONS));
    let mut seen: Vec<&str> = done.iter().map(|(n, _)| n.as_str()).collect();
    seen.sort_unstable();
    seen.dedup();
    assert_eq!(seen.len(), COLLECTIONS, "each collection done once");
    let moved = done
        .iter()
        .zip(&names)
        .filter(|((n, _), listed)| n != *listed)
        .count();
    eprintln!("in flight: {moved} of {COLLECTIONS} collections finished out of listing order");
    // Each collection handed out once finished, in the listing's order,
    // then the later stages named in turn.
    let arrived_names: Vec<&str> = arrived.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        arrived_names, names,
        "collections arrive in the listing's order"
    );
    assert!(arrived
        .iter()
        .enumerate()
        .all(|(i, (_, p))| *p == (i + 1, COLLECTIONS)));
    assert_eq!(
        stages,
        [
            audit::Stage::Listing,
            audit::Stage::Indexes,
            audit::Stage::Growth,
            audit::Stage::Relationships,
            audit::Stage::Rules
        ]
    );
    drop(proxy);
    rt.block_on(async {
        let _ = client().await.database(&db).drop().await;
    });
}

/// Reference probes of one collection go out together: through a link
/// that delays every reply, eight probes take about one round trip, not
/// eight, and answer exactly what one at a time answers.
#[test]
fn probes_of_one_collection_go_out_together() {
    use docshape::source::{Documents, Probes};
    let _serial = serial();
    let Some(upstream) = upstream_of(&uri()) else {
        eprintln!("probes: the proxy cannot stand in for {}; skipped", uri());
        return;
    };
    let db = unique_db("probes");
    let rt = runtime();
    rt.block_on(async {
        let docs: Vec<Document> = (0..40).map(|i| doc! {"_id": i, "k": i % 5}).collect();
        client()
            .await
            .database(&db)
            .collection::<Document>("target")
            .insert_many(docs)
            .await
            .expect("insert");
    });
    let proxy = DelayProxy::start(&upstream, DELAY);
    let via = format!("mongodb://127.0.0.1:{}/?directConnection=true", proxy.port);
    let values: Vec<Vec<bson::Bson>> = (0..8)
        .map(|p| (0..10).map(|i| bson::Bson::Int32(p * 7 + i)).collect())
        .collect();
    let asks: Vec<(&str, &[bson::Bson])> = values
        .iter()
        .enumerate()
        .map(|(i, v)| (if i % 2 == 0 { "_id" } else { "k" }, v.as_slice()))
        .collect();
    let (one_by_one, together, serial_took, together_took) = rt.block_on(async {
        let mut src = MongoSource::connect(&via, Duration::from_secs(30))
            .await
            .expect("connect through the proxy");
        let meta = src
            .collections(&Selection {
                dbs: vec![db.clone()],
                collections: Vec::new(),
            })
            .await
            .expect("list")
            .into_iter()
            .find(|m| m.name == "target")
            .expect("the target collection");
        // Warm the pool: its connections' handshakes are not the probes'.
        let _ = src.probe_many(&meta, &asks).await.expect("probes");
        let start = Instant::now();
        let mut one_by_one = Vec::new();
        for (key, v) in &asks {
            one_by_one.push(src.probe(&meta, key, v).await.expect("probe"));
        }
        let serial_took = start.elapsed();
        let start = Instant::now();
        let together: Vec<Vec<bson::Bson>> = src
            .probe_many(&meta, &asks)
            .await
            .expect("probes")
            .into_iter()
            .map(|r| r.expect("probe"))
            .collect();
        (one_by_one, together, serial_took, start.elapsed())
    });
    drop(proxy);
    eprintln!(
        "probes: 8 through a 25 ms link, one at a time {:.0} ms, together {:.0} ms",
        serial_took.as_secs_f64() * 1e3,
        together_took.as_secs_f64() * 1e3
    );
    assert_eq!(together, one_by_one, "the same answers, in the order asked");
    assert!(together.iter().any(|a| !a.is_empty()) && together.iter().any(Vec::is_empty));
    assert!(serial_took >= DELAY * 8, "the link delays each reply");
    assert!(
        together_took <= DELAY * 4,
        "eight probes together took {together_took:?}, more than four round trips"
    );
    rt.block_on(async {
        let _ = client().await.database(&db).drop().await;
    });
}

/// A server lost in the middle of a run: with `keep_partial` (the
/// explorer) the collections read are reported, with a note, and nothing
/// else asks the server; without it (the CLI) the run fails as before.
#[test]
fn a_server_lost_mid_run_keeps_what_was_read() {
    let _serial = serial();
    let Some(upstream) = upstream_of(&uri()) else {
        eprintln!(
            "lost server: the proxy cannot stand in for {}; skipped",
            uri()
        );
        return;
    };
    let db = unique_db("lost");
    let rt = runtime();
    rt.block_on(async {
        let c = client().await;
        for i in 0..12u32 {
            c.database(&db)
                .collection::<Document>(&format!("c{i:02}"))
                .insert_many((0..5).map(small_doc).collect::<Vec<_>>())
                .await
                .expect("insert");
        }
    });
    let plan = {
        let mut plan = Plan::new(
            Selection {
                dbs: vec![db.clone()],
                collections: Vec::new(),
            },
            SampleMode::Sample(100),
        );
        plan.in_flight = Some(1);
        plan
    };
    for keep_partial in [true, false] {
        let mut link = Some(DelayProxy::start(&upstream, Duration::from_millis(5)));
        let via = format!(
            "mongodb://127.0.0.1:{}/?directConnection=true",
            link.as_ref().map_or(0, |l| l.port)
        );
        let result = rt.block_on(async {
            let mut src = MongoSource::connect(&via, Duration::from_secs(3))
                .await
                .expect("connect through the proxy");
            let mut arrivals = 0;
            let mut progress = |p: &audit::Progress<'_>| {
                if p.finished.is_some() {
                    arrivals += 1;
                    // The link goes down after the third collection.
                    if arrivals == 3 {
                        link.take();
                    }
                }
            };
            let control = audit::Control::new(&mut progress);
            let control = if keep_partial {
                control.keeping_partial()
            } else {
                control
            };
            audit::run_with(&mut src, &plan, control).await
        });
        if keep_partial {
            let report = result.expect("the collections read are reported");
            let n = report.collections.len();
            assert!((3..12).contains(&n), "{n} collections reported");
            assert!(
                report
                    .notes
                    .iter()
                    .any(|note| note.starts_with("the server went away after")),
                "{:?}",
                report.notes
            );
        } else {
            let e = result.expect_err("the CLI's run fails when the server goes");
            assert!(e.is_gone(), "{e}");
        }
    }
    rt.block_on(async {
        let _ = client().await.database(&db).drop().await;
    });
}

// ---------------------------------------------------------------------------
// The memory budget.
// ---------------------------------------------------------------------------

/// Writes `n` documents of about `pad` bytes each as a `.bson` file.
fn write_padded(path: &Path, n: u32, pad: usize) {
    let mut w = std::io::BufWriter::new(std::fs::File::create(path).expect("create"));
    let text = "p".repeat(pad);
    for i in 0..n {
        // Prices as numbers or text and dates as text: findings that must
        // survive the budget.
        let price = if i % 2 == 0 {
            bson::Bson::Double(f64::from(i) * 0.5 + 0.25)
        } else {
            bson::Bson::String(format!("{}.25", i / 2))
        };
        let d = doc! {
            "_id": i64::from(i),
            "title": format!("record {i}"),
            "price": price,
            "when": format!("2024-03-{:02}T10:00:00Z", 1 + i % 28),
            "tags": ["a", "b"],
            "body": &text,
        };
        let mut b = Vec::new();
        d.to_writer(&mut b).expect("serialise");
        w.write_all(&b).expect("write");
    }
    w.flush().expect("flush");
}

/// The findings of a report as (namespace, rule, path), sorted.
fn findings(report: &Value) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    for c in collections(report) {
        for f in c["findings"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default()
        {
            out.push((
                c["namespace"].as_str().unwrap_or("").to_owned(),
                f["rule"].as_str().unwrap_or("").to_owned(),
                f["path"].as_str().unwrap_or("").to_owned(),
            ));
        }
    }
    out.sort();
    out
}

/// 40 collections of 200 documents of 100 KB (800 MB) stay within the
/// default 256 MiB budget (818 MB peak when every kept sample lived whole
/// until the end), with the same findings as a run given room to keep
/// every document whole.
#[test]
fn forty_collections_of_large_documents_stay_within_the_budget() {
    let _serial = serial();
    if !Path::new("/proc/self/status").exists() {
        eprintln!("budget: needs /proc to read a child's peak RSS; skipped");
        return;
    }
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().join("big");
    std::fs::create_dir(&dir).expect("mkdir");
    for i in 0..40 {
        write_padded(&dir.join(format!("c{i:02}.bson")), 200, 100_000);
    }
    let dir = dir.to_str().expect("utf-8");
    let limit = Duration::from_secs(300);
    let (peak, took, report) = run_measuring(&["audit", dir, "--no-snapshot"], limit);
    let budget = report["memory_budget_bytes"].as_u64().expect("budget");
    assert_eq!(budget, 256 << 20);
    let stated = report["peak_memory_bytes"].as_u64().expect("peak stated");
    eprintln!(
        "budget: 40 x 200 x 100 KB: peak RSS {:.1} MiB (stated {:.1} MiB), {:.1} s",
        peak as f64 / 1024.0,
        stated as f64 / f64::from(1u32 << 20),
        took.as_secs_f64()
    );
    assert!(
        peak * 1024 <= budget,
        "peak RSS {peak} KiB over the {budget}-byte budget"
    );
    assert_eq!(collections(&report).len(), 40);
    for c in collections(&report) {
        assert_eq!(c["sampled"], 200);
    }
    // Given room for every document whole (the kept share is capped at
    // 64 MiB a collection, 327 KB a document here), the findings are the
    // same.
    let (roomy_peak, _, roomy) =
        run_measuring(&["audit", dir, "--no-snapshot", "--memory", "8192"], limit);
    eprintln!(
        "budget: the same with --memory 8192: peak RSS {:.1} MiB",
        roomy_peak as f64 / 1024.0
    );
    assert!(!findings(&report).is_empty(), "large documents are found");
    assert_eq!(findings(&report), findings(&roomy));
}

/// Writes `n` documents of some sixty paths (nested objects, an array of
/// sub-documents, a price as a number or as text, a date as text, a line
/// of `pad` bytes) as a `.bson` file.
fn write_wide(path: &Path, n: u32, pad: usize) {
    let mut w = std::io::BufWriter::new(std::fs::File::create(path).expect("create"));
    let text = "w".repeat(pad);
    for i in 0..n {
        let lines: Vec<Document> = (0..=(i % 4))
            .map(|k| doc! {"sku": format!("s{k}"), "qty": k, "price": f64::from(k) * 1.5, "note": &text[..pad / 8]})
            .collect();
        let mut d = doc! {
            "_id": i64::from(i),
            "name": format!("item {i}"),
            "when": format!("2024-03-{:02}T10:00:00Z", 1 + i % 28),
            "amount": if i % 2 == 0 { bson::Bson::Int32(i as i32) } else { bson::Bson::String(i.to_string()) },
            "owner": {"first": "a", "last": "b", "address": {"street": "s", "city": "c", "zip": "z", "geo": {"lat": 1.5, "lng": 2.5}}},
            "flags": {"a": true, "b": false, "c": i % 3 == 0, "d": bson::Bson::Null},
            "lines": lines,
            "tags": ["x", "y"],
            "body": &text,
        };
        // Switches, not keys: no reference is looked for in them.
        for k in 0..30 {
            d.insert(format!("switch_{k}"), (i + k) % 2 == 0);
        }
        let mut b = Vec::new();
        d.to_writer(&mut b).expect("serialise");
        w.write_all(&b).expect("write");
    }
    w.flush().expect("flush");
}

/// The per-collection figures of a report that do not depend on the kept
/// sample: each collection's namespace, counts and fields.
fn profiles(report: &Value) -> Vec<String> {
    collections(report)
        .iter()
        .map(|c| {
            format!(
                "{} {} {} {}",
                c["namespace"], c["sampled"], c["doc_size"], c["fields"]
            )
        })
        .collect()
}

/// A thousand collections (50 databases of 20) hold a budget of 48 MiB:
/// each keeps its share of half the budget in documents, and their
/// profiles wait compactly, the ones past the shelf's share (4.5 MiB
/// here) on disk. Before, each collection kept at least 64 KiB of
/// documents (62.5 MiB here) and its whole profile in memory until the
/// report was written. The profiles come back as they went: every
/// collection's fields are those of a run given room for all of them in
/// memory.
#[test]
fn a_thousand_collections_hold_a_small_budget() {
    let _serial = serial();
    if !Path::new("/proc/self/status").exists() {
        eprintln!("budget: needs /proc to read a child's peak RSS; skipped");
        return;
    }
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().join("many");
    for db in 0..50 {
        let d = dir.join(format!("db{db:03}"));
        std::fs::create_dir_all(&d).expect("mkdir");
        for c in 0..20 {
            write_wide(&d.join(format!("c{c:02}.bson")), 4, 6_000);
        }
    }
    let dir = dir.to_str().expect("utf-8");
    let limit = Duration::from_secs(600);
    let args = ["audit", dir, "--no-snapshot", "--memory", "48"];
    let (peak, took, report) = run_measuring(&args, limit);
    eprintln!(
        "budget: 1,000 x 4 x 6 KB at --memory 48: peak RSS {:.1} MiB, {:.1} s",
        peak as f64 / 1024.0,
        took.as_secs_f64()
    );
    assert_eq!(collections(&report).len(), 1000);
    let notes = report["notes"].to_string();
    assert!(
        notes.contains("waited on disk"),
        "profiles past the shelf's share go to disk: {notes}"
    );
    assert!(
        peak * 1024 <= 48 << 20,
        "peak RSS {peak} KiB over the 48 MiB budget; notes: {notes}"
    );
    let (roomy_peak, _, roomy) =
        run_measuring(&["audit", dir, "--no-snapshot", "--memory", "8192"], limit);
    eprintln!(
        "budget: the same with --memory 8192: peak RSS {:.1} MiB",
        roomy_peak as f64 / 1024.0
    );
    assert!(!roomy["notes"].to_string().contains("waited on disk"));
    assert_eq!(profiles(&report), profiles(&roomy));
}
