//! How far the detail scrolls, measured from the layout of the screen the
//! model is shown on: the detail text of the shown tab, in the area the
//! layout gives it.

use ratatui::layout::Rect;

use super::super::detail;
use super::super::layout::{self, Shown};
use super::super::model::{Bound, Model};
use super::super::theme::Theme;

/// Measures the detail's bounds into `m.detail` (`max` down, `hmax`
/// sideways). A bound the shown screen does not draw is left as it was.
pub(crate) fn measure(m: &mut Model) {
    let Some(a) = layout::areas(Rect::new(0, 0, m.size.0, m.size.1)) else {
        return;
    };
    if let Some((down, right)) = detail_limits(m, a.main) {
        m.detail.max = Bound(down);
        m.detail.hmax = Bound(right);
    } else if let Some(right) = document_limit(m, a.main) {
        m.detail.hmax = Bound(right);
    }
}

/// How far the shown tab's detail scrolls down and sideways, if it has one.
fn detail_limits(m: &Model, main: Rect) -> Option<(u16, u16)> {
    // Colours do not change how wide text is: any theme measures alike.
    let theme = Theme::default();
    let (lines, area) = match layout::shown(m) {
        Shown::Findings => detail::findings::text(m, &theme, layout::findings_split(main).1)?,
        Shown::Schema => detail::schema::text(m, &theme, layout::split(main).1)?,
        Shown::Indexes => detail::indexes::text(m, m.collection()?, &theme, layout::split(main).1)?,
        Shown::Workload => {
            let selected = detail::workload::selected(m)?;
            detail::workload::text(m, &theme, layout::split(main).1, selected)?
        }
        _ => return None,
    };
    let widest = lines
        .iter()
        .map(ratatui::text::Line::width)
        .max()
        .unwrap_or(0);
    Some(layout::limits(lines.len(), widest, area))
}

/// How far the selected document scrolls sideways, when it is open.
fn document_limit(m: &Model, main: Rect) -> Option<u16> {
    if layout::shown(m) != Shown::Documents {
        return None;
    }
    let d = *m.docs.list.get(m.docs.sel)?;
    if !m.docs.open.contains(&d) {
        return None;
    }
    let text = m.docs.lines.get(&d)?;
    Some(layout::doc_hscroll_limit(
        text.iter().map(|l| l.text.as_str()),
        layout::doc_text_width(main),
    ))
}
