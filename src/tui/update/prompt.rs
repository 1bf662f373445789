//! The filter prompt (`/`): the collection filter from the navigator, the
//! field filter from the tabs; each key applies it at once.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::super::model::{Input, InputFor, Model, Pane, Tab};
use super::{nav, schema};

/// `/` outside the Documents tab: the prompt, holding the filter as it is.
pub(crate) fn open(m: &mut Model) {
    let target = if m.focus == Pane::Nav {
        InputFor::Collections
    } else {
        m.tab = Tab::Schema;
        InputFor::Fields
    };
    let text = match target {
        InputFor::Fields => m.schema.filter.clone(),
        InputFor::Collections => m.nav.filter.clone(),
    };
    m.input = Some(Input { target, text });
}

/// A key while the prompt is open.
pub(crate) fn key(m: &mut Model, k: KeyEvent) {
    let Some(input) = m.input.as_mut() else {
        return;
    };
    match k.code {
        KeyCode::Esc => {
            let target = input.target;
            m.input = None;
            match target {
                InputFor::Fields => m.schema.filter.clear(),
                InputFor::Collections => m.nav.filter.clear(),
            }
            apply_filter(m, target);
        }
        KeyCode::Enter => {
            m.input = None;
        }
        KeyCode::Backspace => {
            input.text.pop();
            let (t, text) = (input.target, input.text.clone());
            set_filter(m, t, text);
        }
        // Control and Alt chords are commands, not text.
        KeyCode::Char(c)
            if !k
                .modifiers
                .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT) =>
        {
            input.text.push(c);
            let (t, text) = (input.target, input.text.clone());
            set_filter(m, t, text);
        }
        _ => {}
    }
}

fn set_filter(m: &mut Model, target: InputFor, text: String) {
    match target {
        InputFor::Fields => m.schema.filter = text,
        InputFor::Collections => m.nav.filter = text,
    }
    apply_filter(m, target);
}

fn apply_filter(m: &mut Model, target: InputFor) {
    match target {
        InputFor::Fields => {
            m.schema.sel = 0;
            schema::rebuild(m);
        }
        InputFor::Collections => nav::filter_changed(m),
    }
}
