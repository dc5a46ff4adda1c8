-- A project's glossary: how a term of its scripts is translated into a
-- target language (`es` entries apply to `es-MX` too; see
-- `Store::glossary`). `term_key` is the term folded to lower case (Unicode
-- case, which SQLite's NOCASE does not fold), so a term is once per
-- project and language in any case; the term keeps the case it was typed in.
CREATE TABLE glossary (
    id INTEGER PRIMARY KEY,
    project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    language TEXT NOT NULL COLLATE NOCASE,
    term TEXT NOT NULL,
    term_key TEXT NOT NULL,
    translation TEXT NOT NULL,
    CHECK (term <> '' AND translation <> '')
);
CREATE UNIQUE INDEX glossary_by_term ON glossary (project_id, language, term_key);
