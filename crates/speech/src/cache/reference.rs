//! The reference-encode service: ad-hoc voice references (a clip a user
//! drops in, a URL an API caller sends) in, voice artifacts (speaker
//! embeddings, style vectors) out, each encoded once while it stays cached.
//!
//! The service owns the policy: one byte-bounded LRU of stored artifacts,
//! one single-flight map so that concurrent requests for a key run one
//! encode, and the statistics. Everything about *what* is encoded is handed
//! to a [`ReferenceEncodeHooks`] implementation: normalising the input, its
//! [`ReferenceEncodeKey`] (or none: uncacheable), the encode itself, how an
//! artifact is held in the cache and handed back out, and the re-check of the
//! input's identity before an artifact is cached.
//!
//! It is synchronous and thread-first: callers are the engine's own threads
//! (the scheduler, voice import); the encode runs on the calling (leader's)
//! thread with no lock held; followers park on a condvar with a timeout.
//!
//! Guarantees:
//! - one encode per key at a time; a follower that times out gets an error
//!   naming its input and the key, and the leader carries on and caches;
//! - a failure is never cached: it reaches the leader as the original
//!   [`Error`] and every follower as an [`Error::InvalidInput`] naming the
//!   follower's input and carrying the leader's message; the next request
//!   leads a new encode;
//! - a leader that panics still releases its followers (with an error) and
//!   its key;
//! - an artifact larger than the whole budget is handed to the leader and its
//!   followers but not stored;
//! - callers own what they get: hits go through
//!   [`load_artifact`](ReferenceEncodeHooks::load_artifact) on an immutable
//!   `Arc` of the stored form, never a shared mutable value.

use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::byte_lru::{ByteLru, Insertion};
use super::single_flight::{Flight, Flights, Role};
use revoice_core::error::{Error, Result};

/// Everything that changes a reference artifact. Two requests with equal
/// keys get the same artifact; any change to the model, the encoder, its
/// configuration, the kind of artifact, the input's content or the encode
/// options gives a different key.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ReferenceEncodeKey {
    /// The synthesis model the artifact is for (`kokoro-82m-v1.0`).
    pub model_id: String,
    /// The model's weights revision (a hash or a release tag).
    pub model_revision: String,
    /// The encoder that produced the artifact (`speaker-encoder`).
    pub encoder_id: String,
    /// A hash of the encoder's configuration.
    pub encoder_config_hash: String,
    /// What the artifact is (`style-vector`, `speaker-embedding`).
    pub artifact_kind: String,
    /// The input's content identity, see
    /// [`ReferenceInput::content_identity`](super::ReferenceInput::content_identity).
    pub input_key: String,
    /// The encode options that change the artifact (trim, loudness, ...),
    /// canonically serialised or hashed.
    pub options_key: String,
}

impl fmt::Display for ReferenceEncodeKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}@{}/{}#{}/{}/{}/{}",
            self.model_id, self.model_revision, self.encoder_id, self.encoder_config_hash, self.artifact_kind, self.input_key, self.options_key
        )
    }
}

/// The parts of a [`ReferenceEncodeKey`] fixed by the loaded model and
/// encoder; hooks keep one and add each request's input and options.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct EncoderIdentity {
    pub model_id: String,
    pub model_revision: String,
    pub encoder_id: String,
    pub encoder_config_hash: String,
    pub artifact_kind: String,
}

impl EncoderIdentity {
    /// The full key for one input's content identity and encode options.
    pub fn key(&self, input_key: impl Into<String>, options_key: impl Into<String>) -> ReferenceEncodeKey {
        ReferenceEncodeKey {
            model_id: self.model_id.clone(),
            model_revision: self.model_revision.clone(),
            encoder_id: self.encoder_id.clone(),
            encoder_config_hash: self.encoder_config_hash.clone(),
            artifact_kind: self.artifact_kind.clone(),
            input_key: input_key.into(),
            options_key: options_key.into(),
        }
    }
}

/// An artifact in the form the cache holds it, with its size in bytes (what
/// counts against the budget).
pub struct StoredArtifact<S> {
    pub value: S,
    pub bytes: usize,
}

/// What the service calls to do the actual work. Implementations are shared
/// across threads, so they take `&self`.
pub trait ReferenceEncodeHooks: Send + Sync {
    /// A request's reference (for example [`ReferenceInput`](super::ReferenceInput)).
    type Input;
    /// What callers get back; each caller gets its own.
    type Artifact;
    /// What the cache holds (behind an `Arc`, never mutated).
    type Stored: Send + Sync;

    /// Checks and canonicalises a request's input (resolve a path, fetch a
    /// URL, decode a data URI). An error here rejects the request.
    fn normalize_input(&self, input: Self::Input) -> Result<Self::Input>;

    /// A short name of the input for messages (a path, a URL).
    fn describe_input(&self, input: &Self::Input) -> String;

    /// The key covering everything that changes the artifact, or `None` if
    /// the input has no stable identity (then it is encoded every time).
    fn cache_key(&self, input: &Self::Input) -> Option<ReferenceEncodeKey>;

