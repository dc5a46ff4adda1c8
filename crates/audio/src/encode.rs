//! Writing finished audio to files a person takes away: WAV (hound; 16- or
//! 24-bit PCM, or 32-bit float), FLAC (flacenc, pure Rust; 16 or 24 bits) and MP3
//! (LAME through `mp3lame-encoder`, constant bit rate, behind the `mp3`
//! cargo feature, which is on by default; a build without it answers an
//! MP3 request with "MP3 export unavailable in this build").
//!
//! Input is interleaved f32 frames ([`Pcm`]), mono or stereo, nominally in
//! `[-1, 1]`: integer formats clip outside it and round to the nearest
//! step (no dither, so the same mix always gives the same file); float WAV
//! keeps the values; non-finite samples are written as silence.
//!
//! Every write is atomic: the file is written to a temporary file in the
//! destination folder, synced, and renamed over the destination, so a
//! crash or a full disk leaves the old file or none, never half a file.
//! Errors name the destination and the reason (the OS's own words for a
//! full disk or a missing folder). Progress goes to a callback as a
//! fraction (0 to 1, non-decreasing, 1 last).
//!
//! MP3 carries a LAME/Info tag with the encoder delay and padding, so a
//! gapless decoder (symphonia, which `audio::decode` uses, is one) gives
//! back exactly the samples written; decoders that ignore the tag see up to
//! about 1.2k samples of extra silence at the start and less than one
//! 1152-sample frame at the end. MP3 exists only at 8–48 kHz: other input
//! rates are resampled by LAME to the nearest MP3 rate above (48 kHz at
//! most), and the bit rate is limited to what the MPEG version at that
//! rate allows (160 kbit/s at 16–24 kHz, 64 kbit/s under 16 kHz).

use std::io::{BufWriter, Seek, Write};
use std::path::Path;

use serde::{Deserialize, Serialize};

use revoice_core::error::{Error, Result, ResultExt};

/// Interleaved audio frames to write.
#[derive(Debug, Clone, Copy)]
pub struct Pcm<'a> {
    /// Samples, frame by frame (`L R L R …` for stereo).
    pub samples: &'a [f32],
    /// 1 (mono) or 2 (stereo).
    pub channels: u16,
    /// Frames per second.
    pub sample_rate: u32,
}

impl<'a> Pcm<'a> {
    /// One channel of `samples`.
    pub fn mono(samples: &'a [f32], sample_rate: u32) -> Self {
        Pcm { samples, channels: 1, sample_rate }
    }

    /// Frames (samples per channel).
    pub fn frames(&self) -> usize {
        self.samples.len() / self.channels.max(1) as usize
    }

    /// Length in seconds.
    pub fn seconds(&self) -> f64 {
        self.frames() as f64 / self.sample_rate.max(1) as f64
    }
}

/// A file format and its sample encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Encoding {
    /// WAV, 16-bit integer PCM.
    WavPcm16,
    /// WAV, 24-bit integer PCM (the delivery depth of post houses).
    WavPcm24,
    /// WAV, 32-bit IEEE float.
    WavFloat32,
    /// FLAC, 16 bits per sample.
    Flac16,
    /// FLAC, 24 bits per sample.
    Flac24,
    /// MP3, constant bit rate (kbit/s; limited to what the rate allows).
    Mp3 { bitrate_kbps: u16 },
}

impl Encoding {
    /// The file name extension, without the dot.
    pub fn extension(self) -> &'static str {
        match self {
            Encoding::WavPcm16 | Encoding::WavPcm24 | Encoding::WavFloat32 => "wav",
            Encoding::Flac16 | Encoding::Flac24 => "flac",
            Encoding::Mp3 { .. } => "mp3",
        }
    }
}

