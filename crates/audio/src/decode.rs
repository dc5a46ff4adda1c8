//! Decoding audio files (symphonia) into mono f32 samples at the file's own
//! sample rate. Reads WAV, MP3, FLAC, Ogg Vorbis, M4A/AAC/ALAC, CAF, AIFF and
//! WebM/Matroska (with a codec above), and Opus in Ogg or WebM through libopus
//! (symphonia has no Opus decoder of its own).
//!
//! The container is found from the file's bytes, not its name: a file whose
//! extension lies but whose content is audio decodes (with a warning in the
//! log), and one that is not audio at all gets an error saying what it looks
//! like instead. Empty files, files cut short (fewer samples than their header
//! declares, or a stream that ends mid-packet) and files with no decodable
//! packets are errors that name the file and the reason. Channels are averaged
//! into one; resampling is [`super::resample`]'s job.

use std::path::Path;

use std::sync::LazyLock;

use symphonia::core::codecs::audio::AudioDecoderOptions;
use symphonia::core::codecs::registry::CodecRegistry;
use symphonia::core::errors::Error as SymphoniaError;
use symphonia::core::formats::probe::Hint;
use symphonia::core::formats::{FormatOptions, TrackType};
use symphonia::core::io::{MediaSourceStream, MediaSourceStreamOptions};
use symphonia::core::meta::MetadataOptions;

use revoice_core::error::{Error, Result};

/// A decoded file: mono samples in `[-1, 1]` and their rate.
#[derive(Debug, Clone, PartialEq)]
pub struct DecodedAudio {
    /// Mono samples (the mean of the file's channels).
    pub samples: Vec<f32>,
    /// Samples per second.
    pub sample_rate: u32,
    /// How many channels the file had before the downmix.
    pub channels: usize,
    /// What the content is, from its bytes ("WAV", "MP3", ...).
    pub container: &'static str,
}

impl DecodedAudio {
    /// Length in seconds.
    pub fn seconds(&self) -> f64 {
        self.samples.len() as f64 / self.sample_rate.max(1) as f64
    }
}

fn bad(path: &Path, reason: impl Into<String>) -> Error {
    Error::InvalidInput { input: path.display().to_string(), reason: reason.into() }
}

/// The audio formats this build reads, for error messages.
pub const SUPPORTED: &str = "WAV, MP3, FLAC, Ogg (Vorbis, Opus), Opus, M4A (AAC, ALAC), AIFF, CAF, WebM/MKV (Opus, Vorbis, AAC, FLAC)";

/// Symphonia's decoders plus libopus for Opus.
static CODECS: LazyLock<CodecRegistry> = LazyLock::new(|| {
    let mut registry = CodecRegistry::new();
    symphonia::default::register_enabled_codecs(&mut registry);
    registry.register_audio_decoder::<symphonia_adapter_libopus::OpusDecoder>();
    registry
});

/// Decodes the file at `path` into mono f32.
pub fn decode_file(path: &Path) -> Result<DecodedAudio> {
    let bytes = std::fs::read(path).map_err(|e| Error::io("read", path, e))?;
    decode_bytes(bytes, path)
}

