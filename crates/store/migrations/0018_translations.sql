-- A track made from another by translation: the lines of `source_track_id`
-- are what its lines translate.
ALTER TABLE tracks ADD COLUMN source_track_id INTEGER REFERENCES tracks(id) ON DELETE SET NULL;

-- A line translated from a line of another track: its source line, the
-- source's text it was made from (a source edited since is told by
-- comparing), the text the translation engine wrote (a line whose text
-- differs was edited by hand, and a re-translate asks before overwriting
-- it) and which engine and model wrote it. Keyed by the line's id without
-- a foreign key: undoing a translation removes its lines and redoing it
-- brings them back with the same ids, and their translations with them.
CREATE TABLE translations (
    segment_id INTEGER PRIMARY KEY,
    source_segment_id INTEGER NOT NULL,
    source_text TEXT NOT NULL,
    translated_text TEXT NOT NULL,
    translator TEXT NOT NULL,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX translations_by_source ON translations (source_segment_id);
