//! Handing a dub to a DAW or an editor: a [`HandoffTimeline`] (tracks of
//! clips, each clip a media file relative to the export folder placed at
//! a sample) written as a Reaper project (`.rpp`), an OpenTimelineIO
//! timeline (`.otio`) and a CMX 3600 EDL (`.edl`). Nothing here reads or
//! writes audio: `export.rs` writes the clips and hands the timeline over.
//!
//! The project's markers go with it: Reaper `MARKER` lines, OpenTimelineIO
//! markers on the timeline's stack, and in the EDL Avid-style locator
//! comments (`* LOC: <timecode> <colour> <name>`) after the event they
//! fall in, which Avid, Premiere and Resolve read as markers.
//!
//! A track in these formats plays one clip at a time, so lines that
//! overlap (a speaker talking over their own next line, natural timing)
//! go to a second lane of their speaker ([`lay_out_lanes`]).

use serde_json::{json, Value};

/// The handoff formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum HandoffFormat {
    /// A Reaper project.
    Rpp,
    /// An OpenTimelineIO timeline (JSON).
    Otio,
    /// A CMX 3600 edit decision list.
    Edl,
}

impl HandoffFormat {
    pub const ALL: [HandoffFormat; 3] = [HandoffFormat::Rpp, HandoffFormat::Otio, HandoffFormat::Edl];

    /// A format by its name (`rpp`, `otio`, `edl`).
    pub fn from_name(name: &str) -> revoice_core::error::Result<HandoffFormat> {
        match name.trim().to_ascii_lowercase().as_str() {
            "rpp" | "reaper" => Ok(HandoffFormat::Rpp),
            "otio" => Ok(HandoffFormat::Otio),
            "edl" | "cmx" => Ok(HandoffFormat::Edl),
            other => Err(revoice_core::error::Error::invalid(format!("handoff format {other:?}"), "choose rpp, otio or edl")),
        }
    }

    /// Formats from a comma-separated list (`rpp,otio,edl`), each once.
    pub fn parse_list(text: &str) -> revoice_core::error::Result<Vec<HandoffFormat>> {
        let mut formats = Vec::new();
        for name in text.split(',').filter(|n| !n.trim().is_empty()) {
            let format = HandoffFormat::from_name(name)?;
            if !formats.contains(&format) {
                formats.push(format);
            }
        }
        Ok(formats)
    }

    /// The file name extension, without the dot.
    pub fn extension(self) -> &'static str {
        match self {
            HandoffFormat::Rpp => "rpp",
            HandoffFormat::Otio => "otio",
            HandoffFormat::Edl => "edl",
        }
    }

    /// Writes `timeline` in this format.
    pub fn write(self, timeline: &HandoffTimeline) -> String {
        match self {
            HandoffFormat::Rpp => rpp(timeline),
            HandoffFormat::Otio => otio(timeline),
            HandoffFormat::Edl => edl(timeline),
        }
    }
}

/// What a handoff track holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HandoffTrackKind {
    /// A speaker's lines.
    Voice,
    /// The bed (music and effects), ducked as in the mix.
    Bed,
    /// The original dialogue.
    Original,
}

/// A piece of media on a track.
#[derive(Debug, Clone, PartialEq)]
pub struct HandoffClip {
    /// What the clip is called (a line's text).
    pub name: String,
    /// The media file, relative to the folder the handoff files are in, with `/`.
    pub file: String,
    /// Where it starts on the timeline, samples.
    pub start: u64,
    /// How long it plays (the whole file), samples.
    pub length: u64,
    /// The line it is, when it is one.
    pub segment_id: Option<i64>,
}

/// A track of clips that never overlap, in time order.
#[derive(Debug, Clone, PartialEq)]
pub struct HandoffTrack {
    pub name: String,
    pub kind: HandoffTrackKind,
    pub clips: Vec<HandoffClip>,
}

/// A named point on the timeline.
#[derive(Debug, Clone, PartialEq)]
pub struct HandoffMarker {
    pub name: String,
    /// Where it is, samples.
    pub at: u64,
}

