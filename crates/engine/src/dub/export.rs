//! Exporting a mixed programme: the mix as `<base>.<ext>`, normalised to
//! the loudness target of [`MixSettings`] and held under its true-peak
//! ceiling; the stems `<base>.voice.<ext>` and `<base>.bed.<ext>` (the bed
//! only when there is one; `.bed-1`, `.bed-2`, … when it has several
//! stems) at the mix's normalisation gain and through the
//! same limiter, so they line up with the mix and add up to it wherever
//! the limiter was idle; and the dialogue as `<base>.srt` and `<base>.vtt`
//! when cues are given. Every audio file is at the delivery's sample rate
//! and bit depth ([`AudioDelivery`]: 48 kHz, 24-bit unless asked for
//! 44.1 kHz or 16-bit): a project's tracks are assembled at that rate
//! (each take resampled once from the segment store, the bed and original
//! dialogue once from their files), never mixed at the programme's rate
//! and converted afterwards.
//!
//! It takes a [`Mix`] from `dub::mix` and hands samples to
//! `audio::loudness` (mastering) and `audio::encode` (files, each written
//! atomically). Every audio file it writes is decoded back
//! (`audio::decode`) before the export reports success: each must hold
//! exactly the programme's samples, and the loudness and true peak in the
//! [`ExportReport`] are measured on the decoded mix, i.e. on what was
//! delivered (after integer rounding or MP3 coding), not on the buffer
//! before it. MP3 coding moves both (LAME's quantisation takes a few
//! tenths of a dB off the loudness), so an MP3 mix that misses the target
//! by more than 0.2 dB, or the ceiling at all, is mastered and written
//! once more with the measured difference taken into account.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::dub::handoff::{lay_out_lanes, HandoffClip, HandoffFormat, HandoffMarker, HandoffTimeline, HandoffTrack, HandoffTrackKind};
use crate::dub::mix::{Mix, MixSettings};
use crate::dub::staging::Staging;
use revoice_audio::decode::decode_file;
use revoice_audio::encode::{write_audio, Encoding, Pcm};
use revoice_audio::loudness;
use revoice_core::error::{Error, Result};
use revoice_text::subtitles::{self, Cue, SubtitleFormat};

/// The file format of an export.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExportFormat {
    /// WAV, integer PCM at the delivery's bit depth: what post houses take.
    Wav,
    /// FLAC at the delivery's bit depth: a lossless master, smaller.
    Flac,
    /// MP3, 192 kbit/s constant bit rate (160 kbit/s at 16–24 kHz, where
    /// MPEG-2 allows no more).
    Mp3,
}

impl ExportFormat {
    /// A format by its name (`wav`, `flac`, `mp3`).
    pub fn from_name(name: &str) -> Result<ExportFormat> {
        match name.trim().to_ascii_lowercase().as_str() {
            "wav" => Ok(ExportFormat::Wav),
            "flac" => Ok(ExportFormat::Flac),
            "mp3" => Ok(ExportFormat::Mp3),
            other => Err(invalid(format!("export format {other:?}"), "choose wav, flac or mp3")),
        }
    }

    /// The encoding this format writes at `bits` per sample (16 or 24;
    /// MP3 has no bit depth and ignores it).
    pub fn encoding(self, bits: u16) -> Encoding {
        match (self, bits) {
            (ExportFormat::Wav, 16) => Encoding::WavPcm16,
            (ExportFormat::Wav, _) => Encoding::WavPcm24,
            (ExportFormat::Flac, 16) => Encoding::Flac16,
            (ExportFormat::Flac, _) => Encoding::Flac24,
            (ExportFormat::Mp3, _) => Encoding::Mp3 { bitrate_kbps: 192 },
        }
    }

    /// The file name extension, without the dot.
    pub fn extension(self) -> &'static str {
        self.encoding(DEFAULT_BITS).extension()
    }
}

/// The sample rates an export delivers at, Hz: 48 kHz (film, television,
/// streaming) or 44.1 kHz (music services, CD).
pub const DELIVERY_RATES: [u32; 2] = [48_000, 44_100];
/// The bit depths of a WAV or FLAC delivery.
pub const DELIVERY_BITS: [u16; 2] = [24, 16];
const DEFAULT_BITS: u16 = 24;

/// The sample rate and bit depth of every audio file an export delivers
/// (mix, stems, handoff media, the muxed picture's dub streams).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct AudioDelivery {
    /// 48 000 or 44 100 Hz.
    pub sample_rate: u32,
    /// 24 or 16 bits per sample in WAV and FLAC (MP3 has no bit depth).
    pub bits: u16,
}

impl Default for AudioDelivery {
    /// 48 kHz, 24-bit.
    fn default() -> Self {
        AudioDelivery { sample_rate: DELIVERY_RATES[0], bits: DEFAULT_BITS }
    }
}

impl AudioDelivery {
    /// A delivery at `sample_rate` Hz and `bits` per sample, refused unless
    /// both are ones an export writes.
    pub fn new(sample_rate: u32, bits: u16) -> Result<AudioDelivery> {
        if !DELIVERY_RATES.contains(&sample_rate) {
            return Err(invalid(format!("delivery sample rate {sample_rate} Hz"), "exports are delivered at 48000 or 44100 Hz"));
        }
        if !DELIVERY_BITS.contains(&bits) {
            return Err(invalid(format!("delivery bit depth {bits}"), "exports are delivered at 24 or 16 bits"));
        }
        Ok(AudioDelivery { sample_rate, bits })
    }

