//! A track's lines as they render and sit on the timeline now, each fact
//! worked out once: for every line its resolved voice (the speaker's voice
//! for the track's language, a library voice replaced by its matched
//! blend), its timing strategy, its slot (with the next line's start), its
//! source key and its active take. The lines and their takes come from one
//! query. Render scope, the editor's view, assembly and playback all read
//! [`TrackLines`], so "ready" means the same to each of them.

use std::collections::HashMap;
use std::sync::Arc;

use super::lanes::LaneMixes;
use super::mix::fit_line;
use super::segment_store::{SegmentStore, Stored};
use super::timing::{cut_at_pause, cut_span, place, render_target, shortfall, FitLimits, Placement, Slot, TimingStrategy, MIN_PAUSE};
use revoice_audio::levels::FrameLevels;
use revoice_core::error::{Error, Result};
use revoice_speech::cache::{RenderKey, RenderKeyBuilder, VoiceArtifactCache};
use revoice_speech::voice_spec::{RemoteVoice, VoiceSpec};
use revoice_store::{Project, Segment, Speaker, Store, Take, Track};
use revoice_text::pronounce::Pronunciations;
use revoice_text::script::Script;
use revoice_text::subtitles::Cue;
use revoice_voices::MatchedVoice;

/// The voice of lines without a speaker on an English track, and on a
/// track in a language Kokoro has no voice for.
pub const DEFAULT_VOICE: &str = "af_heart";

/// The voice of a track's lines without a speaker: its language's own
/// default voice (a Spanish track's unassigned lines are read by a Spanish
/// voice, not an English one reading Spanish words).
pub fn default_voice_for(track_language: &str) -> &'static str {
    revoice_text::language::of_tag(track_language).filter(|l| l.kokoro_language.is_some()).map_or(DEFAULT_VOICE, |l| l.default_voice)
}

/// A strategy from its stored name.
pub fn parse_strategy(name: &str) -> Result<TimingStrategy> {
    name.parse()
}

/// What a segment renders from, hashed: its text, its resolved voice, its
/// speed, its seed and the length the strategy asks the model for (the
/// slot, and the fastest speed re-synthesis may use), under this engine
/// version. Equal source keys render equal audio, so a take
/// whose recorded source key matches is current without running G2P; the
/// synthesis key (from the rows) stays the authority when they differ.
/// The model's precision is not in it: an int8 and an f32 render of one
/// source differ only by quantization error.
///
/// The dictionary's entries the text uses are in it too (only when it uses
/// some, so lines without them keep the keys they had): a changed entry
/// makes exactly the lines that say its word stale.
pub fn source_key(segment: &Segment, voice: &str, strategy: TimingStrategy, slot: &Slot, limits: &FitLimits, dictionary: &Pronunciations) -> String {
    let f = &segment.fields;
    // The target also follows from the line's predicted length, which the text, voice and speed decide.
    let target = render_target(strategy, slot, None, limits).map(|t| format!("{t:.6} at most x{}", limits.resynthesize_max_speed));
    let mut key = RenderKeyBuilder::new("segment-source/v2")
        .param("engine", crate::ENGINE_VERSION)
        .param("text", &f.text)
        .param("voice", voice)
        .param("speed", f.speed)
        .param("seed", segment.seed())
        .param("target", target.unwrap_or_else(|| "natural".to_string()));
    let used = dictionary.used_in(&f.text);
    if !used.is_empty() {
        key = key.param("pronounce", used.iter().map(|e| e.describe()).collect::<Vec<_>>().join("\n"));
    }
    key.build().to_hex()
}

/// What decides how long a line lasts, hashed: its text, its voice, its
/// speed and the dictionary entries it uses, under this engine version
/// (not its seed: the vocoder's noise never moves a frame; not its slot).
pub fn length_key(segment: &Segment, voice: &str, dictionary: &Pronunciations) -> String {
    let f = &segment.fields;
    let mut key =
        RenderKeyBuilder::new("spoken-length/v2").param("engine", crate::ENGINE_VERSION).param("text", &f.text).param("voice", voice).param("speed", f.speed);
    let used = dictionary.used_in(&f.text);
    if !used.is_empty() {
        key = key.param("pronounce", used.iter().map(|e| e.describe()).collect::<Vec<_>>().join("\n"));
    }
    key.build().to_hex()
}

