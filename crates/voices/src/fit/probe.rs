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
//! the recording's tonal balance band by band (computed from the spectra,
//! not searched), so the search looks for the voice, and the curve for the
//! microphone; its verdict carries the smoothed curve the voice would
//! speak through ([`ToneCurve::matching_in_detail`] says why the two differ).
//! With [`OwnWords`], each candidate also says one piece of the recording's
//! own words per generation, and its spectral distance to the recording
//! there (against the reading voice's) counts in its score beside the
//! encoder's: a judge of another kind than the encoder. Told the
//! recording's register (`FitSettings.register_semitones`), the judge moves
//! a finished style's pitch towards it ([`Judge::registered`]): the encoder
//! hardly hears register, and the style's prosody half does not reach a
//! low man's voice. Given the naturalness judge, it also scores how natural
//! the voices sound on the validation and held-out sentences (the fit
//! chooses its tone match's strength by it), and with a guard every
//! candidate's probe renders too, so the search keeps to voices about as
//! natural as the best stock voice ([`ProbeJudge::with_naturalness_guard`]).
//! Given a [`WordListener`], it hears the words of the validation
//! renders, so the fit can set aside a voice that swallows them.

use std::sync::Arc;

use rayon::prelude::*;

use revoice_audio::cepstrum::mel_cepstral_distortion_below;
use revoice_audio::pitch::{voice_stats, VoiceStats};
use revoice_audio::tone::{long_term_spectrum, LongTermSpectrum, ToneCurve};
use revoice_core::error::{Error, Result};
use revoice_model::kokoro::differentiable::DifferentiableVoice;
use revoice_model::kokoro::release::stock_voices;
use revoice_model::kokoro::voices::StockVoices;
use revoice_model::naturalness::NaturalnessJudge;
use revoice_model::speaker::{cosine_similarity, SpeakerEncoder};
use revoice_model::spectral_distance::SpectralTarget;
use revoice_model::speech::{RowAudio, SpeechModel, SpeechRow};
use revoice_speech::front_end::{FrontEnd, SayRequest};
use revoice_speech::scheduler::{Job, Scheduler};
use revoice_text::word_errors::word_errors_in;

use super::judge::{Judge, Listened, Verdict, WordListener};
use super::natural_shortfall;
use super::space::StyleRecipe;

