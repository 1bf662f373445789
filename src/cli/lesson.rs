//! `docshape lesson`: a lesson as plain text, measured on its data sets.

use std::process::ExitCode;
use std::time::Duration;

use super::args::LessonArgs;
use super::output::emit;
use super::Fatal;
use crate::i18n::Lang;

pub async fn run_lesson(l: LessonArgs) -> Result<ExitCode, Fatal> {
    let lang = l.lang.unwrap_or_else(Lang::from_env);
    let Some(name) = l.name else {
        emit(&crate::lesson::index(lang))?;
        return Ok(ExitCode::SUCCESS);
    };
    let Some(lesson) = crate::lesson::find(&name) else {
        let names: Vec<&str> = crate::lesson::LESSONS.iter().map(|l| l.name).collect();
        return Err(Fatal(format!(
            "no lesson named {name:?} (lessons: {})",
            names.join(", ")
        )));
    };
    if let Some(uri) = &l.check {
        let exercises = crate::lesson::exercises::of(lesson.name);
        if exercises.is_empty() {
            return Err(Fatal(format!("lesson {name} has no exercises yet")));
        }
        let checked = crate::lesson::exercises::check(
            &exercises,
            uri,
            &l.prefix,
            lang,
            Duration::from_secs(l.timeout),
        )
        .await
        .map_err(|e| Fatal(e.to_string()))?;
        let target = crate::secret::mask_uri(uri);
        emit(&crate::lesson::exercises::render(
            &checked, &target, &l.prefix, lang,
        ))?;
        let all = checked.iter().all(|c| c.verdict.passed());
        return Ok(if all {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(1)
        });
    }
    let reports = crate::lesson::measure(
        lesson,
        l.from.as_deref(),
        &l.prefix,
        lang,
        Duration::from_secs(l.timeout),
    )
    .await?;
    emit(&crate::lesson::render(lesson, &reports, lang))?;
    Ok(ExitCode::SUCCESS)
}