    /// A delivery from a rate as typed (`48000`, `48k`, `48 kHz`, `44100`,
    /// `44.1k`) and a depth as typed (`24`, `16`, `24-bit`).
    pub fn parse(sample_rate: &str, bits: &str) -> Result<AudioDelivery> {
        let rate_text = sample_rate.trim().to_ascii_lowercase();
        let rate_text = rate_text.trim_end_matches("hz").trim();
        let rate = match rate_text.strip_suffix('k') {
            Some(khz) => khz.trim().parse::<f64>().map(|k| k * 1000.0),
            None => rate_text.parse::<f64>(),
        };
        let rate = match rate {
            Ok(hz) if (hz - hz.round()).abs() < 1e-6 && (1.0..=f64::from(u32::MAX)).contains(&hz) => hz.round() as u32,
            _ => return Err(invalid(format!("sample rate {sample_rate:?}"), "choose 48000 (48 kHz) or 44100 (44.1 kHz)")),
        };
        let depth_text = bits.trim().to_ascii_lowercase();
        let depth_text = depth_text.trim_end_matches("bits").trim_end_matches("bit").trim_end_matches(['-', ' ']);
        let Ok(depth) = depth_text.parse::<u16>() else {
            return Err(invalid(format!("bit depth {bits:?}"), "choose 24 or 16"));
        };
        AudioDelivery::new(rate, depth)
    }
}

/// The bits per sample of an encoding's integers (`None` for MP3).
fn bits_of(encoding: Encoding) -> Option<u16> {
    match encoding {
        Encoding::WavPcm16 | Encoding::Flac16 => Some(16),
        Encoding::WavPcm24 | Encoding::Flac24 => Some(24),
        Encoding::WavFloat32 => Some(32),
        Encoding::Mp3 { .. } => None,
    }
}

/// What a written file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExportedKind {
    /// The mastered programme.
    Mix,
    /// The voice track alone.
    VoiceStem,
    /// The ducked bed alone.
    BedStem,
    /// The mix's loudness report (JSON).
    LoudnessReport,
    /// The dialogue as SubRip subtitles.
    Srt,
    /// The dialogue as WebVTT subtitles.
    Vtt,
}

/// The loudness a programme is delivered at: a target and a true-peak
/// ceiling, named.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoudnessSpec {
    /// What it is called ("EBU R128", "ATSC A/85", "-18.0 LUFS").
    pub name: String,
    pub target_lufs: f64,
    pub ceiling_dbtp: f64,
}

/// The delivery presets: (key, name, target LUFS, ceiling dBTP).
pub const LOUDNESS_PRESETS: [(&str, &str, f64, f64); 4] = [
    ("ebu", "EBU R128", -23.0, -1.0),
    ("stream16", "streaming -16 LUFS", -16.0, -1.0),
    ("stream14", "streaming -14 LUFS", -14.0, -1.0),
    ("atsc", "ATSC A/85", -24.0, -2.0),
];

/// Off its target by more than this, a delivered mix misses it, LU.
pub const LOUDNESS_TOLERANCE_LU: f64 = 0.5;

impl LoudnessSpec {
    /// A preset by its key (`ebu`, `stream16`, `stream14`, `atsc`), or a
    /// target in LUFS of one's own (with a -1 dBTP ceiling).
    pub fn parse(text: &str) -> Result<LoudnessSpec> {
        let key = text.trim().to_ascii_lowercase();
        if let Some(&(_, name, target, ceiling)) = LOUDNESS_PRESETS.iter().find(|p| p.0 == key) {
            return Ok(LoudnessSpec { name: name.to_string(), target_lufs: target, ceiling_dbtp: ceiling });
        }
        match key.trim_end_matches("lufs").trim().parse::<f64>() {
            Ok(target) if (-70.0..=0.0).contains(&target) => Ok(LoudnessSpec::of(target, -1.0)),
            _ => Err(invalid(format!("loudness {text:?}"), "choose ebu, stream16, stream14 or atsc, or a target in LUFS from -70 to 0")),
        }
    }

    /// The spec a target and ceiling are: a preset's name when they are one's.
    pub fn of(target_lufs: f64, ceiling_dbtp: f64) -> LoudnessSpec {
        let name = LOUDNESS_PRESETS
            .iter()
            .find(|p| (p.2 - target_lufs).abs() < 1e-9 && (p.3 - ceiling_dbtp).abs() < 1e-9)
            .map_or_else(|| format!("{target_lufs:.1} LUFS"), |p| p.1.to_string());
        LoudnessSpec { name, target_lufs, ceiling_dbtp }
    }

    /// The mix settings that master to this spec.
    pub fn mix_settings(&self) -> MixSettings {
        let mut settings = MixSettings { loudness_target_lufs: self.target_lufs, ..MixSettings::default() };
        settings.limiter.ceiling_dbtp = self.ceiling_dbtp;
        settings
    }
}

/// A delivered mix's loudness report, as written beside it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeliveryReport {
    /// The mix it measures (its file name).
    pub file: String,
    /// The mix's sample rate, Hz (the loudness is measured at it).
    pub sample_rate: u32,
    /// Bits per sample of the mix (`None` for MP3).
    pub bits_per_sample: Option<u16>,
    pub delivery: LoudnessSpec,
    #[serde(flatten)]
    pub measured: loudness::LoudnessReport,
    pub duration_s: f64,
    /// Integrated loudness within [`LOUDNESS_TOLERANCE_LU`] of the target
    /// and the true peak at or under the ceiling.
    pub meets_delivery: bool,
}

impl DeliveryReport {
    /// One line for a person: the file's rate and depth, the figures and
    /// whether they meet the delivery.
    pub fn summary(&self) -> String {
        let m = &self.measured;
        let lufs = |v: Option<f64>| v.map_or("–".to_string(), |v| format!("{v:.1}"));
        let depth = self.bits_per_sample.map_or(String::new(), |bits| format!(", {bits}-bit"));
        format!(
            "{} kHz{depth}: {} LUFS integrated, range {} LU, true peak {:.1} dBTP, short-term max {} LUFS: {} {}",
            self.sample_rate as f64 / 1000.0,
            lufs(m.integrated_lufs),
            lufs(m.loudness_range_lu),
            m.true_peak_dbtp,
            lufs(m.short_term_max_lufs),
            if self.meets_delivery { "meets" } else { "misses" },
            self.delivery.name
        )
    }
}

