//! Cast sheets for every face (an `impl Engine`): a project's speakers
//! and voices saved under a name, and a new project (the next episode)
//! started from one, whose speakers take the sheet's voices as they
//! appear: on import, or when a speaker is renamed to a member's name.

use crate::Engine;
use revoice_core::error::Result;
use revoice_store::{CastSheet, Project, Track};

impl Engine {
    /// Saves the project's speakers and voices onto cast sheet `name`
    /// (made when new, members of other projects kept).
    pub async fn save_cast(&self, project_id: i64, name: &str) -> Result<CastSheet> {
        self.store().project(project_id).await?;
        self.store().save_cast(project_id, name).await
    }

    /// A new project with one track in `language` whose speakers take
    /// their voices from cast sheet `cast`.
    pub async fn create_project_from_cast(&self, name: &str, language: &str, cast: &str) -> Result<(Project, Track)> {
        let sheet = self.store().cast(cast).await?;
        let (project, track) = self.create_project(name, language).await?;
        self.store().set_project_cast(project.id, Some(sheet.id)).await?;
        Ok((self.store().project(project.id).await?, track))
    }

    /// Every cast sheet.
    pub async fn cast_sheets(&self) -> Result<Vec<CastSheet>> {
        self.store().casts().await
    }
}
