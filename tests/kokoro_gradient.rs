//! The differentiable decoder and generator (`kokoro::differentiable`) on
//! the real weights: its audio is the render path's (f32 both), and the
//! gradient it gives a timbre is the one the audio's change shows.

use candle_core::{Tensor, Var};
use revoice_engine::model::assets;
use revoice_engine::model::kokoro::config::Config;
use revoice_engine::model::kokoro::differentiable::DifferentiableVoice;
use revoice_engine::model::kokoro::{Precision, WEIGHTS_FILE};
use revoice_engine::model::spectral_distance::SpectralTarget;
use revoice_engine::model::speech::{SpeechModel, SpeechRow};
use revoice_engine::speech::{SayRequest, Synthesizer};

fn row(s: &Synthesizer, text: &str, voice: &str) -> SpeechRow {
    let mut lines = s.prepare(&SayRequest::new(text, voice).unwrap()).unwrap();
    lines.remove(0).row
}

#[test]
fn the_differentiable_voice_says_what_the_render_path_says() {
    let dir = revoice_tests::installed_data_dir();
    let s = Synthesizer::load_in(&dir, Precision::F32).unwrap();
    let voice = DifferentiableVoice::load(&assets::KOKORO.dir(&dir).join(WEIGHTS_FILE), &Config::v1_0()).unwrap();
    let row = row(&s, "Where did I put my keys?", "af_heart");
    let rendered = s.model().generate(std::slice::from_ref(&row)).remove(0).unwrap().samples;
    let voicing = s.model().voicing(&row).unwrap();
    let timbre = Tensor::from_slice(&row.style[..128], (1, 128), &candle_core::Device::Cpu).unwrap();
    let started = std::time::Instant::now();
    let audio = voice.audio(&voicing, &timbre).unwrap().to_vec1::<f32>().unwrap();
    eprintln!("forward {:.2} s for {:.2} s of audio", started.elapsed().as_secs_f64(), audio.len() as f64 / 24_000.0);
    assert_eq!(audio.len(), rendered.len());
    let peak = rendered.iter().fold(0f32, |m, v| m.max(v.abs()));
    let worst = audio.iter().zip(&rendered).map(|(a, b)| (a - b).abs()).fold(0f32, f32::max);
    eprintln!("largest difference {worst:.2e} of a {peak:.2} peak");
    assert!(worst < 1e-3 * peak, "{worst:.2e} of {peak:.2}");
}

#[test]
fn a_timbres_gradient_predicts_how_its_audio_changes() {
    revoice_engine::allocator::keep_freed_memory_for_reuse();
    let dir = revoice_tests::installed_data_dir();
    let s = Synthesizer::load_in(&dir, Precision::F32).unwrap();
    let voice = DifferentiableVoice::load(&assets::KOKORO.dir(&dir).join(WEIGHTS_FILE), &Config::v1_0()).unwrap();
    let row = row(&s, "Good morning.", "bm_george");
    let voicing = s.model().voicing(&row).unwrap();
    let dev = candle_core::Device::Cpu;
    let timbre = Var::from_tensor(&Tensor::from_slice(&row.style[..128], (1, 128), &dev).unwrap()).unwrap();
    // Loudness as the loss: a smooth function of the whole pass.
    let loss = |t: &Tensor| voice.audio(&voicing, t).unwrap().sqr().unwrap().mean_all().unwrap();
    let started = std::time::Instant::now();
    let l = loss(timbre.as_tensor());
    let grads = l.backward().unwrap();
    eprintln!("forward and backward {:.2} s", started.elapsed().as_secs_f64());
    let g = grads.get(timbre.as_tensor()).expect("the timbre has a gradient").flatten_all().unwrap().to_vec1::<f32>().unwrap();
    let norm = g.iter().map(|v| v * v).sum::<f32>().sqrt();
    assert!(norm > 0.0 && norm.is_finite(), "{norm}");
    // A small step along the gradient changes the loss by about step × |g|².
    let step = 1e-3 / norm;
    let moved: Vec<f32> = row.style[..128].iter().zip(&g).map(|(t, g)| t + step * g).collect();
    let after = loss(&Tensor::from_slice(&moved, (1, 128), &dev).unwrap()).to_scalar::<f32>().unwrap();
    let before = l.to_scalar::<f32>().unwrap();
    let predicted = step * norm * norm;
    eprintln!("loss {before:.6e} → {after:.6e}: change {:.3e}, predicted {predicted:.3e}", after - before);
    assert!(((after - before) - predicted).abs() < 0.2 * predicted.abs(), "change {} against {predicted}", after - before);
}

#[test]
fn steps_down_the_timbres_gradient_bring_a_voice_nearer_another_saying_the_same_words() {
    revoice_engine::allocator::keep_freed_memory_for_reuse();
    let dir = revoice_tests::installed_data_dir();
    let s = Synthesizer::load(&dir).unwrap();
    let voice = DifferentiableVoice::load(&assets::KOKORO.dir(&dir).join(WEIGHTS_FILE), &Config::v1_0()).unwrap();
    let text = "The lake had frozen at the edges by morning.";
    // The "recording": another voice saying the words.
    let recording = s.model().generate(&[row(&s, text, "am_michael")]).remove(0).unwrap().samples;
    let target = SpectralTarget::new(&recording, 24_000, 10_800.0).unwrap().expect("the recording has sound");
    let start = row(&s, text, "af_sky");
    let mut offset = vec![0f32; 128];
    let mut distances = Vec::new();
    for _ in 0..4 {
        let mut moved = start.clone();
        moved.style[..128].iter_mut().zip(&offset).for_each(|(v, o)| *v += o);
        let (distance, gradient) = voice.timbre_gradient(s.model(), std::slice::from_ref(&moved), &target).unwrap().expect("a gradient");
        distances.push(distance);
        // A plain step along the gradient's sign, 0.02 a column (Adam's first steps).
        offset.iter_mut().zip(&gradient).for_each(|(o, g)| *o -= 0.02 * g.signum());
    }
    eprintln!("distance to am_michael's words, step by step: {distances:?}");
    assert!(distances.windows(2).all(|w| w[1] < w[0]), "{distances:?}");
}