/// One file an export wrote.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExportedFile {
    pub path: PathBuf,
    pub kind: ExportedKind,
    /// Length of the audio as decoded back from the file, seconds (`None`
    /// for subtitles).
    pub duration_s: Option<f64>,
    /// Samples decoded back from the file (`None` for subtitles).
    pub samples: Option<usize>,
}

/// What an export wrote and how the mix measures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExportReport {
    /// Every file written, the mix first.
    pub files: Vec<ExportedFile>,
    /// The programme's length, seconds (every audio file has exactly its samples).
    pub duration_s: f64,
    /// Integrated loudness of the written mix, LUFS (`None` for a programme
    /// too quiet or short for the R128 gates).
    pub integrated_lufs: Option<f64>,
    /// True peak of the written mix, dBTP.
    pub true_peak_dbtp: f64,
    /// Normalisation gain applied to the mix and the stems, dB.
    pub gain_db: f64,
    /// The limiter's deepest gain reduction on the mix, dB.
    pub limiter_reduction_db: f64,
    /// The mix's loudness report (also written as `<base>.loudness.json`).
    pub delivery: DeliveryReport,
}

/// Passes progress on, never backwards (a re-encoded mix reports its
/// slot again).
struct Progress<'a> {
    report: &'a mut dyn FnMut(f32),
    last: f32,
}

impl Progress<'_> {
    fn set(&mut self, fraction: f32) {
        let fraction = fraction.clamp(self.last, 1.0);
        if fraction > self.last || fraction == 0.0 {
            self.last = fraction;
            (self.report)(fraction);
        }
    }
}

/// A bed stem's file suffix: `.bed` when it is the only one, else `.bed-1`, `.bed-2`, …
fn bed_suffix(index: usize, of: usize) -> String {
    if of == 1 {
        ".bed".into()
    } else {
        format!(".bed-{}", index + 1)
    }
}

fn invalid(input: impl Into<String>, reason: impl Into<String>) -> Error {
    Error::InvalidInput { input: input.into(), reason: reason.into() }
}

fn check_base_name(base_name: &str) -> Result<()> {
    let bad = base_name.is_empty() || base_name == "." || base_name == ".." || base_name.contains(['/', '\\']) || base_name.chars().any(|c| c.is_control());
    if bad {
        return Err(invalid(
            format!("export name {base_name:?}"),
            "must be a plain file name (no folders, not empty) to which .wav, .voice.wav, .srt … are added",
        ));
    }
    Ok(())
}

/// Exports `mix` (mono, `sample_rate`) into `out_dir` as `base_name` plus
/// extensions in `format` (WAV and FLAC at 24 bits), mastered with
/// `settings`' loudness target and limiter, with the voice and bed stems
/// when `stems` and subtitles beside it when `cues` are given (a cue's
/// speaker becomes its tag). `progress`
/// receives the fraction done (0 to 1). Every audio file holds exactly
/// `mix.len()` samples at `sample_rate`: the programme's duration.
#[allow(clippy::too_many_arguments)]
pub fn export_mix(
    mix: &Mix,
    sample_rate: u32,
    out_dir: &Path,
    base_name: &str,
    format: ExportFormat,
    settings: &MixSettings,
    cues: Option<&[Cue]>,
    stems: bool,
    progress: &mut dyn FnMut(f32),
) -> Result<ExportReport> {
    check_base_name(base_name)?;
    let staging = Staging::new(out_dir)?;
    let report = stage_mix(mix, sample_rate, &staging, out_dir, base_name, format.encoding(DEFAULT_BITS), settings, cues, stems, progress)?;
    staging.commit(&report.files.iter().map(|f| f.path.clone()).collect::<Vec<_>>())?;
    progress(1.0);
    Ok(report)
}

