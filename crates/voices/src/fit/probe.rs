//! Judging candidate voices by ear, the encoder's ear: each candidate reads
//! the probe sentences through the scheduler (all candidates of a
//! generation in one batch, no noise, so a score depends only on the
//! voice), and the speaker encoder compares the renders with the
//! reference. Guards keep the search honest: a candidate whose renders
//! stop being speech (too little of it voiced, a pitch outside a human
//! range), drift from the starting voice's pace, or disagree with each
//! other from sentence to sentence loses score, so the search cannot win
//! with a sound that fools the encoder. With tone matching on, each
//! candidate is heard through the tone curve that gives its probe renders
//! the recording's tonal balance (computed from the spectra, not searched),
//! so the search looks for the voice, and the curve for the microphone.

use std::sync::Arc;

use rayon::prelude::*;

use revoice_audio::pitch::{voice_stats, VoiceStats};
use revoice_audio::tone::{long_term_spectrum, LongTermSpectrum, ToneCurve};
use revoice_core::error::{Error, Result};
use revoice_model::kokoro::voices::StockVoices;
use revoice_model::speaker::{cosine_similarity, SpeakerEncoder};
use revoice_model::speech::{RowAudio, SpeechRow};
use revoice_speech::front_end::{FrontEnd, SayRequest};
use revoice_speech::scheduler::{Job, Scheduler};

use super::judge::{Judge, Verdict};
use super::space::StyleRecipe;

/// What candidates read while the fit searches: sets of a short and a
/// longer line (about 4.5 s together; each candidate's renders are the
/// fit's main cost), so more than one of a pack's rows is heard. The search
/// among the stock voices reads the first set; the refinement reads the
/// sets in turn, a set per generation (every candidate of a generation the
/// same set, so they are ranked on the same words), which keeps it from
/// learning two sentences: what it climbs on has to hold for all of them.
pub const PROBE_SETS: &[[&str; 2]] = &[
    ["Where did you put the keys?", "The train was late again, so we walked the last mile in the rain."],
    ["Can you hear me now?", "My grandmother kept every letter she ever got in a box under her bed."],
    ["That was not what I expected.", "They painted the fence on Saturday, but the storm washed half of it away."],
    ["Are we nearly there yet?", "He opened the window, and the smell of fresh bread drifted in from the street."],
];

/// What the finished voice is checked on: never heard during the search.
pub const HELD_OUT_SENTENCES: &[&str] = &[
    "Nobody told me the meeting had moved to Thursday.",
    "She laughed, folded the letter twice, and slipped it into her coat pocket.",
    "We have about ten minutes before the lights go out, so let's make them count.",
];

/// What the refinement's snapshots are compared on to choose the voice:
/// neither probe nor held-out sentences, so the choice learns nothing of
/// the probes and the held-out figures stay untouched by it.
pub const VALIDATION_SENTENCES: &[&str] = &[
    "I never said that, and you know it.",
    "Turn left at the bakery, then follow the river until you see the old bridge.",
    "If the weather holds, we could leave before sunrise tomorrow.",
];

/// Below this share of voiced speech, a render is not speech.
const MIN_VOICED: f32 = 0.35;
/// Pitch range of a human speaking voice, in Hz.
const PITCH_RANGE: (f32, f32) = (60.0, 400.0);
/// Renders of one voice should sound like one speaker from line to line.
const MIN_CONSISTENCY: f32 = 0.7;
/// How far a candidate's pace may drift from the starting voice's (ratio).
const MAX_PACE_DRIFT: f32 = 1.3;

/// The reference, the sentences, and the means to render and listen.
pub struct ProbeJudge<'a> {
    scheduler: &'a Scheduler,
    voices: &'a StockVoices,
    encoder: &'a SpeakerEncoder,
    sample_rate: u32,
    reference: Vec<f32>,
    /// The recording's tonal balance and the largest gain a tone match may
    /// use; `None`: candidates are heard as they render.
    tone_target: Option<(LongTermSpectrum, f32)>,
    /// Each probe set's lines, as tokens.
    probes: Vec<Vec<Vec<u32>>>,
    held_out: Vec<Vec<u32>>,
    validation: Vec<Vec<u32>>,
    /// Seconds per token the starting voice takes for the probes, once
    /// known (per token, so the probe sets compare).
    pace: std::sync::Mutex<Option<f32>>,
}

