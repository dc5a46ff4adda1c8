-- Which versions of the engine have opened this database, and when.
-- Lets a newer build notice data written by an older one (and the reverse).
CREATE TABLE engine_meta (
    engine_version TEXT NOT NULL PRIMARY KEY,
    first_opened_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    last_opened_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
