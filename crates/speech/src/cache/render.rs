//! The render cache: final audio bytes of a render, keyed by a SHA-256 over
//! every parameter that changes them, bounded in bytes (least recently used
//! goes first) and in age (a TTL). It owns the entries, the expiry policy
//! and the statistics; callers build a [`RenderKey`] with a
//! [`RenderKeyBuilder`] and get back `Arc`s of immutable bytes.
//!
//! What goes into the key is the *synthesis key* of the design: model id
//! and revision, normalised text, voice artifact identity, language, speed,
//! seed, sampler settings, output format. Fit and mix settings (timing
//! strategy, gain, fades, ducking) are NOT part of it: they change the mix,
//! not the render, and the mixer applies them to cached audio.
//!
//! Expiry is lazy and periodic: [`RenderCache::get`] drops an expired entry
//! it finds, and [`RenderCache::sweep`] drops every expired entry, either
//! when called or from the optional background sweeper thread
//! ([`RenderCache::start_sweeper`]), which stops when the cache is dropped.
//! Time comes from a [`Clock`], so tests can move it with [`ManualClock`].

use std::collections::BTreeMap;
use std::fmt;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use serde::Serialize;
use sha2::{Digest, Sha256};

use super::byte_lru::{ByteLru, Insertion};
use revoice_core::error::{Error, Result};

/// Where the cache reads the time.
pub trait Clock: Send + Sync {
    fn now(&self) -> Instant;
}

/// The real monotonic clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Instant {
        Instant::now()
    }
}

/// A clock that moves only when told to (for tests and simulations).
#[derive(Debug)]
pub struct ManualClock {
    start: Instant,
    elapsed: Mutex<Duration>,
}

impl ManualClock {
    /// A clock standing at the moment it was made.
    pub fn new() -> Self {
        ManualClock { start: Instant::now(), elapsed: Mutex::new(Duration::ZERO) }
    }

    /// Moves the clock forward by `by`.
    pub fn advance(&self, by: Duration) {
        *self.elapsed.lock().unwrap_or_else(|e| e.into_inner()) += by;
    }
}

impl Default for ManualClock {
    fn default() -> Self {
        Self::new()
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Instant {
        self.start + *self.elapsed.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The SHA-256 identity of a render.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RenderKey([u8; 32]);

impl RenderKey {
    /// The key as 64 hex digits (usable as a file name).
    pub fn to_hex(&self) -> String {
        hex::encode(self.0)
    }

    /// A key from its 64 hex digits (as stored with a take); `None` otherwise.
    pub fn from_hex(hex: &str) -> Option<RenderKey> {
        let bytes = hex::decode(hex).ok()?;
        Some(RenderKey(bytes.try_into().ok()?))
    }
}

impl fmt::Display for RenderKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_hex())
    }
}

impl fmt::Debug for RenderKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RenderKey({})", self.to_hex())
    }
}

/// Builds a [`RenderKey`] from named parameters. Each parameter's name and
/// value are hashed (length-prefixed, sorted by name), so adding, removing,
/// renaming or changing any parameter changes the key, and the order of the
/// calls does not. `schema` names the key layout (`"render/v1"`).
///
/// ```
/// use revoice_speech::cache::RenderKeyBuilder;
/// let key = RenderKeyBuilder::new("render/v1")
///     .param("model_id", "kokoro-82m-v1.0")
///     .param("text", "Hello there.")
///     .param("voice", "sha256:ab12")
///     .param("speed", 1.0)
///     .param("seed", 7)
///     .build();
/// assert_eq!(key.to_hex().len(), 64);
/// ```
#[derive(Debug, Clone)]
pub struct RenderKeyBuilder {
    schema: String,
    params: BTreeMap<String, String>,
}

impl RenderKeyBuilder {
    /// An empty builder for the key layout `schema`.
    pub fn new(schema: impl Into<String>) -> Self {
        RenderKeyBuilder { schema: schema.into(), params: BTreeMap::new() }
    }

    /// Adds a parameter; its value is hashed as its `Display` text (floats
    /// print their shortest exact form). Panics if `name` was already added:
    /// two values under one name would be a bug in the caller.
    pub fn param(mut self, name: &str, value: impl fmt::Display) -> Self {
        let previous = self.params.insert(name.to_string(), value.to_string());
        assert!(previous.is_none(), "render key parameter {name:?} given twice");
        self
    }

    /// Adds a parameter whose value is raw bytes (hashed as hex).
    pub fn bytes_param(self, name: &str, value: &[u8]) -> Self {
        self.param(name, hex::encode(value))
    }

