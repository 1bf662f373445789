//! The BSON column of a compressed time-series bucket (`BinData` subtype
//! 7), decoded back into the values it holds.
//!
//! A column is a run of control bytes, each followed by what it governs,
//! and ends with a zero byte:
//!
//! * **Literal** — a control byte that is a BSON type tag (`0x01`–`0x1F`,
//!   `0x7F`, `0xFF`) starts one element with an empty name, written whole.
//!   It is the next value, and the base the deltas after it are read from.
//! * **Simple-8b blocks** — a control byte `0x80`–`0xDF`: its low nibble
//!   plus one is the number of 64-bit little-endian blocks that follow; its
//!   high nibble is the scale of doubles (`0x9`–`0xD`: ×1, ×10, ×100,
//!   ×10⁴, ×10⁸; `0x8`: the double's bits read as an integer, and the only
//!   one any other type takes). Each block's low four bits are its
//!   selector: how many slots of how many bits it holds (60 of 1 bit down
//!   to 1 of 60); selectors 7 and 8 use their next four bits to pick an
//!   extended layout where each slot also carries a count of trailing zero
//!   bits (or nibbles) to shift its value by; selector 15 repeats the last
//!   slot (120 to 1,920 times). A slot of all one bits is a missing value
//!   (the measurement lacks the field); any other slot is a zig-zag
//!   encoded delta from the previous value: a plain delta for integers,
//!   booleans, decimals, doubles (of the scaled integer), strings and
//!   binaries up to 16 bytes (as 128-bit integers; a longer string is a
//!   base of 0); a delta of deltas for
//!   dates, timestamps and ObjectIds (their counter and time bytes); only a
//!   zero, a repeat, for every other type.
//! * **Interleaved** — `0xF0`, `0xF1` or `0xF2` starts a run of objects
//!   (arrays, for `0xF2`): a reference object follows whose every scalar
//!   (`0xF0`: arrays count as scalars; otherwise their elements do) starts
//!   a sub-column of its own. The sub-columns' control bytes follow each
//!   other in the order the objects need them, each object taking one
//!   value from every sub-column in the reference's order; a sub-object
//!   none of whose fields are present is left out (unless it is empty in
//!   the reference), an object with no field present is a missing value. A
//!   zero byte, where the first sub-column would read its next control
//!   byte, ends the run.
//!
//! Whatever does not follow these rules — an unknown control byte,
//! selector or type, a delta the type cannot take, a value out of its
//! type's range, a sub-column left unfinished — is refused with why,
//! never guessed at. The values decoded, their bytes and the work done are
//! bounded by the caller's limits.

use crate::profile::raw::{self, BsonType};

/// Most bytes of decoded values one column may hold by default.
pub const MAX_BYTES: usize = 64 << 20;

/// Most reference-object entries visited in one column (a bound on the
/// work of interleaved runs whose objects write nothing).
const MAX_WORK: usize = 1 << 26;

/// Deepest nesting of a reference object.
const MAX_DEPTH: usize = 200;

/// Scale multipliers of doubles, by scale index (index 5: the bits as an
/// integer).
const SCALES: [f64; 5] = [1.0, 10.0, 100.0, 10_000.0, 100_000_000.0];
const SCALE_BITS: u8 = 5;

/// 2^53: past it, not every integer is a double.
const SAFE_INTEGER: f64 = 9_007_199_254_740_992.0;

/// One value of a column: where its bytes are in [`Values`]; tag 0 is a
/// missing value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Cell {
    tag: u8,
    start: u32,
    len: u32,
}

const MISSING: Cell = Cell {
    tag: 0,
    start: 0,
    len: 0,
};

/// A column's values, in order: each its BSON type tag and value bytes,
/// or none where the measurement lacks the field. A value repeated by the
/// column is held once.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Values {
    bytes: Vec<u8>,
    cells: Vec<Cell>,
}

impl Values {
    /// How many values (missing ones included).
    pub fn len(&self) -> usize {
        self.cells.len()
    }

    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    /// Value `i`: `None` past the end, `Some(None)` when missing.
    pub fn get(&self, i: usize) -> Option<Option<(u8, &[u8])>> {
        self.cells.get(i).map(|c| self.open(*c))
    }

    /// The values in order.
    pub fn iter(&self) -> impl Iterator<Item = Option<(u8, &[u8])>> + '_ {
        self.cells.iter().map(|c| self.open(*c))
    }

    /// Bytes held for the decoded values.
    pub fn held(&self) -> usize {
        self.bytes.len()
    }

    fn open(&self, c: Cell) -> Option<(u8, &[u8])> {
        (c.tag != 0).then(|| {
            let start = c.start as usize;
            (c.tag, &self.bytes[start..start + c.len as usize])
        })
    }
}

/// Why a column cannot be decoded: the byte of the column where decoding
/// stopped, and what was wrong there (its `Display` is the sentence the
/// user sees).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{fault}")]
pub struct ColumnError {
    /// The byte of the column whose control byte was being read.
    pub at: usize,
    pub fault: Fault,
}

