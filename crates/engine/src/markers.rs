//! A project's markers for every face: named points in time, added,
//! renamed, moved and removed, each one undoable step (`store::markers`).
//! A marker's time is a finite number of seconds from 0; its name is
//! trimmed and not empty. The handoff files carry them (`dub::handoff`).

use crate::Engine;
use revoice_core::error::{Error, Result};
use revoice_store::Marker;

/// The longest a marker's name may be, characters.
const LONGEST_NAME: usize = 200;

fn check_time(at: f64) -> Result<f64> {
    if !at.is_finite() || at < 0.0 {
        return Err(Error::invalid(format!("marker time {at}"), "must be a time from 0 seconds on"));
    }
    Ok(at)
}

fn check_name(name: &str) -> Result<String> {
    let name = name.trim();
    if name.is_empty() {
        return Err(Error::invalid("marker name", "is empty"));
    }
    if name.chars().count() > LONGEST_NAME {
        return Err(Error::invalid(
            format!("marker name {:?}…", name.chars().take(20).collect::<String>()),
            format!("is longer than {LONGEST_NAME} characters"),
        ));
    }
    Ok(name.to_string())
}

impl Engine {
    /// The project's markers in time order.
    pub async fn markers(&self, project_id: i64) -> Result<Vec<Marker>> {
        self.store().project(project_id).await?;
        self.store().markers(project_id).await
    }

    /// Adds a marker at `at` seconds (one undoable step).
    pub async fn add_marker(&self, project_id: i64, at: f64, name: &str) -> Result<Marker> {
        let (at, name) = (check_time(at)?, check_name(name)?);
        self.store().project(project_id).await?;
        self.store().add_marker(project_id, at, &name).await
    }

    /// Renames a marker (one undoable step).
    pub async fn rename_marker(&self, marker_id: i64, name: &str) -> Result<Marker> {
        let name = check_name(name)?;
        self.store().edit_marker(marker_id, |m| (Marker { name: name.clone(), ..m.clone() }, format!("rename marker {:?} to {name:?}", m.name))).await
    }

    /// Moves a marker to `at` seconds (one undoable step).
    pub async fn move_marker(&self, marker_id: i64, at: f64) -> Result<Marker> {
        let at = check_time(at)?;
        self.store().edit_marker(marker_id, |m| (Marker { at_seconds: at, ..m.clone() }, format!("move marker {:?}", m.name))).await
    }

    /// Removes a marker (undo brings it back); the project it was on.
    pub async fn remove_marker(&self, marker_id: i64) -> Result<i64> {
        self.store().remove_marker(marker_id).await
    }
}
