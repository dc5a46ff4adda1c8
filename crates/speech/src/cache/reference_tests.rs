//! Tests of the reference-encode service's mechanics, over a fake encoder
//! that counts its encodes, fails or panics on request, and can hold its
//! leader at a gate until the test opens it.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use super::*;
use crate::cache::ReferenceInput;

/// A request for the fake encoder: a clip name, whether it has an identity,
/// and how many bytes its artifact weighs.
#[derive(Clone)]
struct Clip {
    name: &'static str,
    cacheable: bool,
    artifact_bytes: usize,
}

fn clip(name: &'static str) -> Clip {
    Clip { name, cacheable: true, artifact_bytes: 4 }
}

/// Holds encodes until opened.
#[derive(Default)]
struct Gate {
    open: Mutex<bool>,
    opened: Condvar,
}

impl Gate {
    fn wait(&self) {
        let open = self.open.lock().unwrap();
        drop(self.opened.wait_while(open, |open| !*open).unwrap());
    }
    fn open(&self) {
        *self.open.lock().unwrap() = true;
        self.opened.notify_all();
    }
}

#[derive(Default)]
struct FakeEncoder {
    encodes: Mutex<HashMap<&'static str, usize>>,
    fail: AtomicBool,
    panic: AtomicBool,
    identity_changes: AtomicBool,
    gate: Option<Gate>,
}

impl FakeEncoder {
    fn gated() -> Self {
        FakeEncoder { gate: Some(Gate::default()), ..Default::default() }
    }
    fn encodes_of(&self, name: &str) -> usize {
        self.encodes.lock().unwrap().get(name).copied().unwrap_or(0)
    }
    fn open_gate(&self) {
        self.gate.as_ref().unwrap().open();
    }
}

impl ReferenceEncodeHooks for FakeEncoder {
    type Input = Clip;
    type Artifact = Vec<u8>;
    type Stored = Vec<u8>;

    fn normalize_input(&self, input: Clip) -> Result<Clip> {
        if input.name.is_empty() {
            return Err(Error::InvalidInput { input: "(empty)".into(), reason: "no clip name".into() });
        }
        Ok(input)
    }
    fn describe_input(&self, input: &Clip) -> String {
        input.name.to_string()
    }
    fn cache_key(&self, input: &Clip) -> Option<ReferenceEncodeKey> {
        input.cacheable.then(|| identity().key(input.name, "default"))
    }
    fn encode_one(&self, input: &Clip) -> Result<Vec<u8>> {
        *self.encodes.lock().unwrap().entry(input.name).or_default() += 1;
        if let Some(gate) = &self.gate {
            gate.wait();
        }
        if self.panic.load(Ordering::SeqCst) {
            panic!("fake encoder told to panic");
        }
        if self.fail.load(Ordering::SeqCst) {
            return Err(Error::InvalidInput { input: input.name.into(), reason: "injected failure: not a voice".into() });
        }
        Ok(vec![input.name.len() as u8; input.artifact_bytes])
    }
    fn store_artifact(&self, _key: &ReferenceEncodeKey, artifact: Vec<u8>) -> Result<StoredArtifact<Vec<u8>>> {
        Ok(StoredArtifact { bytes: artifact.len(), value: artifact })
    }
    fn load_artifact(&self, _key: &ReferenceEncodeKey, stored: &Vec<u8>) -> Result<Vec<u8>> {
        Ok(stored.clone())
    }
    fn revalidate(&self, _input: &Clip, _key: &ReferenceEncodeKey) -> bool {
        !self.identity_changes.load(Ordering::SeqCst)
    }
}

fn identity() -> EncoderIdentity {
    EncoderIdentity {
        model_id: "kokoro-82m-v1.0".into(),
        model_revision: "r1".into(),
        encoder_id: "fake-encoder".into(),
        encoder_config_hash: "c0".into(),
        artifact_kind: "style-vector".into(),
    }
}

fn service(encoder: FakeEncoder, max_bytes: usize) -> Arc<ReferenceEncodeService<FakeEncoder>> {
    let config = ReferenceEncodeConfig { max_bytes, follower_timeout: Duration::from_secs(60) };
    Arc::new(ReferenceEncodeService::new(encoder, config).unwrap())
}