/// What a fit reads in one language, written for the studio in that
/// language's own spelling: `probe_sets`, what candidates read while the
/// fit searches: sets of a short and a longer line (about 4.5 s together;
/// each candidate's renders are the fit's main cost), so more than one of
/// a pack's rows is heard. The search among the stock voices reads the
/// first set; the refinement reads the sets in turn, a set per generation
/// (every candidate of a generation the same set, so they are ranked on the
/// same words), which keeps it from learning two sentences. `validation`:
/// what the refinement's snapshots are compared on to choose the voice
/// (neither probe nor held-out sentences, so the choice learns nothing of
/// the probes). `held_out`: what the finished voice is checked on, never
/// heard during the search.
pub struct FitSentences {
    /// The language they are in (a tag of the language table).
    pub language: &'static str,
    pub probe_sets: [[&'static str; 2]; 4],
    pub validation: [&'static str; 3],
    pub held_out: [&'static str; 3],
}

/// Every language a voice can be fitted to speak.
pub const SENTENCES: &[FitSentences] = &[
    FitSentences {
        language: "en",
        probe_sets: [
            ["Where did you put the keys?", "The train was late again, so we walked the last mile in the rain."],
            ["Can you hear me now?", "My grandmother kept every letter she ever got in a box under her bed."],
            ["That was not what I expected.", "They painted the fence on Saturday, but the storm washed half of it away."],
            ["Are we nearly there yet?", "He opened the window, and the smell of fresh bread drifted in from the street."],
        ],
        validation: [
            "I never said that, and you know it.",
            "Turn left at the bakery, then follow the river until you see the old bridge.",
            "If the weather holds, we could leave before sunrise tomorrow.",
        ],
        held_out: [
            "Nobody told me the meeting had moved to Thursday.",
            "She laughed, folded the letter twice, and slipped it into her coat pocket.",
            "We have about ten minutes before the lights go out, so let's make them count.",
        ],
    },
    FitSentences {
        language: "es",
        probe_sets: [
            ["¿Dónde dejaste las llaves?", "El tren volvió a llegar tarde, así que hicimos el último tramo andando bajo la lluvia."],
            ["¿Me oyes ahora?", "Mi abuela guardaba todas las cartas que recibía en una caja debajo de la cama."],
            ["No era lo que esperaba.", "Pintaron la valla el sábado, pero la tormenta se llevó la mitad de la pintura."],
            ["¿Falta mucho para llegar?", "Abrió la ventana y el olor a pan recién hecho entró desde la calle."],
        ],
        validation: [
            "Yo nunca dije eso, y lo sabes.",
            "Gira a la izquierda en la panadería y sigue el río hasta ver el puente viejo.",
            "Si el tiempo aguanta, podríamos salir mañana antes del amanecer.",
        ],
        held_out: [
            "Nadie me avisó de que la reunión se había pasado al jueves.",
            "Se rio, dobló la carta dos veces y la guardó en el bolsillo del abrigo.",
            "Nos quedan unos diez minutos antes de que se apaguen las luces, así que aprovechémoslos.",
        ],
    },
    FitSentences {
        language: "fr",
        probe_sets: [
            ["Où as-tu mis les clés ?", "Le train avait encore du retard, alors nous avons fait le dernier kilomètre à pied sous la pluie."],
            ["Tu m'entends maintenant ?", "Ma grand-mère gardait toutes ses lettres dans une boîte sous son lit."],
            ["Ce n'était pas ce que j'attendais.", "Ils ont peint la clôture samedi, mais l'orage en a effacé la moitié."],
            ["On arrive bientôt ?", "Il a ouvert la fenêtre, et l'odeur du pain chaud est entrée depuis la rue."],
        ],
        validation: [
            "Je n'ai jamais dit ça, et tu le sais.",
            "Tourne à gauche après la boulangerie, puis suis la rivière jusqu'au vieux pont.",
            "Si le temps le permet, nous pourrions partir demain avant l'aube.",
        ],
        held_out: [
            "Personne ne m'a dit que la réunion avait été déplacée à jeudi.",
            "Elle a ri, plié la lettre en quatre et l'a glissée dans la poche de son manteau.",
            "Il nous reste à peu près dix minutes avant que les lumières s'éteignent, alors profitons-en.",
        ],
    },
    FitSentences {
        language: "it",
        probe_sets: [
            ["Dove hai messo le chiavi?", "Il treno era di nuovo in ritardo, così abbiamo fatto l'ultimo chilometro a piedi sotto la pioggia."],
            ["Mi senti adesso?", "Mia nonna conservava tutte le lettere che riceveva in una scatola sotto il letto."],
            ["Non era quello che mi aspettavo.", "Hanno dipinto il recinto sabato, ma il temporale ne ha portato via metà."],
            ["Siamo quasi arrivati?", "Ha aperto la finestra, e il profumo del pane appena sfornato è entrato dalla strada."],
        ],
        validation: [
            "Non l'ho mai detto, e lo sai.",
            "Gira a sinistra dopo il forno, poi segui il fiume fino al vecchio ponte.",
            "Se il tempo regge, potremmo partire domani prima dell'alba.",
        ],
        held_out: [
            "Nessuno mi aveva detto che la riunione era stata spostata a giovedì.",
            "Ha riso, ha piegato la lettera due volte e l'ha infilata nella tasca del cappotto.",
            "Abbiamo una decina di minuti prima che si spengano le luci, quindi facciamoli valere.",
        ],
    },
    FitSentences {
        language: "pt-BR",
        probe_sets: [
            ["Onde você deixou as chaves?", "O trem atrasou de novo, então andamos o último quilômetro debaixo de chuva."],
            ["Você está me ouvindo agora?", "Minha avó guardava todas as cartas que recebia numa caixa embaixo da cama."],
            ["Não era o que eu esperava.", "Eles pintaram a cerca no sábado, mas a tempestade levou metade da tinta."],
            ["Já estamos chegando?", "Ele abriu a janela, e o cheiro de pão fresco entrou da rua."],
        ],
        validation: [
            "Eu nunca disse isso, e você sabe.",
            "Vire à esquerda na padaria e siga o rio até ver a ponte velha.",
            "Se o tempo ajudar, podemos sair amanhã antes do nascer do sol.",
        ],
        held_out: [
            "Ninguém me avisou que a reunião tinha passado para quinta-feira.",
            "Ela riu, dobrou a carta duas vezes e guardou no bolso do casaco.",
            "Temos uns dez minutos antes de as luzes se apagarem, então vamos aproveitar.",
        ],
    },
    FitSentences {
        language: "hi",
        probe_sets: [
            ["तुमने चाबियाँ कहाँ रखीं?", "ट्रेन फिर से देर से आई, इसलिए हम आख़िरी एक किलोमीटर बारिश में पैदल चले।"],
            ["क्या अब मेरी आवाज़ आ रही है?", "मेरी दादी को जो भी चिट्ठी मिलती थी, वह उसे पलंग के नीचे एक डिब्बे में रख लेती थीं।"],
            ["मैंने ऐसा नहीं सोचा था।", "उन्होंने शनिवार को बाड़ रंगी, लेकिन तूफ़ान आधा रंग बहा ले गया।"],
            ["क्या हम पहुँचने वाले हैं?", "उसने खिड़की खोली, और सड़क से ताज़ी रोटी की ख़ुशबू अंदर आ गई।"],
        ],
        validation: [
            "मैंने ऐसा कभी नहीं कहा, और यह तुम जानते हो।",
            "बेकरी पर बाएँ मुड़ना, फिर नदी के साथ-साथ पुराने पुल तक चलते जाना।",
            "अगर मौसम ठीक रहा, तो हम कल सूरज निकलने से पहले निकल सकते हैं।",
        ],
        held_out: [
            "किसी ने मुझे नहीं बताया कि बैठक गुरुवार को कर दी गई है।",
            "वह हँसी, चिट्ठी को दो बार मोड़ा और अपने कोट की जेब में रख लिया।",
            "बत्ती जाने से पहले हमारे पास लगभग दस मिनट हैं, तो चलो इनका पूरा फ़ायदा उठाएँ।",
        ],
    },
    FitSentences {
        language: "zh",
        probe_sets: [
            ["你把钥匙放哪儿了？", "火车又晚点了，所以最后一公里我们是冒着雨走过去的。"],
            ["你现在能听见我吗？", "我奶奶把收到的每一封信都放在床底下的一个盒子里。"],
            ["我可没这么想过。", "他们星期六刷了篱笆，可是暴风雨把一半的油漆都冲掉了。"],
            ["我们快到了吗？", "她打开窗户，街上新烤面包的香味飘了进来。"],
        ],
        validation: ["我从来没这么说过，你心里清楚。", "到面包店往左拐，然后沿着河一直走到那座老桥。", "要是天气好，我们明天太阳出来之前就能出发。"],
        held_out: ["没有人告诉我会议改到星期四了。", "她笑了笑，把信对折了两次，放进了大衣口袋。", "停电之前我们大概还有十分钟，那就好好利用吧。"],
    },
    FitSentences {
        language: "ja",
        probe_sets: [
            ["鍵、どこに置いたの？", "電車がまた遅れたから、最後の一キロは雨の中を歩いたんだ。"],
            ["今、私の声が聞こえますか？", "祖母は届いた手紙を全部、ベッドの下の箱にしまっていました。"],
            ["そんなこと、思ってもみなかった。", "土曜日に塀を塗ったのに、嵐でペンキが半分流されてしまった。"],
            ["もうすぐ着くの？", "彼女が窓を開けると、通りから焼きたてのパンの香りが入ってきた。"],
        ],
        validation: [
            "そんなこと一度も言ってないし、あなたも分かってるでしょう。",
            "パン屋で左に曲がって、川沿いに古い橋まで歩いてください。",
            "天気が良ければ、明日は日の出前に出発できます。",
        ],
        held_out: [
            "会議が木曜日に変わったなんて、誰も教えてくれなかった。",
            "彼女は笑って手紙を二つに折り、コートのポケットに入れた。",
            "停電まであと十分くらいだから、うまく使おう。",
        ],
    },
];

/// The sentences a fit reads in `language` (any tag of the language table:
/// `en-GB` reads English's); `None` where a voice cannot be fitted yet.
pub fn sentences_for(language: &str) -> Option<&'static FitSentences> {
    SENTENCES.iter().find(|s| revoice_text::language::speaks(s.language, language))
}

/// Whether a fit in `language` hears the words its voices say: not in
/// Japanese, where Whisper writes a word in kanji or in kana as it likes, so
/// a count of differing characters says little of how clearly a voice speaks.
pub fn words_heard_in(language: &str) -> bool {
    !revoice_text::language::speaks("ja", language)
}

/// The English held-out sentences (the bench's intelligibility check).
pub const HELD_OUT_SENTENCES: &[&str] = &SENTENCES[0].held_out;

/// Below this share of voiced speech, a render is not speech.
const MIN_VOICED: f32 = 0.35;
/// Pitch range of a human speaking voice, in Hz.
const PITCH_RANGE: (f32, f32) = (60.0, 400.0);
/// Renders of one voice should sound like one speaker from line to line.
const MIN_CONSISTENCY: f32 = 0.7;
/// How far a candidate's pace may drift from the starting voice's (ratio).
const MAX_PACE_DRIFT: f32 = 1.3;

/// The recording's own words, cut in pieces (a few seconds each, as
/// Whisper heard them), for the spectral term of a fit's score. A voice
/// fitted to speak another language says them too, read as the
/// recording's language is read: the term is the timbre on the same
/// words, whatever the voice will speak.
pub struct OwnWords {
    /// Each piece's words and the recording's samples saying them (at the
    /// model's rate).
    pub pieces: Vec<(String, Vec<f32>)>,
    /// The language Whisper heard the words in (a tag such as `en`).
    pub language: String,
    /// The highest frequency the recording carries, in Hz: the spectra are
    /// compared below it.
    pub band_top_hz: f64,
    /// How much a candidate's distance counts: its score gains
    /// `weight × (1 − distance ÷ the reading voice's distance)`.
    pub weight: f64,
}

/// [`OwnWords`] as the judge uses them: each piece as the lines the front
/// end reads it in (tokens), with the recording's samples, and the reading
/// voice's distance on it, once measured.
struct OwnPieces {
    pieces: Vec<(Vec<Vec<u32>>, Vec<f32>)>,
    band_top_hz: f64,
    weight: f64,
    reading_voice: String,
    baseline: std::sync::Mutex<Vec<Option<f64>>>,
}

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
    own_words: Option<OwnPieces>,
    /// The recording's median pitch in Hz and the largest move towards it,
    /// in semitones.
    register: Option<(f32, f32)>,
    /// The naturalness judge, listening on validation and held-out renders.
    naturalness: Option<&'a NaturalnessJudge>,
    /// Where every candidate is held to a floor of naturalness too.
    guard: Option<NaturalGuard>,
    /// The language the sentences are in, and the validation sentences
    /// as written (what a voice's words are compared with).
    language: &'static str,
    validation_text: String,
    /// Whisper, hearing the words of the validation renders.
    words: Option<&'a dyn WordListener>,
    /// The differentiable model a descent takes its gradients through.
    descender: Option<Descender<'a>>,
}

/// What the judge takes a timbre's gradient with ([`Judge::spectral_gradient`]):
/// the decoder and generator as differentiable operations, the model that
/// reads each line for them, and each piece of the recording's own words
/// as a target (`None` where the analysis finds no sound in it).
struct Descender<'a> {
    voice: &'a DifferentiableVoice,
    model: &'a dyn SpeechModel,
    targets: Vec<Option<SpectralTarget>>,
}

/// Holds candidates to the naturalness of a stock voice: each candidate's
/// probe renders, as it is heard (through its tone match), are scored as
/// one clip, and each point of the opinion scale it falls more than
/// `margin` below the floor voice's score on the same probes costs
/// `weight` of its fitness. The encoder cannot hear the buzz a style
/// pushed away from the stock voices makes, so without it the refinement
/// walks into it (session 51: the fitted styles lost 0.35 to 0.5 of
/// DNSMOS's signal score against the stock voices).
struct NaturalGuard {
    weight: f64,
    margin: f32,
    floor_voice: StyleRecipe,
    /// The floor voice's score on each probe set, once measured.
    floors: std::sync::Mutex<Vec<Option<f32>>>,
}

/// A voice's renders of several lines as one clip.
fn joined(renders: &[RowAudio]) -> Vec<f32> {
    renders.iter().flat_map(|r| r.samples.iter().copied()).collect()
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
        // The sentences of the reading voice's language, read as it reads them.
        let language = stock_voices().into_iter().find(|v| v.name == reading_voice).map(|v| v.language).unwrap_or("en-US");
        let sentences =
            sentences_for(language).ok_or_else(|| Error::invalid(format!("language {language:?}"), "has no sentences a voice can be fitted on yet"))?;
        Ok(ProbeJudge {
            scheduler,
            voices: front_end.stock_voices(),
            encoder,
            sample_rate,
            reference,
            tone_target,
            probes: sentences.probe_sets.iter().map(|set| tokens(front_end, set, reading_voice)).collect::<Result<_>>()?,
            held_out: tokens(front_end, &sentences.held_out, reading_voice)?,
            validation: tokens(front_end, &sentences.validation, reading_voice)?,
            pace: std::sync::Mutex::new(None),
            own_words: None,
            register: None,
            naturalness: None,
            guard: None,
            language: sentences.language,
            validation_text: sentences.validation.join(" "),
            words: None,
            descender: None,
        })
    }