/// A voice a speaker's lines cannot speak with: its name, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct UnknownVoice {
    pub name: String,
    pub reason: String,
}

/// The voice a speaker's lines in `language` render with: a library
/// voice's fitted voice or matched blend, or the stock voice, blend or
/// remote voice as named; a name that is none of these is kept with the
/// reason, so only the lines that speak it fail.
pub async fn resolve_voice(
    store: &Store,
    voices: &VoiceArtifactCache<MatchedVoice>,
    name: &str,
    language: &str,
) -> Result<std::result::Result<VoiceSpec, UnknownVoice>> {
    let resolved = match revoice_voices::library::artifact(store, voices, name).await? {
        Some(matched) => matched.speaking_voice_in(language),
        None => VoiceSpec::parse(name, |_| false),
    };
    Ok(resolved.map_err(|e| UnknownVoice { name: name.to_string(), reason: e.to_string() }))
}

/// What a resolved voice renders as, for the source key: the voice itself,
/// and for a library recording cloned by a remote engine (`fleet/@Name`)
/// the recording's content too, so a new recording re-renders its lines.
async fn voice_identity(store: &Store, voice: &std::result::Result<VoiceSpec, UnknownVoice>) -> Result<String> {
    let spec = match voice {
        Ok(spec) => spec,
        Err(unknown) => return Ok(unknown.name.clone()),
    };
    let Some((_, RemoteVoice::Reference(name))) = spec.remote() else { return Ok(spec.to_string()) };
    Ok(match store.voice(name).await? {
        Some(record) => format!("{spec}#{}", record.voice.reference_sha256),
        None => spec.to_string(),
    })
}

/// One line as it renders now.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    pub segment: Segment,
    /// The voice it speaks with: a library voice resolved to its fitted
    /// voice or blend, a stock voice or blend, or a remote engine's voice
    /// (`fleet/af_bella`, `fleet/@Narrator`); or the name no voice answers to.
    pub voice: std::result::Result<VoiceSpec, UnknownVoice>,
    /// The voice and what it stands for (a cloned recording's content),
    /// as the keys take it.
    pub voice_identity: String,
    pub strategy: TimingStrategy,
    pub slot: Slot,
    /// See [`source_key`].
    pub source: String,
    /// What decides its spoken length (see [`length_key`]).
    pub length_key: String,
    /// Seconds it will last when spoken at its speed, predicted from the
    /// model's durations before any render; `None` until predicted (and
    /// for a remote voice, whose model is elsewhere).
    pub predicted: Option<f64>,
    /// Its active take, if it has one.
    pub take: Option<Take>,
    /// The project's pronunciation dictionary (merged with the global one).
    pub dictionary: Arc<Pronunciations>,
}

impl Line {
    /// Whether a remote engine speaks it (`ENGINE/VOICE`, `ENGINE/@Name`):
    /// its voice is resolved, so a library name never reaches here.
    pub fn is_remote(&self) -> bool {
        self.voice.as_ref().is_ok_and(|v| v.remote().is_some())
    }

    /// The voice it speaks with; a name no voice answers to is refused, naming the line.
    pub fn speaking_voice(&self) -> Result<VoiceSpec> {
        self.voice.clone().map_err(|u| Error::not_found(format!("voice {:?}", u.name), u.reason).context(format!("line {}", self.segment.id)))
    }

    /// The script of its text's letters that its voice cannot read, and
    /// those letters: its render would be refused (`None` for a remote
    /// voice, whose engine reads for itself, and for a voice whose
    /// language this build does not read natively: that is said at render).
    pub fn unreadable(&self) -> Option<(Script, String)> {
        let voice = self.voice.as_ref().ok().filter(|v| v.remote().is_none())?;
        let reading = revoice_text::language::voice_reading(voice.language().unwrap_or("en-US"))?;
        revoice_text::script::unreadable(&self.segment.fields.text, reading)
    }