/// Writes `pcm` to `path` in `encoding`, atomically, reporting progress
/// (0 to 1) through `progress`.
pub fn write_audio(path: &Path, pcm: Pcm<'_>, encoding: Encoding, progress: &mut dyn FnMut(f32)) -> Result<()> {
    check(path, &pcm)?;
    progress(0.0);
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    check_free_space(path, dir, &pcm, encoding)?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir)
        .map_err(|e| Error::io("create a temporary file in", dir, e))
        .context(|| format!("cannot write {}", path.display()))?;
    let written = match encoding {
        Encoding::WavPcm16 => write_wav(tmp.as_file_mut(), path, pcm, WavSamples::Int(16), progress),
        Encoding::WavPcm24 => write_wav(tmp.as_file_mut(), path, pcm, WavSamples::Int(24), progress),
        Encoding::WavFloat32 => write_wav(tmp.as_file_mut(), path, pcm, WavSamples::Float, progress),
        Encoding::Flac16 => write_flac(tmp.as_file_mut(), path, pcm, 16, progress),
        Encoding::Flac24 => write_flac(tmp.as_file_mut(), path, pcm, 24, progress),
        Encoding::Mp3 { bitrate_kbps } => write_mp3(tmp.as_file_mut(), path, pcm, bitrate_kbps, progress),
    };
    written.and_then(|_| tmp.as_file().sync_all().map_err(|e| Error::io("write", path, e))).and_then(|_| revoice_core::fsutil::persist(tmp, path))?;
    progress(1.0);
    Ok(())
}

fn invalid(path: &Path, reason: impl Into<String>) -> Error {
    Error::InvalidInput { input: path.display().to_string(), reason: reason.into() }
}

fn check(path: &Path, pcm: &Pcm<'_>) -> Result<()> {
    if !(1..=2).contains(&pcm.channels) {
        return Err(invalid(path, format!("cannot write {} channels (mono or stereo only)", pcm.channels)));
    }
    if pcm.sample_rate == 0 {
        return Err(invalid(path, "cannot write audio at 0 Hz"));
    }
    if !pcm.samples.len().is_multiple_of(pcm.channels as usize) {
        return Err(invalid(path, format!("{} samples do not make whole stereo frames", pcm.samples.len())));
    }
    if pcm.samples.is_empty() {
        return Err(invalid(path, "nothing to write: the audio is empty"));
    }
    Ok(())
}

/// Refuses a write that cannot fit, before a long encode: WAV sizes are
/// exact and MP3 sizes follow from the bit rate; FLAC's are not known.
fn check_free_space(path: &Path, dir: &Path, pcm: &Pcm<'_>, encoding: Encoding) -> Result<()> {
    let needed = match encoding {
        Encoding::WavPcm16 => 44 + pcm.samples.len() as u64 * 2,
        Encoding::WavPcm24 => 68 + pcm.samples.len() as u64 * 3,
        Encoding::WavFloat32 => 58 + pcm.samples.len() as u64 * 4,
        Encoding::Mp3 { bitrate_kbps } => (pcm.seconds() * bitrate_kbps as f64 * 125.0) as u64 + 8192,
        Encoding::Flac16 | Encoding::Flac24 => return Ok(()),
    };
    match revoice_core::fsutil::free_space(dir) {
        Some(free) if free < needed => {
            Err(invalid(path, format!("not enough disk space: the file needs {:.1} MB, {:.1} MB are free", needed as f64 / 1e6, free as f64 / 1e6)))
        }
        _ => Ok(()),
    }
}

fn clean(s: f32) -> f32 {
    if s.is_finite() {
        s
    } else {
        0.0
    }
}

/// `s` as a signed integer of `bits` bits: full scale is 2^(bits-1), the
/// scale decoders divide by.
fn quantize(s: f32, bits: u32) -> i32 {
    let full = (1i64 << (bits - 1)) as f64;
    (clean(s) as f64 * full).round().clamp(-full, full - 1.0) as i32
}

/// Frames per progress report and per encoder call.
const CHUNK_FRAMES: usize = 1152 * 64;

fn hound_error(path: &Path, e: hound::Error) -> Error {
    match e {
        hound::Error::IoError(io) => Error::io("write", path, io),
        other => invalid(path, format!("cannot write WAV: {other}")),
    }
}

/// How a WAV file holds its samples.
#[derive(Clone, Copy)]
enum WavSamples {
    /// Signed integers of this many bits (16 or 24).
    Int(u16),
    /// 32-bit IEEE float.
    Float,
}