fn tokens(front_end: &FrontEnd, sentences: &[&str], voice: &str) -> Result<Vec<Vec<u32>>> {
    let mut lines = Vec::new();
    for sentence in sentences {
        for line in front_end.prepare(&SayRequest::new(*sentence, voice)?)? {
            lines.push(line.row.tokens);
        }
    }
    Ok(lines)
}

/// A candidate's renders, measured.
struct Heard {
    similarity: f32,
    consistency: f32,
    stats: VoiceStats,
}

impl<'a> ProbeJudge<'a> {
    /// A judge for `reference` (a speaker embedding), reading the probe
    /// sentences as `reading_voice` would (its language's pronunciation);
    /// `tone_target`: the recording's long-term spectrum and the tone
    /// match's largest gain in dB, when candidates are tone-matched.
    pub fn new(
        scheduler: &'a Scheduler,
        front_end: &'a FrontEnd,
        encoder: &'a SpeakerEncoder,
        sample_rate: u32,
        reference: Vec<f32>,
        tone_target: Option<(LongTermSpectrum, f32)>,
        reading_voice: &str,
    ) -> Result<ProbeJudge<'a>> {
        Ok(ProbeJudge {
            scheduler,
            voices: front_end.stock_voices(),
            encoder,
            sample_rate,
            reference,
            tone_target,
            probes: PROBE_SETS.iter().map(|set| tokens(front_end, set, reading_voice)).collect::<Result<_>>()?,
            held_out: tokens(front_end, HELD_OUT_SENTENCES, reading_voice)?,
            validation: tokens(front_end, VALIDATION_SENTENCES, reading_voice)?,
            pace: std::sync::Mutex::new(None),
        })
    }

    /// Renders every recipe reading `lines`, as one scheduler job (each
    /// through its own tone match, if it has one).
    fn render(&self, recipes: &[StyleRecipe], lines: &[Vec<u32>]) -> Result<Vec<Vec<RowAudio>>> {
        let mut rows = Vec::with_capacity(recipes.len() * lines.len());
        for recipe in recipes {
            let pack = recipe.pack(self.voices)?;
            let tone = recipe.tone.clone().map(Arc::new);
            for tokens in lines {
                rows.push(SpeechRow {
                    tokens: tokens.clone(),
                    style: pack.style_for(tokens.len() - 2).to_vec(),
                    speed: 1.0,
                    seed: None,
                    target_seconds: None,
                    tone: tone.clone(),
                });
            }
        }
        let mut audio = self.scheduler.submit(Job::buffered(rows)).wait()?.into_iter();
        Ok(recipes.iter().map(|_| audio.by_ref().take(lines.len()).collect()).collect())
    }

    /// The speaker embedding of `samples`; `None` when nothing in them is
    /// speech to the encoder (a candidate that renders silence or a bare
    /// tone scores nothing rather than stopping the fit).
    fn embedding(&self, samples: &[f32]) -> Result<Option<Vec<f32>>> {
        match self.encoder.embed(samples, self.sample_rate) {
            Ok(utterance) => Ok(Some(utterance.embedding)),
            Err(Error::InvalidInput { .. }) => Ok(None),
            Err(other) => Err(other),
        }
    }

    fn similarity(&self, samples: &[f32]) -> Result<f32> {
        Ok(self.embedding(samples)?.map_or(0.0, |e| cosine_similarity(&e, &self.reference)))
    }

    /// Each recipe's similarity reading `lines` as it sounds (through its
    /// own tone, if it has one), all of them heard as one take.
    fn similarities(&self, recipes: &[StyleRecipe], lines: &[Vec<u32>]) -> Result<Vec<f32>> {
        let renders = self.render(recipes, lines)?;
        renders
            .par_iter()
            .map(|r| {
                let whole: Vec<f32> = r.iter().flat_map(|a| a.samples.iter().copied()).collect();
                self.similarity(&whole)
            })
            .collect()
    }

    /// The tone match that gives `renders` the recording's tonal balance.
    fn tone_for(&self, renders: &[RowAudio]) -> Option<ToneCurve> {
        let (target, max_db) = self.tone_target.as_ref()?;
        let whole: Vec<f32> = renders.iter().flat_map(|r| r.samples.iter().copied()).collect();
        long_term_spectrum(&whole, self.sample_rate).map(|voice| ToneCurve::matching(target, &voice, *max_db))
    }

    fn hear(&self, renders: &[RowAudio]) -> Result<Heard> {
        let whole: Vec<f32> = renders.iter().flat_map(|r| r.samples.iter().copied()).collect();
        let similarity = self.similarity(&whole)?;
        let each: Vec<Vec<f32>> = renders.iter().map(|r| self.embedding(&r.samples).map(Option::unwrap_or_default)).collect::<Result<_>>()?;
        let mut pairs = Vec::new();
        for i in 0..each.len() {
            for j in i + 1..each.len() {
                pairs.push(if each[i].is_empty() || each[j].is_empty() { 0.0 } else { cosine_similarity(&each[i], &each[j]) });
            }
        }
        let consistency = if pairs.is_empty() { 1.0 } else { pairs.iter().sum::<f32>() / pairs.len() as f32 };
        Ok(Heard { similarity, consistency, stats: voice_stats(&whole, self.sample_rate) })
    }

    /// The guards' penalty for a candidate's renders.
    fn penalty(&self, heard: &Heard, tokens: usize) -> f64 {
        let mut penalty = 0.0;
        penalty += (MIN_VOICED - heard.stats.voiced_fraction).max(0.0) as f64;
        let pitch = heard.stats.median_pitch_hz;
        if !(PITCH_RANGE.0..=PITCH_RANGE.1).contains(&pitch) {
            penalty += 0.2;
        }
        penalty += (MIN_CONSISTENCY - heard.consistency).max(0.0) as f64;
        if let Some(pace) = *self.pace.lock().unwrap_or_else(|p| p.into_inner()) {
            let drift = (heard.stats.seconds / (pace * tokens as f32)).ln().abs() - MAX_PACE_DRIFT.ln();
            penalty += 2.0 * drift.max(0.0) as f64;
        }
        penalty
    }
}

