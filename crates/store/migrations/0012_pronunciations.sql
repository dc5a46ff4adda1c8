-- Pronunciation dictionaries: a word or name said as given phonemes or as
-- a respelling. `project_id` NULL is the global dictionary, which every
-- project uses under its own entries.
CREATE TABLE pronunciations (
    id INTEGER PRIMARY KEY,
    project_id INTEGER REFERENCES projects(id) ON DELETE CASCADE,
    word TEXT NOT NULL COLLATE NOCASE,
    phonemes TEXT,
    respelling TEXT,
    CHECK ((phonemes IS NULL) != (respelling IS NULL))
);
CREATE UNIQUE INDEX pronunciations_by_word ON pronunciations (ifnull(project_id, 0), word);