    /// Whether its active take was rendered from the line as it is now.
    pub fn is_current(&self) -> bool {
        self.take.as_ref().is_some_and(|t| t.source_key.as_deref() == Some(self.source.as_str()))
    }

    /// The active take's synthesis key.
    pub fn take_key(&self) -> Option<RenderKey> {
        self.take.as_ref().and_then(|t| RenderKey::from_hex(&t.synthesis_key))
    }

    /// Where its active take lands, from the take's length alone.
    pub fn placement(&self, limits: &FitLimits) -> Option<Placement> {
        self.take.as_ref().map(|t| place(self.strategy, &self.slot, t.duration_s, limits))
    }

    /// Seconds it lasts at its own speed, before any fitting: predicted,
    /// or its current take's length where that is natural-rate audio.
    pub fn natural_seconds(&self) -> Option<f64> {
        self.predicted.or_else(|| self.take.as_ref().filter(|_| self.is_current() && self.strategy != TimingStrategy::Resynthesize).map(|t| t.duration_s))
    }

    /// Seconds by which it does not fit its room even at the fastest rate,
    /// borrowing the gaps after and before it ([`shortfall`]); `None` when
    /// it fits or its length is not known yet.
    pub fn shortfall(&self, limits: &FitLimits) -> Option<f64> {
        self.natural_seconds().and_then(|natural| shortfall(&self.slot, natural, limits))
    }

    /// Where it will land once rendered, from its predicted length (a
    /// re-synthesised line from the length it will be asked for), and the
    /// seconds its render will last.
    pub fn planned_placement(&self, limits: &FitLimits) -> Option<(Placement, f64)> {
        let natural = self.natural_seconds()?;
        let rendered = render_target(self.strategy, &self.slot, Some(natural), limits).unwrap_or(natural);
        Some((place(self.strategy, &self.slot, rendered, limits), rendered))
    }
}

/// One line fitted and placed on the timeline.
pub struct FittedLine {
    pub segment_id: i64,
    /// Its lane: the speaker (`None`: no speaker).
    pub lane: Option<i64>,
    /// Timeline seconds of its first sample.
    pub start: f64,
    /// The line fitted to its placement (stretch, trim, pad, gain, fades).
    pub audio: Vec<f32>,
    pub cue: Cue,
    /// Seconds it runs into the next line (natural timing).
    pub overlap: Option<f64>,
    /// How it was placed (rate, cut), for the take check: a strict-slot cut
    /// moved back to a pause, where [`Line::placement`] has it planned.
    pub placement: Placement,
}

/// The programme length of a track: it ends where its last line ends, as
/// placed, or where its last slot ends, whichever is later.
pub fn programme_seconds(slot_ends: impl Iterator<Item = f64>, placed_ends: impl Iterator<Item = f64>) -> f64 {
    slot_ends.chain(placed_ends).fold(0.0, f64::max)
}

/// What every track of a project shares, read once.
#[derive(Clone)]
struct ProjectShared {
    project: Project,
    speakers: Vec<Speaker>,
    /// The project's dictionary merged with the global one.
    dictionary: Arc<Pronunciations>,
    beds: Vec<revoice_store::BedStem>,
    lanes: LaneMixes,
}

impl ProjectShared {
    async fn load(store: &Store, project_id: i64) -> Result<ProjectShared> {
        let project = store.project(project_id).await?;
        let speakers = store.speakers(project_id).await?;
        let dictionary = Arc::new(Pronunciations::merged(store.pronunciations(Some(project_id)).await?, store.pronunciations(None).await?));
        let beds = store.bed_stems(project_id).await?;
        let lanes = LaneMixes::new(store.lane_mixes(project_id).await?);
        Ok(ProjectShared { project, speakers, dictionary, beds, lanes })
    }
}

