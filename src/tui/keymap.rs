//! Keys are named actions. The table below is the single source of the
//! bindings, the help screen and the hints in the status bar; `[keys]` in
//! the configuration file rebinds an action (`action = "key"` or a list).

use std::collections::HashMap;

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use serde::Deserialize;

use crate::config::keys::{Binding, KeysSection};
use crate::i18n::Lang;

/// Everything a key can ask for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    Quit,
    Help,
    Up,
    Down,
    Left,
    Right,
    PageUp,
    PageDown,
    Top,
    Bottom,
    NextPane,
    PrevPane,
    NextTab,
    PrevTab,
    TabSchema,
    TabFindings,
    TabDocuments,
    TabRelationships,
    TabLearn,
    TabIndexes,
    TabWorkload,
    NavSort,
    Toggle,
    Filter,
    Cancel,
    Resample,
    SampleMore,
    SampleLess,
    SeverityFilter,
    RuleFilter,
    Copy,
    WriteScript,
    DocsWithField,
    LargestDocs,
    DetailUp,
    DetailDown,
    DetailLeft,
    DetailRight,
    LessonLanguage,
    NextPage,
    PrevPage,
    Explain,
    ExportCsv,
    FoldLevel,
    JumpEvidence,
    JumpBeforeAfter,
    JumpScript,
    GotoCollection,
    Connect,
    Search,
    PrevMatch,
    CheckExercises,
}

impl Action {
    /// A move of a list's selection: up, down, a page, the top, the bottom.
    pub(crate) fn is_move(self) -> bool {
        matches!(
            self,
            Action::Up
                | Action::Down
                | Action::PageUp
                | Action::PageDown
                | Action::Top
                | Action::Bottom
        )
    }
}

