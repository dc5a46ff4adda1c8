-- Cast sheets: speakers and their voices kept across projects (a series'
-- episodes). A project started from a cast (`projects.cast_id`) gives a
-- speaker the cast's voices as the speaker first appears in it (a script
-- imported, a speaker renamed to a cast member's name).
CREATE TABLE casts (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE COLLATE NOCASE CHECK (length(trim(name)) > 0),
    updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE TABLE cast_members (
    cast_id INTEGER NOT NULL REFERENCES casts(id) ON DELETE CASCADE,
    speaker TEXT NOT NULL COLLATE NOCASE,
    voice TEXT NOT NULL,
    language_voices TEXT NOT NULL DEFAULT '{}',
    PRIMARY KEY (cast_id, speaker)
);
ALTER TABLE projects ADD COLUMN cast_id INTEGER REFERENCES casts(id) ON DELETE SET NULL;
