//! `revoice project translate`: a track translated into another language
//! through a configured translation engine, with progress; Ctrl-C stops
//! after the batch in flight, and the same command goes on from there. The
//! glossary terms a line leaves out are listed, and so are the lines of
//! batches the translator could not answer (the command then fails, and
//! the same command translates them).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use revoice_engine::translating::TranslateRequest;
use revoice_engine::{Engine, Result};

/// Translates `request`'s track and prints what was done; whether every
/// line asked for was translated (false: some batches failed).
pub async fn run(engine: &Arc<Engine>, request: TranslateRequest) -> Result<bool> {
    engine.store().project(request.project_id).await?;
    let stop = Arc::new(AtomicBool::new(false));
    let stopping = stop.clone();
    let ctrl_c = tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            eprintln!("stopping after this batch...");
            stopping.store(true, Ordering::SeqCst);
        }
    });
    let translating = engine.clone();
    let (to, project_id) = (request.to.clone(), request.project_id);
    let report = tokio::task::spawn_blocking(move || {
        let bar = indicatif::ProgressBar::new(0);
        bar.set_style(indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} lines translated {elapsed}").expect("template"));
        let report = translating.translate_track(
            &request,
            &mut |p| {
                bar.set_length(p.total as u64);
                bar.set_position(p.done as u64);
            },
            &|| stop.load(Ordering::SeqCst),
        );
        bar.finish_and_clear();
        report
    })
    .await
    .expect("translation thread");
    ctrl_c.abort();
    let report = report?;
    let where_to = if report.local { format!("{} (this machine)", report.host) } else { format!("{} (another machine)", report.host) };
    println!(
        "translated {} lines from {} into {to} with {} at {where_to}; {} were translated before",
        report.translated, report.from, report.translator, report.already
    );
    if report.sized > 0 {
        println!(
            "  {} of {} lines fit their slots (at most ×{:.2}) as first translated; {} after asking for the long ones shorter",
            report.fit_before,
            report.sized,
            revoice_engine::translating::MAX_RATE,
            report.fit_after
        );
    }
    if let Some(why) = &report.not_sized {
        println!("  not sized to their slots: {why}");
    }
    if !report.too_long.is_empty() {
        println!("  still too long for their slots (lines {}): shorten them by hand, or let them run past their slots, flagged", ids(&report.too_long));
    }
    if !report.source_changed.is_empty() {
        println!(
            "  {} lines were edited in {} after their translation (source lines {}): translate them again with --again",
            report.source_changed.len(),
            report.from,
            ids(&report.source_changed)
        );
    }
    if !report.kept_edited.is_empty() {
        println!(
            "  kept {} lines edited by hand since their translation (source lines {}): --overwrite-edited translates them anyway",
            report.kept_edited.len(),
            ids(&report.kept_edited)
        );
    }
    if !report.glossary_dropped.is_empty() {
        println!("  glossary terms left out: {} (check these lines)", report.glossary_dropped.len());
        for dropped in &report.glossary_dropped {
            println!("    line {}: {:?} is not translated as {:?}", dropped.segment_id, dropped.term, dropped.translation);
        }
    }
    println!("`revoice project status {project_id}` shows which {to} lines fit their slots");
    if report.failed.is_empty() {
        return Ok(true);
    }
    eprintln!("{} lines were not translated: the translator could not answer their batches", report.failed.len());
    // A batch's lines share its reason: say it once for the batch.
    let mut at = 0;
    while at < report.failed.len() {
        let reason = &report.failed[at].reason;
        let batch: Vec<i64> = report.failed[at..].iter().take_while(|f| &f.reason == reason).map(|f| f.source_segment_id).collect();
        eprintln!("  source lines {}: {reason}", ids(&batch));
        at += batch.len();
    }
    eprintln!("run the same command again to translate them (the lines translated now are kept)");
    Ok(false)
}

fn ids(ids: &[i64]) -> String {
    ids.iter().map(i64::to_string).collect::<Vec<_>>().join(", ")
}
