//! The caches under many threads: mixed keys, injected encode failures,
//! impatient followers that give up (the engine's cancellations), an
//! oversized artifact, uncacheable and rejected inputs. Each test checks that
//! the statistics add up, that the byte budget holds at every observation,
//! and that the workload finishes: it runs on its own thread and the test
//! panics if it has not finished within a generous limit (a deadlock), which
//! is a liveness check, not a speed check.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::thread;
use std::time::Duration;

use revoice_core::{Error, Result};
use revoice_speech::cache::{
    EncoderIdentity, ReferenceEncodeConfig, ReferenceEncodeHooks, ReferenceEncodeKey, ReferenceEncodeService, ReferenceEncodeStats, RenderCache,
    RenderCacheConfig, RenderKeyBuilder, StoredArtifact,
};

const THREADS: usize = 16;
const REQUESTS_PER_THREAD: usize = 200;
const KEYS: u32 = 12;
const OVERSIZED_KEY: u32 = 11;
const MAX_BYTES: usize = 1_500;
const DEADLOCK_LIMIT: Duration = Duration::from_secs(300);

/// Runs `work` on its own thread; panics if it has not finished in `DEADLOCK_LIMIT`.
fn finishes<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> T {
    let (done, finished) = mpsc::channel();
    let worker = thread::spawn(move || {
        let _ = done.send(work());
    });
    match finished.recv_timeout(DEADLOCK_LIMIT) {
        Ok(result) => {
            worker.join().unwrap();
            result
        }
        Err(mpsc::RecvTimeoutError::Timeout) => panic!("the workload did not finish: deadlock?"),
        Err(mpsc::RecvTimeoutError::Disconnected) => std::panic::resume_unwind(worker.join().unwrap_err()),
    }
}

/// A small deterministic generator (xorshift), one per thread.
struct Dice(u64);

impl Dice {
    fn roll(&mut self, sides: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % sides
    }
}

#[derive(Clone, Copy)]
struct Request {
    key: u32,
    cacheable: bool,
    valid: bool,
    fails: bool,
    encode_micros: u64,
}

fn artifact_bytes(key: u32) -> usize {
    if key == OVERSIZED_KEY {
        MAX_BYTES + 1
    } else {
        100 + 50 * key as usize
    }
}

#[derive(Default)]
struct FlakyEncoder {
    encodes: AtomicU64,
    failed_encodes: AtomicU64,
}

impl ReferenceEncodeHooks for FlakyEncoder {
    type Input = Request;
    type Artifact = Arc<Vec<u8>>;
    type Stored = Arc<Vec<u8>>;

    fn normalize_input(&self, input: Request) -> Result<Request> {
        if !input.valid {
            return Err(Error::InvalidInput { input: format!("clip-{}", input.key), reason: "not audio".into() });
        }
        Ok(input)
    }
    fn describe_input(&self, input: &Request) -> String {
        format!("clip-{}", input.key)
    }
    fn cache_key(&self, input: &Request) -> Option<ReferenceEncodeKey> {
        let identity = EncoderIdentity {
            model_id: "kokoro-82m-v1.0".into(),
            model_revision: "r1".into(),
            encoder_id: "flaky".into(),
            encoder_config_hash: "c0".into(),
            artifact_kind: "style-vector".into(),
        };
        input.cacheable.then(|| identity.key(format!("clip-{}", input.key), "default"))
    }
    fn encode_one(&self, input: &Request) -> Result<Arc<Vec<u8>>> {
        self.encodes.fetch_add(1, Ordering::SeqCst);
        thread::sleep(Duration::from_micros(input.encode_micros));
        if input.fails {
            self.failed_encodes.fetch_add(1, Ordering::SeqCst);
            return Err(Error::InvalidInput { input: format!("clip-{}", input.key), reason: "injected failure".into() });
        }
        Ok(Arc::new(vec![input.key as u8; artifact_bytes(input.key)]))
    }
    fn store_artifact(&self, _key: &ReferenceEncodeKey, artifact: Arc<Vec<u8>>) -> Result<StoredArtifact<Arc<Vec<u8>>>> {
        Ok(StoredArtifact { bytes: artifact.len(), value: artifact })
    }
    fn load_artifact(&self, _key: &ReferenceEncodeKey, stored: &Arc<Vec<u8>>) -> Result<Arc<Vec<u8>>> {
        Ok(Arc::clone(stored))
    }
    fn revalidate(&self, _input: &Request, _key: &ReferenceEncodeKey) -> bool {
        true
    }
}

#[derive(Default, Debug)]
struct Outcomes {
    ok: u64,
    rejected: u64,
    failed: u64,
    timed_out: u64,
}

