-- The recording or video a project's script was heard from (or attached
-- later): its dialogue is drawn as a lane for reference and cut into each
-- speaker's voice reference. An absolute path, like the bed's.
ALTER TABLE projects ADD COLUMN original_media TEXT;
