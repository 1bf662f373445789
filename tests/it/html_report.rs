//! `audit --format html`: the page agrees with the JSON report of the same
//! data, opens in a real browser (Debian's headless `chromium`, which
//! scripts/test.sh installs) with its charts and findings and without a
//! network request, escapes hostile names, and stays small for 100
//! collections.

use crate::common;

use std::fmt::Write as _;
use std::io::Read as _;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::{docshape, repo};
use docshape::fmt::{bytes, group, percent};
use docshape::report::html::esc;

/// Runs `docshape audit TARGET --format FORMAT` with `extra`, the report
/// written to `out` with `-o`.
fn audit_to(target: &Path, format: &str, out: &Path, extra: &[&str]) {
    let mut args = vec![
        "audit",
        target.to_str().expect("utf-8"),
        "--format",
        format,
        "--no-snapshot",
        "--fail-on",
        "never",
        "-o",
        out.to_str().expect("utf-8"),
    ];
    args.extend_from_slice(extra);
    let o = docshape(&args);
    assert!(
        o.status.success(),
        "audit --format {format} failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(o.stdout.is_empty(), "-o FILE writes nothing to stdout");
}

/// The part of `html` from `start` to the first `end` after it.
fn between<'a>(html: &'a str, start: &str, end: &str) -> Option<&'a str> {
    let i = html.find(start)?;
    let j = html[i..].find(end)? + i;
    Some(&html[i..j])
}

/// A collection's section of the page.
fn section<'a>(html: &'a str, ns: &str) -> &'a str {
    between(html, &format!("data-ns=\"{}\"", esc(ns)), "</section>")
        .unwrap_or_else(|| panic!("no section for {ns}"))
}

/// Severity rank of the summary's rows, worst first.
fn rank(s: &str) -> u8 {
    match s {
        "critical" => 0,
        "warning" => 1,
        "info" => 2,
        other => panic!("unknown severity {other}"),
    }
}

/// Every value of attribute `attr` in `html`, in order.
fn attrs<'a>(html: &'a str, attr: &str) -> Vec<&'a str> {
    let pat = format!("{attr}=\"");
    html.match_indices(&pat)
        .filter_map(|(i, _)| {
            let from = i + pat.len();
            html[from..].find('"').map(|j| &html[from..from + j])
        })
        .collect()
}

