//! The two declarations the rule catalogue is made of: [`rule!`], one per
//! rule file, and [`catalog!`], the one list of them (`rules/catalog/`).

/// Declares a rule in its own file: `const RULE` (its id), `Limits` (its
/// `[rule-id]` table: every threshold a number, with its default and, from
/// its doc comment, its meaning), `Key` (one variant per threshold, for
/// [`super::crossed`]) and `DECLARATION` (its entry in the catalogue).
macro_rules! rule {
    (
        id: $id:literal,
        title: $title:literal,
        explanation: ($en:literal, $zh:literal $(,)?),
        source: $source:literal,
        check: $check:expr,
        needs: $needs:ident,
        limits: {
            $( $(#[doc = $doc:literal])+ $field:ident: $default:expr, )*
        } $(,)?
    ) => {
        const RULE: &str = $id;

        #[doc = concat!("`[", $id, "]` in `docshape.toml`: this rule's thresholds.")]
        #[derive(Clone, Debug, PartialEq)]
        pub struct Limits {
            $( $(#[doc = $doc])+ pub $field: f64, )*
        }

        impl Default for Limits {
            fn default() -> Self {
                Limits { $($field: $default,)* }
            }
        }

        impl Limits {
            /// A threshold by its field's name.
            #[allow(dead_code)]
            pub(crate) fn get(&self, field: &str) -> Option<f64> {
                match field {
                    $(stringify!($field) => Some(self.$field),)*
                    _ => None,
                }
            }

            /// Sets a threshold by its field's name; `false` for no such field.
            #[allow(dead_code, unused_variables)]
            pub(crate) fn set(&mut self, field: &str, value: f64) -> bool {
                match field {
                    $(stringify!($field) => {
                        self.$field = value;
                        true
                    })*
                    _ => false,
                }
            }
        }

        #[doc = concat!("Each threshold of `", $id, "`, for its findings' evidence.")]
        #[allow(non_camel_case_types, dead_code)]
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum Key {
            $($field,)*
        }

        impl $crate::rules::registry::Threshold for Key {
            const RULE: &'static str = $id;

            fn field(self) -> &'static str {
                match self {
                    $(Key::$field => stringify!($field),)*
                }
            }

            #[allow(unused_variables)]
            fn value(self, t: &$crate::rules::Thresholds) -> f64 {
                let limits = <Limits as $crate::rules::registry::Of>::of(t);
                match self {
                    $(Key::$field => limits.$field,)*
                }
            }
        }

        /// This rule, as the catalogue lists it.
        pub const DECLARATION: $crate::rules::RuleInfo = $crate::rules::RuleInfo {
            id: $id,
            title: $title,
            explanation: ($en, $zh),
            source: $source,
            thresholds: &[$($crate::rules::registry::Meaning::new(
                stringify!($field),
                concat!($($doc),+),
            ),)*],
            check: $check,
            needs: $crate::rules::registry::Needs::$needs,
        };
    };
}
pub(crate) use rule;

/// The catalogue: one line per rule module, in the contract's order. It
/// declares the modules and makes [`REGISTRY`] and [`Thresholds`] (one
/// typed field per rule, named after its module).
macro_rules! catalog {
    ($($m:ident,)*) => {
        $(pub mod $m;)*

        /// Every rule, in the contract's order.
        pub const REGISTRY: [$crate::rules::RuleInfo; [$(stringify!($m)),*].len()] =
            [$($m::DECLARATION,)*];

        /// Thresholds in force (one typed `Limits` per rule, named after
        /// its module), the profile they start from, and the rules switched
        /// off.
        #[derive(Clone, Debug, PartialEq)]
        pub struct Thresholds {
            pub(in crate::rules) profile: String,
            pub(in crate::rules) disabled: Vec<String>,
            $(pub $m: $m::Limits,)*
        }

        impl Thresholds {
            /// Every rule's own defaults, profile `default`.
            pub(in crate::rules) fn defaults() -> Thresholds {
                Thresholds {
                    profile: "default".into(),
                    disabled: Vec::new(),
                    $($m: $m::Limits::default(),)*
                }
            }

            /// A threshold by rule id and key (`max-length`); `None` for a
            /// rule or key that does not exist.
            pub fn value(&self, rule: &str, key: &str) -> Option<f64> {
                let field = key.replace('-', "_");
                $(if rule == $m::DECLARATION.id {
                    return self.$m.get(&field);
                })*
                None
            }

            /// Sets a threshold by rule id and key; `false` for a rule or
            /// key that does not exist.
            pub(in crate::rules) fn set(&mut self, rule: &str, key: &str, value: f64) -> bool {
                let field = key.replace('-', "_");
                $(if rule == $m::DECLARATION.id {
                    return self.$m.set(&field, value);
                })*
                false
            }
        }

        $(impl $crate::rules::registry::Of for $m::Limits {
            fn of(t: &Thresholds) -> &Self {
                &t.$m
            }
        })*
    };
}
pub(crate) use catalog;

#[cfg(test)]
mod tests {
    use crate::rules::registry::{Basis, Check, Needs, Threshold};
    use crate::rules::{CollectionCtx, Finding, Thresholds, REGISTRY, RULES};

    /// A rule as a new file declares it (listing it in the catalogue is
    /// the one other line; this one stays out of the real catalogue).
    mod example {
        use super::*;
        use crate::i18n::Lang;

        rule! {
            id: "example-rule",
            title: "An example",
            explanation: ("Why, in English.", "为什么。"),
            source: "a test",
            check: Check::Collection(check, Basis::Documents),
            needs: Itself,
            limits: {
                /// share of documents that
                /// counts
                min_share: 0.25,
                /// documents needed
                min_documents: 30.0,
            },
        }

        pub(crate) fn check(_: &CollectionCtx<'_>, _: &Thresholds, _: Lang) -> Vec<Finding> {
            Vec::new()
        }

        pub(crate) fn id() -> &'static str {
            RULE
        }

        /// What the catalogue's line makes for a listed rule: its limits
        /// inside [`Thresholds`] (here, the defaults).
        impl crate::rules::registry::Of for Limits {
            fn of(_: &Thresholds) -> &Self {
                static DEFAULTS: std::sync::LazyLock<Limits> =
                    std::sync::LazyLock::new(Limits::default);
                &DEFAULTS
            }
        }
    }

    #[test]
    fn one_declaration_gives_the_rule_its_entry_limits_and_keys() {
        let d = example::DECLARATION;
        assert_eq!((d.id, example::id()), ("example-rule", "example-rule"));
        assert_eq!(d.explanation(crate::i18n::Lang::Zh), "为什么。");
        assert_eq!(d.needs, Needs::Itself);
        assert!(matches!(d.check, Check::Collection(_, Basis::Documents)));
        let keys: Vec<(String, &str)> = d
            .thresholds
            .iter()
            .map(|m| (m.key(), m.meaning()))
            .collect();
        assert_eq!(
            keys,
            [
                ("min-share".to_owned(), "share of documents that counts"),
                ("min-documents".to_owned(), "documents needed"),
            ]
        );
        assert!(d.has_threshold("min-share") && !d.has_threshold("min_share"));
        let mut l = example::Limits::default();
        assert_eq!(
            l.get("min_share").map(f64::to_bits),
            Some(0.25f64.to_bits())
        );
        assert!(l.set("min_share", 0.5) && !l.set("max_share", 0.5));
        assert_eq!(l.min_share.to_bits(), 0.5f64.to_bits());
        let key = example::Key::min_documents;
        assert_eq!(key.name(), "example-rule.min-documents");
        assert_eq!(key.value(&Thresholds::default()).to_bits(), 30f64.to_bits());
    }

    #[test]
    fn the_catalogue_declares_every_rule_once_with_its_thresholds() {
        let t = Thresholds::default();
        for (i, r) in REGISTRY.iter().enumerate() {
            assert_eq!(
                RULES.iter().filter(|id| **id == r.id).count(),
                1,
                "{}",
                r.id
            );
            assert_eq!(RULES[i], r.id);
            for m in r.thresholds {
                let v = t.value(r.id, &m.key());
                assert!(v.is_some_and(f64::is_finite), "{}.{}", r.id, m.key());
                assert!(!m.meaning().is_empty(), "{}.{}", r.id, m.key());
            }
            assert_eq!(t.value(r.id, "no-such-key"), None);
        }
    }
}
