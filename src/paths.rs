//! Where docshape keeps files of its own, by the XDG base directory
//! convention (`etcetera`'s base strategy): the configuration directory
//! (`$XDG_CONFIG_HOME/docshape`, else `~/.config/docshape`) and the state
//! directory (`$XDG_STATE_HOME/docshape`, else `~/.local/state/docshape`).
//! A relative `$XDG_*` value is ignored, as the convention asks.

use std::path::PathBuf;

use etcetera::BaseStrategy;

/// `docshape.toml` and `themes/` live here.
pub(crate) fn config_dir() -> Option<PathBuf> {
    let base = etcetera::choose_base_strategy().ok()?;
    Some(base.config_dir().join("docshape"))
}

/// Growth snapshots and the explorer's query history live here.
pub(crate) fn state_dir() -> Option<PathBuf> {
    let base = etcetera::choose_base_strategy().ok()?;
    Some(base.state_dir()?.join("docshape"))
}

#[cfg(test)]
mod tests {
    #[test]
    fn dirs_end_in_docshape() {
        // The environment is the test runner's: only the shape is checked.
        if let Some(d) = super::config_dir() {
            assert!(
                d.ends_with("docshape") && d.is_absolute(),
                "{}",
                d.display()
            );
        }
        if let Some(d) = super::state_dir() {
            assert!(
                d.ends_with("docshape") && d.is_absolute(),
                "{}",
                d.display()
            );
        }
    }
}
