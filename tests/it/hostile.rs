//! Inputs that try to break docshape: malformed files, pathological
//! documents, servers that hang or die. Each must end in a clear message
//! (exit 2) or a complete result — never a panic, never a hang.

use crate::common;

use std::io::Write;
use std::net::TcpListener;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use bson::{doc, Bson, Document};
use common::{assert_fails_cleanly, docshape, json_ok};

fn write(dir: &std::path::Path, name: &str, bytes: &[u8]) -> String {
    let p = dir.join(name);
    std::fs::write(&p, bytes).expect("write");
    p.to_str().expect("utf-8").to_owned()
}

fn bson_bytes(d: &Document) -> Vec<u8> {
    let mut v = Vec::new();
    d.to_writer(&mut v).expect("serialise");
    v
}

#[test]
fn malformed_files_fail_with_one_sentence() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let d = tmp.path();
    let good = bson_bytes(&doc! {"a": 1});
    let mut wrong_len = good.clone();
    wrong_len[0] = 200;
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("truncated.json", b"{\"a\": 1}\n{\"a\": [1, 2".to_vec()),
        ("notjson.json", b"hello world".to_vec()),
        ("utf8.json", b"{\"a\": \"\xff\xfe\"}".to_vec()),
        ("scalar.json", b"[1, 2, 3]".to_vec()),
        ("badlen.bson", wrong_len),
        ("garbage.bson", b"\x01\x02\x03".to_vec()),
        (
            "deep.json",
            format!("{}1{}", "{\"a\":".repeat(200), "}".repeat(200)).into_bytes(),
        ),
    ];
    for (name, bytes) in cases {
        let path = write(d, name, &bytes);
        let out = docshape(&["audit", &path, "--no-snapshot"]);
        let line = assert_fails_cleanly(&out, name);
        assert!(
            line.contains(name),
            "{name}: the message names the file: {line}"
        );
    }
    // An empty file is an empty collection, not an error.
    let path = write(d, "empty.json", b"");
    let r = json_ok(&docshape(&[
        "audit",
        &path,
        "--format",
        "json",
        "--no-snapshot",
    ]));
    assert_eq!(common::collections(&r)[0]["sampled"], 0);
}

#[test]
fn pathological_documents_are_profiled_within_bounds() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let d = tmp.path();
    let mut bytes = Vec::new();
    // An array of 1,000,000 elements.
    bytes.extend(bson_bytes(
        &doc! {"big": (0..1_000_000).collect::<Vec<i32>>()},
    ));
    // Nested 99 levels (the server's own limit is 100).
    let mut deep = doc! {"leaf": 1};
    for _ in 0..98 {
        deep = doc! {"n": deep};
    }
    bytes.extend(bson_bytes(&deep));
    // Nearly 16 MB.
    bytes.extend(bson_bytes(&doc! {"blob": Bson::Binary(bson::Binary { subtype: bson::spec::BinarySubtype::Generic, bytes: vec![7; 16_000_000] })}));
    // Names that are empty, dotted, $-prefixed, 10,000 characters long,
    // control characters, right-to-left text, wide CJK.
    let long = "x".repeat(10_000);
    bytes.extend(bson_bytes(&doc! {"": 1, "a.b": 2, "$x": 3, long.as_str(): 4, "bell\u{7}\u{1b}[31m": 5, "\u{202e}evil": 6, "名字": "值"}));
    // 100,000 fields in one document, last: it fills the path cap.
    let mut wide = Document::new();
    for i in 0..100_000 {
        wide.insert(format!("f{i}"), i);
    }
    bytes.extend(bson_bytes(&wide));
    let path = write(d, "hostile.bson", &bytes);
    let start = Instant::now();
    let out = docshape(&[
        "audit",
        &path,
        "--format",
        "json",
        "--no-snapshot",
        "--fail-on",
        "never",
    ]);
    let r = json_ok(&out);
    assert!(start.elapsed() < Duration::from_secs(60));
    let c = &common::collections(&r)[0];
    assert_eq!(c["sampled"], 5);
    assert_eq!(
        c["paths_capped"], true,
        "100,000 paths exceed the cap and the report says so"
    );
    assert!(c["notes"]
        .as_array()
        .expect("notes")
        .iter()
        .any(|n| n.as_str().is_some_and(|s| s.contains("distinct paths"))));
    assert_eq!(c["max_depth"], 99);
    assert!(c["doc_size"]["max"].as_u64().expect("max") > 16_000_000);
    let big = common::field(c, "big");
    assert_eq!(big["array"]["max"], 1_000_000);

    // The text report shows hostile names escaped, never raw control codes.
    let text = common::stdout(&docshape(&[
        "audit",
        &path,
        "--no-snapshot",
        "--fail-on",
        "never",
    ]));
    assert!(
        !text.contains('\u{1b}'),
        "no raw escape sequences reach the terminal"
    );
    assert!(!text.contains('\u{202e}'));
    assert!(text.contains("\\u{1b}"), "escaped visibly");
}