/// A track and its lines, resolved.
#[derive(Debug, Clone)]
pub struct TrackLines {
    pub project: Project,
    pub track: Track,
    pub speakers: Vec<Speaker>,
    /// The project's bed stems, in order.
    pub beds: Vec<revoice_store::BedStem>,
    /// In time order.
    pub lines: Vec<Line>,
    pub limits: FitLimits,
    /// How each lane (speaker) is heard in playback and export.
    pub lanes: LaneMixes,
}

impl TrackLines {
    /// Reads `track_id`'s lines with their active takes (one query), its
    /// project and speakers, and resolves each speaker's voice once; lines
    /// are fitted within `limits`.
    pub async fn load(store: &Store, voices: &VoiceArtifactCache<MatchedVoice>, track_id: i64, limits: FitLimits) -> Result<TrackLines> {
        let track = store.track(track_id).await?;
        let shared = ProjectShared::load(store, track.project_id).await?;
        TrackLines::load_in(store, voices, &shared, track, limits).await
    }

    /// Every track of a project, resolved (what they share read once).
    pub async fn load_project(store: &Store, voices: &VoiceArtifactCache<MatchedVoice>, project_id: i64, limits: FitLimits) -> Result<Vec<TrackLines>> {
        let shared = ProjectShared::load(store, project_id).await?;
        let mut tracks = Vec::new();
        for track in store.tracks(project_id).await? {
            tracks.push(TrackLines::load_in(store, voices, &shared, track, limits).await?);
        }
        Ok(tracks)
    }

    async fn load_in(store: &Store, voices: &VoiceArtifactCache<MatchedVoice>, shared: &ProjectShared, track: Track, limits: FitLimits) -> Result<TrackLines> {
        let ProjectShared { project, speakers, dictionary, beds, lanes } = shared.clone();
        let default_strategy = parse_strategy(&project.timing_strategy)?;
        let mut voice_of = HashMap::new();
        for s in &speakers {
            let voice = resolve_voice(store, voices, &s.voice_for(&track.language), &track.language).await?;
            let identity = voice_identity(store, &voice).await?;
            voice_of.insert(s.id, (voice, identity));
        }
        let rows = store.track_lines(track.id).await?;
        let unvoiced = default_voice_for(&track.language);
        let mut lines = Vec::with_capacity(rows.len());
        for (i, (segment, take)) in rows.iter().enumerate() {
            let f = &segment.fields;
            let strategy = match &f.timing_strategy {
                Some(name) => parse_strategy(name)?,
                None => default_strategy,
            };
            let next_start = rows.get(i + 1).map(|(n, _)| n.fields.start_s);
            let prev_end = i.checked_sub(1).map(|p| rows[p].0.fields.end_s);
            let (voice, voice_identity) = f
                .speaker_id
                .and_then(|id| voice_of.get(&id).cloned())
                .unwrap_or_else(|| (VoiceSpec::parse_stock(unvoiced).map_err(|_| unreachable!("a stock voice")), unvoiced.to_string()));
            let slot = Slot { start: f.start_s, end: f.end_s, next_start, prev_end };
            let source = source_key(segment, &voice_identity, strategy, &slot, &limits, &dictionary);
            let length_key = length_key(segment, &voice_identity, &dictionary);
            lines.push(Line {
                segment: segment.clone(),
                voice,
                voice_identity,
                strategy,
                slot,
                source,
                length_key,
                predicted: None,
                take: take.clone(),
                dictionary: dictionary.clone(),
            });
        }
        let keys: Vec<String> = lines.iter().filter(|l| !l.is_remote()).map(|l| l.length_key.clone()).collect();
        let known = store.spoken_lengths(&keys).await?;
        for line in lines.iter_mut().filter(|l| !l.is_remote()) {
            line.predicted = known.get(&line.length_key).copied();
        }
        Ok(TrackLines { project, track, speakers, beds, lines, limits, lanes })
    }

