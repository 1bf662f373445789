//! Numbers written as text, and digit strings that are codes rather than
//! quantities. `numeric-strings` reports the one and leaves the other, and
//! the conversions `advise` writes (for `numeric-strings` and
//! `mixed-types`) convert by the same tests: a rule never suggests
//! converting what a conversion script would leave as a code.

use bson::Bson;

/// A string that is a plain number: optional minus, digits without a
/// leading zero, and (when `fraction`) an optional `.digits`. No spaces,
/// signs other than a leading minus, exponents or thousands separators:
/// what `String(n)` writes for a number, and what `$convert` reads back
/// exactly.
pub(crate) fn plain_number(s: &str, fraction: bool) -> bool {
    let body = s.strip_prefix('-').unwrap_or(s);
    let (int, frac) = match body.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (body, None),
    };
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    if !digits(int) || (int.len() > 1 && int.starts_with('0')) {
        return false;
    }
    match frac {
        None => true,
        Some(f) => fraction && digits(f),
    }
}

/// A numeric type a path can be converted to, narrowest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Target {
    Int,
    Long,
    Double,
    Decimal,
}

impl Target {
    pub(crate) fn alias(self) -> &'static str {
        match self {
            Target::Int => "int",
            Target::Long => "long",
            Target::Double => "double",
            Target::Decimal => "decimal",
        }
    }

    pub(crate) fn of(b: &Bson) -> Option<Target> {
        match b {
            Bson::Int32(_) => Some(Target::Int),
            Bson::Int64(_) => Some(Target::Long),
            Bson::Double(_) => Some(Target::Double),
            Bson::Decimal128(_) => Some(Target::Decimal),
            _ => None,
        }
    }

    /// The `$regexMatch` pattern a string must match to be converted.
    pub(crate) fn pattern(self) -> &'static str {
        match self {
            Target::Int | Target::Long => "^-?(0|[1-9][0-9]*)$",
            Target::Double | Target::Decimal => "^-?(0|[1-9][0-9]*)(\\.[0-9]+)?$",
        }
    }
}

/// Why digit strings are codes rather than quantities.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Code {
    /// One in ten or more keeps a leading zero (`"0042"`): a number would
    /// drop it.
    LeadingZeros,
    /// Every value has the same width of three digits or more (postal
    /// codes, PINs, years): text of one width sorts and compares as the
    /// numbers do, and the width is often the point.
    FixedWidth(usize),
    /// Named like a code (`zip`, `phone`, `sku`, `code` …).
    Named,
}

/// Why the digit strings among `values` are codes, when they are: most
/// values are digit strings, and they keep a leading zero, or all have the
/// same width (three digits or more, the whole numbers beside them too),
/// or the field is named like a code. Turning codes into numbers drops
/// their zeros and makes them sortable and summable, which they are not.
pub(crate) fn code_of(values: &[Bson], name: &str) -> Option<Code> {
    let digits: Vec<&str> = values
        .iter()
        .filter_map(|v| match v {
            Bson::String(s) if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) => {
                Some(s.as_str())
            }
            _ => None,
        })
        .collect();
    let non_null = values
        .iter()
        .filter(|v| !matches!(v, Bson::Null | Bson::Undefined))
        .count();
    if digits.is_empty() || digits.len() * 2 < non_null {
        return None;
    }
    let zeros = digits
        .iter()
        .filter(|s| s.len() > 1 && s.starts_with('0'))
        .count();
    if zeros * 10 >= digits.len() {
        return Some(Code::LeadingZeros);
    }
    // One width for the strings and for the whole numbers beside them.
    let width = digits[0].len();
    let fixed = width >= 3
        && digits.iter().all(|s| s.len() == width)
        && values.iter().all(|v| match v {
            Bson::Int32(i) => i.unsigned_abs().to_string().len() == width,
            Bson::Int64(i) => i.unsigned_abs().to_string().len() == width,
            _ => true,
        });
    if fixed {
        return Some(Code::FixedWidth(width));
    }
    code_name(name).then_some(Code::Named)
}

/// [`code_of`] as a yes or no.
pub fn looks_like_codes(values: &[Bson], name: &str) -> bool {
    code_of(values, name).is_some()
}

fn code_name(name: &str) -> bool {
    const WORDS: [&str; 12] = [
        "zip", "zipcode", "postcode", "postal", "phone", "tel", "mobile", "sku", "isbn", "ean",
        "upc", "code",
    ];
    name.to_lowercase()
        .split(|c: char| !c.is_ascii_alphanumeric())
        .any(|w| WORDS.contains(&w))
}

