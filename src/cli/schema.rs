//! `docshape schema`: the inferred shape of one collection (as JSON, a
//! validator, or types for TypeScript and Rust), or a diagram of the
//! selected ones.

use std::process::ExitCode;

use super::args::{SchemaArgs, SchemaFormat};
use super::output::emit;
use super::run::{profile, unreadable_parts};
use super::Fatal;
use crate::report;

pub async fn run_schema(s: SchemaArgs) -> Result<ExitCode, Fatal> {
    let report = profile(&s.common, None, None).await?;
    if s.format == SchemaFormat::Mermaid {
        emit(&report::mermaid::render(&report))?;
        return Ok(if unreadable_parts(&report) {
            ExitCode::from(2)
        } else {
            ExitCode::SUCCESS
        });
    }
    let n = report.collections.len();
    let coll = match n {
        1 => &report.collections[0],
        0 if unreadable_parts(&report) => return Ok(ExitCode::from(2)),
        0 => {
            return Err(Fatal(
                "no collection matched; name one with -c DB.COLL".into(),
            ))
        }
        _ => {
            let names: Vec<&str> = report
                .collections
                .iter()
                .take(5)
                .map(|c| c.namespace.as_str())
                .collect();
            return Err(Fatal(format!(
                "{n} collections matched ({}{}); name one with -c DB.COLL",
                names.join(", "),
                if n > 5 { ", …" } else { "" }
            )));
        }
    };
    match s.format {
        SchemaFormat::JsonSchema => emit(&report::json_schema::render(coll))?,
        SchemaFormat::JsonSchema2020 => emit(&report::json_schema_2020::render(coll))?,
        SchemaFormat::Typescript => emit(&report::typescript::render(coll))?,
        SchemaFormat::Rust => emit(&report::rust_types::render(coll))?,
        _ => emit(&report::json::render_collection(coll))?,
    }
    Ok(if unreadable_parts(&report) {
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    })
}