/// Name, description and default keys of every action, in help order.
pub const ACTIONS: &[(Action, &str, &str, &[&str])] = &[
    (Action::Quit, "quit", "quit", &["q", "ctrl-c"]),
    (Action::Help, "help", "show or hide this help", &["?", "f1"]),
    (Action::Up, "up", "move up", &["up", "k"]),
    (Action::Down, "down", "move down", &["down", "j"]),
    (
        Action::Left,
        "left",
        "collapse / go to parent",
        &["left", "h"],
    ),
    (Action::Right, "right", "expand", &["right", "l"]),
    (Action::PageUp, "page-up", "page up", &["pageup", "ctrl-u"]),
    (
        Action::PageDown,
        "page-down",
        "page down",
        &["pagedown", "ctrl-d"],
    ),
    (Action::Top, "top", "first item", &["home", "g"]),
    (Action::Bottom, "bottom", "last item", &["end", "G"]),
    (
        Action::NextPane,
        "next-pane",
        "next pane: navigator → list → detail",
        &["tab"],
    ),
    (
        Action::PrevPane,
        "prev-pane",
        "previous pane: detail → list → navigator",
        &["backtab"],
    ),
    (Action::NextTab, "next-tab", "next tab", &["]"]),
    (Action::PrevTab, "prev-tab", "previous tab", &["["]),
    (Action::TabSchema, "tab-schema", "schema tab", &["1"]),
    (Action::TabFindings, "tab-findings", "findings tab", &["2"]),
    (
        Action::TabDocuments,
        "tab-documents",
        "documents tab",
        &["3"],
    ),
    (
        Action::TabRelationships,
        "tab-relationships",
        "relationships tab",
        &["4"],
    ),
    (Action::TabLearn, "tab-learn", "learn tab (lessons)", &["5"]),
    (Action::TabIndexes, "tab-indexes", "indexes tab", &["6"]),
    (
        Action::TabWorkload,
        "tab-workload",
        "workload tab (query shapes; Enter opens a shape's finding)",
        &["7"],
    ),
    (
        Action::NavSort,
        "sort",
        "sort collections by name, severity, size, documents",
        &["o"],
    ),
    (
        Action::Toggle,
        "toggle",
        "open / fold; on a line of a document, its object or array",
        &["enter", "space"],
    ),
    (
        Action::Filter,
        "filter",
        "filter fields or collections; the query bar on Documents",
        &["/"],
    ),
    (
        Action::Cancel,
        "cancel",
        "the detail back to the list; stop sampling (twice: abandon) or a query, close, clear filter",
        &["esc"],
    ),
    (Action::Resample, "resample", "sample again", &["r"]),
    (
        Action::Connect,
        "connect",
        "connect elsewhere: a saved connection, a recent target, a URI or a path",
        &["C"],
    ),
    (
        Action::SampleMore,
        "sample-more",
        "double the sample size",
        &["+", "="],
    ),
    (
        Action::SampleLess,
        "sample-less",
        "halve the sample size",
        &["-"],
    ),
    (
        Action::SeverityFilter,
        "severity-filter",
        "cycle the severity filter",
        &["s"],
    ),
    (
        Action::RuleFilter,
        "rule-filter",
        "cycle the rule filter",
        &["f"],
    ),
    (
        Action::Copy,
        "copy",
        "copy the migration script; on Documents the selected document (OSC 52)",
        &["y"],
    ),
    (
        Action::WriteScript,
        "write-script",
        "write the script (or all query matches) to a file",
        &["w"],
    ),
    (
        Action::DocsWithField,
        "docs-with-field",
        "documents holding the selected field",
        &["d"],
    ),
    (
        Action::LargestDocs,
        "largest-docs",
        "largest documents first",
        &["L"],
    ),
    (
        Action::DetailUp,
        "detail-up",
        "scroll the detail up; in an open document, the line above",
        &["K", "shift-up"],
    ),
    (
        Action::DetailDown,
        "detail-down",
        "scroll the detail down; in an open document, the next line",
        &["J", "shift-down"],
    ),
    (
        Action::DetailLeft,
        "detail-left",
        "scroll the detail to the left",
        &["<", "shift-left"],
    ),
    (
        Action::DetailRight,
        "detail-right",
        "scroll the detail to the right",
        &[">", "shift-right"],
    ),
    (
        Action::LessonLanguage,
        "lesson-language",
        "lessons in English / Chinese",
        &["t"],
    ),
    (
        Action::NextPage,
        "next-page",
        "next page of query results; with a search, the next match",
        &["n"],
    ),
    (
        Action::PrevPage,
        "prev-page",
        "previous page of query results",
        &["p"],
    ),
    (
        Action::Explain,
        "explain",
        "how the query runs (explain)",
        &["x"],
    ),
    (
        Action::ExportCsv,
        "export-csv",
        "write every match of the query to a CSV file",
        &["W"],
    ),
    (
        Action::FoldLevel,
        "fold-level",
        "fold nested objects and arrays: level 1, 2, none",
        &["z"],
    ),
    (
        Action::JumpEvidence,
        "jump-evidence",
        "a finding's evidence, in the detail (which takes the focus)",
        &["e"],
    ),
    (
        Action::JumpBeforeAfter,
        "jump-before-after",
        "a finding's before / after, in the detail",
        &["b"],
    ),
    (
        Action::JumpScript,
        "jump-script",
        "a finding's migration script, in the detail (y then copies it)",
        &["m"],
    ),
    (
        Action::GotoCollection,
        "goto-collection",
        "from a finding to its collection (Schema tab, at its field); on Documents: the table's columns",
        &["c"],
    ),
    (
        Action::Search,
        "search",
        "search the listed documents' text (n / N: next / previous match)",
        &["ctrl-f"],
    ),
    (
        Action::PrevMatch,
        "prev-match",
        "previous match of the search",
        &["N"],
    ),
    (
        Action::CheckExercises,
        "check-exercises",
        "on Learn: check the lesson's exercises on the server (a class: every student's)",
        &["v"],
    ),
];

