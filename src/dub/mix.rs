//! Mixing a track: fitted lines on the timeline over the bed, ducking, gain, fades, limiting and loudness.
