//! The registered-voice artifact cache: artifacts of voices saved in the
//! voice library (a style vector, a speaker embedding), keyed by the voice's
//! name and version. It owns the entries, a byte budget and the statistics;
//! the voice library tells it when a voice is deleted or overwritten, and
//! every entry of that voice is dropped.
//!
//! Versions are assumed to grow when a voice is overwritten (the library's
//! row version). So storing version `v` also drops older versions of the
//! same voice, and an artifact older than one already stored is handed back
//! but not stored (a slow encode of a voice that was overwritten meanwhile
//! must not push out the new one). Callers get `Arc`s of immutable artifacts.

use std::sync::{Arc, Mutex, MutexGuard};

use serde::Serialize;

use super::byte_lru::{ByteLru, Insertion};
use revoice_core::error::{Error, Result};

/// A registered voice at one version.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct VoiceVersion {
    pub name: String,
    pub version: u64,
}

/// Counters since the cache was built, and its size now.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct VoiceArtifactStats {
    /// Entries stored now.
    pub entries: usize,
    /// Bytes stored now (never above `max_bytes`).
    pub memory_bytes: usize,
    /// The budget.
    pub max_bytes: usize,
    /// Entries pushed out to make room.
    pub eviction_count: u64,
    /// Lookups that found their artifact.
    pub hit_count: u64,
    /// Lookups that did not.
    pub miss_count: u64,
    /// Entries dropped because their voice was deleted or overwritten
    /// (older versions dropped by a newer insert included).
    pub delete_invalidation_counter: u64,
    /// Artifacts not stored: larger than the whole budget, or older than a
    /// version already stored.
    pub skipped: u64,
}

struct State<A> {
    artifacts: ByteLru<VoiceVersion, Arc<A>>,
    stats: VoiceArtifactStats,
}

/// Artifacts of registered voices, bounded in bytes. Share it behind an `Arc`.
pub struct VoiceArtifactCache<A> {
    state: Mutex<State<A>>,
}

impl<A> VoiceArtifactCache<A> {
    /// An empty cache of at most `max_bytes`; zero is rejected.
    pub fn new(max_bytes: usize) -> Result<Self> {
        if max_bytes == 0 {
            return Err(Error::InvalidInput {
                input: "voice artifact cache max_bytes".into(),
                reason: "must be above zero (a zero budget could never store an artifact)".into(),
            });
        }
        Ok(VoiceArtifactCache {
            state: Mutex::new(State { artifacts: ByteLru::new(max_bytes), stats: VoiceArtifactStats { max_bytes, ..Default::default() } }),
        })
    }

    /// The artifact of `name` at `version`, if stored.
    pub fn get(&self, name: &str, version: u64) -> Option<Arc<A>> {
        let mut state = self.lock();
        let key = VoiceVersion { name: name.to_string(), version };
        let found = state.artifacts.get(&key).map(Arc::clone);
        match found {
            Some(_) => state.stats.hit_count += 1,
            None => state.stats.miss_count += 1,
        }
        found
    }

    /// Stores the artifact of `name` at `version` (weighing `bytes`) and
    /// returns it as an `Arc`. Older versions of the voice are dropped. The
    /// artifact is returned but not stored if it is larger than the whole
    /// budget or if a newer version of the voice is already stored.
    pub fn insert(&self, name: &str, version: u64, artifact: A, bytes: usize) -> Arc<A> {
        let artifact = Arc::new(artifact);
        let mut state = self.lock();
        let newer_stored = state.artifacts.any_key(|key| key.name == name && key.version > version);
        if newer_stored {
            state.stats.skipped += 1;
            return artifact;
        }
        let dropped = state.artifacts.retain(|key, _| key.name != name || key.version == version);
        state.stats.delete_invalidation_counter += dropped as u64;
        let key = VoiceVersion { name: name.to_string(), version };
        if state.artifacts.insert(key, Arc::clone(&artifact), bytes) == Insertion::TooLarge {
            state.stats.skipped += 1;
        }
        artifact
    }

    /// The voice was deleted: drops all its entries; returns how many.
    pub fn voice_deleted(&self, name: &str) -> usize {
        self.invalidate(name)
    }

    /// The voice was overwritten (its content changed): drops all its
    /// entries; returns how many. The new version is stored by the next
    /// [`insert`](Self::insert).
    pub fn voice_overwritten(&self, name: &str) -> usize {
        self.invalidate(name)
    }