/// Where WAVE_FORMAT_EXTENSIBLE keeps its channel mask (`dwChannelMask`).
const CHANNEL_MASK_AT: u64 = 40;
/// The mask of one channel played from the centre: mono.
const FRONT_CENTER: u32 = 0x4;

fn write_wav<W: Write + Seek>(mut out: W, path: &Path, pcm: Pcm<'_>, samples: WavSamples, progress: &mut dyn FnMut(f32)) -> Result<()> {
    let (bits_per_sample, sample_format) = match samples {
        WavSamples::Int(bits) => (bits, hound::SampleFormat::Int),
        WavSamples::Float => (32, hound::SampleFormat::Float),
    };
    let spec = hound::WavSpec { channels: pcm.channels, sample_rate: pcm.sample_rate, bits_per_sample, sample_format };
    let mut writer = hound::WavWriter::new(BufWriter::with_capacity(1 << 20, &mut out), spec).map_err(|e| hound_error(path, e))?;
    let chunk = CHUNK_FRAMES * pcm.channels as usize;
    let chunks = pcm.samples.len().div_ceil(chunk);
    for (i, block) in pcm.samples.chunks(chunk).enumerate() {
        for &s in block {
            let written = match samples {
                WavSamples::Int(16) => writer.write_sample(quantize(s, 16) as i16),
                WavSamples::Int(bits) => writer.write_sample(quantize(s, bits as u32)),
                WavSamples::Float => writer.write_sample(clean(s)),
            };
            written.map_err(|e| hound_error(path, e))?;
        }
        progress(0.95 * (i + 1) as f32 / chunks as f32);
    }
    writer.finalize().map_err(|e| hound_error(path, e))?;
    // Past 16 bits hound writes WAVE_FORMAT_EXTENSIBLE and gives one
    // channel the front left speaker, which ffmpeg turns into stereo with
    // one side silent (an ALAC dub stream, for one): a mono file says so.
    let extensible = bits_per_sample > 16 || pcm.channels > 2;
    if extensible && pcm.channels == 1 {
        out.seek(std::io::SeekFrom::Start(CHANNEL_MASK_AT))
            .and_then(|_| out.write_all(&FRONT_CENTER.to_le_bytes()))
            .map_err(|e| Error::io("write", path, e))?;
    }
    Ok(())
}

fn write_flac(out: &mut std::fs::File, path: &Path, pcm: Pcm<'_>, bits: u32, progress: &mut dyn FnMut(f32)) -> Result<()> {
    use flacenc::component::{BitRepr, Stream};
    use flacenc::error::Verify;
    use flacenc::source::{Context, Fill, FrameBuf};

    let failed = |e: &dyn std::fmt::Display| invalid(path, format!("the FLAC encoder failed: {e}"));
    let verify =
        |config: flacenc::config::Encoder| config.into_verified().map_err(|(_, e)| invalid(path, format!("the FLAC encoder's settings are invalid: {e}")));
    let config = verify(flacenc::config::Encoder::default())?;
    // flacenc 0.5 can pick a Rice parameter far too small for loud 24-bit
    // residuals (its cost table saturates), writing a frame many times the
    // size of the raw samples; readers then lose sync on it. Such a frame is
    // written verbatim instead.
    let mut verbatim = flacenc::config::Encoder::default();
    verbatim.subframe_coding.use_fixed = false;
    verbatim.subframe_coding.use_lpc = false;
    let verbatim = verify(verbatim)?;

    let (channels, block) = (pcm.channels as usize, config.block_size);
    let samples: Vec<i32> = pcm.samples.iter().map(|&s| quantize(s, bits)).collect();
    let mut stream = Stream::new(pcm.sample_rate as usize, channels, bits as usize).map_err(|e| failed(&e))?;
    let mut buffer = (FrameBuf::with_size(channels, block).map_err(|e| failed(&e))?, Context::new(bits as usize, channels));
    let chunks = samples.chunks(block * channels);
    let total = chunks.len();
    for (number, chunk) in chunks.enumerate() {
        buffer.fill_interleaved(chunk).map_err(|e| failed(&e))?;
        let mut frame = flacenc::encode_fixed_size_frame(&config, &buffer.0, number, stream.stream_info()).map_err(|e| failed(&e))?;
        // Raw samples plus room for the frame and subframe headers.
        let raw_bits = chunk.len() * (bits as usize + 1) + 8 * (18 + channels);
        if frame.count_bits() > raw_bits {
            frame = flacenc::encode_fixed_size_frame(&verbatim, &buffer.0, number, stream.stream_info()).map_err(|e| failed(&e))?;
        }
        stream.add_frame(frame);
        progress(0.9 * (number + 1) as f32 / total as f32);
    }
    let info = stream.stream_info_mut();
    info.set_md5_digest(&buffer.1.md5_digest());
    info.set_total_samples(samples.len() / channels);
    // Every frame but the last is `block` long; the format leaves the short
    // last one out of the minimum, and readers (symphonia among them) take
    // unequal bounds for a variable-blocking stream and reject its frames.
    info.set_block_sizes(block, block).map_err(|e| invalid(path, format!("the FLAC block size is invalid: {e}")))?;
    let mut sink = flacenc::bitsink::ByteSink::new();
    stream.write(&mut sink).map_err(|e| invalid(path, format!("cannot lay out the FLAC stream: {e}")))?;
    out.write_all(sink.as_slice()).map_err(|e| Error::io("write", path, e))
}

