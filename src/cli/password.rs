//! The password of a saved connection, asked for on the terminal.

use std::io::{IsTerminal, Write};

/// Asks for a password on the terminal without echoing it.
pub(crate) fn ask_password(shown: &str) -> Result<String, String> {
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
