//! The app menu. Items that need the UI (re-running the engine check) are
//! sent to it as events; the rest act here. Only items that work on this
//! platform are shown.

use tauri::menu::{AboutMetadataBuilder, Menu, MenuEvent, MenuItemBuilder, PredefinedMenuItem, SubmenuBuilder};
use tauri::{AppHandle, Emitter, Manager, Wry};

use crate::studio::Studio;

const CHECK_ENGINE: &str = "check-engine";
const OPEN_DATA_DIR: &str = "open-data-dir";
const QUIT: &str = "quit";
const FULLSCREEN: &str = "toggle-fullscreen";
const SHORTCUTS: &str = "keyboard-shortcuts";

/// Event the UI listens to: re-run and show the engine check.
pub const CHECK_ENGINE_EVENT: &str = "studio://check-engine";
/// Event the UI listens to: show (or hide) the keyboard shortcuts.
pub const SHORTCUTS_EVENT: &str = "studio://shortcuts";
/// Event the UI listens to: show an error message from a menu action.
pub const MENU_ERROR_EVENT: &str = "studio://menu-error";

/// Builds the menu bar.
pub fn build(app: &AppHandle) -> tauri::Result<Menu<Wry>> {
    let file = SubmenuBuilder::new(app, "File")
        .item(&MenuItemBuilder::with_id(CHECK_ENGINE, "Check Engine Again").accelerator("F5").build(app)?)
        .item(&MenuItemBuilder::with_id(OPEN_DATA_DIR, "Open Data Folder").build(app)?)
        .separator()
        .item(&MenuItemBuilder::with_id(QUIT, "Quit").accelerator("CmdOrCtrl+Q").build(app)?)
        .build()?;
    let view = SubmenuBuilder::new(app, "View").item(&MenuItemBuilder::with_id(FULLSCREEN, "Toggle Full Screen").accelerator("F11").build(app)?).build()?;
    let about = AboutMetadataBuilder::new()
        .name(Some("Revoice Studio"))
        .version(Some(revoice_engine::ENGINE_VERSION))
        .comments(Some("Dubbing and voice studio with neural speech, on your own computer."))
        .license(Some("Apache-2.0"))
        .build();
    let help = SubmenuBuilder::new(app, "Help")
        .item(&MenuItemBuilder::with_id(SHORTCUTS, "Keyboard Shortcuts").accelerator("F1").build(app)?)
        .item(&PredefinedMenuItem::about(app, Some("About Revoice Studio"), Some(about))?)
        .build()?;
    Menu::with_items(app, &[&file, &view, &help])
}

/// Acts on a menu click.
pub fn handle(app: &AppHandle, event: MenuEvent) {
    let result = match event.id().as_ref() {
        CHECK_ENGINE => app.emit(CHECK_ENGINE_EVENT, ()).map_err(|e| e.to_string()),
        SHORTCUTS => app.emit(SHORTCUTS_EVENT, ()).map_err(|e| e.to_string()),
        OPEN_DATA_DIR => app.state::<Studio>().engine().and_then(|engine| crate::commands::reveal(engine.data_dir())),
        FULLSCREEN => toggle_fullscreen(app),
        QUIT => {
            app.exit(0);
            Ok(())
        }
        _ => Ok(()),
    };
    if let Err(message) = result {
        tracing::warn!(%message, "menu action failed");
        let _ = app.emit(MENU_ERROR_EVENT, message);
    }
}

fn toggle_fullscreen(app: &AppHandle) -> Result<(), String> {
    let window = app.get_webview_window("main").ok_or_else(|| "the main window is gone".to_string())?;
    let now = window.is_fullscreen().map_err(|e| e.to_string())?;
    window.set_fullscreen(!now).map_err(|e| e.to_string())
}