/// What is wrong with a column.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum Fault {
    /// Its bytes break the format in a way a phrase says.
    #[error("{0}")]
    Malformed(&'static str),
    #[error("{0}")]
    Raw(#[from] raw::RawError),
    #[error("{count} bytes follow its closing zero byte")]
    Trailing { count: usize },
    #[error("unknown control byte 0x{control:02x} at byte {at}")]
    UnknownControl { control: u8, at: usize },
    #[error("the {n} Simple-8b blocks at byte {at} run past its end")]
    BlocksPastEnd { n: usize, at: usize },
    #[error("a Simple-8b block has selector {selector} with unknown extension {ext}")]
    UnknownExtension { selector: u8, ext: u8 },
    #[error("the double {value} cannot be scaled by the control byte's scale index {scale}")]
    Unscalable { value: f64, scale: u8 },
    #[error("a control byte scales doubles (scale index {scale}) where no double precedes")]
    ScaleWithoutDouble { scale: u8 },
    #[error("a literal of type 0x{tag:02x} is cut short")]
    LiteralCutShort { tag: u8 },
    #[error("an int32 delta gives {value}, past the int32 range")]
    Int32Range { value: i64 },
    #[error("a boolean delta gives {value}")]
    BoolDelta { value: i64 },
    #[error("a non-zero delta follows a value of type 0x{tag:02x}, which takes only repeats")]
    RepeatsOnly { tag: u8 },
    #[error("more than {max} values")]
    TooManyValues { max: usize },
    #[error("its values take more than {max} bytes")]
    TooManyBytes { max: usize },
    #[error("the literal at byte {at} is JavaScript with scope, which a column cannot hold")]
    LiteralWithScope { at: usize },
    #[error("the literal at byte {at} has unknown type 0x{tag:02x}")]
    LiteralUnknownType { at: usize, tag: u8 },
    #[error("the literal at byte {at} has a name")]
    LiteralNamed { at: usize },
    #[error("the literal at byte {at} runs past the column")]
    LiteralPastEnd { at: usize },
    #[error("the literal at byte {at} is not a valid {ty}")]
    LiteralInvalid { at: usize, ty: BsonType },
    #[error("the reference object at byte {at} runs past the column")]
    ReferencePastEnd { at: usize },
    #[error("the reference object at byte {at} is invalid: {why}")]
    ReferenceInvalid { at: usize, why: raw::RawError },
    #[error("the reference object at byte {at} has no scalar")]
    ReferenceNoScalar { at: usize },
    #[error("a reference object nests deeper than {max}")]
    TooDeep { max: usize },
    #[error("a reference object holds an invalid {ty}")]
    ReferenceInvalidValue { ty: BsonType },
    #[error("an interleaved run takes more than {max} steps")]
    TooMuchWork { max: usize },
}

/// The values of a column, at most `max` of them and [`MAX_BYTES`] of
/// decoded bytes.
pub fn decode(column: &[u8], max: usize) -> Result<Values, ColumnError> {
    decode_within(column, max, MAX_BYTES)
}

/// The values of a column, at most `max_values` of them holding at most
/// `max_bytes` bytes; past either, the column is refused.
pub fn decode_within(
    column: &[u8],
    max_values: usize,
    max_bytes: usize,
) -> Result<Values, ColumnError> {
    let mut d = Decoder {
        col: column,
        at: 0,
        out: Values::default(),
        max_values,
        max_bytes: max_bytes.min(u32::MAX as usize),
        work: 0,
    };
    match d.run() {
        Ok(()) => Ok(d.out),
        Err(fault) => Err(ColumnError { at: d.at, fault }),
    }
}

/// Where a value's bytes are: in the column itself or in the decoded bytes.
#[derive(Clone, Copy, Debug)]
struct Val {
    tag: u8,
    in_out: bool,
    start: usize,
    len: usize,
}

/// What a delta means for a sub-column, by the type of its last literal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// No value yet: only missing values may come.
    Empty,
    Int32,
    Int64,
    Bool,
    Double,
    Date,
    Timestamp,
    ObjectId,
    /// Strings and JavaScript code, as 128-bit integers.
    Text,
    Binary,
    Decimal,
    /// Any other type: only repeats.
    Repeat,
}

impl Kind {
    fn of(tag: u8) -> Kind {
        match tag {
            0x10 => Kind::Int32,
            0x12 => Kind::Int64,
            0x08 => Kind::Bool,
            0x01 => Kind::Double,
            0x09 => Kind::Date,
            0x11 => Kind::Timestamp,
            0x07 => Kind::ObjectId,
            0x02 | 0x0D => Kind::Text,
            0x05 => Kind::Binary,
            0x13 => Kind::Decimal,
            _ => Kind::Repeat,
        }
    }

    fn wide(self) -> bool {
        matches!(self, Kind::Text | Kind::Binary | Kind::Decimal)
    }

    fn delta_of_delta(self) -> bool {
        matches!(self, Kind::Date | Kind::Timestamp | Kind::ObjectId)
    }
}

/// One Simple-8b slot: missing, or the raw (still zig-zag encoded) value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Slot {
    Missing,
    Value(u128),
}

/// The layout of a block that is not a repeat: `n` slots of `bits` bits
/// from bit `shift`, the low `count_bits` of each a count of `mult` zero
/// bits to shift its value by.
#[derive(Clone, Copy, Debug)]
struct Layout {
    n: u8,
    bits: u8,
    shift: u8,
    count_bits: u8,
    mult: u8,
}

/// Slots and bits of the 14 plain selectors (1–14).
const PLAIN: [(u8, u8); 14] = [
    (60, 1),
    (30, 2),
    (20, 3),
    (15, 4),
    (12, 5),
    (10, 6),
    (8, 7),
    (7, 8),
    (6, 10),
    (5, 12),
    (4, 15),
    (3, 20),
    (2, 30),
    (1, 60),
];
/// Value bits of selector 7's extensions 1–9 (a 4-bit count of zero bits).
const SEVEN: [u8; 9] = [2, 3, 4, 5, 7, 10, 14, 24, 52];
/// Value bits of selector 8's extensions 1–7 (a 4-bit count of zero
/// nibbles) and 8–13 (a 5-bit count of zero nibbles).
const EIGHT: [u8; 13] = [4, 5, 7, 10, 14, 24, 52, 4, 6, 9, 13, 23, 51];

/// A block: its layout, or a repeat count.
enum Block {
    Slots(Layout),
    Repeat(u32),
}

fn block(word: u64) -> Result<Block, Fault> {
    let selector = (word & 0xF) as u8;
    let ext = ((word >> 4) & 0xF) as u8;
    let plain = |s: u8, shift: u8| {
        let (n, bits) = PLAIN[usize::from(s) - 1];
        Block::Slots(Layout {
            n,
            bits,
            shift,
            count_bits: 0,
            mult: 0,
        })
    };
    let extended = |value_bits: u8, count_bits: u8, mult: u8| {
        let bits = value_bits + count_bits;
        Block::Slots(Layout {
            n: 56 / bits,
            bits,
            shift: 8,
            count_bits,
            mult,
        })
    };
    Ok(match (selector, ext) {
        (0, _) => return Err(Fault::Malformed("a Simple-8b block has selector 0")),
        (15, _) => Block::Repeat((u32::from(ext) + 1) * 120),
        (7 | 8, 0) => plain(selector, 8),
        (7, 1..=9) => extended(SEVEN[usize::from(ext) - 1], 4, 1),
        (8, 1..=7) => extended(EIGHT[usize::from(ext) - 1], 4, 4),
        (8, 8..=13) => extended(EIGHT[usize::from(ext) - 1], 5, 4),
        (7 | 8, _) => return Err(Fault::UnknownExtension { selector, ext }),
        _ => plain(selector, 4),
    })
}

/// A column, or one field of an interleaved run: its last value, what
/// deltas from it mean, and the Simple-8b blocks it is reading.
#[derive(Clone, Debug)]
struct Stream {
    last: Option<Val>,
    kind: Kind,
    /// The last value as an integer (64-bit kinds; for deltas of deltas
    /// the value itself).
    base: i64,
    /// For deltas of deltas: the last delta.
    step: i64,
    /// The last value as a 128-bit integer, if it has one.
    wide: Option<i128>,
    /// The scale of doubles of the current control byte.
    scale: u8,
    /// The last slot read, which a repeat block repeats.
    prev: Slot,
    /// Blocks not yet read (offset in the column, how many).
    next_block: usize,
    blocks_left: usize,
    word: u64,
    layout: Layout,
    slot: u8,
    repeats: u32,
}

