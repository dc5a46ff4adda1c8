-- What a take was rendered from, as a hash of the segment's text, voice,
-- speed, seed and render target (`dub::pipeline::source_key`): comparing it
-- with the segment's current one tells whether the take is still current
-- without running G2P. Takes from before this column have none and are
-- checked the slow way.
ALTER TABLE takes ADD COLUMN source_key TEXT;
