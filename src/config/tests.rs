use super::*;

/// The `toml` code blocks of a Markdown file.
fn toml_blocks(markdown: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in markdown.lines() {
        match (&mut current, line.trim()) {
            (None, "```toml") => current = Some(String::new()),
            (Some(_), "```") => blocks.extend(current.take()),
            (Some(b), _) => {
                b.push_str(line);
                b.push('\n');
            }
            (None, _) => {}
        }
    }
    blocks
}

/// Every configuration the repository shows: the README's and the docs'
/// examples, and the one in this module's documentation.
pub(crate) fn shipped_configs() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    for doc in ["README.md", "docs/rules.md"] {
        let text = std::fs::read_to_string(root.join(doc)).expect("doc");
        for (i, b) in toml_blocks(&text).into_iter().enumerate() {
            out.push((format!("{doc} block {}", i + 1), b));
        }
    }
    let own = include_str!("mod.rs")
        .lines()
        .filter_map(|l| l.strip_prefix("//!"))
        .map(|l| l.strip_prefix(' ').unwrap_or(l))
        .collect::<Vec<_>>()
        .join("\n");
    for b in toml_blocks(&own) {
        out.push(("config/mod.rs".into(), b));
    }
    assert!(out.len() >= 4, "{out:?}");
    out
}

#[test]
fn every_shipped_configuration_parses() {
    for (name, text) in shipped_configs() {
        parse(&text, &name).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    let c = parse(
        "theme = \"light\"\nlang = \"zh\"\n[keys]\nquit = \"x\"\nhelp = [\"h\", \"?\"]\n",
        "x.toml",
    )
    .expect("valid");
    assert_eq!(c.theme.as_deref(), Some("light"));
    assert_eq!(c.keys["help"].keys(), ["h", "?"]);
}

#[test]
fn every_shipped_theme_parses() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("themes");
    let mut n = 0;
    for e in std::fs::read_dir(dir).expect("themes") {
        let p = e.expect("entry").path();
        if p.extension().is_some_and(|x| x == "toml") {
            let text = std::fs::read_to_string(&p).expect("theme");
            let file: theme::ThemeFile =
                from_toml(&text, &p.display().to_string()).unwrap_or_else(|e| panic!("{e}"));
            assert!(!file.colors.set().is_empty(), "{}", p.display());
            n += 1;
        }
    }
    assert!(n >= 4);
}

#[test]
fn a_mistyped_key_is_named_with_its_section_and_line() {
    for (text, needles) in [
        (
            "[connections.prod]\nuri = \"mongodb://h/\"\npasword-env = \"X\"\n",
            &[
                "unknown field `pasword-env`",
                "[connections.prod]",
                "line 3",
            ][..],
        ),
        (
            "[keys]\nquit = 3\n",
            &[
                "`quit`: expected a key or a list of keys",
                "[keys]",
                "line 2",
            ],
        ),
        (
            "rules = \"atlas\"\ntheme = 3\n",
            &[
                "`theme`: invalid type: integer `3`, expected a string",
                "top level",
                "line 2",
            ],
        ),
        ("[[[", &["not valid TOML", "line 1"]),
    ] {
        let e = parse(text, "x.toml").expect_err(text).to_string();
        assert!(e.starts_with("x.toml"), "{e}");
        for n in needles {
            assert!(e.contains(n), "{text}: `{n}` not in {e}");
        }
    }
}

#[test]
fn a_theme_file_refuses_an_unknown_slot_or_key() {
    for (text, needles) in [
        (
            "[colors]\n\"text.dimm\" = \"red\"\n",
            &["unknown field `text.dimm`", "[colors]"][..],
        ),
        (
            "[colors]\ntext = { dimm = \"red\" }\n",
            &["unknown field `text.dimm`"],
        ),
        ("colours = 1\n", &["unknown field `colours`", "top level"]),
        ("[colors]\ntext = 3\n", &["colour `text` must be a string"]),
    ] {
        let e = from_toml::<theme::ThemeFile>(text, "t.toml")
            .expect_err(text)
            .to_string();
        for n in needles {
            assert!(e.contains(n), "{text}: `{n}` not in {e}");
        }
    }
    let nested: theme::ThemeFile = from_toml(
        "[colors]\nseverity = { critical = \"red\" }\n\"text.dim\" = \"grey\"\n",
        "t.toml",
    )
    .expect("nested and dotted slots");
    assert_eq!(
        nested.colors.set(),
        [("text.dim", "grey"), ("severity.critical", "red")]
    );
}

#[test]
fn no_file_is_no_configuration() {
    let e = load(Path::new("/nonexistent/docshape.toml")).expect_err("missing");
    assert!(matches!(e, ConfigError::Read { .. }), "{e}");
    assert!(e
        .to_string()
        .starts_with("cannot read /nonexistent/docshape.toml"));
    assert_eq!(
        path(Some(Path::new("given.toml"))),
        Some(PathBuf::from("given.toml"))
    );
}
