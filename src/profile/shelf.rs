//! Where the profiles of finished collections wait for the later stages.
//!
//! A run holds every collection until the relationship stage has seen them
//! all, and a profile in memory takes about 1 KiB per path (its structs,
//! example values as JSON trees, histograms). So each finished profile's
//! paths are put on the shelf in a compact binary form (about a sixth of
//! that), kept in memory up to the shelf's share of the run's budget and
//! written past it to an unnamed temporary file, which the system removes
//! when the run ends, however it ends. The stages that read a profile take
//! it back one collection at a time ([`ProfileRef::get`]).
//!
//! The encoding is the shelf's own, not the report's serde form: the report
//! leaves out the working data the later stages need (segments, histograms).

use std::borrow::Cow;
use std::io::{Read, Seek, SeekFrom, Write};
use std::sync::{Arc, Mutex, PoisonError};

use super::raw::BsonType;
use super::sketch::{LogHistogram, Summary};
use super::{Distinctness, FieldProfile, Profile, Seg};

/// Why a shelved profile cannot be taken back (its `Display` the phrase the
/// report's note ends with).
#[derive(Debug, thiserror::Error)]
pub enum ShelfError {
    #[error("the profile could not be read back from its temporary file: {0}")]
    ReadBack(std::io::Error),
    #[error("the profile was already taken back")]
    AlreadyTaken,
    #[error("the shelved profile is damaged")]
    Damaged,
}

/// A profile's place on the shelf.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slot(usize);

/// Where one shelved profile is.
enum Place {
    Memory(Arc<[u8]>),
    Disk { at: u64, len: usize },
    Gone,
}

struct Store {
    places: Vec<Place>,
    in_memory: usize,
    file: Option<std::fs::File>,
    on_disk: u64,
    /// Profiles written to the file.
    spilled: usize,
    /// The first failure to write or read the file, said in the report.
    failure: Option<String>,
}

/// The profiles of the run's finished collections, in memory up to a
/// limit, on disk beyond it.
pub struct Shelf {
    limit: usize,
    store: Mutex<Store>,
}

/// What the shelf holds and where, for the report and the memory note.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ShelfUse {
    pub profiles: usize,
    pub in_memory: usize,
    pub on_disk: u64,
    pub spilled: usize,
    pub failure: Option<String>,
}

impl Shelf {
    /// A shelf that keeps up to `limit` bytes of encoded profiles in memory.
    pub(crate) fn new(limit: usize) -> Shelf {
        Shelf {
            limit,
            store: Mutex::new(Store {
                places: Vec::new(),
                in_memory: 0,
                file: None,
                on_disk: 0,
                spilled: 0,
                failure: None,
            }),
        }
    }

    fn store(&self) -> std::sync::MutexGuard<'_, Store> {
        // A panic elsewhere while the lock was held leaves the store whole:
        // every change to it is one assignment.
        self.store.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Puts away the paths and document sizes of `profile`, leaving its
    /// whole-document figures (`sampled`, `doc_size`, …) where they are.
    pub(crate) fn put(&self, profile: &mut Profile) -> Slot {
        let mut bytes = Vec::with_capacity(64 * profile.fields.len() + 64);
        encode(&profile.doc_sizes, &profile.fields, &mut bytes);
        profile.fields = Vec::new();
        profile.doc_sizes = LogHistogram::default();
        let mut s = self.store();
        let at = s.places.len();
        let place = if s.in_memory + bytes.len() <= self.limit || s.failure.is_some() {
            None
        } else {
            s.spill(&bytes)
        };
        let place = place.unwrap_or_else(|| {
            s.in_memory += bytes.len();
            Place::Memory(bytes.into())
        });
        s.places.push(place);
        Slot(at)
    }

