//! What the API measures and `GET /metrics` reports (Prometheus text):
//! requests by route, render-cache hits and hit rate, the rows API requests
//! are waiting for (queue depth), the batch sizes the scheduler formed (seen
//! by [`ObservedModel`], which wraps the model the scheduler calls), and the
//! time-to-first-audio and real-time-factor distributions of recent
//! requests.

use std::collections::{BTreeMap, VecDeque};
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use revoice_engine::cache::RenderCacheStats;
use revoice_engine::scheduler::SchedulerStats;

pub use revoice_engine::scheduler::{BatchSizes, ObservedModel};

/// The last few thousand values of a measurement.
#[derive(Debug, Default)]
pub struct Samples(Mutex<VecDeque<f64>>);

const KEPT: usize = 4096;

impl Samples {
    pub fn record(&self, value: f64) {
        let mut v = self.0.lock().expect("samples lock");
        if v.len() == KEPT {
            v.pop_front();
        }
        v.push_back(value);
    }

    /// `(count, quantile values)` for each of `quantiles`.
    pub fn quantiles(&self, quantiles: &[f64]) -> (usize, Vec<f64>) {
        let mut sorted: Vec<f64> = self.0.lock().expect("samples lock").iter().copied().collect();
        sorted.sort_by(f64::total_cmp);
        let values = quantiles.iter().map(|q| quantile(&sorted, *q)).collect();
        (sorted.len(), values)
    }
}

/// The `q` quantile of sorted values (nearest rank); NaN when empty.
pub fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

/// The API's counters.
#[derive(Debug, Default)]
pub struct Metrics {
    requests: Mutex<BTreeMap<&'static str, u64>>,
    /// Rows API requests have asked for and not yet received.
    pub queue_depth: AtomicI64,
    /// Non-streaming speech answered wholly from the render cache, or not.
    pub x_cache_hits: AtomicU64,
    pub x_cache_misses: AtomicU64,
    /// Seconds from a request's arrival to its first audio.
    pub ttfa: Samples,
    /// Seconds from submitting a request's rows to its last row, per audio
    /// second (queueing included: the real-time factor a client sees).
    pub rtf: Samples,
}

/// Rows a request is still waiting for; what is left is released when dropped.
pub struct Waiting {
    metrics: Arc<Metrics>,
    left: i64,
}

impl Waiting {
    /// One row arrived.
    pub fn arrived(&mut self) {
        if self.left > 0 {
            self.left -= 1;
            self.metrics.queue_depth.fetch_sub(1, Ordering::Relaxed);
        }
    }
}

impl Drop for Waiting {
    fn drop(&mut self) {
        self.metrics.queue_depth.fetch_sub(self.left, Ordering::Relaxed);
    }
}

impl Metrics {
    /// Counts a request to `route`.
    pub fn request(&self, route: &'static str) {
        *self.requests.lock().expect("requests lock").entry(route).or_default() += 1;
    }

    /// Marks `rows` as waited for.
    pub fn waiting(self: &Arc<Self>, rows: usize) -> Waiting {
        self.queue_depth.fetch_add(rows as i64, Ordering::Relaxed);
        Waiting { metrics: self.clone(), left: rows as i64 }
    }