/// Decodes the bytes of a file; `path` names it in errors and gives the
/// extension hint.
pub fn decode_bytes(bytes: Vec<u8>, path: &Path) -> Result<DecodedAudio> {
    if bytes.is_empty() {
        return Err(bad(path, "the file is empty (0 bytes)"));
    }
    let sniffed = sniff(&bytes);
    let extension = path.extension().map(|e| e.to_string_lossy().to_ascii_lowercase());
    if let Content::NotAudio(what) = sniffed {
        return Err(bad(path, mislabelled_reason(extension.as_deref(), what)));
    }
    let container = match sniffed {
        Content::Audio(name) => name,
        _ => "unknown",
    };
    if let (Some(ext), Content::Audio(name)) = (extension.as_deref(), sniffed) {
        if !extension_fits(ext, name) {
            tracing::warn!(file = %path.display(), extension = ext, content = name, "the file's extension does not match its content; decoding the content");
        }
    }

    let mut hint = Hint::new();
    if let Some(ext) = extension.as_deref() {
        hint.with_extension(ext);
    }
    let source = MediaSourceStream::new(Box::new(std::io::Cursor::new(bytes)), MediaSourceStreamOptions::default());
    let mut format =
        symphonia::default::get_probe().probe(&hint, source, FormatOptions::default(), MetadataOptions::default()).map_err(|e| match (e, sniffed) {
            (SymphoniaError::IoError(io), Content::Audio(name)) if io.kind() == std::io::ErrorKind::UnexpectedEof => {
                bad(path, format!("truncated: the {name} header is cut short"))
            }
            (e, Content::Audio(name)) => bad(path, format!("looks like {name} but cannot be read: {e}")),
            _ => bad(path, format!("not an audio file this build reads (it reads {SUPPORTED})")),
        })?;
    let track = format.default_track(TrackType::Audio).ok_or_else(|| bad(path, format!("the {container} file has no audio track")))?;
    let params = track
        .codec_params
        .as_ref()
        .and_then(|p| p.audio())
        .ok_or_else(|| bad(path, format!("the {container} file's audio track has no codec parameters")))?
        .clone();
    let declared_frames = track.num_frames;
    let track_id = track.id;
    let mut decoder = CODECS
        .make_audio_decoder(&params, &AudioDecoderOptions::default())
        .map_err(|e| bad(path, format!("the {container} file's codec is not supported ({e}); this build reads {SUPPORTED}")))?;

    let mut samples = Vec::new();
    let mut interleaved: Vec<f32> = Vec::new();
    let mut sample_rate = params.sample_rate.unwrap_or(0);
    let mut channels = params.channels.as_ref().map(|c| c.count()).unwrap_or(0);
    let (mut good_packets, mut bad_packets) = (0usize, 0usize);
    let mut cut_short = false;
    loop {
        let packet = match format.next_packet() {
            Ok(Some(packet)) => packet,
            Ok(None) => break,
            Err(SymphoniaError::IoError(e)) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
                cut_short = true;
                break;
            }
            Err(SymphoniaError::ResetRequired) => break,
            Err(e) => return Err(bad(path, format!("the {container} stream is damaged: {e}"))),
        };
        if packet.track_id != track_id {
            continue;
        }
        match decoder.decode(&packet) {
            Ok(buf) => {
                good_packets += 1;
                let spec = buf.spec();
                sample_rate = spec.rate();
                let ch = spec.channels().count().max(1);
                channels = ch;
                buf.copy_to_vec_interleaved(&mut interleaved);
                if ch == 1 {
                    samples.extend_from_slice(&interleaved);
                } else {
                    samples.extend(interleaved.chunks_exact(ch).map(|f| f.iter().sum::<f32>() / ch as f32));
                }
            }
            Err(SymphoniaError::DecodeError(_)) | Err(SymphoniaError::IoError(_)) => bad_packets += 1,
            Err(e) => return Err(bad(path, format!("the {container} stream cannot be decoded: {e}"))),
        }
    }
    if good_packets == 0 {
        let why = if bad_packets > 0 { format!("none of its {bad_packets} packets decode") } else { "it holds no audio samples".to_string() };
        return Err(bad(path, format!("the {container} file has no usable audio: {why}")));
    }
    if sample_rate == 0 {
        return Err(bad(path, format!("the {container} file does not say its sample rate")));
    }
    let seconds = |frames: u64| frames as f64 / sample_rate as f64;
    if let Some(declared) = declared_frames {
        // Decoders may drop a codec delay or a partial last packet; a real
        // truncation loses far more than a few milliseconds.
        let missing = declared.saturating_sub(samples.len() as u64);
        if missing > (sample_rate as u64 / 20).max(4096) {
            return Err(bad(
                path,
                format!("truncated: it holds {:.2} s of audio but its header declares {:.2} s", seconds(samples.len() as u64), seconds(declared)),
            ));
        }
    }
    if cut_short {
        return Err(bad(path, format!("truncated: the {container} stream ends mid-packet after {:.2} s", seconds(samples.len() as u64))));
    }
    if bad_packets > 0 {
        tracing::warn!(file = %path.display(), bad_packets, good_packets, "skipped packets that did not decode");
    }
    samples.iter_mut().for_each(|s| *s = if s.is_finite() { s.clamp(-1.0, 1.0) } else { 0.0 });
    Ok(DecodedAudio { samples, sample_rate, channels, container })
}