/// A dub laid out for another tool.
#[derive(Debug, Clone, PartialEq)]
pub struct HandoffTimeline {
    pub name: String,
    pub sample_rate: u32,
    /// The programme's length, samples.
    pub length: u64,
    /// Frames per second for the EDL's timecode (the picture's rate, or 25).
    pub frame_rate: u32,
    pub tracks: Vec<HandoffTrack>,
    /// The project's markers, in time order.
    pub markers: Vec<HandoffMarker>,
}

/// Lays each speaker's clips (in any order) onto as few lanes as keep
/// them from overlapping: a speaker's first lane is named after them, a
/// second one "<name> 2", and so on. Speakers keep the order given.
pub fn lay_out_lanes(speakers: Vec<(String, Vec<HandoffClip>)>) -> Vec<HandoffTrack> {
    let mut tracks = Vec::new();
    for (speaker, mut clips) in speakers {
        clips.sort_by_key(|c| c.start);
        let mut lanes: Vec<Vec<HandoffClip>> = Vec::new();
        for clip in clips {
            match lanes.iter_mut().find(|lane| lane.last().is_none_or(|last| last.start + last.length <= clip.start)) {
                Some(lane) => lane.push(clip),
                None => lanes.push(vec![clip]),
            }
        }
        for (i, clips) in lanes.into_iter().enumerate() {
            let name = if i == 0 { speaker.clone() } else { format!("{speaker} {}", i + 1) };
            tracks.push(HandoffTrack { name, kind: HandoffTrackKind::Voice, clips });
        }
    }
    tracks
}

/// A Reaper string: bare when it can be, else in the first of `"`, `'`
/// and `` ` `` it does not contain (with all three in it, `` ` `` becomes `'`).
fn rpp_string(text: &str) -> String {
    let text: String = text.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    let needs_quotes = text.is_empty() || text.contains(char::is_whitespace) || text.starts_with(['"', '\'', '`']);
    if !needs_quotes {
        return text;
    }
    match ['"', '\'', '`'].into_iter().find(|q| !text.contains(*q)) {
        Some(q) => format!("{q}{text}{q}"),
        None => format!("`{}`", text.replace('`', "'")),
    }
}

/// The timeline as a Reaper project: its markers, a track per lane
/// (voices, bed, original), an item per clip with its WAVE source, times
/// in seconds.
pub fn rpp(timeline: &HandoffTimeline) -> String {
    let rate = timeline.sample_rate as f64;
    let seconds = |samples: u64| format!("{:.10}", samples as f64 / rate);
    let mut out = String::new();
    out.push_str("<REAPER_PROJECT 0.1 \"7.0/revoice\" 0\n");
    out.push_str("  RIPPLE 0\n");
    out.push_str(&format!("  SAMPLERATE {} 0 0\n", timeline.sample_rate));
    out.push_str(&format!("  <NOTES 0 2\n    |{}\n  >\n", timeline.name.replace(['\n', '\r'], " ")));
    for (i, marker) in timeline.markers.iter().enumerate() {
        out.push_str(&format!("  MARKER {} {} {} 0\n", i + 1, seconds(marker.at), rpp_string(&marker.name)));
    }
    for track in &timeline.tracks {
        out.push_str("  <TRACK\n");
        out.push_str(&format!("    NAME {}\n", rpp_string(&track.name)));
        for clip in &track.clips {
            out.push_str("    <ITEM\n");
            out.push_str(&format!("      POSITION {}\n", seconds(clip.start)));
            out.push_str(&format!("      LENGTH {}\n", seconds(clip.length)));
            out.push_str("      LOOP 0\n");
            out.push_str(&format!("      NAME {}\n", rpp_string(&clip.name)));
            out.push_str("      SOFFS 0\n");
            out.push_str("      <SOURCE WAVE\n");
            out.push_str(&format!("        FILE {}\n", rpp_string(&clip.file)));
            out.push_str("      >\n");
            out.push_str("    >\n");
        }
        out.push_str("  >\n");
    }
    out.push_str(">\n");
    out
}

fn rational(value: u64, rate: u32) -> Value {
    json!({"OTIO_SCHEMA": "RationalTime.1", "rate": rate as f64, "value": value as f64})
}

