//! Links the application writes on both sides, on the real collections the
//! expert reviewed (`../shared/realapps`) and on the test server:
//! `two-way-out-of-sync` on `homeautomation`'s rooms and controllers and on
//! `travelerconnect`'s cities and their details, never on a user's photos
//! beside their current profile picture (`linkedout`);
//! `denormalization-drift` through copies naming their user by the hex
//! string of its id (`pokerunderdog`'s teams), found as files and on a
//! server, whose refresh script runs twice with the real `mongosh`; and
//! the two-way check made by bounded queries when the sample is not the
//! whole collection, its read-only script run twice.

use crate::common;
use crate::migrate;

use std::path::{Path, PathBuf};

use bson::{Bson, Document};
use serde_json::Value;

use common::{client, docshape, docshape_async, json_ok, load_dir, unique_db};
use migrate::{all, findings, run_twice};

fn realapps(rel: &str) -> PathBuf {
    let p = common::repo().join("../shared/realapps").join(rel);
    assert!(p.exists(), "{} is missing", p.display());
    p
}

/// The JSON report of `audit TARGET`, in English, snapshots off.
fn audit(target: &Path) -> Value {
    json_ok(&docshape(&[
        "audit",
        target.to_str().expect("UTF-8 path"),
        "--format",
        "json",
        "--no-snapshot",
        "--fail-on",
        "never",
        "--lang",
        "en",
    ]))
}

/// Every finding of `rule` in the report, with its namespace.
fn all_of<'a>(report: &'a Value, rule: &str) -> Vec<(&'a str, &'a Value)> {
    common::collections(report)
        .iter()
        .flat_map(|c| {
            let ns = c["namespace"].as_str().unwrap_or("");
            c["findings"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(move |f| f["rule"] == rule)
                .map(move |f| (ns, f))
        })
        .collect()
}

/// The relationship whose `from` ends with `from`.
fn relationship<'a>(report: &'a Value, from: &str) -> &'a Value {
    report["relationships"]
        .as_array()
        .expect("relationships")
        .iter()
        .find(|r| r["from"].as_str().is_some_and(|f| f.ends_with(from)))
        .unwrap_or_else(|| panic!("no relationship from {from}: {}", report["relationships"]))
}

#[test]
fn a_controller_listed_by_two_rooms_puts_the_two_sides_out_of_step() {
    let r = audit(&realapps("homeautomation"));
    let found = all_of(&r, "two-way-out-of-sync");
    assert_eq!(found.len(), 1, "{found:?}");
    let (ns, f) = found[0];
    assert_eq!(ns, "test.userrooms");
    assert_eq!(f["severity"], "warning");
    assert_eq!(f["path"], "controllers");
    let e = &f["evidence"];
    // Room 62f0d550… (Bedroom) lists controller 62e27494…, whose roomId
    // names room 62fb3dfa… (Kitchen), which lists it too; controller
    // 62e1332b… names room 62e03b43…, deleted.
    assert_eq!(e["from_this_side"]["checked"], 5, "{e}");
    assert_eq!(e["from_this_side"]["names_another"], 1, "{e}");
    assert_eq!(
        e["from_this_side"]["examples"][0]["names"]["$oid"],
        "62e2749404c9bd0bb0a2ae79"
    );
    assert_eq!(
        e["from_this_side"]["examples"][0]["back"]["$oid"],
        "62fb3dfa1616235e6658d458"
    );
    assert_eq!(e["from_other_side"]["checked"], 5, "{e}");
    assert_eq!(e["from_other_side"]["missing"], 1, "{e}");
    assert_eq!(
        (e["disagree"].as_u64(), e["checked"].as_u64()),
        (Some(2), Some(10))
    );
    assert_eq!(e["scope"], "collection");
    // Both relationships are one two-way reference; the finding's side
    // carries the check.
    assert_eq!(
        relationship(&r, "userrooms.controllers")["kind"],
        "two-way-reference"
    );
    assert_eq!(
        relationship(&r, "controllers.roomId")["kind"],
        "two-way-reference"
    );
    assert!(relationship(&r, "userrooms.controllers")["two_way"].is_object());
    let suggestion = &f["suggestion"];
    assert_eq!(suggestion["pattern"], "parent-reference");
    assert!(
        suggestion["summary"]
            .as_str()
            .unwrap_or("")
            .contains("`controllers.roomId`"),
        "{suggestion}"
    );
    let migration = suggestion["migration"].as_str().unwrap_or("");
    assert!(
        !migration.contains("const apply"),
        "the script only reads: {migration}"
    );
}

