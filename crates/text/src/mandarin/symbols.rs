//! One pinyin syllable into Kokoro v1.0's Mandarin symbols: the initial
//! (ʦ ʨ ꭧ ʂ ɕ ɻ, aspiration as ʰ), the final in the IPA-like spelling the
//! Mandarin voices were trained on (misaki's, after pinyin-to-ipa), and the
//! tone as an arrow after the nucleus: → first, ↗ second, ↓ third, ↘ fourth,
//! nothing for the neutral tone.

/// A syllable as read: toneless pinyin (ü spelled `ü`, never `v`) and its
/// tone, 1 to 4, or 5 for the neutral tone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Syllable {
    /// The letters, lower case, without tone marks (`zhong`, `lü`, `er`).
    pub letters: String,
    /// 1–4 for the four tones, 5 for the neutral tone.
    pub tone: u8,
}

/// The initials in the order they are tried (two-letter ones first), with
/// their symbols.
const INITIALS: [(&str, &str); 21] = [
    ("zh", "ꭧ"),
    ("ch", "ꭧʰ"),
    ("sh", "ʂ"),
    ("b", "p"),
    ("p", "pʰ"),
    ("m", "m"),
    ("f", "f"),
    ("d", "t"),
    ("t", "tʰ"),
    ("n", "n"),
    ("l", "l"),
    ("g", "k"),
    ("k", "kʰ"),
    ("h", "x"),
    ("j", "ʨ"),
    ("q", "ʨʰ"),
    ("x", "ɕ"),
    ("r", "ɻ"),
    ("z", "ʦ"),
    ("c", "ʦʰ"),
    ("s", "s"),
];

/// The finals of the pinyin scheme, each as (glide, nucleus, coda): the
/// tone arrow goes right after the nucleus.
const FINALS: [(&str, &str, &str, &str); 35] = [
    ("a", "", "a", ""),
    ("ai", "", "ai", ""),
    ("an", "", "a", "n"),
    ("ang", "", "a", "ŋ"),
    ("ao", "", "au", ""),
    ("e", "", "ɤ", ""),
    ("ei", "", "ei", ""),
    ("en", "", "ə", "n"),
    ("eng", "", "ə", "ŋ"),
    ("i", "", "i", ""),
    ("ia", "j", "a", ""),
    ("ian", "j", "ɛ", "n"),
    ("iang", "j", "a", "ŋ"),
    ("iao", "j", "au", ""),
    ("ie", "j", "e", ""),
    ("in", "", "i", "n"),
    ("iou", "j", "ou", ""),
    ("ing", "", "i", "ŋ"),
    ("iong", "j", "ʊ", "ŋ"),
    ("ong", "", "ʊ", "ŋ"),
    ("ou", "", "ou", ""),
    ("u", "", "u", ""),
    ("uei", "w", "ei", ""),
    ("ua", "w", "a", ""),
    ("uai", "w", "ai", ""),
    ("uan", "w", "a", "n"),
    ("uen", "w", "ə", "n"),
    ("uang", "w", "a", "ŋ"),
    ("ueng", "w", "ə", "ŋ"),
    ("uo", "w", "o", ""),
    ("o", "w", "o", ""),
    ("ü", "", "y", ""),
    ("üe", "ɥ", "e", ""),
    ("üan", "ɥ", "ɛ", "n"),
    ("ün", "", "y", "n"),
];

/// Syllables read whole, without an initial/final split: interjections and
/// syllabic nasals, as (letters, before the tone, after the tone).
const WHOLE: [(&str, &str, &str); 9] =
    [("er", "ɚ", ""), ("o", "ɔ", ""), ("io", "jɔ", ""), ("ê", "ɛ", ""), ("m", "m", ""), ("n", "n", ""), ("ng", "ŋ", ""), ("hm", "hm", ""), ("hng", "hŋ", "")];

/// The arrow Kokoro's Mandarin voices read as a tone (none for neutral).
pub fn tone_arrow(tone: u8) -> &'static str {
    match tone {
        1 => "→",
        2 => "↗",
        3 => "↓",
        4 => "↘",
        _ => "",
    }
}

/// Kokoro symbols for a syllable, or None when its letters are not a
/// syllable of the pinyin scheme.
pub fn kokoro_symbols(syllable: &Syllable) -> Option<String> {
    let letters = syllable.letters.replace('v', "ü");
    let arrow = tone_arrow(syllable.tone);
    if let Some((_, before, after)) = WHOLE.iter().find(|(l, _, _)| *l == letters) {
        return Some(format!("{before}{arrow}{after}"));
    }
    let (initial, final_) = split(&letters)?;
    let mut out = String::new();
    if let Some(initial) = initial {
        out.push_str(INITIALS.iter().find(|(l, _)| *l == initial)?.1);
        if final_ == "i" && matches!(initial, "zh" | "ch" | "sh" | "r" | "z" | "c" | "s") {
            // The apical vowel of zhi, chi, shi, ri, zi, ci, si.
            out.push('ɨ');
            out.push_str(arrow);
            return Some(out);
        }
    }
    let (_, glide, nucleus, coda) = FINALS.iter().find(|(l, ..)| *l == final_)?;
    out.push_str(glide);
    out.push_str(nucleus);
    out.push_str(arrow);
    out.push_str(coda);
    Some(out)
}

