//! Loudness (EBU R128) measurement and normalisation, and a true-peak limiter.
