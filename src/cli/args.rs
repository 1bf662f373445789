//! The command line's arguments.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::i18n::Lang;
use crate::report::Format;

#[derive(Parser)]
#[command(
    name = "docshape",
    version,
    about = "Shows the real shape of your MongoDB data and what in it will hurt",
    long_about = "Shows the real shape of your MongoDB data and what in it will hurt.\n\n\
        TARGET is a connection string (mongodb://…, mongodb+srv://…), a file of documents \
        (Extended JSON .json/.jsonl/.ndjson, or mongodump .bson), or a directory (a mongodump \
        tree, or one sub-directory of document files per database). Without TARGET: \
        $MONGODB_URI, else mongodb://127.0.0.1:27017 if it answers within 1 s, else the \
        bundled sample data.",
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Without a command: the interactive explorer.
    #[command(flatten)]
    pub explore: ExploreArgs,
}

#[derive(Args)]
pub struct ExploreArgs {
    #[command(flatten)]
    pub common: Common,
    /// Colour theme: dark, light, projector, solarized, a user theme or a path.
    #[arg(long, value_name = "NAME|PATH")]
    pub theme: Option<String>,
}

#[derive(Subcommand)]
pub enum Command {
    /// Profile every selected collection and print a report.
    Audit(AuditArgs),
    /// Print the inferred shape of one collection (its profile, a validator,
    /// TypeScript or Rust types), or a diagram of the selected ones.
    Schema(SchemaArgs),
    /// Load the teaching data sets into a server, and with --workload run a
    /// workload on them with the profiler on (the only command that writes
    /// or sets profiling).
    Seed(SeedArgs),
    /// A lesson as plain text (list them with no NAME), ending with its
    /// exercises; with --check URI, grades a student's fixes of them.
    Lesson(LessonArgs),
    /// What changed between two JSON reports (written by `audit --format
    /// json`) or targets (audited first): collections, paths, types,
    /// presence, indexes and findings.
    /// A shift two samples of the same unchanged collection could show by
    /// chance is not reported: proportions are compared by a two-proportion
    /// test at a family-wise level of 0.001.
    Diff(DiffArgs),
    /// The teacher's board: one row per student found on the server (a
    /// database prefix under which `docshape seed --students N` or
    /// `--prefix` wrote the data sets), one column per exercise, each
    /// checked as `lesson NAME --check` does. In a terminal, r checks again
    /// and q quits. Only reads.
    Class(ClassArgs),
}

#[derive(Args)]
pub struct ClassArgs {
    /// The class's server.
    pub uri: String,
    /// Only students whose prefix matches (`*` matches any run of
    /// characters), e.g. `student*`.
    #[arg(long, value_name = "GLOB", default_value = "*")]
    pub prefix: String,
    /// Language (default from $LANG).
    #[arg(long, value_enum)]
    pub lang: Option<Lang>,
    /// Print the board once, without waiting for a key.
    #[arg(long)]
    pub once: bool,
    /// Bound on each server operation, in seconds.
    #[arg(long, value_name = "SECS", default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub timeout: u64,
}

#[derive(Args)]
pub struct DiffArgs {
    /// The earlier JSON report (`docshape audit TARGET --format json -o
    /// FILE`), or a target to audit now (with `audit`'s defaults).
    pub before: String,
    /// The later JSON report, or a target to audit now.
    pub after: String,
    /// Only this database, on both sides (repeatable).
    #[arg(long = "db", value_name = "NAME")]
    pub dbs: Vec<String>,
    /// Only this collection, `DB.COLL`, on both sides; `*` matches any run
    /// of characters (repeatable).
    #[arg(short = 'c', long = "collection", value_name = "DB.COLL")]
    pub collections: Vec<String>,
    /// Documents to sample per collection of a side that is a target.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub sample: Option<u64>,
    /// Read every document of a side that is a target.
    #[arg(long, conflicts_with = "sample")]
    pub full: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = crate::diff::render::DiffFormat::Text)]
    pub format: crate::diff::render::DiffFormat,
    /// Write the diff to FILE instead of standard output.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Exit with 1 when a change at or above this severity is found.
    #[arg(long, value_enum, default_value_t = FailOn::Warning)]
    pub fail_on: FailOn,
}

