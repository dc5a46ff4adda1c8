//! Decoding audio files (symphonia) into mono f32 samples.