impl Stream {
    fn new() -> Stream {
        Stream {
            last: None,
            kind: Kind::Empty,
            base: 0,
            step: 0,
            wide: None,
            scale: SCALE_BITS,
            prev: Slot::Value(0),
            next_block: 0,
            blocks_left: 0,
            word: 0,
            layout: Layout {
                n: 0,
                bits: 0,
                shift: 0,
                count_bits: 0,
                mult: 0,
            },
            slot: 0,
            repeats: 0,
        }
    }

    /// Whether slots are left in the blocks being read.
    fn pending(&self) -> bool {
        self.repeats > 0 || self.slot < self.layout.n || self.blocks_left > 0
    }

    /// The next slot of the blocks being read; `None` once they are done.
    fn next_slot(&mut self, col: &[u8]) -> Result<Option<Slot>, Fault> {
        loop {
            if self.repeats > 0 {
                self.repeats -= 1;
                return Ok(Some(self.prev));
            }
            if self.slot < self.layout.n {
                let l = self.layout;
                let at = u32::from(l.shift) + u32::from(self.slot) * u32::from(l.bits);
                self.slot += 1;
                let mask = (1u64 << l.bits) - 1;
                let raw = (self.word >> at) & mask;
                let slot = if raw == mask {
                    Slot::Missing
                } else {
                    let value = u128::from(raw >> l.count_bits);
                    let zeros =
                        u32::from((raw & ((1 << l.count_bits) - 1)) as u8) * u32::from(l.mult);
                    if value != 0 && value.leading_zeros() < zeros {
                        return Err(Fault::Malformed(
                            "a Simple-8b slot shifts its value past 128 bits",
                        ));
                    }
                    Slot::Value(if value == 0 { 0 } else { value << zeros })
                };
                self.prev = slot;
                return Ok(Some(slot));
            }
            if self.blocks_left == 0 {
                return Ok(None);
            }
            let at = self.next_block;
            let word = col
                .get(at..at + 8)
                .and_then(|b| b.try_into().ok())
                .map(u64::from_le_bytes)
                .ok_or(Fault::Malformed("its Simple-8b blocks run past its end"))?;
            self.next_block += 8;
            self.blocks_left -= 1;
            match block(word)? {
                Block::Repeat(n) => {
                    self.repeats = n;
                    self.layout.n = 0;
                    self.slot = 0;
                }
                Block::Slots(l) => {
                    self.word = word;
                    self.layout = l;
                    self.slot = 0;
                }
            }
        }
    }

    /// Starts reading the `n` blocks at `at`, under a control byte of scale
    /// index `scale`; the last value is `last` (its bytes).
    fn start_blocks(&mut self, at: usize, n: usize, scale: u8, last: &[u8]) -> Result<(), Fault> {
        if self.kind == Kind::Double {
            let v =
                raw::value::f64(last).ok_or(Fault::Malformed("a double literal is cut short"))?;
            self.base = encode_double(v, scale).ok_or(Fault::Unscalable { value: v, scale })?;
        } else if scale != SCALE_BITS {
            return Err(Fault::ScaleWithoutDouble { scale });
        }
        self.scale = scale;
        self.next_block = at;
        self.blocks_left = n;
        self.layout.n = 0;
        self.slot = 0;
        self.repeats = 0;
        Ok(())
    }

    /// Takes `val` (bytes `bytes`) as a literal: the new last value and
    /// base of deltas.
    fn literal(&mut self, val: Val, bytes: &[u8]) -> Result<(), Fault> {
        let kind = Kind::of(val.tag);
        let short = Fault::LiteralCutShort { tag: val.tag };
        self.base = 0;
        self.step = 0;
        self.wide = None;
        match kind {
            Kind::Int32 => self.base = i64::from(raw::value::i32(bytes).ok_or(short.clone())?),
            Kind::Int64 | Kind::Date | Kind::Timestamp => {
                self.base = raw::value::i64(bytes).ok_or(short.clone())?;
            }
            Kind::Bool => {
                self.base = match bytes {
                    [0] => 0,
                    [1] => 1,
                    _ => return Err(Fault::Malformed("a boolean literal is neither 0 nor 1")),
                }
            }
            Kind::ObjectId => {
                let b = bytes.get(..12).ok_or(short.clone())?;
                self.base = i64::from_le_bytes([b[11], b[3], b[10], b[2], b[9], b[1], b[0], 0]);
            }
            Kind::Text => {
                let text = text_of(bytes)
                    .ok_or(Fault::Malformed("a string literal has an invalid length"))?;
                // A string no integer holds (longer than 16 bytes, or
                // starting with a zero byte) is a base of 0: the next
                // string that fits is written as a delta from 0.
                self.wide = Some(encode_text(text).unwrap_or(0));
            }
            Kind::Binary => {
                let (_, data) = binary_of(bytes)
                    .ok_or(Fault::Malformed("a binary literal has an invalid length"))?;
                if data.len() <= 16 {
                    let mut b = [0u8; 16];
                    b[..data.len()].copy_from_slice(data);
                    self.wide = Some(i128::from_le_bytes(b));
                }
            }
            Kind::Decimal => {
                let b: [u8; 16] = bytes
                    .get(..16)
                    .and_then(|b| b.try_into().ok())
                    .ok_or(short.clone())?;
                self.wide = Some(i128::from_le_bytes(b));
            }
            Kind::Double | Kind::Repeat | Kind::Empty => {}
        }
        self.kind = kind;
        self.last = Some(val);
        self.prev = Slot::Value(0);
        self.blocks_left = 0;
        self.layout.n = 0;
        self.slot = 0;
        self.repeats = 0;
        Ok(())
    }