/// What each action does, in Chinese (the help screen under `--lang zh`);
/// a new action does not compile until it has its words here.
fn chinese(a: Action) -> &'static str {
    match a {
        Action::Quit => "退出",
        Action::Help => "显示或隐藏本帮助",
        Action::Up => "上移",
        Action::Down => "下移",
        Action::Left => "折叠 / 回到上一级",
        Action::Right => "展开",
        Action::PageUp => "上一页",
        Action::PageDown => "下一页",
        Action::Top => "第一项",
        Action::Bottom => "最后一项",
        Action::NextPane => "下一个窗格：导航栏 → 列表 → 详情",
        Action::PrevPane => "上一个窗格：详情 → 列表 → 导航栏",
        Action::NextTab => "下一个标签页",
        Action::PrevTab => "上一个标签页",
        Action::TabSchema => "结构标签页",
        Action::TabFindings => "问题标签页",
        Action::TabDocuments => "文档标签页",
        Action::TabRelationships => "关系标签页",
        Action::TabLearn => "学习标签页（课程）",
        Action::TabIndexes => "索引标签页",
        Action::TabWorkload => "负载标签页（查询形状；Enter 打开该形状的问题）",
        Action::NavSort => "按名称、严重程度、大小、文档数排序集合",
        Action::Toggle => "打开 / 折叠；在文档的某一行上：折叠其对象或数组",
        Action::Filter => "筛选字段或集合；在文档页打开查询栏",
        Action::Cancel => "从详情回到列表；停止采样（按两次放弃）或查询，关闭，清除筛选",
        Action::Resample => "重新采样",
        Action::Connect => "连接到别处：已保存的连接、最近的目标、URI 或路径",
        Action::SampleMore => "样本加倍",
        Action::SampleLess => "样本减半",
        Action::SeverityFilter => "切换严重程度筛选",
        Action::RuleFilter => "切换规则筛选",
        Action::Copy => "复制迁移脚本；在文档页复制所选文档（OSC 52）",
        Action::WriteScript => "把迁移脚本（或查询的全部匹配）写入文件",
        Action::DocsWithField => "含有所选字段的文档",
        Action::LargestDocs => "最大的文档排在前面",
        Action::DetailUp => "详情向上滚动；在打开的文档中移到上一行",
        Action::DetailDown => "详情向下滚动；在打开的文档中移到下一行",
        Action::DetailLeft => "详情向左滚动",
        Action::DetailRight => "详情向右滚动",
        Action::LessonLanguage => "课程切换英文 / 中文",
        Action::NextPage => "查询结果下一页；搜索时转到下一个匹配",
        Action::PrevPage => "查询结果上一页",
        Action::Explain => "查询如何执行（explain）",
        Action::ExportCsv => "把查询的全部匹配写入 CSV 文件",
        Action::FoldLevel => "折叠嵌套的对象和数组：第 1 层、第 2 层、不折叠",
        Action::JumpEvidence => "问题的证据，在详情中（详情获得焦点）",
        Action::JumpBeforeAfter => "问题的改前 / 改后，在详情中",
        Action::JumpScript => "问题的迁移脚本，在详情中（随后 y 复制）",
        Action::GotoCollection => {
            "从问题转到它的集合（结构标签页，定位到其字段）；在文档页：选择表格的列"
        }
        Action::Search => "搜索所列文档的文本（n / N：下一个 / 上一个匹配）",
        Action::PrevMatch => "搜索的上一个匹配",
        Action::CheckExercises => "在“学习”页：在服务器上检查这一课的练习（一个班级：每位学生的）",
    }
}

/// One key with its modifiers, comparable and printable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Key {
    pub code: KeyCode,
    pub ctrl: bool,
    pub alt: bool,
    pub shift: bool,
}

impl Key {
    /// Normalises a terminal key event: the shift of a printable character
    /// is in the character itself.
    /// Shift-Tab arrives as `BackTab` with SHIFT set (crossterm); the shift
    /// is in the code, so it is dropped like a printable character's.
    pub(crate) fn from_event(e: KeyEvent) -> Key {
        let printable = matches!(e.code, KeyCode::Char(_) | KeyCode::BackTab);
        Key {
            code: e.code,
            ctrl: e.modifiers.contains(KeyModifiers::CONTROL),
            alt: e.modifiers.contains(KeyModifiers::ALT),
            shift: !printable && e.modifiers.contains(KeyModifiers::SHIFT),
        }
    }

