//! The `docshape` command line.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum};

use docshape::audit::{self, Plan, Progress};
use docshape::i18n::Lang;
use docshape::report::{self, text::Style, CollectionReport, Report};
use docshape::rules::Thresholds;
use docshape::source::{MongoSource, SampleMode, Selection, Source, SourceError};
use docshape::target::{self, Origin, Target};

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
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// Without a command: the interactive explorer.
    #[command(flatten)]
    explore: ExploreArgs,
}

#[derive(Args)]
struct ExploreArgs {
    #[command(flatten)]
    common: Common,
    /// Colour theme: dark, light, projector, solarized, a user theme or a path.
    #[arg(long, value_name = "NAME|PATH")]
    theme: Option<String>,
}

#[derive(Subcommand)]
enum Command {
    /// Profile every selected collection and print a report.
    Audit(AuditArgs),
    /// Print the inferred shape of one collection.
    Schema(SchemaArgs),
    /// Load the teaching data sets into a server, and with --workload run a
    /// workload on them with the profiler on (the only command that writes
    /// or sets profiling).
    Seed(docshape::seed::SeedArgs),
    /// A lesson as plain text (list them with no NAME).
    Lesson(LessonArgs),
}

#[derive(Args)]
struct LessonArgs {
    /// The lesson (run without a name to list them).
    name: Option<String>,
    /// Language (default from $LANG).
    #[arg(long, value_enum)]
    lang: Option<Lang>,
    /// Read the data sets from a server seeded with `docshape seed` instead
    /// of the bundled sample data.
    #[arg(long, value_name = "URI")]
    from: Option<String>,
    /// Database name prefix used when seeding.
    #[arg(long, default_value = "docshape_")]
    prefix: String,
    /// Bound on each server operation, in seconds.
    #[arg(long, value_name = "SECS", default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..=86_400))]
    timeout: u64,
}

#[derive(Args, Clone)]
struct Common {
    /// Connection string, file or directory (see `docshape --help`).
    target: Option<String>,
    /// Only this database (repeatable).
    #[arg(long = "db", value_name = "NAME")]
    dbs: Vec<String>,
    /// Only this collection, `DB.COLL`; `*` matches any run of characters (repeatable).
    #[arg(short = 'c', long = "collection", value_name = "DB.COLL")]
    collections: Vec<String>,
    /// Documents to sample per collection (`$sample` on a server).
    #[arg(long, value_name = "N", default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..))]
    sample: u64,
    /// Read every document instead of a sample.
    #[arg(long, conflicts_with = "sample")]
    full: bool,
    /// Bound on each server operation, in seconds (also sent as maxTimeMS).
    #[arg(long, value_name = "SECS", default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..=86_400))]
    timeout: u64,
    /// Collections read at once from a server (at most its connection pool,
    /// `maxPoolSize`, 10 by default).
    #[arg(long, value_name = "N", default_value_t = docshape::source::mongo::IN_FLIGHT, value_parser = parse_in_flight)]
    concurrency: usize,
    /// Memory budget of the run, in MiB: the documents kept per collection
    /// for the reference and growth stages share half of it.
    #[arg(long, value_name = "MIB", default_value_t = docshape::audit::MEMORY_MIB, value_parser = parse_memory)]
    memory: usize,
    /// Neither read nor keep growth snapshots (kept in $XDG_STATE_HOME/docshape).
    #[arg(long)]
    no_snapshot: bool,
    /// Do not measure the largest documents and longest arrays over the
    /// whole collection (one aggregation per sampled collection on a server,
    /// a skim of a .bson file); sizes and lengths are then the sample's.
    #[arg(long)]
    no_extremes: bool,
    /// Threshold profile: default, atlas, compass or strict.
    #[arg(long = "rules", value_name = "PROFILE", value_parser = ["default", "atlas", "compass", "strict"])]
    rules: Option<String>,
    /// Configuration file (default: $XDG_CONFIG_HOME/docshape/docshape.toml).
    #[arg(long, value_name = "PATH")]
    config: Option<PathBuf>,
    /// Language of messages and explanations (default from $LANG).
    #[arg(long, value_enum)]
    lang: Option<Lang>,
    /// The query shapes, their cost and plans: from `mongod` JSON log files
    /// (a file, a `.gz`, or a directory of them; without TARGET, `audit`
    /// reports the workload alone), or `profile`: from the server's
    /// profiler (`system.profile` of each selected database, read-only).
    #[arg(long, value_name = "LOG|DIR|profile")]
    workload: Option<PathBuf>,
}

