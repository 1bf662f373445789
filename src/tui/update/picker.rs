//! The connection picker's keys (`super::super::picker` holds its state):
//! ↑/↓ choose a row, typing goes into the field, Enter reads the chosen
//! target in place of the one on screen, Esc closes. A connection that
//! needs a password asks for it in a masked prompt first (Esc goes back
//! to the list).

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::secret;
use crate::target::{self, ConnectionError, Target};

use super::super::effects::Effect;
use super::super::model::Model;
use super::super::picker::{remembered, Asking, Choice, Overlay, Row, Secret};
use super::jobs::start_sampling;

/// `C`: the overlay, on the first row.
pub(crate) fn open(m: &mut Model) {
    m.help.open = false;
    m.picker.open = Some(Overlay::default());
}

/// Whether the overlay is open (it takes every key).
pub(crate) fn is_open(m: &Model) -> bool {
    m.picker.open.is_some()
}

/// A key while the overlay is open.
pub(crate) fn key(m: &mut Model, k: KeyEvent) -> Vec<Effect> {
    let rows = m.picker.rows().len();
    let Some(o) = m.picker.open.as_mut() else {
        return Vec::new();
    };
    let text_key = !k
        .modifiers
        .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT);
    if let Some(a) = o.asking.as_mut() {
        match k.code {
            KeyCode::Esc => o.asking = None,
            KeyCode::Enter => {
                let password = a.password.take();
                let choice = a.choice.clone();
                o.asking = None;
                return chosen(m, &choice, Some(password));
            }
            KeyCode::Backspace => a.password.pop(),
            KeyCode::Char(c) if text_key => a.password.push(c),
            _ => {}
        }
        return Vec::new();
    }
    let last = rows.saturating_sub(1);
    match k.code {
        KeyCode::Esc => m.picker.open = None,
        KeyCode::Up | KeyCode::BackTab => o.sel = o.sel.saturating_sub(1),
        KeyCode::Down | KeyCode::Tab => o.sel = (o.sel + 1).min(last),
        KeyCode::Home | KeyCode::PageUp => o.sel = 0,
        KeyCode::End | KeyCode::PageDown => o.sel = last,
        KeyCode::Backspace => {
            o.text.pop();
            o.sel = last;
        }
        KeyCode::Char(c) if text_key => {
            o.text.push(c);
            o.sel = last;
            o.error = None;
        }
        KeyCode::Enter => return choose(m),
        _ => {}
    }
    Vec::new()
}

/// Enter on a row: a saved connection, a recent target, or what the field
/// holds (a saved connection's name, a URI, else a path).
fn choose(m: &mut Model) -> Vec<Effect> {
    let choice = match m.picker.selected() {
        Some(Row::Saved(name, _)) => Choice::Saved(name.to_owned()),
        Some(Row::Recent(t)) => Choice::Uri(t.to_owned()),
        Some(Row::Field) | None => {
            let text = m
                .picker
                .open
                .as_ref()
                .map(|o| o.text.trim().to_owned())
                .unwrap_or_default();
            if text.is_empty() {
                let why = m.lang.pick(
                    "type a connection string, a path or a saved connection's name",
                    "请输入连接字符串、路径或已保存连接的名称",
                );
                refuse(m, why.to_owned());
                return Vec::new();
            }
            if m.picker.saved.contains_key(&text) {
                Choice::Saved(text)
            } else {
                Choice::Uri(text)
            }
        }
    };
    chosen(m, &choice, None)
}

/// The chosen connection with its password (`None`: not asked yet): the
/// switch, or the prompt for a password, or why it cannot be used.
fn chosen(m: &mut Model, choice: &Choice, password: Option<String>) -> Vec<Effect> {
    match choice {
        Choice::Saved(name) => {
            let asked = password.is_some();
            // Nothing typed: the connection string as it is, as for a URI.
            let empty = password.as_deref() == Some("");
            let env = |v: &str| std::env::var(v).ok().filter(|p| !p.is_empty());
            let found =
                target::saved_connection(&m.picker.saved, &m.picker.file, name, env, |_| {
                    password.ok_or("no password yet")
                });
            match found {
                Ok(Some(_)) if empty => match m.picker.saved.get(name) {
                    Some(c) => {
                        let uri = c.uri.clone();
                        switch(m, Target::Mongo(uri))
                    }
                    None => Vec::new(),
                },
                Ok(Some(uri)) => switch(m, Target::Mongo(uri)),
                Ok(None) => {
                    let why = m.lang.pick(
                        format!("no saved connection named {name}"),
                        format!("没有名为 {name} 的已保存连接"),
                    );
                    refuse(m, why);
                    Vec::new()
                }
                Err(ConnectionError::NotAsked(_) | ConnectionError::NotAskedNorSet { .. })
                    if !asked =>
                {
                    let shown = m
                        .picker
                        .saved
                        .get(name)
                        .map(|c| secret::mask_uri(&c.uri))
                        .unwrap_or_default();
                    ask(m, choice.clone(), shown);
                    Vec::new()
                }
                Err(e) => {
                    refuse(m, e.to_string());
                    Vec::new()
                }
            }
        }
        Choice::Uri(t) if target::is_uri(t) => match password {
            None if secret::needs_password(t) => {
                ask(m, choice.clone(), secret::mask_uri(t));
                Vec::new()
            }
            // Nothing typed: the connection string as it is (its
            // mechanism may need no password).
            Some(p) if !p.is_empty() => switch(m, Target::Mongo(secret::with_password(t, &p))),
            _ => switch(m, Target::Mongo(t.clone())),
        },
        Choice::Uri(path) => switch(m, Target::Path(path.into())),
    }
}

fn ask(m: &mut Model, choice: Choice, shown: String) {
    if let Some(o) = m.picker.open.as_mut() {
        o.error = None;
        o.asking = Some(Asking {
            choice,
            shown,
            password: Secret::default(),
        });
    }
}

fn refuse(m: &mut Model, why: String) {
    if let Some(o) = m.picker.open.as_mut() {
        o.error = Some(why);
    }
}

/// Reads `target` in place of what is on screen: a fresh model (the
/// language, the keys, the sample size, the size of the terminal and the
/// picker's lists kept; request ids go on, so that every late answer of
/// the old target is stale), the executor told, and a sampling run started
/// as at start-up.
pub(crate) fn switch(m: &mut Model, target: Target) -> Vec<Effect> {
    let label = target.label();
    let mut fresh = Model::new(label, m.sample, m.keymap.clone());
    fresh.lang = m.lang;
    fresh.learn.lang = m.learn.lang;
    fresh.size = m.size;
    fresh.next_req = m.next_req;
    fresh.picker = std::mem::take(&mut m.picker);
    fresh.picker.open = None;
    fresh.picker.reading = Some(remembered(&target));
    let old = std::mem::replace(m, fresh);
    let mut fx: Vec<Effect> = old
        .job
        .map(|j| Effect::Cancel { req: j.req })
        .into_iter()
        .collect();
    tracing::info!(target = %m.target, "switching target");
    fx.push(Effect::Switch { target });
    fx.extend(start_sampling(m));
    fx
}
