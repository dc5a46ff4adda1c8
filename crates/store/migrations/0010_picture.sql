-- The picture a project is dubbed against (an absolute path, like the
-- bed's), and the language of its original dialogue when it is known
-- (heard by Whisper, or said when the video was attached): muxed exports
-- tag the original audio stream with it.
ALTER TABLE projects ADD COLUMN video_file TEXT;
ALTER TABLE projects ADD COLUMN original_language TEXT;