/// Polls until `done` holds; panics (instead of hanging) after a generous limit.
fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let limit = Instant::now() + Duration::from_secs(60);
    while !done() {
        assert!(Instant::now() < limit, "gave up waiting until {what}");
        thread::sleep(Duration::from_millis(1));
    }
}

fn spawn_requests(service: &Arc<ReferenceEncodeService<FakeEncoder>>, clip: Clip, count: usize) -> Vec<thread::JoinHandle<Result<Vec<u8>>>> {
    (0..count)
        .map(|_| {
            let service = Arc::clone(service);
            let clip = clip.clone();
            thread::spawn(move || service.encode(clip))
        })
        .collect()
}

#[test]
fn eight_threads_asking_for_one_key_run_one_encode() {
    let service = service(FakeEncoder::gated(), 1024);
    let requests = spawn_requests(&service, clip("ref-a"), 8);
    wait_until("one leads and seven follow", || {
        let stats = service.stats();
        stats.misses == 1 && stats.merged == 7
    });
    service.hooks().open_gate();
    for request in requests {
        assert_eq!(request.join().unwrap().unwrap(), vec![5; 4]);
    }
    let stats = service.stats();
    assert_eq!(service.hooks().encodes_of("ref-a"), 1);
    assert_eq!((stats.misses, stats.merged, stats.hits), (1, 7, 0));
    assert_eq!((stats.entries, stats.bytes, stats.in_flight), (1, 4, 0));
}

#[test]
fn a_failed_encode_reaches_every_waiter_is_not_cached_and_the_next_request_leads_anew() {
    let encoder = FakeEncoder::gated();
    encoder.fail.store(true, Ordering::SeqCst);
    let service = service(encoder, 1024);
    let requests = spawn_requests(&service, clip("ref-a"), 4);
    wait_until("one leads and three follow", || service.stats().merged == 3);
    service.hooks().open_gate();
    for request in requests {
        let message = request.join().unwrap().unwrap_err().to_string();
        assert!(message.contains("ref-a"), "{message}");
        assert!(message.contains("injected failure: not a voice"), "{message}");
    }
    let stats = service.stats();
    assert_eq!((stats.failed, stats.entries, stats.in_flight), (1, 0, 0));

    service.hooks().fail.store(false, Ordering::SeqCst);
    assert_eq!(service.encode(clip("ref-a")).unwrap(), vec![5; 4]);
    let stats = service.stats();
    assert_eq!(service.hooks().encodes_of("ref-a"), 2);
    assert_eq!((stats.misses, stats.entries), (2, 1), "the retry led a new encode and was cached");
}

#[test]
fn a_follower_that_times_out_leaves_the_leader_to_finish_and_cache() {
    let service = service(FakeEncoder::gated(), 1024);
    let leader = spawn_requests(&service, clip("ref-a"), 1).pop().unwrap();
    wait_until("the leader is encoding", || service.hooks().encodes_of("ref-a") == 1);

    let message = service.encode_waiting_at_most(clip("ref-a"), Duration::from_millis(5)).unwrap_err().to_string();
    assert!(message.starts_with("ref-a: timed out"), "{message}");
    assert!(message.contains("style-vector/ref-a/default"), "names the key: {message}");
    assert_eq!(service.stats().in_flight, 1, "the leader's flight is still there");

    service.hooks().open_gate();
    assert!(leader.join().unwrap().is_ok());
    let key = identity().key("ref-a", "default");
    assert!(service.contains(&key));
    assert_eq!(service.encode(clip("ref-a")).unwrap(), vec![5; 4]);
    let stats = service.stats();
    assert_eq!((stats.follower_timeouts, stats.merged, stats.hits, stats.misses), (1, 1, 1, 1));
    assert_eq!(service.hooks().encodes_of("ref-a"), 1);
}

#[test]
fn a_tiny_budget_asked_for_a_b_b_a_re_encodes_a_and_counts_an_eviction() {
    let service = service(FakeEncoder::default(), 6);
    for name in ["a", "b", "b", "a"] {
        service.encode(Clip { artifact_bytes: 6, ..clip(name) }).unwrap();
    }
    assert_eq!(service.hooks().encodes_of("a"), 2);
    assert_eq!(service.hooks().encodes_of("b"), 1);
    let stats = service.stats();
    assert_eq!((stats.misses, stats.hits), (3, 1));
    assert_eq!(stats.evictions, 2, "b pushed a out, then a pushed b out");
    assert_eq!((stats.entries, stats.bytes), (1, 6));
}