    /// What `slot` makes of the value after the last: missing, the last
    /// value again, or a new value of the last one's type (its bytes in
    /// `buf`, their length returned).
    fn apply(&mut self, slot: Slot, last: &[u8], buf: &mut [u8; 24]) -> Result<Step, Fault> {
        let Slot::Value(raw) = slot else {
            return Ok(Step::Missing);
        };
        if self.last.is_none() {
            return Err(Fault::Malformed("a delta comes before any value"));
        }
        if self.kind.wide() {
            let delta = unzigzag128(raw);
            if delta == 0 {
                return Ok(Step::Repeat);
            }
            let Some(prev) = self.wide else {
                return Err(Fault::Malformed(
                    "a delta follows a binary longer than 16 bytes",
                ));
            };
            let v = prev.wrapping_add(delta);
            let n = match self.kind {
                Kind::Text => {
                    let b = v.to_le_bytes();
                    let len = b.iter().rposition(|&x| x != 0).map_or(0, |i| i + 1);
                    buf[..4].copy_from_slice(&(len as i32 + 1).to_le_bytes());
                    for (k, &x) in b[..len].iter().rev().enumerate() {
                        buf[4 + k] = x;
                    }
                    buf[4 + len] = 0;
                    len + 5
                }
                Kind::Binary => {
                    let (head, data) = binary_of(last)
                        .ok_or(Fault::Malformed("a binary value has an invalid length"))?;
                    let b = v.to_le_bytes();
                    if b[data.len()..].iter().any(|&x| x != 0) {
                        return Err(Fault::Malformed(
                            "a binary delta spills past the value's length",
                        ));
                    }
                    buf[..5].copy_from_slice(head);
                    buf[5..5 + data.len()].copy_from_slice(&b[..data.len()]);
                    5 + data.len()
                }
                _ => {
                    buf[..16].copy_from_slice(&v.to_le_bytes());
                    16
                }
            };
            self.wide = Some(v);
            return Ok(Step::New(n));
        }
        let raw = u64::try_from(raw)
            .map_err(|_| Fault::Malformed("a delta is wider than its 64-bit type"))?;
        let delta = unzigzag64(raw);
        if self.kind.delta_of_delta() {
            self.step = self.step.wrapping_add(delta);
            if self.step == 0 {
                return Ok(Step::Repeat);
            }
            self.base = self.base.wrapping_add(self.step);
        } else {
            if delta == 0 {
                return Ok(Step::Repeat);
            }
            self.base = self.base.wrapping_add(delta);
        }
        let v = self.base;
        let n = match self.kind {
            Kind::Int32 => {
                let v = i32::try_from(v).map_err(|_| Fault::Int32Range { value: v })?;
                buf[..4].copy_from_slice(&v.to_le_bytes());
                4
            }
            Kind::Int64 | Kind::Date | Kind::Timestamp => {
                buf[..8].copy_from_slice(&v.to_le_bytes());
                8
            }
            Kind::Bool => {
                buf[0] = match v {
                    0 | 1 => v as u8,
                    _ => return Err(Fault::BoolDelta { value: v }),
                };
                1
            }
            Kind::Double => {
                let d = if self.scale == SCALE_BITS {
                    f64::from_bits(v as u64)
                } else {
                    v as f64 / SCALES[usize::from(self.scale)]
                };
                buf[..8].copy_from_slice(&d.to_le_bytes());
                8
            }
            Kind::ObjectId => {
                if !(0..1 << 56).contains(&v) {
                    return Err(Fault::Malformed(
                        "an ObjectId delta gives more than its 7 counter and time bytes",
                    ));
                }
                let e = v.to_le_bytes();
                let unique = last
                    .get(4..9)
                    .ok_or(Fault::Malformed("an ObjectId is cut short"))?;
                buf[..4].copy_from_slice(&[e[6], e[5], e[3], e[1]]);
                buf[4..9].copy_from_slice(unique);
                buf[9..12].copy_from_slice(&[e[4], e[2], e[0]]);
                12
            }
            _ => {
                return Err(Fault::RepeatsOnly {
                    tag: self.last.map_or(0, |l| l.tag),
                })
            }
        };
        Ok(Step::New(n))
    }
}

/// What a slot makes of a sub-column's next value.
enum Step {
    Missing,
    Repeat,
    /// A new value: its bytes, this many, are in the buffer.
    New(usize),
}

fn unzigzag64(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

fn unzigzag128(v: u128) -> i128 {
    ((v >> 1) as i128) ^ -((v & 1) as i128)
}

/// A double as an integer under scale index `scale`: scaled and rounded,
/// if that gives back exactly its bits (index 5: its bits).
fn encode_double(v: f64, scale: u8) -> Option<i64> {
    if scale == SCALE_BITS {
        return Some(v.to_bits() as i64);
    }
    let mult = *SCALES.get(usize::from(scale))?;
    let scaled = v * mult;
    if !(-SAFE_INTEGER..=SAFE_INTEGER).contains(&scaled) {
        return None;
    }
    let n = scaled.round() as i64;
    ((n as f64 / mult).to_bits() == v.to_bits()).then_some(n)
}

/// A string as a 128-bit integer: its bytes reversed, little-endian, if
/// it has at most 16 and does not start with a zero byte.
fn encode_text(text: &[u8]) -> Option<i128> {
    if text.len() > 16 || text.first() == Some(&0) {
        return None;
    }
    let mut b = [0u8; 16];
    for (k, &x) in text.iter().rev().enumerate() {
        b[k] = x;
    }
    Some(i128::from_le_bytes(b))
}

/// The text of a string value (length prefix, bytes, zero byte).
fn text_of(v: &[u8]) -> Option<&[u8]> {
    let n = usize::try_from(raw::value::i32(v)?).ok()?;
    if n == 0 || v.len() != 4 + n || v[v.len() - 1] != 0 {
        return None;
    }
    Some(&v[4..v.len() - 1])
}

/// The head (length, subtype) and data of a binary value.
fn binary_of(v: &[u8]) -> Option<(&[u8], &[u8])> {
    let n = usize::try_from(raw::value::i32(v)?).ok()?;
    (v.len() == 5 + n).then(|| v.split_at(5))
}

/// The control byte of a literal: a BSON type tag.
fn is_literal(c: u8) -> bool {
    c & 0xE0 == 0 || c == 0x7F || c == 0xFF
}

/// One step of an interleaved run's reference object.
#[derive(Clone, Copy, Debug)]
enum Entry {
    /// A sub-object (or the root) opens: its name (in the column), type,
    /// and whether it is kept when none of its fields is present.
    Enter {
        name: (usize, usize),
        tag: u8,
        keep_empty: bool,
    },
    /// A scalar: its name and sub-column.
    Scalar {
        name: (usize, usize),
        stream: usize,
    },
    Exit,
}

struct Decoder<'a> {
    col: &'a [u8],
    at: usize,
    out: Values,
    max_values: usize,
    max_bytes: usize,
    work: usize,
}