#[test]
fn html_report_of_the_sample_data_agrees_with_json_and_renders_offline_in_chromium() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let data = repo().join("sample-data");
    let page = tmp.path().join("report.html");
    let json_file = tmp.path().join("report.json");
    audit_to(&data, "html", &page, &[]);
    audit_to(&data, "json", &json_file, &[]);
    let html = std::fs::read_to_string(&page).expect("read the page");
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&json_file).expect("read")).expect("JSON report");
    assert!(
        html.len() < 2 << 20,
        "sample-data page is {} bytes",
        html.len()
    );
    assert_self_contained(&html);
    for part in [
        "@media (prefers-color-scheme:dark)",
        "@media print",
        "<a class=\"skip\" href=\"#findings\">",
        ":focus-visible",
    ] {
        assert!(
            html.contains(part),
            "light and dark, print, keyboard: {part}"
        );
    }

    // The numbers are the JSON report's, formatted as docshape formats them.
    let collections = json["collections"].as_array().expect("collections");
    let mut with_arrays = 0;
    for c in collections {
        let ns = c["namespace"].as_str().expect("namespace");
        let s = section(&html, ns);
        let docs = c["documents"].as_u64().map_or("?".to_owned(), group);
        assert!(
            s.contains(&format!("<b class=\"documents\">{docs}</b>")),
            "{ns}: documents"
        );
        let sampled = group(c["sampled"].as_u64().expect("sampled"));
        assert!(
            s.contains(&format!("<b class=\"sampled\">{sampled}</b>")),
            "{ns}: sampled"
        );
        let size = &c["doc_size"];
        let sizes = format!(
            "{} / {} / {} / {}",
            bytes(size["min"].as_f64().expect("min")),
            bytes(size["avg"].as_f64().expect("avg")),
            bytes(size["p95"].as_f64().expect("p95")),
            bytes(size["max"].as_f64().expect("max"))
        );
        assert!(s.contains(&sizes), "{ns}: sizes {sizes}");
        let fields = c["fields"].as_array().expect("fields");
        for f in fields.iter().take(200) {
            let path = f["path"].as_str().expect("path");
            let row = between(s, &format!("<tr data-path=\"{}\">", esc(path)), "</tr>")
                .unwrap_or_else(|| panic!("{ns}: no row for {path}"));
            let presence = percent(f["presence"].as_f64().expect("presence"));
            assert!(
                row.contains(&format!("<span class=\"presence\">{presence}</span>")),
                "{ns}.{path}: presence {presence} in {row}"
            );
            let b = bytes(f["bytes_avg"].as_f64().expect("bytes_avg"));
            assert!(
                row.ends_with(&format!("{b}</td>")),
                "{ns}.{path}: bytes {b} in {row}"
            );
        }
        let has_arrays = fields.iter().any(|f| f.get("array").is_some());
        with_arrays += usize::from(has_arrays);
        assert_eq!(
            s.contains("class=\"chart lengths\"") && s.contains("<svg class=\"hist\""),
            has_arrays,
            "{ns}: an array-length histogram exactly when the collection has arrays"
        );
        assert!(
            s.contains("class=\"chart sizes\""),
            "{ns}: a size histogram"
        );
    }
    assert!(with_arrays > 5, "sample-data has collections with arrays");
    let findings: Vec<&serde_json::Value> = collections
        .iter()
        .flat_map(|c| c["findings"].as_array().expect("findings"))
        .chain(json["findings"].as_array().expect("findings"))
        .collect();
    for sev in ["critical", "warning", "info"] {
        let n = findings.iter().filter(|f| f["severity"] == sev).count();
        assert!(
            html.contains(&format!(
                "data-severity=\"{sev}\"><b>{}</b>",
                group(n as u64)
            )),
            "{sev} count {n}"
        );
    }
    let scripts = findings
        .iter()
        .filter(|f| {
            f["suggestion"]["migration"]
                .as_str()
                .is_some_and(|m| !m.is_empty())
        })
        .count();
    assert!(json["relationships"]
        .as_array()
        .is_some_and(|r| !r.is_empty()));

    // In the browser: the script ran, the findings, charts, diagram and
    // copy buttons are in the page, and no request left it.
    let proxy = Proxy::start();
    let dom = chromium_dom(&page, &proxy);
    assert!(
        dom.contains("data-ready=\"1\""),
        "the page's script ran: {}",
        &dom[..dom.len().min(300)]
    );
    let summary =
        between(&dom, "<section id=\"findings\"", "</section>").expect("findings section");
    let order: Vec<u8> = attrs(summary, "data-severity")
        .into_iter()
        .skip(3) // the counts
        .map(rank)
        .collect();
    assert_eq!(order.len(), findings.len(), "a summary row per finding");
    assert!(
        order.windows(2).all(|w| w[0] <= w[1]),
        "summary worst first: {order:?}"
    );
    let findings_at = dom.find("id=\"findings\"").expect("findings");
    let relations_at = dom.find("id=\"relationships\"").expect("relationships");
    let first_collection = dom.find("<section class=\"coll\"").expect("a collection");
    assert!(findings_at < relations_at && relations_at < first_collection);
    assert_eq!(
        dom.matches("<details class=\"finding").count(),
        findings.len(),
        "every finding in full"
    );
    assert_eq!(
        dom.matches("data-copy=\"").count(),
        scripts,
        "a copy button per script"
    );
    assert_eq!(
        dom.matches("<section class=\"coll\"").count(),
        collections.len()
    );
    assert!(dom.matches("<svg class=\"hist\"").count() >= collections.len() + with_arrays);
    assert!(dom.contains("<svg class=\"growth\""), "a growth chart");
    let diagram = between(&dom, "<svg class=\"diagram\"", "</svg>").expect("relationship diagram");
    assert!(
        diagram.matches("<g class=\"n\">").count() >= 2,
        "diagram boxes"
    );
    assert!(diagram.contains("marker-end"), "diagram arrows");

    // A screenshot: a real picture, not an empty page.
    let png = tmp.path().join("report.png");
    chromium(
        &[
            &format!("--screenshot={}", png.display()),
            "--window-size=1280,2000",
            "--hide-scrollbars",
        ],
        &page,
        &proxy,
    );
    let shot = std::fs::read(&png).expect("the screenshot");
    assert!(shot.len() > 30_000, "screenshot of {} bytes", shot.len());
    let (colours, ink) = png_colours(&shot);
    assert!(
        colours > 20 && ink > 0.02,
        "the screenshot shows something: {colours} colours, {:.1} % ink",
        ink * 100.0
    );
    let requests = proxy.requests();
    assert!(
        requests.is_empty(),
        "the page made network requests: {requests:?}"
    );
}

