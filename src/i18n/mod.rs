//! The two languages docshape speaks. Texts live next to the code that
//! uses them, each written once in English and once in Chinese (following
//! the seeds' own terms: 内嵌, 子引用, 父引用, 一对很多, 反范式 …).

pub mod evidence;

use serde::Serialize;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    #[default]
    En,
    Zh,
}

impl Lang {
    /// From `LC_ALL`, `LC_MESSAGES` or `LANG`: Chinese for `zh*`, else English.
    pub(crate) fn from_env() -> Lang {
        for var in ["LC_ALL", "LC_MESSAGES", "LANG"] {
            if let Ok(v) = std::env::var(var) {
                if v.is_empty() {
                    continue;
                }
                return if v.to_lowercase().starts_with("zh") {
                    Lang::Zh
                } else {
                    Lang::En
                };
            }
        }
        Lang::En
    }

    /// Its code (`--lang`, `lang = …`).
    pub fn code(self) -> &'static str {
        self.pick("en", "zh")
    }

    /// Picks the text of this language.
    pub fn pick<T>(self, en: T, zh: T) -> T {
        match self {
            Lang::En => en,
            Lang::Zh => zh,
        }
    }
}

/// A text in both languages, chosen later.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Text {
    pub en: String,
    pub zh: String,
}

impl Text {
    pub(crate) fn new(en: impl Into<String>, zh: impl Into<String>) -> Text {
        Text {
            en: en.into(),
            zh: zh.into(),
        }
    }

    pub(crate) fn get(&self, lang: Lang) -> &str {
        match lang {
            Lang::En => &self.en,
            Lang::Zh => &self.zh,
        }
    }
}

/// Words whose plural is not made by an ending.
const IRREGULAR: [(&str, &str); 8] = [
    ("people", "person"),
    ("children", "child"),
    ("men", "man"),
    ("women", "woman"),
    ("mice", "mouse"),
    ("geese", "goose"),
    ("teeth", "tooth"),
    ("feet", "foot"),
];

/// Words that are the same in the singular and the plural, or that name
/// no countable thing.
const UNCHANGED: [&str; 10] = [
    "series",
    "species",
    "news",
    "data",
    "metadata",
    "media",
    "information",
    "equipment",
    "feedback",
    "sheep",
];

/// Nouns ending in `-ie`, whose plural `-ies` is not made from a `-y`.
const IE_NOUNS: [&str; 16] = [
    "movie", "cookie", "zombie", "rookie", "calorie", "hoodie", "selfie", "pie", "tie", "lie",
    "genie", "goalie", "smoothie", "brownie", "newbie", "sortie",
];

/// The English singular of a name, judged by its last word (`bad_movies` →
/// `bad_movie`, `userSessions` → `userSession`, `people` → `person`,
/// `categories` → `category`, `statuses` → `status`, `series` → `series`).
/// One singulariser for every place docshape names one document of a
/// collection or reads a field's name as the collection it points to.
pub(crate) fn singular(name: &str) -> String {
    let mut start = 0;
    let mut prev: Option<char> = None;
    for (i, c) in name.char_indices() {
        if matches!(c, '_' | '-' | '.' | ' ') {
            start = i + c.len_utf8();
        } else if c.is_uppercase() && prev.is_some_and(char::is_lowercase) {
            start = i;
        }
        prev = Some(c);
    }
    let (head, word) = name.split_at(start);
    let lower = word.to_lowercase();
    let one = singular_word(&lower);
    if one == lower {
        return name.to_owned();
    }
    // Keep the word's own capital (`Movies` → `Movie`, `PEOPLE` → `PERSON`).
    let cased: String = if word.len() > 1 && word.chars().all(|c| !c.is_lowercase()) {
        one.to_uppercase()
    } else if word.starts_with(char::is_uppercase) {
        let mut cs = one.chars();
        cs.next()
            .map(|f| f.to_uppercase().chain(cs).collect())
            .unwrap_or_default()
    } else {
        one
    };
    format!("{head}{cased}")
}

fn singular_word(w: &str) -> String {
    if let Some(&(_, one)) = IRREGULAR.iter().find(|(many, _)| *many == w) {
        return one.to_owned();
    }
    if UNCHANGED.contains(&w) || w.chars().count() <= 3 {
        return w.to_owned();
    }
    if let Some(stem) = w.strip_suffix("ies") {
        let ie = format!("{stem}ie");
        return if IE_NOUNS.iter().any(|n| ie.ends_with(n)) {
            ie
        } else {
            format!("{stem}y")
        };
    }
    if let Some(stem) = w.strip_suffix("uses") {
        // statuses, buses, bonuses, campuses drop `es`; houses, causes,
        // clauses drop the `s` alone.
        return if stem.ends_with(['a', 'o']) || stem.is_empty() {
            format!("{stem}use")
        } else {
            format!("{stem}us")
        };
    }
    for es in ["sses", "xes", "ches", "shes", "zzes"] {
        if w.ends_with(es) {
            return w[..w.len() - 2].to_owned();
        }
    }
    if w.ends_with("ss") || w.ends_with("us") || w.ends_with("is") {
        return w.to_owned();
    }
    match w.strip_suffix('s') {
        Some(stem) => stem.to_owned(),
        None => w.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn singular_names_one_document() {
        for (many, one) in [
            ("movies", "movie"),
            ("bad_movies", "bad_movie"),
            ("cookies", "cookie"),
            ("categories", "category"),
            ("companies", "company"),
            ("statuses", "status"),
            ("status", "status"),
            ("addresses", "address"),
            ("address", "address"),
            ("boxes", "box"),
            ("matches", "match"),
            ("dishes", "dish"),
            ("houses", "house"),
            ("causes", "cause"),
            ("buses", "bus"),
            ("people", "person"),
            ("series", "series"),
            ("news", "news"),
            ("data", "data"),
            ("analysis", "analysis"),
            ("users", "user"),
            ("user", "user"),
            ("user_sessions", "user_session"),
            ("userSessions", "userSession"),
            ("Movies", "Movie"),
            ("PEOPLE", "PERSON"),
            ("sample_mflix.comments", "sample_mflix.comment"),
            ("ids", "ids"),
            ("", ""),
            ("名字", "名字"),
        ] {
            assert_eq!(singular(many), one, "{many}");
        }
    }

    use super::*;

    #[test]
    fn picks_by_language() {
        assert_eq!(Lang::En.pick("a", "甲"), "a");
        assert_eq!(Lang::Zh.pick("a", "甲"), "甲");
        let t = Text::new("hello", "你好");
        assert_eq!(t.get(Lang::Zh), "你好");
    }
}