/// The MP3 sample rates (MPEG-1, MPEG-2, MPEG-2.5).
#[cfg(feature = "mp3")]
const MP3_RATES: [u32; 9] = [8_000, 11_025, 12_000, 16_000, 22_050, 24_000, 32_000, 44_100, 48_000];

/// The rate an MP3 of `input` Hz is written at.
#[cfg(feature = "mp3")]
fn mp3_rate(input: u32) -> u32 {
    MP3_RATES.iter().copied().find(|&r| r >= input).unwrap_or(48_000)
}

/// The nearest bit rate to `kbps` that the MPEG version at `rate` allows.
#[cfg(feature = "mp3")]
fn mp3_bitrate(kbps: u16, rate: u32) -> mp3lame_encoder::Bitrate {
    use mp3lame_encoder::Bitrate::*;
    let allowed: &[(u16, mp3lame_encoder::Bitrate)] = if rate >= 32_000 {
        &[
            (32, Kbps32),
            (40, Kbps40),
            (48, Kbps48),
            (64, Kbps64),
            (80, Kbps80),
            (96, Kbps96),
            (112, Kbps112),
            (128, Kbps128),
            (160, Kbps160),
            (192, Kbps192),
            (224, Kbps224),
            (256, Kbps256),
            (320, Kbps320),
        ]
    } else if rate >= 16_000 {
        &[
            (8, Kbps8),
            (16, Kbps16),
            (24, Kbps24),
            (32, Kbps32),
            (40, Kbps40),
            (48, Kbps48),
            (64, Kbps64),
            (80, Kbps80),
            (96, Kbps96),
            (112, Kbps112),
            (128, Kbps128),
            (160, Kbps160),
        ]
    } else {
        &[(8, Kbps8), (16, Kbps16), (24, Kbps24), (32, Kbps32), (40, Kbps40), (48, Kbps48), (64, Kbps64)]
    };
    allowed.iter().min_by_key(|(k, _)| (*k as i32 - kbps as i32).abs()).map(|&(_, b)| b).unwrap_or(Kbps128)
}