    fn invalidate(&self, name: &str) -> usize {
        let mut state = self.lock();
        let dropped = state.artifacts.retain(|key, _| key.name != name);
        state.stats.delete_invalidation_counter += dropped as u64;
        dropped
    }

    /// The counters and the cache's size now.
    pub fn stats(&self) -> VoiceArtifactStats {
        let state = self.lock();
        VoiceArtifactStats { entries: state.artifacts.len(), memory_bytes: state.artifacts.bytes(), eviction_count: state.artifacts.evictions(), ..state.stats }
    }

    fn lock(&self) -> MutexGuard<'_, State<A>> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cache(max_bytes: usize) -> VoiceArtifactCache<Vec<f32>> {
        VoiceArtifactCache::new(max_bytes).unwrap()
    }

    #[test]
    fn a_stored_voice_is_a_hit_and_an_unknown_one_a_miss() {
        let cache = cache(100);
        cache.insert("narrator", 1, vec![0.5; 4], 16);
        assert_eq!(*cache.get("narrator", 1).unwrap(), vec![0.5; 4]);
        assert!(cache.get("narrator", 2).is_none());
        assert!(cache.get("villain", 1).is_none());
        let stats = cache.stats();
        assert_eq!((stats.hit_count, stats.miss_count), (1, 2));
        assert_eq!((stats.entries, stats.memory_bytes, stats.max_bytes), (1, 16, 100));
    }

    #[test]
    fn deleting_a_voice_drops_its_entries_and_counts_them() {
        let cache = cache(100);
        cache.insert("narrator", 1, vec![0.0], 10);
        cache.insert("villain", 1, vec![1.0], 10);
        assert_eq!(cache.voice_deleted("narrator"), 1);
        assert!(cache.get("narrator", 1).is_none());
        assert!(cache.get("villain", 1).is_some(), "other voices stay");
        let stats = cache.stats();
        assert_eq!((stats.entries, stats.memory_bytes, stats.delete_invalidation_counter), (1, 10, 1));
    }

    #[test]
    fn overwriting_a_voice_drops_its_entries() {
        let cache = cache(100);
        cache.insert("narrator", 1, vec![0.0], 10);
        assert_eq!(cache.voice_overwritten("narrator"), 1);
        assert!(cache.get("narrator", 1).is_none());
        assert_eq!(cache.stats().delete_invalidation_counter, 1);
    }

    #[test]
    fn storing_a_newer_version_drops_the_older_one() {
        let cache = cache(100);
        cache.insert("narrator", 1, vec![0.0], 10);
        cache.insert("narrator", 2, vec![2.0], 10);
        assert!(cache.get("narrator", 1).is_none());
        assert_eq!(*cache.get("narrator", 2).unwrap(), vec![2.0]);
        let stats = cache.stats();
        assert_eq!((stats.entries, stats.delete_invalidation_counter), (1, 1));
    }

    #[test]
    fn a_stale_version_arriving_late_does_not_push_out_the_newer_one() {
        let cache = cache(100);
        cache.insert("narrator", 2, vec![2.0], 10);
        let stale = cache.insert("narrator", 1, vec![1.0], 10);
        assert_eq!(*stale, vec![1.0], "the caller still gets what it encoded");
        assert!(cache.get("narrator", 1).is_none());
        assert!(cache.get("narrator", 2).is_some());
        assert_eq!(cache.stats().skipped, 1);
    }

    #[test]
    fn the_budget_evicts_the_least_recently_used_voice() {
        let cache = cache(25);
        cache.insert("a", 1, vec![], 10);
        cache.insert("b", 1, vec![], 10);
        cache.get("a", 1);
        cache.insert("c", 1, vec![], 10);
        assert!(cache.get("b", 1).is_none());
        let stats = cache.stats();
        assert_eq!((stats.entries, stats.memory_bytes, stats.eviction_count), (2, 20, 1));
    }

    #[test]
    fn an_artifact_larger_than_the_budget_is_returned_but_not_stored() {
        let cache = cache(8);
        assert_eq!(cache.insert("big", 1, vec![1.0; 3], 12).len(), 3);
        let stats = cache.stats();
        assert_eq!((stats.entries, stats.skipped), (0, 1));
    }

    #[test]
    fn a_zero_budget_is_rejected_at_construction() {
        let message = VoiceArtifactCache::<Vec<f32>>::new(0).err().unwrap().to_string();
        assert!(message.contains("must be above zero"), "{message}");
    }
}
