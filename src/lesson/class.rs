//! The teacher's board: one row per student found on a server (a database
//! prefix under which `docshape seed` wrote the data sets), one column per
//! exercise, each cell the exercise's check on that student's databases.

use std::fmt::Write as _;
use std::time::Duration;

use futures_util::StreamExt;

use super::exercises::{self, CheckError, Exercise};
use crate::fmt::{display_width, group, pad, pad_left};
use crate::i18n::Lang;
use crate::source::select::glob;
use crate::source::SourceError;

/// Students checked at once: each check audits its own databases.
const AT_ONCE: usize = 4;

/// A prefix is a student's when at least this many of the lessons' data
/// sets are there under it: one database whose name merely ends like a
/// data set (`my_tree`) is no student.
const MIN_DATASETS: usize = 2;

/// One cell of the board.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cell {
    Pass,
    Fail,
    /// None of the exercise's databases is there.
    Missing,
}

/// One student's row.
#[derive(Debug)]
pub struct Row {
    pub prefix: String,
    /// One per exercise of the board, in its order; or why the student's
    /// databases could not be checked.
    pub cells: Result<Vec<Cell>, String>,
}

impl Row {
    /// Exercises whose data sets the student has.
    pub(crate) fn seeded(&self) -> usize {
        self.cells
            .as_ref()
            .map_or(0, |c| c.iter().filter(|c| **c != Cell::Missing).count())
    }

    /// Exercises passed.
    pub(crate) fn passed(&self) -> usize {
        self.cells
            .as_ref()
            .map_or(0, |c| c.iter().filter(|c| **c == Cell::Pass).count())
    }
}

/// The board: the exercises (columns) and the students (rows).
pub struct Board {
    pub exercises: Vec<&'static Exercise>,
    pub rows: Vec<Row>,
}

/// The student prefixes among database names `dbs`: every non-empty
/// prefix matching `pattern` (`*` globs) under which at least
/// [`MIN_DATASETS`] of the data sets `seed` writes are, sorted.
pub(crate) fn prefixes(dbs: &[String], pattern: &str) -> Vec<String> {
    let sets = crate::seed::datasets::NAMES;
    let mut found = std::collections::BTreeMap::<&str, usize>::new();
    for db in dbs {
        for set in &sets {
            if let Some(p) = db.strip_suffix(set) {
                if !p.is_empty() && glob(pattern, p) {
                    *found.entry(p).or_default() += 1;
                }
            }
        }
    }
    found
        .into_iter()
        .filter(|(_, n)| *n >= MIN_DATASETS)
        .map(|(p, _)| p.to_owned())
        .collect()
}

/// Every exercise, in the order of the lessons.
pub(crate) fn all_exercises() -> Vec<&'static Exercise> {
    super::LESSONS
        .iter()
        .flat_map(|l| exercises::of(l.name))
        .collect()
}

/// Checks `exercises` for every student prefix matching `pattern` on the
/// server at `uri`. Only reads.
pub(crate) async fn board(
    uri: &str,
    pattern: &str,
    exercises: Vec<&'static Exercise>,
    lang: Lang,
    timeout: Duration,
) -> Result<Board, SourceError> {
    let dbs = databases(uri, timeout).await?;
    let students = prefixes(&dbs, pattern);
    Ok(board_of(uri, &dbs, students, exercises, lang, timeout).await)
}

/// The database names on the server at `uri`.
async fn databases(uri: &str, timeout: Duration) -> Result<Vec<String>, SourceError> {
    let server = crate::target::connect(uri, timeout).await?;
    server
        .call("listing databases", async {
            server.client().list_database_names().await
        })
        .await
}

/// The board of `students` (prefixes) on the server at `uri`, whose
/// databases are `dbs`.
async fn board_of(
    uri: &str,
    dbs: &[String],
    students: Vec<String>,
    exercises: Vec<&'static Exercise>,
    lang: Lang,
    timeout: Duration,
) -> Board {
    let list = &exercises;
    let rows = futures_util::stream::iter(students)
        .map(|prefix| async move {
            let cells = match exercises::check(list, uri, &prefix, lang, timeout).await {
                Ok(checked) => Ok(list
                    .iter()
                    .map(|e| {
                        let seeded = e
                            .datasets
                            .iter()
                            .any(|d| dbs.contains(&format!("{prefix}{d}")));
                        match checked.iter().find(|c| c.exercise.id == e.id) {
                            _ if !seeded => Cell::Missing,
                            Some(c) if c.verdict.passed() => Cell::Pass,
                            _ => Cell::Fail,
                        }
                    })
                    .collect()),
                Err(CheckError::NotSeeded { .. }) => Ok(vec![Cell::Missing; list.len()]),
                Err(e) => Err(e.to_string()),
            };
            Row { prefix, cells }
        })
        .buffered(AT_ONCE)
        .collect::<Vec<_>>()
        .await;
    Board { exercises, rows }
}