    /// Parses `q`, `ctrl-c`, `shift-up`, `enter`, `f1`, `space` …
    pub fn parse(s: &str) -> Option<Key> {
        let mut ctrl = false;
        let mut alt = false;
        let mut shift = false;
        let mut rest = s;
        loop {
            let lower = rest.to_ascii_lowercase();
            if rest.len() > 1 && (lower.starts_with("ctrl-") || lower.starts_with("ctrl+")) {
                ctrl = true;
                rest = &rest[5..];
            } else if rest.len() > 1 && (lower.starts_with("alt-") || lower.starts_with("alt+")) {
                alt = true;
                rest = &rest[4..];
            } else if rest.len() > 1 && (lower.starts_with("shift-") || lower.starts_with("shift+"))
            {
                shift = true;
                rest = &rest[6..];
            } else {
                break;
            }
        }
        let code = match rest.to_ascii_lowercase().as_str() {
            "enter" | "return" => KeyCode::Enter,
            "esc" | "escape" => KeyCode::Esc,
            "tab" => KeyCode::Tab,
            "backtab" => KeyCode::BackTab,
            "space" => KeyCode::Char(' '),
            "up" => KeyCode::Up,
            "down" => KeyCode::Down,
            "left" => KeyCode::Left,
            "right" => KeyCode::Right,
            "pageup" | "pgup" => KeyCode::PageUp,
            "pagedown" | "pgdn" => KeyCode::PageDown,
            "home" => KeyCode::Home,
            "end" => KeyCode::End,
            "backspace" => KeyCode::Backspace,
            "delete" | "del" => KeyCode::Delete,
            f if f.len() > 1 && f.starts_with('f') => KeyCode::F(f[1..].parse().ok()?),
            _ => {
                let mut chars = rest.chars();
                let c = chars.next()?;
                if chars.next().is_some() {
                    return None;
                }
                KeyCode::Char(if ctrl { c.to_ascii_lowercase() } else { c })
            }
        };
        // `shift-tab` names the key terminals send as BackTab.
        let code = if shift && code == KeyCode::Tab {
            KeyCode::BackTab
        } else {
            code
        };
        let printable = matches!(code, KeyCode::Char(_) | KeyCode::BackTab);
        Some(Key {
            code,
            ctrl,
            alt,
            shift: shift && !printable,
        })
    }

    /// The key as the help screen shows it.
    pub(crate) fn label(&self) -> String {
        let base = match self.code {
            KeyCode::Enter => "Enter".to_owned(),
            KeyCode::Esc => "Esc".to_owned(),
            KeyCode::Tab => "Tab".to_owned(),
            KeyCode::BackTab => "S-Tab".to_owned(),
            KeyCode::Char(' ') => "Space".to_owned(),
            KeyCode::Up => "↑".to_owned(),
            KeyCode::Down => "↓".to_owned(),
            KeyCode::Left => "←".to_owned(),
            KeyCode::Right => "→".to_owned(),
            KeyCode::PageUp => "PgUp".to_owned(),
            KeyCode::PageDown => "PgDn".to_owned(),
            KeyCode::Home => "Home".to_owned(),
            KeyCode::End => "End".to_owned(),
            KeyCode::Backspace => "Bksp".to_owned(),
            KeyCode::F(n) => format!("F{n}"),
            KeyCode::Char(c) => c.to_string(),
            _ => "?".to_owned(),
        };
        let mut s = String::new();
        if self.ctrl {
            s.push_str("C-");
        }
        if self.alt {
            s.push_str("M-");
        }
        if self.shift {
            s.push_str("S-");
        }
        s.push_str(&base);
        s
    }
}

/// Keys to actions, and back for the help.
#[derive(Clone, Debug)]
pub struct Keymap {
    by_key: HashMap<Key, Action>,
    keys: HashMap<Action, Vec<Key>>,
}

impl Default for Keymap {
    fn default() -> Self {
        let mut m = Keymap {
            by_key: HashMap::new(),
            keys: HashMap::new(),
        };
        for (action, _, _, keys) in ACTIONS {
            for k in keys.iter().filter_map(|k| Key::parse(k)) {
                m.bind(*action, k);
            }
        }
        m
    }
}

impl Keymap {
    fn bind(&mut self, action: Action, key: Key) {
        if let Some(old) = self.by_key.insert(key, action) {
            if let Some(v) = self.keys.get_mut(&old) {
                v.retain(|k| *k != key);
            }
        }
        self.keys.entry(action).or_default().push(key);
    }

