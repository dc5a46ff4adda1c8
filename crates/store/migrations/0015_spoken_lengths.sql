-- How long a line will last when spoken, predicted from the model's own
-- durations before it renders. Keyed by what decides the length (the
-- engine version, the model, the text, the voice, the speed, the
-- dictionary entries it uses): lines that read alike share a row, and a
-- line edited back to an earlier reading finds its length again.
CREATE TABLE spoken_lengths (
    length_key TEXT PRIMARY KEY,
    seconds REAL NOT NULL,
    predicted_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);