/// [`export_mix`] into `staging`: the report names the files where they
/// will be once the staging is committed. Progress ends just short of 1.
#[allow(clippy::too_many_arguments)]
fn stage_mix(
    mix: &Mix,
    sample_rate: u32,
    staging: &Staging,
    out_dir: &Path,
    base_name: &str,
    encoding: Encoding,
    settings: &MixSettings,
    cues: Option<&[Cue]>,
    stems: bool,
    progress: &mut dyn FnMut(f32),
) -> Result<ExportReport> {
    check_base_name(base_name)?;
    if mix.is_empty() {
        return Err(invalid(format!("export {base_name}"), "the programme is empty: nothing to export"));
    }
    let stems_fit = mix.voice.len() == mix.len() && mix.beds.iter().all(|b| b.len() == mix.len());
    if !stems_fit {
        return Err(invalid(format!("export {base_name}"), "the mix and its stems differ in length"));
    }
    let staged = |path: &Path| staging.path(path);
    let mut progress = Progress { report: progress, last: 0.0 };
    progress.set(0.0);

    let lossy = matches!(encoding, Encoding::Mp3 { .. });
    let units = if !stems { 1.0 } else { 2.0 + mix.beds.len() as f32 };
    let write = |kind: ExportedKind, suffix: &str, samples: &[f32], unit: f32, progress: &mut Progress<'_>| -> Result<(ExportedFile, Vec<f32>, u32)> {
        let path = out_dir.join(format!("{base_name}{suffix}.{}", encoding.extension()));
        let (base, share) = (0.98 * unit / units, 0.98 / units);
        let at = staged(&path);
        write_audio(&at, Pcm::mono(samples, sample_rate), encoding, &mut |p| progress.set(base + 0.85 * share * p))
            .map_err(|e| e.context(format!("cannot write {}", path.display())))?;
        let back = decode_file(&at)?;
        progress.set(base + share);
        if back.sample_rate != sample_rate || back.samples.len() != mix.len() {
            return Err(invalid(
                path.display().to_string(),
                format!(
                    "the written file holds {} samples at {} Hz but the programme has {} at {sample_rate} Hz",
                    back.samples.len(),
                    back.sample_rate,
                    mix.len()
                ),
            ));
        }
        let file = ExportedFile { path, kind, duration_s: Some(back.seconds()), samples: Some(back.samples.len()) };
        Ok((file, back.samples, back.sample_rate))
    };

    // The mix: mastered, written, measured as written. Lossy coding moves
    // the loudness (LAME loses a few tenths of a dB) and the peaks, so an
    // MP3 that misses the target by over 0.2 dB or the ceiling at all is
    // mastered again with the difference taken into account, once.
    let (mut target, mut limiter) = (settings.loudness_target_lufs, settings.limiter);
    let mut pass = 0;
    let (mix_file, measured, mastering) = loop {
        let mut master = mix.mixed.clone();
        let mastering = loudness::master(&mut master, 1, sample_rate, target, &limiter)?;
        let (file, back, rate) = write(ExportedKind::Mix, "", &master, 0.0, &mut progress)?;
        let measured = loudness::report(&back, 1, rate)?;
        let missed = measured.integrated_lufs.map_or(0.0, |l| settings.loudness_target_lufs - l);
        let over = measured.true_peak_dbtp - settings.limiter.ceiling_dbtp;
        pass += 1;
        if !lossy || pass == 2 || (missed.abs() <= 0.2 && over <= 0.0) {
            break (file, measured, mastering);
        }
        target += missed;
        limiter.ceiling_dbtp -= over.max(0.0);
    };

    // The stems: at the mix's gain, through the same limiter.
    let gain = 10f64.powf(mastering.gain_db / 20.0) as f32;
    let mut stem_tracks: Vec<(ExportedKind, String, &Vec<f32>)> = Vec::new();
    if stems {
        stem_tracks.push((ExportedKind::VoiceStem, ".voice".into(), &mix.voice));
        for (i, bed) in mix.beds.iter().enumerate() {
            stem_tracks.push((ExportedKind::BedStem, bed_suffix(i, mix.beds.len()), bed));
        }
    }
    let mut files = vec![mix_file];
    for (i, (kind, suffix, samples)) in stem_tracks.into_iter().enumerate() {
        let mut stem: Vec<f32> = samples.iter().map(|s| s * gain).collect();
        limiter.apply(&mut stem, 1, sample_rate)?;
        files.push(write(kind, &suffix, &stem, (i + 1) as f32, &mut progress)?.0);
    }

    let spec = LoudnessSpec::of(settings.loudness_target_lufs, settings.limiter.ceiling_dbtp);
    let meets_delivery =
        measured.integrated_lufs.is_some_and(|l| (l - spec.target_lufs).abs() <= LOUDNESS_TOLERANCE_LU) && measured.true_peak_dbtp <= spec.ceiling_dbtp + 1e-9;
    let file_name = files[0].path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let duration_s = mix.len() as f64 / sample_rate as f64;
    let delivery = DeliveryReport { file: file_name, sample_rate, bits_per_sample: bits_of(encoding), delivery: spec, measured, duration_s, meets_delivery };
    let report_path = out_dir.join(format!("{base_name}.loudness.json"));
    let json = serde_json::to_string_pretty(&delivery).expect("a loudness report serialises");
    revoice_core::fsutil::write_atomically(&staged(&report_path), json.as_bytes()).map_err(|e| e.context(format!("cannot write {}", report_path.display())))?;
    files.push(ExportedFile { path: report_path, kind: ExportedKind::LoudnessReport, duration_s: None, samples: None });

    if let Some(cues) = cues {
        for (kind, format, extension) in [(ExportedKind::Srt, SubtitleFormat::Srt, "srt"), (ExportedKind::Vtt, SubtitleFormat::Vtt, "vtt")] {
            let path = out_dir.join(format!("{base_name}.{extension}"));
            revoice_core::fsutil::write_atomically(&staged(&path), subtitles::write(cues, format).as_bytes())
                .map_err(|e| e.context(format!("cannot write {}", path.display())))?;
            files.push(ExportedFile { path, kind, duration_s: None, samples: None });
        }
    }
    Ok(ExportReport {
        files,
        duration_s: mix.len() as f64 / sample_rate as f64,
        integrated_lufs: delivery.measured.integrated_lufs,
        true_peak_dbtp: delivery.measured.true_peak_dbtp,
        gain_db: mastering.gain_db,
        limiter_reduction_db: mastering.limiting.max_reduction_db,
        delivery,
    })
}

/// What exporting one track wrote.
#[derive(Debug)]
pub struct TrackExport {
    pub language: String,
    pub report: ExportReport,
    /// The handoff files (`.rpp`, `.otio`, `.edl`) and their media folder, when asked for.
    pub handoff: Vec<PathBuf>,
}

/// What exporting a project wrote.
#[derive(Debug)]
pub struct ProjectExport {
    /// A mix (with its stems, report and subtitles) per language track.
    pub tracks: Vec<TrackExport>,
    /// The picture with the dubs muxed in, when asked for.
    pub video: Option<PathBuf>,
    /// Lines exported with a flag (doesn't fit, cut, overlapping, failed
    /// check), for the faces to list.
    pub flagged: Vec<crate::dub::flags::FlaggedLine>,
}

/// What a project's export needs besides its tracks.
pub struct ExportInputs<'a> {
    pub segments: &'a crate::dub::segment_store::SegmentStore,
    pub out_dir: &'a Path,
    pub format: ExportFormat,
    pub settings: &'a MixSettings,
    pub selection: &'a ExportSelection,
    /// The handoff EDL's timecode rate, frames per second (the picture's).
    pub frame_rate: u32,
    /// The project's markers, for the handoff files.
    pub markers: &'a [revoice_store::Marker],
}