#[cfg(feature = "mp3")]
fn write_mp3(out: &mut std::fs::File, path: &Path, pcm: Pcm<'_>, bitrate_kbps: u16, progress: &mut dyn FnMut(f32)) -> Result<()> {
    use mp3lame_encoder::{Builder, FlushGap, InterleavedPcm, Mode, MonoPcm, Quality};
    use std::num::NonZeroU32;

    let refused = |what: &str, e: &dyn std::fmt::Display| invalid(path, format!("the MP3 encoder refused {what}: {e}"));
    let out_rate = mp3_rate(pcm.sample_rate);
    let mut builder = Builder::new().ok_or_else(|| invalid(path, "the MP3 encoder could not start (out of memory)"))?;
    builder.set_num_channels(pcm.channels as u8).map_err(|e| refused("the channel count", &e))?;
    builder.set_sample_rate(pcm.sample_rate).map_err(|e| refused(&format!("the rate {} Hz", pcm.sample_rate), &e))?;
    builder.set_output_sample_rate(NonZeroU32::new(out_rate)).map_err(|e| refused(&format!("the output rate {out_rate} Hz"), &e))?;
    builder.set_brate(mp3_bitrate(bitrate_kbps, out_rate)).map_err(|e| refused("the bit rate", &e))?;
    builder.set_mode(if pcm.channels == 1 { Mode::Mono } else { Mode::JointStereo }).map_err(|e| refused("the channel mode", &e))?;
    builder.set_quality(Quality::NearBest).map_err(|e| refused("the quality", &e))?;
    builder.set_to_write_vbr_tag(true).map_err(|e| refused("the LAME tag", &e))?;
    let mut encoder = builder.build().map_err(|e| refused("its settings", &e))?;

    let clean: Vec<f32> = pcm.samples.iter().map(|&s| clean(s).clamp(-1.0, 1.0)).collect();
    let mut bytes = Vec::with_capacity((pcm.seconds() * bitrate_kbps as f64 * 125.0) as usize + 16_384);
    let chunk = CHUNK_FRAMES * pcm.channels as usize;
    let chunks = clean.len().div_ceil(chunk);
    for (i, block) in clean.chunks(chunk).enumerate() {
        bytes.reserve(mp3lame_encoder::max_required_buffer_size(block.len()));
        let done = if pcm.channels == 1 { encoder.encode_to_vec(MonoPcm(block), &mut bytes) } else { encoder.encode_to_vec(InterleavedPcm(block), &mut bytes) };
        done.map_err(|e| invalid(path, format!("the MP3 encoder failed: {e}")))?;
        progress(0.9 * (i + 1) as f32 / chunks as f32);
    }
    bytes.reserve(7200);
    encoder.flush_to_vec::<FlushGap>(&mut bytes).map_err(|e| invalid(path, format!("the MP3 encoder failed to finish: {e}")))?;
    // LAME starts the stream with a placeholder frame (a frame header and
    // zeros) for the tag it can only fill in once it knows the length,
    // delay and padding: the tag replaces it.
    let mut tag = Vec::with_capacity(encoder.lame_tag_size());
    if encoder.lame_tag_encode_to_vec(&mut tag).is_some() {
        let placeholder = bytes.len() >= tag.len() && tag.len() > 4 && bytes[4..tag.len()].iter().all(|&b| b == 0);
        if placeholder {
            bytes[..tag.len()].copy_from_slice(&tag);
        } else {
            bytes.splice(0..0, tag);
        }
    }
    out.write_all(&bytes).map_err(|e| Error::io("write", path, e))
}