impl Decoder<'_> {
    fn run(&mut self) -> Result<(), Fault> {
        let mut reg = Stream::new();
        loop {
            let Some(&control) = self.col.get(self.at) else {
                return Err(Fault::Malformed("it ends without its closing zero byte"));
            };
            if control == 0 {
                if self.at + 1 != self.col.len() {
                    return Err(Fault::Trailing {
                        count: self.col.len() - self.at - 1,
                    });
                }
                return Ok(());
            }
            if is_literal(control) {
                let val = self.literal_at(self.at)?;
                self.at = val.start + val.len;
                let cell = self.keep(val)?;
                let out_val = Val {
                    tag: val.tag,
                    in_out: true,
                    start: cell.start as usize,
                    len: cell.len as usize,
                };
                reg.literal(out_val, self.bytes_of(out_val))?;
                self.push(cell)?;
            } else if (0xF0..=0xF2).contains(&control) {
                let last = self.interleaved(control)?;
                reg = Stream::new();
                if let Some(cell) = last {
                    reg.kind = Kind::Repeat;
                    reg.last = Some(Val {
                        tag: cell.tag,
                        in_out: true,
                        start: cell.start as usize,
                        len: cell.len as usize,
                    });
                }
            } else {
                self.blocks(&mut reg, control)?;
                while let Some(slot) = reg.next_slot(self.col)? {
                    self.regular(&mut reg, slot)?;
                }
            }
        }
    }

    /// Reads the control byte `control` of Simple-8b blocks at `self.at`
    /// for `s`.
    fn blocks(&mut self, s: &mut Stream, control: u8) -> Result<(), Fault> {
        let scale = match control >> 4 {
            0x8 => SCALE_BITS,
            h @ 0x9..=0xD => h - 0x9,
            _ => {
                return Err(Fault::UnknownControl {
                    control,
                    at: self.at,
                })
            }
        };
        let n = usize::from(control & 0xF) + 1;
        let start = self.at + 1;
        if start + 8 * n > self.col.len() {
            return Err(Fault::BlocksPastEnd { n, at: self.at });
        }
        let last = s.last;
        let last = last.map_or(&[][..], |l| self.bytes_of(l));
        s.start_blocks(start, n, scale, last)?;
        self.at = start + 8 * n;
        Ok(())
    }

    /// One value of the regular (not interleaved) column from `slot`.
    fn regular(&mut self, s: &mut Stream, slot: Slot) -> Result<(), Fault> {
        let mut buf = [0u8; 24];
        let last = s.last;
        let step = s.apply(slot, last.map_or(&[][..], |l| self.bytes_of(l)), &mut buf)?;
        let cell = match (step, last) {
            (Step::Missing, _) => MISSING,
            (Step::Repeat, Some(l)) => Cell {
                tag: l.tag,
                start: l.start as u32,
                len: l.len as u32,
            },
            (Step::New(n), Some(l)) => {
                let start = self.grow(n)?;
                self.out.bytes.extend_from_slice(&buf[..n]);
                let val = Val {
                    tag: l.tag,
                    in_out: true,
                    start,
                    len: n,
                };
                s.last = Some(val);
                Cell {
                    tag: l.tag,
                    start: start as u32,
                    len: n as u32,
                }
            }
            (_, None) => return Err(Fault::Malformed("a delta comes before any value")),
        };
        self.push(cell)
    }

    fn push(&mut self, cell: Cell) -> Result<(), Fault> {
        if self.out.cells.len() >= self.max_values {
            return Err(Fault::TooManyValues {
                max: self.max_values,
            });
        }
        self.out.cells.push(cell);
        Ok(())
    }

    /// Makes room for `n` more decoded bytes; where they start.
    fn grow(&mut self, n: usize) -> Result<usize, Fault> {
        let at = self.out.bytes.len();
        if at + n > self.max_bytes {
            return Err(Fault::TooManyBytes {
                max: self.max_bytes,
            });
        }
        Ok(at)
    }

    fn bytes_of(&self, v: Val) -> &[u8] {
        let all = if v.in_out {
            &self.out.bytes[..]
        } else {
            self.col
        };
        &all[v.start..v.start + v.len]
    }

    /// Copies a literal's value into the decoded bytes.
    fn keep(&mut self, v: Val) -> Result<Cell, Fault> {
        let start = self.grow(v.len)?;
        self.out
            .bytes
            .extend_from_slice(&self.col[v.start..v.start + v.len]);
        Ok(Cell {
            tag: v.tag,
            start: start as u32,
            len: v.len as u32,
        })
    }

    /// The literal whose control byte is at `at`: its type and value.
    fn literal_at(&self, at: usize) -> Result<Val, Fault> {
        let tag = self.col[at];
        let ty = match BsonType::from_tag(tag) {
            Some(BsonType::JavascriptWithScope) => return Err(Fault::LiteralWithScope { at }),
            Some(t) => t,
            None => return Err(Fault::LiteralUnknownType { at, tag }),
        };
        if self.col.get(at + 1) != Some(&0) {
            return Err(Fault::LiteralNamed { at });
        }
        let start = at + 2;
        let len = raw::value_len(ty, self.col, start, self.col.len())
            .filter(|&l| start + l <= self.col.len())
            .ok_or(Fault::LiteralPastEnd { at })?;
        let value = &self.col[start..start + len];
        let bad = match ty {
            BsonType::String | BsonType::Javascript | BsonType::Symbol => text_of(value).is_none(),
            BsonType::Object | BsonType::Array => raw::elements(value).is_err(),
            _ => false,
        };
        if bad {
            return Err(Fault::LiteralInvalid { at, ty });
        }
        Ok(Val {
            tag,
            in_out: false,
            start,
            len,
        })
    }

    /// An interleaved run starting at `self.at` with `control`; the last
    /// value it gave (none: missing).
    fn interleaved(&mut self, control: u8) -> Result<Option<Cell>, Fault> {
        let ref_at = self.at + 1;
        let len = raw::doc_len(&self.col[ref_at.min(self.col.len())..])
            .filter(|&n| n >= 5 && ref_at + n <= self.col.len())
            .ok_or(Fault::ReferencePastEnd { at: ref_at })?;
        let reference = &self.col[ref_at..ref_at + len];
        raw::elements(reference).map_err(|why| Fault::ReferenceInvalid { at: ref_at, why })?;
        let root_tag = if control == 0xF2 { 0x04 } else { 0x03 };
        let mut entries = Vec::new();
        let mut streams = Vec::new();
        self.schema(
            ref_at,
            len,
            (ref_at, 0),
            root_tag,
            control != 0xF0,
            0,
            &mut entries,
            &mut streams,
        )?;
        if streams.is_empty() {
            return Err(Fault::ReferenceNoScalar { at: ref_at });
        }
        self.at = ref_at + len;
        if self.col.get(self.at) == Some(&0) {
            return Err(Fault::Malformed("an interleaved run holds no object"));
        }
        let mut last = None;
        loop {
            match self.object(&entries, &mut streams)? {
                Some(cell) => {
                    self.push(cell)?;
                    last = (cell.tag != 0).then_some(cell);
                }
                None => {
                    if streams.iter().any(Stream::pending) {
                        return Err(Fault::Malformed(
                            "an interleaved run ends with values left in its sub-columns",
                        ));
                    }
                    return Ok(last);
                }
            }
        }
    }

    /// The entries of the reference (sub-)object at `at` (`len` bytes).
    #[allow(clippy::too_many_arguments)]
    fn schema(
        &self,
        at: usize,
        len: usize,
        name: (usize, usize),
        tag: u8,
        arrays: bool,
        depth: usize,
        entries: &mut Vec<Entry>,
        streams: &mut Vec<Stream>,
    ) -> Result<(), Fault> {
        if depth > MAX_DEPTH {
            return Err(Fault::TooDeep { max: MAX_DEPTH });
        }
        entries.push(Entry::Enter {
            name,
            tag,
            keep_empty: len == 5,
        });
        let doc = &self.col[at..at + len];
        for el in raw::elements(doc)? {
            let el = el?;
            let key_at = at + (el.key.as_ptr() as usize - doc.as_ptr() as usize);
            let value_at = at + (el.value.as_ptr() as usize - doc.as_ptr() as usize);
            let name = (key_at, el.key.len());
            let sub = el.ty == BsonType::Object || (arrays && el.ty == BsonType::Array);
            if sub {
                self.schema(
                    value_at,
                    el.value.len(),
                    name,
                    el.ty as u8,
                    arrays,
                    depth + 1,
                    entries,
                    streams,
                )?;
            } else {
                if el.ty == BsonType::JavascriptWithScope {
                    return Err(Fault::Malformed(
                        "a reference object holds JavaScript with scope",
                    ));
                }
                let bad = match el.ty {
                    BsonType::Javascript | BsonType::Symbol => text_of(el.value).is_none(),
                    BsonType::Object | BsonType::Array => raw::elements(el.value).is_err(),
                    _ => false,
                };
                if bad {
                    return Err(Fault::ReferenceInvalidValue { ty: el.ty });
                }
                let mut s = Stream::new();
                s.literal(
                    Val {
                        tag: el.ty as u8,
                        in_out: false,
                        start: value_at,
                        len: el.value.len(),
                    },
                    el.value,
                )?;
                entries.push(Entry::Scalar {
                    name,
                    stream: streams.len(),
                });
                streams.push(s);
            }
        }
        entries.push(Entry::Exit);
        Ok(())
    }

    /// The next object of an interleaved run: its cell (tag 0: missing),
    /// or `None` where the run ends.
    fn object(&mut self, entries: &[Entry], streams: &mut [Stream]) -> Result<Option<Cell>, Fault> {
        let begin = self.out.bytes.len();
        // Each open (sub-)object: where its element starts, where its
        // length goes, whether it is kept empty.
        let mut open: Vec<(usize, usize, bool)> = Vec::new();
        let mut first = true;
        for e in entries {
            self.work += 1;
            if self.work > MAX_WORK {
                return Err(Fault::TooMuchWork { max: MAX_WORK });
            }
            match *e {
                Entry::Enter {
                    name,
                    tag,
                    keep_empty,
                } => {
                    let head = self.out.bytes.len();
                    if !open.is_empty() {
                        self.put_name(tag, name)?;
                    }
                    let at = self.grow(4)?;
                    self.out.bytes.extend_from_slice(&[0; 4]);
                    open.push((head, at, keep_empty));
                }
                Entry::Exit => {
                    let Some((head, at, keep_empty)) = open.pop() else {
                        return Err(Fault::Malformed("a reference object's entries do not nest"));
                    };
                    if self.out.bytes.len() == at + 4 && !keep_empty {
                        // No field present: the sub-object is left out,
                        // with its name.
                        self.out.bytes.truncate(head);
                    } else {
                        self.grow(1)?;
                        self.out.bytes.push(0);
                        let n = (self.out.bytes.len() - at) as i32;
                        self.out.bytes[at..at + 4].copy_from_slice(&n.to_le_bytes());
                    }
                }
                Entry::Scalar { name, stream } => {
                    let was_first = first;
                    first = false;
                    let s = &mut streams[stream];
                    let slot = match s.next_slot(self.col)? {
                        Some(slot) => slot,
                        None => match self.col.get(self.at) {
                            None => {
                                return Err(Fault::Malformed("it ends inside an interleaved run"))
                            }
                            Some(0) if was_first => {
                                self.at += 1;
                                self.out.bytes.truncate(begin);
                                return Ok(None);
                            }
                            Some(0) => {
                                return Err(Fault::Malformed(
                                    "an interleaved run ends in the middle of an object",
                                ))
                            }
                            Some(&c) if is_literal(c) => {
                                let val = self.literal_at(self.at)?;
                                self.at = val.start + val.len;
                                s.literal(val, &self.col[val.start..val.start + val.len])?;
                                self.put_value(s, name, None)?;
                                continue;
                            }
                            Some(&c) if (0xF0..=0xF2).contains(&c) => {
                                return Err(Fault::Malformed(
                                    "an interleaved run starts inside another",
                                ))
                            }
                            Some(&c) => {
                                self.blocks(s, c)?;
                                s.next_slot(self.col)?
                                    .ok_or(Fault::Malformed("a Simple-8b block holds no slot"))?
                            }
                        },
                    };
                    let mut buf = [0u8; 24];
                    let last = s.last;
                    let step =
                        s.apply(slot, last.map_or(&[][..], |l| self.bytes_of(l)), &mut buf)?;
                    match step {
                        Step::Missing => {}
                        Step::Repeat => self.put_value(s, name, None)?,
                        Step::New(n) => self.put_value(s, name, Some(&buf[..n]))?,
                    }
                }
            }
        }
        if begin == self.out.bytes.len() {
            return Ok(Some(MISSING));
        }
        let tag = match entries.first() {
            Some(Entry::Enter { tag, .. }) => *tag,
            _ => 0x03,
        };
        Ok(Some(Cell {
            tag,
            start: begin as u32,
            len: (self.out.bytes.len() - begin) as u32,
        }))
    }

    /// Writes an element's type and name.
    fn put_name(&mut self, tag: u8, name: (usize, usize)) -> Result<(), Fault> {
        self.grow(name.1 + 2)?;
        self.out.bytes.push(tag);
        self.out
            .bytes
            .extend_from_slice(&self.col[name.0..name.0 + name.1]);
        self.out.bytes.push(0);
        Ok(())
    }

    /// Writes the field `name` of sub-column `s`: `new`, or its last value;
    /// the written value becomes its last.
    fn put_value(
        &mut self,
        s: &mut Stream,
        name: (usize, usize),
        new: Option<&[u8]>,
    ) -> Result<(), Fault> {
        let Some(last) = s.last else {
            return Err(Fault::Malformed(
                "a sub-column repeats a value it never had",
            ));
        };
        self.put_name(last.tag, name)?;
        let len = new.map_or(last.len, <[u8]>::len);
        let start = self.grow(len)?;
        match new {
            Some(b) => self.out.bytes.extend_from_slice(b),
            None if last.in_out => self
                .out
                .bytes
                .extend_from_within(last.start..last.start + last.len),
            None => self
                .out
                .bytes
                .extend_from_slice(&self.col[last.start..last.start + last.len]),
        }
        s.last = Some(Val {
            tag: last.tag,
            in_out: true,
            start,
            len,
        });
        Ok(())
    }
}