    /// The key.
    pub fn build(&self) -> RenderKey {
        let mut hash = Sha256::new();
        let mut field = |text: &str| {
            hash.update((text.len() as u64).to_le_bytes());
            hash.update(text.as_bytes());
        };
        field(&self.schema);
        for (name, value) in &self.params {
            field(name);
            field(value);
        }
        RenderKey(hash.finalize().into())
    }
}

/// The cache's limits.
#[derive(Debug, Clone, Copy)]
pub struct RenderCacheConfig {
    /// Budget for stored audio bytes. Must be above zero.
    pub max_bytes: usize,
    /// How long an entry lives after it is stored. Must be above zero.
    pub ttl: Duration,
}

/// Counters since the cache was built, and its size now.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct RenderCacheStats {
    /// Lookups that found live audio.
    pub hits: u64,
    /// Lookups that found nothing, or only expired audio.
    pub misses: u64,
    /// Entries stored now.
    pub entries: usize,
    /// Bytes stored now (never above `max_bytes`).
    pub bytes: usize,
    /// The budget.
    pub max_bytes: usize,
    /// Entries pushed out to make room.
    pub evictions: u64,
    /// Entries dropped for age (on lookup or by a sweep).
    pub expired: u64,
    /// Renders larger than the whole budget, not stored.
    pub skipped_oversized: u64,
}

impl RenderCacheStats {
    /// Hits over lookups, 0 when there were none.
    pub fn hit_rate(&self) -> f64 {
        let lookups = self.hits + self.misses;
        if lookups == 0 {
            0.0
        } else {
            self.hits as f64 / lookups as f64
        }
    }
}

struct Entry {
    audio: Arc<[u8]>,
    expires_at: Instant,
}

struct State {
    audio: ByteLru<RenderKey, Entry>,
    stats: RenderCacheStats,
}

struct Shared {
    clock: Arc<dyn Clock>,
    ttl: Duration,
    state: Mutex<State>,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn sweep(&self) -> usize {
        let now = self.clock.now();
        let mut state = self.lock();
        let dropped = state.audio.retain(|_, entry| entry.expires_at > now);
        state.stats.expired += dropped as u64;
        dropped
    }
}

/// The render cache. Share it behind an `Arc`; dropping it stops its sweeper.
pub struct RenderCache {
    shared: Arc<Shared>,
    sweeper: Option<Sweeper>,
}

impl RenderCache {
    /// A cache on the system clock. A zero budget or TTL is rejected.
    pub fn new(config: RenderCacheConfig) -> Result<Self> {
        Self::with_clock(config, Arc::new(SystemClock))
    }

    /// A cache reading the time from `clock`.
    pub fn with_clock(config: RenderCacheConfig, clock: Arc<dyn Clock>) -> Result<Self> {
        if config.max_bytes == 0 {
            return Err(Error::InvalidInput {
                input: "render cache max_bytes".into(),
                reason: "must be above zero (a zero budget could never store a render)".into(),
            });
        }
        if config.ttl.is_zero() {
            return Err(Error::InvalidInput {
                input: "render cache ttl".into(),
                reason: "must be above zero (every render would expire as it is stored)".into(),
            });
        }
        Ok(RenderCache {
            shared: Arc::new(Shared {
                clock,
                ttl: config.ttl,
                state: Mutex::new(State {
                    audio: ByteLru::new(config.max_bytes),
                    stats: RenderCacheStats { max_bytes: config.max_bytes, ..Default::default() },
                }),
            }),
            sweeper: None,
        })
    }

    /// Starts (or restarts) a background thread that runs
    /// [`sweep`](Self::sweep) every `every`. It stops when the cache is dropped.
    pub fn start_sweeper(&mut self, every: Duration) -> Result<()> {
        if every.is_zero() {
            return Err(Error::InvalidInput { input: "render cache sweep interval".into(), reason: "must be above zero".into() });
        }
        self.sweeper = None; // stops a running one first
        self.sweeper = Some(Sweeper::start(Arc::downgrade(&self.shared), every)?);
        Ok(())
    }

    /// The audio under `key` if stored and not expired. An expired entry
    /// found here is dropped and counts as a miss.
    pub fn get(&self, key: &RenderKey) -> Option<Arc<[u8]>> {
        self.get_first(std::slice::from_ref(key))
    }

    /// The audio under the first of `keys` stored and not expired, as one
    /// lookup: one hit, or one miss. Expired entries found are dropped.
    pub fn get_first(&self, keys: &[RenderKey]) -> Option<Arc<[u8]>> {
        let now = self.shared.clock.now();
        let mut state = self.shared.lock();
        for key in keys {
            let found = state.audio.get(key).map(|entry| (entry.expires_at > now, Arc::clone(&entry.audio)));
            match found {
                Some((true, audio)) => {
                    state.stats.hits += 1;
                    return Some(audio);
                }
                Some((false, _)) => {
                    state.audio.remove(key);
                    state.stats.expired += 1;
                }
                None => {}
            }
        }
        state.stats.misses += 1;
        None
    }

