//! Two guarantees, proved against real servers: docshape's read commands
//! write nothing (server write counters and `dbStats` before and after), and
//! a password never appears in anything docshape prints or writes.

use crate::common;

use std::path::Path;

use bson::{doc, Document};

const PASSWORD: &str = "Sup3r-S3cret-pw";

fn files_under(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                files_under(&p, out);
            } else {
                out.push(p);
            }
        }
    }
}

#[tokio::test(flavor = "current_thread")]
async fn passwords_never_appear_anywhere() {
    if std::env::var("MONGODB_URI").is_ok_and(|u| !u.is_empty()) {
        // This test provisions a user on a private server of its own.
        return;
    }
    let storage = tempfile::tempdir().expect("tempdir");
    let server = common::PrivateServer::start(storage.path(), &[]);
    let port = server.port();
    let plain = format!("mongodb://127.0.0.1:{port}");
    {
        let c = common::wait_ping(&plain).await;
        c.database("admin")
            .run_command(doc! {"createUser": "alice", "pwd": PASSWORD, "roles": [{"role": "root", "db": "admin"}]})
            .await
            .expect("createUser");
        c.database("shop")
            .collection::<Document>("orders")
            .insert_many((0..50).map(|i| doc! {"_id": i, "items": [1, 2, 3]}))
            .await
            .expect("insert");
    }
    // A graceful stop, so the user and the data are on disk for the restart.
    server.stop();
    let server = common::PrivateServer::start_on(port, storage.path(), &["--auth"]);
    let uri = format!("mongodb://alice:{PASSWORD}@127.0.0.1:{port}/?authSource=admin");
    common::wait_ping(&uri).await;

    let work = tempfile::tempdir().expect("tempdir");
    let state = work.path().join("state");
    let report = work.path().join("report.json");
    let env = [
        ("XDG_STATE_HOME", state.to_str().expect("utf-8")),
        ("XDG_CONFIG_HOME", work.path().to_str().expect("utf-8")),
    ];
    let mut outputs = Vec::new();
    for args in [
        vec![
            "audit",
            &uri,
            "--format",
            "json",
            "-o",
            report.to_str().expect("utf-8"),
        ],
        vec!["audit", &uri],
        vec!["audit", &uri, "--format", "sarif"],
        vec!["audit", &uri, "--format", "markdown"],
        vec!["schema", &uri, "-c", "shop.orders", "--format", "json"],
    ] {
        let a: Vec<&str> = args.clone();
        let out = tokio::task::spawn_blocking({
            let a: Vec<String> = a.iter().map(|s| (*s).to_owned()).collect();
            let env: Vec<(String, String)> = env
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect();
            move || {
                let a: Vec<&str> = a.iter().map(String::as_str).collect();
                let e: Vec<(&str, &str)> =
                    env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
                common::docshape_env(&a, &e)
            }
        })
        .await
        .expect("join");
        assert!(out.status.success(), "{args:?}: {}", common::stderr(&out));
        outputs.push(out);
    }
    // A wrong password: refused, and neither password is shown.
    let wrong = format!("mongodb://alice:Wr0ng-{PASSWORD}@127.0.0.1:{port}/?authSource=admin");
    let denied = tokio::task::spawn_blocking(move || {
        common::docshape(&["audit", &wrong, "--timeout", "5", "--no-snapshot"])
    })
    .await
    .expect("join");
    let line = common::assert_fails_cleanly(&denied, "wrong password");
    assert!(line.contains("authentication"), "{line}");
    outputs.push(denied);

    // A saved connection: the URI in the configuration file has no
    // password; it comes from the environment variable the entry names.
    let cfg_dir = work.path().join("docshape");
    std::fs::create_dir_all(&cfg_dir).expect("config dir");
    std::fs::write(
        cfg_dir.join("docshape.toml"),
        format!(
            "[connections.prod]\nuri = \"mongodb://alice@127.0.0.1:{port}/?authSource=admin\"\npassword-env = \"DOCSHAPE_TEST_PROD_PASSWORD\"\n"
        ),
    )
    .expect("write config");
    for with_password in [true, false] {
        let mut e: Vec<(String, String)> = env
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        if with_password {
            e.push(("DOCSHAPE_TEST_PROD_PASSWORD".into(), PASSWORD.into()));
        }
        let out = tokio::task::spawn_blocking(move || {
            let e: Vec<(&str, &str)> = e.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
            common::docshape_env(
                &[
                    "audit",
                    "prod",
                    "--format",
                    "json",
                    "--timeout",
                    "5",
                    "--no-snapshot",
                ],
                &e,
            )
        })
        .await
        .expect("join");
        if with_password {
            assert!(
                out.status.success(),
                "saved connection: {}",
                common::stderr(&out)
            );
            let r: serde_json::Value =
                serde_json::from_str(&common::stdout(&out)).expect("json report");
            assert!(
                r["collections"]
                    .as_array()
                    .is_some_and(|c| c.iter().any(|c| c["namespace"] == "shop.orders")),
                "{r}"
            );
            assert!(
                r["target"]
                    .as_str()
                    .is_some_and(|t| t.contains("alice:****@")),
                "{}",
                r["target"]
            );
        } else {
            // No variable and no terminal to ask on: one sentence naming it.
            let line = common::assert_fails_cleanly(&out, "saved connection without its password");
            assert!(line.contains("$DOCSHAPE_TEST_PROD_PASSWORD"), "{line}");
        }
        outputs.push(out);
    }

    for o in &outputs {
        for text in [common::stdout(o), common::stderr(o)] {
            assert!(!text.contains(PASSWORD), "password printed: {text}");
        }
    }
    assert!(
        common::stdout(&outputs[1]).contains("alice:****@"),
        "the target is shown masked"
    );
    let mut written = Vec::new();
    files_under(work.path(), &mut written);
    assert!(
        written.iter().any(|p| p.starts_with(&state)),
        "a growth snapshot was kept: {written:?}"
    );
    for f in written {
        let bytes = std::fs::read(&f).expect("read");
        assert!(
            !String::from_utf8_lossy(&bytes).contains(PASSWORD),
            "password in {}",
            f.display()
        );
        #[cfg(unix)]
        if f.starts_with(&state) {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&f).expect("meta").permissions().mode();
            assert_eq!(mode & 0o077, 0, "{} is readable by others", f.display());
        }
    }
    server.stop();
}