/// The initial (if any) and the final of toneless pinyin, with the
/// scheme's spellings undone: y- and w- syllables (yi, ya, wu, wei, yu),
/// ju/qu/xu for jü/qü/xü, and the shortened iu, ui, un for iou, uei, uen.
fn split(letters: &str) -> Option<(Option<&'static str>, String)> {
    let restored = restore_final(letters);
    let initial = INITIALS.iter().map(|(l, _)| *l).find(|l| restored.starts_with(l));
    let rest = &restored[initial.map_or(0, str::len)..];
    if is_final(rest) {
        return Some((initial, rest.to_string()));
    }
    // A y- or w- spelling with no final of the scheme behind it (yo, for
    // one): read y or w as a glide of nothing, and the rest as the final.
    let rest = letters.strip_prefix(['y', 'w']).unwrap_or(rest);
    is_final(rest).then(|| (initial, rest.to_string()))
}

fn is_final(letters: &str) -> bool {
    FINALS.iter().any(|(l, ..)| *l == letters) || letters == "er" || letters == "ê"
}

/// The full final of a pinyin spelling (`yu` → `ü`, `gui` → `guei`).
fn restore_final(letters: &str) -> String {
    let mut out = letters.to_string();
    if let Some(rest) = letters.strip_prefix('y') {
        let zero = if let Some(tail) = rest.strip_prefix(['u', 'ü']) {
            format!("ü{tail}")
        } else if rest.starts_with('i') {
            rest.to_string()
        } else {
            format!("i{rest}")
        };
        if is_final(&zero) {
            out = zero;
        }
    } else if let Some(rest) = letters.strip_prefix('w') {
        let zero = if rest.starts_with('u') { rest.to_string() } else { format!("u{rest}") };
        if is_final(&zero) {
            out = zero;
        }
    }
    if let Some(tail) = out.strip_prefix(['j', 'q', 'x']) {
        if let Some(after) = tail.strip_prefix('u') {
            out = format!("{}ü{after}", &out[..1]);
        }
    }
    for (short, full) in [("iu", "iou"), ("ui", "uei"), ("un", "uen")] {
        if out.len() > short.len() && out.ends_with(short) && !out.ends_with(full) {
            out = format!("{}{full}", &out[..out.len() - short.len()]);
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(letters: &str, tone: u8) -> String {
        kokoro_symbols(&Syllable { letters: letters.into(), tone }).unwrap()
    }

    #[test]
    fn initials_and_tones() {
        assert_eq!(read("ni", 3), "ni↓");
        assert_eq!(read("hao", 3), "xau↓");
        assert_eq!(read("zhong", 1), "ꭧʊ→ŋ");
        assert_eq!(read("chi", 1), "ꭧʰɨ→");
        assert_eq!(read("si", 4), "sɨ↘");
        assert_eq!(read("ri", 4), "ɻɨ↘");
        assert_eq!(read("qing", 2), "ʨʰi↗ŋ");
        assert_eq!(read("de", 5), "tɤ");
    }

    #[test]
    fn finals_behind_the_spelling() {
        assert_eq!(read("yu", 2), "y↗");
        assert_eq!(read("ju", 4), "ʨy↘");
        assert_eq!(read("lü", 4), "ly↘");
        assert_eq!(read("nv", 3), "ny↓");
        assert_eq!(read("yue", 4), "ɥe↘");
        assert_eq!(read("xuan", 3), "ɕɥɛ↓n");
        assert_eq!(read("yun", 4), "y↘n");
        assert_eq!(read("gui", 4), "kwei↘");
        assert_eq!(read("liu", 2), "ljou↗");
        assert_eq!(read("lun", 4), "lwə↘n");
        assert_eq!(read("wen", 4), "wə↘n");
        assert_eq!(read("yi", 1), "i→");
        assert_eq!(read("you", 3), "jou↓");
        assert_eq!(read("yong", 4), "jʊ↘ŋ");
        assert_eq!(read("wu", 3), "u↓");
        assert_eq!(read("bo", 1), "pwo→");
        assert_eq!(read("tian", 1), "tʰjɛ→n");
    }

    #[test]
    fn whole_syllables() {
        assert_eq!(read("er", 2), "ɚ↗");
        assert_eq!(read("n", 2), "n↗");
        assert_eq!(read("o", 4), "ɔ↘");
        assert_eq!(read("yo", 1), "wo→");
    }

    #[test]
    fn not_a_syllable() {
        assert_eq!(kokoro_symbols(&Syllable { letters: "xyz".into(), tone: 1 }), None);
    }
}
