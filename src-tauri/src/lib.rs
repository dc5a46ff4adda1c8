//! The desktop shell: a Tauri window around the editor UI (`ui/`), wired to
//! one in-process [`revoice_engine::Engine`]. The UI calls commands (`commands`),
//! the menu sends events to the UI (`menu`); the engine does the work.

mod commands;
mod delivery_commands;
mod dub_commands;
mod menu;
mod picture_server;
mod playback_commands;
mod renderer_watch;
mod settings_commands;
mod studio;
mod take_commands;
mod timeline_commands;
mod translate_commands;
mod voice_commands;

use std::sync::Arc;

use tauri::{Emitter, Manager};

/// Starts the app; returns when the last window closes.
pub fn run() {
    let data_dir = studio::data_dir_from_args(std::env::args().skip(1));
    tauri::Builder::default()
        .plugin(tauri_plugin_dialog::init())
        .setup(move |app| {
            let handle = app.handle().clone();
            let sink = Arc::new(move |event: revoice_engine::studio::session::StudioEvent| {
                if let Err(e) = handle.emit("studio://event", &event) {
                    tracing::warn!(error = %e, "could not send an event to the window");
                }
            });
            app.manage(studio::Studio::start(data_dir.clone(), sink));
            // The speech API loads the model: in the background, so the window opens at once.
            let handle = app.handle().clone();
            tauri::async_runtime::spawn(async move {
                let studio = handle.state::<studio::Studio>();
                if studio.api_enabled() {
                    match studio.start_api().await {
                        Ok(url) => tracing::info!(%url, "speech API started ([api] enabled)"),
                        Err(e) => tracing::error!(error = %e, "the speech API did not start"),
                    }
                }
            });
            if let Some(window) = app.get_webview_window("main") {
                renderer_watch::watch(&window)?;
            }
            app.set_menu(menu::build(app.handle())?)?;
            app.on_menu_event(menu::handle);
            Ok(())
        })
        .invoke_handler(tauri::generate_handler![
            commands::diagnose,
            commands::open_data_dir,
            commands::reveal_folder,
            commands::api_status,
            commands::set_api_running,
            dub_commands::list_projects,
            dub_commands::create_project,
            dub_commands::import_script,
            dub_commands::open_project,
            dub_commands::rename_project,
            dub_commands::delete_project,
            dub_commands::edit_segment,
            dub_commands::split_segment,
            dub_commands::merge_segments,
            dub_commands::insert_segment,
            dub_commands::delete_segment,
            dub_commands::segment_peaks,
            dub_commands::bed_peaks,
            dub_commands::original_peaks,
            dub_commands::create_project_from_media,
            dub_commands::create_demo_project,
            dub_commands::cancel_hearing,
            dub_commands::set_speaker_voice,
            dub_commands::stock_voices,
            dub_commands::set_project_strategy,
            dub_commands::render_project,
            dub_commands::cancel_render,
            dub_commands::listen_project,
            dub_commands::preview_segment,
            dub_commands::play,
            dub_commands::pause,
            dub_commands::resume,
            dub_commands::seek,
            dub_commands::stop,
            dub_commands::playback_state,
            playback_commands::playing_programme,
            dub_commands::undo,
            dub_commands::redo,
            dub_commands::export_project,
            delivery_commands::attach_video,
            delivery_commands::set_frame_rate,
            delivery_commands::picture_source,
            delivery_commands::add_bed_stem,
            delivery_commands::edit_bed_stem,
            delivery_commands::remove_bed_stem,
            delivery_commands::set_original_monitor,
            delivery_commands::save_cast,
            delivery_commands::cast_sheets,
            delivery_commands::create_project_from_cast,
            delivery_commands::pronunciations,
            delivery_commands::set_pronunciation,
            delivery_commands::remove_pronunciation,
            delivery_commands::preview_pronunciation,
            settings_commands::settings,
            settings_commands::save_settings,
            settings_commands::remote_engines,
            settings_commands::save_remote_engine,
            settings_commands::remove_remote_engine,
            settings_commands::check_remote_engine,
            settings_commands::remote_status,
            take_commands::segment_takes,
            voice_commands::voice_library,
            voice_commands::add_library_voice,
            voice_commands::rename_library_voice,
            voice_commands::delete_library_voice,
            voice_commands::fit_library_voice,
            voice_commands::cancel_library_voice_fit,
            translate_commands::translators,
            translate_commands::save_translator,
            translate_commands::remove_translator,
            translate_commands::check_translator,
            translate_commands::translate_track,
            translate_commands::cancel_translation,
            translate_commands::track_translations,
            translate_commands::glossary,
            translate_commands::set_glossary_term,
            translate_commands::remove_glossary_term,
            voice_commands::preview_voice,
            voice_commands::play_voice_recording,
            voice_commands::voice_speakers,
            voice_commands::original_speaker_clips,
            take_commands::new_take,
            take_commands::pick_take,
            take_commands::audition_take,
            timeline_commands::set_lane_mix,
            timeline_commands::add_marker,
            timeline_commands::rename_marker,
            timeline_commands::move_marker,
            timeline_commands::remove_marker,
            timeline_commands::replace_text,
        ])
        .run(tauri::generate_context!("../tauri.conf.json"))
        .expect("Revoice Studio could not start its window");
}
