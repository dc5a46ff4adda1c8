//! The engine over the scripted model, for tests and benches that exercise
//! the engine's logic (render scope, assembly, the editor's session and
//! view, the API's answers) without the real model: a front end with a
//! synthetic style pack for every stock voice (each voice its own pitch)
//! and a vocabulary of the phoneme symbols the G2P writes, and a loader
//! that hands out one [`ScriptedModel`] (shared, so a test can count its
//! rows or hold it shut), optionally waiting at a gate first so a test can
//! see the engine while the model is still loading.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Condvar, Mutex};

use revoice_model::kokoro::release::{stock_voices, STYLE_DIM, VOICE_ROWS};
use revoice_model::kokoro::voices::{StockVoices, VoicePack};
pub use revoice_model::testing::{installed_data_dir, installed_model_dir, ScriptedModel, SCRIPTED_TOKEN_SECONDS};
use revoice_speech::{FrontEnd, LoadedSpeech, SpeechLoader};

/// Every symbol the English G2P and espeak-ng write for Kokoro, plus punctuation.
const SYMBOLS: &str =
    " !\"'(),-.:;?abcdefghijklmnopqrstuvwxyzæçðøħŋœǀǁǂǃɐɑɒɓɔɕɖɗɘəɚɛɜɞɟɠɡɢɣɤɥɦɧɨɪɫɬɭɮɯɰɱɲɳɴɵɶɸɹɺɻɽɾʀʁʂʃʄʈʉʊʋʌʍʎʏʐʑʒʔʕʘʙʛʜʝʟʡʢʤʦʧʨʰʲˈˌːˑ˞βθχᵻⱱAIOQSTWYʣʥʪʫ…—";

/// A front end over synthetic packs: voice number `n` (in the
/// catalogue's order) has every style value `0.01 · (n + 1)`.
pub fn scripted_front_end() -> FrontEnd {
    let packs: BTreeMap<String, VoicePack> =
        stock_voices().iter().enumerate().map(|(n, v)| (v.name.clone(), VoicePack::from_rows(vec![0.01 * (n + 1) as f32; VOICE_ROWS * STYLE_DIM]))).collect();
    let vocab = SYMBOLS.chars().enumerate().map(|(i, c)| (c.to_string(), i as u32 + 1)).collect();
    FrontEnd::new(StockVoices::from_packs(packs), vocab, 510)
}

/// The scripted front end's token for a phoneme symbol (to make a
/// [`ScriptedModel`] fail on the lines that hold it).
pub fn token_of(symbol: char) -> u32 {
    SYMBOLS.chars().position(|c| c == symbol).map(|i| i as u32 + 1).expect("a symbol of the scripted vocabulary")
}

/// A gate a loader waits at until it is opened.
#[derive(Default)]
pub struct LoadGate {
    open: Mutex<bool>,
    opened: Condvar,
}

impl LoadGate {
    /// A shut gate.
    pub fn shut() -> Arc<LoadGate> {
        Arc::new(LoadGate::default())
    }

    /// Lets the load go on.
    pub fn open(&self) {
        *self.open.lock().unwrap_or_else(|p| p.into_inner()) = true;
        self.opened.notify_all();
    }

    fn wait(&self) {
        let mut open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        while !*open {
            open = self.opened.wait(open).unwrap_or_else(|p| p.into_inner());
        }
    }
}

/// A loader handing out `model` with the scripted front end, after `gate` opens (if given).
pub fn scripted_loader(model: Arc<ScriptedModel>, gate: Option<Arc<LoadGate>>) -> SpeechLoader {
    Arc::new(move |_: &Path| {
        if let Some(gate) = &gate {
            gate.wait();
        }
        Ok(LoadedSpeech { model: model.clone(), model_key: "scripted/v1".into(), front_end: scripted_front_end() })
    })
}

/// An engine over a new scratch data folder and the scripted model; the
/// folder lives as long as the returned guard.
pub async fn scripted_engine(model: Arc<ScriptedModel>) -> revoice_core::Result<(crate::Engine, tempfile::TempDir)> {
    let dir = tempfile::tempdir().map_err(|e| revoice_core::Error::io("create", std::env::temp_dir(), e))?;
    let mut config = revoice_core::config::EngineConfig::load_from(dir.path().to_path_buf())?;
    // One row at a time, no waiting for company: the order rows render in is the order asked.
    config.settings.scheduler.batch_width = 1;
    config.settings.scheduler.batch_window_ms = 0;
    let engine = crate::Engine::open_with(config, scripted_loader(model, None)).await?;
    Ok((engine, dir))
}