    /// The paths and document sizes put away at `slot`, or why they could
    /// not be read back.
    fn fetch(&self, slot: Slot) -> Result<(LogHistogram, Vec<FieldProfile>), ShelfError> {
        let bytes: Arc<[u8]> = {
            let mut s = self.store();
            match s.places.get(slot.0) {
                Some(Place::Memory(b)) => Arc::clone(b),
                Some(&Place::Disk { at, len }) => match s.read_back(at, len) {
                    Ok(b) => b.into(),
                    Err(e) => {
                        let e = ShelfError::ReadBack(e);
                        s.failure.get_or_insert(e.to_string());
                        return Err(e);
                    }
                },
                Some(Place::Gone) | None => return Err(ShelfError::AlreadyTaken),
            }
        };
        decode(&bytes).ok_or(ShelfError::Damaged)
    }

    /// Puts the paths at `slot` back into `profile`.
    pub(crate) fn restore(&self, profile: &mut Profile, slot: Slot) -> Result<(), ShelfError> {
        let (sizes, fields) = self.fetch(slot)?;
        profile.doc_sizes = sizes;
        profile.fields = fields;
        Ok(())
    }

    /// As [`Shelf::restore`], and frees the slot: for the last stage that
    /// reads the profile.
    pub(crate) fn take(&self, profile: &mut Profile, slot: Slot) -> Result<(), ShelfError> {
        self.restore(profile, slot)?;
        let mut s = self.store();
        if let Some(place) = s.places.get_mut(slot.0) {
            if let Place::Memory(b) = std::mem::replace(place, Place::Gone) {
                s.in_memory -= b.len();
            }
        }
        Ok(())
    }

    /// A copy of `profile` with its paths back from `slot`; on a failure,
    /// the copy has no paths and the failure is kept for [`Shelf::usage`].
    fn copy_of(&self, profile: &Profile, slot: Slot) -> Profile {
        let (doc_sizes, fields) = match self.fetch(slot) {
            Ok(x) => x,
            Err(e) => {
                self.store().failure.get_or_insert(e.to_string());
                (LogHistogram::default(), Vec::new())
            }
        };
        Profile {
            doc_sizes,
            fields,
            first_error: profile.first_error.clone(),
            ..*profile
        }
    }

    pub(crate) fn usage(&self) -> ShelfUse {
        let s = self.store();
        ShelfUse {
            profiles: s.places.len(),
            in_memory: s.in_memory,
            on_disk: s.on_disk,
            spilled: s.spilled,
            failure: s.failure.clone(),
        }
    }
}

impl Store {
    /// Writes `bytes` at the end of the file (made on first use); `None`
    /// when that fails, and the failure is kept.
    fn spill(&mut self, bytes: &[u8]) -> Option<Place> {
        let written = (|| -> std::io::Result<Place> {
            if self.file.is_none() {
                self.file = Some(tempfile::tempfile()?);
            }
            let at = self.on_disk;
            let file = self.file.as_mut().ok_or(std::io::ErrorKind::NotFound)?;
            file.seek(SeekFrom::Start(at))?;
            file.write_all(bytes)?;
            Ok(Place::Disk {
                at,
                len: bytes.len(),
            })
        })();
        match written {
            Ok(p) => {
                self.on_disk += bytes.len() as u64;
                self.spilled += 1;
                Some(p)
            }
            Err(e) => {
                self.failure = Some(format!(
                    "profiles could not be written to a temporary file ({e}), so they were kept in memory"
                ));
                None
            }
        }
    }

    fn read_back(&mut self, at: u64, len: usize) -> std::io::Result<Vec<u8>> {
        let file = self.file.as_mut().ok_or(std::io::ErrorKind::NotFound)?;
        file.seek(SeekFrom::Start(at))?;
        let mut buf = vec![0; len];
        file.read_exact(&mut buf)?;
        Ok(buf)
    }
}

/// A collection's profile as the later stages read it: at hand, or on the
/// shelf with only its whole-document figures at hand.
#[derive(Clone, Copy)]
pub struct ProfileRef<'a> {
    profile: &'a Profile,
    shelved: Option<(&'a Shelf, Slot)>,
}

impl<'a> ProfileRef<'a> {
    pub(crate) fn here(profile: &'a Profile) -> ProfileRef<'a> {
        ProfileRef {
            profile,
            shelved: None,
        }
    }

    pub(crate) fn shelved(profile: &'a Profile, shelf: &'a Shelf, slot: Slot) -> ProfileRef<'a> {
        ProfileRef {
            profile,
            shelved: Some((shelf, slot)),
        }
    }

