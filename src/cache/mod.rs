//! Bounded, statistics-keeping caches: the reference-encode service and the render cache.
