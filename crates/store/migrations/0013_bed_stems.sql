-- A project's music and effects as several stems, each with its own level
-- (dB, on top of the mix's bed level) and whether it ducks under the
-- voice, in the order they are listed. The one bed a project had becomes
-- its first stem.
CREATE TABLE bed_stems (
    id INTEGER PRIMARY KEY,
    project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    file TEXT NOT NULL,
    gain_db REAL NOT NULL DEFAULT 0.0 CHECK (gain_db BETWEEN -60.0 AND 24.0),
    ducked INTEGER NOT NULL DEFAULT 1,
    position INTEGER NOT NULL
);
CREATE INDEX bed_stems_by_project ON bed_stems (project_id, position);
INSERT INTO bed_stems (project_id, file, position) SELECT id, bed_file, 0 FROM projects WHERE bed_file IS NOT NULL;
ALTER TABLE projects DROP COLUMN bed_file;
