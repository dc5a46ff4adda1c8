//! Response encodings of the speech API: `response_format` names, their
//! Content-Types, and the encoders from mono f32 PCM to the bytes a client
//! gets. WAV is a complete 16-bit RIFF file and `pcm` raw s16le (the rate
//! goes in an `X-Sample-Rate` header); MP3 (LAME) and FLAC (flacenc) use the
//! engine's file encoders; Opus is libopus in an Ogg stream (RFC 7845
//! headers, pre-skip and end trimming in the granule positions) and AAC is
//! Fraunhofer FDK AAC (LC) in ADTS frames.

use std::ffi::c_int;

use revoice_engine::audio::encode::{write_audio, Encoding, Pcm};
use revoice_engine::error::{Error, Result};

/// What a client can ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ResponseFormat {
    Wav,
    Pcm,
    Mp3,
    Opus,
    Aac,
    Flac,
}

/// Every format, for messages.
pub const FORMAT_NAMES: &str = "wav, pcm, mp3, opus, aac, flac";

impl ResponseFormat {
    /// The format of a `response_format` value (case-insensitive).
    pub fn parse(name: &str) -> Option<ResponseFormat> {
        Some(match name.to_ascii_lowercase().as_str() {
            "wav" => ResponseFormat::Wav,
            "pcm" => ResponseFormat::Pcm,
            "mp3" => ResponseFormat::Mp3,
            "opus" => ResponseFormat::Opus,
            "aac" => ResponseFormat::Aac,
            "flac" => ResponseFormat::Flac,
            _ => return None,
        })
    }

    /// The name as clients spell it.
    pub fn name(self) -> &'static str {
        match self {
            ResponseFormat::Wav => "wav",
            ResponseFormat::Pcm => "pcm",
            ResponseFormat::Mp3 => "mp3",
            ResponseFormat::Opus => "opus",
            ResponseFormat::Aac => "aac",
            ResponseFormat::Flac => "flac",
        }
    }

    /// The Content-Type of a response in this format.
    pub fn content_type(self) -> &'static str {
        match self {
            ResponseFormat::Wav => "audio/wav",
            ResponseFormat::Pcm => "audio/pcm",
            ResponseFormat::Mp3 => "audio/mpeg",
            ResponseFormat::Opus => "audio/ogg",
            ResponseFormat::Aac => "audio/aac",
            ResponseFormat::Flac => "audio/flac",
        }
    }
}

/// Samples as signed 16-bit little-endian (clipped, rounded; non-finite → 0).
pub fn pcm16_bytes(samples: &[f32]) -> Vec<u8> {
    samples.iter().flat_map(|&s| to_i16(s).to_le_bytes()).collect()
}

fn to_i16(s: f32) -> i16 {
    let s = if s.is_finite() { s } else { 0.0 };
    (s as f64 * 32768.0).round().clamp(-32768.0, 32767.0) as i16
}

/// Encodes mono `samples` at `rate` in `format`.
pub fn encode(samples: &[f32], rate: u32, format: ResponseFormat) -> Result<Vec<u8>> {
    match format {
        ResponseFormat::Pcm => Ok(pcm16_bytes(samples)),
        ResponseFormat::Wav => Ok(wav16(samples, rate)),
        ResponseFormat::Mp3 => through_file(samples, rate, Encoding::Mp3 { bitrate_kbps: 96 }),
        ResponseFormat::Flac => through_file(samples, rate, Encoding::Flac16),
        ResponseFormat::Opus => ogg_opus(samples, rate),
        ResponseFormat::Aac => adts_aac(samples, rate),
    }
}

/// A complete 16-bit mono RIFF/WAVE file.
pub fn wav16(samples: &[f32], rate: u32) -> Vec<u8> {
    let data = pcm16_bytes(samples);
    let mut out = Vec::with_capacity(44 + data.len());
    out.extend(b"RIFF");
    out.extend((36 + data.len() as u32).to_le_bytes());
    out.extend(b"WAVEfmt ");
    out.extend(16u32.to_le_bytes());
    out.extend(1u16.to_le_bytes()); // PCM
    out.extend(1u16.to_le_bytes()); // mono
    out.extend(rate.to_le_bytes());
    out.extend((rate * 2).to_le_bytes()); // bytes per second
    out.extend(2u16.to_le_bytes()); // block align
    out.extend(16u16.to_le_bytes()); // bits per sample
    out.extend(b"data");
    out.extend((data.len() as u32).to_le_bytes());
    out.extend(data);
    out
}