async fn counters(c: &mongodb::Client, db: &str) -> (Document, Document) {
    let status = c
        .database("admin")
        .run_command(doc! {"serverStatus": 1})
        .await
        .expect("serverStatus");
    let all = status
        .get_document("opcounters")
        .cloned()
        .unwrap_or_default();
    // Reads are expected; only writes must not move.
    let mut ops = Document::new();
    for k in ["insert", "update", "delete"] {
        if let Some(v) = all.get(k) {
            ops.insert(k, v.clone());
        }
    }
    let stats = c
        .database(db)
        .run_command(doc! {"dbStats": 1})
        .await
        .expect("dbStats");
    let mut s = Document::new();
    for k in ["collections", "objects", "dataSize", "indexes"] {
        if let Some(v) = stats.get(k) {
            s.insert(k, v.clone());
        }
    }
    (ops, s)
}

#[tokio::test(flavor = "current_thread")]
async fn read_commands_write_nothing() {
    let db = common::unique_db("readonly");
    let c = common::client().await;
    let coll = c.database(&db).collection::<Document>("posts");
    coll.insert_many((0..200u32).map(|i| doc! {"_id": i, "title": format!("p{i}"), "tags": (0..(i % 7)).map(|t| format!("t{t}")).collect::<Vec<_>>()}))
        .await
        .expect("insert");
    c.database(&db)
        .collection::<Document>("authors")
        .insert_many((0..20).map(|i| doc! {"_id": i, "name": "a"}))
        .await
        .expect("insert");
    // A profile to read: a few queries recorded at level 2, then off.
    let d = c.database(&db);
    d.run_command(doc! {"profile": 2}).await.expect("profile 2");
    for i in 0..5 {
        d.run_command(
            doc! {"find": "posts", "filter": {"title": format!("p{i}")}, "sort": {"_id": -1}},
        )
        .await
        .expect("find");
    }
    d.run_command(doc! {"profile": 0}).await.expect("profile 0");
    let before = counters(&c, &db).await;
    let uri = common::uri();
    let pattern = format!("{db}.*");
    let state = tempfile::tempdir().expect("tempdir");
    let state_dir = state.path().to_str().expect("utf-8").to_owned();
    for args in [
        vec!["audit", &uri, "-c", &pattern, "--format", "json"],
        vec![
            "audit", &uri, "-c", &pattern, "--full", "--format", "markdown",
        ],
        vec!["audit", &uri, "-c", &pattern, "--format", "sarif"],
        vec![
            "audit",
            &uri,
            "-c",
            &pattern,
            "--workload",
            "profile",
            "--format",
            "json",
            "--fail-on",
            "never",
        ],
        vec![
            "schema",
            &uri,
            "-c",
            &format!("{db}.posts"),
            "--format",
            "json-schema",
        ],
        vec!["schema", &uri, "-c", &pattern, "--format", "mermaid"],
    ] {
        let a: Vec<String> = args.iter().map(|s| (*s).to_owned()).collect();
        let sd = state_dir.clone();
        let out = tokio::task::spawn_blocking(move || {
            let a: Vec<&str> = a.iter().map(String::as_str).collect();
            common::docshape_env(&a, &[("XDG_STATE_HOME", sd.as_str())])
        })
        .await
        .expect("join");
        assert!(out.status.success(), "{args:?}: {}", common::stderr(&out));
    }
    let after = counters(&c, &db).await;
    assert_eq!(
        before, after,
        "read commands changed the server's write counters or the database"
    );
}