    /// Encodes one reference. Runs on the caller's thread with no lock held.
    fn encode_one(&self, input: &Self::Input) -> Result<Self::Artifact>;

    /// Turns a fresh artifact into the form the cache holds, and says how
    /// many bytes it weighs. (A persistent implementation may also write it
    /// to disk here.)
    fn store_artifact(&self, key: &ReferenceEncodeKey, artifact: Self::Artifact) -> Result<StoredArtifact<Self::Stored>>;

    /// Hands a caller its own artifact from the cached form (a clone, or an
    /// `Arc` of immutable data).
    fn load_artifact(&self, key: &ReferenceEncodeKey, stored: &Self::Stored) -> Result<Self::Artifact>;

    /// Re-checks, after the encode, that the input still has the identity it
    /// was keyed by (a local file unchanged since it was hashed). `false`
    /// hands the artifact out but does not cache it.
    fn revalidate(&self, input: &Self::Input, key: &ReferenceEncodeKey) -> bool;
}

/// The service's limits.
#[derive(Debug, Clone, Copy)]
pub struct ReferenceEncodeConfig {
    /// Budget for stored artifacts, by their [`StoredArtifact::bytes`]. Must be above zero.
    pub max_bytes: usize,
    /// How long a follower waits for a leader's encode by default. Must be above zero.
    pub follower_timeout: Duration,
}

/// Counters since the service was built, and the cache's size now.
///
/// Every request is counted once in exactly one of `hits`, `misses`,
/// `merged`, `uncacheable` or `rejected`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct ReferenceEncodeStats {
    /// Served from the cache.
    pub hits: u64,
    /// Led an encode for a cacheable key.
    pub misses: u64,
    /// Joined an encode already in flight (whatever came of the wait).
    pub merged: u64,
    /// Had no cache key, so were encoded on their own.
    pub uncacheable: u64,
    /// Refused by `normalize_input`.
    pub rejected: u64,
    /// Encodes (led or uncacheable) that failed, a panicking leader included.
    pub failed: u64,
    /// Followers that stopped waiting before their leader finished.
    pub follower_timeouts: u64,
    /// Artifacts larger than the whole budget, handed out but not stored.
    pub skipped_oversized: u64,
    /// Artifacts not stored because `revalidate` said the input changed.
    pub revalidation_failures: u64,
    /// Entries pushed out by newer ones.
    pub evictions: u64,
    /// Entries stored now.
    pub entries: usize,
    /// Bytes stored now (never above `max_bytes`).
    pub bytes: usize,
    /// The budget.
    pub max_bytes: usize,
    /// Encodes in progress now.
    pub in_flight: usize,
}

/// A leader's failure as its followers see it: cloneable, with the leader's
/// full message (which names the leader's input and the reason).
#[derive(Debug, Clone)]
struct SharedFailure {
    message: String,
}

type Outcome<S> = std::result::Result<Arc<S>, SharedFailure>;

struct State<S> {
    artifacts: ByteLru<ReferenceEncodeKey, Arc<S>>,
    flights: Flights<ReferenceEncodeKey, Outcome<S>>,
    stats: ReferenceEncodeStats,
}

/// The reference-encode service. Share it behind an `Arc`.
pub struct ReferenceEncodeService<H: ReferenceEncodeHooks> {
    hooks: H,
    follower_timeout: Duration,
    state: Mutex<State<H::Stored>>,
}

enum Turn<S> {
    Hit(Arc<S>),
    Lead(Arc<Flight<Outcome<S>>>),
    Follow(Arc<Flight<Outcome<S>>>),
}

impl<H: ReferenceEncodeHooks> ReferenceEncodeService<H> {
    /// A service over `hooks`. A zero budget or a zero follower timeout is
    /// rejected.
    pub fn new(hooks: H, config: ReferenceEncodeConfig) -> Result<Self> {
        if config.max_bytes == 0 {
            return Err(Error::InvalidInput {
                input: "reference cache max_bytes".into(),
                reason: "must be above zero (a zero budget could never store an artifact)".into(),
            });
        }
        if config.follower_timeout.is_zero() {
            return Err(Error::InvalidInput {
                input: "reference cache follower_timeout".into(),
                reason: "must be above zero (followers would give up before any encode)".into(),
            });
        }
        Ok(ReferenceEncodeService {
            hooks,
            follower_timeout: config.follower_timeout,
            state: Mutex::new(State {
                artifacts: ByteLru::new(config.max_bytes),
                flights: Flights::new(),
                stats: ReferenceEncodeStats { max_bytes: config.max_bytes, ..Default::default() },
            }),
        })
    }

    /// The hooks the service runs.
    pub fn hooks(&self) -> &H {
        &self.hooks
    }

    /// The artifact for `input`: from the cache, from an encode already in
    /// flight, or from a new encode. Followers wait up to the configured
    /// follower timeout.
    pub fn encode(&self, input: H::Input) -> Result<H::Artifact> {
        self.encode_waiting_at_most(input, self.follower_timeout)
    }