#[cfg(not(feature = "mp3"))]
fn write_mp3(_: &mut std::fs::File, path: &Path, _: Pcm<'_>, _: u16, _: &mut dyn FnMut(f32)) -> Result<()> {
    Err(invalid(path, "MP3 export unavailable in this build (built without the `mp3` feature); export WAV or FLAC"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::decode_file;

    fn tone(freq: f32, rate: u32, seconds: f64, amplitude: f32) -> Vec<f32> {
        (0..(seconds * rate as f64) as usize).map(|n| amplitude * (std::f32::consts::TAU * freq * n as f32 / rate as f32).sin()).collect()
    }

    fn largest_difference(a: &[f32], b: &[f32]) -> f32 {
        a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f32::max)
    }

    fn write(path: &Path, pcm: Pcm<'_>, encoding: Encoding) -> Vec<f32> {
        let mut reports = Vec::new();
        write_audio(path, pcm, encoding, &mut |p| reports.push(p)).unwrap();
        assert!(reports.windows(2).all(|w| w[0] <= w[1]), "progress goes backwards: {reports:?}");
        assert_eq!((reports.first(), reports.last()), (Some(&0.0), Some(&1.0)));
        reports
    }

    #[test]
    fn a_wav_round_trips_within_its_precision() {
        let dir = tempfile::tempdir().unwrap();
        let x = tone(440.0, 24_000, 0.5, 0.8);
        let pcm16 = dir.path().join("line.wav");
        write(&pcm16, Pcm::mono(&x, 24_000), Encoding::WavPcm16);
        let back = decode_file(&pcm16).unwrap();
        assert_eq!((back.samples.len(), back.sample_rate), (x.len(), 24_000));
        assert!(largest_difference(&back.samples, &x) <= 0.5 / 32768.0 + 1e-7);

        let float = dir.path().join("line-float.wav");
        write(&float, Pcm::mono(&x, 24_000), Encoding::WavFloat32);
        assert_eq!(decode_file(&float).unwrap().samples, x);
    }

    #[test]
    fn a_24_bit_wav_reads_back_as_24_bit_integers_within_half_a_step() {
        let dir = tempfile::tempdir().unwrap();
        let mut x = tone(997.0, 48_000, 0.4, 0.9);
        // Full scale either way clips to the largest step, not past it.
        x.extend([1.5, -1.5, f32::NAN]);
        let path = dir.path().join("mix.wav");
        write(&path, Pcm::mono(&x, 48_000), Encoding::WavPcm24);
        let reader = hound::WavReader::open(&path).unwrap();
        let spec = reader.spec();
        assert_eq!((spec.bits_per_sample, spec.sample_format, spec.sample_rate, spec.channels), (24, hound::SampleFormat::Int, 48_000, 1));
        let ints: Vec<i32> = reader.into_samples::<i32>().map(Result::unwrap).collect();
        // One channel, from the centre: mono, not the left of a pair.
        let header = std::fs::read(&path).unwrap();
        assert_eq!((&header[20..22], &header[40..44]), (&0xfffe_u16.to_le_bytes()[..], &FRONT_CENTER.to_le_bytes()[..]));
        assert_eq!(&ints[ints.len() - 3..], [(1 << 23) - 1, -(1 << 23), 0]);
        let step = 1.0 / (1u32 << 23) as f32;
        let back = decode_file(&path).unwrap();
        assert_eq!((back.samples.len(), back.sample_rate), (x.len(), 48_000));
        let n = x.len() - 3;
        assert!(largest_difference(&back.samples[..n], &x[..n]) <= 0.5 * step + 1e-7);
        // Finer than 16 bits: a quarter of a 16-bit step survives.
        let quiet = vec![0.25 / 32768.0; 4800];
        write(&path, Pcm::mono(&quiet, 48_000), Encoding::WavPcm24);
        assert!(largest_difference(&decode_file(&path).unwrap().samples, &quiet) <= 0.5 * step + 1e-9);
    }

    #[test]
    fn a_flac_round_trips_within_its_precision() {
        let dir = tempfile::tempdir().unwrap();
        let x = tone(440.0, 48_000, 0.7, 0.8);
        for (encoding, bits) in [(Encoding::Flac16, 16), (Encoding::Flac24, 24)] {
            let path = dir.path().join(format!("line{bits}.flac"));
            write(&path, Pcm::mono(&x, 48_000), encoding);
            let back = decode_file(&path).unwrap();
            assert_eq!((back.samples.len(), back.sample_rate, back.container), (x.len(), 48_000, "FLAC"));
            let step = 1.0 / (1u32 << (bits - 1)) as f32;
            assert!(largest_difference(&back.samples, &x) <= 0.5 * step + 1e-7, "{bits} bits");
        }
    }

    #[test]
    fn noise_in_a_flac_stays_near_its_raw_size_and_decodes_whole() {
        // Noise at these levels is what flacenc mis-codes unless caught: at
        // 0.25 of full scale its 24-bit frames came out six times too big.
        let dir = tempfile::tempdir().unwrap();
        for (encoding, bits) in [(Encoding::Flac16, 16u32), (Encoding::Flac24, 24)] {
            for level in [0.05f32, 0.25, 0.95] {
                let mut state = 0x2545_f491_u32;
                let noise: Vec<f32> = (0..24_000)
                    .map(|_| {
                        state ^= state << 13;
                        state ^= state >> 17;
                        state ^= state << 5;
                        level * (state as f32 / u32::MAX as f32 * 2.0 - 1.0)
                    })
                    .collect();
                let path = dir.path().join(format!("noise-{bits}-{level}.flac"));
                write(&path, Pcm::mono(&noise, 24_000), encoding);
                let raw = noise.len() as u64 * bits as u64 / 8;
                let size = std::fs::metadata(&path).unwrap().len();
                assert!(size < raw + raw / 20, "{bits} bits at {level}: {size} bytes for {raw} bytes of samples");
                let back = decode_file(&path).unwrap();
                assert_eq!(back.samples.len(), noise.len());
                assert!(largest_difference(&back.samples, &noise) <= 0.5 / (1u32 << (bits - 1)) as f32 + 1e-7);
            }
        }
    }

    #[test]
    fn a_stereo_flac_keeps_both_channels() {
        let dir = tempfile::tempdir().unwrap();
        let left = tone(440.0, 44_100, 0.3, 0.5);
        let interleaved: Vec<f32> = left.iter().flat_map(|&l| [l, -l * 0.5]).collect();
        let path = dir.path().join("stereo.flac");
        write(&path, Pcm { samples: &interleaved, channels: 2, sample_rate: 44_100 }, Encoding::Flac24);
        let back = decode_file(&path).unwrap();
        assert_eq!((back.channels, back.samples.len()), (2, left.len()));
        // decode_file gives the mono mean: (l - l/2) / 2 = l / 4.
        let expected: Vec<f32> = left.iter().map(|l| l * 0.25).collect();
        assert!(largest_difference(&back.samples, &expected) < 1e-5);
    }

    #[test]
    fn an_mp3_decodes_back_to_the_same_duration_and_sound() {
        let dir = tempfile::tempdir().unwrap();
        for rate in [24_000, 44_100] {
            let x = tone(440.0, rate, 1.3, 0.5);
            let path = dir.path().join(format!("line{rate}.mp3"));
            write(&path, Pcm::mono(&x, rate), Encoding::Mp3 { bitrate_kbps: 128 });
            let back = decode_file(&path).unwrap();
            assert_eq!((back.sample_rate, back.container), (rate, "MP3"));
            // The LAME tag's delay and padding make symphonia's gapless
            // decoding exact (a decoder that ignores the tag would give up to
            // ~1.2k samples more at the start and under one frame at the end).
            assert_eq!(back.samples.len(), x.len(), "{rate} Hz");
            // Lossy, but the same tone at the same level and in place.
            let mid = x.len() / 2;
            let err: f32 = (mid..mid + 2000).map(|i| (back.samples[i] - x[i]).powi(2)).sum::<f32>() / 2000.0;
            assert!(err.sqrt() < 0.03, "{rate} Hz: rms error {}", err.sqrt());
        }
    }

    #[test]
    fn an_unwritable_path_gives_an_error_naming_it() {
        let x = vec![0.1f32; 1000];
        for encoding in [Encoding::WavPcm16, Encoding::Flac16, Encoding::Mp3 { bitrate_kbps: 64 }] {
            let path = Path::new("/nonexistent-folder/out").with_extension(encoding.extension());
            let err = write_audio(&path, Pcm::mono(&x, 16_000), encoding, &mut |_| {}).unwrap_err().to_string();
            assert!(err.contains(&*path.to_string_lossy()), "{err}");
        }
    }

    #[test]
    fn a_failed_write_leaves_the_previous_file_in_place() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("mix.wav");
        std::fs::write(&path, b"previous").unwrap();
        let err = write_audio(&path, Pcm { samples: &[0.0; 3], channels: 2, sample_rate: 16_000 }, Encoding::WavPcm16, &mut |_| {});
        assert!(err.is_err());
        assert_eq!(std::fs::read(&path).unwrap(), b"previous");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "no temporary file left behind");
    }

    #[test]
    fn empty_audio_and_too_many_channels_are_refused_with_the_reason() {
        let path = Path::new("/tmp/never-written.wav");
        let err = write_audio(path, Pcm::mono(&[], 16_000), Encoding::WavPcm16, &mut |_| {}).unwrap_err().to_string();
        assert!(err.contains("never-written.wav") && err.contains("empty"), "{err}");
        let err = write_audio(path, Pcm { samples: &[0.0; 6], channels: 3, sample_rate: 16_000 }, Encoding::WavPcm16, &mut |_| {}).unwrap_err().to_string();
        assert!(err.contains("3 channels"), "{err}");
    }
}
