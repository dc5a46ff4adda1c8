//! The fit's loop: judge the starting points, then ask the search for a
//! generation of candidates, judge them as one batch, tell it the results,
//! checkpoint, and go on until its share of the time budget or the search
//! runs out or the caller cancels; then refine the best voice outside the
//! stock voices ([`super::refine`]) the same way for the rest of the
//! budget. The best voice found is never worse than the best starting
//! point on the probes, because the starting points are judged the same way.

use std::time::Instant;

use serde::{Deserialize, Serialize};

use super::descent::Descent;
use super::judge::{Judge, Listened, Verdict};
use super::refine::{Refinement, Snapshot};
use super::search::Cmaes;
use super::space::{StyleRecipe, StyleSpace, BOUND};
use super::{natural_shortfall, FitSettings, FittedVoice, HeldOutFigures};
use revoice_audio::tone::ToneCurve;
use revoice_core::error::{Error, Result};

/// Where a fit stands, saved after every generation so a killed fit resumes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FitCheckpoint {
    pub origin: StyleRecipe,
    pub started_from: String,
    pub origin_verdict: Verdict,
    pub search: Cmaes,
    pub candidates: u64,
    /// Search time spent so far, across resumes.
    pub seconds: f64,
    /// The refinement, once the search among the stock voices is done.
    #[serde(default)]
    pub refinement: Option<Refinement>,
    /// The descent, once the refinement has its start.
    #[serde(default)]
    pub descent: Option<Descent>,
}

impl FitCheckpoint {
    /// Generations judged so far, in every stage (a descent's step counts as one).
    pub fn generations(&self) -> u64 {
        self.search.generation + self.refined_generations() + self.descent.as_ref().map_or(0, |d| d.step)
    }

    /// Generations of the refinement judged so far.
    pub fn refined_generations(&self) -> u64 {
        self.refinement.as_ref().map_or(0, |r| r.generation)
    }

    /// Whether the search among the stock voices may go on: the
    /// refinement has not begun and the search's step has not run out.
    fn searching(&self) -> bool {
        self.refinement.is_none() && self.search.sigma() > SMALLEST_STEP
    }
}

/// What a running fit reports after each generation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FitProgress {
    pub generation: u64,
    pub candidates: u64,
    pub seconds: f64,
    /// Seconds of search left in the budget (the estimate of time left).
    pub seconds_left: f64,
    pub start_similarity: f32,
    pub best_similarity: f32,
}

/// First step size, in standard deviations: big enough that a
/// generation's candidates sound different.
const FIRST_STEP: f64 = 1.0;
/// The search stops when its step falls below this.
const SMALLEST_STEP: f64 = 0.02;

fn bounded(point: &[f64]) -> (Vec<f64>, f64) {
    let excess: f64 = point.iter().map(|c| (c.abs() - BOUND).max(0.0).powi(2)).sum();
    (point.iter().map(|c| c.clamp(-BOUND, BOUND)).collect(), 0.05 * excess)
}

/// The search's best voice, unless no candidate beat the starting point;
/// judged again for the tone match it is heard through.
fn searched_best(judge: &dyn Judge, space: &StyleSpace, state: &FitCheckpoint) -> Result<(StyleRecipe, Verdict)> {
    Ok(match &state.search.best {
        Some((point, fitness)) if *fitness > state.origin_verdict.fitness => {
            let recipe = space.recipe(&state.origin, &bounded(point).0);
            let verdict = judge.judge(std::slice::from_ref(&recipe), 0)?.remove(0);
            (recipe, verdict)
        }
        _ => (state.origin.clone(), state.origin_verdict.clone()),
    })
}

/// What a voice is worth when the fit chooses: its similarity on the
/// validation sentences, less `weight` times how far it sounds less natural
/// than `floor` (the best stock voice's naturalness less the margin).
fn worth(heard: &Listened, floor: Option<f32>, weight: f32) -> f32 {
    let shortfall = match (heard.naturalness, floor) {
        (Some(naturalness), Some(floor)) => natural_shortfall(naturalness, floor),
        _ => 0.0,
    };
    heard.similarity - weight * shortfall
}

/// The best stock voice as the fit's end hears it on the validation
/// sentences: the floor of naturalness and words both choices are held to,
/// rendered and heard once, when a choice first asks.
struct StockHeard<'a> {
    judge: &'a dyn Judge,
    recipe: Option<&'a StyleRecipe>,
    heard: std::cell::OnceCell<Option<Listened>>,
}

impl<'a> StockHeard<'a> {
    /// `best_stock`'s recipe among `starts`, heard through `judge`.
    fn new(judge: &'a dyn Judge, starts: &'a [(String, StyleRecipe)], best_stock: &str) -> StockHeard<'a> {
        let recipe = starts.iter().find(|(label, _)| label == best_stock).map(|(_, r)| r);
        StockHeard { judge, recipe, heard: std::cell::OnceCell::new() }
    }

    /// How the stock voice sounds on the validation sentences; `None` where
    /// the fit has no stock voice among its starts.
    fn heard(&self) -> Result<Option<Listened>> {
        if let Some(heard) = self.heard.get() {
            return Ok(*heard);
        }
        let heard = match self.recipe {
            Some(recipe) => self.judge.validation(std::slice::from_ref(recipe))?.pop(),
            None => None,
        };
        Ok(*self.heard.get_or_init(|| heard))
    }
}

/// How many more words than the best stock voice a voice may be heard
/// saying wrong on the validation sentences before the fit passes it over:
/// one, since Whisper slips on a word now and then.
const WORD_SLACK: usize = 1;

/// Whether `heard` says its words about as clearly as the best stock voice,
/// in which Whisper heard `stock` word errors (always, where the words were
/// not heard).
fn says_the_words(heard: &Listened, stock: Option<usize>) -> bool {
    match (heard.word_errors, stock) {
        (Some(errors), Some(stock)) => errors <= stock + WORD_SLACK,
        _ => true,
    }
}

/// The index of the voice worth most (the later of a tie) among those that
/// say their words about as clearly as the best stock voice (heard with
/// `stock_errors`); where none does, among those heard with the fewest.
fn worthiest(heard: &[Listened], floor: Option<f32>, weight: f32, stock_errors: Option<usize>) -> usize {
    let clear: Vec<usize> = (0..heard.len()).filter(|&i| says_the_words(&heard[i], stock_errors)).collect();
    let pool = if clear.is_empty() {
        let fewest = heard.iter().filter_map(|h| h.word_errors).min();
        (0..heard.len()).filter(|&i| heard[i].word_errors == fewest).collect()
    } else {
        clear
    };
    pool.into_iter().map(|i| (i, worth(&heard[i], floor, weight))).max_by(|a, b| a.1.total_cmp(&b.1)).map_or(0, |(i, _)| i)
}