#[derive(Args)]
pub struct LessonArgs {
    /// The lesson (run without a name to list them).
    pub name: Option<String>,
    /// Language (default from $LANG).
    #[arg(long, value_enum)]
    pub lang: Option<Lang>,
    /// Read the data sets from a server seeded with `docshape seed` instead
    /// of the bundled sample data.
    #[arg(long, value_name = "URI")]
    pub from: Option<String>,
    /// Check the lesson's exercises on this server: audits the student's
    /// databases (`<PREFIX><data set>`, as `docshape seed` names them) and
    /// prints, per exercise, PASS or FAIL with the evidence still standing
    /// and the next hint. Exit 0 when every exercise passes, 1 otherwise.
    /// Only reads.
    #[arg(long, value_name = "URI", conflicts_with = "from", requires = "name")]
    pub check: Option<String>,
    /// Database name prefix used when seeding.
    #[arg(long, default_value = "docshape_")]
    pub prefix: String,
    /// Bound on each server operation, in seconds.
    #[arg(long, value_name = "SECS", default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub timeout: u64,
}

#[derive(Args, Clone)]
pub struct Common {
    /// Connection string, file or directory (see `docshape --help`).
    pub target: Option<String>,
    /// Only this database (repeatable).
    #[arg(long = "db", value_name = "NAME")]
    pub dbs: Vec<String>,
    /// Only this collection, `DB.COLL`; `*` matches any run of characters (repeatable).
    #[arg(short = 'c', long = "collection", value_name = "DB.COLL")]
    pub collections: Vec<String>,
    /// Documents to sample per collection (`$sample` on a server).
    #[arg(long, value_name = "N", default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..))]
    pub sample: u64,
    /// Read every document instead of a sample.
    #[arg(long, conflicts_with = "sample")]
    pub full: bool,
    /// Bound on each server operation, in seconds (also sent as maxTimeMS).
    #[arg(long, value_name = "SECS", default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub timeout: u64,
    /// Collections read at once from a server (at most its connection pool,
    /// `maxPoolSize`, 10 by default).
    #[arg(long, value_name = "N", default_value_t = crate::source::server::mongo::IN_FLIGHT, value_parser = parse_in_flight)]
    pub concurrency: usize,
    /// Memory budget of the run, in MiB: the documents kept per collection
    /// for the reference and growth stages share half of it.
    #[arg(long, value_name = "MIB", default_value_t = crate::audit::MEMORY_MIB, value_parser = parse_memory)]
    pub memory: usize,
    /// Neither read nor keep growth snapshots (kept in $XDG_STATE_HOME/docshape).
    #[arg(long)]
    pub no_snapshot: bool,
    /// Do not measure the largest documents and longest arrays over the
    /// whole collection (one aggregation per sampled collection on a server,
    /// a skim of a .bson file); sizes and lengths are then the sample's.
    #[arg(long)]
    pub no_extremes: bool,
    /// Threshold profile: default, atlas, compass or strict.
    #[arg(long = "rules", value_name = "PROFILE", value_parser = ["default", "atlas", "compass", "strict"])]
    pub rules: Option<String>,
    /// Configuration file (default: $XDG_CONFIG_HOME/docshape/docshape.toml).
    #[arg(long, value_name = "PATH")]
    pub config: Option<PathBuf>,
    /// Language of messages and explanations (default from $LANG).
    #[arg(long, value_enum)]
    pub lang: Option<Lang>,
    /// The query shapes, their cost and plans: from `mongod` JSON log files
    /// (a file, a `.gz`, or a directory of them; without TARGET, `audit`
    /// reports the workload alone), or `profile`: from the server's
    /// profiler (`system.profile` of each selected database, read-only).
    #[arg(long, value_name = "LOG|DIR|profile")]
    pub workload: Option<PathBuf>,
}

#[derive(Args)]
pub struct AuditArgs {
    #[command(flatten)]
    pub common: Common,
    /// Report format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Write the report to FILE instead of standard output.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Exit with 1 when a finding at or above this severity is reported
    /// (default critical); with --baseline, a change (default warning).
    #[arg(long, value_enum)]
    pub fail_on: Option<FailOn>,
    /// Compare with an earlier JSON report (`audit --format json -o FILE`)
    /// and write what changed instead of the report, as `docshape diff FILE
    /// TARGET` does (--format text, json, markdown or sarif).
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
}