#[cfg(test)]
// Blocks are spelled as the format's selectors, extensions and slots.
#[allow(clippy::decimal_bitwise_operands)]
mod tests {
    use super::*;

    fn b64(s: &str) -> Vec<u8> {
        use base64::Engine;
        base64::engine::general_purpose::STANDARD
            .decode(s)
            .expect("base64")
    }

    /// A column: an int32 literal `v`, then these control bytes and
    /// blocks, then the end.
    fn after_int(v: i32, rest: &[u8]) -> Vec<u8> {
        let mut c = vec![0x10, 0];
        c.extend_from_slice(&v.to_le_bytes());
        c.extend_from_slice(rest);
        c.push(0);
        c
    }

    /// One control byte of the given blocks.
    fn blocks(control: u8, words: &[u64]) -> Vec<u8> {
        let mut c = vec![control];
        for w in words {
            c.extend_from_slice(&w.to_le_bytes());
        }
        c
    }

    fn ints(v: &Values) -> Vec<Option<i32>> {
        v.iter()
            .map(|c| {
                c.map(|(t, b)| {
                    assert_eq!(t, 0x10);
                    i32::from_le_bytes(b.try_into().expect("4 bytes"))
                })
            })
            .collect()
    }

    #[test]
    fn literals_and_plain_deltas() {
        // A date literal (1,000 ms after the epoch), a string literal.
        let got = decode(&b64("CQDoAwAAAAAAAAA="), 10).expect("decodes");
        assert_eq!(got.get(0), Some(Some((0x09, &1000i64.to_le_bytes()[..]))));
        let got = decode(&b64("AgAEAAAAZm9vAAA="), 10).expect("decodes");
        assert_eq!(got.get(0), Some(Some((0x02, &b"\x04\0\0\0foo\0"[..]))));
        // Selector 2 (30 slots of 2 bits): +1, -1, missing, then zeros.
        let word = 2 | (0b10 << 4) | (0b01 << 6) | (0b11 << 8);
        let got = decode(&after_int(5, &blocks(0x80, &[word])), 100).expect("decodes");
        let mut want = vec![Some(5), Some(6), Some(5), None];
        want.resize(31, Some(5));
        assert_eq!(ints(&got), want);
        // A repeat block right after a literal repeats a zero delta.
        let got = decode(&after_int(7, &blocks(0x80, &[15 | (1 << 4)])), 1_000).expect("decodes");
        assert_eq!(ints(&got), vec![Some(7); 241]);
        // After a slot, a repeat block repeats it, across control bytes.
        let mut rest = blocks(0x80, &[14 | (2 << 4)]);
        rest.extend(blocks(0x80, &[15]));
        let got = decode(&after_int(0, &rest), 1_000).expect("decodes");
        assert_eq!(ints(&got), (0..=121).map(Some).collect::<Vec<_>>());
    }