/// The students among `dbs` (database names) with a copy of one of
/// `lesson`'s exercises' data sets.
pub(crate) fn students_of(lesson: &str, dbs: &[String]) -> Vec<String> {
    let sets: Vec<&str> = exercises::of(lesson)
        .iter()
        .flat_map(|e| e.datasets.iter().copied())
        .collect();
    prefixes(dbs, "*")
        .into_iter()
        .filter(|p| sets.iter().any(|s| dbs.contains(&format!("{p}{s}"))))
        .collect()
}

/// A lesson's exercises checked on the server at `uri` for `students`
/// (prefixes, found by [`students_of`]), as the explorer's Learn tab shows
/// them: the student's own verdicts, evidence and hints for one student;
/// the lesson's board for several. Only reads.
pub(crate) async fn check_lesson(
    uri: &str,
    lesson: &str,
    students: &[String],
    lang: Lang,
    timeout: Duration,
) -> Result<String, CheckError> {
    let list = exercises::of(lesson);
    if list.is_empty() {
        return Ok(lang
            .pick("This lesson has no exercises.", "这一课没有练习。")
            .to_owned());
    }
    let target = crate::secret::mask_uri(uri);
    match students {
        [] => {
            let mut sets: Vec<&str> = list
                .iter()
                .flat_map(|e| e.datasets.iter().copied())
                .collect();
            sets.dedup();
            Err(CheckError::NotSeeded {
                dbs: sets
                    .iter()
                    .map(|d| format!("docshape_{d}"))
                    .collect::<Vec<_>>()
                    .join(", "),
                prefix: "docshape_".into(),
            })
        }
        [one] => {
            let checked = exercises::check(&list, uri, one, lang, timeout).await?;
            Ok(exercises::render(&checked, &target, one, lang))
        }
        _ => {
            let dbs = databases(uri, timeout).await?;
            let b = board_of(uri, &dbs, students.to_vec(), list, lang, timeout).await;
            Ok(render(&b, &target, lang))
        }
    }
}

/// A cell as drawn.
pub(crate) fn mark(c: &Cell) -> &'static str {
    match c {
        Cell::Pass => "✓",
        Cell::Fail => "✗",
        Cell::Missing => "·",
    }
}

/// `n` and its noun, singular for one.
fn counted(n: usize, one: &str, many: &str) -> String {
    format!("{} {}", group(n as u64), if n == 1 { one } else { many })
}

/// The board as text: a numbered column per exercise (named below the
/// table), a row per student with how many of the exercises on the data
/// sets they have passed.
pub(crate) fn render(b: &Board, target: &str, lang: Lang) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}\n",
        lang.pick(
            format!(
                "Class on {target}: {}, {}",
                counted(b.rows.len(), "student", "students"),
                counted(b.exercises.len(), "exercise", "exercises"),
            ),
            format!(
                "{target} 上的班级：{} 名学生，{} 个练习",
                group(b.rows.len() as u64),
                group(b.exercises.len() as u64)
            ),
        )
    );
    if b.rows.is_empty() {
        let _ = writeln!(
            out,
            "{}",
            lang.pick(
                "No student's databases found (docshape seed URI --students N writes them).",
                "没有找到学生的数据库（docshape seed URI --students N 会写入它们）。",
            )
        );
        return out;
    }
    let student = lang.pick("student", "学生");
    let passed = lang.pick("passed", "通过");
    let first = b
        .rows
        .iter()
        .map(|r| display_width(&r.prefix))
        .chain([display_width(student)])
        .max()
        .unwrap_or(0);
    let col = b.exercises.len().to_string().len().max(1) + 1;
    let mut head = pad(student, first);
    for i in 1..=b.exercises.len() {
        head.push_str(&pad_left(&i.to_string(), col));
    }
    let _ = writeln!(out, "{head}  {passed}");
    for r in &b.rows {
        let mut line = pad(&r.prefix, first);
        match &r.cells {
            Ok(cells) => {
                for c in cells {
                    line.push_str(&pad_left(mark(c), col));
                }
                let _ = write!(
                    line,
                    "  {}/{}",
                    group(r.passed() as u64),
                    group(r.seeded() as u64)
                );
            }
            Err(e) => {
                let _ = write!(line, "  {}: {e}", lang.pick("not checked", "未检查"));
            }
        }
        let _ = writeln!(out, "{line}");
    }
    out.push('\n');
    for (i, e) in b.exercises.iter().enumerate() {
        let _ = writeln!(out, "{} {}", pad_left(&(i + 1).to_string(), col), e.id);
    }
    let _ = writeln!(
        out,
        "\n{}",
        lang.pick(
            "✓ passed  ✗ not yet  · not seeded",
            "✓ 已通过  ✗ 未通过  · 未写入数据"
        )
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn a_student_is_a_prefix_holding_two_data_sets_or_more() {
        let dbs = names(&[
            "student01_blog",
            "student01_tree",
            "student02_blog",
            "student02_indexes",
            "my_tree",
            "blog",
            "indexes",
            "admin",
            "docshape_blog",
            "docshape_one_to_few",
        ]);
        assert_eq!(
            prefixes(&dbs, "*"),
            ["docshape_", "student01_", "student02_"]
        );
        assert_eq!(prefixes(&dbs, "student*"), ["student01_", "student02_"]);
        assert!(prefixes(&dbs, "nobody*").is_empty());
    }
}
