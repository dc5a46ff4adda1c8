-- What Whisper heard in a take as the programme places it, and what failed.
-- A check belongs to its take (deleted with it) and to the fit it heard
-- (`placement`): a new take or a changed fit is checked again.
CREATE TABLE take_checks (
    take_id INTEGER PRIMARY KEY REFERENCES takes(id) ON DELETE CASCADE,
    placement TEXT NOT NULL,
    heard TEXT NOT NULL,
    word_error_rate REAL NOT NULL,
    problems_json TEXT NOT NULL,
    passed INTEGER NOT NULL,
    checked_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);