    /// The whole profile: borrowed when at hand, read back from the shelf
    /// otherwise (a profile that cannot be read back has no paths, and the
    /// shelf says why).
    pub(crate) fn get(&self) -> Cow<'a, Profile> {
        match self.shelved {
            None => Cow::Borrowed(self.profile),
            Some((shelf, slot)) => Cow::Owned(shelf.copy_of(self.profile, slot)),
        }
    }

    /// Documents profiled, without reading the paths back.
    pub(crate) fn sampled(&self) -> u64 {
        self.profile.sampled
    }
}

// ---------------------------------------------------------------------------
// The encoding: unsigned LEB128 integers, floats as their bits, strings and
// byte strings with their length first.
// ---------------------------------------------------------------------------

pub(super) struct Writer<'a>(&'a mut Vec<u8>);

impl Writer<'_> {
    pub(super) fn u64(&mut self, mut v: u64) {
        loop {
            let byte = (v & 0x7f) as u8;
            v >>= 7;
            if v == 0 {
                self.0.push(byte);
                return;
            }
            self.0.push(byte | 0x80);
        }
    }

    fn usize(&mut self, v: usize) {
        self.u64(v as u64);
    }

    fn bool(&mut self, v: bool) {
        self.0.push(u8::from(v));
    }

    fn f64(&mut self, v: f64) {
        self.0.extend_from_slice(&v.to_bits().to_le_bytes());
    }

    fn bytes(&mut self, b: &[u8]) {
        self.usize(b.len());
        self.0.extend_from_slice(b);
    }

    fn str(&mut self, s: &str) {
        self.bytes(s.as_bytes());
    }

    fn option<T>(&mut self, v: Option<&T>, put: impl FnOnce(&mut Self, &T)) {
        self.bool(v.is_some());
        if let Some(v) = v {
            put(self, v);
        }
    }
}

pub(super) struct Reader<'a>(&'a [u8]);

impl Reader<'_> {
    pub(super) fn u64(&mut self) -> Option<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let (&byte, rest) = self.0.split_first()?;
            self.0 = rest;
            v |= u64::from(byte & 0x7f).checked_shl(shift)?;
            if byte & 0x80 == 0 {
                return Some(v);
            }
        }
        None
    }

    fn usize(&mut self) -> Option<usize> {
        usize::try_from(self.u64()?).ok()
    }

    fn bool(&mut self) -> Option<bool> {
        let (&b, rest) = self.0.split_first()?;
        self.0 = rest;
        match b {
            0 => Some(false),
            1 => Some(true),
            _ => None,
        }
    }

    fn f64(&mut self) -> Option<f64> {
        let (bits, rest) = self.0.split_first_chunk::<8>()?;
        self.0 = rest;
        Some(f64::from_bits(u64::from_le_bytes(*bits)))
    }

    fn bytes(&mut self) -> Option<&[u8]> {
        let n = self.usize()?;
        if n > self.0.len() {
            return None;
        }
        let (b, rest) = self.0.split_at(n);
        self.0 = rest;
        Some(b)
    }

    fn string(&mut self) -> Option<String> {
        String::from_utf8(self.bytes()?.to_vec()).ok()
    }

    /// `None`: damage; `Some(None)`: a value that was absent.
    #[allow(clippy::option_option)]
    fn option<T>(&mut self, get: impl FnOnce(&mut Self) -> Option<T>) -> Option<Option<T>> {
        if self.bool()? {
            get(self).map(Some)
        } else {
            Some(None)
        }
    }

    /// A count of items to come, each at least one byte: more than the
    /// bytes left is damage, not a reason to allocate.
    fn count(&mut self) -> Option<usize> {
        let n = self.usize()?;
        (n <= self.0.len()).then_some(n)
    }
}

fn encode(doc_sizes: &LogHistogram, fields: &[FieldProfile], out: &mut Vec<u8>) {
    let mut w = Writer(out);
    doc_sizes.write_to(&mut w);
    w.usize(fields.len());
    for f in fields {
        field(&mut w, f);
    }
}