impl Judge for ProbeJudge<'_> {
    fn judge(&self, recipes: &[StyleRecipe], probe_set: usize) -> Result<Vec<Verdict>> {
        let plain: Vec<StyleRecipe> = recipes.iter().map(|r| StyleRecipe { tone: None, ..r.clone() }).collect();
        let probes = &self.probes[probe_set % self.probes.len()];
        let tokens: usize = probes.iter().map(Vec::len).sum();
        let mut renders = self.render(&plain, probes)?;
        let tones: Vec<Option<ToneCurve>> = renders.iter().map(|r| self.tone_for(r)).collect();
        for (audio, tone) in renders.iter_mut().zip(&tones) {
            if let Some(tone) = tone {
                for row in audio.iter_mut() {
                    row.samples = tone.apply(&row.samples, row.sample_rate);
                }
            }
        }
        // Listening is the encoder's work per candidate: side by side on the pool.
        let heard: Vec<Heard> = renders.par_iter().map(|r| self.hear(r)).collect::<Result<_>>()?;
        {
            // The first candidates judged are the starting points: their pace is the reference pace.
            let mut pace = self.pace.lock().unwrap_or_else(|p| p.into_inner());
            if pace.is_none() {
                *pace = heard.iter().map(|h| h.stats.seconds / tokens as f32).reduce(f32::max).filter(|s| *s > 0.0);
            }
        }
        Ok(heard
            .iter()
            .zip(tones)
            .map(|(h, tone)| Verdict { similarity: h.similarity, fitness: h.similarity as f64 - self.penalty(h, tokens), tone })
            .collect())
    }

    fn held_out(&self, recipes: &[StyleRecipe]) -> Result<Vec<f32>> {
        self.similarities(recipes, &self.held_out)
    }

    fn validation(&self, recipes: &[StyleRecipe]) -> Result<Vec<f32>> {
        self.similarities(recipes, &self.validation)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probe_validation_and_held_out_sentences_never_share_a_sentence() {
        let mut all: Vec<&str> = PROBE_SETS.iter().flatten().copied().collect();
        all.extend(VALIDATION_SENTENCES);
        all.extend(HELD_OUT_SENTENCES);
        let count = all.len();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), count, "a sentence appears twice");
    }
}