#[test]
fn sixteen_threads_with_mixed_keys_failures_and_impatient_followers_keep_the_books_straight() {
    let (stats, outcomes, encodes, failed_encodes) = finishes(|| {
        let config = ReferenceEncodeConfig { max_bytes: MAX_BYTES, follower_timeout: Duration::from_secs(120) };
        let service = Arc::new(ReferenceEncodeService::new(FlakyEncoder::default(), config).unwrap());
        let stop = Arc::new(AtomicBool::new(false));

        let observer = {
            let (service, stop) = (Arc::clone(&service), Arc::clone(&stop));
            thread::spawn(move || {
                let mut observations = 0u64;
                while !stop.load(Ordering::SeqCst) {
                    let stats = service.stats();
                    assert!(stats.bytes <= stats.max_bytes, "over budget: {stats:?}");
                    assert!(stats.entries <= KEYS as usize);
                    observations += 1;
                    thread::yield_now();
                }
                observations
            })
        };

        let workers: Vec<_> = (0..THREADS)
            .map(|t| {
                let service = Arc::clone(&service);
                thread::spawn(move || {
                    let mut dice = Dice(0x9E37_79B9_7F4A_7C15 ^ ((t as u64 + 1) * 0x2545_F491));
                    let mut outcomes = Outcomes::default();
                    for _ in 0..REQUESTS_PER_THREAD {
                        let request = Request {
                            key: dice.roll(KEYS as u64) as u32,
                            cacheable: dice.roll(10) != 0,
                            valid: dice.roll(50) != 0,
                            fails: dice.roll(8) == 0,
                            encode_micros: dice.roll(2_000),
                        };
                        let impatient = dice.roll(4) == 0;
                        let result = if impatient { service.encode_waiting_at_most(request, Duration::from_micros(100)) } else { service.encode(request) };
                        match result {
                            Ok(artifact) => {
                                assert_eq!(artifact.len(), artifact_bytes(request.key));
                                assert!(artifact.iter().all(|b| *b == request.key as u8));
                                outcomes.ok += 1;
                            }
                            Err(e) => {
                                let message = e.to_string();
                                assert!(message.contains(&format!("clip-{}", request.key)), "{message}");
                                if message.contains("not audio") {
                                    outcomes.rejected += 1;
                                } else if message.contains("timed out") {
                                    outcomes.timed_out += 1;
                                } else {
                                    assert!(message.contains("injected failure"), "{message}");
                                    outcomes.failed += 1;
                                }
                            }
                        }
                    }
                    outcomes
                })
            })
            .collect();

        let mut total = Outcomes::default();
        for worker in workers {
            let o = worker.join().unwrap();
            total.ok += o.ok;
            total.rejected += o.rejected;
            total.failed += o.failed;
            total.timed_out += o.timed_out;
        }
        stop.store(true, Ordering::SeqCst);
        assert!(observer.join().unwrap() > 0);
        let hooks = service.hooks();
        (service.stats(), total, hooks.encodes.load(Ordering::SeqCst), hooks.failed_encodes.load(Ordering::SeqCst))
    });

    let requests = (THREADS * REQUESTS_PER_THREAD) as u64;
    let ReferenceEncodeStats { hits, misses, merged, uncacheable, rejected, failed, .. } = stats;
    println!("{stats:#?}\n{outcomes:?}");

    assert_eq!(hits + misses + merged + uncacheable + rejected, requests, "every request counted once");
    assert_eq!(outcomes.ok + outcomes.rejected + outcomes.failed + outcomes.timed_out, requests);
    assert_eq!(rejected, outcomes.rejected);
    assert_eq!(stats.follower_timeouts, outcomes.timed_out);
    assert_eq!(misses + uncacheable, encodes, "one encode per leader or uncacheable request");
    assert_eq!(failed, failed_encodes, "every failed encode counted");
    assert!(stats.follower_timeouts <= merged);
    assert_eq!(stats.in_flight, 0, "no flight left behind");
    assert!(stats.bytes <= stats.max_bytes);
    assert!(stats.skipped_oversized > 0, "the oversized clip was encoded and never stored");
    assert!(stats.evictions > 0, "the budget was tight enough to evict");
    assert!(hits > 0 && merged > 0 && failed > 0 && outcomes.timed_out > 0, "the mix exercised every path");
}

#[test]
fn sixteen_threads_on_the_render_cache_stay_within_budget_and_count_every_lookup() {
    const RENDER_BUDGET: usize = 4_000;
    let (stats, lookups) = finishes(|| {
        let config = RenderCacheConfig { max_bytes: RENDER_BUDGET, ttl: Duration::from_secs(3_600) };
        let mut cache = RenderCache::new(config).unwrap();
        cache.start_sweeper(Duration::from_millis(1)).unwrap();
        let cache = Arc::new(cache);
        let lookups = Arc::new(Mutex::new(HashMap::<usize, u64>::new()));

        let workers: Vec<_> = (0..THREADS)
            .map(|t| {
                let (cache, lookups) = (Arc::clone(&cache), Arc::clone(&lookups));
                thread::spawn(move || {
                    let mut dice = Dice(0xD1B5_4A32_D192_ED03 ^ ((t as u64 + 1) * 0x9E37_79B9));
                    let mut mine = 0u64;
                    for _ in 0..REQUESTS_PER_THREAD {
                        let line = dice.roll(20) as usize;
                        let key = RenderKeyBuilder::new("stress/v1").param("line", line).build();
                        mine += 1;
                        match cache.get(&key) {
                            Some(audio) => assert!(audio.iter().all(|b| *b == line as u8)),
                            None => {
                                // Line 19 renders larger than the whole budget.
                                let size = if line == 19 { RENDER_BUDGET + 1 } else { 200 + 20 * line };
                                cache.insert(key, vec![line as u8; size]);
                            }
                        }
                        let stats = cache.stats();
                        assert!(stats.bytes <= stats.max_bytes, "over budget: {stats:?}");
                        if dice.roll(100) == 0 {
                            cache.sweep();
                        }
                    }
                    *lookups.lock().unwrap().entry(t).or_default() += mine;
                })
            })
            .collect();
        for worker in workers {
            worker.join().unwrap();
        }
        let lookups: u64 = lookups.lock().unwrap().values().sum();
        let stats = cache.stats();
        (stats, lookups)
    });

    assert_eq!(stats.hits + stats.misses, lookups, "every lookup counted once");
    assert!(stats.bytes <= stats.max_bytes);
    assert!(stats.skipped_oversized > 0);
    assert!(stats.evictions > 0);
    assert_eq!(stats.expired, 0, "nothing outlived an hour's TTL");
}