fn decode(bytes: &[u8]) -> Option<(LogHistogram, Vec<FieldProfile>)> {
    let mut r = Reader(bytes);
    let sizes = LogHistogram::read_from(&mut r)?;
    let n = r.count()?;
    let mut fields = Vec::with_capacity(n);
    for _ in 0..n {
        fields.push(read_field(&mut r)?);
    }
    r.0.is_empty().then_some((sizes, fields))
}

fn pair_f64(w: &mut Writer<'_>, v: &[f64; 2]) {
    w.f64(v[0]);
    w.f64(v[1]);
}

fn pair_str(w: &mut Writer<'_>, v: &[String; 2]) {
    w.str(&v[0]);
    w.str(&v[1]);
}

fn summary(w: &mut Writer<'_>, s: &Summary) {
    w.u64(s.min);
    w.f64(s.avg);
    w.u64(s.p50);
    w.u64(s.p95);
    w.u64(s.max);
}

fn read_summary(r: &mut Reader<'_>) -> Option<Summary> {
    Some(Summary {
        min: r.u64()?,
        avg: r.f64()?,
        p50: r.u64()?,
        p95: r.u64()?,
        max: r.u64()?,
    })
}

/// Every member, named: a new one is a compile error here until it is
/// encoded.
fn field(w: &mut Writer<'_>, f: &FieldProfile) {
    let FieldProfile {
        path,
        segments,
        name,
        depth,
        count,
        presence,
        presence_ci,
        values,
        types,
        array,
        array_lengths,
        bytes_avg,
        bytes_share,
        distinct,
        examples,
        number_range,
        date_range,
        objectid_time,
        string_length,
        string_chars,
        children,
    } = f;
    w.str(path);
    w.usize(segments.len());
    for s in segments {
        match s {
            Seg::Key(k) => {
                w.bool(true);
                w.str(k);
            }
            Seg::Elem => w.bool(false),
        }
    }
    w.str(name);
    w.u64(u64::from(*depth));
    w.u64(*count);
    w.f64(*presence);
    w.option(presence_ci.as_ref(), pair_f64);
    w.u64(*values);
    w.usize(types.len());
    for (t, n) in types {
        w.usize(t.slot());
        w.u64(*n);
    }
    w.option(array.as_ref(), summary);
    w.option(array_lengths.as_ref(), |w, h| h.write_to(w));
    w.f64(*bytes_avg);
    w.f64(*bytes_share);
    w.option(distinct.as_ref(), |w, d| {
        let Distinctness {
            estimate,
            exact,
            frequencies,
            unique,
        } = d;
        w.u64(*estimate);
        w.bool(*exact);
        w.option(frequencies.as_ref(), |w, (a, b)| {
            w.u64(*a);
            w.u64(*b);
        });
        w.bool(*unique);
    });
    w.usize(examples.len());
    for e in examples {
        // Serialising a JSON value to bytes cannot fail (its keys are
        // strings); an empty text would read back as damage, not as a
        // wrong value.
        w.bytes(&serde_json::to_vec(e).unwrap_or_default());
    }
    w.option(number_range.as_ref(), pair_f64);
    w.option(date_range.as_ref(), pair_str);
    w.option(objectid_time.as_ref(), pair_str);
    w.option(string_length.as_ref(), |w, [a, b]| {
        w.u64(*a);
        w.u64(*b);
    });
    w.option(string_chars.as_ref(), |w, [a, b]| {
        w.u64(*a);
        w.u64(*b);
    });
    w.usize(*children);
}