/// What a file's first bytes say it is.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Content {
    Audio(&'static str),
    NotAudio(&'static str),
    Unknown,
}

fn sniff(b: &[u8]) -> Content {
    let at = |offset: usize, magic: &[u8]| b.len() >= offset + magic.len() && &b[offset..offset + magic.len()] == magic;
    if at(0, b"RIFF") || at(0, b"RIFX") || at(0, b"RF64") {
        return if at(8, b"WAVE") {
            Content::Audio("WAV")
        } else if at(8, b"AVI ") {
            Content::NotAudio("AVI video")
        } else {
            Content::Audio("RIFF")
        };
    }
    if at(0, b"fLaC") {
        return Content::Audio("FLAC");
    }
    if at(0, b"OggS") {
        return Content::Audio("Ogg");
    }
    if at(0, b"ID3") || (b.len() >= 2 && b[0] == 0xFF && (b[1] & 0xE0) == 0xE0 && (b[1] & 0x06) != 0) {
        return Content::Audio("MP3");
    }
    if b.len() >= 2 && b[0] == 0xFF && (b[1] & 0xF6) == 0xF0 {
        return Content::Audio("AAC (ADTS)");
    }
    if at(4, b"ftyp") {
        return Content::Audio("MP4/M4A");
    }
    if at(0, &[0x1A, 0x45, 0xDF, 0xA3]) {
        return Content::Audio("WebM/Matroska");
    }
    if at(0, b"FORM") && (at(8, b"AIFF") || at(8, b"AIFC")) {
        return Content::Audio("AIFF");
    }
    if at(0, b"caff") {
        return Content::Audio("CAF");
    }
    let not_audio: [(&[u8], usize, &'static str); 9] = [
        (b"\x89PNG", 0, "a PNG image"),
        (&[0xFF, 0xD8, 0xFF], 0, "a JPEG image"),
        (b"GIF8", 0, "a GIF image"),
        (b"%PDF", 0, "a PDF document"),
        (b"PK\x03\x04", 0, "a zip archive"),
        (&[0x1F, 0x8B], 0, "a gzip archive"),
        (b"\x7fELF", 0, "a program (ELF)"),
        (b"SQLite format 3", 0, "an SQLite database"),
        (b"BM", 0, "a BMP image"),
    ];
    for (magic, offset, what) in not_audio {
        if at(offset, magic) {
            return Content::NotAudio(what);
        }
    }
    let head = &b[..b.len().min(512)];
    if !head.is_empty() && std::str::from_utf8(head).is_ok_and(|s| s.chars().all(|c| !c.is_control() || c.is_whitespace())) {
        return Content::NotAudio("text");
    }
    Content::Unknown
}

fn extension_fits(ext: &str, content: &str) -> bool {
    match content {
        "WAV" | "RIFF" => matches!(ext, "wav" | "wave"),
        "FLAC" => ext == "flac",
        "Ogg" => matches!(ext, "ogg" | "oga" | "opus" | "spx"),
        "MP3" => matches!(ext, "mp3" | "mp2" | "mpga"),
        "AAC (ADTS)" => ext == "aac",
        "MP4/M4A" => matches!(ext, "m4a" | "mp4" | "m4b" | "mov" | "aac" | "3gp"),
        "WebM/Matroska" => matches!(ext, "webm" | "mkv" | "mka"),
        "AIFF" => matches!(ext, "aif" | "aiff" | "aifc"),
        "CAF" => ext == "caf",
        _ => true,
    }
}

fn mislabelled_reason(ext: Option<&str>, what: &str) -> String {
    match ext {
        Some(ext) => format!("not audio: it is named .{ext} but holds {what} (this build reads {SUPPORTED})"),
        None => format!("not audio: it holds {what} (this build reads {SUPPORTED})"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 16-bit WAV of a 440 Hz tone, `channels` channels (the second one silent).
    fn wav_bytes(seconds: f32, rate: u32, channels: u16) -> Vec<u8> {
        let mut cursor = std::io::Cursor::new(Vec::new());
        let spec = hound::WavSpec { channels, sample_rate: rate, bits_per_sample: 16, sample_format: hound::SampleFormat::Int };
        let mut w = hound::WavWriter::new(&mut cursor, spec).unwrap();
        for n in 0..(seconds * rate as f32) as usize {
            let v = (0.5 * (2.0 * std::f32::consts::PI * 440.0 * n as f32 / rate as f32).sin() * 32767.0) as i16;
            w.write_sample(v).unwrap();
            for _ in 1..channels {
                w.write_sample(0i16).unwrap();
            }
        }
        w.finalize().unwrap();
        cursor.into_inner()
    }

    #[test]
    fn a_stereo_wav_decodes_to_its_mono_mean_at_its_rate() {
        let audio = decode_bytes(wav_bytes(0.5, 22050, 2), Path::new("tone.wav")).unwrap();
        assert_eq!(audio.sample_rate, 22050);
        assert_eq!(audio.channels, 2);
        assert_eq!(audio.container, "WAV");
        assert_eq!(audio.samples.len(), 11025);
        let peak = audio.samples.iter().fold(0f32, |m, s| m.max(s.abs()));
        assert!((peak - 0.25).abs() < 0.01, "peak {peak}");
    }

    #[test]
    fn an_empty_file_is_named_and_called_empty() {
        let err = decode_bytes(Vec::new(), Path::new("voice.wav")).unwrap_err().to_string();
        assert!(err.contains("voice.wav") && err.contains("empty"), "{err}");
    }

    #[test]
    fn a_wav_cut_in_its_data_is_reported_as_truncated() {
        let mut bytes = wav_bytes(2.0, 16000, 1);
        bytes.truncate(bytes.len() / 3);
        let err = decode_bytes(bytes, Path::new("cut.wav")).unwrap_err().to_string();
        assert!(err.contains("cut.wav") && err.contains("truncated"), "{err}");
    }

    #[test]
    fn a_wav_cut_in_its_header_is_reported_as_truncated() {
        let mut bytes = wav_bytes(1.0, 16000, 1);
        bytes.truncate(20);
        let err = decode_bytes(bytes, Path::new("stub.wav")).unwrap_err().to_string();
        assert!(err.contains("stub.wav") && err.contains("truncated"), "{err}");
    }

    #[test]
    fn a_text_file_named_like_audio_says_what_it_really_is() {
        let err = decode_bytes(b"{\"not\": \"audio\"}".to_vec(), Path::new("take.mp3")).unwrap_err().to_string();
        assert!(err.contains("take.mp3") && err.contains("named .mp3 but holds text"), "{err}");
        let err = decode_bytes(b"\x89PNG\r\n\x1a\n0000".to_vec(), Path::new("take.wav")).unwrap_err().to_string();
        assert!(err.contains("PNG image"), "{err}");
    }

    #[test]
    fn audio_with_the_wrong_extension_still_decodes_from_its_content() {
        let audio = decode_bytes(wav_bytes(0.25, 16000, 1), Path::new("actually-a-wav.mp3")).unwrap();
        assert_eq!(audio.container, "WAV");
        assert_eq!(audio.samples.len(), 4000);
    }

    #[test]
    fn unknown_binary_data_is_unsupported_and_lists_what_is_supported() {
        let bytes: Vec<u8> = (0..4096u32).map(|i| (i.wrapping_mul(2654435761) >> 13) as u8).collect();
        let err = decode_bytes(bytes, Path::new("noise.bin")).unwrap_err().to_string();
        assert!(err.contains("noise.bin") && err.contains("FLAC"), "{err}");
    }

    fn fixture(name: &str) -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/audio").join(name)
    }

    /// 8.13 s of Kokoro speech (af_bella), encoded by opusenc and by ffmpeg (libopus).
    #[test]
    fn opus_in_ogg_and_in_webm_decodes_to_the_whole_recording() {
        for name in ["bella-speech.opus", "bella-speech.webm"] {
            let audio = decode_file(&fixture(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
            // libopus decodes at any Opus rate; the containers ask for 48 or 24 kHz.
            assert!(matches!(audio.sample_rate, 24_000 | 48_000), "{name}: {} Hz", audio.sample_rate);
            assert!((audio.seconds() - 8.13).abs() < 0.05, "{name}: {:.3} s", audio.seconds());
            let rms = (audio.samples.iter().map(|s| s * s).sum::<f32>() / audio.samples.len() as f32).sqrt();
            assert!(rms > 0.02, "{name}: rms {rms}");
        }
    }

    #[test]
    fn an_opus_file_cut_in_half_is_reported_as_truncated() {
        let bytes = std::fs::read(fixture("bella-speech.opus")).unwrap();
        let half = bytes[..bytes.len() / 2].to_vec();
        let err = decode_bytes(half, Path::new("half.opus")).unwrap_err().to_string();
        assert!(err.contains("half.opus") && err.contains("truncated"), "{err}");
    }

    #[test]
    fn a_missing_file_names_its_path() {
        let err = decode_file(Path::new("/nowhere/voice.flac")).unwrap_err().to_string();
        assert!(err.contains("/nowhere/voice.flac"), "{err}");
    }
}