/// MP3 and FLAC through the engine's file encoders (atomic temp file, read back).
fn through_file(samples: &[f32], rate: u32, encoding: Encoding) -> Result<Vec<u8>> {
    let dir = tempfile::tempdir().map_err(|e| Error::io("create a temporary folder in", std::env::temp_dir(), e))?;
    let path = dir.path().join(format!("speech.{}", encoding.extension()));
    write_audio(&path, Pcm::mono(samples, rate), encoding, &mut |_| {})?;
    std::fs::read(&path).map_err(|e| Error::io("read", &path, e))
}

fn encoder_error(what: &str, reason: impl Into<String>) -> Error {
    Error::InvalidInput { input: format!("{what} encoder"), reason: reason.into() }
}

/// Opus frames of 20 ms; libopus takes 8, 12, 16, 24 or 48 kHz input.
fn ogg_opus(samples: &[f32], rate: u32) -> Result<Vec<u8>> {
    use opusic_sys as opus;
    if ![8000, 12000, 16000, 24000, 48000].contains(&rate) {
        let resampled = revoice_engine::audio::resample::resample(samples, rate, 48_000)?;
        return ogg_opus(&resampled, 48_000);
    }
    struct Encoder(*mut opus::OpusEncoder);
    impl Drop for Encoder {
        fn drop(&mut self) {
            // SAFETY: created by opus_encoder_create, destroyed once.
            unsafe { opus::opus_encoder_destroy(self.0) }
        }
    }
    let mut err: c_int = 0;
    // SAFETY: plain constructor; checked for null and the error code.
    let encoder = Encoder(unsafe { opus::opus_encoder_create(rate as i32, 1, opus::OPUS_APPLICATION_AUDIO, &mut err) });
    if encoder.0.is_null() || err != opus::OPUS_OK {
        return Err(encoder_error("Opus", format!("libopus refused {rate} Hz mono (error {err})")));
    }
    let mut lookahead: i32 = 0;
    // SAFETY: the request's documented argument type is an `opus_int32 *`.
    unsafe {
        opus::opus_encoder_ctl(encoder.0, opus::OPUS_SET_BITRATE_REQUEST, 48_000 as c_int);
        opus::opus_encoder_ctl(encoder.0, opus::OPUS_GET_LOOKAHEAD_REQUEST, &mut lookahead as *mut i32);
    }
    let to48k = 48_000 / rate as u64;
    let frame = rate as usize / 50;
    let pre_skip = lookahead as u64 * to48k;
    let mut padded = samples.to_vec();
    let frames = (samples.len() + lookahead as usize).div_ceil(frame).max(1);
    padded.resize(frames * frame, 0.0);

    let serial = 0x5245_564f; // "REVO"
    let mut writer = ogg::PacketWriter::new(Vec::new());
    let mut head = Vec::with_capacity(19);
    head.extend(b"OpusHead");
    head.push(1); // version
    head.push(1); // channels
    head.extend((pre_skip as u16).to_le_bytes());
    head.extend(rate.to_le_bytes()); // the input's rate, informational
    head.extend(0i16.to_le_bytes()); // output gain
    head.push(0); // mapping family: mono/stereo
    let vendor = b"revoice (libopus)";
    let mut tags = Vec::new();
    tags.extend(b"OpusTags");
    tags.extend((vendor.len() as u32).to_le_bytes());
    tags.extend(vendor);
    tags.extend(0u32.to_le_bytes()); // no comments
    let io = |e: std::io::Error| encoder_error("Ogg", e.to_string());
    writer.write_packet(head, serial, ogg::PacketWriteEndInfo::EndPage, 0).map_err(io)?;
    writer.write_packet(tags, serial, ogg::PacketWriteEndInfo::EndPage, 0).map_err(io)?;
    let end_granule = pre_skip + samples.len() as u64 * to48k;
    let mut packet = vec![0u8; 4000];
    for (i, block) in padded.chunks(frame).enumerate() {
        // SAFETY: `block` holds `frame` samples; `packet` is writable for its length.
        let n = unsafe { opus::opus_encode_float(encoder.0, block.as_ptr(), frame as c_int, packet.as_mut_ptr(), packet.len() as i32) };
        if n < 0 {
            return Err(encoder_error("Opus", format!("libopus failed on frame {i} (error {n})")));
        }
        let last = i + 1 == frames;
        let granule = if last { end_granule } else { (i as u64 + 1) * frame as u64 * to48k };
        let end = if last {
            ogg::PacketWriteEndInfo::EndStream
        } else if (i + 1) % 50 == 0 {
            ogg::PacketWriteEndInfo::EndPage
        } else {
            ogg::PacketWriteEndInfo::NormalPacket
        };
        writer.write_packet(packet[..n as usize].to_vec(), serial, end, granule).map_err(io)?;
    }
    Ok(writer.into_inner())
}