/// Nothing in the page would be fetched: no external `src`/`href`, no
/// `url()` or `@import`, and the policy forbids anything but inline parts.
fn assert_self_contained(html: &str) {
    for attr in ["src", "href", "xlink:href", "action", "data", "poster"] {
        for v in attrs(html, &format!(" {attr}")) {
            assert!(
                v.starts_with('#') || v.starts_with("data:"),
                "{attr}=\"{v}\" would be fetched"
            );
        }
    }
    for bad in ["url(http", "url(//", "@import", "http://", "https://"] {
        assert!(!html.contains(bad), "the page names {bad}");
    }
    assert!(html.contains(&format!(
        "<meta http-equiv=\"Content-Security-Policy\" content=\"{}\">",
        docshape::report::html::CSP
    )));
}

#[test]
fn html_report_escapes_hostile_names_and_speaks_chinese() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let db = tmp.path().join("shop");
    std::fs::create_dir(&db).expect("mkdir");
    let coll = "<img src=x onerror=alert(1)>\"'";
    let long = "x".repeat(5000);
    let mut text = String::new();
    for i in 0..60 {
        let doc = serde_json::json!({
            "_id": i,
            "</script><script>document.documentElement.dataset.pwned=1</script>": i,
            "a\u{1}b\"c'd<e>&f": if i % 3 == 0 { serde_json::json!("s") } else { serde_json::json!(i) },
            long.clone(): [1, 2, 3],
            "\u{202e}evil": {"<b>": "</details></section>"},
        });
        let _ = writeln!(text, "{doc}");
    }
    std::fs::write(db.join(format!("{coll}.json")), text).expect("write");
    for lang in ["en", "zh"] {
        let page = tmp.path().join(format!("{lang}.html"));
        audit_to(&db, "html", &page, &["--lang", lang]);
        let html = std::fs::read_to_string(&page).expect("read");
        assert_eq!(
            html.matches("<script").count(),
            1,
            "only the page's own script"
        );
        assert!(!html.contains("<img"), "no injected element");
        assert!(!html.contains("<b>\""), "no injected element");
        assert!(!html.contains('\u{1}') && !html.contains('\u{202e}'));
        assert_eq!(
            html.matches("onerror=alert").count(),
            html.matches("&lt;img src=x onerror=alert").count(),
            "the name only as escaped text, never an attribute"
        );
        assert!(html.contains(&esc(coll)), "the collection's name, escaped");
        assert!(
            html.contains("&lt;/script&gt;"),
            "the field's name, escaped"
        );
        assert!(
            html.contains("class=\"chart lengths\""),
            "the long path's histogram"
        );
        assert_eq!(
            html.matches("<section class=\"coll\"").count(),
            html.matches("</section>").count() - 1,
            "sections balanced (the findings section besides)"
        );
        assert_self_contained(&html);
        if lang == "zh" {
            assert!(html.contains("<html lang=\"zh\">") && html.contains("按严重程度列出的问题"));
            assert!(html.contains("字段") && html.contains("文档大小"));
        } else {
            assert!(html.contains("Findings by severity"));
        }
    }
}

