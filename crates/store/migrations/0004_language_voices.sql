-- A speaker may speak each target language with its own voice (Kokoro's
-- voices each speak one language): a JSON object from a track's language
-- tag to a voice, consulted before the speaker's default `voice`.
ALTER TABLE speakers ADD COLUMN language_voices TEXT NOT NULL DEFAULT '{}';