/// Exports the resolved `tracks` of one project (those `selection`
/// names): one mix per language (`<name>.<language>.<ext>`) with its
/// stems and subtitles, the handoff files per language when asked, and
/// the picture with every dub muxed in (`<name>.<mp4|mov|mkv>`) when
/// asked, all at the selection's [`AudioDelivery`]. All or nothing: every
/// file is staged and moved into place only when all are written and
/// checked. `progress` gets the fraction done.
pub fn export_project(tracks: &[crate::dub::lines::TrackLines], inputs: &ExportInputs<'_>, progress: &mut dyn FnMut(f32)) -> Result<ProjectExport> {
    let (out_dir, selection) = (inputs.out_dir, inputs.selection);
    let audio = AudioDelivery::new(selection.audio.sample_rate, selection.audio.bits)?;
    let rate = audio.sample_rate;
    let Some(project) = tracks.first().map(|t| &t.project) else {
        return Err(invalid("export", "the project has no track"));
    };
    let chosen: Vec<&crate::dub::lines::TrackLines> = tracks
        .iter()
        .filter(|t| selection.languages.as_ref().is_none_or(|languages| languages.iter().any(|l| l.eq_ignore_ascii_case(&t.track.language))))
        .collect();
    if chosen.is_empty() {
        let asked = selection.languages.as_deref().unwrap_or_default().join(", ");
        return Err(invalid(format!("export of project {}", project.id), format!("it has no track in {asked}")));
    }
    let video = match (selection.with_video, &project.video_file) {
        (false, _) => None,
        (true, Some(video)) => Some(std::path::PathBuf::from(video)),
        (true, None) => {
            return Err(invalid(
                format!("export of project {} with its video", project.id),
                "the project has no video: attach one first (`revoice project video`)",
            ))
        }
    };
    let stem: String = project.name.chars().map(|c| if c.is_alphanumeric() || matches!(c, '-' | '_' | '.') { c } else { '_' }).collect();
    let staging = Staging::new(out_dir)?;
    let mut destinations = Vec::new();
    let mut done = Vec::new();
    let mut dubs = Vec::new();
    // The original dialogue, decoded once (at the delivery's rate) for every track's handoff.
    let original = match (&project.original_media, selection.handoff.is_empty()) {
        (Some(media), false) => {
            Some(crate::dub::assemble::load_bed(Path::new(media), rate).map_err(|e| e.context("reading the original dialogue for the handoff"))?)
        }
        _ => None,
    };
    let parts = chosen.len() as f32 + if video.is_some() { 0.5 } else { 0.0 };
    for (i, track) in chosen.iter().enumerate() {
        // Assembled at the delivery's rate: each take and the bed resampled once, from their files.
        let assembled = crate::dub::assemble::assemble_track(track, inputs.segments, rate, inputs.settings)?;
        let base = format!("{stem}.{}", track.track.language);
        let untagged: Vec<Cue>;
        let cues = match (selection.subtitles, selection.speaker_tags) {
            (false, _) => None,
            (true, true) => Some(assembled.cues.as_slice()),
            (true, false) => {
                untagged = assembled.cues.iter().map(|c| Cue { speaker: None, ..c.clone() }).collect();
                Some(untagged.as_slice())
            }
        };
        let handoff_share = if selection.handoff.is_empty() { 0.0 } else { 0.2 };
        let encoding = inputs.format.encoding(audio.bits);
        let report = stage_mix(&assembled.mix, assembled.sample_rate, &staging, out_dir, &base, encoding, inputs.settings, cues, selection.stems, &mut |f| {
            progress((i as f32 + f * (1.0 - handoff_share)) / parts)
        })?;
        destinations.extend(report.files.iter().map(|f| f.path.clone()));
        let handoff = if selection.handoff.is_empty() {
            Vec::new()
        } else {
            let gain = 10f64.powf(report.gain_db / 20.0) as f32;
            let media = HandoffMedia {
                sample_rate: rate,
                beds: &assembled.mix.beds,
                original: original.as_deref(),
                gain,
                frame_rate: inputs.frame_rate,
                markers: inputs.markers,
            };
            stage_handoff(track, inputs.segments, &media, &staging, out_dir, &base, &selection.handoff)?
        };
        destinations.extend(handoff.iter().cloned());
        progress((i + 1) as f32 / parts);
        dubs.push(crate::dub::picture::DubStream {
            language: track.track.language.clone(),
            mix: staging.path(&report.files[0].path),
            sample_rate: rate,
            subtitles: report.files.iter().find(|f| f.kind == ExportedKind::Srt).map(|f| staging.path(&f.path)),
        });
        done.push(TrackExport { language: track.track.language.clone(), report, handoff });
    }
    let muxed = match video {
        Some(video) => {
            let container = crate::dub::picture::MuxContainer::for_video(&video);
            let path = out_dir.join(format!("{stem}.{}", container.extension()));
            let plan = crate::dub::picture::MuxPlan { video, dubs, original_language: project.original_language.clone() };
            crate::dub::picture::mux(&plan, container, &staging.path(&path))?;
            destinations.push(path.clone());
            Some(path)
        }
        None => None,
    };
    staging.commit(&destinations)?;
    progress(1.0);
    Ok(ProjectExport { tracks: done, video: muxed, flagged: Vec::new() })
}

/// The audio a handoff lays beside the lines.
struct HandoffMedia<'a> {
    /// The delivery's rate, Hz: the beds and the original are at it, the lines are read at it.
    sample_rate: u32,
    /// The bed stems as mixed (before the mix's gain).
    beds: &'a [Vec<f32>],
    /// The original dialogue.
    original: Option<&'a [f32]>,
    /// The mix's normalisation gain (the clips and the bed are at it).
    gain: f32,
    frame_rate: u32,
    markers: &'a [revoice_store::Marker],
}

/// A file name part from a speaker's name: letters, digits, `-` and `_`.
fn file_part(name: &str) -> String {
    let part: String = name.chars().map(|c| if c.is_alphanumeric() || matches!(c, '-' | '_') { c } else { '_' }).collect();
    if part.is_empty() {
        "line".into()
    } else {
        part
    }
}