#[test]
fn html_report_of_100_collections_is_under_2_mb() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let db = tmp.path().join("app");
    std::fs::create_dir(&db).expect("mkdir");
    for c in 0..100 {
        let mut text = String::new();
        for i in 0..120u32 {
            let tags: Vec<u32> = (0..(i % 17)).collect();
            let amount = if c % 4 == 0 && i % 5 == 0 {
                serde_json::json!(format!("{i}.50"))
            } else {
                serde_json::json!(f64::from(i) + 0.5)
            };
            let mut doc = serde_json::json!({
                "_id": i,
                "name": format!("item {i}"),
                "amount": amount,
                "tags": tags,
                "address": {"street": format!("{i} Main St"), "city": "Springfield", "zip": format!("{:05}", i)},
                "lines": [{"sku": format!("s{i}"), "qty": i % 7}],
                "created": {"$date": format!("2024-01-{:02}T00:00:00Z", 1 + i % 28)},
            });
            if c > 0 && i % 2 == 0 {
                doc["parent_id"] = serde_json::json!(i % 120);
            }
            let _ = writeln!(text, "{doc}");
        }
        std::fs::write(db.join(format!("coll_{c:03}.json")), text).expect("write");
    }
    let page = tmp.path().join("report.html");
    let started = Instant::now();
    audit_to(&db, "html", &page, &[]);
    let html = std::fs::read_to_string(&page).expect("read");
    eprintln!(
        "100 collections: {} bytes of HTML in {:?}",
        html.len(),
        started.elapsed()
    );
    assert_eq!(html.matches("<section class=\"coll\"").count(), 100);
    assert!(html.contains("<details class=\"finding"), "findings");
    assert!(
        html.matches("<svg class=\"growth\"").count() >= 100,
        "growth charts"
    );
    assert!(html.len() < 2 * 1024 * 1024, "{} bytes", html.len());
    assert!(html.ends_with("</html>\n"), "the page is complete");
}

/// A listener standing in for an HTTP proxy: every connection chromium
/// makes through it is recorded with its request line. Chromium's own
/// background services (its updater, sign-in and clock) are left out:
/// they are the browser's, not the page's.
struct Proxy {
    port: u16,
    seen: Arc<Mutex<Vec<String>>>,
    stop: Arc<AtomicBool>,
}

/// Hosts chromium itself calls whatever the page (flags do not silence
/// them all).
const BROWSER_HOSTS: [&str; 6] = [
    "update.googleapis.com",
    "accounts.google.com",
    "clients2.google.com",
    "redirector.gvt1.com",
    "edgedl.me.gvt1.com",
    "clientservices.googleapis.com",
];

impl Proxy {
    fn start() -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind a proxy port");
        listener.set_nonblocking(true).expect("non-blocking");
        let port = listener.local_addr().expect("address").port();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let (s, st) = (seen.clone(), stop.clone());
        std::thread::spawn(move || {
            while !st.load(Ordering::Relaxed) {
                match listener.accept() {
                    Ok((mut conn, _)) => {
                        let _ = conn.set_nonblocking(false);
                        let _ = conn.set_read_timeout(Some(Duration::from_millis(500)));
                        let mut buf = [0u8; 512];
                        let n = conn.read(&mut buf).unwrap_or(0);
                        let line = String::from_utf8_lossy(&buf[..n])
                            .lines()
                            .next()
                            .unwrap_or("(no request line)")
                            .to_owned();
                        s.lock().expect("lock").push(line);
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(20)),
                }
            }
        });
        Proxy { port, seen, stop }
    }

    /// The requests that were not chromium's own.
    fn requests(&self) -> Vec<String> {
        let seen = self.seen.lock().expect("lock").clone();
        seen.into_iter()
            .filter(|line| {
                let target = line.split_whitespace().nth(1).unwrap_or("");
                let host = target
                    .trim_start_matches("http://")
                    .trim_start_matches("https://")
                    .split(['/', ':'])
                    .next()
                    .unwrap_or("");
                !BROWSER_HOSTS.contains(&host)
            })
            .collect()
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// A chromium process, killed with its children when dropped.
struct Browser(std::process::Child);

impl Drop for Browser {
    fn drop(&mut self) {
        if let Ok(None) = self.0.try_wait() {
            let _ = Command::new("kill")
                .args(["-KILL", "--", &format!("-{}", self.0.id())])
                .status();
            let _ = self.0.kill();
        }
        let _ = self.0.wait();
    }
}

fn chromium_bin() -> PathBuf {
    for p in ["/usr/bin/chromium", "/usr/bin/chromium-browser"] {
        if Path::new(p).exists() {
            return PathBuf::from(p);
        }
    }
    panic!("chromium is not installed (scripts/test.sh installs it: apt-get install chromium)");
}

/// Runs headless chromium on `page` with `args`, through `proxy`, with a
/// fresh profile and a time limit; returns its standard output.
fn chromium(args: &[&str], page: &Path, proxy: &Proxy) -> String {
    use std::os::unix::process::CommandExt;
    let profile = tempfile::tempdir().expect("a chromium profile");
    let out_file = profile.path().join("stdout");
    let mut cmd = Command::new(chromium_bin());
    cmd.args([
        "--headless",
        "--disable-gpu",
        "--no-first-run",
        "--no-default-browser-check",
        "--disable-extensions",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-default-apps",
        "--disable-breakpad",
        "--disable-dev-shm-usage",
        "--metrics-recording-only",
    ])
    .arg(format!("--user-data-dir={}", profile.path().display()))
    .arg(format!("--proxy-server=127.0.0.1:{}", proxy.port))
    .arg("--proxy-bypass-list=<-loopback>")
    .args(args);
    // Chromium's sandbox does not run as root.
    let root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.starts_with(b"0"));
    if root {
        cmd.arg("--no-sandbox");
    }
    cmd.arg(format!("file://{}", page.display()))
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out_file).expect("stdout file"))
        .stderr(Stdio::null())
        .process_group(0);
    let mut browser = Browser(cmd.spawn().expect("start chromium"));
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        match browser.0.try_wait().expect("wait for chromium") {
            Some(status) => {
                assert!(status.success(), "chromium failed: {status}");
                break;
            }
            None if Instant::now() > deadline => panic!("chromium did not finish in 60 s"),
            None => std::thread::sleep(Duration::from_millis(50)),
        }
    }
    drop(browser);
    std::fs::read_to_string(out_file).expect("chromium's output")
}

