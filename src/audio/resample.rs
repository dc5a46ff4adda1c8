//! Sample-rate conversion (rubato).
