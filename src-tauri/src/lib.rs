//! The desktop shell: a Tauri window around the editor UI (`ui/`), wired to
//! one in-process [`revoice::Engine`]. The UI calls commands (`commands`),
//! the menu sends events to the UI (`menu`); the engine does the work.

mod commands;
mod menu;
mod studio;

use tauri::Manager;

/// Starts the app; returns when the last window closes.
pub fn run() {
    let data_dir = studio::data_dir_from_args(std::env::args().skip(1));
    tauri::Builder::default()
        .plugin(tauri_plugin_opener::init())
        .setup(move |app| {
            app.manage(studio::Studio::start(data_dir.clone()));
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
            app.set_menu(menu::build(app.handle())?)?;
            app.on_menu_event(menu::handle);
            Ok(())
        })
        .invoke_handler(tauri::generate_handler![
            commands::diagnose,
            commands::open_data_dir,
            commands::api_status,
            commands::set_api_running,
        ])
        .run(tauri::generate_context!())
        .expect("Revoice Studio could not start its window");
}
