//! Throughput and memory benchmark of the profiler.
//!
//! Generates three deterministic collections (nested "orders", flat "logs",
//! polymorphic "events"), keeps them in memory and writes them as
//! concatenated BSON and as relaxed Extended JSON, then measures the median
//! of several runs of:
//!
//! * a recursive walk touching every element, written here so that no crate
//!   upgrade moves it (the floor), and the same with `bson::RawDocument`,
//! * `Profiler::add` over the in-memory documents, then `finish`,
//! * `read_bson` over the `.bson` file feeding the profiler,
//! * the Extended JSON reader over the `.json` file feeding the profiler,
//! * the sharded profiler on every core,
//! * the release binary's whole `audit --full` of each file.
//!
//! Peak memory is measured in child processes (this binary re-executed with
//! `--child-profile-file PATH` or `--child-audit-file PATH`) for files of N
//! and 4N documents per collection.
//!
//! `--scale` measures, with the release binary, and prints a table each:
//!
//! * (a) peak RSS of `audit DIR` over many collections (`--collections N`,
//!   default 1,000) of 10 documents of ~100 KB each (a long text and
//!   nested revisions), with the default memory budget and `--memory 64`,
//!   against the budget;
//! * (b) peak RSS of `audit URI -c DB.COLL --full` of a server collection of
//!   N and 4N small (~100 B) documents (`--server-docs N`, default 100,000)
//!   and their ratio, with the time the server took to load them;
//! * (c) the whole `audit --full` of each data set's `.bson` and Extended
//!   JSON file (`--docs N` each, default 100,000; `--runs R`, default 5) with
//!   `DOCSHAPE_THREADS=1` and `=2`, interleaved, as the ratio one / two;
//! * (d) `audit URI --db DB` of many small collections (`--link-collections
//!   N`, default 120) through a link that holds every reply 25 ms
//!   (`tests/it/common/proxy.rs`), against the bound `tests/it/inflight.rs`
//!   holds, `--concurrency 1` through the same link, and without it.
//!
//! The server is `$MONGODB_URI`, or a SecantusDB started from the project's
//! `.venv` on a free port; `--no-server` leaves out (b) and (d).
//!
//! Usage: `cargo bench --bench profile [-- --docs N] [--runs R] [--keep-files]`
//! (`--docs` is per collection; the default is 200,000 of each);
//! `cargo bench --bench profile -- --docs N --write-data DIR` writes the data
//! sets as `.bson` and `.json` and measures nothing;
//! `cargo bench --bench profile -- --columns MB` decodes that many megabytes
//! of BSON columns (compressed time-series buckets) and prints the
//! decoder's throughput;
//! `cargo bench --bench profile -- --scale [--collections N] [--server-docs N]
//! [--docs N] [--runs R] [--link-collections N] [--no-server] [--keep-files]`
//! runs the scale tables; `-- --check` is the regression check CI runs
//! (ratios measured in the same run against `benches/baseline.txt`: each
//! stage's throughput to the raw-walk floor, two threads to one for the
//! profiler, the Extended JSON reader and the whole `audit --full`, and the
//! memory budget to the peak RSS of an audit of many collections).

use std::fmt::Write as _;
use std::fs::File;
use std::hint::black_box;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

#[path = "../tests/it/common/proxy.rs"]
mod proxy;

#[path = "../tests/it/support/column_encoder.rs"]
mod column_encoder;

use bson::{doc, oid::ObjectId, Bson, DateTime, Decimal128, Document, RawBsonRef, RawDocument};
use docshape::profile::{raw, Profile, Profiler, ShardedProfiler, DEFAULT_MAX_PATHS};
use docshape::source::files::file::read_bson;

const DEFAULT_DOCS: u64 = 200_000;
const DEFAULT_RUNS: usize = 3;
const CHILD_FLAG: &str = "--child-profile-file";
/// Child mode running the whole `audit --full` (library call, JSON report
/// rendered) on each file, to measure its peak memory.
const CHILD_AUDIT_FLAG: &str = "--child-audit-file";
const CHILD_MARK: &str = "DOCSHAPE_BENCH_CHILD";
/// 2023-11-14T22:13:20Z: where generated timestamps start.
const BASE_SECS: u64 = 1_700_000_000;

// ---------------------------------------------------------------------------
// Deterministic generator
// ---------------------------------------------------------------------------

/// xorshift64* with a fixed seed: the same data on every run and machine.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed | 1)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// Uniform in `lo..=hi`.
    fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi - lo + 1)
    }

    /// True with probability `pct` %.
    fn chance(&mut self, pct: u64) -> bool {
        self.below(100) < pct
    }

    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.below(xs.len() as u64) as usize]
    }

    /// A price-like double with two decimals in `lo..hi`.
    fn money(&mut self, lo: u64, hi: u64) -> f64 {
        let cents = self.range(lo * 100, hi * 100);
        cents as f64 / 100.0
    }
}

const FIRST: &[&str] = &[
    "Anna", "Ben", "Chloé", "David", "Elena", "Farid", "Greta", "Hiro", "Ines", "Jonas", "Kemal",
    "Lucía", "Marek", "Nadia", "Olu", "Priya", "Quentin", "Rosa", "Sven", "Tomás", "Ulla", "Wei",
];
const LAST: &[&str] = &[
    "Andersen",
    "Becker",
    "Costa",
    "Dubois",
    "Eriksen",
    "Fischer",
    "García",
    "Hansen",
    "Ito",
    "Jovanović",
    "Kowalski",
    "Lefèvre",
    "Müller",
    "Novak",
    "Okafor",
    "Petrov",
    "Rossi",
    "Schmidt",
    "Tanaka",
    "Van Dijk",
];
const DOMAINS: &[&str] = &[
    "example.com",
    "mail.test",
    "corp.example.org",
    "inbox.example",
];
const TIERS: &[&str] = &[
    "standard", "standard", "standard", "silver", "gold", "platinum",
];
const STREETS: &[&str] = &[
    "Main", "Oak", "Station", "Church", "Mill", "Harbour", "Linden", "Rose", "King", "Elm",
];
const STREET_KINDS: &[&str] = &["Street", "Road", "Avenue", "Lane", "Way", "Square"];
const CITIES: &[&str] = &[
    "Amsterdam",
    "Berlin",
    "Copenhagen",
    "Dublin",
    "Edinburgh",
    "Florence",
    "Gothenburg",
    "Hamburg",
    "Istanbul",
    "Lisbon",
    "Madrid",
    "Oslo",
    "Paris",
    "Vienna",
    "Zürich",
];
const COUNTRIES: &[&str] = &[
    "NL", "DE", "DK", "IE", "GB", "IT", "SE", "TR", "PT", "ES", "FR",
];
const STATUS: &[&str] = &[
    "pending",
    "paid",
    "paid",
    "shipped",
    "shipped",
    "delivered",
    "delivered",
    "delivered",
    "cancelled",
    "returned",
];
const CURRENCIES: &[&str] = &["EUR", "EUR", "EUR", "USD", "GBP", "SEK"];
const CHANNELS: &[&str] = &["web", "web", "ios", "android", "store", "phone"];
const PAY_METHODS: &[&str] = &["card", "card", "card", "paypal", "invoice", "giftcard"];
const CARRIERS: &[&str] = &["DHL", "UPS", "PostNL", "DPD", "GLS", "FedEx"];
const SHIP_METHODS: &[&str] = &["standard", "standard", "express", "pickup"];
const ADJECTIVES: &[&str] = &[
    "Classic",
    "Organic",
    "Wireless",
    "Compact",
    "Deluxe",
    "Vintage",
    "Slim",
    "Heavy-duty",
    "Ergonomic",
    "Waterproof",
];
const NOUNS: &[&str] = &[
    "T-shirt",
    "Coffee beans 1kg",
    "Headphones",
    "Desk lamp",
    "Backpack",
    "Water bottle",
    "Notebook",
    "Running shoes",
    "Phone case",
    "Chef's knife",
    "Yoga mat",
    "Tea kettle",
];
const TAGS: &[&str] = &[
    "sale",
    "new",
    "eco",
    "bestseller",
    "gift",
    "limited",
    "clearance",
    "bundle",
    "premium",
    "imported",
    "handmade",
    "refurbished",
];
const NOTES: &[&str] = &[
    "Please leave the parcel with the neighbour if nobody is home.",
    "Gift wrap, no invoice in the box.",
    "Call before delivery.",
    "Deliver after 5 pm on weekdays; the front door code is on file.",
    "Customer asked to combine with the previous order.",
];

const ROLES: &[&str] = &["web", "api", "worker", "cache", "db-proxy", "gateway"];
const REGIONS: &[&str] = &["eu-west-1", "eu-central-1", "us-east-1", "ap-south-1"];
const SERVICES: &[&str] = &[
    "checkout", "catalog", "search", "accounts", "payments", "shipping",
];
const HTTP: &[&str] = &["GET", "GET", "GET", "POST", "PUT", "DELETE"];
const RESOURCES: &[&str] = &[
    "orders", "carts", "products", "users", "sessions", "invoices",
];
const AGENTS: &[&str] = &["Mozilla/5.0", "okhttp/4.12", "curl/8.5", "ios-app/7.3.1"];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Orders,
    Logs,
    /// Polymorphic: the shape depends on `type` (payment, signup, review,
    /// shipment, refund), plus a few documents of an older schema version.
    Events,
}

impl Kind {
    const ALL: [Kind; 3] = [Kind::Orders, Kind::Logs, Kind::Events];

    fn name(self) -> &'static str {
        match self {
            Kind::Orders => "orders",
            Kind::Logs => "logs",
            Kind::Events => "events",
        }
    }

    fn seed(self) -> u64 {
        match self {
            Kind::Orders => 0x0D0C_5AA9_E000_0001,
            Kind::Logs => 0x0D0C_5AA9_E000_0002,
            Kind::Events => 0x0D0C_5AA9_E000_0003,
        }
    }

    /// The five "machine/process" bytes of this collection's ObjectIds.
    fn machine(self) -> [u8; 5] {
        match self {
            Kind::Orders => [0x5e, 0x11, 0x0a, 0x7b, 0x01],
            Kind::Logs => [0x10, 0x95, 0xc3, 0x2d, 0x02],
            Kind::Events => [0x7e, 0x0e, 0x41, 0x9a, 0x03],
        }
    }
}

/// An ObjectId with a given creation second and a counter.
fn object_id(secs: u64, machine: [u8; 5], counter: u64) -> ObjectId {
    let mut b = [0u8; 12];
    b[..4].copy_from_slice(&(secs as u32).to_be_bytes());
    b[4..9].copy_from_slice(&machine);
    b[9..].copy_from_slice(&(counter as u32).to_be_bytes()[1..]);
    ObjectId::from_bytes(b)
}

/// A Decimal128 of `cents / 100` (BID encoding, exponent -2).
fn decimal_cents(cents: u64) -> Decimal128 {
    const BIAS: u64 = 6176;
    let mut b = [0u8; 16];
    b[..8].copy_from_slice(&cents.to_le_bytes());
    b[8..].copy_from_slice(&((BIAS - 2) << 49).to_le_bytes());
    Decimal128::from_bytes(b)
}

fn millis(ms: u64) -> DateTime {
    DateTime::from_millis(ms as i64)
}

fn order_item(r: &mut Rng) -> Bson {
    let ntags = match r.below(10) {
        0..=2 => 0,
        3..=6 => 1,
        7 | 8 => 2,
        _ => r.range(3, 5),
    };
    let tags: Vec<Bson> = (0..ntags).map(|_| Bson::from(r.pick(TAGS))).collect();
    let qty = if r.chance(90) {
        r.range(1, 3)
    } else {
        r.range(4, 24)
    };
    let mut item = doc! {
        "sku": format!("SKU-{:06}", r.below(20_000)),
        "name": format!("{} {}", r.pick(ADJECTIVES), r.pick(NOUNS)),
        "qty": qty as i32,
        "price": r.money(1, 250),
        "tags": tags,
    };
    if r.chance(15) {
        item.insert("discountPct", r.range(5, 50) as i32);
    }
    Bson::Document(item)
}

