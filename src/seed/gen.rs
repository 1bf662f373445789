//! Deterministic building blocks for the data sets: ObjectIds with chosen
//! timestamps, a small pseudo-random generator, dates and blobs.

use bson::{oid::ObjectId, spec::BinarySubtype, Binary, Bson, DateTime};

/// The "present" of every data set: 2026-10-01T00:00:00Z. Ages are measured
/// back from here, so the data is the same whenever it is generated.
pub const NOW: u32 = 1_790_812_800;
pub const DAY: u32 = 86_400;
pub const HOUR: u32 = 3_600;

/// ObjectIds for one variant of one data set: the timestamp is the
/// document's creation time, bytes 4..8 name the data set and variant (so
/// ids never collide across collections), bytes 8..12 count.
pub struct Ids {
    tag: u32,
    next: u32,
}

impl Ids {
    pub(crate) fn new(dataset: u8, variant: u8) -> Ids {
        Ids {
            tag: 0xD5_00_00_00 | (u32::from(dataset) << 8) | u32::from(variant),
            next: 0,
        }
    }

    /// A new id created `secs` seconds after the epoch.
    pub(crate) fn at(&mut self, secs: u32) -> ObjectId {
        let mut b = [0u8; 12];
        b[..4].copy_from_slice(&secs.to_be_bytes());
        b[4..8].copy_from_slice(&self.tag.to_be_bytes());
        b[8..].copy_from_slice(&self.next.to_be_bytes());
        self.next += 1;
        ObjectId::from_bytes(b)
    }

    /// A new id created `days` days before [`NOW`].
    pub(crate) fn days_ago(&mut self, days: u32) -> ObjectId {
        self.at(NOW - days * DAY)
    }
}

/// The date of `secs` seconds after the epoch.
pub(crate) fn date(secs: u32) -> Bson {
    Bson::DateTime(DateTime::from_millis(i64::from(secs) * 1000))
}

/// SplitMix64: small, fast, and the same everywhere.
pub struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `lo..=hi`.
    pub(crate) fn range(&mut self, lo: u32, hi: u32) -> u32 {
        lo + (self.next_u64() % u64::from(hi - lo + 1)) as u32
    }

    pub(crate) fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.range(0, items.len() as u32 - 1) as usize]
    }

    /// A value with two decimals in `lo..hi`.
    pub(crate) fn money(&mut self, lo: u32, hi: u32) -> f64 {
        f64::from(self.range(lo * 100, hi * 100)) / 100.0
    }
}

/// `n` bytes of deterministic binary data (an image stand-in).
pub(crate) fn blob(n: usize, seed: u8) -> Bson {
    Bson::Binary(Binary {
        subtype: BinarySubtype::Generic,
        bytes: blob_bytes(n, seed),
    })
}

pub(crate) fn blob_bytes(n: usize, seed: u8) -> Vec<u8> {
    (0..n)
        .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed) ^ ((i >> 8) as u8))
        .collect()
}

pub const FIRST: [&str; 12] = [
    "Ana", "Bruno", "Chen", "Dana", "Emil", "Fatima", "Goro", "Hana", "Ivan", "Jun", "Karin", "Li",
];
pub const LAST: [&str; 10] = [
    "Zhang", "Martin", "Okafor", "Silva", "Novak", "Kim", "Moreau", "Wang", "Rossi", "Sato",
];
pub const CITIES: [&str; 8] = [
    "Beijing", "Lyon", "Lagos", "Porto", "Osaka", "Austin", "Shenzhen", "Gdansk",
];
pub const STREETS: [&str; 6] = [
    "Main St",
    "Harbour Rd",
    "Elm Ave",
    "Station Rd",
    "Hill St",
    "River Ln",
];

/// A person's name, different for every `i` below 120.
pub(crate) fn person(i: u32) -> String {
    format!(
        "{} {}",
        FIRST[(i % 12) as usize],
        LAST[((i / 12) % 10) as usize]
    )
}

pub(crate) fn street(rng: &mut Rng) -> String {
    format!("{} {}", rng.range(1, 250), rng.pick(&STREETS))
}

/// A plausible e-mail address for person `i`.
pub(crate) fn email(i: u32, domain: &str) -> String {
    format!(
        "{}.{i}@{domain}.example.com",
        person(i).to_lowercase().replace(' ', ".")
    )
}
