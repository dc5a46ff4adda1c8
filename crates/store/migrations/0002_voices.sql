-- The voice library: voices registered from reference recordings. `version`
-- rises on every overwrite, so caches keyed by (name, version) never serve
-- an old artifact. The recording itself is a file under <data>/voices/.
CREATE TABLE voices (
    name TEXT NOT NULL PRIMARY KEY,
    version INTEGER NOT NULL DEFAULT 1,
    description TEXT NOT NULL DEFAULT '',
    reference_text TEXT NOT NULL DEFAULT '',
    consent TEXT NOT NULL CHECK (length(trim(consent)) > 0),
    reference_file TEXT NOT NULL,
    reference_sha256 TEXT NOT NULL,
    file_size INTEGER NOT NULL,
    mime_type TEXT NOT NULL,
    artifact_json TEXT NOT NULL,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