    /// A judge that also hears the words of the validation renders
    /// ([`Listened::word_errors`]), in the languages [`words_heard_in`].
    pub fn with_words(mut self, listener: &'a dyn WordListener) -> ProbeJudge<'a> {
        if words_heard_in(self.language) {
            self.words = Some(listener);
        }
        self
    }

    /// A judge that also listens for how natural the voices sound on the
    /// validation and held-out sentences ([`Listened::naturalness`]).
    pub fn with_naturalness(mut self, naturalness: &'a NaturalnessJudge) -> ProbeJudge<'a> {
        self.naturalness = Some(naturalness);
        self
    }

    /// The judge, also holding every candidate to `floor_voice`'s
    /// naturalness on the same probes, less `margin` (see
    /// [`NaturalGuard`]); needs the naturalness judge, and a weight above 0.
    pub fn with_naturalness_guard(mut self, weight: f32, margin: f32, floor_voice: StyleRecipe) -> ProbeJudge<'a> {
        if weight > 0.0 && self.naturalness.is_some() {
            let floors = std::sync::Mutex::new(vec![None; self.probes.len()]);
            self.guard = Some(NaturalGuard { weight: weight as f64, margin, floor_voice: StyleRecipe { tone: None, ..floor_voice }, floors });
        }
        self
    }

    /// The judge, moving a finished style's pitch towards the recording's
    /// median pitch `recording_hz`, by at most `most_semitones`.
    pub fn with_register(mut self, recording_hz: f32, most_semitones: f32) -> ProbeJudge<'a> {
        if recording_hz > 0.0 && most_semitones > 0.0 {
            self.register = Some((recording_hz, most_semitones));
        }
        self
    }