    /// The defaults with the configuration's `[keys]` applied, and a
    /// sentence for each entry that could not be understood (an unknown
    /// action, a key without a name); those entries are left out.
    pub(crate) fn with_section(section: &KeysSection) -> (Keymap, Vec<String>) {
        let mut m = Keymap::default();
        let mut problems = Vec::new();
        for (name, binding) in section {
            let Some(&(action, ..)) = ACTIONS.iter().find(|a| a.1 == name) else {
                let known: Vec<&str> = ACTIONS.iter().map(|a| a.1).collect();
                problems.push(format!(
                    "[keys]: unknown action `{name}` (actions: {})",
                    known.join(", ")
                ));
                continue;
            };
            let specs = binding.keys();
            let parsed: Vec<Key> = specs.iter().filter_map(|s| Key::parse(s)).collect();
            if parsed.len() != specs.len() || parsed.is_empty() {
                problems.push(format!("[keys]: cannot read the key for `{name}`"));
                continue;
            }
            if let Some(old) = m.keys.remove(&action) {
                for k in old {
                    m.by_key.remove(&k);
                }
            }
            for k in parsed {
                m.bind(action, k);
            }
        }
        (m, problems)
    }

    /// [`Keymap::with_section`] for a `[keys]` table not yet read.
    pub fn with_overrides(table: Option<&toml::Table>) -> (Keymap, Vec<String>) {
        let mut section = KeysSection::new();
        let mut problems = Vec::new();
        for (name, value) in table.into_iter().flatten() {
            match Binding::deserialize(value.clone()) {
                Ok(b) => {
                    section.insert(name.clone(), b);
                }
                Err(_) => {
                    problems.push(format!("[keys]: `{name}` must be a key or a list of keys"));
                }
            }
        }
        let (m, more) = Keymap::with_section(&section);
        problems.extend(more);
        (m, problems)
    }

    pub fn action(&self, key: Key) -> Option<Action> {
        self.by_key.get(&key).copied()
    }

    /// The keys bound to an action, as shown to people (`q/C-c`).
    pub fn label(&self, action: Action) -> String {
        self.keys
            .get(&action)
            .map(|ks| ks.iter().map(Key::label).collect::<Vec<_>>().join("/"))
            .unwrap_or_default()
    }

    /// The first key bound to an action, for the status bar hints.
    pub(crate) fn first_label(&self, action: Action) -> String {
        self.keys
            .get(&action)
            .and_then(|ks| ks.first())
            .map(Key::label)
            .unwrap_or_default()
    }

    /// The focus model as the help tells it, first: `(pane, what Tab,
    /// Enter and Esc do there)`, with the keys as they are bound.
    pub fn focus_help(&self, lang: Lang) -> Vec<(String, String)> {
        let k = |a: Action| self.first_label(a);
        let (tab, back, enter, esc) = (
            k(Action::NextPane),
            k(Action::PrevPane),
            k(Action::Toggle),
            k(Action::Cancel),
        );
        let scroll = format!(
            "{}{} {} {}",
            k(Action::Up),
            k(Action::Down),
            k(Action::PageUp),
            k(Action::PageDown)
        );
        let (ev, ba, sc, copy, coll) = (
            k(Action::JumpEvidence),
            k(Action::JumpBeforeAfter),
            k(Action::JumpScript),
            k(Action::Copy),
            k(Action::GotoCollection),
        );
        let (find, next, prev) = (k(Action::Search), k(Action::NextPage), k(Action::PrevMatch));
        let rows = [
            (
                lang.pick("Focus", "焦点"),
                lang.pick(
                    format!("navigator → list → detail: {tab} moves on, {back} back (the detail where the tab has one); it opens on All findings"),
                    format!("导航栏 → 列表 → 详情：{tab} 前进，{back} 后退（标签页有详情时）；启动时选中“全部问题”"),
                ),
            ),
            (
                lang.pick("Navigator", "导航栏"),
                lang.pick(
                    format!("{enter}: the selected collection or All findings into the list (a database folds); {esc}: clears the filter, the collection kept"),
                    format!("{enter}：进入所选集合或“全部问题”的列表（数据库则折叠）；{esc}：清除筛选，保留所选集合"),
                ),
            ),
            (
                lang.pick("List", "列表"),
                lang.pick(
                    format!("{enter} opens the row: a finding of All findings on its collection's Findings tab, then its detail"),
                    format!("{enter} 打开所选行：“全部问题”中的问题在其集合的问题标签页打开，再进入详情"),
                ),
            ),
            (
                lang.pick("Detail", "详情"),
                lang.pick(
                    format!("{scroll} scroll; {ev} evidence, {ba} before/after, {sc} script (from any pane); {copy} copies the script; {esc} back to the list"),
                    format!("{scroll} 滚动；{ev} 证据，{ba} 改前/改后，{sc} 脚本（任何窗格均可）；{copy} 复制脚本；{esc} 回到列表"),
                ),
            ),
            (
                lang.pick("Finding", "问题"),
                lang.pick(
                    format!("{coll}: its collection, on the Schema tab at its field"),
                    format!("{coll}：转到它的集合，在结构标签页定位到其字段"),
                ),
            ),
            (
                lang.pick("Documents", "文档"),
                lang.pick(
                    format!("{coll}: a table of chosen fields (again or {esc}: the previews); {copy} copies the document; {find} searches the listed ones, {next}/{prev} the next/previous match"),
                    format!("{coll}：所选字段的表格（再按一次或 {esc}：回到预览）；{copy} 复制文档；{find} 搜索所列文档，{next}/{prev} 下一个/上一个匹配"),
                ),
            ),
        ];
        rows.into_iter()
            .map(|(pane, what)| (pane.to_owned(), what))
            .collect()
    }

