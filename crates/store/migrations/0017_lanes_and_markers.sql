-- A timeline lane's mix: a speaker's lines, or (speaker_id NULL) the
-- lines without a speaker. Muted lanes never sound; while any lane of the
-- project is soloed only soloed lanes sound; the level is a gain on every
-- line of the lane. A lane without a row is unmuted, unsoloed, at 0 dB.
CREATE TABLE lane_mixes (
    project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    speaker_id INTEGER REFERENCES speakers(id) ON DELETE CASCADE,
    muted INTEGER NOT NULL DEFAULT 0,
    solo INTEGER NOT NULL DEFAULT 0,
    level_db REAL NOT NULL DEFAULT 0.0 CHECK (level_db BETWEEN -60.0 AND 12.0)
);
CREATE UNIQUE INDEX lane_mixes_by_lane ON lane_mixes (project_id, coalesce(speaker_id, 0));

-- Named points in time on a project's timeline (a scene, a reel change, a
-- note), carried into the handoff files.
CREATE TABLE markers (
    id INTEGER PRIMARY KEY,
    project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    at_seconds REAL NOT NULL CHECK (at_seconds >= 0),
    name TEXT NOT NULL
);
CREATE INDEX markers_by_project ON markers (project_id, at_seconds);