fn time_range(start: u64, duration: u64, rate: u32) -> Value {
    json!({"OTIO_SCHEMA": "TimeRange.1", "start_time": rational(start, rate), "duration": rational(duration, rate)})
}

/// The timeline as OpenTimelineIO JSON: an audio track per lane, gaps
/// between the clips, times in samples (the rate is the sample rate), each
/// clip an external reference to its file; the markers, zero-length, on
/// the timeline's stack.
pub fn otio(timeline: &HandoffTimeline) -> String {
    let rate = timeline.sample_rate;
    let tracks: Vec<Value> = timeline
        .tracks
        .iter()
        .map(|track| {
            let mut children = Vec::new();
            let mut at = 0u64;
            for clip in &track.clips {
                if clip.start > at {
                    children.push(json!({
                        "OTIO_SCHEMA": "Gap.1", "name": "", "metadata": {}, "effects": [], "markers": [], "enabled": true,
                        "source_range": time_range(0, clip.start - at, rate),
                    }));
                }
                let metadata = match clip.segment_id {
                    Some(id) => json!({"revoice": {"segment_id": id}}),
                    None => json!({}),
                };
                children.push(json!({
                    "OTIO_SCHEMA": "Clip.2", "name": clip.name, "metadata": metadata, "effects": [], "markers": [], "enabled": true,
                    "source_range": time_range(0, clip.length, rate),
                    "media_references": {"DEFAULT_MEDIA": {
                        "OTIO_SCHEMA": "ExternalReference.1", "name": clip.file, "metadata": {},
                        "available_range": time_range(0, clip.length, rate), "available_image_bounds": null,
                        "target_url": clip.file,
                    }},
                    "active_media_reference_key": "DEFAULT_MEDIA",
                }));
                at = clip.start + clip.length;
            }
            json!({
                "OTIO_SCHEMA": "Track.1", "name": track.name, "kind": "Audio", "metadata": {}, "effects": [], "markers": [], "enabled": true,
                "source_range": null, "children": children,
            })
        })
        .collect();
    let markers: Vec<Value> = timeline
        .markers
        .iter()
        .map(|m| json!({"OTIO_SCHEMA": "Marker.2", "name": m.name, "metadata": {}, "color": "RED", "comment": "", "marked_range": time_range(m.at, 0, rate)}))
        .collect();
    let timeline = json!({
        "OTIO_SCHEMA": "Timeline.1", "name": timeline.name, "metadata": {}, "global_start_time": rational(0, rate),
        "tracks": {"OTIO_SCHEMA": "Stack.1", "name": "tracks", "metadata": {}, "effects": [], "markers": markers, "enabled": true, "source_range": null, "children": tracks},
    });
    serde_json::to_string_pretty(&timeline).expect("a timeline serialises")
}

/// `samples` at `rate` as non-drop timecode at `fps`, to the nearest frame.
fn timecode(samples: u64, rate: u32, fps: u32) -> String {
    frame_timecode(to_frames(samples, rate, fps), fps)
}

/// `samples` at `rate` in frames at `fps`, to the nearest frame.
fn to_frames(samples: u64, rate: u32, fps: u32) -> u64 {
    (samples as f64 * fps as f64 / rate as f64).round() as u64
}

/// A frame count as non-drop timecode at `fps`.
fn frame_timecode(frames: u64, fps: u32) -> String {
    let (f, s) = (frames % fps as u64, frames / fps as u64);
    format!("{:02}:{:02}:{:02}:{:02}", s / 3600, (s / 60) % 60, s % 60, f)
}

