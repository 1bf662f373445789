//! The Workload tab: the query shapes of the selection by total time;
//! Enter opens the worst finding a shape led to.

use super::super::effects::Effect;
use super::super::keymap::Action;
use super::super::model::{Level, Model, Tab};
use super::common::{common, moved, page, set_tab, status};
use super::{findings, nav};

/// A key for the Workload tab.
pub(crate) fn action(m: &mut Model, a: Action) -> Vec<Effect> {
    match a {
        a if a.is_move() => {
            let s = moved(m.workload.sel, m.shapes().len(), a, page(m));
            if s != m.workload.sel {
                m.detail.reset();
            }
            m.workload.sel = s;
            Vec::new()
        }
        Action::Toggle => {
            open_shape_finding(m);
            Vec::new()
        }
        _ => common(m, a),
    }
}

/// Opens, on the Findings tab, the worst finding the selected query shape
/// led to (the filters cleared so that it shows), on the collection it is
/// about when that is another one (the copies of `write-amplified-copy`).
fn open_shape_finding(m: &mut Model) {
    let Some((rank, _)) = m.selected_shape() else {
        return;
    };
    let worst = m.shape_findings(rank).first().map(|f| {
        (
            std::ptr::from_ref::<crate::advise::Advice>(*f),
            f.namespace.clone(),
        )
    });
    if let Some((f, ns)) = &worst {
        if !m.listed_findings().iter().any(|x| std::ptr::eq(*x, *f)) {
            nav::select_namespace(m, ns);
        }
    }
    let target =
        worst.and_then(|(f, _)| m.listed_findings().iter().position(|x| std::ptr::eq(*x, f)));
    let Some(i) = target else {
        let msg = m.lang.pick(
            "no finding names this query shape",
            "没有问题提到这个查询形状",
        );
        status(m, Level::Info, msg);
        return;
    };
    m.findings.severity = None;
    m.findings.rule = None;
    findings::rebuild(m);
    m.findings.sel = m.findings.rows.iter().position(|&r| r == i).unwrap_or(0);
    set_tab(m, Tab::Findings);
}
