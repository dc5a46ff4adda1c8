//! The renderer on the real model: rendering a script again renders only
//! the rows that changed; the rest come from the render cache unchanged.

use std::time::Duration;

use revoice_engine::cache::RenderCacheConfig;
use revoice_engine::scheduler::SchedulerConfig;
use revoice_engine::speech::render::Renderer;
use revoice_engine::speech::{SayRequest, Synthesizer};

#[test]
fn editing_one_line_of_a_script_renders_only_that_line() {
    let s = Synthesizer::load(&revoice_tests::installed_data_dir()).unwrap();
    let line = |text: &str| {
        let request = SayRequest { seed: Some(1), ..SayRequest::new(text.to_string(), "af_heart").unwrap() };
        s.prepare(&request).unwrap().remove(0).row
    };
    let mut script = vec![line("Where were you last night?"), line("At home, reading."), line("Alone?")];
    let cache = RenderCacheConfig { max_bytes: 64 << 20, ttl: Duration::from_secs(3600) };
    let renderer = Renderer::start(s.shared_model(), "kokoro-test", SchedulerConfig::fixed(2, Duration::from_millis(10), 1, false), cache).unwrap();

    let first = renderer.render(&script).unwrap();
    assert_eq!(renderer.scheduler_stats().rows_rendered, 3);

    let again = renderer.render(&script).unwrap();
    assert_eq!(renderer.scheduler_stats().rows_rendered, 3, "nothing changed, nothing rendered");
    assert_eq!(again, first);

    script[1] = line("At the office, working late.");
    let edited = renderer.render(&script).unwrap();
    assert_eq!(renderer.scheduler_stats().rows_rendered, 4, "one line changed, one line rendered");
    assert_eq!((&edited[0], &edited[2]), (&first[0], &first[2]));
    assert_ne!(edited[1], first[1]);
    let stats = renderer.cache_stats();
    assert_eq!((stats.hits, stats.misses), (5, 4), "{stats:?}");
}