    /// Stores `audio` under `key` for the TTL, evicting least recently used
    /// renders to make room. Returns whether it was stored: a render larger
    /// than the whole budget is skipped and counted.
    pub fn insert(&self, key: RenderKey, audio: impl Into<Arc<[u8]>>) -> bool {
        let audio = audio.into();
        let expires_at = self.shared.clock.now() + self.shared.ttl;
        let size = audio.len();
        let mut state = self.shared.lock();
        match state.audio.insert(key, Entry { audio, expires_at }, size) {
            Insertion::Stored { .. } => true,
            Insertion::TooLarge => {
                state.stats.skipped_oversized += 1;
                tracing::debug!(%key, size, "render larger than the render cache; not cached");
                false
            }
        }
    }

    /// Drops every expired entry now; returns how many.
    pub fn sweep(&self) -> usize {
        self.shared.sweep()
    }

    /// Drops every entry (counters are kept).
    pub fn clear(&self) {
        self.shared.lock().audio.clear();
    }

    /// The counters and the cache's size now.
    pub fn stats(&self) -> RenderCacheStats {
        let state = self.shared.lock();
        RenderCacheStats { entries: state.audio.len(), bytes: state.audio.bytes(), evictions: state.audio.evictions(), ..state.stats }
    }
}

/// The background sweeper: a thread that holds only a weak reference to the
/// cache and stops when its stop channel closes (on drop).
struct Sweeper {
    stop: Option<mpsc::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Sweeper {
    fn start(shared: Weak<Shared>, every: Duration) -> Result<Self> {
        let (stop, stopped) = mpsc::channel::<()>();
        let thread = thread::Builder::new()
            .name("render-cache-sweeper".into())
            .spawn(move || {
                // A message or a closed channel (the cache dropped) ends the loop.
                while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(every) {
                    let Some(shared) = shared.upgrade() else {
                        break;
                    };
                    shared.sweep();
                }
            })
            .map_err(|e| Error::io("spawn", "the render-cache-sweeper thread", e))?;
        Ok(Sweeper { stop: Some(stop), thread: Some(thread) })
    }
}

impl Drop for Sweeper {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINUTE: Duration = Duration::from_secs(60);

    fn key(n: u32) -> RenderKey {
        RenderKeyBuilder::new("test/v1").param("line", n).build()
    }

    fn cache(max_bytes: usize) -> (RenderCache, Arc<ManualClock>) {
        let clock = Arc::new(ManualClock::new());
        let config = RenderCacheConfig { max_bytes, ttl: MINUTE };
        (RenderCache::with_clock(config, clock.clone()).unwrap(), clock)
    }

    fn synthesis_key() -> RenderKeyBuilder {
        RenderKeyBuilder::new("render/v1").param("model_id", "kokoro-82m-v1.0").param("text", "Hello there.").param("speed", 1.0)
    }

    #[test]
    fn adding_or_changing_a_parameter_changes_the_key_but_call_order_does_not() {
        let base = synthesis_key().build();
        assert_ne!(base, synthesis_key().param("seed", 7).build());
        assert_ne!(base, RenderKeyBuilder::new("render/v1").param("model_id", "kokoro-82m-v1.0").param("text", "Hello there.").param("speed", 1.1).build());
        let reordered = RenderKeyBuilder::new("render/v1").param("speed", 1.0).param("text", "Hello there.").param("model_id", "kokoro-82m-v1.0").build();
        assert_eq!(base, reordered);
        assert_ne!(base, RenderKeyBuilder::new("render/v2").param("model_id", "kokoro-82m-v1.0").build());
    }

    #[test]
    fn names_and_values_cannot_run_into_each_other() {
        let a = RenderKeyBuilder::new("s").param("ab", "c").build();
        let b = RenderKeyBuilder::new("s").param("a", "bc").build();
        assert_ne!(a, b);
    }

    #[test]
    #[should_panic(expected = "given twice")]
    fn a_parameter_given_twice_is_a_bug() {
        let _ = synthesis_key().param("speed", 1.2);
    }

