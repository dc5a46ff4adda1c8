//! The hot kernels, each beside a baseline measured in the same run: the
//! int8 convolution against candle's f32 conv1d on the same weights, on a
//! decoder-sized and a generator-sized input (the ratio is what int8 buys),
//! ALBERT's packed f32 and bf16 linears against candle's, the generator's fused
//! AdaIN + Snake against separate tensor operations, the shared LSTM,
//! Kokoro's STFT there and back, resampling, time-stretch and loudness
//! over ten seconds of speech-like audio (throughput in samples per second: over 24,000 is
//! faster than real time), and the text front end on a paragraph. Ends
//! with the peak resident memory.

use std::collections::HashMap;

use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use revoice_benches::{noise, print_memory, speech_like};
use revoice_engine::model::bf16_matmul;
use revoice_engine::model::kokoro::layers::AdaIn1d;
use revoice_engine::model::kokoro::norm_statistics::NormStatistics;
use revoice_engine::model::kokoro::packed_linear::PackedLinear;
use revoice_engine::model::kokoro::quantized_conv::{Int8Kernel, QuantizedConv};
use revoice_engine::model::kokoro::stft::Stft;
use revoice_engine::model::lstm::BiLstm;

/// Two of Kokoro's convolutions: a decoder one (512 → 512 channels, 3
/// taps, 400 frames) and a generator one at its last stage (128 → 128, 7
/// taps, 12,000 steps: 2.5 s of audio).
fn convolution(c: &mut Criterion) {
    for (channels, taps, frames, what) in [(512, 3, 400, "decoder"), (128, 7, 12_000, "generator")] {
        let weight = noise(channels * channels * taps, 1).iter().map(|w| w * 0.05).collect::<Vec<_>>();
        let x = noise(channels * frames, 2);
        let mut group = c.benchmark_group(format!("{what} conv1d {channels}x{channels}x{taps}, {frames} frames"));
        group.throughput(Throughput::Elements((channels * channels * taps * frames) as u64));
        let dev = Device::Cpu;
        let w = Tensor::from_vec(weight.clone(), (channels, channels, taps), &dev).unwrap();
        let input = Tensor::from_vec(x.clone(), (1, channels, frames), &dev).unwrap();
        let padding = (taps - 1) / 2;
        group.bench_function("f32 (candle, the baseline)", |b| b.iter(|| input.conv1d(&w, padding, 1, 1, 1).unwrap()));
        match Int8Kernel::detect() {
            Some(kernel) => {
                let conv = QuantizedConv::for_kernel(kernel, &weight, (channels, channels, taps), None, padding, 1);
                group.bench_function(format!("int8 ({})", kernel.describe()), |b| b.iter(|| conv.forward(&x, frames)));
            }
            None => println!("int8 convolution skipped: this CPU has neither AVX-512 VNNI nor AVX2"),
        }
        group.finish();
    }
}

/// ALBERT's feed-forward input layer: 768 → 2048 features, 80 tokens.
fn albert_linear(c: &mut Criterion) {
    let (inputs, outputs, tokens) = (768, 2048, 80);
    let weight = noise(outputs * inputs, 4).iter().map(|w| w * 0.05).collect::<Vec<_>>();
    let bias = noise(outputs, 5);
    let x = noise(tokens * inputs, 6);
    let mut group = c.benchmark_group("ALBERT linear 768→2048, 80 tokens");
    group.throughput(Throughput::Elements((inputs * outputs * tokens) as u64));
    let dev = Device::Cpu;
    let exact = candle_nn::Linear::new(
        Tensor::from_vec(weight.clone(), (outputs, inputs), &dev).unwrap(),
        Some(Tensor::from_vec(bias.clone(), outputs, &dev).unwrap()),
    );
    let input = Tensor::from_vec(x.clone(), (1, tokens, inputs), &dev).unwrap();
    group.bench_function("f32 (candle, the baseline)", |b| b.iter(|| candle_core::Module::forward(&exact, &input).unwrap()));
    if PackedLinear::supported() {
        let layer = PackedLinear::new(&weight, (outputs, inputs), &bias);
        group.bench_function("f32 packed (AVX-512, else AVX2)", |b| b.iter(|| layer.forward(&x, tokens)));
    } else {
        println!("packed linear skipped: this CPU has neither AVX-512 nor AVX2 + FMA");
    }
    if bf16_matmul::supported() {
        let packed = bf16_matmul::PackedRight::linear_weight(&weight, outputs, inputs);
        group.bench_function("bf16 products, f32 sums (AVX-512 BF16, what int8 models run)", |b| {
            b.iter(|| bf16_matmul::linear(&x, tokens, &packed, Some(&bias)))
        });
    } else {
        println!("bf16 linear skipped: this CPU has no AVX-512 BF16");
    }
    group.finish();
}