    /// `(keys, description)` for every action, in help order.
    pub fn help(&self, lang: Lang) -> Vec<(String, &'static str)> {
        ACTIONS
            .iter()
            .map(|(a, _, desc, _)| (self.label(*a), lang.pick(*desc, chinese(*a))))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shift_tab_is_back_tab_however_it_arrives() {
        let km = Keymap::default();
        for mods in [KeyModifiers::SHIFT, KeyModifiers::NONE] {
            let k = Key::from_event(KeyEvent::new(KeyCode::BackTab, mods));
            assert_eq!(km.action(k), Some(Action::PrevPane), "{mods:?}");
        }
        assert_eq!(Key::parse("shift-tab"), Key::parse("backtab"));
    }

    #[test]
    fn no_default_key_is_bound_to_two_actions() {
        let mut seen: HashMap<Key, &str> = HashMap::new();
        for (_, name, _, keys) in ACTIONS {
            for k in *keys {
                let key = Key::parse(k).unwrap_or_else(|| panic!("{name}: {k}"));
                if let Some(other) = seen.insert(key, name) {
                    panic!("`{k}` is bound to both `{other}` and `{name}`");
                }
            }
        }
        let km = Keymap::default();
        let big_c = Key::parse("C").expect("key");
        assert_eq!(km.action(big_c), Some(Action::Connect));
    }

    #[test]
    fn parses_keys() {
        assert_eq!(Key::parse("ctrl-c").map(|k| k.ctrl), Some(true));
        assert_eq!(Key::parse("G").map(|k| k.code), Some(KeyCode::Char('G')));
        assert_eq!(Key::parse("f1").map(|k| k.code), Some(KeyCode::F(1)));
        assert!(Key::parse("nonsense").is_none());
    }

    #[test]
    fn overrides_replace_defaults() {
        let t: toml::Table =
            toml::from_str("quit = \"x\"\nhelp = [\"h\", \"?\"]\nbogus = \"z\"").expect("toml");
        let (m, w) = Keymap::with_overrides(Some(&t));
        let x = Key::parse("x").expect("key");
        let q = Key::parse("q").expect("key");
        assert_eq!(m.action(x), Some(Action::Quit));
        assert_eq!(m.action(q), None);
        assert_eq!(m.label(Action::Help), "h/?");
        assert_eq!(w.len(), 1);
    }

    #[test]
    fn an_unknown_action_or_key_is_named() {
        let section: KeysSection =
            toml::from_str("quiet = \"x\"\nhelp = [\"h\", \"nonsense\"]\nresample = \"R\"")
                .expect("toml");
        let (m, problems) = Keymap::with_section(&section);
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(problems
            .iter()
            .any(|p| p.contains("unknown action `quiet`")));
        assert!(problems
            .iter()
            .any(|p| p.contains("cannot read the key for `help`")));
        assert_eq!(m.label(Action::Resample), "R");
        assert_eq!(m.label(Action::Help), "?/F1");
    }
}