/// The refinement's voice that sounds most like the reference on the
/// validation sentences. The probe score is heard on two sentences only,
/// and the climb does not rise evenly on others: a snapshot from before
/// the end may sound more like the reference there. Naturalness, where the
/// judge hears it, is logged but not weighed: weighing it here chose early
/// snapshots for naturalness that did not hold on other sentences (one
/// window of three sentences moves by ±0.15 from snapshot to snapshot) and
/// cost the LibriVox reader's Spanish voice 0.13 of held-out similarity
/// (session 51). A voice in which Whisper hears more words wrong than in
/// `stock`, the best stock voice, on the same sentences (beyond
/// [`WORD_SLACK`]) is passed over: a likeness that swallows words is not
/// one a dubber can use.
fn chosen_voice(judge: &dyn Judge, choices: Vec<Snapshot>, stock: &StockHeard) -> Result<Snapshot> {
    let recipes: Vec<StyleRecipe> = choices.iter().map(|c| c.recipe.clone()).collect();
    let heard = judge.validation(&recipes)?;
    let stock_errors = stock.heard()?.and_then(|h| h.word_errors);
    for (choice, h) in choices.iter().zip(&heard) {
        tracing::info!(
            generation = choice.generation,
            probes = choice.verdict.similarity,
            validation = h.similarity,
            naturalness = h.naturalness,
            word_errors = h.word_errors,
            stock_errors,
            "refined voice"
        );
    }
    // The later voice wins a tie: it climbed further on the probes.
    let at = worthiest(&heard, None, 0.0, stock_errors);
    Ok(choices.into_iter().nth(at).expect("the refinement has a voice"))
}

/// The shares of a descent's move the fit hears before it keeps one: the
/// spectral distance knows nothing of artefacts, and the whole move took
/// lp's English voice 0.23 under the best stock voice's naturalness
/// (session 57). None of it (the start) first, the whole move last, so
/// the whole move wins a tie.
const DESCENT_SHARES: [f32; 4] = [0.0, 0.25, 0.5, 1.0];

/// The voice the fit goes on from after descending from `start` to the
/// timbre offset `descended`: the share of the move in [`DESCENT_SHARES`]
/// worth most on the validation sentences, its similarity less `weight`
/// times how far it sounds less natural than `floor` (as the tone match's
/// strength is chosen), among the shares that say their words about as
/// clearly as the best stock voice (heard with `stock_errors`). Returns
/// the voice and the share kept.
fn natural_descent(
    judge: &dyn Judge,
    start: &StyleRecipe,
    descended: &[f32],
    floor: Option<f32>,
    weight: f32,
    stock_errors: Option<usize>,
) -> Result<(StyleRecipe, f32)> {
    let from = start.timbre_offset.clone().unwrap_or_else(|| vec![0.0; descended.len()]);
    let moved =
        |kept: f32| StyleRecipe { timbre_offset: Some(from.iter().zip(descended).map(|(a, b)| a + kept * (b - a)).collect()), tone: None, ..start.clone() };
    let mut recipes: Vec<StyleRecipe> = DESCENT_SHARES.iter().map(|kept| moved(*kept)).collect();
    recipes[0] = StyleRecipe { tone: None, ..start.clone() };
    let heard = judge.validation(&recipes)?;
    let at = worthiest(&heard, floor, weight, stock_errors);
    for (kept, h) in DESCENT_SHARES.iter().zip(&heard) {
        tracing::info!(
            kept,
            validation = h.similarity,
            naturalness = h.naturalness,
            floor,
            word_errors = h.word_errors,
            stock_errors,
            chosen = *kept == DESCENT_SHARES[at],
            "descended voice"
        );
    }
    Ok((recipes.swap_remove(at), DESCENT_SHARES[at]))
}

/// The step after which a descent is heard once ([`worse_than_its_start`]):
/// by six, lp's Italian words had taken its English voice's worth from
/// 0.55 to -0.82 (naturalness 2.32), while slt's had risen by 0.10 and the
/// LibriVox reader's by 0.08 (session 59). One hearing costs about two steps' time; hearing
/// every six steps cost slt four of its 21 steps, and a move that turns
/// unnatural later is still caught by [`natural_descent`].
const TRIAL_STEPS: u64 = 6;

/// How much less a descended voice must be worth than its start before
/// the descent stops: one hearing of three sentences moves by ±0.15 of
/// naturalness from one voice to the next nearby (see [`chosen_voice`]).
/// Stopped at any loss, the LibriVox reader's descent ended after 12 steps
/// on a hearing 0.007 under its start, where the whole 30 steps were
/// natural (session 59).
const WORSE_BY: f32 = 0.15;

/// Whether the voice descended from `start` to the timbre offset `offset`
/// is worth clearly less ([`WORSE_BY`]) on the validation sentences than
/// `start` (as [`natural_descent`] weighs them), or says its words less
/// clearly than the best stock voice: then the spectral distance leads
/// away from the voice for this recording, and the rest of the descent's
/// share is the refinement's, where lp's fit had spent 100 s on a move it
/// then dropped (session 58).
fn worse_than_its_start(judge: &dyn Judge, start: &StyleRecipe, offset: &[f32], floor: Option<f32>, weight: f32, stock_errors: Option<usize>) -> Result<bool> {
    let here = StyleRecipe { timbre_offset: Some(offset.to_vec()), tone: None, ..start.clone() };
    let heard = judge.validation(&[StyleRecipe { tone: None, ..start.clone() }, here])?;
    let (from, worth_here) = (worth(&heard[0], floor, weight), worth(&heard[1], floor, weight));
    tracing::info!(worth = worth_here, start_worth = from, naturalness = heard[1].naturalness, word_errors = heard[1].word_errors, "descent heard");
    Ok(worth_here < from - WORSE_BY || !says_the_words(&heard[1], stock_errors))
}

/// The strengths of its tone match a fitted voice is heard at before the
/// fit chooses one: the match colours the voice as well as correcting the
/// microphone, and a gentler match, or none (the style alone, strength 0),
/// may sound more natural. The full match is last, so it wins a tie.
const TONE_STRENGTHS: [f32; 3] = [0.0, 0.5, 1.0];