    /// The Prometheus text of everything, with the engine's own counters.
    pub fn render(&self, cache: &RenderCacheStats, scheduler: &SchedulerStats, sizes: &BTreeMap<usize, u64>, remote: &RemoteMetrics) -> String {
        let mut out = String::new();
        let mut line = |s: String| {
            out.push_str(&s);
            out.push('\n');
        };
        line("# TYPE revoice_api_requests_total counter".into());
        for (route, n) in self.requests.lock().expect("requests lock").iter() {
            line(format!("revoice_api_requests_total{{route=\"{route}\"}} {n}"));
        }
        line("# TYPE revoice_render_cache_hits_total counter".into());
        line(format!("revoice_render_cache_hits_total {}", cache.hits));
        line(format!("revoice_render_cache_misses_total {}", cache.misses));
        line(format!("revoice_render_cache_hit_rate {:.4}", cache.hit_rate()));
        line(format!("revoice_render_cache_entries {}", cache.entries));
        line(format!("revoice_render_cache_bytes {}", cache.bytes));
        line(format!("revoice_speech_x_cache_hits_total {}", self.x_cache_hits.load(Ordering::Relaxed)));
        line(format!("revoice_speech_x_cache_misses_total {}", self.x_cache_misses.load(Ordering::Relaxed)));
        line(format!("revoice_queue_depth_rows {}", self.queue_depth.load(Ordering::Relaxed).max(0)));
        line(format!("revoice_scheduler_batches_total {}", scheduler.batches));
        line(format!("revoice_scheduler_rows_rendered_total {}", scheduler.rows_rendered));
        line(format!("revoice_scheduler_widest_batch {}", scheduler.widest_batch));
        line(format!("revoice_scheduler_rows_cancelled_total {}", scheduler.rows_cancelled));
        line(format!("revoice_scheduler_rows_discarded_total {}", scheduler.rows_discarded));
        line(format!("revoice_scheduler_retries_total {}", scheduler.retries));
        line("# TYPE revoice_scheduler_batch_size counter".into());
        for (width, n) in sizes {
            line(format!("revoice_scheduler_batch_size{{rows=\"{width}\"}} {n}"));
        }
        let qs = [0.5, 0.9, 0.95, 0.99];
        for (name, samples) in [("revoice_ttfa_seconds", &self.ttfa), ("revoice_rtf", &self.rtf)] {
            let (count, values) = samples.quantiles(&qs);
            line(format!("# TYPE {name} summary"));
            for (q, v) in qs.iter().zip(values) {
                line(format!("{name}{{quantile=\"{q}\"}} {v:.4}"));
            }
            line(format!("{name}_count {count}"));
        }
        // The remote engines' servers as this process found them when it rendered through them.
        line("# TYPE revoice_remote_server_up gauge".into());
        for engine in &remote.engines {
            for s in &engine.servers {
                let labels = format!("engine=\"{}\",server=\"{}\"", engine.name, s.url);
                line(format!("revoice_remote_server_up{{{labels}}} {}", u8::from(s.up)));
                line(format!("revoice_remote_server_in_flight_lines{{{labels}}} {}", s.in_flight));
                line(format!("revoice_remote_server_lines_total{{{labels}}} {}", s.lines_done));
                line(format!("revoice_remote_server_failures_total{{{labels}}} {}", s.failures));
                if let Some(ms) = s.ms_per_line {
                    line(format!("revoice_remote_server_seconds_per_line{{{labels}}} {:.4}", ms / 1000.0));
                }
            }
        }
        line(format!("revoice_remote_uploads_total {}", remote.uploads));
        out
    }
}

/// The remote engines' standing, for [`Metrics::render`].
#[derive(Debug, Default)]
pub struct RemoteMetrics {
    pub engines: Vec<revoice_engine::remote::EngineStatus>,
    /// Reference recordings uploaded by this process.
    pub uploads: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_remote_server_has_its_own_lines() {
        use revoice_engine::remote::{EngineStatus, ServerStatus};
        let server = |url: &str, up: bool| ServerStatus {
            url: url.into(),
            up,
            problem: None,
            last_fault: None,
            in_flight: 2,
            ms_per_line: Some(250.0),
            lines_done: 7,
            failures: u8::from(!up) as u64,
        };
        let remote = RemoteMetrics {
            engines: vec![EngineStatus { name: "fleet".into(), servers: vec![server("http://a:1", true), server("http://b:1", false)] }],
            uploads: 3,
        };
        let text = Metrics::default().render(&RenderCacheStats::default(), &SchedulerStats::default(), &BTreeMap::new(), &remote);
        assert!(text.contains("revoice_remote_server_up{engine=\"fleet\",server=\"http://b:1\"} 0"), "{text}");
        assert!(text.contains("revoice_remote_server_seconds_per_line{engine=\"fleet\",server=\"http://a:1\"} 0.2500"));
        assert!(text.contains("revoice_remote_uploads_total 3"));
    }

    #[test]
    fn quantiles_take_the_nearest_rank() {
        let s = Samples::default();
        for v in 1..=100 {
            s.record(v as f64);
        }
        let (n, q) = s.quantiles(&[0.5, 0.95, 1.0]);
        assert_eq!((n, q), (100, vec![50.0, 95.0, 100.0]));
        assert!(quantile(&[], 0.5).is_nan());
    }

    #[test]
    fn waiting_rows_are_released_even_when_a_request_stops_early() {
        let m = Arc::new(Metrics::default());
        {
            let mut w = m.waiting(3);
            w.arrived();
            assert_eq!(m.queue_depth.load(Ordering::Relaxed), 2);
        }
        assert_eq!(m.queue_depth.load(Ordering::Relaxed), 0);
    }
}