fn order(r: &mut Rng, i: u64) -> Document {
    let secs = BASE_SECS + i * 3 + r.below(3);
    let created_ms = secs * 1000 + r.below(1000);
    let nitems = if r.chance(75) {
        r.range(1, 6)
    } else {
        r.range(1, 20)
    };
    let items: Vec<Bson> = (0..nitems).map(|_| order_item(r)).collect();

    let first = r.pick(FIRST);
    let last = r.pick(LAST);
    let mut address = doc! {
        "street": format!("{} {} {}", r.range(1, 400), r.pick(STREETS), r.pick(STREET_KINDS)),
        "city": r.pick(CITIES),
        "zip": format!("{:05}", r.below(100_000)),
        "country": r.pick(COUNTRIES),
    };
    if r.chance(40) {
        address.insert(
            "geo",
            doc! {
                "lat": (r.below(180_000_000) as f64) / 1e6 - 90.0,
                "lng": (r.below(360_000_000) as f64) / 1e6 - 180.0,
            },
        );
    }
    let customer = doc! {
        "customerId": r.range(1, 500_000) as i64,
        "name": format!("{first} {last}"),
        "email": format!("{}.{}{}@{}", first.to_lowercase(), last.to_lowercase(), r.below(100), r.pick(DOMAINS)),
        "tier": r.pick(TIERS),
        "address": address,
    };
    // Usually an int; a few documents carry it as a string or a long (the
    // kind of drift the profiler must report).
    let item_count = match r.below(100) {
        0..=2 => Bson::String(nitems.to_string()),
        3 => Bson::Int64(nitems as i64),
        _ => Bson::Int32(nitems as i32),
    };
    let mut d = doc! {
        "_id": object_id(secs, Kind::Orders.machine(), i),
        "orderNo": format!("ORD-{:09}", 10_000_000 + i),
        "status": r.pick(STATUS),
        "createdAt": millis(created_ms),
        "customer": customer,
        "items": items,
        "itemCount": item_count,
        "total": r.money(5, 2_500),
        "currency": r.pick(CURRENCIES),
        "channel": r.pick(CHANNELS),
        "gift": r.chance(8),
        "payment": {
            "method": r.pick(PAY_METHODS),
            "last4": format!("{:04}", r.below(10_000)),
            "authorized": r.chance(97),
        },
    };
    if r.chance(65) {
        d.insert(
            "updatedAt",
            millis(created_ms + r.range(1_000, 864_000_000)),
        );
    }
    if r.chance(70) {
        d.insert(
            "shipping",
            doc! {
                "method": r.pick(SHIP_METHODS),
                "carrier": r.pick(CARRIERS),
                "trackingNo": format!("{:016X}", r.next()),
                "shippedAt": millis(created_ms + r.range(3_600_000, 259_200_000)),
            },
        );
    }
    match r.below(100) {
        0..=19 => {
            d.insert("coupon", Bson::Null);
        }
        20..=49 => {
            d.insert("coupon", format!("SAVE{}", r.range(5, 30)));
        }
        _ => {}
    }
    if r.chance(30) {
        d.insert("notes", r.pick(NOTES));
    }
    if r.chance(5) {
        d.insert("discount", decimal_cents(r.range(100, 5_000)));
    }
    if r.chance(50) {
        d.insert("loyaltyPoints", r.below(5_000) as i32);
    }
    d
}

fn log_line(r: &mut Rng, i: u64) -> Document {
    let ms = BASE_SECS * 1000 + i * 50 + r.below(50);
    let level = match r.below(100) {
        0..=69 => "INFO",
        70..=84 => "DEBUG",
        85..=94 => "WARN",
        _ => "ERROR",
    };
    let status = match level {
        "ERROR" => 500 + r.below(4) as i32,
        "WARN" => 400 + r.below(30) as i32,
        _ => 200 + 4 * r.below(2) as i32,
    };
    let latency = r.range(1, 40) * r.range(1, 30);
    let msg = format!(
        "{} /api/v1/{}/{} -> {status} in {latency} ms ({} bytes) ua={}",
        r.pick(HTTP),
        r.pick(RESOURCES),
        r.range(1, 9_999_999),
        r.range(100, 90_000),
        r.pick(AGENTS),
    );
    doc! {
        "_id": object_id(ms / 1000, Kind::Logs.machine(), i),
        "ts": millis(ms),
        "host": format!("{}-{:02}.{}.internal", r.pick(ROLES), r.range(1, 24), r.pick(REGIONS)),
        "level": level,
        "service": r.pick(SERVICES),
        "msg": msg,
        "reqId": format!("{:016x}{:016x}", r.next(), r.next()),
        "latencyMs": latency as i32,
        "status": status,
        "pid": r.range(1_000, 60_000) as i32,
    }
}

fn event(r: &mut Rng, i: u64) -> Document {
    let secs = BASE_SECS + i * 2 + r.below(2);
    let ms = secs * 1000 + r.below(1000);
    let kind = match r.below(100) {
        0..=39 => "payment",
        40..=59 => "signup",
        60..=79 => "review",
        80..=94 => "shipment",
        _ => "refund",
    };
    let mut d = doc! {
        "_id": object_id(secs, Kind::Events.machine(), i),
        "type": kind,
        "at": millis(ms),
        "userId": r.range(1, 200_000) as i64,
    };
    match kind {
        "payment" => {
            d.insert("amount", r.money(1, 900));
            d.insert("currency", r.pick(CURRENCIES));
            d.insert(
                "card",
                doc! {"brand": r.pick(PAY_METHODS), "last4": format!("{:04}", r.below(10_000))},
            );
        }
        "signup" => {
            d.insert(
                "email",
                format!(
                    "{}{}@{}",
                    r.pick(FIRST).to_lowercase(),
                    r.below(1000),
                    r.pick(DOMAINS)
                ),
            );
            d.insert(
                "referrer",
                if r.chance(30) {
                    Bson::String(r.pick(CHANNELS).into())
                } else {
                    Bson::Null
                },
            );
            d.insert(
                "consents",
                (0..r.range(0, 4))
                    .map(|_| Bson::String(r.pick(TAGS).into()))
                    .collect::<Vec<_>>(),
            );
        }
        "review" => {
            d.insert(
                "productId",
                object_id(
                    secs - r.below(86_400 * 90),
                    Kind::Orders.machine(),
                    r.below(1 << 20),
                ),
            );
            // Stars drift from int to double, the mixed-type case.
            d.insert(
                "stars",
                if r.chance(90) {
                    Bson::Int32(r.range(1, 5) as i32)
                } else {
                    Bson::Double(r.range(2, 10) as f64 / 2.0)
                },
            );
            d.insert("text", r.pick(NOTES));
        }
        "shipment" => {
            d.insert("carrier", r.pick(CARRIERS));
            d.insert("parcels", (0..r.range(1, 4)).map(|_| Bson::Document(doc! {"weightG": r.range(100, 30_000) as i32, "tracking": format!("{:012X}", r.next() >> 16)})).collect::<Vec<_>>());
        }
        _ => {
            d.insert("amount", r.money(1, 400));
            d.insert("reason", r.pick(NOTES));
            d.insert("orderNo", format!("ORD-{:09}", 10_000_000 + r.below(i + 1)));
        }
    }
    if r.chance(3) {
        // An older schema version: a string timestamp and a nested meta.
        d.insert("at", format!("{ms}"));
        d.insert("meta", doc! {"v": 1, "source": r.pick(SERVICES)});
    }
    d
}

/// Documents per generator chunk; each chunk has its own fixed seed, so the
/// data is identical whatever the number of generator threads.
const CHUNK: u64 = 2_048;

/// Generates documents `first..first + count` of `kind` (all in one chunk)
/// as concatenated BSON.
fn generate_chunk(kind: Kind, chunk: u64, first: u64, count: u64, out: &mut Vec<u8>) {
    // SplitMix64 of (collection seed, chunk) seeds this chunk's xorshift.
    let mut z = kind.seed() ^ chunk.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    let mut r = Rng::new(z ^ (z >> 31));
    out.clear();
    for i in first..first + count {
        let d = match kind {
            Kind::Orders => order(&mut r, i),
            Kind::Logs => log_line(&mut r, i),
            Kind::Events => event(&mut r, i),
        };
        d.to_writer(&mut *out)
            .expect("generated document serialises");
    }
}

/// Generates `n` documents of `kind` and hands each one's BSON bytes to
/// `sink`, in order. Generation runs on `threads` worker threads (chunks are
/// dealt round-robin and collected in order), the sink on this thread; at
/// most a few chunks per worker are in flight, so memory stays bounded.
fn generate(kind: Kind, n: u64, threads: usize, sink: &mut dyn FnMut(&[u8])) {
    let chunks = n.div_ceil(CHUNK);
    let threads = threads.clamp(1, chunks.max(1) as usize);
    std::thread::scope(|scope| {
        let mut inboxes = Vec::with_capacity(threads);
        for w in 0..threads {
            let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<u8>>(2);
            inboxes.push(rx);
            scope.spawn(move || {
                let mut c = w as u64;
                while c < chunks {
                    let first = c * CHUNK;
                    let mut buf = Vec::with_capacity((CHUNK * 1_400) as usize);
                    generate_chunk(kind, c, first, CHUNK.min(n - first), &mut buf);
                    if tx.send(buf).is_err() {
                        return;
                    }
                    c += threads as u64;
                }
            });
        }
        for c in 0..chunks {
            let buf = inboxes[(c % threads as u64) as usize]
                .recv()
                .expect("generator thread delivers its chunk");
            let mut at = 0;
            while at < buf.len() {
                let len = i32::from_le_bytes(buf[at..at + 4].try_into().expect("four length bytes"))
                    as usize;
                sink(&buf[at..at + len]);
                at += len;
            }
        }
    });
}

/// Streams `n` documents of `kind` straight to `path`; returns the bytes written.
fn write_file(
    kind: Kind,
    n: u64,
    threads: usize,
    path: &Path,
    keep: Option<&mut Vec<Vec<u8>>>,
) -> u64 {
    let file = File::create(path).expect("create benchmark data file in the temp dir");
    let mut w = BufWriter::with_capacity(1 << 20, file);
    let mut bytes = 0u64;
    let mut keep = keep;
    generate(kind, n, threads, &mut |b| {
        w.write_all(b).expect("write benchmark data file");
        bytes += b.len() as u64;
        if let Some(k) = keep.as_deref_mut() {
            k.push(b.to_vec());
        }
    });
    w.flush().expect("flush benchmark data file");
    bytes
}

/// Streams `n` documents of `kind` to `path` as relaxed Extended JSON, one
/// document per line (as `mongoexport` writes them); returns the bytes written.
fn write_ejson_file(kind: Kind, n: u64, threads: usize, path: &Path) -> u64 {
    let file = File::create(path).expect("create benchmark data file");
    let mut w = BufWriter::with_capacity(1 << 20, file);
    let mut bytes = 0u64;
    let mut line = Vec::with_capacity(4096);
    generate(kind, n, threads, &mut |b| {
        let d = Document::from_reader(b).expect("generated document decodes");
        line.clear();
        serde_json::to_writer(&mut line, &Bson::Document(d).into_relaxed_extjson())
            .expect("generated document serialises as JSON");
        line.push(b'\n');
        w.write_all(&line).expect("write benchmark data file");
        bytes += line.len() as u64;
    });
    w.flush().expect("flush benchmark data file");
    bytes
}

/// `--write-data DIR`: the data sets as `.bson` and `.json`, nothing measured.
/// `files` collections per data set of `per_file` documents each: one
/// stream per data set cut into files, so the collections share a shape
/// and not their documents.
fn write_small_dir(dir: &Path, files: u64, per_file: u64, threads: usize) {
    std::fs::create_dir_all(dir).expect("create the small-collections directory");
    for kind in Kind::ALL {
        let mut n = 0u64;
        let mut w: Option<BufWriter<File>> = None;
        generate(kind, files * per_file, threads, &mut |b| {
            if n.is_multiple_of(per_file) {
                if let Some(mut full) = w.take() {
                    full.flush().expect("write benchmark data file");
                }
                let path = dir.join(format!("{}{:03}.bson", kind.name(), n / per_file));
                w = Some(BufWriter::new(
                    File::create(path).expect("create benchmark data file"),
                ));
            }
            if let Some(w) = &mut w {
                w.write_all(b).expect("write benchmark data file");
            }
            n += 1;
        });
        if let Some(mut last) = w {
            last.flush().expect("write benchmark data file");
        }
    }
}

fn write_data(dir: &Path, n: u64, threads: usize) {
    std::fs::create_dir_all(dir).expect("create the --write-data directory");
    for kind in Kind::ALL {
        for (ext, json) in [("bson", false), ("json", true)] {
            let path = dir.join(format!("{}.{ext}", kind.name()));
            let bytes = if json {
                write_ejson_file(kind, n, threads, &path)
            } else {
                write_file(kind, n, threads, &path, None)
            };
            println!(
                "{:>11} docs  {:>8.1} MB  {}",
                grouped(n),
                mb(bytes),
                path.display()
            );
        }
    }
}

struct Dataset {
    kind: Kind,
    docs: Vec<Vec<u8>>,
    bytes: u64,
    path: PathBuf,
    /// The same documents as relaxed Extended JSON, one per line.
    json_path: PathBuf,
    json_bytes: u64,
}

// ---------------------------------------------------------------------------
// The measured stages
// ---------------------------------------------------------------------------

/// Walks a document recursively with the `bson` crate's raw iterator,
/// touching every element; returns the number of elements.
fn walk_doc(doc: &RawDocument) -> u64 {
    let mut n = 0;
    for el in doc {
        let (key, value) = el.expect("generated document is valid BSON");
        black_box(key);
        n += 1 + walk_value(value);
    }
    n
}

fn walk_value(value: RawBsonRef<'_>) -> u64 {
    match value {
        RawBsonRef::Document(d) => walk_doc(d),
        RawBsonRef::Array(a) => {
            let mut n = 0;
            for v in a {
                n += 1 + walk_value(v.expect("generated array is valid BSON"));
            }
            n
        }
        other => {
            black_box(&other);
            0
        }
    }
}