/// Words of a field name that make its digits an identifier or a code
/// rather than an amount, wherever they stand (`ifscCode`, `auth_code`,
/// `teufelsturmId`, `versaoSoftware`, `card.last4`).
const IDENTIFIER_WORDS: [&str; 44] = [
    "id",
    "ids",
    "uid",
    "uuid",
    "guid",
    "key",
    "code",
    "codes",
    "zip",
    "zipcode",
    "postcode",
    "postal",
    "plz",
    "cep",
    "pin",
    "phone",
    "telephone",
    "tel",
    "mobile",
    "cell",
    "fax",
    "msisdn",
    "sku",
    "isbn",
    "issn",
    "ean",
    "upc",
    "gtin",
    "iban",
    "bic",
    "swift",
    "ifsc",
    "account",
    "card",
    "last4",
    "cvv",
    "serial",
    "imei",
    "ssn",
    "version",
    "versao",
    "revision",
    "ref",
    "reference",
];

/// Words that, as the last word of a name, make it the label of a thing
/// (`phoneNumber`, `bankAccountNumber`, `teamNumber`, `invoice_no`), not a
/// count; first, they count something (`numberOfGuests`, `num_enf`).
const LABEL_HEADS: [&str; 6] = ["number", "no", "nr", "num", "numero", "nummer"];

/// Objects whose values are a protocol's text, kept as received
/// (`metadata.headers.content-length`): text by their protocol.
const PROTOCOL_OBJECTS: [&str; 2] = ["headers", "header"];

/// Why a path's numbers written as text are a code, not a quantity, judged
/// by names: its own (`name`, the last key of the path) and the object it
/// lies in (`parent`). The word that decided, when one did.
pub(crate) fn identifier_name(name: &str, parent: Option<&str>) -> Option<String> {
    if let Some(p) = parent {
        let p = p.to_lowercase();
        if PROTOCOL_OBJECTS.contains(&p.as_str()) {
            return Some(p);
        }
    }
    let words = crate::relate::names::words(name);
    if let Some(w) = words
        .iter()
        .find(|w| IDENTIFIER_WORDS.contains(&w.as_str()))
    {
        return Some(w.clone());
    }
    words
        .last()
        .filter(|w| LABEL_HEADS.contains(&w.as_str()))
        .cloned()
}

/// Digits a whole number written as text needs before it reads as an
/// identifier (phone, account and card numbers have nine or more; counts
/// and amounts that large are rarely typed as text).
pub const IDENTIFIER_DIGITS: usize = 9;

#[cfg(test)]
mod tests {
    use super::*;

    fn s(x: &str) -> Bson {
        Bson::String(x.into())
    }

    #[test]
    fn plain_numbers_are_what_a_program_writes() {
        for x in ["0", "-3", "42", "12.5", "-0.25"] {
            assert!(plain_number(x, true), "{x}");
        }
        for x in [
            "", "012", " 12", "1e3", "+3", "12.", ".5", "1,000", "-", "0x1F",
        ] {
            assert!(!plain_number(x, true), "{x:?}");
        }
        assert!(!plain_number("12.5", false));
    }

    #[test]
    fn digit_codes_are_not_quantities() {
        let zips: Vec<Bson> = ["100000", "200000", "310000"]
            .iter()
            .map(|z| s(z))
            .chain([Bson::Int32(100_001)])
            .collect();
        assert_eq!(code_of(&zips, "whatever"), Some(Code::FixedWidth(6)));
        assert!(looks_like_codes(&zips, "zip"));
        let zeros = vec![s("0123"), s("45"), Bson::Int32(7)];
        assert_eq!(code_of(&zeros, "n"), Some(Code::LeadingZeros));
        let widths = vec![s("4200"), s("1700"), Bson::Int32(17)];
        assert!(!looks_like_codes(&widths, "n"), "numbers of another width");
        let amounts = vec![s("4200"), s("17"), Bson::Double(4200.5)];
        assert!(!looks_like_codes(&amounts, "amount"));
        assert_eq!(code_of(&[s("12"), s("7")], "zip"), Some(Code::Named));
    }

    #[test]
    fn names_of_identifiers_and_labels() {
        for (name, parent, want) in [
            ("teufelsturmId", None, Some("id")),
            ("ifscCode", None, Some("ifsc")),
            ("auth_code", Some("acquirer_data"), Some("code")),
            ("versaoBaseDados", None, Some("versao")),
            ("last4", Some("card"), Some("last4")),
            ("phoneNumber", None, Some("phone")),
            ("bankAccountNumber", None, Some("account")),
            ("teamNumber", None, Some("number")),
            ("number", None, Some("number")),
            ("content-length", Some("headers"), Some("headers")),
            ("numberOfGuests", None, None),
            ("num_enf", None, None),
            ("teufelsturmScore", None, None),
            ("entry_value", None, None),
            ("notes", None, None),
            ("paid", None, None),
            ("idle", None, None),
        ] {
            assert_eq!(identifier_name(name, parent).as_deref(), want, "{name}");
        }
    }
}