#[test]
fn an_eighty_megabyte_line_is_read() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let p = tmp.path().join("long.json");
    let mut f = std::fs::File::create(&p).expect("create");
    write!(f, "{{\"s\": \"").expect("write");
    let chunk = "a".repeat(1 << 20);
    for _ in 0..80 {
        f.write_all(chunk.as_bytes()).expect("write");
    }
    writeln!(f, "\"}}").expect("write");
    drop(f);
    let r = json_ok(&docshape(&[
        "audit",
        p.to_str().expect("utf-8"),
        "--format",
        "json",
        "--no-snapshot",
        "--fail-on",
        "never",
    ]));
    let c = &common::collections(&r)[0];
    assert_eq!(c["sampled"], 1);
}

#[test]
fn a_server_that_never_answers_is_cut_off_by_the_timeout() {
    // Accepts connections and never says a word.
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let hold = std::thread::spawn(move || {
        let mut held = Vec::new();
        for s in listener.incoming().take(16).flatten() {
            held.push(s);
        }
        std::thread::sleep(Duration::from_secs(30));
    });
    let uri = format!("mongodb://127.0.0.1:{port}/?connectTimeoutMS=60000");
    let start = Instant::now();
    let out = docshape(&["audit", &uri, "--timeout", "2", "--no-snapshot"]);
    let took = start.elapsed();
    assert_fails_cleanly(&out, "silent server");
    assert!(took < Duration::from_secs(8), "took {took:?}");
    drop(hold);
}

#[test]
fn a_refused_port_or_unknown_host_is_reported_at_once() {
    // A port nothing listens on: bind one, note it, let it go.
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port");
    for (uri, why) in [
        (format!("mongodb://127.0.0.1:{port}"), "refused"),
        (
            "mongodb://no-such-host.invalid:27017".to_owned(),
            "unknown host",
        ),
    ] {
        let start = Instant::now();
        // --timeout is far longer than the answer may take.
        let out = docshape(&["audit", &uri, "--timeout", "30", "--no-snapshot"]);
        let took = start.elapsed();
        assert_fails_cleanly(&out, why);
        assert!(took < Duration::from_secs(2), "{why}: took {took:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("cannot reach"), "{why}: {err}");
    }
}

#[test]
fn malformed_connection_strings_are_refused() {
    for uri in [
        "mongodb://",
        "mongodb://host:notaport",
        "mongodb://a:b:c@/x",
        "mongodb+srv://",
    ] {
        let out = docshape(&["audit", uri, "--timeout", "2", "--no-snapshot"]);
        assert_fails_cleanly(&out, uri);
    }
}

/// Starts a private server (not the shared one), loads it, starts a full
/// read, kills the server in the middle: docshape must stop with exit 2
/// and a message, quickly.
#[test]
fn a_server_dying_mid_read_ends_in_a_clear_error() {
    if std::env::var("MONGODB_URI").is_ok_and(|u| !u.is_empty()) {
        // Against an external server there is nothing of ours to kill;
        // the secantusd run of this suite covers it.
        return;
    }
    let server = common::PrivateServer::start(std::path::Path::new(":memory:"), &[]);
    let uri = server.uri();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let deadline = Instant::now() + Duration::from_secs(30);
        let client = loop {
            if let Ok(c) = mongodb::Client::with_uri_str(&uri).await {
                if c.database("admin")
                    .run_command(doc! {"ping": 1})
                    .await
                    .is_ok()
                {
                    break c;
                }
            }
            assert!(Instant::now() < deadline, "private server did not start");
            tokio::time::sleep(Duration::from_millis(200)).await;
        };
        let coll = client.database("dying").collection::<Document>("c");
        let docs: Vec<Document> = (0..40_000)
            .map(|i| doc! {"_id": i, "payload": "x".repeat(200), "n": i})
            .collect();
        for chunk in docs.chunks(5000) {
            coll.insert_many(chunk).await.expect("insert");
        }
    });
    let child = Command::new(common::docshape_bin())
        .args(["audit", &uri, "--full", "--timeout", "5", "--no-snapshot"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run docshape");
    std::thread::sleep(Duration::from_millis(700));
    server.stop();
    let start = Instant::now();
    let out = child.wait_with_output().expect("wait");
    assert!(
        start.elapsed() < Duration::from_secs(20),
        "docshape hung after the server died"
    );
    if out.status.success() {
        // It may have finished reading before the kill landed.
        return;
    }
    assert_fails_cleanly(&out, "server killed mid-read");
}