#[test]
fn an_artifact_larger_than_the_budget_reaches_leader_and_followers_but_is_not_stored() {
    let service = service(FakeEncoder::gated(), 8);
    let big = Clip { artifact_bytes: 9, ..clip("big") };
    let requests = spawn_requests(&service, big, 3);
    wait_until("one leads and two follow", || service.stats().merged == 2);
    service.hooks().open_gate();
    for request in requests {
        assert_eq!(request.join().unwrap().unwrap().len(), 9);
    }
    let stats = service.stats();
    assert_eq!((stats.entries, stats.bytes, stats.skipped_oversized), (0, 0, 1));
}

#[test]
fn an_artifact_whose_input_changed_during_the_encode_is_handed_out_but_not_cached() {
    let encoder = FakeEncoder::default();
    encoder.identity_changes.store(true, Ordering::SeqCst);
    let service = service(encoder, 1024);
    assert!(service.encode(clip("ref-a")).is_ok());
    assert!(service.encode(clip("ref-a")).is_ok());
    let stats = service.stats();
    assert_eq!((stats.entries, stats.revalidation_failures, stats.misses), (0, 2, 2));
    assert_eq!(service.hooks().encodes_of("ref-a"), 2);
}

#[test]
fn an_uncacheable_input_is_encoded_every_time_and_counted() {
    let service = service(FakeEncoder::default(), 1024);
    for _ in 0..3 {
        service.encode(Clip { cacheable: false, ..clip("live-mic") }).unwrap();
    }
    let stats = service.stats();
    assert_eq!(service.hooks().encodes_of("live-mic"), 3);
    assert_eq!((stats.uncacheable, stats.misses, stats.entries), (3, 0, 0));
}

#[test]
fn an_input_refused_by_normalisation_is_counted_as_rejected() {
    let service = service(FakeEncoder::default(), 1024);
    let message = service.encode(clip("")).unwrap_err().to_string();
    assert!(message.contains("no clip name"), "{message}");
    assert_eq!(service.stats().rejected, 1);
}

#[test]
fn a_zero_budget_or_a_zero_follower_timeout_is_rejected_at_construction() {
    let zero_bytes = ReferenceEncodeConfig { max_bytes: 0, follower_timeout: Duration::from_secs(1) };
    let message = ReferenceEncodeService::new(FakeEncoder::default(), zero_bytes).err().unwrap().to_string();
    assert!(message.contains("max_bytes: must be above zero"), "{message}");

    let zero_wait = ReferenceEncodeConfig { max_bytes: 1, follower_timeout: Duration::ZERO };
    let message = ReferenceEncodeService::new(FakeEncoder::default(), zero_wait).err().unwrap().to_string();
    assert!(message.contains("follower_timeout: must be above zero"), "{message}");
}

#[test]
fn a_cache_hit_hands_the_caller_its_own_copy() {
    let service = service(FakeEncoder::default(), 1024);
    let mut first = service.encode(clip("ref-a")).unwrap();
    first[0] = 99;
    assert_eq!(service.encode(clip("ref-a")).unwrap(), vec![5; 4]);
}

#[test]
fn a_leader_that_panics_releases_its_followers_and_its_key() {
    let encoder = FakeEncoder::gated();
    encoder.panic.store(true, Ordering::SeqCst);
    let service = service(encoder, 1024);
    let mut requests = spawn_requests(&service, clip("ref-a"), 2);
    wait_until("one leads and one follows", || service.stats().merged == 1);
    service.hooks().open_gate();
    let outcomes: Vec<_> = requests.drain(..).map(|r| r.join()).collect();
    assert_eq!(outcomes.iter().filter(|o| o.is_err()).count(), 1, "the leader panicked");
    let follower = outcomes.into_iter().find_map(|o| o.ok()).unwrap();
    let message = follower.unwrap_err().to_string();
    assert!(message.contains("panicked"), "{message}");

    service.hooks().panic.store(false, Ordering::SeqCst);
    assert!(service.encode(clip("ref-a")).is_ok(), "the key is free again");
    let stats = service.stats();
    assert_eq!((stats.failed, stats.misses, stats.in_flight), (1, 2, 0));
}