#[derive(Args)]
pub struct SchemaArgs {
    #[command(flatten)]
    pub common: Common,
    /// Output format.
    #[arg(long, value_enum, default_value_t = SchemaFormat::Json)]
    pub format: SchemaFormat,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SchemaFormat {
    /// The profile of one collection, as in the JSON report.
    Json,
    /// A `$jsonSchema` validator for one collection, ready for `collMod`.
    JsonSchema,
    /// JSON Schema draft 2020-12 of one collection's documents as relaxed
    /// Extended JSON, for validators outside MongoDB.
    #[value(name = "json-schema-2020")]
    JsonSchema2020,
    /// An exported TypeScript interface of one collection's documents, with
    /// the `bson` package's types.
    Typescript,
    /// `serde` structs of one collection's documents, with the `bson`
    /// crate's types.
    Rust,
    /// An ER diagram of the selected collections and their references.
    Mermaid,
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, ValueEnum)]
pub enum FailOn {
    Info,
    Warning,
    Critical,
    Never,
}

fn parse_memory(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if (16..=1 << 20).contains(&n) => Ok(n),
        _ => Err(format!(
            "expected a number of MiB from 16 to 1048576, not {s:?}"
        )),
    }
}

fn parse_in_flight(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if (1..=1000).contains(&n) => Ok(n),
        _ => Err(format!("expected a number from 1 to 1000, not {s:?}")),
    }
}

/// `docshape seed URI [--prefix P | --students N] [--dataset NAME]... [--drop]`
#[derive(Args, Debug, Clone)]
pub struct SeedArgs {
    /// Connection string of the server to write to.
    pub uri: String,
    /// Database name prefix: data set NAME goes to database `<PREFIX>NAME`.
    #[arg(long, default_value = "docshape_", value_name = "P")]
    pub prefix: String,
    /// A copy for each of N students of a class: prefixes `student01_` …
    /// `studentNN_` (each student fixes their own copy; `--prefix` names
    /// one copy instead).
    #[arg(long, value_name = "N", conflicts_with = "prefix", value_parser = clap::value_parser!(u16).range(1..=999))]
    pub students: Option<u16>,
    /// Only this data set (repeatable; default: all of them).
    #[arg(long = "dataset", value_name = "NAME")]
    pub datasets: Vec<String>,
    /// Drop the data sets' collections first if they hold documents.
    #[arg(long)]
    pub drop: bool,
    /// Bound on connecting, in seconds.
    #[arg(long, value_name = "SECS", default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub timeout: u64,
    /// Then run the bundled workload (the reads and writes of an
    /// application on the data sets: finds, a $lookup, $push, updates of
    /// copied fields, _id lookups) with the database profiler on (level 2)
    /// for the data sets' databases, so that each one's system.profile
    /// holds it (an earlier system.profile there is dropped first, and the
    /// profiling level is set back afterwards). Its updates and inserts
    /// change the data sets it runs on.
    #[arg(long)]
    pub workload: bool,
}

impl From<SeedArgs> for crate::seed::Request {
    fn from(a: SeedArgs) -> Self {
        crate::seed::Request {
            uri: a.uri,
            prefix: a.prefix,
            students: a.students,
            datasets: a.datasets,
            drop: a.drop,
            timeout: a.timeout,
            workload: a.workload,
        }
    }
}

/// A value of an option whose type lives in an earlier stage: its names
/// and `--help` words come from the type itself, and only here does clap
/// see it.
macro_rules! value_enum {
    ($ty:ty, $all:expr, $name:expr, $about:expr) => {
        impl ValueEnum for $ty {
            fn value_variants<'a>() -> &'a [Self] {
                &$all
            }

            fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
                let value = clap::builder::PossibleValue::new($name(*self));
                Some(match $about(*self) {
                    Some(about) => value.help(about),
                    None => value,
                })
            }
        }
    };
}

value_enum!(
    crate::report::Format,
    crate::report::Format::ALL,
    crate::report::Format::name,
    |f: crate::report::Format| Some(f.about())
);
value_enum!(
    crate::diff::render::DiffFormat,
    crate::diff::render::DiffFormat::ALL,
    crate::diff::render::DiffFormat::name,
    |f: crate::diff::render::DiffFormat| Some(f.about())
);
value_enum!(Lang, [Lang::En, Lang::Zh], |l: Lang| l.code(), |_| None::<
    &'static str,
>);