#[derive(Args)]
struct AuditArgs {
    #[command(flatten)]
    common: Common,
    /// Report format.
    #[arg(long, value_enum, default_value_t = AuditFormat::Text)]
    format: AuditFormat,
    /// Write the report to FILE instead of standard output.
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Exit with 1 when a finding at or above this severity is reported.
    #[arg(long, value_enum, default_value_t = FailOn::Critical)]
    fail_on: FailOn,
}

#[derive(Args)]
struct SchemaArgs {
    #[command(flatten)]
    common: Common,
    /// Output format.
    #[arg(long, value_enum, default_value_t = SchemaFormat::Json)]
    format: SchemaFormat,
}

#[derive(Clone, Copy, ValueEnum)]
enum AuditFormat {
    /// For people: each collection's summary, findings and field table.
    Text,
    /// The contract's JSON report, written as each collection is judged.
    Json,
    /// JSON lines: a `head` line, a `collection` line for each collection
    /// as it is judged, and an `end` line with the rest of the report.
    Jsonl,
    /// A Markdown review, for a pull request or a wiki.
    Markdown,
    /// SARIF 2.1.0, for code-scanning tools.
    Sarif,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum SchemaFormat {
    /// The profile of one collection, as in the JSON report.
    Json,
    /// A `$jsonSchema` validator for one collection, ready for `collMod`.
    JsonSchema,
    /// An ER diagram of the selected collections and their references.
    Mermaid,
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, ValueEnum)]
enum FailOn {
    Info,
    Warning,
    Critical,
    Never,
}

/// A failure the user must see: one sentence, exit code 2.
struct Fatal(String);

impl From<SourceError> for Fatal {
    fn from(e: SourceError) -> Self {
        Fatal(e.to_string())
    }
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // Usage errors: one sentence and exit 2, as for every other error.
        Err(e) if e.use_stderr() => {
            let text = e.to_string();
            let first = text.lines().next().unwrap_or_default();
            let first = first.strip_prefix("error: ").unwrap_or(first);
            eprintln!("docshape: {first} (see docshape --help)");
            return ExitCode::from(2);
        }
        // --help and --version.
        Err(e) => {
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
    };
    // The explorer runs on its own runtime (the loop, its tasks and its
    // blocking pool); every other command on one thread.
    let explorer = cli.command.is_none();
    let built = if explorer {
        docshape::tui::runtime()
    } else {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
    };
    let rt = match built {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("docshape: cannot start: {e}");
            return ExitCode::from(2);
        }
    };
    let result = rt.block_on(async {
        match cli.command {
            Some(Command::Audit(a)) => run_audit(a).await,
            Some(Command::Schema(s)) => run_schema(s).await,
            Some(Command::Seed(s)) => docshape::seed::cli(s)
                .await
                .map(|()| ExitCode::SUCCESS)
                .map_err(Fatal),
            Some(Command::Lesson(l)) => run_lesson(l).await,
            None => run_explorer(cli.explore).await,
        }
    });
    if explorer {
        // Short writes (the query history) get a moment to finish; a
        // sampling run or a file scan still going on the blocking pool is
        // abandoned: the user has left.
        rt.shutdown_timeout(Duration::from_millis(250));
    }
    match result {
        Ok(code) => code,
        Err(Fatal(msg)) => {
            clear_progress();
            eprintln!("docshape: {msg}");
            ExitCode::from(2)
        }
    }
}

async fn run_explorer(e: ExploreArgs) -> Result<ExitCode, Fatal> {
    let mut plan = plan(&e.common)?;
    plan.workload = read_workload(&e.common)?.map(std::sync::Arc::new);
    let opts = docshape::tui::Options {
        target: saved_target(&e.common)?,
        plan,
        timeout: Duration::from_secs(e.common.timeout),
        theme: e.theme,
        config: e.common.config.clone(),
    };
    // A signal (SIGTERM, SIGINT, SIGHUP, SIGQUIT) ends the explorer cleanly
    // with 128 + its number, as a shell reports a process it stopped.
    let exit = docshape::tui::run(opts).await.map_err(Fatal)?;
    Ok(ExitCode::from(exit.code()))
}