fn read_field(r: &mut Reader<'_>) -> Option<FieldProfile> {
    let f64s = |r: &mut Reader<'_>| Some([r.f64()?, r.f64()?]);
    let strs = |r: &mut Reader<'_>| Some([r.string()?, r.string()?]);
    let path = r.string()?;
    let n = r.count()?;
    let mut segments = Vec::with_capacity(n);
    for _ in 0..n {
        segments.push(if r.bool()? {
            Seg::Key(r.string()?)
        } else {
            Seg::Elem
        });
    }
    let name = r.string()?;
    let depth = u32::try_from(r.u64()?).ok()?;
    let count = r.u64()?;
    let presence = r.f64()?;
    let presence_ci = r.option(f64s)?;
    let values = r.u64()?;
    let n = r.count()?;
    let mut types = Vec::with_capacity(n);
    for _ in 0..n {
        let t = *BsonType::ALL.get(r.usize()?)?;
        types.push((t, r.u64()?));
    }
    let array = r.option(read_summary)?;
    let array_lengths = r.option(LogHistogram::read_from)?;
    let bytes_avg = r.f64()?;
    let bytes_share = r.f64()?;
    let distinct = r.option(|r| {
        Some(Distinctness {
            estimate: r.u64()?,
            exact: r.bool()?,
            frequencies: r.option(|r| Some((r.u64()?, r.u64()?)))?,
            unique: r.bool()?,
        })
    })?;
    let n = r.count()?;
    let mut examples = Vec::with_capacity(n);
    for _ in 0..n {
        examples.push(serde_json::from_slice(r.bytes()?).ok()?);
    }
    Some(FieldProfile {
        path,
        segments,
        name,
        depth,
        count,
        presence,
        presence_ci,
        values,
        types,
        array,
        array_lengths,
        bytes_avg,
        bytes_share,
        distinct,
        examples,
        number_range: r.option(f64s)?,
        date_range: r.option(strs)?,
        objectid_time: r.option(strs)?,
        string_length: r.option(|r| Some([r.u64()?, r.u64()?]))?,
        string_chars: r.option(|r| Some([r.u64()?, r.u64()?]))?,
        children: r.usize()?,
    })
}

impl LogHistogram {
    /// The histogram in the shelf's encoding: the buckets from the first
    /// that counts anything (sizes of large documents start hundreds of
    /// buckets in), then the exact figures.
    pub(super) fn write_to(&self, w: &mut Writer<'_>) {
        let (buckets, count, sum, min, max) = self.parts();
        let skip = buckets.iter().take_while(|&&c| c == 0).count();
        w.usize(skip);
        w.usize(buckets.len() - skip);
        for &c in &buckets[skip..] {
            w.u64(c);
        }
        w.u64(count);
        w.u64(sum as u64);
        w.u64((sum >> 64) as u64);
        w.u64(min);
        w.u64(max);
    }

