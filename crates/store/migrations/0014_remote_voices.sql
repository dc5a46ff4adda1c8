-- Reference recordings uploaded to remote engines: which server holds a
-- recording (by its content hash) under which name, and for which engine
-- it was uploaded (its key deletes it), so a recording is uploaded once per
-- server however many lines, speakers and engines use it.
CREATE TABLE remote_voices (
    engine TEXT NOT NULL,
    server TEXT NOT NULL,
    reference_sha256 TEXT NOT NULL,
    remote_name TEXT NOT NULL,
    uploaded_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
    PRIMARY KEY (server, reference_sha256)
);