/// `tone` at the strength worth most on the validation sentences, its
/// naturalness held to `stock`'s less `margin` (full strength when the fit
/// does not weigh naturalness), among the strengths that say their words
/// about as clearly as `stock` (see [`chosen_voice`]); `None` for the style
/// alone.
fn tone_chosen(judge: &dyn Judge, style: &StyleRecipe, tone: Option<ToneCurve>, stock: &StockHeard, weight: f32, margin: f32) -> Result<Option<ToneCurve>> {
    if weight <= 0.0 || stock.recipe.is_none() {
        return Ok(tone);
    }
    let Some(tone) = tone else { return Ok(None) };
    let tones: Vec<Option<ToneCurve>> = TONE_STRENGTHS.iter().map(|s| (*s > 0.0).then(|| tone.scaled(*s))).collect();
    let recipes: Vec<StyleRecipe> = tones.iter().map(|t| StyleRecipe { tone: t.clone(), ..style.clone() }).collect();
    let heard = judge.validation(&recipes)?;
    // The best stock voice, heard on the same sentences, sets the floor.
    let stock_heard = stock.heard()?;
    let floor = stock_heard.and_then(|h| h.naturalness).map(|n| n - margin);
    let stock_errors = stock_heard.and_then(|h| h.word_errors);
    let at = worthiest(&heard, floor, weight, stock_errors);
    for ((strength, h), chosen) in TONE_STRENGTHS.iter().zip(&heard).zip((0..).map(|i| i == at)) {
        let word_errors = h.word_errors;
        tracing::info!(strength, validation = h.similarity, naturalness = h.naturalness, floor, word_errors, stock_errors, chosen, "tone match");
    }
    Ok(tones.into_iter().nth(at).flatten())
}

/// What a fit did, for its record.
struct FitRecord<'a> {
    language: &'a str,
    settings: &'a FitSettings,
    started_from: &'a str,
    generations: u64,
    candidates: u64,
    seconds: f32,
}

/// The fitted voice of `style` (heard through `verdict`'s tone match), at
/// the recording's register where the judge knows it, with its figures on
/// the held-out sentences beside the starting voices'.
fn finished(
    judge: &dyn Judge,
    starts: &[(String, StyleRecipe)],
    best_stock: &str,
    stock: &StockHeard,
    style: StyleRecipe,
    verdict: Verdict,
    record: &FitRecord,
) -> Result<FittedVoice> {
    // A moved pitch is heard again: the tone match follows the move.
    let (style, verdict) = match judge.registered(style.clone())? {
        moved if moved.pitch_semitones != style.pitch_semitones => {
            let verdict = judge.judge(std::slice::from_ref(&moved), 0)?.remove(0);
            (moved, verdict)
        }
        _ => (style, verdict),
    };
    let fit_similarity = verdict.similarity;
    let weight = record.settings.naturalness_weight;
    let tone = tone_chosen(judge, &style, verdict.tone, stock, weight, record.settings.naturalness_guard_margin)?;
    let recipe = StyleRecipe { tone, ..style.clone() };
    // Held out: the voice, the starting voices as they are, and the voice's
    // style without its tone match (how much of the gain is the tone's).
    let mut compared: Vec<StyleRecipe> = vec![recipe.clone()];
    compared.extend(starts.iter().map(|(_, r)| r.clone()));
    if recipe.tone.is_some() {
        compared.push(StyleRecipe { tone: None, ..style });
    }
    let held = judge.held_out(&compared)?;
    let style_only_similarity = recipe.tone.as_ref().map(|_| held[held.len() - 1].similarity);
    let heard_start = |label: &str| starts.iter().position(|(l, _)| l == label).map(|i| held[i + 1]);
    // A search that only learnt the probe sentences sounds less like the
    // reference on others: then the best starting voice is the voice, so a
    // fitted voice never sounds less like the reference than where it began.
    let best_start = (0..starts.len()).max_by(|a, b| held[a + 1].similarity.total_cmp(&held[b + 1].similarity));
    let (recipe, fitted, kept_start) = match best_start {
        Some(i) if held[i + 1].similarity > held[0].similarity => (starts[i].1.clone(), held[i + 1], Some(i)),
        _ => (recipe, held[0], None),
    };
    Ok(FittedVoice {
        recipe,
        kept_start: kept_start.is_some(),
        language: record.language.to_string(),
        settings: record.settings.clone(),
        started_from: kept_start.map_or_else(|| record.started_from.to_string(), |i| starts[i].0.clone()),
        fit_similarity,
        held_out: HeldOutFigures {
            best_stock: best_stock.to_string(),
            best_stock_similarity: heard_start(best_stock).map_or(0.0, |h| h.similarity),
            blend_similarity: heard_start("blend").map_or(0.0, |h| h.similarity),
            fitted_similarity: fitted.similarity,
            style_only_similarity: style_only_similarity.filter(|_| kept_start.is_none()),
            best_stock_naturalness: heard_start(best_stock).and_then(|h| h.naturalness),
            blend_naturalness: heard_start("blend").and_then(|h| h.naturalness),
            fitted_naturalness: fitted.naturalness,
        },
        generations: record.generations,
        candidates: record.candidates,
        seconds: record.seconds,
    })
}

/// A fitted voice found before, judged again as a fit ending today would
/// judge it: its style (without its tone match) heard through the judge's
/// tone match, and every figure on the held-out sentences measured again.
/// For trying a changed tone match or judge on kept voices without
/// searching again: the search's own settings and record (generations,
/// time) are kept, and what a fit's end decides by is `today`'s (the tone
/// match's largest gain, the register, naturalness's weight and margin).
pub fn judged_again(judge: &dyn Judge, starts: &[(String, StyleRecipe)], best_stock: &str, kept: &FittedVoice, today: &FitSettings) -> Result<FittedVoice> {
    let style = StyleRecipe { tone: None, ..kept.recipe.clone() };
    let verdict = judge.judge(std::slice::from_ref(&style), 0)?.remove(0);
    let settings = FitSettings {
        tone_match_db: today.tone_match_db,
        register_semitones: today.register_semitones,
        naturalness_weight: today.naturalness_weight,
        naturalness_guard_margin: today.naturalness_guard_margin,
        ..kept.settings.clone()
    };
    let record = FitRecord {
        language: &kept.language,
        settings: &settings,
        started_from: &kept.started_from,
        generations: kept.generations,
        candidates: kept.candidates,
        seconds: kept.seconds,
    };
    finished(judge, starts, best_stock, &StockHeard::new(judge, starts, best_stock), style, verdict, &record)
}