    pub(super) fn read_from(r: &mut Reader<'_>) -> Option<LogHistogram> {
        let skip = r.usize()?;
        let n = r.count()?;
        // More buckets than any u64 falls in is damage.
        if skip.checked_add(n)? > 1 << 12 {
            return None;
        }
        let mut buckets = Vec::with_capacity(skip + n);
        buckets.resize(skip, 0);
        for _ in 0..n {
            buckets.push(r.u64()?);
        }
        let count = r.u64()?;
        let sum = u128::from(r.u64()?) | (u128::from(r.u64()?) << 64);
        LogHistogram::from_parts(buckets, count, sum, r.u64()?, r.u64()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::Profiler;
    use bson::{doc, Bson, Document};

    fn raw(d: &Document) -> Vec<u8> {
        let mut v = Vec::new();
        d.to_writer(&mut v).expect("serialise");
        v
    }

    /// Documents with every kind of path a profile records: nested
    /// objects and arrays, every scalar type, ranges, examples that are
    /// JSON objects, sketches past their exact limit, odd names.
    fn varied(n: i64) -> Profile {
        let mut p = Profiler::default();
        for i in 0..n {
            let mut d = doc! {
                "_id": bson::oid::ObjectId::from_bytes([(i % 250) as u8; 12]),
                "n": i,
                "f": i as f64 / 3.0,
                "s": format!("v{}", i % 300),
                "at": bson::DateTime::from_millis(1_700_000_000_000 + i * 86_400_000),
                "tags": (0..(i % 7)).map(|k| Bson::String(format!("t{k}"))).collect::<Vec<_>>(),
                "items": [{"sku": format!("k{i}"), "qty": (i % 5) as i32, "m": [[1, 2], [3]]}],
                "weird.name": {"$x": true, "": Bson::Null},
                "big": "x".repeat(usize::try_from(i % 3000).unwrap_or(0)),
                "dec": Bson::Decimal128(bson::Decimal128::from_bytes([1; 16])),
                "bin": bson::Binary { subtype: bson::spec::BinarySubtype::Generic, bytes: vec![7; 3] },
            };
            if i % 4 == 0 {
                d.insert("opt", Bson::Null);
            }
            p.add(&raw(&d)).expect("valid document");
        }
        p.finish()
    }

    fn same(a: &Profile, b: &Profile) {
        assert_eq!(format!("{a:?}"), format!("{b:?}"));
    }

    #[test]
    fn a_profile_comes_back_from_memory_as_it_went() {
        for n in [0, 1, 40, 700] {
            let whole = varied(n);
            let shelf = Shelf::new(usize::MAX);
            let mut p = whole.clone();
            let slot = shelf.put(&mut p);
            assert!(p.fields.is_empty() && p.doc_sizes.count() == 0);
            assert_eq!(p.sampled, whole.sampled);
            same(&ProfileRef::shelved(&p, &shelf, slot).get(), &whole);
            shelf.take(&mut p, slot).expect("taken back");
            same(&p, &whole);
            assert_eq!(shelf.usage().in_memory, 0);
        }
    }

    #[test]
    fn past_its_limit_the_shelf_writes_to_disk_and_reads_back_the_same() {
        let shelf = Shelf::new(2_000);
        let wholes: Vec<Profile> = (1..12).map(|k| varied(k * 13)).collect();
        let mut held: Vec<(Profile, Slot)> = wholes
            .iter()
            .map(|w| {
                let mut p = w.clone();
                let slot = shelf.put(&mut p);
                (p, slot)
            })
            .collect();
        let used = shelf.usage();
        assert!(used.in_memory <= 2_000, "{used:?}");
        assert!(used.spilled > 0 && used.on_disk > 0, "{used:?}");
        assert_eq!(used.failure, None);
        // Read back out of order, and from several threads at once.
        std::thread::scope(|s| {
            for (k, (p, slot)) in held.iter().enumerate().rev() {
                let (shelf, whole) = (&shelf, &wholes[k]);
                s.spawn(move || same(&ProfileRef::shelved(p, shelf, *slot).get(), whole));
            }
        });
        for ((p, slot), whole) in held.iter_mut().zip(&wholes) {
            shelf.take(p, *slot).expect("taken back");
            same(p, whole);
        }
        let after = shelf.usage();
        assert_eq!((after.spilled, after.in_memory), (used.spilled, 0));
    }

    #[test]
    fn the_encoding_is_a_fraction_of_the_profile_in_memory() {
        let p = varied(700);
        let mut bytes = Vec::new();
        encode(&p.doc_sizes, &p.fields, &mut bytes);
        let structs = p.fields.len() * std::mem::size_of::<FieldProfile>();
        assert!(
            bytes.len() * 2 < structs,
            "{} encoded bytes for {} of structs alone",
            bytes.len(),
            structs
        );
    }

    #[test]
    fn damaged_bytes_read_as_damage_never_as_a_panic() {
        let p = varied(60);
        let mut bytes = Vec::new();
        encode(&p.doc_sizes, &p.fields, &mut bytes);
        assert!(decode(&bytes).is_some());
        for cut in (0..bytes.len()).step_by(7) {
            assert!(decode(&bytes[..cut]).is_none(), "cut at {cut}");
        }
        let mut flipped = bytes.clone();
        for i in (0..flipped.len()).step_by(5) {
            flipped[i] ^= 0xff;
            let _ = decode(&flipped);
            flipped[i] ^= 0xff;
        }
        let mut longer = bytes;
        longer.push(0);
        assert!(decode(&longer).is_none());
        // A count larger than the bytes left is not allocated.
        let mut huge = Vec::new();
        Writer(&mut huge).u64(0);
        Writer(&mut huge).u64(u64::MAX >> 1);
        assert!(decode(&huge).is_none());
    }
}