/// The floor every throughput is measured against: a plain recursive BSON
/// walk written here, in the benchmark, so that neither an upgrade of the
/// `bson` crate nor a change in docshape moves it. It does what any reader
/// of a document must and no more: for each element, read its type, check
/// that its key is UTF-8, find its value's length (checking a string's
/// UTF-8) and recurse into embedded documents and arrays.
fn reference_walk_body(b: &[u8]) -> u64 {
    fn i32_at(b: &[u8], i: usize) -> usize {
        let v = i32::from_le_bytes(b[i..i + 4].try_into().expect("four bytes"));
        usize::try_from(v).expect("a non-negative length")
    }
    fn cstring_at(b: &[u8], i: usize) -> usize {
        let len = b[i..]
            .iter()
            .position(|&c| c == 0)
            .expect("a terminated string");
        black_box(std::str::from_utf8(&b[i..i + len]).expect("UTF-8"));
        len + 1
    }
    fn string_at(b: &[u8], i: usize) -> usize {
        let len = i32_at(b, i);
        black_box(std::str::from_utf8(&b[i + 4..i + 3 + len]).expect("UTF-8"));
        4 + len
    }
    let end = b.len() - 1;
    let (mut i, mut n) = (4, 0);
    while i < end {
        let ty = b[i];
        i += 1;
        i += cstring_at(b, i);
        i += match ty {
            0x01 | 0x09 | 0x11 | 0x12 => 8,
            0x02 | 0x0D | 0x0E => string_at(b, i),
            0x03 | 0x04 => {
                let len = i32_at(b, i);
                n += reference_walk_body(&b[i..i + len]);
                len
            }
            0x05 => 5 + i32_at(b, i),
            0x06 | 0x0A | 0x7F | 0xFF => 0,
            0x07 => 12,
            0x08 => 1,
            0x0B => {
                let pattern = cstring_at(b, i);
                pattern + cstring_at(b, i + pattern)
            }
            0x0C => string_at(b, i) + 12,
            0x0F => i32_at(b, i),
            0x10 => 4,
            0x13 => 16,
            other => panic!("generated documents have no element type {other:#x}"),
        };
        n += 1;
    }
    n
}

fn reference_walk(docs: &[Vec<u8>]) -> u64 {
    let mut elements = 0;
    for d in docs {
        elements += reference_walk_body(black_box(d.as_slice()));
    }
    black_box(elements)
}

/// The same recursive walk with `bson::RawDocument::iter`: what the `bson`
/// crate's own iterator costs (reported, not a floor: it changes with the
/// crate).
fn raw_walk(docs: &[Vec<u8>]) -> u64 {
    let mut elements = 0;
    for d in docs {
        let doc = RawDocument::from_bytes(black_box(d.as_slice())).expect("valid framing");
        elements += walk_doc(doc);
    }
    black_box(elements)
}

/// The same recursive walk with the profiler's own framing walker
/// (`docshape::profile::raw`): what the profiler pays just to visit elements.
fn own_walk_body(body: &[u8]) -> u64 {
    let mut n = 0;
    for el in raw::elements(body).expect("valid framing") {
        let el = el.expect("generated element is valid");
        black_box((el.key, el.value));
        n += 1;
        if el.ty.is_container() {
            n += own_walk_body(el.value);
        }
    }
    n
}

fn own_walk(docs: &[Vec<u8>]) -> u64 {
    let mut elements = 0;
    for d in docs {
        elements += own_walk_body(black_box(d.as_slice()));
    }
    black_box(elements)
}

fn profile_in_memory(docs: &[Vec<u8>]) -> Profile {
    let mut p = Profiler::default();
    for d in docs {
        p.add(black_box(d.as_slice()))
            .expect("generated document profiles cleanly");
    }
    black_box(p.finish())
}

fn profile_file(path: &Path) -> Profile {
    let file = File::open(path).expect("open benchmark data file");
    let mut p = Profiler::default();
    read_bson(file, &mut |b| {
        p.add(b).expect("generated document profiles cleanly");
    })
    .expect("benchmark data file reads cleanly");
    black_box(p.finish())
}

/// The profile on `threads` worker threads (documents dealt in batches,
/// profilers merged at the end).
fn profile_sharded(docs: &[Vec<u8>], threads: usize) -> Profile {
    let mut p = ShardedProfiler::new(threads, DEFAULT_MAX_PATHS);
    for d in docs {
        p.add(black_box(d.as_slice()))
            .expect("generated document is valid");
    }
    black_box(p.finish())
}

/// Reads an Extended JSON file (converting every document to BSON) into
/// the profiler, on this thread only.
fn profile_ejson_file(path: &Path) -> Profile {
    profile_ejson_file_on(path, 1)
}

/// Reads an Extended JSON file parsed on `threads` threads into one
/// profiler on this thread: the parsing's own scaling.
fn profile_ejson_file_on(path: &Path, threads: usize) -> Profile {
    let file = File::open(path).expect("open benchmark data file");
    let mut p = Profiler::default();
    docshape::source::files::ejson::read_documents_on(file, threads, &mut |doc| {
        p.add(doc).expect("generated document is valid");
    })
    .expect("benchmark data file reads cleanly");
    black_box(p.finish())
}

/// The release `docshape` binary built next to this benchmark.
const DOCSHAPE: &str = env!("CARGO_BIN_EXE_docshape");

/// Runs `docshape audit FILE --full --format json` and returns the number of
/// documents the report counts.
fn audit_binary(path: &Path) -> u64 {
    audit_binary_on(path, None)
}

/// As `audit_binary`, with `DOCSHAPE_THREADS` pinned when given.
fn audit_binary_on(path: &Path, threads: Option<usize>) -> u64 {
    audit_report_on(&path.display().to_string(), &["--full"], threads)["collections"]
        .as_array()
        .expect("collections in the report")
        .iter()
        .map(|c| c["sampled"].as_u64().unwrap_or(0))
        .sum()
}

/// Runs `docshape audit TARGET --format json` with `extra` options and
/// returns the parsed report.
fn audit_report(target: &str, extra: &[&str]) -> serde_json::Value {
    audit_report_on(target, extra, None)
}

fn audit_report_on(target: &str, extra: &[&str], threads: Option<usize>) -> serde_json::Value {
    let mut cmd = Command::new(DOCSHAPE);
    if let Some(t) = threads {
        cmd.env("DOCSHAPE_THREADS", t.to_string());
    }
    let out = cmd
        .args(["audit", target, "--format", "json", "--no-snapshot"])
        .args(["--fail-on", "never"])
        .args(extra)
        .output()
        .expect("run the docshape binary");
    assert!(
        out.status.success(),
        "docshape audit {target} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("the JSON report parses")
}

// ---------------------------------------------------------------------------
// Memory: child process mode
// ---------------------------------------------------------------------------

/// Peak resident set size of this process in kB (Linux only).
fn vm_hwm_kb() -> Option<u64> {
    docshape::audit::peak_memory_bytes().map(|b| b / 1024)
}

/// The child: stream each file through `read_bson` + a fresh `Profiler`,
/// keep only the finished profiles, report the peak RSS.
fn child(paths: &[PathBuf]) {
    let start = Instant::now();
    let mut profiles = Vec::with_capacity(paths.len());
    for path in paths {
        profiles.push(profile_file(path));
    }
    let docs: u64 = profiles.iter().map(|p| p.sampled).sum();
    let bytes: u64 = profiles.iter().map(|p| p.total_bytes).sum();
    let fields: usize = profiles.iter().map(|p| p.fields.len()).sum();
    let hwm = vm_hwm_kb().map_or_else(|| "none".to_owned(), |k| k.to_string());
    println!(
        "{CHILD_MARK} docs={docs} bytes={bytes} fields={fields} vmhwm_kb={hwm} secs={:.3}",
        start.elapsed().as_secs_f64()
    );
}

/// The audit child: `audit --full --format json` on each file through the
/// library (what the CLI runs), then the peak RSS.
fn child_audit(paths: &[PathBuf]) {
    use docshape::audit::{self, Plan};
    use docshape::source::{FileSource, SampleMode, Selection};
    let start = Instant::now();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let (mut docs, mut bytes, mut fields) = (0u64, 0u64, 0usize);
    for path in paths {
        let mut src = FileSource::open(path).expect("open benchmark data file");
        let plan = Plan::new(Selection::default(), SampleMode::Full);
        let report = rt
            .block_on(audit::run(&mut src, &plan, &mut |_| {}))
            .expect("the audit runs");
        black_box(docshape::report::json::render(&report));
        for c in &report.collections {
            docs += c.sampled;
            bytes += c.profile.total_bytes;
            fields += c.fields.len();
        }
    }
    let hwm = vm_hwm_kb().map_or_else(|| "none".to_owned(), |k| k.to_string());
    println!(
        "{CHILD_MARK} docs={docs} bytes={bytes} fields={fields} vmhwm_kb={hwm} secs={:.3}",
        start.elapsed().as_secs_f64()
    );
}

struct ChildReport {
    docs: u64,
    bytes: u64,
    fields: u64,
    hwm_kb: Option<u64>,
    secs: f64,
}

fn run_child(flag: &str, paths: &[&Path]) -> ChildReport {
    let exe = std::env::current_exe().expect("path of the running bench binary");
    let mut cmd = Command::new(exe);
    for p in paths {
        cmd.arg(flag).arg(p);
    }
    let out = cmd.output().expect("spawn memory child process");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "memory child failed ({}): {}{}",
        out.status,
        stdout,
        String::from_utf8_lossy(&out.stderr)
    );
    let line = stdout
        .lines()
        .find(|l| l.starts_with(CHILD_MARK))
        .expect("memory child printed its report line");
    let field = |name: &str| -> Option<&str> {
        line.split_whitespace()
            .find_map(|kv| kv.strip_prefix(name)?.strip_prefix('='))
    };
    let num = |name: &str| -> u64 {
        field(name)
            .and_then(|v| v.parse().ok())
            .expect("memory child report has numeric fields")
    };
    ChildReport {
        docs: num("docs"),
        bytes: num("bytes"),
        fields: num("fields"),
        hwm_kb: field("vmhwm_kb").and_then(|v| v.parse().ok()),
        secs: field("secs")
            .and_then(|v| v.parse().ok())
            .expect("memory child report has its duration"),
    }
}

// ---------------------------------------------------------------------------
// Reporting helpers
// ---------------------------------------------------------------------------

/// "read EJSON only, N threads" as a `'static` row label.
fn ejson_threads_label(threads: usize) -> &'static str {
    match threads {
        1 => "read EJSON only, 1 thread",
        2 => "read EJSON only, 2 threads",
        3 => "read EJSON only, 3 threads",
        4 => "read EJSON only, 4 threads",
        _ => "read EJSON only, all threads",
    }
}

/// "profile, N threads" as a `'static` row label.
fn threads_label(threads: usize) -> &'static str {
    match threads {
        1 => "profile, 1 thread (mem)",
        2 => "profile, 2 threads (mem)",
        3 => "profile, 3 threads (mem)",
        4 => "profile, 4 threads (mem)",
        _ => "profile, all cores (mem)",
    }
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort_unstable();
    v[v.len() / 2]
}