/// Kokoro's text-encoder LSTM: 512 inputs, 256 hidden each way, 120 tokens.
fn lstm(c: &mut Criterion) {
    let (input, hidden, steps) = (512, 256, 120);
    let dev = Device::Cpu;
    let mut weights = HashMap::new();
    for (n, suffix) in ["", "_reverse"].iter().enumerate() {
        let t = |len: usize, shape: (usize, usize), seed: u64| {
            Tensor::from_vec(noise(len, seed).iter().map(|v| v * 0.05).collect::<Vec<_>>(), shape, &dev).unwrap()
        };
        weights.insert(format!("weight_ih_l0{suffix}"), t(4 * hidden * input, (4 * hidden, input), 10 + n as u64));
        weights.insert(format!("weight_hh_l0{suffix}"), t(4 * hidden * hidden, (4 * hidden, hidden), 20 + n as u64));
        weights.insert(format!("bias_ih_l0{suffix}"), Tensor::zeros(4 * hidden, DType::F32, &dev).unwrap());
        weights.insert(format!("bias_hh_l0{suffix}"), Tensor::zeros(4 * hidden, DType::F32, &dev).unwrap());
    }
    let layer = BiLstm::new(VarBuilder::from_tensors(weights, DType::F32, &dev)).unwrap();
    let x = Tensor::from_vec(noise(steps * input, 3), (1, steps, input), &dev).unwrap();
    let mut group = c.benchmark_group("shared LSTM");
    group.throughput(Throughput::Elements(steps as u64));
    group.bench_function(BenchmarkId::new("bidirectional 512→2×256, steps", steps), |b| b.iter(|| layer.forward(&x, &[steps]).unwrap()));
    group.finish();
}

/// The generator's AdaIN + Snake on a stage-two activation (128 channels,
/// five seconds at 4,800 steps a second): the fused two-pass kernel
/// against the same arithmetic as separate tensor operations.
fn adain_snake(c: &mut Criterion) {
    let (channels, steps, style_dim) = (128, 24_000, 128);
    let dev = Device::Cpu;
    let tensor = |values: Vec<f32>, shape: &[usize]| Tensor::from_vec(values, shape, &dev).unwrap();
    let mut weights = HashMap::new();
    weights.insert("fc.weight".to_string(), tensor(noise(2 * channels * style_dim, 5).iter().map(|v| v * 0.05).collect(), &[2 * channels, style_dim]));
    weights.insert("fc.bias".to_string(), tensor(noise(2 * channels, 6), &[2 * channels]));
    let adain = AdaIn1d::new(VarBuilder::from_tensors(weights, DType::F32, &dev)).unwrap();
    let style = tensor(noise(style_dim, 7), &[1, style_dim]);
    let x = tensor(noise(channels * steps, 8), &[1, channels, steps]);
    let alpha: Vec<f32> = noise(channels, 9).iter().map(|v| 1.0 + 0.5 * v).collect();
    let alpha_column = tensor(alpha.clone(), &[1, channels, 1]);
    let mut group = c.benchmark_group("AdaIN + Snake, 128 channels x 24,000 steps");
    group.throughput(Throughput::Elements((channels * steps) as u64));
    group.bench_function("tensor ops (the baseline)", |b| {
        b.iter(|| {
            let y = adain.forward(&x, &style).unwrap();
            let s = y.broadcast_mul(&alpha_column).unwrap().sin().unwrap().sqr().unwrap();
            (y + s.broadcast_div(&alpha_column).unwrap()).unwrap()
        })
    });
    group.bench_function("fused", |b| b.iter(|| adain.forward_snake(&x, &style, &alpha, &mut NormStatistics::Own).unwrap()));
    group.finish();
}

/// Ten seconds through the STFT and back, resampled, stretched and measured.
fn audio(c: &mut Criterion) {
    let ten_seconds = speech_like(240_000);
    let mut group = c.benchmark_group("10 s of audio");
    group.throughput(Throughput::Elements(ten_seconds.len() as u64));
    group.bench_function("copy (the baseline)", |b| b.iter(|| ten_seconds.clone()));
    let stft = Stft::new(20, 5);
    group.bench_function("Kokoro STFT there and back", |b| {
        b.iter(|| {
            let (magnitude, phase, frames) = stft.forward(&ten_seconds);
            stft.inverse(&magnitude, &phase, frames)
        })
    });
    group.bench_function("resample 24 kHz → 44.1 kHz", |b| b.iter(|| revoice_engine::audio::resample::resample(&ten_seconds, 24_000, 44_100).unwrap()));
    group.bench_function("stretch ×1.25 (WSOLA)", |b| b.iter(|| revoice_engine::audio::stretch::stretch(&ten_seconds, 24_000, 1.25)));
    group.bench_function("integrated loudness (EBU R128)", |b| b.iter(|| revoice_engine::audio::loudness::integrated_lufs(&ten_seconds, 1, 24_000).unwrap()));
    group.finish();
}

/// A paragraph through the text front end: sentences, G2P, tokens, styles.
fn front_end(c: &mut Criterion) {
    let front = revoice_engine::testing::scripted_front_end();
    let text = "The boats came in at dusk, one after another, low in the water. Maya counted them twice. \
                Theo lit the lamp on the harbour wall, and for a while nobody said anything at all.";
    let request = revoice_engine::speech::SayRequest::new(text, "af_heart").unwrap();
    let mut group = c.benchmark_group("text front end");
    group.throughput(Throughput::Elements(text.chars().count() as u64));
    group.bench_function("a paragraph (chars)", |b| b.iter(|| front.prepare(&request).unwrap()));
    group.finish();
    print_memory("kernels");
}

criterion_group!(kernels, convolution, albert_linear, adain_snake, lstm, audio, front_end);
criterion_main!(kernels);