    /// [`encode`](Self::encode), with a follower waiting at most `timeout`
    /// for an encode in flight (a leader is never cut short).
    pub fn encode_waiting_at_most(&self, input: H::Input, timeout: Duration) -> Result<H::Artifact> {
        let input = match self.hooks.normalize_input(input) {
            Ok(input) => input,
            Err(e) => {
                self.lock().stats.rejected += 1;
                return Err(e);
            }
        };
        let Some(key) = self.hooks.cache_key(&input) else {
            self.lock().stats.uncacheable += 1;
            return self.hooks.encode_one(&input).inspect_err(|_| {
                self.lock().stats.failed += 1;
            });
        };

        let turn = {
            let mut state = self.lock();
            if let Some(stored) = state.artifacts.get(&key) {
                let stored = Arc::clone(stored);
                state.stats.hits += 1;
                Turn::Hit(stored)
            } else {
                match state.flights.join(key.clone()) {
                    Role::Leader(flight) => {
                        state.stats.misses += 1;
                        Turn::Lead(flight)
                    }
                    Role::Follower(flight) => {
                        state.stats.merged += 1;
                        Turn::Follow(flight)
                    }
                }
            }
        };

        match turn {
            Turn::Hit(stored) => self.hooks.load_artifact(&key, &stored),
            Turn::Lead(flight) => self.lead(&key, &input, flight),
            Turn::Follow(flight) => match flight.wait(timeout) {
                Some(Ok(stored)) => self.hooks.load_artifact(&key, &stored),
                Some(Err(failure)) => Err(Error::InvalidInput {
                    input: self.hooks.describe_input(&input),
                    reason: format!("the encode this request joined (key {key}) failed: {}", failure.message),
                }),
                None => {
                    self.lock().stats.follower_timeouts += 1;
                    Err(Error::InvalidInput {
                        input: self.hooks.describe_input(&input),
                        reason: format!(
                            "timed out after {timeout:?} waiting for the encode in flight for key {key} \
                             (that encode continues and will be cached)"
                        ),
                    })
                }
            },
        }
    }

    /// The leader's side: encode, store, revalidate, cache, publish.
    fn lead(&self, key: &ReferenceEncodeKey, input: &H::Input, flight: Arc<Flight<Outcome<H::Stored>>>) -> Result<H::Artifact> {
        let mut turn = LeaderTurn { service: self, key, flight: &flight, finished: false };
        let stored = self.hooks.encode_one(input).and_then(|artifact| self.hooks.store_artifact(key, artifact));
        match stored {
            Ok(StoredArtifact { value, bytes }) => {
                let value = Arc::new(value);
                // Outside the lock: it may read a file.
                let still_valid = self.hooks.revalidate(input, key);
                {
                    let mut state = self.lock();
                    state.flights.retire(key, &flight);
                    if !still_valid {
                        state.stats.revalidation_failures += 1;
                        tracing::debug!(%key, "reference changed during its encode; not cached");
                    } else if state.artifacts.insert(key.clone(), Arc::clone(&value), bytes) == Insertion::TooLarge {
                        state.stats.skipped_oversized += 1;
                        tracing::debug!(%key, bytes, "reference artifact larger than the cache; not cached");
                    }
                }
                turn.finished = true;
                flight.complete(Ok(Arc::clone(&value)));
                self.hooks.load_artifact(key, &value)
            }
            Err(error) => {
                {
                    let mut state = self.lock();
                    state.flights.retire(key, &flight);
                    state.stats.failed += 1;
                }
                turn.finished = true;
                flight.complete(Err(SharedFailure { message: error.to_string() }));
                Err(error)
            }
        }
    }

    /// The counters and the cache's size now.
    pub fn stats(&self) -> ReferenceEncodeStats {
        let state = self.lock();
        ReferenceEncodeStats {
            evictions: state.artifacts.evictions(),
            entries: state.artifacts.len(),
            bytes: state.artifacts.bytes(),
            in_flight: state.flights.len(),
            ..state.stats
        }
    }

    /// Whether an artifact for `key` is stored now (does not touch recency).
    pub fn contains(&self, key: &ReferenceEncodeKey) -> bool {
        self.lock().artifacts.peek(key).is_some()
    }

    /// Drops every stored artifact (encodes in flight are unaffected).
    pub fn clear(&self) {
        self.lock().artifacts.clear();
    }

    fn lock(&self) -> MutexGuard<'_, State<H::Stored>> {
        // No hook runs under this lock, so a poisoned lock holds consistent data.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Releases the key and the followers if the leader unwinds mid-encode.
struct LeaderTurn<'a, H: ReferenceEncodeHooks> {
    service: &'a ReferenceEncodeService<H>,
    key: &'a ReferenceEncodeKey,
    flight: &'a Arc<Flight<Outcome<H::Stored>>>,
    finished: bool,
}

impl<H: ReferenceEncodeHooks> Drop for LeaderTurn<'_, H> {
    fn drop(&mut self) {
        if self.finished {
            return;
        }
        {
            let mut state = self.service.lock();
            state.flights.retire(self.key, self.flight);
            state.stats.failed += 1;
        }
        self.flight.complete(Err(SharedFailure { message: format!("the encode for key {} stopped without finishing (it panicked)", self.key) }));
    }
}

#[cfg(test)]
#[path = "reference_tests.rs"]
mod tests;
