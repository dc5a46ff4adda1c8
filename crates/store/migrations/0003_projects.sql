-- Dub projects. A project has one track per target language; a track has
-- timed segments; each synthesis of a segment is a take, and the user picks
-- the active one. Speakers carry the voice their lines are spoken with.
-- Every edit is one transaction and leaves an entry in `history` (the state
-- before and after, as JSON), so undo and redo survive a restart.
CREATE TABLE projects (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL CHECK (length(trim(name)) > 0),
    timing_strategy TEXT NOT NULL DEFAULT 'smart_fit',
    bed_file TEXT,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

CREATE TABLE speakers (
    id INTEGER PRIMARY KEY,
    project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    voice TEXT NOT NULL DEFAULT 'af_heart',
    UNIQUE (project_id, name)
);

CREATE TABLE tracks (
    id INTEGER PRIMARY KEY,
    project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    language TEXT NOT NULL,
    UNIQUE (project_id, language)
);

CREATE TABLE segments (
    id INTEGER PRIMARY KEY,
    track_id INTEGER NOT NULL REFERENCES tracks(id) ON DELETE CASCADE,
    start_s REAL NOT NULL,
    end_s REAL NOT NULL CHECK (end_s > start_s),
    text TEXT NOT NULL,
    speaker_id INTEGER REFERENCES speakers(id) ON DELETE SET NULL,
    speed REAL NOT NULL DEFAULT 1.0 CHECK (speed BETWEEN 0.25 AND 4.0),
    gain_db REAL NOT NULL DEFAULT 0.0,
    fade_in_s REAL NOT NULL DEFAULT 0.0,
    fade_out_s REAL NOT NULL DEFAULT 0.0,
    timing_strategy TEXT,
    locked INTEGER NOT NULL DEFAULT 0,
    active_take_id INTEGER
);
CREATE INDEX segments_by_track ON segments (track_id, start_s);

CREATE TABLE takes (
    id INTEGER PRIMARY KEY,
    segment_id INTEGER NOT NULL REFERENCES segments(id) ON DELETE CASCADE,
    seed INTEGER NOT NULL,
    synthesis_key TEXT NOT NULL,
    duration_s REAL NOT NULL,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX takes_by_segment ON takes (segment_id);

CREATE TABLE history (
    id INTEGER PRIMARY KEY,
    project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    description TEXT NOT NULL,
    entity TEXT NOT NULL,
    entity_id INTEGER NOT NULL,
    before_json TEXT NOT NULL,
    after_json TEXT NOT NULL,
    undone INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE render_jobs (
    id INTEGER PRIMARY KEY,
    project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    state TEXT NOT NULL CHECK (state IN ('running', 'done', 'failed', 'cancelled', 'interrupted')),
    total INTEGER NOT NULL,
    done INTEGER NOT NULL DEFAULT 0,
    error TEXT,
    started_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    finished_at TEXT
);
