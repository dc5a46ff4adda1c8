//! The window's view of what playback holds: the lines of the playing
//! programme, each down to a fingerprint of its samples, so the window
//! (and its end-to-end tests) can tell that an edit made while playing
//! changed what is heard next, and that an undo brought back the very
//! audio that was there.

use revoice_engine::studio::session::ProgrammeClip;
use tauri::State;

use crate::studio::{blocking, Answer, Studio};

/// The lines the playing programme holds now, in time order (empty when
/// nothing plays). The player answers over a channel, so this waits off
/// the async workers.
#[tauri::command]
pub async fn playing_programme(studio: State<'_, Studio>) -> Answer<Vec<ProgrammeClip>> {
    let session = studio.session()?;
    blocking(move || session.playing_lines()).await
}