#[test]
fn city_details_deleted_and_still_named_by_their_city() {
    let r = audit(&realapps("travelerconnect"));
    let found = all_of(&r, "two-way-out-of-sync");
    assert_eq!(found.len(), 1, "{found:?}");
    let (ns, f) = found[0];
    assert_eq!(ns, "test.cities");
    assert_eq!(f["path"], "cityDetails");
    let e = &f["evidence"];
    // 6 of the 12 cityDetails point at details that no longer exist; the
    // 6 details left all name their city back.
    assert_eq!(e["from_this_side"]["checked"], 12, "{e}");
    assert_eq!(e["from_this_side"]["missing"], 6, "{e}");
    assert_eq!(e["from_other_side"]["checked"], 6, "{e}");
    assert_eq!(e["from_other_side"]["agree"], 6, "{e}");
    assert_eq!(
        relationship(&r, "citydetails.cityId")["kind"],
        "two-way-reference"
    );
}

#[test]
fn a_current_profile_picture_among_a_users_photos_is_no_two_way_reference() {
    let r = audit(&realapps("linkedout"));
    assert!(all_of(&r, "two-way-out-of-sync").is_empty());
    let photos = relationship(&r, "photos.user");
    assert!(photos.get("two_way").is_none(), "{photos}");
}

/// The drift finding on pokerunderdog's teams, checked the same way on
/// files and on the server.
fn check_teams_drift(report: &Value, ns: &str) {
    let f = findings(report, ns, "denormalization-drift");
    assert_eq!(f.len(), 1, "{f:?}");
    let f = f[0];
    assert_eq!(f["severity"], "warning");
    assert_eq!(f["path"], "players[]");
    let e = &f["evidence"];
    // Three copies of users, each naming its user by the hex string of
    // its id; the team's creator's copy holds `teams: []` where the user
    // has joined it since.
    assert_eq!(
        (e["checked"].as_u64(), e["disagree"].as_u64()),
        (Some(3), Some(1)),
        "{e}"
    );
    assert_eq!(e["identities_converted"], 3, "{e}");
    assert_eq!(e["key_type"], "objectId", "{e}");
    assert_eq!(e["examples"][0]["field"], "teams", "{e}");
    assert_eq!(e["examples"][0]["copy"], "[]", "{e}");
    assert!(
        e["fields"]
            .as_array()
            .is_some_and(|x| x.iter().any(|v| v == "email")),
        "{e}"
    );
}

#[test]
fn copies_of_users_named_by_hex_strings_are_compared_with_their_user() {
    let r = audit(&realapps("pokerunderdog"));
    check_teams_drift(&r, "backend.teams");
}

#[tokio::test(flavor = "current_thread")]
async fn copies_named_by_hex_strings_are_fetched_from_the_server_and_refreshed() {
    let c = client().await;
    let db = unique_db("twoway_poker");
    let (made, failed) = load_dir(&c, &realapps("pokerunderdog/backend"), &db).await;
    assert!(
        made.contains(&"teams".to_owned()) && failed.is_empty(),
        "{made:?} {failed:?}"
    );
    let ns = format!("{db}.teams");
    let report = migrate::audit(&format!("{db}.*")).await;
    check_teams_drift(&report, &ns);
    let users: Vec<Document> = all(&c.database(&db).collection::<Document>("users")).await;
    let script = findings(&report, &ns, "denormalization-drift")[0]["suggestion"]["migration"]
        .as_str()
        .expect("a refresh script")
        .to_owned();
    assert!(script.contains("objectId"), "{script}");
    let (first, _) = run_twice(&db, &script, "refresh_hex_copies").await;
    // Every copy now holds its user's fields, still named by the hex string.
    let teams = all(&c.database(&db).collection::<Document>("teams")).await;
    let players = teams[0].get_array("players").expect("players");
    assert_eq!(players.len(), 3, "{first}");
    for p in players {
        let p = p.as_document().expect("a copy");
        let id = p
            .get_str("_id")
            .expect("the copy's reference is still a string");
        let user = users
            .iter()
            .find(|u| u.get_object_id("_id").is_ok_and(|o| o.to_hex() == id))
            .expect("its user");
        for (k, v) in p {
            if k != "_id" {
                assert_eq!(Some(v), user.get(k), "{k} of {id}: {first}");
            }
        }
    }
    let after = migrate::audit(&format!("{db}.*")).await;
    assert!(
        findings(&after, &ns, "denormalization-drift").is_empty(),
        "{}",
        serde_json::to_string_pretty(&findings(&after, &ns, "denormalization-drift"))
            .unwrap_or_default()
    );
}