/// Fits a voice. `starts` are the starting points to judge first (the best
/// stock voice, the blend); `resume` a checkpoint of this same fit;
/// `on_generation` sees each checkpoint and progress (an error from it
/// stops the fit); `cancelled` is asked between generations. Returns the
/// voice and the fit's last checkpoint.
#[allow(clippy::too_many_arguments)]
pub fn fit(
    judge: &dyn Judge,
    space: &StyleSpace,
    starts: &[(String, StyleRecipe)],
    best_stock: &str,
    language: &str,
    settings: &FitSettings,
    resume: Option<FitCheckpoint>,
    on_generation: &mut dyn FnMut(&FitCheckpoint, &FitProgress) -> Result<()>,
    cancelled: &dyn Fn() -> bool,
) -> Result<(FittedVoice, FitCheckpoint)> {
    let began = Instant::now();
    let mut state = match resume {
        Some(state) => state,
        None => {
            let recipes: Vec<StyleRecipe> = starts.iter().map(|(_, r)| r.clone()).collect();
            let verdicts = judge.judge(&recipes, 0)?;
            let (at, verdict) = verdicts
                .iter()
                .enumerate()
                .max_by(|a, b| a.1.fitness.total_cmp(&b.1.fitness))
                .ok_or_else(|| Error::invalid("voice fit", "has no starting voice"))?;
            FitCheckpoint {
                origin: starts[at].1.clone(),
                started_from: starts[at].0.clone(),
                origin_verdict: verdict.clone(),
                search: Cmaes::new(vec![0.0; space.dims()], FIRST_STEP, Some(settings.population), settings.seed),
                candidates: starts.len() as u64,
                seconds: began.elapsed().as_secs_f64(),
                refinement: None,
                descent: None,
            }
        }
    };
    let budget = settings.minutes as f64 * 60.0;
    let refining = settings.refine_share > 0.0;
    let search_budget = budget * (1.0 - settings.refine_share as f64);
    let resumed_at = state.seconds;
    let mut best_similarity = state.refinement.as_ref().map_or(state.origin_verdict.similarity, |r| r.judged.verdict.similarity);
    let generations_left = |done: u64| settings.max_generations.is_none_or(|g| done < g);
    // Seconds left, estimated from the time per generation so far.
    let seconds_left = |state: &FitCheckpoint| -> f64 {
        let left = (budget - state.seconds).max(0.0);
        match settings.max_generations {
            Some(g) => {
                // The search may stop before its cap (its step ran out).
                let search_left = if state.searching() { g.saturating_sub(state.search.generation) } else { 0 };
                let refine_left = if refining { g.saturating_sub(state.refined_generations()) } else { 0 };
                ((search_left + refine_left) as f64 * state.seconds / state.generations().max(1) as f64).min(left)
            }
            None => left,
        }
    };
    let progress_of = |state: &FitCheckpoint, best_similarity: f32| FitProgress {
        generation: state.generations(),
        candidates: state.candidates,
        seconds: state.seconds,
        seconds_left: seconds_left(state),
        start_similarity: state.origin_verdict.similarity,
        best_similarity,
    };
    while state.searching() && state.seconds < search_budget && generations_left(state.search.generation) {
        if cancelled() {
            return Err(Error::Cancelled("the voice fit".into()));
        }
        let asked = state.search.ask();
        let (points, penalties): (Vec<Vec<f64>>, Vec<f64>) = asked.iter().map(|p| bounded(p)).unzip();
        let recipes: Vec<StyleRecipe> = points.iter().map(|p| space.recipe(&state.origin, p)).collect();
        let verdicts = judge.judge(&recipes, 0)?;
        let fitness: Vec<f64> = verdicts.iter().zip(&penalties).map(|(v, p)| v.fitness - p).collect();
        for (v, f) in verdicts.iter().zip(&fitness) {
            if *f >= state.search.best.as_ref().map_or(f64::MIN, |b| b.1) {
                best_similarity = best_similarity.max(v.similarity);
            }
        }
        state.search.tell(&asked, &fitness);
        state.candidates += asked.len() as u64;
        state.seconds = resumed_at + began.elapsed().as_secs_f64();
        on_generation(&state, &progress_of(&state, best_similarity))?;
    }
    // The best stock voice is heard once for both of the end's choices.
    let stock = StockHeard::new(judge, starts, best_stock);
    let (style, verdict) = if refining {
        // The refinement lives in the checkpoint, so each generation's save holds it.
        if state.refinement.is_none() {
            let (style, verdict) = searched_best(judge, space, &state)?;
            state.refinement = Some(Refinement::new(style, verdict, settings.seed));
        }
        // The descent moves the refinement's start down the spectral distance's gradient.
        let descent_budget = search_budget + budget * settings.descent_share.min(settings.refine_share) as f64;
        if settings.descent_share > 0.0 && !state.descent.as_ref().is_some_and(|d| d.done) {
            let start = state.refinement.as_ref().expect("the refinement was set above").current.clone();
            let spread = space.timbre_spread();
            state.descent.get_or_insert_with(|| Descent::new(start.timbre_offset.clone().unwrap_or_else(|| vec![0.0; spread.len()])));
            let floor = stock.heard()?.and_then(|h| h.naturalness).map(|n| n - settings.naturalness_guard_margin);
            let stock_errors = stock.heard()?.and_then(|h| h.word_errors);
            loop {
                let descent = state.descent.as_mut().expect("the descent was set above");
                if descent.stopped || state.seconds >= descent_budget || !generations_left(descent.step) {
                    break;
                }
                if cancelled() {
                    return Err(Error::Cancelled("the voice fit".into()));
                }
                let recipe = StyleRecipe { timbre_offset: Some(descent.offset.clone()), ..start.clone() };
                let Some((distance, gradient)) = judge.spectral_gradient(&recipe, descent.step)? else {
                    tracing::info!("no gradient to descend (no words heard, or no differentiable model)");
                    break;
                };
                descent.step(distance, &gradient, spread);
                tracing::info!(step = descent.step, distance, "descent");
                descent.stopped = descent.step == TRIAL_STEPS
                    && settings.naturalness_weight > 0.0
                    && worse_than_its_start(judge, &start, &descent.offset, floor, settings.naturalness_weight, stock_errors)?;
                state.seconds = resumed_at + began.elapsed().as_secs_f64();
                on_generation(&state, &progress_of(&state, best_similarity))?;
            }
            let descent = state.descent.as_mut().expect("the descent was set above");
            descent.done = true;
            if descent.step > 0 {
                let (moved, kept) = natural_descent(judge, &start, &descent.offset, floor, settings.naturalness_weight, stock_errors)?;
                descent.kept = kept;
                state.seconds = resumed_at + began.elapsed().as_secs_f64();
                if kept > 0.0 {
                    // The refinement goes on from the descended voice, judged as its candidates are.
                    let verdict = judge.judge(std::slice::from_ref(&moved), 0)?.remove(0);
                    state.refinement.as_mut().expect("the refinement was set above").move_to(moved, verdict);
                }
            }
        }
        while state.seconds < budget && generations_left(state.refined_generations()) {
            if cancelled() {
                return Err(Error::Cancelled("the voice fit".into()));
            }
            let refinement = state.refinement.as_mut().expect("the refinement was set above");
            let candidates = refinement.ask(space.timbre_spread(), settings.population);
            let probe_set = (refinement.generation % settings.probe_sets.max(1) as u64) as usize;
            let verdicts = judge.judge(&candidates, probe_set)?;
            refinement.tell(space.timbre_spread(), &candidates, &verdicts);
            tracing::debug!(
                generation = refinement.generation,
                probe_set,
                step = refinement.step,
                similarity = refinement.judged.verdict.similarity,
                naturalness = refinement.judged.verdict.naturalness,
                "refinement"
            );
            // Similarities on other sets are other sentences: the best so
            // far compares the search's own probes only.
            if probe_set == 0 {
                best_similarity = best_similarity.max(refinement.judged.verdict.similarity);
            }
            state.candidates += candidates.len() as u64;
            state.seconds = resumed_at + began.elapsed().as_secs_f64();
            on_generation(&state, &progress_of(&state, best_similarity))?;
        }
        let refinement = state.refinement.as_ref().expect("the refinement was set above");
        let chosen = StyleRecipe { tone: None, ..chosen_voice(judge, refinement.choices(), &stock)?.recipe };
        // Heard again on the search's probes: the fit's figure and tone
        // match come from the same sentences whichever set it was judged on.
        let verdict = judge.judge(std::slice::from_ref(&chosen), 0)?.remove(0);
        (chosen, verdict)
    } else {
        searched_best(judge, space, &state)?
    };
    let record = FitRecord {
        language,
        settings,
        started_from: &state.started_from,
        generations: state.generations(),
        candidates: state.candidates,
        seconds: (resumed_at + began.elapsed().as_secs_f64()) as f32,
    };
    let fitted = finished(judge, starts, best_stock, &stock, style, verdict, &record)?;
    Ok((fitted, state))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fit::space::test_voices;
    use crate::fit::NATURAL_MARGIN;

    /// A judge that prefers recipes leaning towards `am_adam`, a little
    /// more in the timbre than in the prosody, and notes the probe set of
    /// each generation it judges.
    #[derive(Default)]
    struct Towards {
        probe_sets: std::cell::RefCell<Vec<usize>>,
    }

    impl Judge for Towards {
        fn judge(&self, recipes: &[StyleRecipe], probe_set: usize) -> Result<Vec<Verdict>> {
            self.probe_sets.borrow_mut().push(probe_set);
            Ok(recipes
                .iter()
                .map(|r| {
                    let weight = |half: &[(String, f32)], name: &str| half.iter().filter(|(n, _)| n == name).map(|(_, w)| *w as f64).sum::<f64>();
                    let fitness = -(weight(&r.timbre, "am_adam") - 0.7).powi(2)
                        - weight(&r.timbre, "bf_emma").powi(2)
                        - (weight(&r.prosody, "am_adam") - 0.4).powi(2)
                        - weight(&r.prosody, "bm_lewis").powi(2);
                    Verdict { similarity: (1.0 + fitness) as f32, fitness, tone: None, naturalness: None }
                })
                .collect())
        }

        fn held_out(&self, recipes: &[StyleRecipe]) -> Result<Vec<Listened>> {
            Ok(self.judge(recipes, usize::MAX)?.iter().map(|v| Listened { similarity: v.similarity, naturalness: None, word_errors: None }).collect())
        }

        fn validation(&self, recipes: &[StyleRecipe]) -> Result<Vec<Listened>> {
            self.held_out(recipes)
        }
    }

    #[test]
    fn the_time_left_counts_the_generations_left_even_when_the_search_stops_early() {
        let voices = test_voices();
        let space = StyleSpace::new(&voices, 2, 2);
        let starts = vec![("af_heart".to_string(), StyleRecipe::of_blend(&[("af_heart".to_string(), 1.0)]))];
        let cap = 400;
        let settings = FitSettings { minutes: 600.0, population: 6, max_generations: Some(cap), refine_share: 0.5, ..Default::default() };
        let mut left = Vec::new();
        let judge = Towards::default();
        let (fitted, state) = fit(
            &judge,
            &space,
            &starts,
            "af_heart",
            "en-US",
            &settings,
            None,
            &mut |_, p| {
                left.push((p.seconds_left * p.generation as f64 / p.seconds).round() as u64);
                Ok(())
            },
            &|| false,
        )
        .unwrap();
        assert!(state.search.generation < cap, "the search's step ran out before its cap");
        assert_eq!(state.refinement.as_ref().map(|r| r.generation), Some(cap));
        assert!(left.windows(2).all(|w| w[1] < w[0]), "the estimate only falls: {left:?}");
        assert_eq!(left.last(), Some(&0), "nothing is left at the end");
        assert_eq!(left[state.search.generation as usize - 1], cap, "when the search stops, the refinement's generations are left");
        assert!(fitted.held_out.fitted_similarity >= fitted.held_out.best_stock_similarity);
    }

    #[test]
    fn the_search_reads_the_first_probe_set_and_the_refinement_reads_them_in_turn() {
        let voices = test_voices();
        let space = StyleSpace::new(&voices, 2, 2);
        let starts = vec![("af_heart".to_string(), StyleRecipe::of_blend(&[("af_heart".to_string(), 1.0)]))];
        let settings = FitSettings { minutes: 600.0, population: 6, max_generations: Some(5), refine_share: 0.5, probe_sets: 3, ..Default::default() };
        let judge = Towards::default();
        let (_, state) = fit(&judge, &space, &starts, "af_heart", "en-US", &settings, None, &mut |_, _| Ok(()), &|| false).unwrap();
        assert_eq!(state.search.generation, 5);
        // The starts, five search generations, the search's best judged
        // again, five refinement generations, the chosen voice on the
        // search's probes, then validation and held-out (not probes).
        let probes: Vec<usize> = judge.probe_sets.borrow().iter().copied().filter(|s| *s != usize::MAX).collect();
        assert_eq!(probes, [0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 0, 1, 0]);
    }

    /// [`Towards`], whose spectral distance falls as the timbre offset nears
    /// 0.1 in every column; where `natural_within` is set, a voice sounds
    /// less natural on the validation sentences as its offset passes that
    /// far from 0 in any column (and more like the reference as it moves).
    #[derive(Default)]
    struct Downhill {
        towards: Towards,
        gradients: std::cell::Cell<u64>,
        natural_within: Option<f32>,
    }

    impl Judge for Downhill {
        fn judge(&self, recipes: &[StyleRecipe], probe_set: usize) -> Result<Vec<Verdict>> {
            self.towards.judge(recipes, probe_set)
        }

        fn held_out(&self, recipes: &[StyleRecipe]) -> Result<Vec<Listened>> {
            self.towards.held_out(recipes)
        }

        fn validation(&self, recipes: &[StyleRecipe]) -> Result<Vec<Listened>> {
            let mut heard = self.towards.validation(recipes)?;
            for (h, r) in heard.iter_mut().zip(recipes) {
                let farthest = r.timbre_offset.iter().flatten().fold(0.0f32, |m, o| m.max(o.abs()));
                h.naturalness = self.natural_within.map(|within| 4.0 - 10.0 * (farthest - within).max(0.0));
                // Where naturalness is heard, the descent also brings likeness.
                h.similarity += self.natural_within.map_or(0.0, |_| 2.0 * farthest);
            }
            Ok(heard)
        }

        fn spectral_gradient(&self, recipe: &StyleRecipe, _piece: u64) -> Result<Option<(f32, Vec<f32>)>> {
            self.gradients.set(self.gradients.get() + 1);
            let offset = recipe.timbre_offset.clone().expect("a descent's recipe has an offset");
            let distance = offset.iter().map(|o| (o - 0.1) * (o - 0.1)).sum();
            Ok(Some((distance, offset.iter().map(|o| 2.0 * (o - 0.1)).collect())))
        }
    }

    /// A fit of af_heart's voice from the start, and every checkpoint it saved.
    fn fit_saving_checkpoints(
        judge: &dyn Judge,
        space: &StyleSpace,
        starts: &[(String, StyleRecipe)],
        settings: &FitSettings,
    ) -> (FitCheckpoint, Vec<FitCheckpoint>) {
        let mut checkpoints = Vec::new();
        let mut saved = |c: &FitCheckpoint, _: &FitProgress| {
            checkpoints.push(c.clone());
            Ok(())
        };
        let (_, state) = fit(judge, space, starts, "af_heart", "en-US", settings, None, &mut saved, &|| false).unwrap();
        (state, checkpoints)
    }

    #[test]
    fn a_descent_moves_the_timbre_down_its_gradient_the_refinement_goes_on_from_there_and_it_resumes_exactly() {
        let voices = test_voices();
        let space = StyleSpace::new(&voices, 2, 2);
        let starts = vec![("af_heart".to_string(), StyleRecipe::of_blend(&[("af_heart".to_string(), 1.0)]))];
        let settings = FitSettings { minutes: 600.0, population: 6, max_generations: Some(5), refine_share: 0.5, descent_share: 0.25, ..Default::default() };
        let judge = Downhill::default();
        let (state, checkpoints) = fit_saving_checkpoints(&judge, &space, &starts, &settings);
        let descent = state.descent.clone().expect("the fit descended");
        assert_eq!((descent.step, judge.gradients.get()), (5, 5), "a step a generation, up to the cap");
        assert!(descent.done);
        assert_eq!(descent.kept, 1.0, "naturalness unheard: the whole move is kept");
        assert!(descent.distances.windows(2).all(|w| w[1] < w[0]), "the distance falls: {:?}", descent.distances);
        let refinement = state.refinement.clone().unwrap();
        assert_eq!(refinement.generation, 5, "the refinement went on after the descent");
        assert!(
            refinement.snapshots.iter().any(|s| s.recipe.timbre_offset.as_deref() == Some(descent.offset.as_slice())),
            "the descended voice is among the voices the fit chooses from"
        );
        assert_eq!(state.generations(), state.search.generation + 5 + 5);

        // Killed after the descent's second step, the fit resumes where it stood.
        let mid = checkpoints.iter().find(|c| c.descent.as_ref().is_some_and(|d| d.step == 2)).cloned().unwrap();
        let (_, resumed) = fit(&Downhill::default(), &space, &starts, "af_heart", "en-US", &settings, Some(mid), &mut |_, _| Ok(()), &|| false).unwrap();
        assert_eq!(resumed.descent, state.descent);
        assert_eq!(resumed.refinement, state.refinement);
    }

    #[test]
    fn a_descent_keeps_only_as_much_of_its_move_as_sounds_natural() {
        let voices = test_voices();
        let space = StyleSpace::new(&voices, 2, 2);
        let starts = vec![("af_heart".to_string(), StyleRecipe::of_blend(&[("af_heart".to_string(), 1.0)]))];
        let settings = FitSettings { minutes: 600.0, population: 6, max_generations: Some(5), refine_share: 0.5, descent_share: 0.25, ..Default::default() };
        let descended = |natural_within: f32| {
            let judge = Downhill { natural_within: Some(natural_within), ..Default::default() };
            let (_, state) = fit(&judge, &space, &starts, "af_heart", "en-US", &settings, None, &mut |_, _| Ok(()), &|| false).unwrap();
            let descent = state.descent.clone().expect("the fit descended");
            let moved_to = state.refinement.unwrap().snapshots.iter().filter_map(|s| s.recipe.timbre_offset.clone()).next();
            (descent, moved_to)
        };
        // Five steps of Adam take every column about 0.1 from 0.
        let (whole, moved_to) = descended(0.2);
        assert_eq!(whole.kept, 1.0, "a move that sounds natural is kept whole");
        assert_eq!(moved_to.as_deref(), Some(whole.offset.as_slice()));
        let (most, _) = descended(0.098);
        assert_eq!(most.kept, 1.0, "a little naturalness is worth much likeness (as the tone match weighs them)");
        let (half, moved_to) = descended(0.06);
        assert_eq!(half.kept, 0.5, "half the move is within what sounds natural, the whole is not");
        let moved_to = moved_to.expect("the refinement went on from half the move");
        assert!(moved_to.iter().zip(&half.offset).all(|(m, o)| (m - 0.5 * o).abs() < 1e-6), "{moved_to:?} against {:?}", half.offset);
        let (none, moved_to) = descended(0.0);
        assert_eq!(none.kept, 0.0, "every share of the move costs naturalness");
        assert_eq!(moved_to, None, "the refinement went on from the start");
    }

    #[test]
    fn a_descent_heard_worse_than_its_start_stops_and_gives_its_time_back() {
        let voices = test_voices();
        let space = StyleSpace::new(&voices, 2, 2);
        let starts = vec![("af_heart".to_string(), StyleRecipe::of_blend(&[("af_heart".to_string(), 1.0)]))];
        let settings = FitSettings { minutes: 600.0, population: 6, max_generations: Some(14), refine_share: 0.5, descent_share: 0.25, ..Default::default() };
        let descended = |natural_within: f32| {
            let judge = Downhill { natural_within: Some(natural_within), ..Default::default() };
            let (state, checkpoints) = fit_saving_checkpoints(&judge, &space, &starts, &settings);
            (state, checkpoints, judge.gradients.get())
        };
        // Natural all the way: the descent takes every step it may.
        let (state, _, gradients) = descended(0.2);
        let descent = state.descent.unwrap();
        assert_eq!((descent.step, gradients, descent.stopped), (14, 14, false));
        // Unnatural past 0.02 (every column is about 0.1 from 0 after five
        // steps): the first hearing, after six, stops it.
        let (state, checkpoints, gradients) = descended(0.02);
        let descent = state.descent.clone().unwrap();
        assert_eq!((descent.step, gradients, descent.stopped), (6, 6, true), "stopped at the first hearing");
        assert_eq!(state.refinement.as_ref().unwrap().generation, 14, "the refinement has the rest");
        // Killed when it stopped, the fit resumes without descending further.
        let at_stop = checkpoints.iter().find(|c| c.descent.as_ref().is_some_and(|d| d.stopped)).cloned().unwrap();
        let judge = Downhill { natural_within: Some(0.02), ..Default::default() };
        let (_, resumed) = fit(&judge, &space, &starts, "af_heart", "en-US", &settings, Some(at_stop), &mut |_, _| Ok(()), &|| false).unwrap();
        assert_eq!(judge.gradients.get(), 0);
        assert_eq!(resumed.descent, state.descent);
        assert_eq!(resumed.refinement, state.refinement);
    }

    /// [`Towards`], asking every finished style to sit a semitone and a half lower.
    #[derive(Default)]
    struct Lower(Towards);

    impl Judge for Lower {
        fn judge(&self, recipes: &[StyleRecipe], probe_set: usize) -> Result<Vec<Verdict>> {
            self.0.judge(recipes, probe_set)
        }

        fn held_out(&self, recipes: &[StyleRecipe]) -> Result<Vec<Listened>> {
            self.0.held_out(recipes)
        }

        fn validation(&self, recipes: &[StyleRecipe]) -> Result<Vec<Listened>> {
            self.0.validation(recipes)
        }

        fn registered(&self, style: StyleRecipe) -> Result<StyleRecipe> {
            Ok(StyleRecipe { pitch_semitones: Some(-1.5), ..style })
        }
    }

    #[test]
    fn a_kept_voice_judged_again_keeps_its_style_and_record() {
        let voices = test_voices();
        let space = StyleSpace::new(&voices, 2, 2);
        let starts = vec![("af_heart".to_string(), StyleRecipe::of_blend(&[("af_heart".to_string(), 1.0)]))];
        let settings = FitSettings { minutes: 600.0, population: 6, max_generations: Some(3), refine_share: 0.5, ..Default::default() };
        let (kept, _) = fit(&Towards::default(), &space, &starts, "af_heart", "en-US", &settings, None, &mut |_, _| Ok(()), &|| false).unwrap();
        let again = judged_again(&Towards::default(), &starts, "af_heart", &kept, &settings).unwrap();
        assert_eq!(again, kept, "the same judge finds the same voice and figures");
        // A judge that knows the register moves the voice there, and the rest stays.
        let lower = judged_again(&Lower::default(), &starts, "af_heart", &kept, &settings).unwrap();
        assert_eq!(lower.recipe.pitch_semitones, Some(-1.5));
        assert_eq!(StyleRecipe { pitch_semitones: None, ..lower.recipe.clone() }, kept.recipe);
        assert_eq!((lower.generations, lower.candidates, lower.seconds), (kept.generations, kept.candidates, kept.seconds));
        let (fitted, _) = fit(&Lower::default(), &space, &starts, "af_heart", "en-US", &settings, None, &mut |_, _| Ok(()), &|| false).unwrap();
        assert_eq!(fitted.recipe.pitch_semitones, Some(-1.5), "a fit ends at the register too");
    }

    /// A judge that hears more of the reference in a voice further out
    /// (its timbre offset, and its tone match's largest gain: `likeness`
    /// per dB) and less naturalness (`cost` per dB of the match): the
    /// trade the fit's choice makes.
    struct Trade {
        likeness: f32,
        cost: f32,
    }

    /// A tone match that brings some likeness for some naturalness.
    const TRADE: Trade = Trade { likeness: 0.02, cost: 0.03 };

    impl Trade {
        fn listened(&self, recipe: &StyleRecipe) -> Listened {
            let out = recipe.timbre_offset.as_ref().map_or(0.0, |o| o[0]);
            let tone = recipe.tone.as_ref().map_or(0.0, |t| t.largest_db());
            Listened { similarity: 0.7 + 0.01 * out + self.likeness * tone, naturalness: Some(3.6 - 0.05 * out - self.cost * tone), word_errors: None }
        }
    }

    impl Judge for Trade {
        fn judge(&self, recipes: &[StyleRecipe], _: usize) -> Result<Vec<Verdict>> {
            Ok(recipes.iter().map(|r| Verdict { similarity: self.listened(r).similarity, fitness: 0.0, tone: None, naturalness: None }).collect())
        }

        fn held_out(&self, recipes: &[StyleRecipe]) -> Result<Vec<Listened>> {
            Ok(recipes.iter().map(|r| self.listened(r)).collect())
        }

        fn validation(&self, recipes: &[StyleRecipe]) -> Result<Vec<Listened>> {
            self.held_out(recipes)
        }
    }

    #[test]
    fn the_refined_voice_is_chosen_by_likeness_alone() {
        let stock = StyleRecipe::of_blend(&[("am_adam".to_string(), 1.0)]);
        let snapshots: Vec<Snapshot> = [0, 4, 10, 7]
            .into_iter()
            .map(|g| {
                let recipe = StyleRecipe { timbre_offset: Some(vec![g as f32]), ..stock.clone() };
                Snapshot { generation: g, verdict: TRADE.judge(std::slice::from_ref(&recipe), 0).unwrap().remove(0), recipe }
            })
            .collect();
        // The most similar, however much less natural.
        let starts = [("am_adam".to_string(), stock)];
        assert_eq!(chosen_voice(&TRADE, snapshots, &StockHeard::new(&TRADE, &starts, "am_adam")).unwrap().generation, 10);
        // What a voice is worth when naturalness is weighed: free within the margin, then at the weight.
        let heard = |naturalness| Listened { similarity: 0.8, naturalness: Some(naturalness), word_errors: None };
        assert!((worth(&heard(3.45), Some(3.5), 1.0) - 0.75).abs() < 1e-5);
        assert_eq!(worth(&heard(3.6), Some(3.5), 1.0), 0.8);
        assert_eq!(worth(&heard(3.0), None, 1.0), 0.8, "no floor without a stock voice heard");
    }

    /// A judge that hears more of the reference in a voice further out (its
    /// timbre offset) and, past `clear_up_to`, a word more wrong per step
    /// out; the stock voice (no offset) is heard with one word wrong.
    struct Mumbling {
        clear_up_to: f32,
    }

    impl Judge for Mumbling {
        fn judge(&self, recipes: &[StyleRecipe], _: usize) -> Result<Vec<Verdict>> {
            let heard = self.held_out(recipes)?;
            Ok(heard.iter().map(|h| Verdict { similarity: h.similarity, fitness: 0.0, tone: None, naturalness: None }).collect())
        }

        fn held_out(&self, recipes: &[StyleRecipe]) -> Result<Vec<Listened>> {
            Ok(recipes
                .iter()
                .map(|r| {
                    let out = r.timbre_offset.as_ref().map(|o| o[0]);
                    let word_errors = out.map_or(1, |out| 1 + (out - self.clear_up_to).max(0.0) as usize);
                    Listened { similarity: 0.7 + 0.01 * out.unwrap_or(0.0), naturalness: None, word_errors: Some(word_errors) }
                })
                .collect())
        }

        fn validation(&self, recipes: &[StyleRecipe]) -> Result<Vec<Listened>> {
            self.held_out(recipes)
        }
    }

    #[test]
    fn a_refined_voice_that_swallows_words_is_passed_over() {
        let stock = StyleRecipe::of_blend(&[("am_adam".to_string(), 1.0)]);
        let snapshots = |judge: &Mumbling| -> Vec<Snapshot> {
            [0, 4, 10, 7]
                .into_iter()
                .map(|g| {
                    let recipe = StyleRecipe { timbre_offset: Some(vec![g as f32]), ..stock.clone() };
                    Snapshot { generation: g, verdict: judge.judge(std::slice::from_ref(&recipe), 0).unwrap().remove(0), recipe }
                })
                .collect()
        };
        let starts = [("am_adam".to_string(), stock.clone())];
        let chosen =
            |judge: &Mumbling, best_stock: &str| chosen_voice(judge, snapshots(judge), &StockHeard::new(judge, &starts, best_stock)).unwrap().generation;
        // Generation 7 is heard with three words wrong, 10 with six, against the stock voice's one.
        let mumbling = Mumbling { clear_up_to: 5.0 };
        assert_eq!(chosen(&mumbling, "am_adam"), 4);
        // One word more than the stock voice is within Whisper's slips.
        assert_eq!(chosen(&Mumbling { clear_up_to: 6.0 }, "am_adam"), 7);
        // Without the stock voice heard, there is nothing to hold the words to.
        assert_eq!(chosen(&mumbling, "none of the starts"), 10);
        // Where every voice swallows words, the one heard with the fewest.
        assert_eq!(chosen(&Mumbling { clear_up_to: -5.0 }, "am_adam"), 0);
    }

    #[test]
    fn a_tone_match_that_costs_naturalness_is_softened_or_left_off() {
        let stock = StyleRecipe::of_blend(&[("am_adam".to_string(), 1.0)]);
        let tone = ToneCurve { gains_db: vec![10.0, -4.0, 0.0] };
        let starts = [("am_adam".to_string(), stock.clone())];
        let heard = |judge: &'static Trade| StockHeard::new(judge, &starts, "am_adam");
        // Full: likeness 0.9, naturalness 3.3, 0.2 under the floor; half:
        // 0.8 and 3.45, within the margin; none: 0.7 and 3.6.
        let softened = tone_chosen(&TRADE, &stock, Some(tone.clone()), &heard(&TRADE), 1.0, NATURAL_MARGIN).unwrap().unwrap();
        assert_eq!(softened.gains_db, vec![5.0, -2.0, 0.0]);
        assert_eq!(
            tone_chosen(&TRADE, &stock, Some(tone.clone()), &heard(&TRADE), 0.0, NATURAL_MARGIN).unwrap(),
            Some(tone.clone()),
            "unweighed: the full match"
        );
        // A gentle match costs nothing below the margin: kept whole.
        let gentle = ToneCurve { gains_db: vec![1.5, 0.0, -1.0] };
        assert_eq!(tone_chosen(&TRADE, &stock, Some(gentle.clone()), &heard(&TRADE), 1.0, NATURAL_MARGIN).unwrap(), Some(gentle));
        // A match that colours more than it brings: the style alone.
        static COLOURING: Trade = Trade { likeness: 0.002, cost: 0.05 };
        let colouring = &COLOURING;
        assert_eq!(tone_chosen(colouring, &stock, Some(tone.clone()), &heard(colouring), 1.0, NATURAL_MARGIN).unwrap(), None);
        assert_eq!(tone_chosen(&TRADE, &stock, None, &heard(&TRADE), 1.0, NATURAL_MARGIN).unwrap(), None);
        // Without a margin the half match's 0.15 below the stock voice costs more than the likeness it brings.
        assert_eq!(tone_chosen(&TRADE, &stock, Some(tone.clone()), &heard(&TRADE), 1.0, 0.0).unwrap(), None);
    }

    /// [`Towards`], hearing every voice through a tone match, and counting
    /// how often `stock` is rendered on the validation sentences.
    struct Toned {
        towards: Towards,
        stock: StyleRecipe,
        stock_validations: std::cell::Cell<usize>,
    }

    impl Judge for Toned {
        fn judge(&self, recipes: &[StyleRecipe], probe_set: usize) -> Result<Vec<Verdict>> {
            let tone = ToneCurve { gains_db: vec![3.0, -1.0, 0.0] };
            Ok(self.towards.judge(recipes, probe_set)?.into_iter().map(|v| Verdict { tone: Some(tone.clone()), ..v }).collect())
        }

        fn held_out(&self, recipes: &[StyleRecipe]) -> Result<Vec<Listened>> {
            self.towards.held_out(recipes)
        }

        fn validation(&self, recipes: &[StyleRecipe]) -> Result<Vec<Listened>> {
            self.stock_validations.set(self.stock_validations.get() + recipes.iter().filter(|r| **r == self.stock).count());
            self.towards.validation(recipes)
        }
    }

    #[test]
    fn a_fit_hears_the_stock_voice_once_for_both_of_its_ends_choices() {
        let voices = test_voices();
        let space = StyleSpace::new(&voices, 2, 2);
        let stock = StyleRecipe::of_blend(&[("af_heart".to_string(), 1.0)]);
        let starts = vec![("af_heart".to_string(), stock.clone())];
        let settings =
            FitSettings { minutes: 600.0, population: 6, max_generations: Some(3), refine_share: 0.5, naturalness_weight: 1.0, ..Default::default() };
        let judge = Toned { towards: Towards::default(), stock, stock_validations: std::cell::Cell::new(0) };
        let (fitted, _) = fit(&judge, &space, &starts, "af_heart", "en-US", &settings, None, &mut |_, _| Ok(()), &|| false).unwrap();
        assert!(fitted.recipe.tone.is_some() || fitted.kept_start, "the tone choice ran");
        assert_eq!(judge.stock_validations.get(), 1, "the snapshot's choice and the tone match's share one hearing");
    }
}
