//! `docshape class URI`: the teacher's board, refreshed on a key.

use std::io::IsTerminal;
use std::process::ExitCode;
use std::time::Duration;

use super::args::ClassArgs;
use super::output::emit;
use super::Fatal;
use crate::i18n::Lang;
use crate::lesson::class;

pub async fn run_class(a: ClassArgs) -> Result<ExitCode, Fatal> {
    let lang = a.lang.unwrap_or_else(Lang::from_env);
    let target = crate::secret::mask_uri(&a.uri);
    let interactive = !a.once && std::io::stdin().is_terminal() && std::io::stdout().is_terminal();
    loop {
        if interactive {
            eprintln!(
                "{}",
                lang.pick("checking every student…", "正在检查每一位学生……")
            );
        }
        let board = class::board(
            &a.uri,
            &a.prefix,
            class::all_exercises(),
            lang,
            Duration::from_secs(a.timeout),
        )
        .await
        .map_err(|e| Fatal(e.to_string()))?;
        emit(&class::render(&board, &target, lang))?;
        if !interactive {
            return Ok(ExitCode::SUCCESS);
        }
        eprintln!(
            "{}",
            lang.pick("r checks again · q quits", "r 重新检查 · q 退出")
        );
        let again = tokio::task::spawn_blocking(refresh_key)
            .await
            .map_err(|e| Fatal(e.to_string()))?
            .map_err(|e| Fatal(format!("cannot read the keyboard: {e}")))?;
        if !again {
            return Ok(ExitCode::SUCCESS);
        }
    }
}

/// Raw mode while a key is awaited, restored however the wait ends.
struct Raw;

impl Drop for Raw {
    fn drop(&mut self) {
        let _ = crossterm::terminal::disable_raw_mode();
    }
}

/// Waits for a key: `r` (or Enter) checks again, `q`, Esc or Ctrl-C quits.
fn refresh_key() -> std::io::Result<bool> {
    use crossterm::event::{read, Event, KeyCode, KeyEventKind, KeyModifiers};
    crossterm::terminal::enable_raw_mode()?;
    let _raw = Raw;
    loop {
        if let Event::Key(k) = read()? {
            if k.kind == KeyEventKind::Release {
                continue;
            }
            match k.code {
                KeyCode::Char('r' | 'R') | KeyCode::Enter => return Ok(true),
                KeyCode::Char('c') if k.modifiers.contains(KeyModifiers::CONTROL) => {
                    return Ok(false)
                }
                KeyCode::Char('q' | 'Q') | KeyCode::Esc => return Ok(false),
                _ => {}
            }
        }
    }
}
