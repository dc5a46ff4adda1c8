//! Delivery: a default export checked with ffprobe (mix, stems, handoff
//! media and the muxed dubs at 48 kHz, 24-bit, EBU R128 met) and one at
//! 44.1 kHz, 16-bit on request; a project with a picture exported with the
//! dubs muxed in (checked with ffprobe and ffmpeg), and the handoff files read by the
//! tools they are for (OpenTimelineIO's Python package for `.otio` and
//! its CMX 3600 adapter for `.edl`; a reader of Reaper's chunk format for
//! `.rpp`), every line at its fitted time. The lines are rendered by the
//! scripted model: what is checked here is the delivery, not the voice.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use revoice_engine::dub::export::{AudioDelivery, DeliveryReport, ExportFormat, ExportSelection, ExportedKind, LoudnessSpec, ProjectExport};
use revoice_engine::dub::handoff::HandoffFormat;
use revoice_engine::dub::pipeline::RenderScope;
use revoice_engine::subtitles::parse_srt;
use revoice_engine::testing::{scripted_engine, ScriptedModel};
use revoice_engine::{Engine, ExportRequest};

const SCENE: &str = "1\n00:00:00,500 --> 00:00:02,500\n[Ana] The boats are in.\n\n2\n00:00:02,000 --> 00:00:04,000\n[Ben] Light the lamp.\n\n3\n00:00:05,500 --> 00:00:07,500\n[Ana] It is lit.\n";
const ESCENA: &str = "1\n00:00:00,500 --> 00:00:02,500\n[Ana] Los barcos han vuelto.\n\n2\n00:00:02,000 --> 00:00:04,000\n[Ben] Enciende la lámpara.\n\n3\n00:00:05,500 --> 00:00:07,500\n[Ana] Ya está encendida.\n";

struct Dub {
    runtime: tokio::runtime::Runtime,
    engine: Arc<Engine>,
    project: i64,
    dir: tempfile::TempDir,
    _data: tempfile::TempDir,
}

/// A two-language project over the scripted model, rendered, natural timing (Ben talks over Ana).
fn rendered_dub() -> Dub {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let (engine, data) = runtime.block_on(scripted_engine(Arc::new(ScriptedModel::new()))).unwrap();
    let engine = Arc::new(engine);
    let (project, track) = runtime.block_on(engine.create_project("Harbour night", "en-US")).unwrap();
    runtime.block_on(engine.store().import_cues(&track, &parse_srt(SCENE, "scene.srt").unwrap())).unwrap();
    let spanish = runtime.block_on(engine.track_for(project.id, Some("es"))).unwrap();
    runtime.block_on(engine.store().import_cues(&spanish, &parse_srt(ESCENA, "escena.srt").unwrap())).unwrap();
    for (speaker, voice) in [("Ana", "ef_dora"), ("Ben", "em_alex")] {
        let id = runtime.block_on(engine.speaker_named(project.id, speaker)).unwrap().id;
        runtime.block_on(engine.set_speaker_voice(project.id, id, voice, Some("es"))).unwrap();
    }
    runtime.block_on(engine.set_strategy(project.id, revoice_engine::dub::timing::TimingStrategy::Natural)).unwrap();
    let summary = engine.render_project(project.id, &RenderScope::default(), &AtomicBool::new(false), &mut |_| {}).unwrap();
    assert!(summary.failed.is_empty(), "{:?}", summary.failed);
    Dub { runtime, engine, project: project.id, dir: tempfile::tempdir().unwrap(), _data: data }
}