    #[test]
    fn extended_selectors_shift_their_values() {
        // Selector 7, extension 1: 9 slots of 2 value bits and a 4-bit
        // count of zero bits. Slot 0: value 1, 3 zeros → 8 (zig-zag +4).
        let word = 7 | (1 << 4) | ((1 << 4 | 3) << 8) | (0x3F << 14);
        let got = decode(&after_int(0, &blocks(0x80, &[word])), 100).expect("decodes");
        let mut want = vec![Some(0), Some(4), None];
        want.resize(10, Some(4));
        assert_eq!(ints(&got), want);
        // Selector 8, extension 8: 6 slots of 4 value bits and a 5-bit
        // count of zero nibbles. Slot 0: value 2, 1 nibble → 32 (+16).
        let word = 8 | (8 << 4) | ((2 << 5 | 1) << 8);
        let got = decode(&after_int(0, &blocks(0x80, &[word])), 100).expect("decodes");
        assert_eq!(ints(&got)[..3], [Some(0), Some(16), Some(16)]);
    }

    #[test]
    fn what_cannot_be_decoded_is_refused_with_why() {
        let cases: Vec<(Vec<u8>, &str)> = vec![
            (after_int(0, &blocks(0x80, &[0])), "selector 0"),
            (
                after_int(0, &blocks(0x80, &[7 | (10 << 4)])),
                "unknown extension 10",
            ),
            (
                after_int(0, &blocks(0x80, &[8 | (14 << 4)])),
                "unknown extension 14",
            ),
            (after_int(0, &[0x30]), "unknown control byte 0x30"),
            (after_int(0, &[0xE1]), "unknown control byte 0xe1"),
            (
                after_int(0, &blocks(0x90, &[14 | (2 << 4)])),
                "where no double precedes",
            ),
            (
                after_int(i32::MAX, &blocks(0x80, &[14 | (2 << 4)])),
                "past the int32 range",
            ),
            (after_int(0, &blocks(0x81, &[14])), "run past its end"),
            (
                blocks(0x80, &[14]).into_iter().chain([0]).collect(),
                "before any value",
            ),
            (
                vec![0x0A, 0, 0x80, 14 | (2 << 4), 0, 0, 0, 0, 0, 0, 0, 0],
                "takes only repeats",
            ),
            (
                vec![0x08, 0, 1, 0x80, 14 | (2 << 4), 0, 0, 0, 0, 0, 0, 0, 0],
                "boolean delta gives 2",
            ),
            (vec![0x08, 0, 2, 0], "neither 0 nor 1"),
            (vec![0x14, 0, 0], "unknown type 0x14"),
            (vec![0x0F, 0, 0], "JavaScript with scope"),
            (vec![0x10, 1, 0, 0, 0, 0, 0], "has a name"),
            (vec![0x10, 0, 0, 0], "runs past the column"),
            (
                vec![0x10, 0, 0, 0, 0, 0, 0, 0],
                "follow its closing zero byte",
            ),
            (vec![0x10, 0, 0, 0, 0, 0], "without its closing zero byte"),
            (vec![0xF1, 5, 0, 0, 0, 0, 0, 0], "has no scalar"),
            (
                vec![0xF1, 12, 0, 0, 0, 0x10, b'a', 0, 0, 0, 0, 0, 0, 0, 0],
                "holds no object",
            ),
        ];
        for (col, why) in cases {
            let e = decode(&col, 1_000).expect_err(why);
            assert!(e.to_string().contains(why), "{why}: {e} ({col:02x?})");
        }
        // A string too long for an integer, then a delta: from 0, so
        // "a" (0x61, zig-zag 0xC2); a zero delta repeats the long string.
        let mut col = vec![0x02, 0, 18, 0, 0, 0];
        col.extend_from_slice(b"seventeen bytes..\0");
        col.extend(blocks(0x81, &[14, 14 | (0xC2 << 4)]));
        col.push(0);
        let got = decode(&col, 10).expect("a delta from 0");
        assert_eq!(got.get(1), got.get(0));
        assert_eq!(got.get(2), Some(Some((0x02, &b"\x02\0\0\0a\0"[..]))));
        // A binary longer than 16 bytes takes no delta.
        let mut col = vec![0x05, 0, 17, 0, 0, 0, 0];
        col.extend_from_slice(&[7; 17]);
        col.extend(blocks(0x80, &[14 | (2 << 4)]));
        col.push(0);
        assert!(decode(&col, 10)
            .expect_err("long")
            .to_string()
            .contains("longer than 16 bytes"));
        // A binary of 2 bytes whose delta reaches its third byte.
        let mut col = vec![0x05, 0, 2, 0, 0, 0, 0, 1, 2];
        col.extend(blocks(0x80, &[14 | ((0x1_0000u64 << 1) << 4)]));
        col.push(0);
        assert!(decode(&col, 10)
            .expect_err("spill")
            .to_string()
            .contains("spills"));
        // An ObjectId whose delta of deltas leaves its 7 bytes.
        let mut col = vec![
            0x07, 0, 0xFF, 0xFF, 0xFF, 0xFF, 1, 2, 3, 4, 5, 0xFF, 0xFF, 0xFF,
        ];
        col.extend(blocks(0x80, &[14 | (2 << 4)]));
        col.push(0);
        assert!(decode(&col, 10)
            .expect_err("oid")
            .to_string()
            .contains("7 counter and time bytes"));
        // A double that the control byte's scale cannot hold.
        let mut col = vec![0x01, 0];
        col.extend_from_slice(&0.123_456_789_f64.to_le_bytes());
        col.extend(blocks(0xA0, &[14]));
        col.push(0);
        assert!(decode(&col, 10)
            .expect_err("scale")
            .to_string()
            .contains("cannot be scaled"));
    }