/// Hooks over real [`ReferenceInput`]s: the artifact is the content's length
/// (as if it were an embedding), keyed by content identity.
struct LengthEncoder {
    encodes: AtomicUsize,
    /// Rewrites the file mid-encode, as an editor saving over it would.
    rewrite_during_encode: Option<(std::path::PathBuf, &'static [u8])>,
}

impl ReferenceEncodeHooks for LengthEncoder {
    type Input = ReferenceInput;
    type Artifact = usize;
    type Stored = usize;

    fn normalize_input(&self, input: ReferenceInput) -> Result<ReferenceInput> {
        Ok(input)
    }
    fn describe_input(&self, input: &ReferenceInput) -> String {
        input.describe()
    }
    fn cache_key(&self, input: &ReferenceInput) -> Option<ReferenceEncodeKey> {
        let content = input.content_identity().ok()??;
        Some(identity().key(content, "default"))
    }
    fn encode_one(&self, input: &ReferenceInput) -> Result<usize> {
        self.encodes.fetch_add(1, Ordering::SeqCst);
        let bytes = input.read_bytes()?;
        if let Some((path, new_bytes)) = &self.rewrite_during_encode {
            std::fs::write(path, new_bytes).unwrap();
        }
        Ok(bytes.len())
    }
    fn store_artifact(&self, _key: &ReferenceEncodeKey, artifact: usize) -> Result<StoredArtifact<usize>> {
        Ok(StoredArtifact { value: artifact, bytes: 8 })
    }
    fn load_artifact(&self, _key: &ReferenceEncodeKey, stored: &usize) -> Result<usize> {
        Ok(*stored)
    }
    fn revalidate(&self, input: &ReferenceInput, key: &ReferenceEncodeKey) -> bool {
        input.still_matches(&key.input_key)
    }
}

fn length_service(rewrite: Option<(std::path::PathBuf, &'static [u8])>) -> ReferenceEncodeService<LengthEncoder> {
    let hooks = LengthEncoder { encodes: AtomicUsize::new(0), rewrite_during_encode: rewrite };
    let config = ReferenceEncodeConfig { max_bytes: 1024, follower_timeout: Duration::from_secs(60) };
    ReferenceEncodeService::new(hooks, config).unwrap()
}

#[test]
fn a_local_file_rewritten_during_its_encode_is_not_cached() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ref.wav");
    std::fs::write(&path, b"first take").unwrap();
    let service = length_service(Some((path.clone(), b"second take, longer")));
    assert_eq!(service.encode(ReferenceInput::LocalFile(path)).unwrap(), 10);
    let stats = service.stats();
    assert_eq!((stats.entries, stats.revalidation_failures), (0, 1));
}

#[test]
fn the_same_clip_as_a_file_and_as_bytes_is_encoded_once() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ref.wav");
    std::fs::write(&path, b"one clip").unwrap();
    let service = length_service(None);
    service.encode(ReferenceInput::LocalFile(path)).unwrap();
    let bytes = ReferenceInput::Bytes { name: "upload".into(), bytes: Arc::from(&b"one clip"[..]) };
    assert_eq!(service.encode(bytes).unwrap(), 8);
    assert_eq!(service.hooks().encodes.load(Ordering::SeqCst), 1);
    assert_eq!(service.stats().hits, 1);
}

#[test]
fn a_remote_url_is_never_a_key_but_its_fetched_content_is() {
    let service = length_service(None);
    let url = "https://example.invalid/ref.wav";
    let message = service.encode(ReferenceInput::RemoteUrl(url.into())).unwrap_err().to_string();
    assert!(message.contains(url) && message.contains("fetched"), "{message}");
    assert_eq!(service.stats().uncacheable, 1);

    let fetched = || ReferenceInput::Fetched { url: url.into(), bytes: Arc::from(&b"abc"[..]) };
    service.encode(fetched()).unwrap();
    service.encode(fetched()).unwrap();
    let stats = service.stats();
    assert_eq!((stats.misses, stats.hits, stats.entries), (1, 1, 1));
}