    #[test]
    fn an_entry_past_its_ttl_is_a_miss_on_get() {
        let (cache, clock) = cache(100);
        cache.insert(key(1), vec![1u8; 10]);
        clock.advance(MINUTE - Duration::from_secs(1));
        assert!(cache.get(&key(1)).is_some());
        clock.advance(Duration::from_secs(1));
        assert!(cache.get(&key(1)).is_none());
        let stats = cache.stats();
        assert_eq!((stats.hits, stats.misses, stats.expired, stats.entries, stats.bytes), (1, 1, 1, 0, 0));
    }

    #[test]
    fn a_lookup_of_several_keys_takes_the_first_stored_and_counts_once() {
        let (cache, _) = cache(100);
        cache.insert(key(2), vec![2u8; 10]);
        assert_eq!(cache.get_first(&[key(1), key(2)]).as_deref(), Some(&[2u8; 10][..]));
        assert!(cache.get_first(&[key(3), key(4)]).is_none());
        let stats = cache.stats();
        assert_eq!((stats.hits, stats.misses), (1, 1));
    }

    #[test]
    fn a_sweep_drops_only_expired_entries() {
        let (cache, clock) = cache(100);
        cache.insert(key(1), vec![1u8; 10]);
        clock.advance(Duration::from_secs(30));
        cache.insert(key(2), vec![2u8; 10]);
        clock.advance(Duration::from_secs(30));
        assert_eq!(cache.sweep(), 1);
        let stats = cache.stats();
        assert_eq!((stats.entries, stats.bytes, stats.expired), (1, 10, 1));
        assert!(cache.get(&key(2)).is_some());
    }

    #[test]
    fn the_background_sweeper_expires_entries_and_stops_with_the_cache() {
        let (mut cache, clock) = cache(100);
        cache.start_sweeper(Duration::from_millis(1)).unwrap();
        cache.insert(key(1), vec![1u8; 10]);
        clock.advance(MINUTE);
        let limit = Instant::now() + Duration::from_secs(60);
        while cache.stats().entries > 0 {
            assert!(Instant::now() < limit, "the sweeper never swept");
            thread::sleep(Duration::from_millis(1));
        }
        assert_eq!(cache.stats().expired, 1);
        let shared = Arc::downgrade(&cache.shared);
        drop(cache); // joins the sweeper thread
        assert!(shared.upgrade().is_none(), "nothing keeps the cache alive after drop");
    }

    #[test]
    fn the_least_recently_used_render_goes_when_bytes_run_out() {
        let (cache, _) = cache(25);
        cache.insert(key(1), vec![0u8; 10]);
        cache.insert(key(2), vec![0u8; 10]);
        cache.get(&key(1));
        cache.insert(key(3), vec![0u8; 10]);
        assert!(cache.get(&key(2)).is_none());
        assert!(cache.get(&key(1)).is_some() && cache.get(&key(3)).is_some());
        let stats = cache.stats();
        assert_eq!((stats.entries, stats.bytes, stats.evictions), (2, 20, 1));
    }

    #[test]
    fn a_render_larger_than_the_budget_is_skipped_and_counted() {
        let (cache, _) = cache(10);
        cache.insert(key(1), vec![0u8; 4]);
        assert!(!cache.insert(key(2), vec![0u8; 11]));
        let stats = cache.stats();
        assert_eq!((stats.entries, stats.bytes, stats.skipped_oversized, stats.evictions), (1, 4, 1, 0));
    }

    #[test]
    fn the_hit_rate_is_hits_over_lookups() {
        let (cache, _) = cache(100);
        assert_eq!(cache.stats().hit_rate(), 0.0);
        cache.insert(key(1), vec![0u8; 4]);
        cache.get(&key(1));
        cache.get(&key(1));
        cache.get(&key(1));
        cache.get(&key(2));
        assert_eq!(cache.stats().hit_rate(), 0.75);
    }

    #[test]
    fn clear_empties_the_cache_and_keeps_the_counters() {
        let (cache, _) = cache(100);
        cache.insert(key(1), vec![0u8; 4]);
        cache.get(&key(1));
        cache.clear();
        assert!(cache.get(&key(1)).is_none());
        let stats = cache.stats();
        assert_eq!((stats.entries, stats.bytes, stats.hits, stats.misses), (0, 0, 1, 1));
    }

    #[test]
    fn a_zero_budget_or_ttl_is_rejected_at_construction() {
        let zero_bytes = RenderCacheConfig { max_bytes: 0, ttl: MINUTE };
        let message = RenderCache::new(zero_bytes).err().unwrap().to_string();
        assert!(message.contains("max_bytes: must be above zero"), "{message}");
        let zero_ttl = RenderCacheConfig { max_bytes: 1, ttl: Duration::ZERO };
        let message = RenderCache::new(zero_ttl).err().unwrap().to_string();
        assert!(message.contains("ttl: must be above zero"), "{message}");
    }
}
