-- The rate a project's timecode runs at ("23.976", "24", "25", "29.97df",
-- "29.97", "30"): set by hand, or taken from the picture when one is
-- attached. NULL reads as 25.
ALTER TABLE projects ADD COLUMN frame_rate TEXT;