#[tokio::test(flavor = "current_thread")]
async fn a_sampled_two_way_reference_is_checked_by_bounded_queries() {
    let db_prefix = format!("{}_", unique_db("tw"));
    let target = common::uri();
    let out = docshape_async(&[
        "seed",
        &target,
        "--prefix",
        &db_prefix,
        "--dataset",
        "two_way_sync",
    ])
    .await;
    assert!(out.status.success(), "{}", common::stderr(&out));
    let db = format!("{db_prefix}two_way_sync");
    // Every room, and 30 of the 36 controllers: the rooms' links are
    // looked up among the controllers by one query each audit makes per
    // direction whose other side was not read whole.
    let report = json_ok(
        &docshape_async(&[
            "audit",
            &target,
            "-c",
            &format!("{db}.*"),
            "--sample",
            "30",
            "--format",
            "json",
            "--no-snapshot",
            "--fail-on",
            "never",
            "--lang",
            "en",
        ])
        .await,
    );
    assert!(
        report["relationship_cost"]["two_way_fetches"]
            .as_u64()
            .unwrap_or(0)
            >= 2,
        "{}",
        report["relationship_cost"]
    );
    let rooms = format!("{db}.bad_rooms");
    let good = findings(&report, &format!("{db}.good_rooms"), "two-way-out-of-sync");
    assert!(good.is_empty(), "{good:?}");
    let found = findings(&report, &rooms, "two-way-out-of-sync");
    assert_eq!(found.len(), 1, "{found:?}");
    let f = found[0];
    let e = &f["evidence"];
    assert_eq!(e["scope"], "sample", "{f}");
    // The four moved controllers, each still listed by its old room, are
    // found by the query whatever controllers the sample kept.
    assert_eq!(e["from_this_side"]["checked"], 40, "{e}");
    assert_eq!(e["from_this_side"]["names_another"], 4, "{e}");
    assert_eq!(e["from_other_side"]["checked"], 30, "{e}");
    assert_eq!(e["from_other_side"]["agree"], 30, "{e}");
    let script = f["suggestion"]["migration"]
        .as_str()
        .expect("script")
        .to_owned();
    let (first, second) = run_twice(&db, &script, "two_way_links").await;
    assert_eq!(first, second);
    assert!(
        first.contains("links in bad_rooms.controller_ids that bad_controllers.room_id does not hold back: {\"names a document that names another\":4}"),
        "{first}"
    );
    assert!(
        first.contains(
            "links in bad_controllers.room_id that bad_rooms.controller_ids does not hold back: {}"
        ),
        "{first}"
    );
    // Read whole, the moved controllers are always found.
    let whole = migrate::audit(&format!("{db}.*")).await;
    let f = findings(&whole, &rooms, "two-way-out-of-sync");
    assert_eq!(f.len(), 1, "{f:?}");
    let e = &f[0]["evidence"];
    assert_eq!(e["from_this_side"]["names_another"], 4, "{e}");
    assert_eq!(e["from_other_side"]["agree"], 36, "{e}");
    // The copies of users named by hex strings drift where four users
    // changed since.
    let d = findings(&whole, &format!("{db}.bad_teams"), "denormalization-drift");
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0]["evidence"]["disagree"], 4, "{}", d[0]);
    let unchanged: Vec<Document> = all(&client()
        .await
        .database(&db)
        .collection::<Document>("bad_rooms"))
    .await;
    assert!(unchanged
        .iter()
        .all(|r| matches!(r.get("controller_ids"), Some(Bson::Array(_)))));
}
