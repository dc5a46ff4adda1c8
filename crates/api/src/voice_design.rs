//! `task_type: "VoiceDesign"`: a voice from a description. Kokoro cannot
//! make new voices, so the description picks stock voices by the
//! attributes it names (gender, accent or language, and a few timbre words
//! for voices known for them) and blends the best two equally. What was
//! recognised and what was picked go back to the client in headers, so a
//! caller can see exactly which stock voices speak.

use revoice_engine::model::kokoro::release::stock_voices;

/// The voices picked for a description.
#[derive(Debug, Clone, PartialEq)]
pub struct DesignedVoice {
    /// The blend as a voice spec (`bf_emma:0.500,bf_isabella:0.500`).
    pub spec: String,
    /// The attributes recognised (`gender=female`, `accent=British`, ...).
    pub attributes: Vec<String>,
}

/// Accent or language words → the first letter of Kokoro voice names.
const ACCENTS: &[(&[&str], char, &str)] = &[
    (&["american", "us", "usa"], 'a', "American"),
    (&["british", "uk", "england", "english", "london"], 'b', "British"),
    (&["spanish", "spain", "mexican"], 'e', "Spanish"),
    (&["french", "france", "parisian"], 'f', "French"),
    (&["hindi", "indian", "india"], 'h', "Hindi"),
    (&["italian", "italy"], 'i', "Italian"),
    (&["japanese", "japan"], 'j', "Japanese"),
    (&["portuguese", "brazilian", "brazil"], 'p', "Portuguese"),
    (&["chinese", "mandarin", "china"], 'z', "Chinese"),
];

const FEMALE: &[&str] = &["female", "woman", "women", "girl", "feminine", "lady", "she", "her"];
const MALE: &[&str] = &["male", "man", "men", "boy", "masculine", "guy", "gentleman", "he", "his"];

/// Timbre words → stock voices whose names or reputations carry them.
const TIMBRES: &[(&[&str], &[&str], &str)] = &[
    (&["deep", "low", "bass", "baritone"], &["am_onyx", "am_fenrir", "bm_george"], "deep"),
    (&["soft", "whisper", "whispering", "gentle", "quiet", "calm"], &["af_nicole", "af_sky", "bf_emma"], "soft"),
    (&["warm", "friendly", "kind"], &["af_heart", "bf_emma", "am_michael"], "warm"),
    (&["storyteller", "narrator", "narration", "story"], &["bm_fable", "bm_george", "af_heart"], "narrator"),
    (&["bright", "energetic", "upbeat", "cheerful", "lively"], &["af_bella", "am_puck", "af_nova"], "bright"),
];

/// Voices tried first when several fit (the release's best-rated ones).
const PREFERRED: &[&str] = &["af_heart", "af_bella", "bf_emma", "am_michael", "am_fenrir", "bm_george", "bm_fable", "af_nicole"];

/// Picks stock voices for `instructions`; `language_letter` (a voice name's
/// first letter) narrows them when the description names no accent.
/// `None` when nothing in the description is an attribute it knows.
pub fn design(instructions: &str, language_letter: Option<char>) -> Option<DesignedVoice> {
    let words: Vec<String> = instructions.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase).collect();
    let has = |list: &[&str]| words.iter().any(|w| list.contains(&w.as_str()));
    let mut attributes = Vec::new();
    let gender = match (has(FEMALE), has(MALE)) {
        (true, false) => Some('f'),
        (false, true) => Some('m'),
        _ => None,
    };
    if let Some(g) = gender {
        attributes.push(format!("gender={}", if g == 'f' { "female" } else { "male" }));
    }
    let accent = ACCENTS.iter().find(|(names, _, _)| has(names));
    if let Some((_, _, label)) = accent {
        attributes.push(format!("accent={label}"));
    }
    let timbre = TIMBRES.iter().find(|(names, _, _)| has(names));
    if let Some((_, _, label)) = timbre {
        attributes.push(format!("timbre={label}"));
    }
    if attributes.is_empty() {
        return None;
    }
    let letter = accent.map(|(_, l, _)| *l).or(language_letter);
    let fits = |name: &str| {
        let mut chars = name.chars();
        let (l, g) = (chars.next(), chars.next());
        letter.is_none_or(|want| l == Some(want)) && gender.is_none_or(|want| g == Some(want)) && (letter.is_some() || matches!(l, Some('a' | 'b')))
    };
    let all: Vec<String> = stock_voices().into_iter().map(|v| v.name).filter(|n| fits(n)).collect();
    // Timbre voices first, then the preferred ones, then the catalogue order.
    let rank = |name: &str| {
        let t = timbre.and_then(|(_, voices, _)| voices.iter().position(|v| *v == name)).unwrap_or(usize::MAX);
        let p = PREFERRED.iter().position(|v| *v == name).unwrap_or(usize::MAX);
        (t, p)
    };
    let mut picked = all;
    picked.sort_by_key(|n| rank(n));
    picked.truncate(2);
    if picked.is_empty() {
        // The attributes contradict every stock voice (a male Hindi voice that is female...):
        // keep the gender and drop the rest.
        return design(if gender == Some('f') { "female" } else { "male" }, None).map(|d| DesignedVoice { attributes, ..d });
    }
    let weight = 1.0 / picked.len() as f32;
    let spec = picked.iter().map(|n| format!("{n}:{weight:.3}")).collect::<Vec<_>>().join(",");
    Some(DesignedVoice { spec, attributes })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_british_woman_gets_british_female_voices() {
        let d = design("A calm British woman reading the news", None).unwrap();
        assert!(d.spec.split(',').all(|p| p.starts_with("bf_")), "{d:?}");
        assert!(d.attributes.contains(&"gender=female".to_string()) && d.attributes.contains(&"accent=British".to_string()));
    }

    #[test]
    fn a_deep_male_voice_prefers_the_deep_voices() {
        let d = design("a deep male voice", None).unwrap();
        assert!(d.spec.starts_with("am_onyx:0.500,am_fenrir:0.500"), "{d:?}");
    }

    #[test]
    fn a_description_without_known_attributes_picks_nothing() {
        assert_eq!(design("make it sound nice", None), None);
    }
}