    /// Reads line `index`'s segment and active take again (after a render
    /// gave it a new take); its source, voice and slot stay as resolved.
    pub async fn refresh_take(&mut self, store: &Store, index: usize) -> Result<()> {
        let id = self.lines[index].segment.id;
        let segment = store.segment(id).await?;
        let take = match segment.active_take_id {
            Some(active) => store.takes(id).await?.into_iter().find(|t| t.id == active),
            None => None,
        };
        let line = &mut self.lines[index];
        line.segment = segment;
        line.take = take;
        Ok(())
    }

    /// The index of a segment among the lines.
    pub fn index_of(&self, segment_id: i64) -> Option<usize> {
        self.lines.iter().position(|l| l.segment.id == segment_id)
    }

    /// A speaker's name.
    pub fn speaker_name(&self, speaker_id: Option<i64>) -> Option<String> {
        speaker_id.and_then(|id| self.speakers.iter().find(|s| s.id == id)).map(|s| s.name.clone())
    }

    /// The programme length once `placed_ends` are placed: see [`programme_seconds`].
    pub fn programme_seconds(&self, placed_ends: impl Iterator<Item = f64>) -> f64 {
        programme_seconds(self.lines.iter().map(|l| l.slot.end), placed_ends)
    }

    /// Line `index` as the mix hears it: [`TrackLines::fit`] with its
    /// lane's gain applied; `None` when it has no take on disk or its lane
    /// does not sound.
    pub fn fit_heard(&self, segments: &SegmentStore, index: usize, sample_rate: u32) -> Result<Option<FittedLine>> {
        let gain = self.lanes.gain(self.lines[index].segment.fields.speaker_id);
        if gain == 0.0 {
            return Ok(None);
        }
        let mut fitted = self.fit(segments, index, sample_rate)?;
        if let Some(line) = fitted.as_mut().filter(|_| gain != 1.0) {
            line.audio.iter_mut().for_each(|s| *s *= gain);
        }
        Ok(fitted)
    }

    /// Line `index` read from the segment store at `sample_rate` and fitted
    /// by its timing strategy (a strict-slot cut at a pause between words);
    /// `None` when it has no rendered take on disk.
    pub fn fit(&self, segments: &SegmentStore, index: usize, sample_rate: u32) -> Result<Option<FittedLine>> {
        let line = &self.lines[index];
        let Some(key) = line.take_key() else { return Ok(None) };
        let Stored::Audio(samples) = segments.get(&key, sample_rate)? else { return Ok(None) };
        let f = &line.segment.fields;
        let natural = samples.len() as f64 / sample_rate as f64;
        let planned = place(line.strategy, &line.slot, natural, &self.limits);
        let placement = match (line.strategy, cut_span(&planned)) {
            (TimingStrategy::StrictSlot, Some((from, to))) => {
                let levels = FrameLevels::of(&samples, sample_rate);
                cut_at_pause(&planned, &levels.pauses(MIN_PAUSE), levels.is_silent_between(from, to))
            }
            _ => planned,
        };
        let audio = fit_line(&samples, sample_rate, &placement, f.gain_db as f32, f.fade_in_s as f32, f.fade_out_s as f32);
        let cue = Cue { start: placement.start, end: placement.start + placement.length, text: f.text.clone(), speaker: self.speaker_name(f.speaker_id) };
        Ok(Some(FittedLine { segment_id: line.segment.id, lane: f.speaker_id, start: placement.start, audio, cue, overlap: placement.overlap, placement }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_without_a_speaker_are_read_by_a_voice_of_their_tracks_language() {
        assert_eq!(default_voice_for("en-US"), DEFAULT_VOICE);
        assert_eq!(default_voice_for("zh"), "zf_xiaobei");
        assert!(default_voice_for("es").starts_with('e') && default_voice_for("fr-FR").starts_with('f'), "{}", default_voice_for("es"));
        assert_eq!(default_voice_for("de"), DEFAULT_VOICE, "no Kokoro voice speaks German");
    }
}