fn ffmpeg(args: &[&str]) -> Vec<u8> {
    let out = Command::new("ffmpeg").args(["-nostdin", "-v", "error"]).args(args).output().expect("ffmpeg runs (scripts/test installs it)");
    assert!(out.status.success(), "ffmpeg {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    out.stdout
}

/// A 9 s picture with its own audio, as a camera would give.
fn scene_video(dir: &Path) -> PathBuf {
    revoice_tests::media::scene_video(dir, 9)
}

/// The rate a default export delivers at, and so the rate of the handoff's samples.
const DELIVERY_RATE: u32 = 48_000;

fn export(dub: &Dub, selection: ExportSelection) -> ProjectExport {
    export_into(dub, "out", selection)
}

fn export_into(dub: &Dub, folder: &str, selection: ExportSelection) -> ProjectExport {
    let request = ExportRequest { folder: dub.dir.path().join(folder), format: ExportFormat::Wav, loudness: LoudnessSpec::parse("ebu").unwrap(), selection };
    dub.engine.export_project(dub.project, &request, &mut |_| {}).unwrap()
}

/// Each audio stream of `file` as ffprobe reads it: (codec, sample rate, bits per sample).
fn audio_format(file: &Path) -> Vec<(String, u32, u32)> {
    let out = Command::new("ffprobe")
        .args(["-v", "error", "-select_streams", "a", "-show_entries", "stream=sample_rate,bits_per_raw_sample,bits_per_sample,codec_name", "-of", "json"])
        .arg(file)
        .output()
        .expect("ffprobe runs (scripts/test installs it)");
    assert!(out.status.success(), "ffprobe {}: {}", file.display(), String::from_utf8_lossy(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let number = |v: &serde_json::Value| v.as_u64().or_else(|| v.as_str().and_then(|s| s.parse().ok())).unwrap_or(0) as u32;
    json["streams"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            // PCM states its depth as bits_per_sample; ALAC and FLAC as bits_per_raw_sample.
            let bits = number(&s["bits_per_raw_sample"]).max(number(&s["bits_per_sample"]));
            (s["codec_name"].as_str().unwrap().to_string(), number(&s["sample_rate"]), bits)
        })
        .collect()
}

#[test]
fn a_default_export_is_48_khz_24_bit_and_meets_ebu_r128_with_its_stems_handoff_media_and_muxed_dubs() {
    let dub = rendered_dub();
    let video = scene_video(dub.dir.path());
    dub.runtime.block_on(dub.engine.attach_video(dub.project, &video, false, Some("fr"))).unwrap();
    let export = export(&dub, ExportSelection { with_video: true, handoff: vec![HandoffFormat::Otio], ..Default::default() });
    let out = dub.dir.path().join("out");
    for track in &export.tracks {
        let audio: Vec<&Path> = track.report.files.iter().filter(|f| f.samples.is_some()).map(|f| f.path.as_path()).collect();
        assert_eq!(audio.len(), 2, "the mix and the voice stem: {:?}", track.report.files);
        for file in audio {
            assert_eq!(audio_format(file), [("pcm_s24le".to_string(), 48_000, 24)], "{}", file.display());
        }
        // The loudness report: measured at 48 kHz on the file as written, EBU R128 met.
        let report = track.report.files.iter().find(|f| f.kind == ExportedKind::LoudnessReport).unwrap();
        let written: DeliveryReport = serde_json::from_str(&std::fs::read_to_string(&report.path).unwrap()).unwrap();
        assert_eq!((written.sample_rate, written.bits_per_sample, written.delivery.name.as_str()), (48_000, Some(24), "EBU R128"));
        let lufs = written.measured.integrated_lufs.unwrap();
        assert!(written.meets_delivery && (lufs + 23.0).abs() <= 0.5 && written.measured.true_peak_dbtp <= -1.0, "{}: {}", track.language, written.summary());
        // The handoff's media: every line and the original dialogue at 48 kHz.
        let media = out.join(format!("Harbour_night.{}.handoff", track.language));
        let files: Vec<PathBuf> = std::fs::read_dir(&media).unwrap().map(|e| e.unwrap().path()).collect();
        assert_eq!(files.len(), 4, "three lines and the original: {files:?}");
        for file in &files {
            assert_eq!(audio_format(file), [("pcm_f32le".to_string(), 48_000, 32)], "{}", file.display());
        }
        // Subtitles carry no speaker tags unless asked.
        let srt = std::fs::read_to_string(out.join(format!("Harbour_night.{}.srt", track.language))).unwrap();
        assert!(!srt.contains("[Ana]") && !srt.contains("[Ben]"), "{srt}");
        assert!(parse_srt(&srt, "export.srt").unwrap().iter().all(|c| c.speaker.is_none()));
    }
    // The muxed picture: both dubs lossless, mono, at 48 kHz, 24-bit; the camera's own audio as it was.
    let picture = export.video.expect("a muxed picture");
    let muxed = audio_format(&picture);
    assert_eq!(&muxed[..2], [("alac".to_string(), 48_000, 24), ("alac".to_string(), 48_000, 24)]);
    assert_eq!(muxed[2].0, "aac");
    let dubs = &streams(&picture)[1..3];
    assert!(dubs.iter().all(|s| s["channels"] == 1 && s["channel_layout"] == "mono"), "{dubs:?}");
}

#[test]
fn an_export_at_44_1_khz_16_bit_is_written_so_when_asked_with_speaker_tags_when_asked() {
    let dub = rendered_dub();
    let audio = AudioDelivery::parse("44.1k", "16").unwrap();
    let selection =
        ExportSelection { languages: Some(vec!["en-US".into()]), speaker_tags: true, handoff: vec![HandoffFormat::Rpp], audio, ..Default::default() };
    let export = export_into(&dub, "cd", selection);
    let report = &export.tracks[0].report;
    for file in report.files.iter().filter(|f| f.samples.is_some()) {
        assert_eq!(audio_format(&file.path), [("pcm_s16le".to_string(), 44_100, 16)], "{}", file.path.display());
    }
    assert!(report.delivery.meets_delivery && report.delivery.sample_rate == 44_100, "{}", report.delivery.summary());
    let media = dub.dir.path().join("cd/Harbour_night.en-US.handoff");
    let line = std::fs::read_dir(&media).unwrap().map(|e| e.unwrap().path()).find(|p| p.file_name().unwrap().to_string_lossy().starts_with("0001-")).unwrap();
    assert_eq!(audio_format(&line)[0].1, 44_100, "{}", line.display());
    let rpp = std::fs::read_to_string(dub.dir.path().join("cd/Harbour_night.en-US.rpp")).unwrap();
    assert!(rpp.contains("SAMPLERATE 44100"), "{rpp}");
    // Asked for, the speakers are tagged.
    let srt = std::fs::read_to_string(dub.dir.path().join("cd/Harbour_night.en-US.srt")).unwrap();
    let speakers: Vec<Option<String>> = parse_srt(&srt, "cd.srt").unwrap().into_iter().map(|c| c.speaker).collect();
    assert_eq!(speakers, [Some("Ana".to_string()), Some("Ben".to_string()), Some("Ana".to_string())], "{srt}");
    let vtt = std::fs::read_to_string(dub.dir.path().join("cd/Harbour_night.en-US.vtt")).unwrap();
    assert!(vtt.contains("<v Ben>Light the lamp."), "{vtt}");
}

fn streams(file: &Path) -> Vec<serde_json::Value> {
    let out = Command::new("ffprobe").args(["-v", "error", "-print_format", "json", "-show_streams"]).arg(file).output().unwrap();
    assert!(out.status.success());
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    json["streams"].as_array().unwrap().clone()
}

#[test]
fn the_picture_is_exported_with_each_dub_muxed_in_the_first_the_default_and_the_original_after_them() {
    let dub = rendered_dub();
    let video = scene_video(dub.dir.path());
    let attached = dub.runtime.block_on(dub.engine.attach_video(dub.project, &video, false, Some("fr"))).unwrap();
    assert!(attached.original_dialogue && attached.info.codec == "h264" && attached.info.frame_rate == 25.0, "{attached:?}");

    let export = export(&dub, ExportSelection { with_video: true, ..Default::default() });
    let muxed = export.video.expect("a muxed picture");
    assert_eq!(muxed.file_name().unwrap(), "Harbour_night.mp4");
    let streams = streams(&muxed);
    let kinds: Vec<(&str, &str)> = streams.iter().map(|s| (s["codec_type"].as_str().unwrap(), s["codec_name"].as_str().unwrap())).collect();
    assert_eq!(kinds, [("video", "h264"), ("audio", "alac"), ("audio", "alac"), ("audio", "aac"), ("subtitle", "mov_text"), ("subtitle", "mov_text")]);
    let language = |i: usize| streams[i]["tags"]["language"].as_str().unwrap_or("").to_string();
    let default = |i: usize| streams[i]["disposition"]["default"].as_i64().unwrap();
    assert_eq!([language(1), language(2), language(3), language(4), language(5)], ["eng", "spa", "fra", "eng", "spa"]);
    assert_eq!([default(1), default(2), default(3)], [1, 0, 0], "the first dub is the default audio");
    assert_eq!(streams[3]["tags"]["handler_name"], "Original", "the original is named in the file");

    // The picture is copied: the same coded frames, byte for byte.
    let frames = |file: &Path| ffmpeg(&["-i", file.to_str().unwrap(), "-map", "0:v:0", "-c", "copy", "-f", "md5", "-"]);
    assert_eq!(frames(&muxed), frames(&video));
    // Each dub stream holds exactly its exported mix's samples.
    for (stream, track) in export.tracks.iter().enumerate() {
        let pcm = |file: &Path, map: &str| ffmpeg(&["-i", file.to_str().unwrap(), "-map", map, "-f", "s32le", "-"]);
        let mix = &track.report.files[0].path;
        let (muxed_pcm, mix_pcm) = (pcm(&muxed, &format!("0:a:{stream}")), pcm(mix, "0:a:0"));
        let first_difference = muxed_pcm.chunks(4).zip(mix_pcm.chunks(4)).position(|(a, b)| a != b);
        assert!(
            !mix_pcm.is_empty() && muxed_pcm == mix_pcm,
            "{}: the dub stream ({} samples) differs from {} ({} samples) from sample {first_difference:?}",
            track.language,
            muxed_pcm.len() / 4,
            mix.display(),
            mix_pcm.len() / 4
        );
    }
}

#[test]
fn a_picture_the_window_cannot_play_gets_a_webm_proxy_made_once() {
    let dub = rendered_dub();
    let err = dub.engine.picture_proxy(dub.project).unwrap_err().to_string();
    assert!(err.contains("has no video"), "{err}");
    let video = scene_video(dub.dir.path());
    dub.runtime.block_on(dub.engine.attach_video(dub.project, &video, false, None)).unwrap();
    let proxy = dub.engine.picture_proxy(dub.project).unwrap();
    let info = revoice_engine::dub::picture::probe(&proxy).unwrap();
    assert_eq!((info.codec.as_str(), info.width, info.height, info.audio.len()), ("vp8", 320, 240, 0), "{info:?}");
    assert!((info.duration_s - 9.0).abs() < 0.1, "{info:?}");
    let made = std::fs::metadata(&proxy).unwrap().modified().unwrap();
    assert_eq!(dub.engine.picture_proxy(dub.project).unwrap(), proxy);
    assert_eq!(std::fs::metadata(&proxy).unwrap().modified().unwrap(), made, "made once");
}

#[test]
fn a_video_export_without_a_picture_or_ffmpeg_is_refused_by_name_and_writes_nothing() {
    let dub = rendered_dub();
    let request = ExportRequest {
        folder: dub.dir.path().join("out"),
        format: ExportFormat::Wav,
        loudness: LoudnessSpec::parse("ebu").unwrap(),
        selection: ExportSelection { with_video: true, ..Default::default() },
    };
    let err = dub.engine.export_project(dub.project, &request, &mut |_| {}).unwrap_err().to_string();
    assert!(err.contains("has no video"), "{err}");
    assert!(!dub.dir.path().join("out").exists() || std::fs::read_dir(dub.dir.path().join("out")).unwrap().count() == 0);

    // A file that is not a video is refused as it is attached.
    let audio = dub.dir.path().join("tone.wav");
    ffmpeg(&["-y", "-f", "lavfi", "-i", "sine=frequency=220:sample_rate=24000", "-t", "1", audio.to_str().unwrap()]);
    let err = dub.runtime.block_on(dub.engine.attach_video(dub.project, &audio, false, None)).unwrap_err().to_string();
    assert!(err.contains("tone.wav") && err.contains("no video stream"), "{err}");
    let broken = dub.dir.path().join("broken.mp4");
    std::fs::write(&broken, b"not a video at all").unwrap();
    let err = dub.runtime.block_on(dub.engine.attach_video(dub.project, &broken, false, None)).unwrap_err().to_string();
    assert!(err.contains("broken.mp4") && err.contains("ffprobe cannot read it"), "{err}");
}

#[test]
fn music_and_effects_as_several_stems_each_at_its_level_are_exported_and_handed_off_stem_by_stem() {
    let dub = rendered_dub();
    let music = dub.dir.path().join("music.wav");
    let effects = dub.dir.path().join("effects.flac");
    ffmpeg(&["-y", "-f", "lavfi", "-i", "sine=frequency=220:sample_rate=24000", "-t", "9", "-af", "volume=0.2", music.to_str().unwrap()]);
    ffmpeg(&["-y", "-f", "lavfi", "-i", "anoisesrc=color=pink:amplitude=0.05:sample_rate=48000", "-t", "9", effects.to_str().unwrap()]);
    dub.runtime.block_on(dub.engine.set_bed(dub.project, &music)).unwrap();
    let (fx, _) = dub.runtime.block_on(dub.engine.add_bed_stem(dub.project, &effects, -3.0, false)).unwrap();
    assert!(!fx.ducked && fx.gain_db == -3.0);
    let err = dub.runtime.block_on(dub.engine.add_bed_stem(dub.project, &dub.dir.path().join("missing.wav"), 0.0, true)).unwrap_err().to_string();
    assert!(err.contains("missing.wav"), "{err}");

    let export = export(&dub, ExportSelection { languages: Some(vec!["en-US".into()]), handoff: vec![HandoffFormat::Otio], ..Default::default() });
    let out = dub.dir.path().join("out");
    let names: Vec<String> = export.tracks[0].report.files.iter().map(|f| f.path.file_name().unwrap().to_string_lossy().into_owned()).collect();
    assert!(names.contains(&"Harbour_night.en-US.bed-1.wav".to_string()) && names.contains(&"Harbour_night.en-US.bed-2.wav".to_string()), "{names:?}");
    // The stems add up to the mix wherever the limiter was idle (-23 LUFS leaves room).
    let read = |name: &str| revoice_engine::audio::decode::decode_file(&out.join(name)).unwrap().samples;
    let (mix, voice, bed1, bed2) =
        (read("Harbour_night.en-US.wav"), read("Harbour_night.en-US.voice.wav"), read("Harbour_night.en-US.bed-1.wav"), read("Harbour_night.en-US.bed-2.wav"));
    let worst = (0..mix.len()).map(|i| (mix[i] - voice[i] - bed1[i] - bed2[i]).abs()).fold(0f32, f32::max);
    assert!(worst < 3.0 / 32768.0, "{worst}");
    // Under a line, the music is ducked and the effects are not.
    let at = |t: f64| (t * DELIVERY_RATE as f64) as usize;
    let rms = |x: &[f32], a: f64, b: f64| (x[at(a)..at(b)].iter().map(|v| v * v).sum::<f32>() / (at(b) - at(a)) as f32).sqrt();
    assert!(rms(&bed1, 2.2, 2.6) < 0.6 * rms(&bed1, 4.6, 5.0), "the music ducks under Ben's line");
    assert!((rms(&bed2, 2.2, 2.6) / rms(&bed2, 4.6, 5.0) - 1.0).abs() < 0.25, "the effects stay");
    let tracks: Vec<String> = otio_clips(&out.join("Harbour_night.en-US.otio"), None).into_iter().map(|c| c.0).collect();
    assert_eq!(tracks, ["Ana", "Ana", "Ben", "Bed 1", "Bed 2"]);
}

/// Where each line of a track lands, samples at the delivery's rate: (segment id, start, length).
fn fitted(dub: &Dub, language: &str) -> Vec<(i64, u64, u64)> {
    let track = dub.runtime.block_on(dub.engine.existing_track(dub.project, Some(language))).unwrap();
    let lines = dub.runtime.block_on(dub.engine.track_lines(track.id)).unwrap();
    (0..lines.lines.len())
        .map(|i| {
            let line = lines.fit(dub.engine.segments(), i, DELIVERY_RATE).unwrap().unwrap();
            (line.segment_id, (line.start * DELIVERY_RATE as f64).round() as u64, line.audio.len() as u64)
        })
        .collect()
}

/// The Python with OpenTimelineIO that scripts/test installs.
fn python() -> PathBuf {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/test-venv/bin/python");
    assert!(path.exists(), "no Python with opentimelineio at {} (run scripts/test)", path.display());
    path
}

/// Every clip OpenTimelineIO reads from `file`: (track, name, start, length, media) in the file's rate.
fn otio_clips(file: &Path, rate: Option<u32>) -> Vec<(String, String, f64, f64, String)> {
    let script = r#"
import json, sys
import opentimelineio as otio
options = {"rate": float(sys.argv[2])} if len(sys.argv) > 2 else {}
timeline = otio.adapters.read_from_file(sys.argv[1], **options)
clips = []
for track in timeline.tracks:
    # A track that starts late (the EDL reader's way) has a negative start of its own.
    offset = -track.source_range.start_time.value if track.source_range else 0
    for clip in track.find_clips():
        r = clip.range_in_parent()
        clips.append([track.name, clip.name, r.start_time.value + offset, r.duration.value, clip.media_reference.target_url])
print(json.dumps(clips))
"#;
    let out = Command::new(python()).arg("-c").arg(script).arg(file).args(rate.map(|r| r.to_string())).output().unwrap();
    assert!(out.status.success(), "opentimelineio could not read {}: {}", file.display(), String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn handoff_files_load_in_their_tools_with_every_line_at_its_fitted_time() {
    let dub = rendered_dub();
    let export = export(&dub, ExportSelection { handoff: HandoffFormat::ALL.to_vec(), ..Default::default() });
    let out = dub.dir.path().join("out");
    let english = &export.tracks[0];
    let names: Vec<String> = english.handoff.iter().map(|p| p.file_name().unwrap().to_string_lossy().into_owned()).collect();
    assert_eq!(names, ["Harbour_night.en-US.handoff", "Harbour_night.en-US.rpp", "Harbour_night.en-US.otio", "Harbour_night.en-US.edl"]);
    let lines = fitted(&dub, "en-US");
    assert_eq!(lines.len(), 3);

    // OpenTimelineIO: a lane per speaker, Ben's line over Ana's on his own, the bed none here.
    let clips = otio_clips(&out.join("Harbour_night.en-US.otio"), None);
    assert_eq!(clips.len(), 3, "{clips:?}");
    for (segment, start, length) in &lines {
        let clip = clips.iter().find(|c| (c.2 - *start as f64).abs() < 0.5).unwrap_or_else(|| panic!("no clip at {start} for line {segment}: {clips:?}"));
        assert_eq!(clip.3, *length as f64);
        assert!(out.join(&clip.4).is_file(), "{} is relative to the export folder", clip.4);
    }
    let tracks: Vec<&str> = clips.iter().map(|c| c.0.as_str()).collect();
    assert_eq!(tracks, ["Ana", "Ana", "Ben"]);

    // The EDL through OpenTimelineIO's CMX 3600 adapter: the same clips, to the frame.
    let edl = otio_clips(&out.join("Harbour_night.en-US.edl"), Some(25));
    assert_eq!(edl.len(), 3, "{edl:?}");
    for (_, start, _) in &lines {
        let frame = *start as f64 / DELIVERY_RATE as f64 * 25.0;
        assert!(edl.iter().any(|c| (c.2 - frame).abs() <= 0.5), "no EDL event within a frame of {frame}: {edl:?}");
    }

    // Reaper: read as Reaper reads its chunks; every item at its line's time, its file there.
    let text = std::fs::read_to_string(out.join("Harbour_night.en-US.rpp")).unwrap();
    let project = rpp::parse(&text).unwrap();
    assert_eq!(project.name, "REAPER_PROJECT");
    let items: Vec<(&rpp::Chunk, &rpp::Chunk)> = project.children("TRACK").flat_map(|t| t.children("ITEM").map(move |i| (t, i))).collect();
    assert_eq!(items.len(), 3);
    for (segment, start, length) in &lines {
        let seconds = |samples: u64| samples as f64 / DELIVERY_RATE as f64;
        let (track, item) =
            items.iter().find(|(_, i)| (i.number("POSITION") - seconds(*start)).abs() < 1e-6).unwrap_or_else(|| panic!("no item for line {segment}"));
        assert!((item.number("LENGTH") - seconds(*length)).abs() < 1e-6);
        let source = item.children("SOURCE").next().unwrap();
        assert_eq!(source.params, ["WAVE"]);
        assert!(out.join(source.value("FILE")).is_file());
        assert!(["Ana", "Ben"].contains(&track.value("NAME").as_str()));
    }
}

/// Reaper's project format: chunks open with `<NAME params…` and close
/// with `>`; other lines are `KEY values…`; values are bare or quoted with
/// `"`, `'` or `` ` ``.
mod rpp {
    #[derive(Debug)]
    pub struct Chunk {
        pub name: String,
        pub params: Vec<String>,
        pub lines: Vec<Vec<String>>,
        pub chunks: Vec<Chunk>,
    }

    impl Chunk {
        pub fn children<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Chunk> + 'a {
            self.chunks.iter().filter(move |c| c.name == name)
        }

        pub fn value(&self, key: &str) -> String {
            self.lines.iter().find(|l| l[0] == key).map(|l| l[1].clone()).unwrap_or_else(|| panic!("{} has no {key}", self.name))
        }

        pub fn number(&self, key: &str) -> f64 {
            self.value(key).parse().unwrap()
        }
    }

    fn words(line: &str) -> Result<Vec<String>, String> {
        let mut words = Vec::new();
        let mut rest = line.trim();
        while !rest.is_empty() {
            let quote = rest.chars().next().filter(|c| ['"', '\'', '`'].contains(c));
            let (word, after) = match quote {
                Some(q) => {
                    let end = rest[1..].find(q).ok_or_else(|| format!("unclosed {q} in {line:?}"))?;
                    (&rest[1..1 + end], &rest[2 + end..])
                }
                None => rest.split_at(rest.find(char::is_whitespace).unwrap_or(rest.len())),
            };
            words.push(word.to_string());
            rest = after.trim_start();
        }
        Ok(words)
    }

    pub fn parse(text: &str) -> Result<Chunk, String> {
        let mut stack: Vec<Chunk> = Vec::new();
        let mut done = None;
        for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
            if done.is_some() {
                return Err(format!("text after the project: {line:?}"));
            }
            if let Some(open) = line.strip_prefix('<') {
                let mut w = words(open)?;
                let name = w.remove(0);
                stack.push(Chunk { name, params: w, lines: Vec::new(), chunks: Vec::new() });
            } else if line == ">" {
                let chunk = stack.pop().ok_or("a > closes nothing")?;
                match stack.last_mut() {
                    Some(parent) => parent.chunks.push(chunk),
                    None => done = Some(chunk),
                }
            } else {
                let chunk = stack.last_mut().ok_or_else(|| format!("{line:?} outside any chunk"))?;
                // A `|` line is free text (NOTES).
                if !line.starts_with('|') {
                    chunk.lines.push(words(line)?);
                }
            }
        }
        if !stack.is_empty() {
            return Err(format!("{} chunks left open", stack.len()));
        }
        done.ok_or_else(|| "no project".into())
    }
}