/// AAC-LC in ADTS frames; the input is padded with silence so the
/// encoder's delay does not swallow the end.
fn adts_aac(samples: &[f32], rate: u32) -> Result<Vec<u8>> {
    use fdk_aac::enc::{AudioObjectType, BitRate, ChannelMode, Encoder, EncoderParams, Transport};
    let encoder = Encoder::new(EncoderParams {
        bit_rate: BitRate::Cbr(64_000),
        sample_rate: rate,
        transport: Transport::Adts,
        channels: ChannelMode::Mono,
        audio_object_type: AudioObjectType::Mpeg4LowComplexity,
    })
    .map_err(|e| encoder_error("AAC", format!("cannot encode {rate} Hz mono: {e}")))?;
    let mut input: Vec<i16> = samples.iter().map(|&s| to_i16(s)).collect();
    input.extend(std::iter::repeat_n(0, 3 * 1024));
    let mut out = Vec::new();
    let mut buffer = vec![0u8; 8192];
    let mut at = 0;
    while at < input.len() {
        let end = (at + 1024).min(input.len());
        let info = encoder.encode(&input[at..end], &mut buffer).map_err(|e| encoder_error("AAC", e.to_string()))?;
        out.extend_from_slice(&buffer[..info.output_size]);
        if info.input_consumed == 0 && info.output_size == 0 {
            break;
        }
        at += info.input_consumed;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tone(seconds: f32, rate: u32) -> Vec<f32> {
        (0..(seconds * rate as f32) as usize).map(|i| 0.5 * (i as f32 * 440.0 * std::f32::consts::TAU / rate as f32).sin()).collect()
    }

    fn decoded(bytes: Vec<u8>, name: &str) -> revoice_engine::audio::decode::DecodedAudio {
        revoice_engine::audio::decode::decode_bytes(bytes, std::path::Path::new(name)).unwrap()
    }

    #[test]
    fn every_format_decodes_back_to_audio_of_the_same_length() {
        let samples = tone(1.0, 24_000);
        for (format, name) in [
            (ResponseFormat::Wav, "a.wav"),
            (ResponseFormat::Flac, "a.flac"),
            (ResponseFormat::Mp3, "a.mp3"),
            (ResponseFormat::Opus, "a.opus"),
            (ResponseFormat::Aac, "a.aac"),
        ] {
            let audio = decoded(encode(&samples, 24_000, format).unwrap(), name);
            let seconds = audio.seconds();
            assert!((seconds - 1.0).abs() < 0.15, "{format:?}: {seconds} s");
            let rms = (audio.samples.iter().map(|s| s * s).sum::<f32>() / audio.samples.len() as f32).sqrt();
            assert!(rms > 0.1, "{format:?}: rms {rms}");
        }
        assert_eq!(encode(&samples, 24_000, ResponseFormat::Pcm).unwrap().len(), 48_000);
    }

    #[test]
    fn format_names_parse_and_have_content_types() {
        assert_eq!(ResponseFormat::parse("MP3"), Some(ResponseFormat::Mp3));
        assert_eq!(ResponseFormat::parse("ogg"), None);
        assert_eq!(ResponseFormat::Opus.content_type(), "audio/ogg");
        let wav = wav16(&[0.0, 0.5], 24_000);
        assert_eq!(&wav[..4], b"RIFF");
        assert_eq!(wav.len(), 48);
    }
}
