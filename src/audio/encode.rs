//! Encoding audio files: WAV (hound), FLAC and MP3.