    /// The judge, with the recording's own words counting in each
    /// candidate's score, measured against `reading_voice` saying them (a
    /// piece the front end reads as several lines is said as those lines,
    /// one after the other; no piece, or words in a language the studio
    /// cannot read: no term).
    pub fn with_own_words(mut self, front_end: &FrontEnd, own_words: OwnWords, reading_voice: &str) -> Result<ProbeJudge<'a>> {
        let Some(reader) = words_reader(self.language, &own_words.language, reading_voice) else {
            tracing::info!(language = own_words.language, "the recording's words are in a language the studio does not read: no spectral term");
            return Ok(self);
        };
        let mut pieces = Vec::new();
        for (words, samples) in own_words.pieces {
            let lines = tokens(front_end, &[words.as_str()], reader)?;
            if !lines.is_empty() {
                pieces.push((lines, samples));
            }
        }
        if !pieces.is_empty() {
            let count = pieces.len();
            self.own_words = Some(OwnPieces {
                pieces,
                band_top_hz: own_words.band_top_hz,
                weight: own_words.weight,
                reading_voice: reading_voice.to_string(),
                baseline: std::sync::Mutex::new(vec![None; count]),
            });
        }
        Ok(self)
    }

    /// The judge, also giving the gradient of a style's spectral distance
    /// to the recording's own words ([`Judge::spectral_gradient`]) through
    /// `voice`, each line read by `model`; needs the own words
    /// ([`Self::with_own_words`]).
    pub fn with_descent(mut self, voice: &'a DifferentiableVoice, model: &'a dyn SpeechModel) -> Result<ProbeJudge<'a>> {
        let Some(own) = &self.own_words else { return Ok(self) };
        let target = |samples: &[f32]| {
            SpectralTarget::new(samples, self.sample_rate, own.band_top_hz).map_err(|e| Error::internal("the recording's spectral target", e.to_string()))
        };
        let targets = own.pieces.iter().map(|(_, samples)| target(samples)).collect::<Result<Vec<_>>>()?;
        if targets.iter().any(Option::is_some) {
            self.descender = Some(Descender { voice, model, targets });
        }
        Ok(self)
    }

    /// The rows of `recipe` reading `lines` (through its tone match, if it has one).
    fn rows_of(&self, recipe: &StyleRecipe, lines: &[Vec<u32>]) -> Result<Vec<SpeechRow>> {
        let pack = recipe.pack(self.voices)?;
        let tone = recipe.tone.clone().map(Arc::new);
        let pitch_semitones = recipe.pitch_semitones.unwrap_or(0.0);
        Ok(lines
            .iter()
            .map(|tokens| SpeechRow {
                tokens: tokens.clone(),
                style: pack.style_for(tokens.len() - 2).to_vec(),
                speed: 1.0,
                seed: None,
                target_seconds: None,
                tone: tone.clone(),
                pitch_semitones,
            })
            .collect())
    }

    /// Renders every recipe reading `lines`, as one scheduler job (each
    /// through its own tone match, if it has one).
    fn render(&self, recipes: &[StyleRecipe], lines: &[Vec<u32>]) -> Result<Vec<Vec<RowAudio>>> {
        let mut rows = Vec::with_capacity(recipes.len() * lines.len());
        for recipe in recipes {
            rows.extend(self.rows_of(recipe, lines)?);
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

    /// How each recipe sounds reading `lines` (through its own tone, if it
    /// has one), all of them rendered as one job: its similarity, its
    /// naturalness where the judge listens for it, and, given `written`
    /// (the lines as written), how many words Whisper hears wrong.
    fn listened(&self, recipes: &[StyleRecipe], lines: &[Vec<u32>], written: Option<&str>) -> Result<Vec<Listened>> {
        let clips: Vec<Vec<f32>> = self.render(recipes, lines)?.iter().map(|r| joined(r)).collect();
        let similarities: Vec<f32> = clips.par_iter().map(|clip| self.similarity(clip)).collect::<Result<_>>()?;
        // One clip after another, outside the pool: the naturalness judge
        // spreads over the cores itself and judges one clip at a time.
        let naturalness: Vec<Option<f32>> = match self.naturalness {
            Some(judge) => clips.iter().map(|clip| judge.score_one_window(clip, self.sample_rate).map(|n| Some(n.signal))).collect::<Result<_>>()?,
            None => vec![None; clips.len()],
        };
        let word_errors: Vec<Option<usize>> = match (self.words, written) {
            (Some(listener), Some(written)) => {
                let clip_refs: Vec<&[f32]> = clips.iter().map(Vec::as_slice).collect();
                let heard = listener.heard(&clip_refs, self.sample_rate, self.language)?;
                heard
                    .iter()
                    .map(|heard| {
                        let errors = word_errors_in(written, heard, self.language);
                        Some(errors.substitutions + errors.deletions + errors.insertions)
                    })
                    .collect()
            }
            _ => vec![None; clips.len()],
        };
        Ok(similarities
            .into_iter()
            .zip(naturalness)
            .zip(word_errors)
            .map(|((similarity, naturalness), word_errors)| Listened { similarity, naturalness, word_errors })
            .collect())
    }

    /// Holds the candidates whose probe clips are `clips` (on probe set
    /// `set`) to the guard's floor: lowers each one's `fitness` by its
    /// shortfall, and returns how natural each sounded. Only what the
    /// search reads is scored (see [`scored_best`]); a candidate left
    /// unscored keeps its fitness, an upper bound that stays below the
    /// best half's. Nothing where the judge does not guard.
    fn guard(&self, clips: &[Vec<f32>], fitness: &mut [f64], set: usize) -> Result<Vec<Option<f32>>> {
        let (Some(guard), Some(judge)) = (&self.guard, self.naturalness) else { return Ok(vec![None; clips.len()]) };
        let at = set % self.probes.len();
        let known = guard.floors.lock().unwrap_or_else(|p| p.into_inner())[at];
        let floor = match known {
            Some(floor) => floor,
            None => {
                // The floor voice heard as a candidate is: through the tone match its renders need.
                let mut renders = self.render(std::slice::from_ref(&guard.floor_voice), &self.probes[at])?.remove(0);
                if let Some((tone, _)) = self.tones_for(&renders) {
                    renders.iter_mut().for_each(|row| row.samples = tone.apply(&row.samples, row.sample_rate));
                }
                let floor = judge.score_clip(&joined(&renders), self.sample_rate)?.signal;
                tracing::debug!(probe_set = at, floor, margin = guard.margin, "naturalness floor");
                guard.floors.lock().unwrap_or_else(|p| p.into_inner())[at] = Some(floor);
                floor
            }
        };
        scored_best(fitness, |i| {
            let naturalness = judge.score_clip(&clips[i], self.sample_rate)?.signal;
            Ok((naturalness, guard.weight * natural_shortfall(naturalness, floor - guard.margin) as f64))
        })
    }

    /// The tone matches that give `renders` the recording's tonal balance:
    /// band by band, which the candidate is heard through, and smoothed,
    /// which the voice would speak through (see [`ToneCurve::matching_in_detail`]).
    fn tones_for(&self, renders: &[RowAudio]) -> Option<(ToneCurve, ToneCurve)> {
        let (target, max_db) = self.tone_target.as_ref()?;
        let voice = long_term_spectrum(&joined(renders), self.sample_rate)?;
        Some((ToneCurve::matching_in_detail(target, &voice, *max_db), ToneCurve::matching(target, &voice, *max_db)))
    }

    /// A candidate's `renders`, and `whole`, the same joined as one clip.
    fn hear(&self, renders: &[RowAudio], whole: &[f32]) -> Result<Heard> {
        let similarity = self.similarity(whole)?;
        let each: Vec<Vec<f32>> = renders.iter().map(|r| self.embedding(&r.samples).map(Option::unwrap_or_default)).collect::<Result<_>>()?;
        let mut pairs = Vec::new();
        for i in 0..each.len() {
            for j in i + 1..each.len() {
                pairs.push(if each[i].is_empty() || each[j].is_empty() { 0.0 } else { cosine_similarity(&each[i], &each[j]) });
            }
        }
        let consistency = if pairs.is_empty() { 1.0 } else { pairs.iter().sum::<f32>() / pairs.len() as f32 };
        Ok(Heard { similarity, consistency, stats: voice_stats(whole, self.sample_rate) })
    }

    /// Each candidate's spectral term on piece `at` of the recording's own
    /// words (`said`: its render of them, through its tone match, its
    /// lines joined): the weight times how much nearer to the recording it
    /// is than the reading voice, as a share of the reading voice's distance.
    fn spectral_terms(&self, own: &OwnPieces, at: usize, said: &[Option<Vec<f32>>]) -> Result<Vec<f64>> {
        let (lines, recording) = &own.pieces[at];
        let distance = |samples: &[f32]| mel_cepstral_distortion_below(recording, samples, self.sample_rate, own.band_top_hz);
        let known = own.baseline.lock().unwrap_or_else(|p| p.into_inner())[at];
        let baseline = match known {
            Some(d) => d,
            None => {
                let reading = StyleRecipe::of_blend(&[(own.reading_voice.clone(), 1.0)]);
                let render = self.render(std::slice::from_ref(&reading), lines)?;
                let d = render.first().and_then(|r| distance(&joined(r))).unwrap_or(f64::NAN);
                own.baseline.lock().unwrap_or_else(|p| p.into_inner())[at] = Some(d);
                d
            }
        };
        Ok(said
            .par_iter()
            .map(|render| {
                let d = render.as_ref().and_then(|samples| distance(samples));
                spectral_term(d, baseline, own.weight)
            })
            .collect())
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
        // The recording's own words ride along in the same batch, after the probes.
        let piece = self.own_words.as_ref().filter(|own| own.weight > 0.0).map(|own| probe_set % own.pieces.len());
        let mut lines = probes.clone();
        if let (Some(own), Some(at)) = (&self.own_words, piece) {
            lines.extend(own.pieces[at].0.iter().cloned());
        }
        let began = std::time::Instant::now();
        let mut renders = self.render(&plain, &lines)?;
        let rendered = began.elapsed();
        // Each candidate's rows past the probes say the piece.
        let mut said: Vec<Vec<RowAudio>> = renders.iter_mut().map(|r| r.split_off(probes.len().min(r.len()))).collect();
        let tones: Vec<Option<(ToneCurve, ToneCurve)>> = renders.iter().map(|r| self.tones_for(r)).collect();
        for ((audio, own), tone) in renders.iter_mut().zip(said.iter_mut()).zip(&tones) {
            if let Some((tone, _)) = tone {
                for row in audio.iter_mut().chain(own.iter_mut()) {
                    row.samples = tone.apply(&row.samples, row.sample_rate);
                }
            }
        }
        let said: Vec<Option<Vec<f32>>> = said.iter().map(|rows| (!rows.is_empty()).then(|| joined(rows))).collect();
        // Listening is the encoder's work per candidate: side by side on the pool.
        let toned = began.elapsed();
        let clips: Vec<Vec<f32>> = renders.iter().map(|r| joined(r)).collect();
        let heard: Vec<Heard> = renders.par_iter().zip(&clips).map(|(r, clip)| self.hear(r, clip)).collect::<Result<_>>()?;
        let listened = began.elapsed();
        let spectral: Vec<f64> = match (&self.own_words, piece) {
            (Some(own), Some(at)) => self.spectral_terms(own, at, &said)?,
            _ => vec![0.0; recipes.len()],
        };
        {
            // The first candidates judged are the starting points: their pace is the reference pace.
            let mut pace = self.pace.lock().unwrap_or_else(|p| p.into_inner());
            if pace.is_none() {
                *pace = heard.iter().map(|h| h.stats.seconds / tokens as f32).reduce(f32::max).filter(|s| *s > 0.0);
            }
        }
        let mut fitness: Vec<f64> = heard.iter().zip(&spectral).map(|(h, spectral)| h.similarity as f64 - self.penalty(h, tokens) + spectral).collect();
        let spoken = began.elapsed();
        let naturalness = self.guard(&clips, &mut fitness, probe_set)?;
        tracing::debug!(
            candidates = recipes.len(),
            render_ms = rendered.as_millis() as u64,
            tone_ms = (toned - rendered).as_millis() as u64,
            encoder_ms = (listened - toned).as_millis() as u64,
            own_words_ms = (spoken - listened).as_millis() as u64,
            guard_ms = (began.elapsed() - spoken).as_millis() as u64,
            guarded = naturalness.iter().flatten().count(),
            "judged"
        );
        Ok(heard
            .iter()
            .zip(tones)
            .zip(fitness)
            .zip(naturalness)
            .map(|(((h, tone), fitness), naturalness)| Verdict { similarity: h.similarity, fitness, tone: tone.map(|(_, spoken)| spoken), naturalness })
            .collect())
    }

    fn held_out(&self, recipes: &[StyleRecipe]) -> Result<Vec<Listened>> {
        self.listened(recipes, &self.held_out, None)
    }

    fn validation(&self, recipes: &[StyleRecipe]) -> Result<Vec<Listened>> {
        self.listened(recipes, &self.validation, Some(&self.validation_text))
    }

    fn spectral_gradient(&self, recipe: &StyleRecipe, piece: u64) -> Result<Option<(f32, Vec<f32>)>> {
        let (Some(own), Some(descender)) = (&self.own_words, &self.descender) else { return Ok(None) };
        let usable: Vec<usize> = (0..own.pieces.len()).filter(|&i| descender.targets[i].is_some()).collect();
        let Some(&at) = usable.get((piece % usable.len().max(1) as u64) as usize) else { return Ok(None) };
        let target = descender.targets[at].as_ref().expect("usable pieces have a target");
        let rows = self.rows_of(&StyleRecipe { tone: None, ..recipe.clone() }, &own.pieces[at].0)?;
        descender.voice.timbre_gradient(descender.model, &rows, target)
    }

    fn registered(&self, style: StyleRecipe) -> Result<StyleRecipe> {
        let Some((recording_hz, most)) = self.register else { return Ok(style) };
        // Where the style's own pitch sits, on the search's probes.
        let plain = StyleRecipe { tone: None, pitch_semitones: None, ..style.clone() };
        let renders = self.render(&[plain], &self.probes[0])?.remove(0);
        let voice_hz = voice_stats(&joined(&renders), self.sample_rate).median_pitch_hz;
        Ok(StyleRecipe { pitch_semitones: register_move(recording_hz, voice_hz, most), ..style })
    }
}

/// Scores candidates by `score` (their score and the cost it puts on their
/// fitness), best `fitness` first, until the best half and one more (the
/// searches weigh their best half; the refinement's first candidate is the
/// voice itself, outside its ranking) are certain: a cost only lowers a
/// fitness, so once that many scored candidates are worth at least the
/// next one's fitness before its cost, none after it can join them.
/// Lowers each scored fitness by its cost; returns the scores.
fn scored_best(fitness: &mut [f64], mut score: impl FnMut(usize) -> Result<(f32, f64)>) -> Result<Vec<Option<f32>>> {
    let wanted = fitness.len() / 2 + 1;
    let mut order: Vec<usize> = (0..fitness.len()).collect();
    order.sort_by(|a, b| fitness[*b].total_cmp(&fitness[*a]));
    let mut scores = vec![None; fitness.len()];
    let mut scored: Vec<f64> = Vec::new();
    for i in order {
        if scored.iter().filter(|f| **f >= fitness[i]).count() >= wanted {
            break;
        }
        let (value, cost) = score(i)?;
        scores[i] = Some(value);
        fitness[i] -= cost;
        scored.push(fitness[i]);
    }
    Ok(scores)
}

/// A move smaller than this is not worth a new register.
const SMALLEST_REGISTER_MOVE: f32 = 0.5;

/// The semitones that bring a voice whose median pitch is `voice_hz` to
/// `recording_hz`, at most `most` either way; `None` when the voice has no
/// pitch or is within [`SMALLEST_REGISTER_MOVE`] already.
fn register_move(recording_hz: f32, voice_hz: f32, most: f32) -> Option<f32> {
    if voice_hz <= 0.0 || recording_hz <= 0.0 {
        return None;
    }
    let semitones = (12.0 * (recording_hz / voice_hz).log2()).clamp(-most, most);
    // Two decimals: the same register always gives the same recipe id.
    (semitones.abs() >= SMALLEST_REGISTER_MOVE).then(|| (semitones * 100.0).round() / 100.0)
}

/// The voice whose reading turns the recording's words (heard in
/// `words_language`) into tokens for a fit in `language`: the fit's
/// `reading_voice` where the two are one language, else the default voice
/// of the words' language, so a Spanish voice says an English recording's
/// words as English is read; `None` for a language the studio reads with
/// none of its own voices (its default voice would read another language).
fn words_reader<'v>(language: &str, words_language: &str, reading_voice: &'v str) -> Option<&'v str> {
    if revoice_text::language::speaks(language, words_language) {
        return Some(reading_voice);
    }
    revoice_text::language::of_tag(words_language).filter(|l| l.native).map(|l| l.default_voice)
}

