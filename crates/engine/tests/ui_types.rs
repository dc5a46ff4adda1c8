//! The editor's TypeScript types are generated from the Rust types the
//! engine sends and takes (ts-rs), so the two cannot drift:
//! `ui/src/engine-types.ts` must be exactly what these types generate.
//! This test fails when it is stale; to regenerate it, run
//! `REVOICE_WRITE_UI_TYPES=1 cargo test -p revoice-engine --test ui_types`.

use revoice_engine::{audio, config, doctor, model, studio, voice, LineEdit};
use ts_rs::{Config, TS};

const FILE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../ui/src/engine-types.ts");

fn decl<T: TS>(cfg: &Config) -> String {
    format!("export {}\n", T::decl(cfg))
}

fn generated() -> String {
    // Ids and sizes fit in a JavaScript number.
    let cfg = Config::new().with_large_int("number");
    let mut out = String::from(
        "// Generated from the engine's Rust types (ts-rs) by crates/engine/tests/ui_types.rs.\n\
         // Do not edit: change the Rust type, then run\n\
         // `REVOICE_WRITE_UI_TYPES=1 cargo test -p revoice-engine --test ui_types`.\n\n",
    );
    for d in [
        // A project as the timeline shows it.
        decl::<studio::view::SegmentState>(&cfg),
        decl::<revoice_engine::dub::timing::TimingStrategy>(&cfg),
        decl::<studio::view::FitView>(&cfg),
        decl::<studio::view::CheckView>(&cfg),
        decl::<revoice_engine::dub::flags::LineFlag>(&cfg),
        decl::<studio::view::SegmentView>(&cfg),
        decl::<studio::view::SpeakerView>(&cfg),
        decl::<studio::view::LaneView>(&cfg),
        decl::<studio::view::MarkerView>(&cfg),
        decl::<studio::view::TrackView>(&cfg),
        decl::<studio::view::ProjectView>(&cfg),
        decl::<studio::view::ProjectSummary>(&cfg),
        decl::<studio::view::ExportedFile>(&cfg),
        // Delivery: the picture, handoff formats, cast sheets, pronunciations.
        decl::<revoice_engine::dub::picture::VideoInfo>(&cfg),
        decl::<revoice_engine::dub::picture::AudioStream>(&cfg),
        decl::<revoice_engine::AttachedVideo>(&cfg),
        decl::<revoice_engine::PictureSource>(&cfg),
        decl::<revoice_engine::store::BedStem>(&cfg),
        decl::<revoice_engine::config::RemoteEngineSettings>(&cfg),
        decl::<revoice_engine::engines::Capabilities>(&cfg),
        decl::<revoice_engine::engines::NodeReport>(&cfg),
        decl::<revoice_engine::engines::EngineReport>(&cfg),
        decl::<revoice_engine::remote::ServerStatus>(&cfg),
        decl::<revoice_engine::remote::EngineStatus>(&cfg),
        decl::<revoice_engine::dub::programme::OriginalMonitor>(&cfg),
        decl::<revoice_engine::dub::handoff::HandoffFormat>(&cfg),
        decl::<revoice_engine::store::CastSheet>(&cfg),
        decl::<revoice_engine::store::CastMember>(&cfg),
        decl::<revoice_engine::text::pronounce::Saying>(&cfg),
        decl::<revoice_engine::text::pronounce::Pronunciation>(&cfg),
        decl::<audio::peaks::Peaks>(&cfg),
        // What the window hears about.
        decl::<studio::session::PlaybackView>(&cfg),
        decl::<studio::session::ProgrammeClip>(&cfg),
        decl::<studio::session::StudioEvent>(&cfg),
        // Edits.
        decl::<LineEdit>(&cfg),
        decl::<revoice_engine::LaneMixEdit>(&cfg),
        decl::<revoice_engine::ReplaceOptions>(&cfg),
        decl::<config::SettingsEdit>(&cfg),
        // Takes, voices, settings.
        decl::<studio::takes::TakeView>(&cfg),
        decl::<studio::voices::VoiceChoice>(&cfg),
        decl::<studio::voices::MatchView>(&cfg),
        decl::<voice::quality::QualityReport>(&cfg),
        decl::<studio::voices::FitFigures>(&cfg),
        decl::<studio::voices::FitInProgress>(&cfg),
        decl::<studio::voices::LibraryVoiceView>(&cfg),
        decl::<studio::voices::VoiceLibraryView>(&cfg),
        decl::<revoice_engine::SpeakerClip>(&cfg),
        decl::<revoice_engine::SpeakerVoiced>(&cfg),
        decl::<studio::settings::SettingsView>(&cfg),
        // Translation.
        decl::<revoice_engine::translators::TranslatorSettings>(&cfg),
        decl::<revoice_engine::translating::TranslatorView>(&cfg),
        decl::<revoice_engine::translating::TranslatorCheck>(&cfg),
        decl::<revoice_engine::translating::TranslateRequest>(&cfg),
        decl::<revoice_engine::translating::DroppedTerm>(&cfg),
        decl::<revoice_engine::translating::FailedLine>(&cfg),
        decl::<revoice_engine::translating::TranslateReport>(&cfg),
        decl::<revoice_engine::store::GlossaryEntry>(&cfg),
        decl::<revoice_engine::translation_view::LineTranslation>(&cfg),
        decl::<revoice_engine::translation_view::TrackTranslations>(&cfg),
        // A refusal as the window acts on it: its kind, message and input.
        decl::<revoice_engine::ErrorKind>(&cfg),
        decl::<revoice_engine::error::ErrorReport>(&cfg),
        // The engine's health report.
        decl::<doctor::CheckStatus>(&cfg),
        decl::<doctor::Check>(&cfg),
        decl::<model::assets::ModelAsset>(&cfg),
        decl::<model::assets::AssetState>(&cfg),
        decl::<model::assets::ModelAssetStatus>(&cfg),
        decl::<audio::devices::OutputDevice>(&cfg),
        decl::<audio::devices::OutputDevices>(&cfg),
        decl::<doctor::Diagnosis>(&cfg),
    ] {
        out.push_str(&d);
    }
    out
}

#[test]
fn the_uis_engine_types_are_the_ones_the_rust_types_generate() {
    let want = generated();
    if std::env::var_os("REVOICE_WRITE_UI_TYPES").is_some() {
        std::fs::write(FILE, &want).unwrap();
        return;
    }
    let have = std::fs::read_to_string(FILE).unwrap_or_default();
    assert!(
        have == want,
        "ui/src/engine-types.ts is stale (or missing): run `REVOICE_WRITE_UI_TYPES=1 cargo test -p revoice-engine --test ui_types`, \
         then rebuild the UI.\n--- generated ---\n{want}"
    );
}