    #[test]
    fn values_and_bytes_are_bounded() {
        // 16 repeat blocks of 16 × 120: 30,720 values from 137 bytes.
        let col = after_int(1, &blocks(0x8F, &[15 | (15 << 4); 16]));
        assert_eq!(decode(&col, 40_000).expect("decodes").len(), 30_721);
        assert!(decode(&col, 30_720)
            .expect_err("too many")
            .to_string()
            .contains("more than 30720 values"));
        // Each repeat of a literal is held once.
        assert_eq!(decode(&col, 40_000).expect("decodes").held(), 4);
        // An interleaved run whose objects are each materialised.
        let mut col = vec![0xF1, 12, 0, 0, 0, 0x10, b'a', 0, 7, 0, 0, 0, 0];
        col.extend(blocks(0x80, &[15 | (15 << 4)]));
        col.extend([0, 0]);
        let got = decode(&col, 10_000).expect("decodes");
        assert_eq!(got.len(), 1_920);
        assert_eq!(
            got.get(5),
            Some(Some((
                0x03,
                &[12, 0, 0, 0, 0x10, b'a', 0, 7, 0, 0, 0, 0][..]
            )))
        );
        assert!(decode_within(&col, 10_000, 1_000)
            .expect_err("bytes")
            .to_string()
            .contains("more than 1000 bytes"));
    }

    #[test]
    fn interleaved_runs_keep_their_rules() {
        // {a: 1, s: {b: 2}}; a second object lacking s.b leaves s out; a
        // third lacking every field is missing; then the run ends.
        let reference = bson::serialize_to_vec(&bson::doc! {"a": 1, "s": {"b": 2}}).expect("doc");
        let mut col = vec![0xF1];
        col.extend(&reference);
        // a: 0, 0, missing; s.b: 0, missing, missing (selector 2).
        col.extend(blocks(
            0x80,
            &[2 | (0b11 << 8) | (0x3F_FFFF_FFFF_FFFF << 10)],
        ));
        col.extend(blocks(
            0x80,
            &[2 | (0b11 << 6) | (0b11 << 8) | (0xFF_FFFF_FFFF_FFFF << 10)],
        ));
        col.extend([0, 0]);
        let got = decode(&col, 100).expect("decodes");
        assert_eq!(got.len(), 30, "30 slots in each sub-column");
        let doc = |d: bson::Document| bson::serialize_to_vec(&d).expect("doc");
        assert_eq!(
            got.get(0),
            Some(Some((0x03, &doc(bson::doc! {"a": 1, "s": {"b": 2}})[..])))
        );
        assert_eq!(
            got.get(1),
            Some(Some((0x03, &doc(bson::doc! {"a": 1})[..])))
        );
        assert_eq!(got.get(2), Some(None));
        // Sub-columns of 60 and 30 values: the second runs out first.
        let mut short = vec![0xF1];
        short.extend(&reference);
        short.extend(blocks(0x80, &[1]));
        short.extend(blocks(0x80, &[2]));
        short.extend([0, 0]);
        let e = decode(&short, 100).expect_err("uneven");
        assert!(e.to_string().contains("middle of an object"), "{e}");
        // 30 and 60: the second has values left when the run ends.
        let mut long = vec![0xF1];
        long.extend(&reference);
        long.extend(blocks(0x80, &[2]));
        long.extend(blocks(0x80, &[1]));
        long.extend([0, 0]);
        let e = decode(&long, 100).expect_err("uneven");
        assert!(e.to_string().contains("values left"), "{e}");
        // After the run, a zero delta repeats its last object.
        let mut again = vec![0xF1];
        again.extend(&reference);
        again.extend(blocks(0x80, &[14]));
        again.extend(blocks(0x80, &[14]));
        again.push(0);
        again.extend(blocks(0x80, &[14]));
        again.push(0);
        let got = decode(&again, 100).expect("decodes");
        assert_eq!(got.len(), 2);
        assert_eq!(got.get(0), got.get(1));
    }
}
