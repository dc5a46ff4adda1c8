//! Exporting a mixed project: the mix per language and stems as WAV, FLAC or MP3, with subtitles beside them.