/// A candidate's spectral term: `weight × (1 − distance ÷ baseline)`,
/// bounded to ±`weight` (a voice twice as far loses the whole weight, and
/// no voice gains more than it); nothing when either distance is unknown.
fn spectral_term(distance: Option<f64>, baseline: f64, weight: f64) -> f64 {
    match distance {
        Some(d) if baseline.is_finite() && baseline > 0.0 => weight * (1.0 - d / baseline).clamp(-1.0, 1.0),
        // A render with no sound to compare is as far as can be.
        None if baseline.is_finite() && baseline > 0.0 => -weight,
        _ => 0.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_recordings_words_are_read_in_their_own_language() {
        assert_eq!(words_reader("en-US", "en", "af_sky"), Some("af_sky"), "the fit's own reading voice");
        assert_eq!(words_reader("es", "en", "ef_dora"), Some("af_heart"), "an English recording read as English for a Spanish voice");
        assert_eq!(words_reader("en-US", "it", "af_sky"), Some("if_sara"));
        assert_eq!(words_reader("es", "xx", "ef_dora"), None);
        assert_eq!(words_reader("es", "de", "ef_dora"), None, "German has no voice of its own to read it");
    }

    #[test]
    fn the_spectral_term_rewards_a_voice_nearer_the_recording_than_the_reading_voice() {
        assert_eq!(spectral_term(Some(40.0), 40.0, 0.5), 0.0, "as near as the reading voice: no change");
        assert!((spectral_term(Some(30.0), 40.0, 0.5) - 0.125).abs() < 1e-12, "a quarter nearer gains a quarter of the weight");
        assert!((spectral_term(Some(50.0), 40.0, 0.5) + 0.125).abs() < 1e-12, "a quarter farther loses as much");
        assert_eq!(spectral_term(Some(200.0), 40.0, 0.5), -0.5, "bounded");
        assert_eq!(spectral_term(None, 40.0, 0.5), -0.5, "silence is as far as can be");
        assert_eq!(spectral_term(Some(30.0), f64::NAN, 0.5), 0.0, "no baseline, no term");
    }

    #[test]
    fn only_candidates_that_could_be_in_the_best_half_are_scored() {
        // Eight candidates; scoring costs the best two a lot.
        let mut fitness = vec![0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2];
        let costs = [0.5, 0.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0];
        let mut asked = Vec::new();
        let scores = scored_best(&mut fitness, |i| {
            asked.push(i);
            Ok((i as f32, costs[i]))
        })
        .unwrap();
        // The best five are certain once six are scored: the two that fell
        // are worth 0.4 and 0.3, the next unscored at most 0.3.
        assert_eq!(asked, vec![0, 1, 2, 3, 4, 5]);
        assert_eq!(scores[6..], [None, None]);
        assert!((fitness[0] - 0.4).abs() < 1e-12 && fitness[7] == 0.2);
        let mut ranked: Vec<usize> = (0..8).collect();
        ranked.sort_by(|a, b| fitness[*b].total_cmp(&fitness[*a]));
        assert_eq!(ranked[..5], [2, 3, 4, 0, 5], "the best five as if every candidate were scored");
        // Nothing costs: only the best five are scored.
        let mut fitness = vec![0.1, 0.5, 0.3, 0.9, 0.7, 0.2, 0.8, 0.4];
        let mut count = 0;
        scored_best(&mut fitness, |_| {
            count += 1;
            Ok((3.5, 0.0))
        })
        .unwrap();
        assert_eq!(count, 5);
    }

    #[test]
    fn a_voice_moves_to_the_recordings_register_within_bounds() {
        // 90 Hz against 120 Hz is about five semitones down.
        let down = register_move(90.0, 120.0, 6.0).unwrap();
        assert!((down + 4.98).abs() < 0.01, "{down}");
        assert_eq!(register_move(240.0, 120.0, 6.0), Some(6.0), "an octave up is held to the bound");
        assert_eq!(register_move(121.0, 120.0, 6.0), None, "a voice already there stays");
        assert_eq!(register_move(120.0, 0.0, 6.0), None, "a voice without pitch stays");
    }

    #[test]
    fn probe_validation_and_held_out_sentences_never_share_a_sentence() {
        for set in SENTENCES {
            let mut all: Vec<&str> = set.probe_sets.iter().flatten().copied().collect();
            all.extend(set.validation);
            all.extend(set.held_out);
            let count = all.len();
            all.sort_unstable();
            all.dedup();
            assert_eq!(all.len(), count, "{}: a sentence appears twice", set.language);
        }
    }

    #[test]
    fn every_language_the_studio_speaks_natively_has_fit_sentences_in_its_own_script() {
        for language in revoice_text::language::LANGUAGES.iter().filter(|l| l.native) {
            let tag = language.kokoro_language.expect("a native language has Kokoro voices");
            let set = sentences_for(tag).unwrap_or_else(|| panic!("{} has no fit sentences", language.name));
            for sentence in set.probe_sets.iter().flatten().chain(&set.validation).chain(&set.held_out) {
                let unreadable = revoice_text::script::unreadable(sentence, language.reading);
                assert_eq!(unreadable, None, "{}: {sentence:?} is not in a script its reading reads", language.name);
            }
        }
        assert_eq!(sentences_for("en-GB").map(|s| s.language), Some("en"));
        assert!(sentences_for("ko").is_none(), "no sentences, no fit");
    }
}