/// The target as given, or the URI of the saved connection it names
/// (`[connections.NAME]` in the configuration file) when it is neither a
/// connection string nor an existing file or directory.
fn saved_target(c: &Common) -> Result<Option<String>, Fatal> {
    let Some(given) = c.target.clone() else {
        return Ok(None);
    };
    if target::is_uri(&given) || std::path::Path::new(&given).exists() {
        return Ok(Some(given));
    }
    let Some(path) = c
        .config
        .clone()
        .or_else(docshape::rules::config::default_path)
    else {
        return Ok(Some(given));
    };
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Ok(Some(given));
    };
    // A file that does not parse is reported with the rules it holds.
    let Ok(table) = text.parse::<toml::Table>() else {
        return Ok(Some(given));
    };
    let env = |v: &str| std::env::var(v).ok().filter(|p| !p.is_empty());
    let found = target::saved_connection(
        &table,
        &path.display().to_string(),
        &given,
        env,
        ask_password,
    )
    .map_err(Fatal)?;
    Ok(Some(found.unwrap_or(given)))
}

/// Asks for a password on the terminal without echoing it.
fn ask_password(shown: &str) -> Result<String, String> {
    use ratatui::crossterm::event::{self, Event, KeyCode, KeyEventKind, KeyModifiers};
    use ratatui::crossterm::terminal;
    if !std::io::stdin().is_terminal() || !std::io::stderr().is_terminal() {
        return Err(format!(
            "{shown} needs a password and there is no terminal to ask for it"
        ));
    }
    eprint!("Password for {shown}: ");
    let _ = std::io::stderr().flush();
    terminal::enable_raw_mode().map_err(|e| format!("cannot read the password: {e}"))?;
    let mut pw = String::new();
    let read = loop {
        match event::read() {
            Ok(Event::Key(k)) if k.kind != KeyEventKind::Release => match k.code {
                KeyCode::Enter => break Ok(()),
                KeyCode::Char('c') if k.modifiers.contains(KeyModifiers::CONTROL) => {
                    break Err("cancelled".to_owned())
                }
                KeyCode::Esc => break Err("cancelled".to_owned()),
                KeyCode::Backspace => {
                    pw.pop();
                }
                KeyCode::Char(ch) => pw.push(ch),
                _ => {}
            },
            Ok(_) => {}
            Err(e) => break Err(format!("cannot read the password: {e}")),
        }
    };
    let _ = terminal::disable_raw_mode();
    eprintln!();
    read.map(|()| pw)
}

fn thresholds(c: &Common) -> Result<Thresholds, Fatal> {
    let path = c
        .config
        .clone()
        .or_else(docshape::rules::config::default_path);
    match path {
        Some(p) => Thresholds::load(&p, c.rules.as_deref()).map_err(|e| Fatal(e.to_string())),
        None => {
            Ok(Thresholds::profile(c.rules.as_deref().unwrap_or("default")).unwrap_or_default())
        }
    }
}

fn plan(c: &Common) -> Result<Plan, Fatal> {
    let mut plan = Plan::new(
        Selection {
            dbs: c.dbs.clone(),
            collections: c.collections.clone(),
        },
        if c.full {
            SampleMode::Full
        } else {
            SampleMode::Sample(c.sample)
        },
    );
    plan.snapshots = if c.no_snapshot {
        None
    } else {
        docshape::growth::snapshot::dir()
    };
    plan.thresholds = thresholds(c)?;
    plan.lang = c.lang.unwrap_or_else(Lang::from_env);
    plan.in_flight = Some(c.concurrency);
    plan.memory = c.memory << 20;
    plan.extremes = !c.no_extremes;
    plan.workload_profile = workload_from_profile(c);
    Ok(plan)
}

/// `--workload profile`: the server's profiler, read by the run itself
/// (a log file named `profile` is given as `./profile`).
fn workload_from_profile(c: &Common) -> bool {
    c.workload.as_deref() == Some(std::path::Path::new(docshape::workload::profile::PROFILE))
}