/// Writes a track's handoff into `staging`: its media folder
/// `<base>.handoff/` (each line as placed, the ducked bed and the original
/// dialogue, 32-bit float WAV at the mix's gain and the delivery's rate)
/// and a file per format,
/// referring to the media by paths relative to the export folder. Returns
/// where they will be once committed.
fn stage_handoff(
    track: &crate::dub::lines::TrackLines,
    segments: &crate::dub::segment_store::SegmentStore,
    media: &HandoffMedia<'_>,
    staging: &Staging,
    out_dir: &Path,
    base: &str,
    formats: &[HandoffFormat],
) -> Result<Vec<PathBuf>> {
    let rate = media.sample_rate;
    let folder_name = format!("{base}.handoff");
    let folder = out_dir.join(&folder_name);
    let staged_folder = staging.path(&folder);
    std::fs::create_dir_all(&staged_folder).map_err(|e| Error::io("create", &staged_folder, e))?;
    let write = |name: &str, samples: &[f32]| -> Result<String> {
        let scaled: Vec<f32> = samples.iter().map(|s| s * media.gain).collect();
        let path = staged_folder.join(name);
        write_audio(&path, Pcm::mono(&scaled, rate), Encoding::WavFloat32, &mut |_| {})
            .map_err(|e| e.context(format!("cannot write {}", folder.join(name).display())))?;
        Ok(format!("{folder_name}/{name}"))
    };
    let mut by_speaker: Vec<(String, Vec<HandoffClip>)> = Vec::new();
    let mut end = 0u64;
    for (i, line) in track.lines.iter().enumerate() {
        if !track.lanes.audible(line.segment.fields.speaker_id) {
            continue;
        }
        let Some(fitted) = track.fit_heard(segments, i, rate)? else {
            return Err(invalid(format!("handoff of {base}"), format!("line {} has no rendered audio: render the project first", line.segment.id)));
        };
        let speaker = track.speaker_name(line.segment.fields.speaker_id).unwrap_or_else(|| "Unassigned".into());
        let file = write(&format!("{:04}-{}.wav", i + 1, file_part(&speaker)), &fitted.audio)?;
        let start = (fitted.start.max(0.0) * rate as f64).round() as u64;
        let clip = HandoffClip { name: line.segment.fields.text.clone(), file, start, length: fitted.audio.len() as u64, segment_id: Some(line.segment.id) };
        end = end.max(clip.start + clip.length);
        match by_speaker.iter_mut().find(|(name, _)| *name == speaker) {
            Some((_, clips)) => clips.push(clip),
            None => by_speaker.push((speaker, vec![clip])),
        }
    }
    let mut tracks = lay_out_lanes(by_speaker);
    let mut extra: Vec<(String, HandoffTrackKind, &[f32], String)> = media
        .beds
        .iter()
        .enumerate()
        .map(|(i, bed)| {
            let name = if media.beds.len() == 1 { "Bed".to_string() } else { format!("Bed {}", i + 1) };
            (name, HandoffTrackKind::Bed, bed.as_slice(), format!("bed{}.wav", bed_suffix(i, media.beds.len()).trim_start_matches(".bed")))
        })
        .collect();
    if let Some(original) = media.original {
        extra.push(("Original".into(), HandoffTrackKind::Original, original, "original.wav".into()));
    }
    for (name, kind, samples, file) in extra {
        if !samples.is_empty() {
            let file = write(&file, samples)?;
            end = end.max(samples.len() as u64);
            tracks.push(HandoffTrack {
                name: name.clone(),
                kind,
                clips: vec![HandoffClip { name, file, start: 0, length: samples.len() as u64, segment_id: None }],
            });
        }
    }
    let markers = media.markers.iter().map(|m| HandoffMarker { name: m.name.clone(), at: (m.at_seconds.max(0.0) * rate as f64).round() as u64 }).collect();
    let timeline = HandoffTimeline {
        name: format!("{} ({})", track.project.name, track.track.language),
        sample_rate: rate,
        length: end,
        frame_rate: media.frame_rate,
        tracks,
        markers,
    };
    let mut written = vec![folder];
    for format in formats {
        let path = out_dir.join(format!("{base}.{}", format.extension()));
        revoice_core::fsutil::write_atomically(&staging.path(&path), format.write(&timeline).as_bytes())
            .map_err(|e| e.context(format!("cannot write {}", path.display())))?;
        written.push(path);
    }
    Ok(written)
}

/// Which of a project's files an export writes, and how.
#[derive(Debug, Clone, PartialEq)]
pub struct ExportSelection {
    /// The tracks by language; `None` exports every track.
    pub languages: Option<Vec<String>>,
    /// The voice and bed stems beside each mix.
    pub stems: bool,
    /// SRT and WebVTT beside each mix.
    pub subtitles: bool,
    /// The subtitles tag each cue with its speaker (`[Ana]`, `<v Ana>`).
    pub speaker_tags: bool,
    /// Handoff files per language (a Reaper project, OpenTimelineIO, a CMX EDL).
    pub handoff: Vec<HandoffFormat>,
    /// The picture with the dubs muxed in (the project must have one).
    pub with_video: bool,
    /// The sample rate and bit depth of every audio file.
    pub audio: AudioDelivery,
    /// Refuse the export while any chosen line is flagged (`--strict`).
    pub refuse_flagged: bool,
}