/// The page's DOM after its script ran.
fn chromium_dom(page: &Path, proxy: &Proxy) -> String {
    chromium(&["--virtual-time-budget=3000", "--dump-dom"], page, proxy)
}

/// The distinct colours of an 8-bit RGB or RGBA PNG, and the share of its
/// pixels that differ from the most common one (the background).
fn png_colours(png: &[u8]) -> (usize, f64) {
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "a PNG");
    let (mut pos, mut idat) = (8, Vec::new());
    let (mut width, mut height, mut channels) = (0usize, 0usize, 0usize);
    while pos + 8 <= png.len() {
        let len = u32::from_be_bytes(png[pos..pos + 4].try_into().expect("len")) as usize;
        let kind = &png[pos + 4..pos + 8];
        let body = &png[pos + 8..pos + 8 + len];
        match kind {
            b"IHDR" => {
                width = u32::from_be_bytes(body[0..4].try_into().expect("w")) as usize;
                height = u32::from_be_bytes(body[4..8].try_into().expect("h")) as usize;
                assert_eq!(body[8], 8, "8-bit");
                channels = match body[9] {
                    2 => 3,
                    6 => 4,
                    t => panic!("colour type {t}"),
                };
            }
            b"IDAT" => idat.extend_from_slice(body),
            _ => {}
        }
        pos += 12 + len;
    }
    let mut raw = Vec::new();
    flate2::read::ZlibDecoder::new(&idat[..])
        .read_to_end(&mut raw)
        .expect("inflate");
    let stride = width * channels;
    let mut prev = vec![0u8; stride];
    let mut counts = std::collections::HashMap::new();
    for y in 0..height {
        let row = &raw[y * (stride + 1)..(y + 1) * (stride + 1)];
        let mut cur = row[1..].to_vec();
        for i in 0..stride {
            let a = if i >= channels { cur[i - channels] } else { 0 };
            let b = prev[i];
            let c = if i >= channels { prev[i - channels] } else { 0 };
            cur[i] = cur[i].wrapping_add(match row[0] {
                0 => 0,
                1 => a,
                2 => b,
                3 => u8::midpoint(a, b),
                4 => {
                    let p = i16::from(a) + i16::from(b) - i16::from(c);
                    let (pa, pb, pc) = (
                        (p - i16::from(a)).abs(),
                        (p - i16::from(b)).abs(),
                        (p - i16::from(c)).abs(),
                    );
                    if pa <= pb && pa <= pc {
                        a
                    } else if pb <= pc {
                        b
                    } else {
                        c
                    }
                }
                f => panic!("filter {f}"),
            });
        }
        for px in cur.chunks(channels) {
            *counts.entry(px[..3].to_vec()).or_insert(0usize) += 1;
        }
        prev = cur;
    }
    let total: usize = counts.values().sum();
    let background = counts.values().copied().max().unwrap_or(0);
    (
        counts.len(),
        (total - background) as f64 / total.max(1) as f64,
    )
}
