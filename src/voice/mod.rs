//! Voices: stock packs, blends, voices from reference recordings, and the voice library.