impl Default for ExportSelection {
    /// Every track with its stems and subtitles (no speaker tags) at
    /// 48 kHz, 24-bit; no handoff, no picture.
    fn default() -> Self {
        ExportSelection {
            languages: None,
            stems: true,
            subtitles: true,
            speaker_tags: false,
            handoff: Vec::new(),
            with_video: false,
            audio: AudioDelivery::default(),
            refuse_flagged: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dub::mix::{mix_voice_track, mix_with_bed, samples_in};

    const RATE: u32 = 24_000;

    fn voice_like(seconds: f64, amplitude: f32, rate: u32) -> Vec<f32> {
        // A 150 Hz buzz with a 4 Hz syllable envelope.
        (0..samples_in(seconds, rate))
            .map(|n| {
                let t = n as f32 / rate as f32;
                let syllables = 0.5 + 0.5 * (std::f32::consts::TAU * 4.0 * t).sin();
                amplitude * syllables * (std::f32::consts::TAU * 150.0 * t).sin()
            })
            .collect()
    }

    fn programme(with_bed: bool) -> (Mix, Vec<Cue>) {
        programme_at(with_bed, RATE)
    }

    fn programme_at(with_bed: bool, rate: u32) -> (Mix, Vec<Cue>) {
        let cues = vec![
            Cue { start: 0.5, end: 2.0, text: "Where were you?".into(), speaker: Some("Alice".into()) },
            Cue { start: 2.5, end: 4.0, text: "At home, reading.".into(), speaker: None },
        ];
        let lines: Vec<(f64, Vec<f32>)> = cues.iter().map(|c| (c.start, voice_like(c.end - c.start, 0.1, rate))).collect();
        let voice = mix_voice_track(&lines, 5.0, rate);
        let bed: Vec<f32> = (0..samples_in(3.0, rate)).map(|n| 0.05 * (n as f32 * 0.031).sin()).collect();
        let mix = mix_with_bed(&voice, with_bed.then_some(bed.as_slice()), rate, &Default::default(), -6.0);
        (mix, cues)
    }

    #[test]
    fn an_export_writes_the_mix_stems_and_subtitles_at_the_programmes_length() {
        let (mix, cues) = programme(true);
        let settings = MixSettings::streaming();
        for format in [ExportFormat::Wav, ExportFormat::Flac, ExportFormat::Mp3] {
            let dir = tempfile::tempdir().unwrap();
            let mut reports = Vec::new();
            let report = export_mix(&mix, RATE, dir.path(), "episode-1.fr", format, &settings, Some(&cues), true, &mut |p| reports.push(p)).unwrap();
            let ext = format.extension();
            let names: Vec<String> = report.files.iter().map(|f| f.path.file_name().unwrap().to_string_lossy().into_owned()).collect();
            assert_eq!(
                names,
                [
                    format!("episode-1.fr.{ext}"),
                    format!("episode-1.fr.voice.{ext}"),
                    format!("episode-1.fr.bed.{ext}"),
                    "episode-1.fr.loudness.json".into(),
                    "episode-1.fr.srt".into(),
                    "episode-1.fr.vtt".into()
                ]
            );
            for file in &report.files {
                assert!(file.path.is_file(), "{}", file.path.display());
                if let Some(samples) = file.samples {
                    assert_eq!(samples, samples_in(5.0, RATE), "{format:?}: {}", file.path.display());
                    assert_eq!(file.duration_s, Some(5.0));
                }
            }
            assert_eq!(report.duration_s, 5.0);
            // Measured on the files as written, MP3 coding included.
            let lufs = report.integrated_lufs.unwrap();
            assert!((lufs + 16.0).abs() < 0.5, "{format:?}: {lufs:.2} LUFS");
            assert!(report.true_peak_dbtp <= settings.limiter.ceiling_dbtp + 0.1, "{format:?}: {:.2} dBTP", report.true_peak_dbtp);
            assert!(reports.windows(2).all(|w| w[0] <= w[1]) && reports.last() == Some(&1.0), "{reports:?}");
            let srt = std::fs::read_to_string(dir.path().join("episode-1.fr.srt")).unwrap();
            assert_eq!(subtitles::parse_srt(&srt, "episode-1.fr.srt").unwrap(), cues);
            let vtt = std::fs::read_to_string(dir.path().join("episode-1.fr.vtt")).unwrap();
            assert_eq!(subtitles::parse_vtt(&vtt, "episode-1.fr.vtt").unwrap(), cues);
        }
    }

    #[test]
    fn each_delivery_preset_is_met_and_its_report_is_written_beside_the_mix() {
        let (mix, _) = programme(true);
        for key in ["ebu", "stream16", "stream14", "atsc"] {
            let spec = LoudnessSpec::parse(key).unwrap();
            let dir = tempfile::tempdir().unwrap();
            let report = export_mix(&mix, RATE, dir.path(), "show", ExportFormat::Wav, &spec.mix_settings(), None, false, &mut |_| {}).unwrap();
            let written: DeliveryReport = serde_json::from_str(&std::fs::read_to_string(dir.path().join("show.loudness.json")).unwrap()).unwrap();
            assert_eq!((&written.delivery, written.meets_delivery), (&report.delivery.delivery, report.delivery.meets_delivery));
            assert!((written.measured.integrated_lufs.unwrap() - report.delivery.measured.integrated_lufs.unwrap()).abs() < 1e-9);
            assert_eq!((written.file.as_str(), written.delivery.name.as_str()), ("show.wav", spec.name.as_str()));
            assert!(written.meets_delivery, "{key}: {}", written.summary());
            assert!(written.measured.true_peak_dbtp <= spec.ceiling_dbtp + 1e-9 && written.measured.short_term_max_lufs.is_some(), "{key}: {written:?}");
        }
        assert_eq!(LoudnessSpec::parse("atsc").unwrap(), LoudnessSpec { name: "ATSC A/85".into(), target_lufs: -24.0, ceiling_dbtp: -2.0 });
        assert_eq!(LoudnessSpec::parse("-18").unwrap().name, "-18.0 LUFS");
        assert_eq!(LoudnessSpec::of(-23.0, -1.0).name, "EBU R128");
        assert!(LoudnessSpec::parse("loud").unwrap_err().to_string().contains("ebu, stream16, stream14 or atsc"));
    }

    #[test]
    fn a_delivery_is_48_khz_24_bit_unless_44_1_khz_or_16_bit_is_asked_for() {
        assert_eq!(AudioDelivery::default(), AudioDelivery { sample_rate: 48_000, bits: 24 });
        assert_eq!(ExportSelection::default().audio, AudioDelivery::default());
        assert!(!ExportSelection::default().speaker_tags);
        for (rate, bits, expected) in
            [("48000", "24", (48_000, 24)), ("48k", "16", (48_000, 16)), (" 44.1 kHz ", "24-bit", (44_100, 24)), ("44100Hz", "16 bits", (44_100, 16))]
        {
            assert_eq!(AudioDelivery::parse(rate, bits).unwrap(), AudioDelivery { sample_rate: expected.0, bits: expected.1 }, "{rate} {bits}");
        }
        for (rate, bits, named, reason) in [
            ("96000", "24", "96000 Hz", "48000 or 44100 Hz"),
            ("22.05k", "24", "22050 Hz", "48000 or 44100 Hz"),
            ("fast", "24", "\"fast\"", "48000 (48 kHz) or 44100 (44.1 kHz)"),
            ("48000", "32", "bit depth 32", "24 or 16 bits"),
            ("48000", "deep", "\"deep\"", "24 or 16"),
        ] {
            let err = AudioDelivery::parse(rate, bits).unwrap_err().to_string();
            assert!(err.contains(named) && err.contains(reason), "{rate} {bits}: {err}");
        }
        assert_eq!(ExportFormat::Wav.encoding(24), Encoding::WavPcm24);
        assert_eq!(ExportFormat::Wav.encoding(16), Encoding::WavPcm16);
        assert_eq!(ExportFormat::Flac.encoding(16), Encoding::Flac16);
        assert_eq!(ExportFormat::Mp3.encoding(16), ExportFormat::Mp3.encoding(24));
    }

    #[test]
    fn a_mix_at_48_khz_is_written_as_24_bit_wav_and_its_report_says_so() {
        let (mix, _) = programme_at(true, 48_000);
        let dir = tempfile::tempdir().unwrap();
        let spec = LoudnessSpec::parse("ebu").unwrap();
        let report = export_mix(&mix, 48_000, dir.path(), "show", ExportFormat::Wav, &spec.mix_settings(), None, true, &mut |_| {}).unwrap();
        for file in report.files.iter().filter(|f| f.samples.is_some()) {
            let wav = hound::WavReader::open(&file.path).unwrap().spec();
            assert_eq!((wav.sample_rate, wav.bits_per_sample, wav.sample_format), (48_000, 24, hound::SampleFormat::Int), "{}", file.path.display());
            assert_eq!(file.samples, Some(mix.len()));
        }
        let written: DeliveryReport = serde_json::from_str(&std::fs::read_to_string(dir.path().join("show.loudness.json")).unwrap()).unwrap();
        assert_eq!((written.sample_rate, written.bits_per_sample), (48_000, Some(24)));
        assert!(written.meets_delivery, "{}", written.summary());
        assert!(written.summary().starts_with("48 kHz, 24-bit: -23.0 LUFS integrated"), "{}", written.summary());
    }

    #[test]
    fn the_stems_line_up_with_the_mix() {
        let (mix, _) = programme(true);
        let dir = tempfile::tempdir().unwrap();
        let settings = MixSettings::default();
        export_mix(&mix, RATE, dir.path(), "take", ExportFormat::Flac, &settings, None, true, &mut |_| {}).unwrap();
        let read = |name: &str| decode_file(&dir.path().join(name)).unwrap().samples;
        let (mixed, voice, bed) = (read("take.flac"), read("take.voice.flac"), read("take.bed.flac"));
        // At -23 LUFS nothing reaches the ceiling: voice + bed = mix to 24-bit precision.
        let worst = mixed.iter().zip(voice.iter().zip(&bed)).map(|(m, (v, b))| (m - v - b).abs()).fold(0f32, f32::max);
        assert!(worst < 1e-5, "{worst}");
    }

    #[test]
    fn without_a_bed_or_cues_only_the_mix_and_the_voice_are_written() {
        let (mix, _) = programme(false);
        let dir = tempfile::tempdir().unwrap();
        let report = export_mix(&mix, RATE, dir.path(), "dry", ExportFormat::Wav, &MixSettings::default(), None, true, &mut |_| {}).unwrap();
        let kinds: Vec<ExportedKind> = report.files.iter().map(|f| f.kind).collect();
        assert_eq!(kinds, [ExportedKind::Mix, ExportedKind::VoiceStem, ExportedKind::LoudnessReport]);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 3);
        let lufs = report.integrated_lufs.unwrap();
        assert!((lufs + 23.0).abs() < 0.5, "{lufs}");
    }

    #[test]
    fn without_stems_only_the_mix_is_written_and_mastered_the_same() {
        let (mix, _) = programme(true);
        let dir = tempfile::tempdir().unwrap();
        let all = export_mix(&mix, RATE, &dir.path().join("all"), "a", ExportFormat::Wav, &MixSettings::default(), None, true, &mut |_| {}).unwrap();
        let mut reports = Vec::new();
        let alone =
            export_mix(&mix, RATE, &dir.path().join("alone"), "a", ExportFormat::Wav, &MixSettings::default(), None, false, &mut |p| reports.push(p)).unwrap();
        assert_eq!(alone.files.iter().map(|f| f.kind).collect::<Vec<_>>(), [ExportedKind::Mix, ExportedKind::LoudnessReport]);
        assert_eq!(std::fs::read_dir(dir.path().join("alone")).unwrap().count(), 2);
        assert_eq!(alone.gain_db, all.gain_db);
        assert_eq!(reports.last(), Some(&1.0));
        assert!(reports.windows(2).all(|w| w[0] <= w[1]));
    }

    #[test]
    fn a_name_with_folders_or_an_unwritable_folder_is_refused_by_name() {
        let (mix, _) = programme(false);
        let dir = tempfile::tempdir().unwrap();
        let err = export_mix(&mix, RATE, dir.path(), "../escape", ExportFormat::Wav, &MixSettings::default(), None, true, &mut |_| {}).unwrap_err().to_string();
        assert!(err.contains("../escape") && err.contains("plain file name"), "{err}");
        let blocker = dir.path().join("not-a-folder");
        std::fs::write(&blocker, b"").unwrap();
        let err =
            export_mix(&mix, RATE, &blocker.join("out"), "x", ExportFormat::Wav, &MixSettings::default(), None, true, &mut |_| {}).unwrap_err().to_string();
        assert!(err.contains("not-a-folder"), "{err}");
    }
}
