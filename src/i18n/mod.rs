//! The two languages docshape speaks. Texts live next to the code that
//! uses them, each written once in English and once in Chinese (following
//! the seeds' own terms: 内嵌, 子引用, 父引用, 一对很多, 反范式 …).

use serde::Serialize;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    #[default]
    En,
    Zh,
}

impl Lang {
    /// From `LC_ALL`, `LC_MESSAGES` or `LANG`: Chinese for `zh*`, else English.
    pub fn from_env() -> Lang {
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
    pub fn new(en: impl Into<String>, zh: impl Into<String>) -> Text {
        Text {
            en: en.into(),
            zh: zh.into(),
        }
    }

    pub fn get(&self, lang: Lang) -> &str {
        match lang {
            Lang::En => &self.en,
            Lang::Zh => &self.zh,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picks_by_language() {
        assert_eq!(Lang::En.pick("a", "甲"), "a");
        assert_eq!(Lang::Zh.pick("a", "甲"), "甲");
        let t = Text::new("hello", "你好");
        assert_eq!(t.get(Lang::Zh), "你好");
    }
}
