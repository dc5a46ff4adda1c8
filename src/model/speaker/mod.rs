//! The speaker encoder (GE2E, from Resemblyzer) that turns a recording into a 256-d voice embedding.