/// 1234567 -> "1,234,567".
fn grouped(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn mb(bytes: u64) -> f64 {
    bytes as f64 / 1e6
}

/// Median time of one stage, per collection and for both together.
struct StageTimes {
    name: &'static str,
    /// Per dataset, one duration per run.
    runs: Vec<Vec<Duration>>,
}

impl StageTimes {
    fn per_dataset(&self, i: usize) -> Duration {
        median(self.runs[i].clone())
    }

    /// Median over runs of the time to process every dataset.
    fn mixed(&self) -> Duration {
        let nruns = self.runs[0].len();
        median(
            (0..nruns)
                .map(|r| self.runs.iter().map(|d| d[r]).sum())
                .collect(),
        )
    }
}

fn measure(
    name: &'static str,
    sets: &[Dataset],
    runs: usize,
    f: &dyn Fn(&Dataset) -> u64,
) -> StageTimes {
    let mut times = vec![Vec::with_capacity(runs); sets.len()];
    for _ in 0..runs {
        for (i, ds) in sets.iter().enumerate() {
            let t = Instant::now();
            let n = f(ds);
            times[i].push(t.elapsed());
            black_box(n);
        }
    }
    StageTimes { name, runs: times }
}

// ---------------------------------------------------------------------------
// From a server
// ---------------------------------------------------------------------------

/// A server row: label, data, documents read, BSON bytes, seconds, round trips.
type ServerRow = (&'static str, &'static str, u64, u64, f64, u64);

/// A MongoDB-wire server for the server rows: `$MONGODB_URI`, or a
/// SecantusDB (`secantusd-py` from the project's `.venv`) on a free port
/// with its storage in the temp dir, stopped when dropped.
struct BenchServer {
    uri: String,
    child: Option<std::process::Child>,
    dir: PathBuf,
}

impl BenchServer {
    fn start(tag: &str) -> BenchServer {
        let dir = std::env::temp_dir().join(format!("docshape-bench-{tag}-{}", std::process::id()));
        let (uri, child) = match std::env::var("MONGODB_URI") {
            Ok(u) if !u.is_empty() => (u, None),
            _ => {
                let exe = Path::new(env!("CARGO_MANIFEST_DIR")).join(".venv/bin/secantusd-py");
                let port = std::net::TcpListener::bind("127.0.0.1:0")
                    .and_then(|l| l.local_addr())
                    .expect("a free port")
                    .port();
                std::fs::create_dir_all(&dir).expect("server storage dir");
                let c = Command::new(&exe)
                    .args(["--host", "127.0.0.1", "--port", &port.to_string(), "--storage-path"])
                    .arg(&dir)
                    .stdout(std::process::Stdio::null())
                    .stderr(std::process::Stdio::null())
                    .spawn()
                    .unwrap_or_else(|e| panic!("start {} (run scripts/test.sh once to install it, or set MONGODB_URI): {e}", exe.display()));
                (format!("mongodb://127.0.0.1:{port}"), Some(c))
            }
        };
        BenchServer { uri, child, dir }
    }

    /// A driver client once the server answers a ping (60 s at most).
    async fn client(&self) -> mongodb::Client {
        let client = mongodb::Client::with_uri_str(&self.uri)
            .await
            .expect("server URI");
        let deadline = Instant::now() + Duration::from_secs(60);
        while client
            .database("admin")
            .run_command(doc! {"ping": 1})
            .await
            .is_err()
        {
            assert!(Instant::now() < deadline, "the server did not come up");
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        client
    }
}

impl Drop for BenchServer {
    fn drop(&mut self) {
        if let Some(c) = self.child.as_mut() {
            let _ = c.kill();
            let _ = c.wait();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Loads each data set into a MongoDB-wire server and times the release
/// binary's `audit` of it: `$sample` of 1,000 and `--full`.
fn server_stages(sets: &[Dataset], runs: usize) -> Vec<ServerRow> {
    let server = BenchServer::start("server");
    let uri = server.uri.clone();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let db = "docshape_bench";
    println!("loading the data sets into {uri} (database {db}) ...");
    let t = Instant::now();
    rt.block_on(async {
        let client = server.client().await;
        for ds in sets {
            let coll = client
                .database(db)
                .collection::<bson::RawDocumentBuf>(ds.kind.name());
            coll.drop().await.expect("drop the bench collection");
            for chunk in ds.docs.chunks(1000) {
                let batch: Vec<bson::RawDocumentBuf> = chunk
                    .iter()
                    .map(|d| bson::RawDocumentBuf::from_bytes(d.clone()).expect("valid"))
                    .collect();
                coll.insert_many(batch)
                    .await
                    .expect("insert bench documents");
            }
        }
    });
    println!("  loaded in {:.1} s", t.elapsed().as_secs_f64());
    let mut rows = Vec::new();
    for ds in sets {
        // The server's own pace: a plain driver `find` drained in 16 MiB
        // batches, nothing profiled.
        let mut times = Vec::with_capacity(runs);
        let mut read = 0u64;
        for _ in 0..runs {
            let t = Instant::now();
            read = rt.block_on(async {
                let client = mongodb::Client::with_uri_str(&uri)
                    .await
                    .expect("server URI");
                let coll = client
                    .database(db)
                    .collection::<bson::RawDocumentBuf>(ds.kind.name());
                let mut cursor = coll.find(doc! {}).batch_size(100_000).await.expect("find");
                let mut n = 0u64;
                while cursor.advance().await.expect("read the cursor") {
                    black_box(cursor.current().as_bytes().len());
                    n += 1;
                }
                n
            });
            times.push(t.elapsed());
        }
        let secs = median(times).as_secs_f64();
        rows.push((
            "server floor: find all",
            ds.kind.name(),
            read,
            ds.bytes,
            secs,
            0,
        ));
        let ns = format!("{db}.{}", ds.kind.name());
        for (label, extra) in [
            ("audit server $sample 1k", &["--sample", "1000"][..]),
            ("audit server --full", &["--full"][..]),
        ] {
            let mut times = Vec::with_capacity(runs);
            let mut read = 0;
            let mut trips = 0;
            for _ in 0..runs {
                let t = Instant::now();
                let mut args = vec!["-c", ns.as_str()];
                args.extend_from_slice(extra);
                let report = audit_report(&uri, &args);
                times.push(t.elapsed());
                let c = &report["collections"][0];
                read = c["sampled"].as_u64().unwrap_or(0);
                trips = c["round_trips"].as_object().map_or(0, |m| {
                    m.values().filter_map(serde_json::Value::as_u64).sum()
                });
            }
            let secs = median(times).as_secs_f64();
            let bytes = ds.bytes * read / ds.docs.len().max(1) as u64;
            rows.push((label, ds.kind.name(), read, bytes, secs, trips));
        }
    }
    drop(server);
    rows
}

// ---------------------------------------------------------------------------
// Scale: many collections of large documents, a server, a slow link
// ---------------------------------------------------------------------------

/// Documents per collection file in the many-collections runs.
const LARGE_PER_FILE: u64 = 10;
/// Seed of the large documents and of their text.
const LARGE_SEED: u64 = 0x0D0C_5AA9_E000_0004;
/// Seed of the small documents loaded into the server.
const SMALL_SEED: u64 = 0x0D0C_5AA9_E000_0005;
/// Documents per `insert_many` when loading the server.
const LOAD_BATCH: u64 = 5_000;
/// The delay the slow link adds to every reply.
const LINK_DELAY: Duration = Duration::from_millis(25);

/// ASCII words, about `bytes` of them, that the long text fields of large
/// documents are cut from.
fn text_pool(r: &mut Rng, bytes: usize) -> String {
    let mut s = String::with_capacity(bytes + 128);
    while s.len() < bytes {
        let word = match r.below(4) {
            0 => r.pick(NOTES),
            1 => r.pick(NOUNS),
            2 => r.pick(ADJECTIVES),
            _ => r.pick(TAGS),
        };
        s.push_str(word);
        s.push(' ');
    }
    assert!(s.is_ascii(), "the text pool cuts at any byte");
    s
}

/// `len` bytes of the pool from a random place.
fn text_cut<'a>(r: &mut Rng, pool: &'a str, len: usize) -> &'a str {
    let at = r.below((pool.len() - len) as u64) as usize;
    &pool[at..at + len]
}

/// A document of about 100 KB: an order (nested customer, items, payment)
/// with a long description (55–65 KB of text) and 80–100 revisions, each a
/// small nested document with a list of changes and a comment.
fn large_doc(r: &mut Rng, i: u64, pool: &str) -> Document {
    const FIELDS: &[&str] = &["status", "total", "items", "shipping", "notes"];
    let mut d = order(r, i);
    let len = r.range(55_000, 65_000) as usize;
    d.insert("description", text_cut(r, pool, len));
    let created = d
        .get_datetime("createdAt")
        .map_or(0, |t| t.timestamp_millis()) as u64;
    let revisions: Vec<Bson> = (0..r.range(80, 100))
        .map(|k| {
            let changes: Vec<Bson> = (0..r.range(1, 3))
                .map(|_| {
                    Bson::Document(doc! {
                        "field": r.pick(FIELDS),
                        "from": r.pick(STATUS),
                        "to": r.pick(STATUS),
                    })
                })
                .collect();
            let comment_len = r.range(150, 300) as usize;
            Bson::Document(doc! {
                "rev": k as i32,
                "at": millis(created + k * 60_000 + r.below(60_000)),
                "by": {
                    "name": format!("{} {}", r.pick(FIRST), r.pick(LAST)),
                    "role": r.pick(ROLES),
                },
                "changes": changes,
                "comment": text_cut(r, pool, comment_len),
            })
        })
        .collect();
    d.insert("revisions", revisions);
    d
}

/// Writes `collections` `.bson` files (`c0000.bson`, …) of `per_file` large
/// documents each into `dir`, on `threads` threads; returns the bytes written.
fn write_large_dir(dir: &Path, collections: u64, per_file: u64, threads: usize) -> u64 {
    std::fs::create_dir_all(dir).expect("create the collections directory");
    let threads = threads.clamp(1, collections.max(1) as usize);
    let total = std::sync::atomic::AtomicU64::new(0);
    std::thread::scope(|scope| {
        for w in 0..threads {
            let total = &total;
            scope.spawn(move || {
                let pool = text_pool(&mut Rng::new(LARGE_SEED), 1 << 20);
                let mut buf = Vec::with_capacity((per_file * 110_000) as usize);
                let mut c = w as u64;
                while c < collections {
                    let mut r = Rng::new(LARGE_SEED ^ (c + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
                    buf.clear();
                    for i in 0..per_file {
                        large_doc(&mut r, c * per_file + i, &pool)
                            .to_writer(&mut buf)
                            .expect("generated document serialises");
                    }
                    std::fs::write(dir.join(format!("c{c:04}.bson")), &buf)
                        .expect("write a collection file");
                    total.fetch_add(buf.len() as u64, std::sync::atomic::Ordering::Relaxed);
                    c += threads as u64;
                }
            });
        }
    });
    total.into_inner()
}

/// A small document (about 100 bytes) for the server rows.
fn small_doc(r: &mut Rng, i: u64) -> Document {
    doc! {
        "_id": i as i64,
        "name": format!("item {i}"),
        "kind": r.pick(TAGS),
        "qty": r.range(1, 24) as i32,
        "price": r.money(1, 250),
        "ok": r.chance(80),
        "at": millis(BASE_SECS * 1000 + i * 1000 + r.below(1000)),
    }
}

/// A small document of collection `coll` of the slow-link rows: an
/// ObjectId `_id` of its own, doubles, a flag, a date and a nested document
/// of doubles. No integer, string or other ObjectId field, so nothing that
/// could reference another collection: the relationship stage has nothing
/// to probe, and the run is the reading of the collections.
fn link_doc(r: &mut Rng, coll: u64, i: u64) -> Document {
    let secs = BASE_SECS + coll * 60 + i;
    doc! {
        "_id": object_id(secs, [0x11, 0x1c, 0x2d, 0x3e, 0x04], coll * 8 + i),
        "price": r.money(1, 250),
        "weight": r.range(1, 5_000) as f64 / 8.0,
        "ok": r.chance(50),
        "at": millis(secs * 1000 + r.below(1000)),
        "size": {"w": r.range(1, 400) as f64 / 4.0, "h": r.range(1, 400) as f64 / 4.0},
    }
}

/// Inserts small documents `from..from + count` into `coll`, `LOAD_BATCH`
/// to an `insert_many`.
async fn load_small(coll: &mongodb::Collection<bson::RawDocumentBuf>, from: u64, count: u64) {
    let mut r = Rng::new(SMALL_SEED ^ from);
    let mut i = from;
    while i < from + count {
        let end = (i + LOAD_BATCH).min(from + count);
        let batch: Vec<bson::RawDocumentBuf> = (i..end)
            .map(|k| {
                bson::RawDocumentBuf::try_from(&small_doc(&mut r, k))
                    .expect("generated document serialises")
            })
            .collect();
        coll.insert_many(batch)
            .await
            .expect("insert bench documents");
        i = end;
    }
}

/// Round trips a collection of a JSON report counted, every command.
fn round_trips_of(c: &serde_json::Value) -> u64 {
    c["round_trips"].as_object().map_or(0, |m| {
        m.values().filter_map(serde_json::Value::as_u64).sum()
    })
}

/// A run of the release binary measured from outside.
struct PeakRun {
    /// Peak RSS (VmHWM) polled from `/proc/<pid>/status` while it ran, bytes.
    polled: Option<u64>,
    secs: f64,
    report: serde_json::Value,
}

impl PeakRun {
    /// The peak the report states: VmHWM when the audit finished, before
    /// the report is rendered.
    fn stated(&self) -> Option<u64> {
        self.report["peak_memory_bytes"].as_u64()
    }

    /// The larger of the polled and the stated peak (polling every 5 ms can
    /// miss the last moments), bytes.
    fn peak(&self) -> u64 {
        self.polled.unwrap_or(0).max(self.stated().unwrap_or(0))
    }

    fn collections(&self) -> &[serde_json::Value] {
        self.report["collections"]
            .as_array()
            .map_or(&[], Vec::as_slice)
    }

    /// Round trips of the collection that needed the most.
    fn max_round_trips(&self) -> u64 {
        self.collections()
            .iter()
            .map(round_trips_of)
            .max()
            .unwrap_or(0)
    }

    /// The round trips of that collection by command, `name n, …`.
    fn round_trips_by_command(&self) -> String {
        self.collections()
            .iter()
            .max_by_key(|c| round_trips_of(c))
            .and_then(|c| c["round_trips"].as_object())
            .map(|m| {
                m.iter()
                    .map(|(k, v)| format!("{k} {v}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            })
            .unwrap_or_default()
    }
}

/// Runs `docshape audit TARGET EXTRA --format json --no-snapshot -o FILE`
/// (`DOCSHAPE_THREADS` pinned when given), polling its peak RSS until it
/// exits; the report and its standard error go to `scratch`.
fn run_peak(target: &str, extra: &[&str], threads: Option<usize>, scratch: &Path) -> PeakRun {
    std::fs::create_dir_all(scratch).expect("create the scratch directory");
    let out = scratch.join("report.json");
    let err = scratch.join("stderr.txt");
    let mut cmd = Command::new(DOCSHAPE);
    if let Some(t) = threads {
        cmd.env("DOCSHAPE_THREADS", t.to_string());
    }
    let start = Instant::now();
    let mut child = cmd
        .args(["audit", target])
        .args(extra)
        .args([
            "--format",
            "json",
            "--no-snapshot",
            "--fail-on",
            "never",
            "-o",
        ])
        .arg(&out)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(File::create(&err).expect("create the stderr file"))
        .spawn()
        .expect("run the docshape binary");
    let status_file = format!("/proc/{}/status", child.id());
    let mut polled: Option<u64> = None;
    let status = loop {
        if let Some(b) = docshape::audit::peak_memory_of(&status_file) {
            polled = Some(polled.unwrap_or(0).max(b));
        }
        if let Some(s) = child.try_wait().expect("wait for docshape") {
            break s;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let secs = start.elapsed().as_secs_f64();
    assert!(
        status.success(),
        "docshape audit {target} {extra:?}: {status}: {}",
        std::fs::read_to_string(&err).unwrap_or_default()
    );
    let report = serde_json::from_slice(&std::fs::read(&out).expect("read the report"))
        .expect("the JSON report parses");
    PeakRun {
        polled,
        secs,
        report,
    }
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / f64::from(1u32 << 20)
}

fn mib_or_na(bytes: Option<u64>) -> String {
    bytes.map_or_else(|| "n/a".to_owned(), |b| format!("{:.1} MiB", mib(b)))
}

/// Sizes of the `--scale` runs.
struct ScaleOptions {
    /// Collections of large documents (a).
    collections: u64,
    /// Documents of the smaller server collection (b); the larger has 4×.
    server_docs: u64,
    /// Documents per data set for the thread rows (c).
    docs: u64,
    /// Runs of each thread row (c); the median is kept.
    runs: usize,
    /// Collections behind the slow link (d).
    link_collections: u64,
    /// Skip the server rows (b, d).
    no_server: bool,
    keep_files: bool,
}

/// (a) Peak RSS of `audit DIR` over many collections of large documents,
/// with the default budget and with `--memory 64`.
fn scale_budget(dir: &Path, o: &ScaleOptions, cores: usize) -> String {
    let data = dir.join("many");
    println!(
        "(a) writing {} collections of {LARGE_PER_FILE} documents of ~100 KB ...",
        grouped(o.collections)
    );
    let t = Instant::now();
    let bytes = write_large_dir(&data, o.collections, LARGE_PER_FILE, cores);
    println!(
        "    {:.1} MB in {:.1} s",
        mb(bytes),
        t.elapsed().as_secs_f64()
    );
    let target = data.display().to_string();
    let mut table = format!(
        "### (a) Peak memory: {} collections × {LARGE_PER_FILE} documents of ~{:.0} KB ({:.1} MB of `.bson`)\n\n\
         | run | budget | peak RSS | stated by docshape | peak / budget | documents | time |\n\
         | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n",
        grouped(o.collections),
        bytes as f64 / (o.collections * LARGE_PER_FILE) as f64 / 1e3,
        mb(bytes),
    );
    for extra in [&[][..], &["--memory", "64"][..]] {
        println!("(a) docshape audit DIR {} ...", extra.join(" "));
        let run = run_peak(&target, extra, None, &dir.join("scratch"));
        let budget = run.report["memory_budget_bytes"]
            .as_u64()
            .expect("the report states its budget");
        let docs: u64 = run
            .collections()
            .iter()
            .map(|c| c["sampled"].as_u64().unwrap_or(0))
            .sum();
        assert_eq!(
            run.collections().len() as u64,
            o.collections,
            "every collection reported"
        );
        writeln!(
            table,
            "| `audit DIR{}` | {:.0} MiB | {:.1} MiB | {} | {:.2} | {} | {:.1} s |",
            if extra.is_empty() {
                String::new()
            } else {
                format!(" {}", extra.join(" "))
            },
            mib(budget),
            mib(run.peak()),
            mib_or_na(run.stated()),
            run.peak() as f64 / budget as f64,
            grouped(docs),
            run.secs
        )
        .expect("write to a String");
    }
    table += "\nPeak RSS: the larger of VmHWM polled from `/proc/<pid>/status` every 5 ms and the peak the report states; release binary, `docshape audit DIR --format json -o FILE --no-snapshot`, both cores.\n";
    if !o.keep_files {
        let _ = std::fs::remove_dir_all(&data);
    }
    table
}

/// (b) Peak RSS of `audit --full` of one server collection at N and 4N
/// small documents.
fn scale_server_memory(
    server: &BenchServer,
    rt: &tokio::runtime::Runtime,
    o: &ScaleOptions,
    scratch: &Path,
) -> String {
    let (db, name) = ("docshape_bench_scale", "full");
    let ns = format!("{db}.{name}");
    let mut table = format!(
        "### (b) `--full` from the server ({}): memory at N and 4N documents\n\n\
         | documents | data | load | audit --full | round trips | peak RSS | stated by docshape |\n\
         | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n",
        server.uri
    );
    let mut peaks = Vec::new();
    let mut loaded = 0;
    for n in [o.server_docs, 4 * o.server_docs] {
        println!(
            "(b) loading {} small documents into {ns} ...",
            grouped(n - loaded)
        );
        let t = Instant::now();
        rt.block_on(async {
            let client = server.client().await;
            let coll = client.database(db).collection::<bson::RawDocumentBuf>(name);
            if loaded == 0 {
                coll.drop().await.expect("drop the bench collection");
            }
            load_small(&coll, loaded, n - loaded).await;
        });
        let load = t.elapsed().as_secs_f64();
        println!(
            "    {} documents in {load:.1} s ({} docs/s)",
            grouped(n - loaded),
            grouped(((n - loaded) as f64 / load) as u64)
        );
        loaded = n;
        println!("(b) docshape audit URI -c {ns} --full ...");
        let run = run_peak(
            &server.uri,
            &["-c", &ns, "--full", "--timeout", "600"],
            None,
            scratch,
        );
        let c = &run.collections()[0];
        assert_eq!(c["sampled"].as_u64(), Some(n), "every document read");
        let bytes = c["doc_size"]["avg"].as_f64().unwrap_or(0.0) * n as f64;
        writeln!(
            table,
            "| {} | {:.1} MB | {load:.1} s{} | {:.1} s | {} | {:.1} MiB | {} |",
            grouped(n),
            bytes / 1e6,
            if peaks.is_empty() { "" } else { " (added)" },
            run.secs,
            run.max_round_trips(),
            mib(run.peak()),
            mib_or_na(run.stated()),
        )
        .expect("write to a String");
        peaks.push(run.peak());
    }
    write!(
        table,
        "\nPeak RSS at 4N / at N: {:.2} (4× the documents; release binary, `docshape audit URI -c {ns} --full --timeout 600 --format json -o FILE --no-snapshot`, both cores).\n",
        peaks[1] as f64 / peaks[0].max(1) as f64
    )
    .expect("write to a String");
    rt.block_on(async {
        let _ = server.client().await.database(db).drop().await;
    });
    table
}

/// (c) Whole `audit --full` of each data set's `.bson` and Extended JSON
/// file, `DOCSHAPE_THREADS=1` against `=2`, interleaved.
fn scale_threads(dir: &Path, o: &ScaleOptions, cores: usize) -> String {
    let data = dir.join("sets");
    std::fs::create_dir_all(&data).expect("create the data set directory");
    println!(
        "(c) writing the data sets, {} documents each ...",
        grouped(o.docs)
    );
    let mut files = Vec::new();
    for kind in Kind::ALL {
        let path = data.join(format!("{}.bson", kind.name()));
        let bytes = write_file(kind, o.docs, cores, &path, None);
        let json = data.join(format!("{}.json", kind.name()));
        write_ejson_file(kind, o.docs, cores, &json);
        files.push((kind, ".bson", path, bytes));
        files.push((kind, "Extended JSON", json, bytes));
    }
    let mut times = vec![(Vec::new(), Vec::new()); files.len()];
    for run in 0..o.runs {
        println!("(c) run {}/{} ...", run + 1, o.runs);
        for (i, (_, _, path, _)) in files.iter().enumerate() {
            // Alternate which goes first, so neither always runs on a
            // warmer machine.
            let order = if run % 2 == 0 { [1, 2] } else { [2, 1] };
            for threads in order {
                let t = Instant::now();
                let n = audit_binary_on(path, Some(threads));
                let took = t.elapsed();
                assert_eq!(n, o.docs, "the audit read every document");
                if threads == 1 {
                    times[i].0.push(took);
                } else {
                    times[i].1.push(took);
                }
            }
        }
    }
    let mut table = format!(
        "### (c) Whole `audit --full`, DOCSHAPE_THREADS=1 against =2 ({} documents per data set, median of {} interleaved runs, {cores} cores)\n\n\
         | data | file | 1 thread | 2 threads | one / two |\n\
         | --- | --- | ---: | ---: | ---: |\n",
        grouped(o.docs),
        o.runs
    );
    for ((kind, format, _, bytes), (one, two)) in files.iter().zip(times) {
        let (one, two) = (median(one).as_secs_f64(), median(two).as_secs_f64());
        writeln!(
            table,
            "| {} | {format} | {one:.2} s ({:.0} MB/s) | {two:.2} s ({:.0} MB/s) | {:.2} |",
            kind.name(),
            mb(*bytes) / one,
            mb(*bytes) / two,
            one / two
        )
        .expect("write to a String");
    }
    table += "\nMB/s counts BSON bytes, also for Extended JSON; release binary, `docshape audit FILE --full --format json --no-snapshot`, process start included.\n";
    if !o.keep_files {
        let _ = std::fs::remove_dir_all(&data);
    }
    table
}

/// (d) Many small collections behind a link that holds every reply 25 ms.
fn scale_link(
    server: &BenchServer,
    rt: &tokio::runtime::Runtime,
    o: &ScaleOptions,
    scratch: &Path,
) -> String {
    let Some(upstream) = proxy::upstream_of(&server.uri) else {
        return format!(
            "### (d) Slow link\n\nskipped: the proxy cannot stand in for {}\n",
            server.uri
        );
    };
    let db = "docshape_bench_link";
    println!(
        "(d) creating {} small collections in {db} ...",
        o.link_collections
    );
    rt.block_on(async {
        let client = server.client().await;
        client
            .database(db)
            .drop()
            .await
            .expect("drop the bench database");
        let mut r = Rng::new(SMALL_SEED);
        for i in 0..o.link_collections {
            let docs: Vec<Document> = (0..=i % 7).map(|k| link_doc(&mut r, i, k)).collect();
            client
                .database(db)
                .collection::<Document>(&format!("c{i:03}"))
                .insert_many(docs)
                .await
                .expect("insert bench documents");
        }
    });
    let link = proxy::DelayProxy::start(&upstream, LINK_DELAY);
    let via = format!("mongodb://127.0.0.1:{}/?directConnection=true", link.port);
    let in_flight = docshape::source::server::mongo::IN_FLIGHT;
    let check = |run: &PeakRun| {
        assert_eq!(
            run.collections().len() as u64,
            o.link_collections,
            "every collection reported"
        );
    };
    println!("(d) docshape audit VIA_LINK --db {db} ...");
    let slow = run_peak(&via, &["--db", db], None, scratch);
    check(&slow);
    println!("(d) docshape audit VIA_LINK --db {db} --concurrency 1 ...");
    let serial = run_peak(&via, &["--db", db, "--concurrency", "1"], None, scratch);
    check(&serial);
    drop(link);
    println!("(d) docshape audit URI --db {db} ...");
    let direct = run_peak(&server.uri, &["--db", db], None, scratch);
    check(&direct);
    rt.block_on(async {
        let _ = server.client().await.database(db).drop().await;
    });
    // As `tests/it/inflight.rs`: 1.5 × collections × delay × round trips per
    // collection / in flight, plus the run's own round trips (a handshake
    // per pooled connection and the reading client's, ping, listing).
    let trips = slow.max_round_trips();
    let own = 2 * 10 + 3;
    let delay = LINK_DELAY.as_secs_f64();
    let bound = 1.5 * o.link_collections as f64 * delay * trips as f64 / in_flight as f64
        + f64::from(own) * delay;
    format!(
        "### (d) {n} collections behind a link that holds every reply {ms} ms\n\n\
         | run | time | |\n\
         | --- | ---: | --- |\n\
         | through the link, `--concurrency` {in_flight} (default) | {:.2} s | bound {bound:.2} s: {} |\n\
         | through the link, `--concurrency 1` | {:.2} s | {n} × {trips} round trips × {ms} ms = {:.2} s |\n\
         | without the link | {:.2} s | |\n\
         \nRound trips of the collection that needed the most: {}.\n\
         Bound as `tests/it/inflight.rs`: 1.5 × {n} × {ms} ms × {trips} round trips / {in_flight} in flight + {own} × {ms} ms for the run's own round trips; \
         here the whole CLI audit (`docshape audit URI --db {db} --format json -o FILE --no-snapshot`: listing, reading, indexes, relationships, rules), \
         where the test times the reading stage through the library.\n",
        slow.secs,
        if slow.secs <= bound { "within" } else { "OVER" },
        serial.secs,
        o.link_collections as f64 * trips as f64 * delay,
        direct.secs,
        slow.round_trips_by_command(),
        n = o.link_collections,
        ms = LINK_DELAY.as_millis(),
    )
}

/// `--scale`: the tables of the four scale measurements.
fn scale(o: &ScaleOptions, cores: usize) {
    let dir = std::env::temp_dir().join(format!("docshape-scale-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("create a directory in the temp dir");
    let scratch = dir.join("scratch");
    let build = if cfg!(debug_assertions) {
        "debug build"
    } else {
        "release build"
    };
    println!(
        "docshape scale benchmark ({build}, {cores} cores); data dir {}",
        dir.display()
    );
    let start = Instant::now();
    let budget = scale_budget(&dir, o, cores);
    let threads = scale_threads(&dir, o, cores);
    let tables = if o.no_server {
        let skipped = |what: &str| format!("### ({what}) skipped (--no-server)\n");
        [budget, skipped("b"), threads, skipped("d")]
    } else {
        let server = BenchServer::start("scale");
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a tokio runtime");
        let memory = scale_server_memory(&server, &rt, o, &scratch);
        let link = scale_link(&server, &rt, o, &scratch);
        [budget, memory, threads, link]
    };
    println!(
        "\n## docshape scale benchmark ({build}, {cores} cores, {:.0} s in all)\n",
        start.elapsed().as_secs_f64()
    );
    println!("{}", tables.join("\n"));
    if o.keep_files {
        println!("kept data files in {}", dir.display());
    } else {
        let _ = std::fs::remove_dir_all(&dir);
    }
}

// ---------------------------------------------------------------------------
// Regression check
// ---------------------------------------------------------------------------

/// Documents per collection in the regression check.
const CHECK_DOCS: u64 = 20_000;
/// Runs per stage in the regression check (the median is kept).
const CHECK_RUNS: usize = 7;
/// The check fails when a ratio falls below this share of its baseline.
const CHECK_TOLERANCE: f64 = 0.70;
/// Collections of large documents (`LARGE_PER_FILE` of ~100 KB each) in the
/// check's memory row: enough that holding every collection's profile, or
/// a fixed floor of kept documents each, passes the budget.
const CHECK_MANY_COLLECTIONS: u64 = 400;
/// The memory budget (`--memory`, MiB) of the check's memory row.
const CHECK_MANY_BUDGET_MIB: u64 = 32;
/// `--check`'s directory of small collections: files per data set, and
/// documents per file (under 1 MiB each, so each file alone is profiled on
/// one thread).
const CHECK_SMALL_FILES: u64 = 20;
const CHECK_SMALL_DOCS: u64 = 500;
/// Baseline ratios, all measured in the same run, larger is better:
/// stage throughput / raw-walk-floor throughput; `threads2`: the sharded
/// profiler's time on one thread over its time on two; `ejson2`: the same
/// for reading Extended JSON into one profiler; `audit2 bson` / `audit2
/// ejson`: the same for the release binary's whole `audit --full` of the
/// file (`DOCSHAPE_THREADS`); `budget many`: the `--memory` budget over the
/// peak RSS of `audit DIR` of many collections of large documents. One
/// `stage data ratio` per line.
const BASELINE: &str = include_str!("baseline.txt");

/// `--check`: profiles a small data set and compares each stage's
/// throughput, as a ratio to the raw-walk floor measured in the same run
/// (interleaved with it, so machine noise hits both), with the committed
/// baseline; the same for two threads against one (profiler, Extended JSON
/// reader, the binary's whole `audit --full`) and for the memory budget
/// against the peak RSS of an audit of many collections of large
/// documents. Returns false when a ratio dropped by more than 30 %.
fn check(cores: usize) -> bool {
    let dir = std::env::temp_dir().join(format!("docshape-check-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("create a directory in the temp dir");
    let mut ok = true;
    println!("docshape regression check: {CHECK_DOCS} docs per collection, median of {CHECK_RUNS} interleaved runs");
    println!("| stage | data | ratio | baseline | minimum ({CHECK_TOLERANCE}x) | |");
    println!("| --- | --- | ---: | ---: | ---: | --- |");
    for kind in Kind::ALL {
        let mut docs = Vec::with_capacity(CHECK_DOCS as usize);
        let path = dir.join(format!("{}.bson", kind.name()));
        write_file(kind, CHECK_DOCS, cores, &path, Some(&mut docs));
        let json_path = dir.join(format!("{}.json", kind.name()));
        write_ejson_file(kind, CHECK_DOCS, cores, &json_path);
        let stages: [(&str, &dyn Fn() -> u64); 5] = [
            ("floor", &|| reference_walk(&docs)),
            ("bson iter", &|| raw_walk(&docs)),
            ("profile", &|| profile_in_memory(&docs).sampled),
            ("bson", &|| profile_file(&path).sampled),
            ("ejson", &|| profile_ejson_file(&json_path).sampled),
        ];
        let mut times = vec![Vec::with_capacity(CHECK_RUNS); stages.len()];
        for _ in 0..CHECK_RUNS {
            for (i, (_, f)) in stages.iter().enumerate() {
                let t = Instant::now();
                black_box(f());
                times[i].push(t.elapsed());
            }
        }
        let floor = median(times[0].clone()).as_secs_f64();
        let mut ratios: Vec<(&str, f64)> = stages
            .iter()
            .enumerate()
            .skip(1)
            .map(|(i, (stage, _))| (*stage, floor / median(times[i].clone()).as_secs_f64()))
            .collect();
        // Two threads against one for the sharded profiler, interleaved the
        // same way: the scaling row (a 1-core machine has nothing to say).
        if cores >= 2 {
            let (mut one, mut two) = (Vec::new(), Vec::new());
            for _ in 0..CHECK_RUNS {
                let t = Instant::now();
                black_box(profile_sharded(&docs, 1).sampled);
                one.push(t.elapsed());
                let t = Instant::now();
                black_box(profile_sharded(&docs, 2).sampled);
                two.push(t.elapsed());
            }
            ratios.push((
                "threads2",
                median(one).as_secs_f64() / median(two).as_secs_f64(),
            ));
            // The same for Extended JSON parsed on two threads against one.
            let (mut one, mut two) = (Vec::new(), Vec::new());
            for _ in 0..CHECK_RUNS {
                let t = Instant::now();
                black_box(profile_ejson_file_on(&json_path, 1).sampled);
                one.push(t.elapsed());
                let t = Instant::now();
                black_box(profile_ejson_file_on(&json_path, 2).sampled);
                two.push(t.elapsed());
            }
            ratios.push((
                "ejson2",
                median(one).as_secs_f64() / median(two).as_secs_f64(),
            ));
            // The release binary's whole `audit --full` of each file, one
            // thread against two, alternating which goes first.
            for (stage, file) in [("audit2 bson", &path), ("audit2 ejson", &json_path)] {
                let (mut one, mut two) = (Vec::new(), Vec::new());
                for run in 0..CHECK_RUNS {
                    let order = if run % 2 == 0 { [1, 2] } else { [2, 1] };
                    for threads in order {
                        let t = Instant::now();
                        let n = audit_binary_on(file, Some(threads));
                        let took = t.elapsed();
                        assert_eq!(n, CHECK_DOCS, "the audit read every document");
                        if threads == 1 {
                            one.push(took);
                        } else {
                            two.push(took);
                        }
                    }
                }
                ratios.push((stage, median(one).as_secs_f64() / median(two).as_secs_f64()));
            }
        }
        for (stage, ratio) in ratios {
            ok &= if stage == "bson iter" {
                info_row(stage, kind.name(), ratio)
            } else {
                check_row(stage, kind.name(), ratio)
            };
        }
    }
    // A directory of many small collections: the binary's whole `audit`
    // on one thread against two (the files read side by side, and each
    // collection's later stages spread over the threads).
    if cores >= 2 {
        let small = dir.join("small");
        write_small_dir(&small, CHECK_SMALL_FILES, CHECK_SMALL_DOCS, cores);
        let target = small.display().to_string();
        let (mut one, mut two) = (Vec::new(), Vec::new());
        for run in 0..CHECK_RUNS {
            let order = if run % 2 == 0 { [1, 2] } else { [2, 1] };
            for threads in order {
                let t = Instant::now();
                let report = audit_report_on(&target, &["--full"], Some(threads));
                let took = t.elapsed();
                let n = report["collections"].as_array().map_or(0, Vec::len) as u64;
                assert_eq!(n, CHECK_SMALL_FILES * 3, "every collection reported");
                if threads == 1 {
                    one.push(took);
                } else {
                    two.push(took);
                }
            }
        }
        let ratio = median(one).as_secs_f64() / median(two).as_secs_f64();
        ok &= check_row("audit2", "small dir", ratio);
    }
    // The relationship stage's pairing: what the targets' kept samples hold
    // of each candidate's values, by one index over every key, against a
    // lookup per candidate and target (larger is better).
    ok &= check_row("pairing", "index", pairing_speedup());
    // Memory: many collections of large documents under a small budget, as
    // the budget over the peak RSS of the whole audit (larger is better).
    let many = dir.join("many");
    write_large_dir(&many, CHECK_MANY_COLLECTIONS, LARGE_PER_FILE, cores);
    let budget_mib = CHECK_MANY_BUDGET_MIB.to_string();
    let run = run_peak(
        &many.display().to_string(),
        &["--memory", &budget_mib],
        Some(2),
        &dir.join("scratch"),
    );
    assert_eq!(
        run.collections().len() as u64,
        CHECK_MANY_COLLECTIONS,
        "every collection reported"
    );
    ok &= check_row(
        "budget",
        "many",
        (CHECK_MANY_BUDGET_MIB << 20) as f64 / run.peak() as f64,
    );
    println!();
    println!("ratio: throughput / raw-walk floor throughput; threads2, ejson2, audit2: time on one thread / time on two (audit2: the release binary's whole `audit --full`, DOCSHAPE_THREADS=1 against =2, of one file, or of a directory of {} small collections × {CHECK_SMALL_DOCS} documents); pairing index: time of the relationship stage's per-key tallies without the key index / with it; budget many: {CHECK_MANY_BUDGET_MIB} MiB / peak RSS of `audit DIR --memory {CHECK_MANY_BUDGET_MIB}` over {CHECK_MANY_COLLECTIONS} collections × {LARGE_PER_FILE} documents of ~100 KB (peak {:.1} MiB).", CHECK_SMALL_FILES * 3, mib(run.peak()));
    let _ = std::fs::remove_dir_all(&dir);
    if !ok {
        println!(
            "a ratio fell by more than {:.0} % against benches/baseline.txt",
            (1.0 - CHECK_TOLERANCE) * 100.0
        );
    }
    ok
}

/// Time of [`docshape::relate::keys::References::tally`] against every
/// target over that of [`docshape::relate::keys::KeyIndex`]: 300 target
/// keys of 1,000 kept integer ids each (ranges overlapping in pairs) and
/// 600 candidates of 200 values, median of 5 runs. The index is what keeps
/// the stage from growing with candidates × keys × values.
fn pairing_speedup() -> f64 {
    use docshape::relate::keys::{KeyIndex, References, TargetKey};
    use docshape::relate::Family;
    use docshape::source::value::ValueKey;
    let targets: Vec<TargetKey> = (0..300i64)
        .map(|t| {
            let keys: Vec<i64> = (0..1000).map(|i| t * 500 + i).collect();
            TargetKey {
                coll: t as usize,
                key: "_id".into(),
                family: Family::Number,
                unique_index: false,
                coll_stem: format!("c{t}"),
                key_stem: "id".into(),
                coll_words: vec![format!("c{t}")],
                people: false,
                seen: keys.iter().map(|&k| ValueKey::Int(k)).collect(),
                numbers: keys.iter().map(|&k| k as f64).collect(),
                oid_span: None,
                duplicate: None,
                distinct: 1000.0,
                complete: true,
            }
        })
        .collect();
    let mut r = Rng::new(0x7061_6972);
    let cands: Vec<References> = (0..600)
        .map(|_| {
            let keys: Vec<ValueKey> = (0..200)
                .map(|_| ValueKey::Int(r.below(150_000) as i64))
                .collect::<std::collections::BTreeSet<_>>()
                .into_iter()
                .collect();
            References {
                weights: vec![1; keys.len()],
                total: keys.len() as u64,
                keys,
                identifier_share: 1.0,
                converted: Vec::new(),
            }
        })
        .collect();
    let each = || {
        let mut found = 0u64;
        for c in &cands {
            for t in &targets {
                found += c.tally(&t.seen).found;
            }
        }
        found
    };
    let indexed = || {
        let index = KeyIndex::new(&targets);
        let mut found = 0u64;
        for c in &cands {
            let tallies = index.tallies(c, &targets);
            for ti in 0..targets.len() {
                found += KeyIndex::tally_of(&tallies, c, ti).found;
            }
        }
        found
    };
    assert_eq!(each(), indexed(), "both ways find the same");
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for _ in 0..5 {
        let t = Instant::now();
        black_box(each());
        a.push(t.elapsed());
        let t = Instant::now();
        black_box(indexed());
        b.push(t.elapsed());
    }
    median(a).as_secs_f64() / median(b).as_secs_f64()
}

/// The baseline of a row: the line of `benches/baseline.txt` whose words
/// before the ratio are the row's stage and data words.
fn baseline(stage: &str, data: &str) -> Option<f64> {
    BASELINE.lines().find_map(|l| {
        let (key, ratio) = l.trim().rsplit_once(char::is_whitespace)?;
        key.split_whitespace()
            .eq(stage.split_whitespace().chain(data.split_whitespace()))
            .then(|| ratio.parse::<f64>().ok())
            .flatten()
    })
}

/// A ratio printed for the reader and not checked: the `bson` crate's own
/// iterator against the floor, which moves with the crate's version.
fn info_row(stage: &str, data: &str, ratio: f64) -> bool {
    println!("| {stage} | {data} | {ratio:.2} | - | - | (not checked) |");
    true
}

/// Prints one row of the check; false when its ratio fell below the
/// tolerated share of its baseline.
fn check_row(stage: &str, data: &str, ratio: f64) -> bool {
    let base = baseline(stage, data);
    let (verdict, min, ok) = match base {
        Some(b) if ratio < b * CHECK_TOLERANCE => ("REGRESSED", b * CHECK_TOLERANCE, false),
        Some(b) => ("ok", b * CHECK_TOLERANCE, true),
        None => ("no baseline", 0.0, true),
    };
    println!(
        "| {stage} | {data} | {ratio:.2} | {} | {min:.2} | {verdict} |",
        base.map_or_else(|| "-".to_owned(), |b| format!("{b:.2}"))
    );
    ok
}

// ---------------------------------------------------------------------------
// Workload: the mongod log reader
// ---------------------------------------------------------------------------

/// A deterministic `mongod` 7.0-style JSON log: two of every three lines
/// are slow queries (finds, updates, deletes, aggregates over a few dozen
/// shapes with varying values), the rest other log lines.
fn write_log(path: &Path, mb: u64) -> u64 {
    let mut rng = Rng::new(7);
    let mut out = BufWriter::new(File::create(path).expect("create the log"));
    let target = mb * 1_000_000;
    let mut written = 0u64;
    let mut lines = 0u64;
    while written < target {
        let i = rng.next();
        let ms = 1 + i % 400;
        let coll = ["orders", "customers", "events", "items"][(i % 4) as usize];
        let line = match lines % 6 {
            0 | 3 => format!(
                r#"{{"t":{{"$date":"2026-01-01T00:00:{:02}.000+00:00"}},"s":"I","c":"COMMAND","id":51803,"ctx":"conn{}","msg":"Slow query","attr":{{"type":"command","ns":"shop.{coll}","command":{{"find":"{coll}","filter":{{"status":"s{}","qty":{{"$gte":{},"$lt":{}}},"tags":{{"$in":["a","b","c"]}}}},"sort":{{"at":-1}},"limit":20,"lsid":{{"id":{{"$uuid":"829b14b2-0a55-4ec5-9130-4ef7f1837581"}}}},"$db":"shop"}},"planSummary":"IXSCAN {{ status: 1, at: -1 }}","keysExamined":{},"docsExamined":{},"hasSortStage":false,"nreturned":20,"queryHash":"7C953B42","planCacheKey":"8F9FC8CC","reslen":4397,"locks":{{"Global":{{"acquireCount":{{"r":1}}}}}},"storage":{{"data":{{"bytesRead":237273}}}},"remote":"10.0.0.1:62755","protocol":"op_msg","durationMillis":{ms}}}}}"#,
                i % 60,
                i % 500,
                i % 7,
                i % 100,
                100 + i % 100,
                i % 1000,
                i % 900
            ),
            1 => format!(
                r#"{{"t":{{"$date":"2026-01-01T00:00:01.000+00:00"}},"s":"I","c":"WRITE","id":51803,"ctx":"conn{}","msg":"Slow query","attr":{{"type":"update","ns":"shop.{coll}","command":{{"q":{{"_id":{{"$oid":"65f20b835538c55aa02d9e{:02x}"}}}},"u":{{"$push":{{"events":{{"at":{{"$date":"2026-01-01T00:00:00Z"}},"n":{}}}}}}},"multi":false,"upsert":false}},"planSummary":"IDHACK","keysExamined":1,"docsExamined":1,"nMatched":1,"nModified":1,"numYields":0,"remote":"10.0.0.2:1","durationMillis":{ms}}}}}"#,
                i % 500,
                i % 256,
                i % 1000
            ),
            2 => format!(
                r#"{{"t":{{"$date":"2026-01-01T00:00:02.000+00:00"}},"s":"I","c":"COMMAND","id":51803,"ctx":"conn{}","msg":"Slow query","attr":{{"type":"command","ns":"shop.{coll}","command":{{"aggregate":"{coll}","pipeline":[{{"$match":{{"customer":"c{}"}}}},{{"$lookup":{{"from":"items","localField":"sku","foreignField":"sku","as":"item"}}}},{{"$group":{{"_id":"$customer","n":{{"$sum":1}}}}}}],"cursor":{{}},"$db":"shop"}},"planSummary":"COLLSCAN","keysExamined":0,"docsExamined":{},"nreturned":1,"durationMillis":{ms}}}}}"#,
                i % 500,
                i % 10_000,
                10_000 + i % 5000
            ),
            _ => format!(
                r#"{{"t":{{"$date":"2026-01-01T00:00:03.000+00:00"}},"s":"I","c":"NETWORK","id":22943,"ctx":"listener","msg":"Connection accepted","attr":{{"remote":"10.0.0.3:{}","uuid":{{"uuid":{{"$uuid":"829b14b2-0a55-4ec5-9130-4ef7f1837581"}}}},"connectionId":{},"connectionCount":12}}}}"#,
                i % 65_000,
                i % 100_000
            ),
        };
        out.write_all(line.as_bytes()).expect("write");
        out.write_all(b"\n").expect("write");
        written += line.len() as u64 + 1;
        lines += 1;
    }
    out.flush().expect("flush");
    lines
}

fn workload_bench(mb: u64, runs: usize) {
    let dir = std::env::temp_dir().join(format!("docshape-bench-log-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("mongod.log");
    let lines = write_log(&path, mb);
    let bytes = std::fs::metadata(&path).map_or(0, |m| m.len());
    let mut times = Vec::new();
    let mut shapes = 0;
    for _ in 0..runs {
        let t = Instant::now();
        let w = docshape::workload::read_logs(&path).expect("read the log");
        times.push(t.elapsed().as_secs_f64());
        shapes = w.shapes.len();
        black_box(w);
    }
    times.sort_by(f64::total_cmp);
    let med = times[times.len() / 2];
    println!(
        "| workload log reader | {:.0} MB, {} lines, {shapes} shapes | {:.2} s | {:.0} MB/s | {:.0} lines/s |",
        bytes as f64 / 1e6,
        lines,
        med,
        bytes as f64 / 1e6 / med,
        lines as f64 / med
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--columns MB`: decodes BSON columns (the compressed columns of
/// time-series buckets) — about `mb` megabytes of them, generated by the
/// test encoder as a server's buckets hold them (1,000 measurements each:
/// times a second apart, ObjectIds, steady and noisy doubles, counters,
/// short strings, flags, sub-objects) — and prints the median throughput
/// in megabytes of columns and values a second.
fn columns_bench(mb: u64, runs: usize) {
    use column_encoder::{bson_value, encode, Rng, Style, Used};
    let mut r = Rng::new(0xC01);
    let mut used = Used::default();
    let style = Style {
        literals: 0,
        interleaving: 100,
        repeating: 100,
        dense: 100,
    };
    let mut columns: Vec<(Vec<u8>, usize)> = Vec::new();
    let mut bytes = 0usize;
    let mut bucket = 0i64;
    while bytes < (mb as usize) << 20 {
        let at = bucket * 1_000;
        let fields: [Box<dyn Fn(i64) -> Bson>; 7] = [
            Box::new(|i| {
                Bson::DateTime(DateTime::from_millis(1_700_000_000_000 + (at + i) * 1_000))
            }),
            Box::new(|i| {
                let secs = 1_700_000_000 + ((at + i) / 10) as u64;
                Bson::ObjectId(object_id(secs, [1, 2, 3, 4, 5], (at + i) as u64))
            }),
            Box::new(|i| Bson::Double(20.0 + ((at + i) % 37) as f64 / 10.0)),
            Box::new(|i| Bson::Double(((at + i) as f64 * 0.731).sin())),
            Box::new(|i| Bson::Int32(((at + i) * 3 % 1_000) as i32)),
            Box::new(|i| Bson::String(format!("pump-{}", (at + i) % 9))),
            Box::new(|i| Bson::Document(doc! {"ok": i % 50 != 0, "load": (i % 100) as i32})),
        ];
        for f in &fields {
            let values: Vec<column_encoder::Value> =
                (0..1_000).map(|i| Some(bson_value(&f(i)))).collect();
            let col = encode(&values, &mut r, &style, &mut used);
            bytes += col.len();
            columns.push((col, values.len()));
        }
        bucket += 1;
    }
    let values: usize = columns.iter().map(|c| c.1).sum();
    let mut times = Vec::new();
    for _ in 0..runs.max(3) {
        let t = Instant::now();
        for (col, n) in &columns {
            let v =
                docshape::source::files::bsoncolumn::decode(col, *n).expect("the column decodes");
            assert_eq!(v.len(), *n);
            black_box(v);
        }
        times.push(t.elapsed().as_secs_f64());
    }
    times.sort_by(f64::total_cmp);
    let med = times[times.len() / 2];
    println!(
        "| BSON column decoder | {:.1} MB of columns, {} columns, {} values | {:.3} s | {:.0} MB/s | {:.1} M values/s |",
        bytes as f64 / 1e6,
        columns.len(),
        grouped(values as u64),
        med,
        bytes as f64 / 1e6 / med,
        values as f64 / 1e6 / med
    );
}

// ---------------------------------------------------------------------------
// Main
// ---------------------------------------------------------------------------

#[allow(clippy::struct_excessive_bools)]
struct Options {
    docs: u64,
    runs: usize,
    keep_files: bool,
    /// Only write the data sets (`.bson` and relaxed Extended JSON) here.
    write_data: Option<PathBuf>,
    /// The regression check CI runs (see `check`).
    check: bool,
    /// Also measure audits from a MongoDB-wire server (`$MONGODB_URI`, or a
    /// SecantusDB started from the project's `.venv`).
    server: bool,
    /// Run without `--bench` (as `cargo test --all-targets` does) and without
    /// `--docs`: a quick check that everything works, not a measurement.
    smoke: bool,
    /// `--workload MB`: time the `mongod` log reader on a generated log of
    /// about this many megabytes, and nothing else.
    workload_mb: Option<u64>,
    /// Megabytes of BSON columns to decode (`--columns`).
    columns_mb: Option<u64>,
    /// `--scale`: many collections, memory from a server, threads of the
    /// whole audit, a slow link (see `scale`), and nothing else.
    scale: bool,
    /// `--collections N` for `--scale` (a).
    collections: u64,
    /// `--server-docs N` for `--scale` (b).
    server_docs: u64,
    /// `--link-collections N` for `--scale` (d).
    link_collections: u64,
    /// `--no-server`: `--scale` without its server rows.
    no_server: bool,
    /// Whether `--docs` / `--runs` were given (`--scale` has its own defaults).
    docs_given: bool,
    runs_given: bool,
}

/// `--scale` defaults.
const SCALE_COLLECTIONS: u64 = 1_000;
const SCALE_SERVER_DOCS: u64 = 100_000;
const SCALE_DOCS: u64 = 100_000;
const SCALE_RUNS: usize = 5;
const SCALE_LINK_COLLECTIONS: u64 = 120;

/// Documents per collection in smoke-test mode.
const SMOKE_DOCS: u64 = 2_000;

fn parse_count(s: &str) -> u64 {
    s.replace(['_', ','], "")
        .parse()
        .unwrap_or_else(|_| panic!("not a document count: {s:?}"))
}

fn parse_args(args: &[String]) -> Options {
    let mut o = Options {
        docs: DEFAULT_DOCS,
        runs: DEFAULT_RUNS,
        keep_files: false,
        write_data: None,
        check: false,
        server: false,
        smoke: false,
        workload_mb: None,
        columns_mb: None,
        scale: false,
        collections: SCALE_COLLECTIONS,
        server_docs: SCALE_SERVER_DOCS,
        link_collections: SCALE_LINK_COLLECTIONS,
        no_server: false,
        docs_given: false,
        runs_given: false,
    };
    let mut bench = false;
    let mut sized = false;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--docs" => {
                o.docs = parse_count(it.next().expect("--docs needs a value"));
                sized = true;
                o.docs_given = true;
            }
            "--runs" => {
                o.runs = parse_count(it.next().expect("--runs needs a value")) as usize;
                o.runs_given = true;
            }
            "--scale" => {
                o.scale = true;
                sized = true;
            }
            "--collections" => {
                o.collections = parse_count(it.next().expect("--collections needs a count"));
            }
            "--server-docs" => {
                o.server_docs = parse_count(it.next().expect("--server-docs needs a count"));
            }
            "--link-collections" => {
                o.link_collections =
                    parse_count(it.next().expect("--link-collections needs a count"));
            }
            "--no-server" => o.no_server = true,
            "--keep-files" => o.keep_files = true,
            "--check" => o.check = true,
            "--server" => o.server = true,
            "--workload" => {
                o.workload_mb = Some(parse_count(it.next().expect("--workload needs megabytes")));
                sized = true;
            }
            "--columns" => {
                o.columns_mb = Some(parse_count(it.next().expect("--columns needs megabytes")));
                sized = true;
            }
            "--write-data" => {
                o.write_data = Some(PathBuf::from(
                    it.next().expect("--write-data needs a directory"),
                ));
            }
            // Cargo passes `--bench` to harness-less bench binaries.
            "--bench" => bench = true,
            s if s.starts_with("--docs=") => {
                o.docs = parse_count(&s["--docs=".len()..]);
                sized = true;
                o.docs_given = true;
            }
            s if s.starts_with("--runs=") => {
                o.runs = parse_count(&s["--runs=".len()..]) as usize;
                o.runs_given = true;
            }
            other => eprintln!("note: ignoring argument {other:?}"),
        }
    }
    if !bench && !sized {
        o.smoke = true;
        o.docs = SMOKE_DOCS;
        o.runs = 1;
    }
    o.docs = o.docs.max(1);
    o.runs = o.runs.max(1);
    o
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    for flag in [CHILD_FLAG, CHILD_AUDIT_FLAG] {
        if args.iter().any(|a| a == flag) {
            let paths: Vec<PathBuf> = args
                .windows(2)
                .filter(|w| w[0] == flag)
                .map(|w| PathBuf::from(&w[1]))
                .collect();
            if flag == CHILD_FLAG {
                child(&paths);
            } else {
                child_audit(&paths);
            }
            return;
        }
    }
    let opts = parse_args(&args);
    let n = opts.docs;
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    if let Some(dir) = &opts.write_data {
        write_data(dir, n, cores);
        return;
    }
    if let Some(mb) = opts.workload_mb {
        workload_bench(mb, opts.runs);
        return;
    }
    if let Some(mb) = opts.columns_mb {
        columns_bench(mb, opts.runs);
        return;
    }
    if opts.scale {
        scale(
            &ScaleOptions {
                collections: opts.collections.max(1),
                server_docs: opts.server_docs.max(1),
                docs: if opts.docs_given { n } else { SCALE_DOCS },
                runs: if opts.runs_given {
                    opts.runs
                } else {
                    SCALE_RUNS
                },
                link_collections: opts.link_collections.max(1),
                no_server: opts.no_server,
                keep_files: opts.keep_files,
            },
            cores,
        );
        return;
    }
    if opts.check {
        if !check(cores) {
            std::process::exit(1);
        }
        return;
    }
    let dir = std::env::temp_dir().join(format!("docshape-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("create a directory in the temp dir");

    let build = if cfg!(debug_assertions) {
        "debug build"
    } else {
        "release build"
    };
    println!("docshape profile benchmark ({build}; one core unless a row says otherwise)");
    if opts.smoke {
        println!(
            "smoke test: no --bench and no --docs given (as under `cargo test`), so only {SMOKE_DOCS} docs per collection and 1 run; use `cargo bench --bench profile` to measure"
        );
    }
    println!(
        "machine: {cores} core(s) available; runs per stage: {} (median reported)",
        opts.runs
    );
    println!("data dir: {}", dir.display());

    // --- Data ------------------------------------------------------------
    let t = Instant::now();
    let sets: Vec<Dataset> = Kind::ALL
        .iter()
        .map(|&kind| {
            let path = dir.join(format!("{}.bson", kind.name()));
            let mut docs = Vec::with_capacity(n as usize);
            let bytes = write_file(kind, n, cores, &path, Some(&mut docs));
            let json_path = dir.join(format!("{}.json", kind.name()));
            let json_bytes = write_ejson_file(kind, n, cores, &json_path);
            Dataset {
                kind,
                docs,
                bytes,
                path,
                json_path,
                json_bytes,
            }
        })
        .collect();
    let gen_secs = t.elapsed().as_secs_f64();
    let total_docs: u64 = sets.iter().map(|s| s.docs.len() as u64).sum();
    let total_bytes: u64 = sets.iter().map(|s| s.bytes).sum();
    println!("\ndata (generated in {gen_secs:.1} s, fixed seed):");
    for s in &sets {
        let elements = reference_walk(&s.docs);
        assert_eq!(
            (raw_walk(&s.docs), own_walk(&s.docs)),
            (elements, elements),
            "every walker sees every element"
        );
        let docs = s.docs.len() as u64;
        println!(
            "  {:<7} {:>11} docs  {:>8.1} MB  avg {:>5.0} B/doc  {:>5.1} elements/doc  {}",
            s.kind.name(),
            grouped(docs),
            mb(s.bytes),
            s.bytes as f64 / docs as f64,
            elements as f64 / docs as f64,
            s.path.display()
        );
    }
    println!(
        "  {:<7} {:>11} docs  {:>8.1} MB",
        "mixed",
        grouped(total_docs),
        mb(total_bytes)
    );

    // Sanity: both profiling paths see every document.
    for s in &sets {
        let p = profile_file(&s.path);
        assert_eq!(
            p.sampled,
            s.docs.len() as u64,
            "file profile saw every document"
        );
        assert_eq!(p.invalid, 0, "no invalid documents");
    }

    // --- Throughput --------------------------------------------------------
    println!("\nmeasuring (median of {} runs each) ...", opts.runs);
    let stages = [
        measure("raw walk floor", &sets, opts.runs, &|ds| {
            reference_walk(&ds.docs)
        }),
        measure("(ref) bson RawDocument", &sets, opts.runs, &|ds| {
            raw_walk(&ds.docs)
        }),
        measure("(ref) profile::raw walk", &sets, opts.runs, &|ds| {
            own_walk(&ds.docs)
        }),
        measure("profile (in memory)", &sets, opts.runs, &|ds| {
            profile_in_memory(&ds.docs).fields.len() as u64
        }),
        measure("read .bson + profile", &sets, opts.runs, &|ds| {
            profile_file(&ds.path).fields.len() as u64
        }),
        measure("read EJSON only", &sets, opts.runs, &|ds| {
            let file = File::open(&ds.json_path).expect("open benchmark data file");
            let mut bytes = 0u64;
            let n = docshape::source::files::ejson::read_documents_on(file, 1, &mut |doc| {
                bytes += doc.len() as u64;
            })
            .expect("benchmark data file reads cleanly");
            assert_eq!(n, ds.docs.len() as u64, "every document converted");
            black_box(bytes)
        }),
        measure(ejson_threads_label(cores), &sets, opts.runs, &|ds| {
            let file = File::open(&ds.json_path).expect("open benchmark data file");
            let mut bytes = 0u64;
            let n = docshape::source::files::ejson::read_documents_on(file, cores, &mut |doc| {
                bytes += doc.len() as u64;
            })
            .expect("benchmark data file reads cleanly");
            assert_eq!(n, ds.docs.len() as u64, "every document converted");
            black_box(bytes)
        }),
        measure("read EJSON + profile", &sets, opts.runs, &|ds| {
            profile_ejson_file(&ds.json_path).fields.len() as u64
        }),
        measure(threads_label(cores), &sets, opts.runs, &|ds| {
            profile_sharded(&ds.docs, cores).fields.len() as u64
        }),
        measure("audit --full .bson (cli)", &sets, opts.runs, &|ds| {
            let n = audit_binary(&ds.path);
            assert_eq!(n, ds.docs.len() as u64, "the audit read every document");
            n
        }),
        measure("audit --full EJSON (cli)", &sets, opts.runs, &|ds| {
            let n = audit_binary(&ds.json_path);
            assert_eq!(n, ds.docs.len() as u64, "the audit read every document");
            n
        }),
        measure(
            "audit --full .bson (cli, 1 thread)",
            &sets,
            opts.runs,
            &|ds| {
                let n = audit_binary_on(&ds.path, Some(1));
                assert_eq!(n, ds.docs.len() as u64, "the audit read every document");
                n
            },
        ),
        measure(
            "audit --full EJSON (cli, 1 thread)",
            &sets,
            opts.runs,
            &|ds| {
                let n = audit_binary_on(&ds.json_path, Some(1));
                assert_eq!(n, ds.docs.len() as u64, "the audit read every document");
                n
            },
        ),
    ];

    // --- Server ------------------------------------------------------------
    let server_rows = if opts.server {
        server_stages(&sets, opts.runs)
    } else {
        Vec::new()
    };

    // --- Memory ------------------------------------------------------------
    println!("measuring peak memory in child processes ...");
    let small: Vec<&Path> = sets.iter().map(|s| s.path.as_path()).collect();
    let small_report = run_child(CHILD_FLAG, &small);
    let small_audit = run_child(CHILD_AUDIT_FLAG, &small);
    let t = Instant::now();
    let big_paths: Vec<PathBuf> = Kind::ALL
        .iter()
        .map(|&kind| {
            let path = dir.join(format!("{}-x4.bson", kind.name()));
            write_file(kind, 4 * n, cores, &path, None);
            path
        })
        .collect();
    let big_gen_secs = t.elapsed().as_secs_f64();
    let big: Vec<&Path> = big_paths.iter().map(PathBuf::as_path).collect();
    let big_report = run_child(CHILD_FLAG, &big);
    let big_audit = run_child(CHILD_AUDIT_FLAG, &big);
    if !opts.keep_files {
        for p in &big_paths {
            let _ = std::fs::remove_file(p);
        }
    }

    // --- Report ------------------------------------------------------------
    println!(
        "\n## docshape profile benchmark ({cores} cores; {} docs = {} each of {}; {:.1} MB BSON)\n",
        grouped(total_docs),
        grouped(n),
        Kind::ALL.map(Kind::name).join(", "),
        mb(total_bytes)
    );
    println!("| stage                   | data   |      docs/s |    MB/s | vs raw walk |");
    println!("|-------------------------|--------|------------:|--------:|------------:|");
    let floor = &stages[0];
    for st in &stages {
        let mut rows: Vec<(&str, u64, u64, Duration, Duration)> =
            vec![("mixed", total_docs, total_bytes, st.mixed(), floor.mixed())];
        for (i, s) in sets.iter().enumerate() {
            rows.push((
                s.kind.name(),
                s.docs.len() as u64,
                s.bytes,
                st.per_dataset(i),
                floor.per_dataset(i),
            ));
        }
        for (data, docs, bytes, time, floor_time) in rows {
            let secs = time.as_secs_f64();
            println!(
                "| {:<23} | {:<6} | {:>11} | {:>7.1} | {:>10.2}x |",
                st.name,
                data,
                grouped((docs as f64 / secs) as u64),
                mb(bytes) / secs,
                floor_time.as_secs_f64() / secs
            );
        }
    }
    for (label, data, docs, bytes, secs, trips) in &server_rows {
        println!(
            "| {label:<23} | {data:<6} | {:>11} | {:>7.1} | {trips:>10} trips |",
            grouped((*docs as f64 / secs) as u64),
            mb(*bytes) / secs,
        );
    }
    println!(
        "\nvs raw walk = throughput / throughput of the raw walk floor on the same data: a recursive walk written in the benchmark (type, UTF-8 key, value length, UTF-8 strings), which no crate upgrade moves."
    );
    println!(
        "(ref) rows: the same recursive walk with bson::RawDocument::iter, and with docshape::profile::raw::elements (framing only, no accounting)."
    );
    println!("The .bson files are read from the page cache (written just before).");
    println!(
        "MB/s counts BSON bytes on every row, EJSON rows included ({} of EJSON per {} of BSON here), so rows compare.",
        sets.iter().map(|s| format!("{:.1} MB", mb(s.json_bytes))).collect::<Vec<_>>().join(" + "),
        sets.iter().map(|s| format!("{:.1} MB", mb(s.bytes))).collect::<Vec<_>>().join(" + "),
    );
    println!(
        "(cli) rows run the release binary `docshape audit FILE --full --format json` (process start, every stage, {cores} threads)."
    );

    let kb = |r: &ChildReport| {
        r.hwm_kb
            .map_or_else(|| "n/a".to_owned(), |k| format!("{} kB", grouped(k)))
    };
    for (what, small, big) in [
        (
            "a child that only streams the .bson files through read_bson + Profiler",
            &small_report,
            &big_report,
        ),
        (
            "a child running the whole audit --full (all threads, JSON report) on each .bson file",
            &small_audit,
            &big_audit,
        ),
    ] {
        println!("\npeak RSS (VmHWM) of {what}:");
        for (label, r) in [("N ", small), ("4N", big)] {
            println!(
                "- {label}: {:>11} docs, {:>8.1} MB -> peak {:>10}  ({} paths, {:.1} s, {:.1} MB/s)",
                grouped(r.docs),
                mb(r.bytes),
                kb(r),
                r.fields,
                r.secs,
                mb(r.bytes) / r.secs
            );
        }
        match (small.hwm_kb, big.hwm_kb) {
            (Some(a), Some(b)) if a > 0 => println!(
                "- peak ratio 4N / N = {:.2} (4x the documents; 4N files generated by streaming in {big_gen_secs:.1} s)",
                b as f64 / a as f64
            ),
            _ => println!("- peak ratio: n/a (VmHWM not available on this platform)"),
        }
    }

    if opts.keep_files {
        println!("\nkept data files in {}", dir.display());
    } else {
        let _ = std::fs::remove_dir_all(&dir);
    }
}
