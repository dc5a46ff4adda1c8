-- Voice fits: a checkpoint after every generation (so a killed fit
-- resumes), and the finished voice (so the same recording fitted with the
-- same settings is never fitted again). Keyed by the fit's cache key.
CREATE TABLE voice_fits (
    fit_key TEXT PRIMARY KEY,
    checkpoint_json TEXT NOT NULL,
    fitted_json TEXT,
    updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);