/// The workload of `--workload LOG|DIR`, read before any target is
/// opened (`profile` is read by the run, once connected).
fn read_workload(c: &Common) -> Result<Option<docshape::workload::Workload>, Fatal> {
    if workload_from_profile(c) {
        return Ok(None);
    }
    c.workload
        .as_deref()
        .map(|p| docshape::workload::read_logs(p).map_err(Fatal))
        .transpose()
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

/// Where a run hands each judged collection, with the report's head.
type JudgedOut<'a> = dyn FnMut(&Report, CollectionReport) + 'a;

/// Opens the target and profiles what the plan selects; with `out`, each
/// judged collection goes there as it comes, not into the report.
async fn profile(
    c: &Common,
    workload: Option<std::sync::Arc<docshape::workload::Workload>>,
    mut out: Option<&mut JudgedOut<'_>>,
) -> Result<Report, Fatal> {
    let mut plan = plan(c)?;
    plan.workload = workload;
    let given = saved_target(c)?;
    let (target, origin) = target::resolve(given.as_deref()).await;
    match origin {
        Origin::BundledSample => eprintln!(
            "docshape: no target given, no $MONGODB_URI and no server on 127.0.0.1:27017; reading the bundled sample data in {}",
            target.label()
        ),
        Origin::LocalServer => eprintln!("docshape: no target given; reading {}", target.label()),
        Origin::EnvUri => eprintln!("docshape: reading $MONGODB_URI ({})", target.label()),
        Origin::Given => {}
    }
    let mut show = progress_printer();
    let options = target::OpenOptions {
        timeout: Duration::from_secs(c.timeout),
        mode: plan.mode,
    };
    let mut src = target::open(&target, &options).await?;
    let report = run(&mut src, &plan, &mut show, out.take()).await?;
    clear_progress();
    Ok(report)
}

/// `audit --workload profile` with no target: the profiler of the server
/// the default target finds (`$MONGODB_URI`, or one on 127.0.0.1:27017),
/// as a workload-only report, as for a log read without its target.
async fn profiler_only(c: &Common) -> Result<Report, Fatal> {
    let plan = plan(c)?;
    let (target, origin) = target::resolve(None).await;
    let Target::Mongo(uri) = &target else {
        return Err(Fatal(
            "--workload profile reads a server's profiler, and no target was given, $MONGODB_URI is not set and no server answers on 127.0.0.1:27017".into(),
        ));
    };
    if origin == Origin::EnvUri {
        eprintln!(
            "docshape: reading the profiler of $MONGODB_URI ({})",
            target.label()
        );
    } else {
        eprintln!(
            "docshape: no target given; reading the profiler of {}",
            target.label()
        );
    }
    let src = MongoSource::connect(uri, Duration::from_secs(c.timeout)).await?;
    Ok(audit::profiled_workload_only(&src, &plan, target.label()).await?)
}

async fn run<S: Source>(
    src: &mut S,
    plan: &Plan,
    show: &mut dyn FnMut(&Progress<'_>),
    out: Option<&mut JudgedOut<'_>>,
) -> Result<Report, Fatal> {
    Ok(match out {
        Some(out) => audit::run_into(src, plan, show, out).await?,
        None => audit::run(src, plan, show).await?,
    })
}

async fn run_audit(a: AuditArgs) -> Result<ExitCode, Fatal> {
    let workload = read_workload(&a.common)?;
    let color = a.output.is_none()
        && std::io::stdout().is_terminal()
        && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    // Collections rendered as they come, for text and Markdown.
    let spool = || match a.format {
        AuditFormat::Text | AuditFormat::Markdown => report::Spool::on_disk(),
        _ => report::Spool::in_memory(),
    };
    let mut spooled = report::Spooled::new(spool(), spool());
    let mut spool_failed = None;
    // JSON is written as the collections are judged, not held until the end.
    let mut stream = match a.format {
        AuditFormat::Json => Some(Streaming::new(a.output.clone(), false)),
        AuditFormat::Jsonl => Some(Streaming::new(a.output.clone(), true)),
        _ => None,
    };
    let report = match (workload, a.common.target.is_some()) {
        (Some(w), false) => {
            let label = a
                .common
                .workload
                .as_deref()
                .map(|p| p.display().to_string())
                .unwrap_or_default();
            audit::workload_only(&plan(&a.common)?, label, w)
        }
        (None, false) if workload_from_profile(&a.common) => profiler_only(&a.common).await?,
        (w, _) => {
            let w = w.map(std::sync::Arc::new);
            match &mut stream {
                Some(stream) => {
                    profile(
                        &a.common,
                        w,
                        Some(&mut |head: &Report, c: CollectionReport| stream.collection(head, &c)),
                    )
                    .await?
                }
                None => {
                    // Text and Markdown render each collection as it comes
                    // and spool it; SARIF keeps the findings.
                    let mut shown = Vec::new();
                    let mut report = profile(
                        &a.common,
                        w,
                        Some(&mut |head: &Report, c: CollectionReport| {
                            let added = match a.format {
                                AuditFormat::Text => {
                                    report::text::add(&mut spooled, &c, Style { color })
                                }
                                AuditFormat::Markdown => report::markdown::add(
                                    &mut spooled,
                                    &c,
                                    head.rules.lang == Lang::Zh,
                                ),
                                _ => {
                                    shown.push(report::findings_only(c));
                                    Ok(())
                                }
                            };
                            if let Err(e) = added {
                                spool_failed.get_or_insert(e);
                            }
                        }),
                    )
                    .await?;
                    report.collections = shown;
                    report
                }
            }
        }
    };
    if let Some(e) = spool_failed {
        return Err(Fatal(format!(
            "cannot write the report's temporary file: {e}"
        )));
    }
    let mut worst = report.worst().max(spooled.worst());
    match a.format {
        AuditFormat::Json | AuditFormat::Jsonl => {
            if let Some(stream) = stream {
                worst = worst.max(stream.worst);
                stream.finish(&report)?;
            }
        }
        AuditFormat::Text => emit_with(a.output.as_deref(), |w| {
            report::text::finish(&report, Style { color }, &mut spooled, w)
        })?,
        AuditFormat::Markdown => emit_with(a.output.as_deref(), |w| {
            report::markdown::finish(&report, &mut spooled, w)
        })?,
        AuditFormat::Sarif => emit(&report::sarif::render(&report), a.output.as_deref())?,
    }
    if unreadable_parts(&report) {
        return Ok(ExitCode::from(2));
    }
    let threshold = match a.fail_on {
        FailOn::Info => Some(docshape::rules::Severity::Info),
        FailOn::Warning => Some(docshape::rules::Severity::Warning),
        FailOn::Critical => Some(docshape::rules::Severity::Critical),
        FailOn::Never => None,
    };
    let failed = matches!((threshold, worst), (Some(t), Some(w)) if w >= t);
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// Each part of the target that could not be read, on stderr, one
/// sentence each; true when there was one (then the exit code is 2, once
/// the report is written).
fn unreadable_parts(report: &Report) -> bool {
    for e in &report.errors {
        eprintln!("docshape: {}", report::text::safe(&e.message));
    }
    !report.errors.is_empty()
}

async fn run_lesson(l: LessonArgs) -> Result<ExitCode, Fatal> {
    let lang = l.lang.unwrap_or_else(Lang::from_env);
    let Some(name) = l.name else {
        emit(&docshape::lesson::index(lang), None)?;
        return Ok(ExitCode::SUCCESS);
    };
    let Some(lesson) = docshape::lesson::find(&name) else {
        let names: Vec<&str> = docshape::lesson::LESSONS.iter().map(|l| l.name).collect();
        return Err(Fatal(format!(
            "no lesson named {name:?} (lessons: {})",
            names.join(", ")
        )));
    };
    let reports = docshape::lesson::measure(
        lesson,
        l.from.as_deref(),
        &l.prefix,
        lang,
        Duration::from_secs(l.timeout),
    )
    .await?;
    emit(&docshape::lesson::render(lesson, &reports, lang), None)?;
    Ok(ExitCode::SUCCESS)
}

async fn run_schema(s: SchemaArgs) -> Result<ExitCode, Fatal> {
    let report = profile(&s.common, None, None).await?;
    if s.format == SchemaFormat::Mermaid {
        emit(&report::mermaid::render(&report), None)?;
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
        SchemaFormat::JsonSchema => emit(&report::json_schema::render(coll), None)?,
        _ => emit(&report::json::render_collection(coll), None)?,
    }
    Ok(if unreadable_parts(&report) {
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    })
}

/// The JSON report (or JSON lines) written as the audit hands out its
/// judged collections. The output is opened with the first of them, so a
/// run that fails before writes nothing.
struct Streaming {
    output: Option<PathBuf>,
    lines: bool,
    writer: Option<report::json::Streamed<Box<dyn Write>>>,
    /// The first failure to open or write the output.
    failed: Option<std::io::Error>,
    /// The worst finding of the collections written.
    worst: Option<docshape::rules::Severity>,
}

impl Streaming {
    fn new(output: Option<PathBuf>, lines: bool) -> Streaming {
        Streaming {
            output,
            lines,
            writer: None,
            failed: None,
            worst: None,
        }
    }

    fn writer(&mut self) -> std::io::Result<&mut report::json::Streamed<Box<dyn Write>>> {
        if self.writer.is_none() {
            let out: Box<dyn Write> = match &self.output {
                Some(p) => Box::new(std::io::BufWriter::new(std::fs::File::create(p)?)),
                None => Box::new(std::io::BufWriter::new(std::io::stdout().lock())),
            };
            self.writer = Some(report::json::Streamed::new(out, self.lines));
        }
        self.writer
            .as_mut()
            .ok_or_else(|| std::io::Error::other("no output"))
    }

    fn collection(&mut self, head: &Report, c: &CollectionReport) {
        self.worst = self.worst.max(c.findings.iter().map(|f| f.severity).max());
        if self.failed.is_some() {
            return;
        }
        if let Err(e) = self.writer().and_then(|w| w.collection(head, c)) {
            self.failed = Some(e);
        }
    }

    fn finish(mut self, report: &Report) -> Result<(), Fatal> {
        let done = match self.failed.take() {
            Some(e) => Err(e),
            None => self.writer().and(Ok(())).and_then(|()| {
                self.writer
                    .take()
                    .map_or(Ok(()), |w| w.finish(report).map(drop))
            }),
        };
        match (done, &self.output) {
            (Ok(()), _) => Ok(()),
            (Err(e), Some(p)) => Err(Fatal(format!("cannot write {}: {e}", p.display()))),
            // A closed pipe (`| head`) is not an error worth a message.
            (Err(e), None) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
            (Err(e), None) => Err(Fatal(format!("cannot write the report: {e}"))),
        }
    }
}

fn emit(text: &str, output: Option<&std::path::Path>) -> Result<(), Fatal> {
    emit_with(output, |w| w.write_all(text.as_bytes()))
}

/// Hands `write` the output file, or standard output, buffered.
fn emit_with(
    output: Option<&std::path::Path>,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), Fatal> {
    if let Some(p) = output {
        let file = std::fs::File::create(p)
            .map_err(|e| Fatal(format!("cannot write {}: {e}", p.display())))?;
        let mut out = std::io::BufWriter::new(file);
        return write(&mut out)
            .and_then(|()| out.flush())
            .map_err(|e| Fatal(format!("cannot write {}: {e}", p.display())));
    }
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    match write(&mut out).and_then(|()| out.flush()) {
        // A closed pipe (`| head`) is not an error worth a message.
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(Fatal(format!("cannot write the report: {e}")))
        }
        _ => Ok(()),
    }
}

/// Progress on stderr when it is a terminal: one line, rewritten in place.
fn progress_printer() -> impl FnMut(&Progress<'_>) {
    let tty = std::io::stderr().is_terminal();
    move |p: &Progress<'_>| {
        if !tty {
            return;
        }
        if p.stage != audit::Stage::Sampling {
            eprint!(
                "\r\x1b[2K[{}/{}] {}…",
                p.position.0,
                p.position.1,
                p.stage.name(docshape::i18n::Lang::En)
            );
            return;
        }
        let expected = p
            .expected
            .map(|e| format!("/{}", docshape::fmt::group(e)))
            .unwrap_or_default();
        // A collection reported as finished carries no time of its own.
        let rate = if p.elapsed.is_zero() {
            String::new()
        } else {
            format!("  {} docs/s", docshape::fmt::group(p.rate().round() as u64))
        };
        eprint!(
            "\r\x1b[2K[{}/{}] {}  {}{} documents{rate}",
            p.position.0,
            p.position.1,
            report::text::safe(p.namespace),
            docshape::fmt::group(p.documents),
            expected,
        );
    }
}

fn clear_progress() {
    if std::io::stderr().is_terminal() {
        eprint!("\r\x1b[2K");
    }
}
