//! A line's reading: what a Kokoro pass works out before the timbre half of
//! the style has a say (the speed, each token's frames, the pitch and
//! energy curves, the text aligned to frames). It depends only on the
//! tokens, the prosody half of the style and the pace, so lines that differ
//! in timbre alone (a voice fit's candidates reading the same probe
//! sentence) can share one. The model keeps its latest readings in a cache
//! bounded in bytes; a reading found there is the one a fresh pass would
//! compute, so sharing never changes a line's audio.

use std::sync::{Arc, Mutex};

use candle_core::Tensor;
use lru::LruCache;

/// The bytes the model's cache of readings may hold: about 60 readings of
/// a short sentence, or six of the longest line one pass takes.
pub const READING_CACHE_BYTES: usize = 16 << 20;

/// What the decoder and generator need from the stages before them.
pub struct Reading {
    /// The speed the pass reads at (chosen from the durations when the
    /// pass had a target length).
    pub speed: f32,
    /// Frames per token.
    pub durations: Vec<usize>,
    /// Pitch and energy curves, `[1, 2 × frames]` each.
    pub f0: Tensor,
    pub n: Tensor,
    /// The text encoder's output aligned to frames, `[1, channels, frames]`.
    pub asr: Tensor,
}

impl Reading {
    fn bytes(&self) -> usize {
        let tensor = |t: &Tensor| t.elem_count() * t.dtype().size_in_bytes();
        tensor(&self.f0) + tensor(&self.n) + tensor(&self.asr) + self.durations.len() * std::mem::size_of::<usize>()
    }
}

/// What a reading depends on: the tokens, the prosody half of the style
/// (by bit pattern) and the pace (a speed or a target length, by bit
/// pattern).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ReadingKey {
    tokens: Vec<u32>,
    prosody: Vec<u32>,
    pace: (bool, u32),
}

impl ReadingKey {
    /// The key of `tokens` read with the `prosody` half of a style, at a
    /// speed or (`target_length`) at whatever speed lasts that long.
    pub fn new(tokens: &[u32], prosody: &[f32], target_length: bool, pace: f32) -> ReadingKey {
        ReadingKey { tokens: tokens.to_vec(), prosody: prosody.iter().map(|v| v.to_bits()).collect(), pace: (target_length, pace.to_bits()) }
    }

    fn bytes(&self) -> usize {
        (self.tokens.len() + self.prosody.len()) * 4
    }
}

/// The latest readings, least recently used dropped first, never holding
/// more than its budget.
pub struct ReadingCache {
    budget: usize,
    held: Mutex<Held>,
}

/// The readings, each with its size, and their total in bytes.
struct Held {
    readings: LruCache<ReadingKey, (Arc<Reading>, usize)>,
    bytes: usize,
}

impl ReadingCache {
    /// A cache holding at most `budget` bytes of readings and their keys.
    pub fn new(budget: usize) -> ReadingCache {
        ReadingCache { budget, held: Mutex::new(Held { readings: LruCache::unbounded(), bytes: 0 }) }
    }

    /// The reading of `key`, if the cache holds it.
    pub fn get(&self, key: &ReadingKey) -> Option<Arc<Reading>> {
        self.held().readings.get(key).map(|(reading, _)| reading.clone())
    }

    /// Keeps `reading` as `key`'s, dropping the least recently used until
    /// the cache is within its budget (a reading larger than the whole
    /// budget is not kept).
    pub fn insert(&self, key: ReadingKey, reading: Arc<Reading>) {
        let size = key.bytes() + reading.bytes();
        if size > self.budget {
            return;
        }
        let mut held = self.held();
        if let Some((_, (_, old))) = held.readings.push(key, (reading, size)) {
            held.bytes -= old;
        }
        held.bytes += size;
        while held.bytes > self.budget {
            match held.readings.pop_lru() {
                Some((_, (_, dropped))) => held.bytes -= dropped,
                None => break,
            }
        }
    }

    fn held(&self) -> std::sync::MutexGuard<'_, Held> {
        self.held.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Drops every reading (a bench's cold passes start from none).
    pub fn clear(&self) {
        let mut held = self.held();
        held.readings.clear();
        held.bytes = 0;
    }

    /// Bytes held now.
    pub fn bytes(&self) -> usize {
        self.held().bytes
    }

    /// Readings held now.
    pub fn len(&self) -> usize {
        self.held().readings.len()
    }

    /// Whether it holds no reading.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::Device;

    fn reading(frames: usize) -> Arc<Reading> {
        let zeros = |shape: (usize, usize, usize)| Tensor::zeros(shape, candle_core::DType::F32, &Device::Cpu).unwrap();
        Arc::new(Reading {
            speed: 1.0,
            durations: vec![frames],
            f0: zeros((1, 1, 2 * frames)).squeeze(0).unwrap(),
            n: zeros((1, 1, 2 * frames)).squeeze(0).unwrap(),
            asr: zeros((1, 512, frames)),
        })
    }

    fn key(token: u32) -> ReadingKey {
        ReadingKey::new(&[0, token, 0], &[0.5; 128], false, 1.0)
    }

    #[test]
    fn it_keeps_the_latest_readings_within_its_budget() {
        let size = key(1).bytes() + reading(100).bytes();
        let cache = ReadingCache::new(3 * size);
        for token in 1..=5 {
            cache.insert(key(token), reading(100));
            assert!(cache.bytes() <= 3 * size);
        }
        assert_eq!((cache.len(), cache.bytes()), (3, 3 * size));
        assert!(cache.get(&key(1)).is_none() && cache.get(&key(2)).is_none(), "the oldest went first");
        assert!(cache.get(&key(3)).is_some());
        // Reading 3 was just used, so 4 goes next.
        cache.insert(key(6), reading(100));
        assert!(cache.get(&key(4)).is_none() && cache.get(&key(3)).is_some());
        // The same key again replaces its reading without counting it twice.
        cache.insert(key(6), reading(100));
        assert_eq!(cache.bytes(), 3 * size);
        // A reading bigger than the budget is not kept, and drops nothing.
        cache.insert(key(7), reading(1000));
        assert!(cache.get(&key(7)).is_none());
        assert_eq!(cache.len(), 3);
    }

    #[test]
    fn a_key_tells_apart_tokens_prosody_and_pace() {
        let base = ReadingKey::new(&[0, 5, 0], &[0.5; 128], false, 1.0);
        assert_eq!(base, ReadingKey::new(&[0, 5, 0], &[0.5; 128], false, 1.0));
        assert_ne!(base, ReadingKey::new(&[0, 6, 0], &[0.5; 128], false, 1.0));
        let mut prosody = [0.5; 128];
        prosody[127] = 0.500001;
        assert_ne!(base, ReadingKey::new(&[0, 5, 0], &prosody, false, 1.0));
        assert_ne!(base, ReadingKey::new(&[0, 5, 0], &[0.5; 128], false, 1.1));
        assert_ne!(base, ReadingKey::new(&[0, 5, 0], &[0.5; 128], true, 1.0));
    }
}