/// The timeline as a CMX 3600 EDL: an event per clip, each lane on its
/// own audio channel (A, A2, A3, …), source timecode from the file's
/// start, record timecode the programme's; the file named in a
/// `* FROM CLIP:` comment. Times are rounded to frames of `frame_rate`.
/// Each marker is a `* LOC:` comment after the last event that starts at
/// or before it (after the first event when none does; with no events,
/// after the header).
pub fn edl(timeline: &HandoffTimeline) -> String {
    let (rate, fps) = (timeline.sample_rate, timeline.frame_rate.max(1));
    let mut out = format!("TITLE: {}\nFCM: NON-DROP FRAME\n\n", timeline.name.replace(['\n', '\r'], " "));
    let mut events: Vec<(u64, usize, &HandoffClip)> =
        timeline.tracks.iter().enumerate().flat_map(|(i, t)| t.clips.iter().map(move |c| (c.start, i, c))).collect();
    events.sort_by_key(|&(start, lane, _)| (start, lane));
    let locator = |m: &HandoffMarker| format!("* LOC: {} RED {}\n", timecode(m.at, rate, fps), m.name.replace(['\n', '\r'], " "));
    // The event each marker follows: the last that starts at or before it.
    let after_event = |m: &HandoffMarker| events.iter().rposition(|&(start, _, _)| start <= m.at).unwrap_or(0);
    if events.is_empty() {
        timeline.markers.iter().for_each(|m| out.push_str(&locator(m)));
    }
    for (n, &(_, lane, clip)) in events.iter().enumerate() {
        let channel = if lane == 0 { "A".to_string() } else { format!("A{}", lane + 1) };
        // The source runs as many frames as the record: each end rounded on
        // its own could make them differ by one, which readers refuse.
        let (record_in, record_out) = (to_frames(clip.start, rate, fps), to_frames(clip.start + clip.length, rate, fps));
        out.push_str(&format!(
            "{:03}  AX       {:<5} C        {} {} {} {}\n",
            n + 1,
            channel,
            frame_timecode(0, fps),
            frame_timecode(record_out - record_in, fps),
            frame_timecode(record_in, fps),
            frame_timecode(record_out, fps),
        ));
        out.push_str(&format!("* FROM CLIP NAME: {}\n", clip.name.replace(['\n', '\r'], " ")));
        out.push_str(&format!("* FROM CLIP: {}\n", clip.file));
        timeline.markers.iter().filter(|m| after_event(m) == n).for_each(|m| out.push_str(&locator(m)));
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clip(name: &str, start: u64, length: u64) -> HandoffClip {
        HandoffClip { name: name.into(), file: format!("show.handoff/{name}.wav"), start, length, segment_id: Some(start as i64) }
    }

    fn timeline() -> HandoffTimeline {
        let mut tracks = lay_out_lanes(vec![
            ("Maya".into(), vec![clip("a", 24_000, 48_000), clip("b", 60_000, 24_000), clip("c", 120_000, 12_000)]),
            ("Theo \"the keeper\"".into(), vec![clip("d", 0, 12_000)]),
        ]);
        tracks.push(HandoffTrack {
            name: "Bed".into(),
            kind: HandoffTrackKind::Bed,
            clips: vec![HandoffClip { name: "Bed".into(), file: "show.handoff/bed.wav".into(), start: 0, length: 144_000, segment_id: None }],
        });
        let markers = vec![HandoffMarker { name: "Scene 2".into(), at: 72_000 }, HandoffMarker { name: "Storm, \"coming\"".into(), at: 130_000 }];
        HandoffTimeline { name: "Show".into(), sample_rate: 24_000, length: 144_000, frame_rate: 25, tracks, markers }
    }

    #[test]
    fn lines_that_overlap_go_to_a_second_lane_of_their_speaker() {
        let t = timeline();
        let names: Vec<&str> = t.tracks.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["Maya", "Maya 2", "Theo \"the keeper\"", "Bed"]);
        assert_eq!(t.tracks[0].clips.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(), ["a", "c"]);
        assert_eq!(t.tracks[1].clips.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(), ["b"]);
    }

    #[test]
    fn reaper_strings_are_quoted_as_reaper_quotes_them() {
        assert_eq!(rpp_string("Maya"), "Maya");
        assert_eq!(rpp_string("two words"), "\"two words\"");
        assert_eq!(rpp_string("say \"hi\" now"), "'say \"hi\" now'");
        assert_eq!(rpp_string("it's \"x\""), "`it's \"x\"`");
        assert_eq!(rpp_string("a`b'c\"d e"), "`a'b'c\"d e`");
        assert_eq!(rpp_string(""), "\"\"");
    }

    #[test]
    fn an_edl_event_per_clip_with_each_lane_on_its_channel() {
        let edl = edl(&timeline());
        let events: Vec<&str> = edl.lines().filter(|l| l.starts_with(|c: char| c.is_ascii_digit())).collect();
        assert_eq!(events.len(), 5, "{edl}");
        // Theo's line at 0 on the third lane (A3), Maya's first line at 1 s on A.
        assert!(events[0].starts_with("001  AX       A3    C        00:00:00:00 00:00:00:13 00:00:00:00 00:00:00:13"), "{}", events[0]);
        assert!(events[2].contains("00:00:01:00 00:00:03:00"), "{}", events[2]);
        assert!(edl.contains("* FROM CLIP: show.handoff/a.wav"));
        assert_eq!(timecode(24_000 * 3661 + 12_000, 24_000, 25), "01:01:01:13");
    }

    #[test]
    fn an_edl_source_lasts_as_many_frames_as_its_record() {
        // 0.4 frames in, 20.4 frames long: the record runs 0 to 21 (20.8 rounds up), so the source runs 21 frames too.
        let t = HandoffTimeline { tracks: lay_out_lanes(vec![("Maya".into(), vec![clip("a", 384, 19_584)])]), ..timeline() };
        let edl = edl(&t);
        let event = edl.lines().find(|l| l.starts_with("001")).unwrap();
        assert!(event.ends_with("00:00:00:00 00:00:00:21 00:00:00:00 00:00:00:21"), "{event}");
    }

    #[test]
    fn otio_clips_sit_after_gaps_in_samples() {
        let value: Value = serde_json::from_str(&otio(&timeline())).unwrap();
        let maya = &value["tracks"]["children"][0]["children"];
        assert_eq!(maya[0]["OTIO_SCHEMA"], "Gap.1");
        assert_eq!(maya[0]["source_range"]["duration"]["value"], 24_000.0);
        assert_eq!(maya[1]["name"], "a");
        assert_eq!(maya[1]["media_references"]["DEFAULT_MEDIA"]["target_url"], "show.handoff/a.wav");
        assert_eq!(maya[2]["source_range"]["duration"]["value"], 48_000.0, "the gap from 3 s to 5 s");
    }

    #[test]
    fn markers_reach_every_format_by_name_and_time() {
        let t = timeline();
        let rpp = rpp(&t);
        assert!(rpp.contains("  MARKER 1 3.0000000000 \"Scene 2\" 0\n"), "{rpp}");
        assert!(rpp.contains("  MARKER 2 5.4166666667 'Storm, \"coming\"' 0\n"), "{rpp}");
        assert!(rpp.find("MARKER").unwrap() < rpp.find("<TRACK").unwrap(), "markers belong to the project, before its tracks");

        let value: Value = serde_json::from_str(&otio(&t)).unwrap();
        let markers = value["tracks"]["markers"].as_array().unwrap();
        assert_eq!(markers.len(), 2);
        assert_eq!(markers[0]["OTIO_SCHEMA"], "Marker.2");
        assert_eq!(markers[0]["name"], "Scene 2");
        assert_eq!(markers[0]["marked_range"]["start_time"]["value"], 72_000.0);
        assert_eq!(markers[0]["marked_range"]["duration"]["value"], 0.0);

        let edl = edl(&t);
        assert!(edl.contains("* LOC: 00:00:03:00 RED Scene 2\n"), "{edl}");
        assert!(edl.contains("* LOC: 00:00:05:10 RED Storm, \"coming\"\n"), "{edl}");
        // Scene 2 (3 s) follows the event of Maya's line b (2.5 s), the last to start before it.
        let b = edl.find("* FROM CLIP: show.handoff/b.wav").unwrap();
        let scene = edl.find("* LOC: 00:00:03:00").unwrap();
        let c = edl.find("* FROM CLIP: show.handoff/c.wav").unwrap();
        assert!(b < scene && scene < c, "{edl}");
        let empty = HandoffTimeline { tracks: Vec::new(), ..t };
        assert!(super::edl(&empty).contains("* LOC: 00:00:03:00 RED Scene 2"), "kept with no events");
    }
}
