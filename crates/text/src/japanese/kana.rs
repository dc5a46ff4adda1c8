//! A word's kana reading in Kokoro's Japanese symbols, as the reference
//! front end spells it (misaki's cutlet port): each kana, or pair of a
//! kana and the small kana after it, through one table ([`symbol`]); ー
//! lengthens (ː), っ is a glottal stop (ʔ), ん takes the place of
//! articulation of the kana after it (m, ŋ, ɲ, n, or ɴ), and the
//! repetition marks ゝ ゞ repeat the kana before them. Katakana is read
//! as hiragana first ([`katakana_to_hiragana`]).

use std::collections::HashMap;
use std::sync::OnceLock;

/// Kana (one, or a kana and its small kana) and punctuation → symbols.
const TABLE: &[(&str, &str)] = &[
    ("ぁ", "a"),
    ("あ", "a"),
    ("ぃ", "i"),
    ("い", "i"),
    ("ぅ", "ɯ"),
    ("う", "ɯ"),
    ("ぇ", "e"),
    ("え", "e"),
    ("ぉ", "o"),
    ("お", "o"),
    ("か", "ka"),
    ("が", "ɡa"),
    ("き", "kʲi"),
    ("ぎ", "ɡʲi"),
    ("く", "kɯ"),
    ("ぐ", "ɡɯ"),
    ("け", "ke"),
    ("げ", "ɡe"),
    ("こ", "ko"),
    ("ご", "ɡo"),
    ("さ", "sa"),
    ("ざ", "ʣa"),
    ("し", "ɕi"),
    ("じ", "ʥi"),
    ("す", "sɨ"),
    ("ず", "zɨ"),
    ("せ", "se"),
    ("ぜ", "ʣe"),
    ("そ", "so"),
    ("ぞ", "ʣo"),
    ("た", "ta"),
    ("だ", "da"),
    ("ち", "ʨi"),
    ("ぢ", "ʥi"),
    ("つ", "ʦɨ"),
    ("づ", "zɨ"),
    ("て", "te"),
    ("で", "de"),
    ("と", "to"),
    ("ど", "do"),
    ("な", "na"),
    ("に", "ɲi"),
    ("ぬ", "nɯ"),
    ("ね", "ne"),
    ("の", "no"),
    ("は", "ha"),
    ("ば", "ba"),
    ("ぱ", "pa"),
    ("ひ", "çi"),
    ("び", "bʲi"),
    ("ぴ", "pʲi"),
    ("ふ", "ɸɯ"),
    ("ぶ", "bɯ"),
    ("ぷ", "pɯ"),
    ("へ", "he"),
    ("べ", "be"),
    ("ぺ", "pe"),
    ("ほ", "ho"),
    ("ぼ", "bo"),
    ("ぽ", "po"),
    ("ま", "ma"),
    ("み", "mʲi"),
    ("む", "mɯ"),
    ("め", "me"),
    ("も", "mo"),
    ("ゃ", "ja"),
    ("や", "ja"),
    ("ゅ", "jɯ"),
    ("ゆ", "jɯ"),
    ("ょ", "jo"),
    ("よ", "jo"),
    ("ら", "ɾa"),
    ("り", "ɾʲi"),
    ("る", "ɾɯ"),
    ("れ", "ɾe"),
    ("ろ", "ɾo"),
    ("ゎ", "βa"),
    ("わ", "βa"),
    ("ゐ", "i"),
    ("ゑ", "e"),
    ("を", "o"),
    ("ゔ", "vɯ"),
    ("ゕ", "ka"),
    ("ゖ", "ke"),
    ("ヷ", "va"),
    ("ヸ", "vʲi"),
    ("ヹ", "ve"),
    ("ヺ", "vo"),
    ("いぇ", "je"),
    ("うぃ", "βi"),
    ("うぇ", "βe"),
    ("うぉ", "βo"),
    ("きぇ", "kʲe"),
    ("きゃ", "kʲa"),
    ("きゅ", "kʲɨ"),
    ("きょ", "kʲo"),
    ("ぎゃ", "ɡʲa"),
    ("ぎゅ", "ɡʲɨ"),
    ("ぎょ", "ɡʲo"),
    ("くぁ", "kᵝa"),
    ("くぃ", "kᵝi"),
    ("くぇ", "kᵝe"),
    ("くぉ", "kᵝo"),
    ("ぐぁ", "ɡᵝa"),
    ("ぐぃ", "ɡᵝi"),
    ("ぐぇ", "ɡᵝe"),
    ("ぐぉ", "ɡᵝo"),
    ("しぇ", "ɕe"),
    ("しゃ", "ɕa"),
    ("しゅ", "ɕɨ"),
    ("しょ", "ɕo"),
    ("じぇ", "ʥe"),
    ("じゃ", "ʥa"),
    ("じゅ", "ʥɨ"),
    ("じょ", "ʥo"),
    ("ちぇ", "ʨe"),
    ("ちゃ", "ʨa"),
    ("ちゅ", "ʨɨ"),
    ("ちょ", "ʨo"),
    ("ぢゃ", "ʥa"),
    ("ぢゅ", "ʥɨ"),
    ("ぢょ", "ʥo"),
    ("つぁ", "ʦa"),
    ("つぃ", "ʦʲi"),
    ("つぇ", "ʦe"),
    ("つぉ", "ʦo"),
    ("てぃ", "tʲi"),
    ("てゅ", "tʲɨ"),
    ("でぃ", "dʲi"),
    ("でゅ", "dʲɨ"),
    ("とぅ", "tɯ"),
    ("どぅ", "dɯ"),
    ("にぇ", "ɲe"),
    ("にゃ", "ɲa"),
    ("にゅ", "ɲɨ"),
    ("にょ", "ɲo"),
    ("ひぇ", "çe"),
    ("ひゃ", "ça"),
    ("ひゅ", "çɨ"),
    ("ひょ", "ço"),
    ("びゃ", "bʲa"),
    ("びゅ", "bʲɨ"),
    ("びょ", "bʲo"),
    ("ぴゃ", "pʲa"),
    ("ぴゅ", "pʲɨ"),
    ("ぴょ", "pʲo"),
    ("ふぁ", "ɸa"),
    ("ふぃ", "ɸʲi"),
    ("ふぇ", "ɸe"),
    ("ふぉ", "ɸo"),
    ("ふゅ", "ɸʲɨ"),
    ("ふょ", "ɸʲo"),
    ("みゃ", "mʲa"),
    ("みゅ", "mʲɨ"),
    ("みょ", "mʲo"),
    ("りゃ", "ɾʲa"),
    ("りゅ", "ɾʲɨ"),
    ("りょ", "ɾʲo"),
    ("ゔぁ", "va"),
    ("ゔぃ", "vʲi"),
    ("ゔぇ", "ve"),
    ("ゔぉ", "vo"),
    ("ゔゅ", "bʲɨ"),
    ("ゔょ", "bʲo"),
    ("。", "."),
    ("、", ","),
    ("？", "?"),
    ("！", "!"),
    ("「", "“"),
    ("」", "”"),
    ("『", "“"),
    ("』", "”"),
    ("：", ":"),
    ("；", ";"),
    ("（", "("),
    ("）", ")"),
    ("《", "("),
    ("》", ")"),
    ("【", "["),
    ("】", "]"),
    ("・", " "),
    ("，", ","),
    ("～", "—"),
    ("〜", "—"),
    ("—", "—"),
    ("«", "“"),
    ("»", "”"),
    ("\u{309a}", ""),
    ("\u{3099}", ""),
];

/// The small kana that combine with the kana before them.
const SMALL_KANA: [char; 8] = ['ゃ', 'ゅ', 'ょ', 'ぁ', 'ぃ', 'ぅ', 'ぇ', 'ぉ'];
/// Repetition marks.
const REPEAT_MARKS: [char; 5] = ['〃', '々', 'ゝ', 'ゞ', 'ヽ'];

fn table() -> &'static HashMap<&'static str, &'static str> {
    static TABLE_MAP: OnceLock<HashMap<&'static str, &'static str>> = OnceLock::new();
    TABLE_MAP.get_or_init(|| TABLE.iter().copied().collect())
}

/// The symbols of one table entry (a kana, a kana pair, a punctuation mark).
pub fn symbol(key: &str) -> Option<&'static str> {
    table().get(key).copied()
}

fn pair(a: char, b: char) -> Option<&'static str> {
    let mut key = [0u8; 8];
    let first = a.encode_utf8(&mut key).len();
    let second = b.encode_utf8(&mut key[first..]).len();
    symbol(std::str::from_utf8(&key[..first + second]).expect("two chars are UTF-8"))
}

fn single(c: char) -> Option<&'static str> {
    let mut key = [0u8; 4];
    symbol(c.encode_utf8(&mut key))
}

/// Full-width katakana as hiragana (ァ–ヶ, ヽ ヾ); everything else, ー
/// included, as it is.
pub fn katakana_to_hiragana(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            'ァ'..='ヶ' | 'ヽ' | 'ヾ' => char::from_u32(c as u32 - 0x60).unwrap_or(c),
            _ => c,
        })
        .collect()
}

/// The voiced kana of an unvoiced one (か → が), for ゞ.
fn voiced(kana: char) -> Option<char> {
    const PLAIN: &str = "かきくけこさしすせそたちつてとはひふへほ";
    const VOICED: &str = "がぎぐげござじずぜぞだぢづでどばびぶべぼ";
    PLAIN.chars().position(|c| c == kana).and_then(|i| VOICED.chars().nth(i))
}

/// A hiragana reading in symbols. `Err` names the character the
/// reference cannot read either (a small kana after something that is not
/// a kana).
pub fn reading_symbols(hiragana: &str) -> Result<String, char> {
    let chars: Vec<char> = hiragana.chars().collect();
    let mut out = String::with_capacity(hiragana.len() * 2);
    for (i, &kana) in chars.iter().enumerate() {
        let previous = i.checked_sub(1).map(|p| chars[p]);
        let next = chars.get(i + 1).copied();
        out.push_str(&kana_symbols(previous, kana, next)?);
    }
    Ok(out)
}

/// One kana's symbols, given its neighbours in the word.
fn kana_symbols(previous: Option<char>, kana: char, next: Option<char>) -> Result<String, char> {
    if REPEAT_MARKS.contains(&kana) {
        return Ok(match (kana, previous) {
            // The reference repeats the kana itself, not its symbols.
            ('ゝ' | 'ヽ', Some(p)) => p.to_string(),
            ('ゞ', Some(p)) => voiced(p).and_then(single).unwrap_or("").to_string(),
            _ => String::new(),
        });
    }
    if let Some(symbols) = previous.and_then(|p| pair(p, kana)) {
        return Ok(symbols.to_string());
    }
    if next.and_then(|n| pair(kana, n)).is_some() {
        return Ok(String::new());
    }
    if let Some(small) = next.filter(|n| SMALL_KANA.contains(n)) {
        if kana == 'っ' {
            return Ok(String::new());
        }
        // The kana's consonant with the small kana's vowel.
        let own = single(kana).ok_or(kana)?;
        let vowel = single(small).ok_or(small)?;
        let mut consonant: Vec<char> = own.chars().collect();
        consonant.pop();
        return Ok(consonant.into_iter().chain(vowel.chars()).collect());
    }
    if SMALL_KANA.contains(&kana) {
        return Ok(String::new());
    }
    Ok(match kana {
        'ー' => "ː".to_string(),
        'っ' => "ʔ".to_string(),
        'ん' => syllabic_n(next.and_then(single)).to_string(),
        _ => single(kana).unwrap_or("").to_string(),
    })
}

/// ん before the symbols of the next kana: m before m p b, ŋ before k ɡ,
/// ɲ before ɲ ʨ ʥ, n before n t d ɾ z, else ɴ.
fn syllabic_n(next: Option<&str>) -> &'static str {
    let Some(first) = next.and_then(|n| n.chars().next()) else { return "ɴ" };
    match first {
        'm' | 'p' | 'b' => "m",
        'k' | 'ɡ' => "ŋ",
        'ɲ' | 'ʨ' | 'ʥ' => "ɲ",
        'n' | 't' | 'd' | 'ɾ' | 'z' => "n",
        _ => "ɴ",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(hiragana: &str) -> String {
        reading_symbols(hiragana).unwrap()
    }

    #[test]
    fn the_table_has_every_entry_once() {
        assert_eq!(TABLE.len(), 189);
        assert_eq!(table().len(), TABLE.len());
    }

    #[test]
    fn plain_kana_and_pairs() {
        assert_eq!(read("こんにちは"), "koɲɲiʨiha");
        assert_eq!(read("きょう"), "kʲoɯ");
        assert_eq!(read("しゃしん"), "ɕaɕiɴ");
        assert_eq!(read("ふぁいと"), "ɸaito");
    }

    #[test]
    fn long_vowels_glottal_stops_and_n() {
        assert_eq!(read("こーひー"), "koːçiː");
        assert_eq!(read("ちょっと"), "ʨoʔto");
        assert_eq!(read("さんぽ"), "sampo");
        assert_eq!(read("りんご"), "ɾʲiŋɡo");
        assert_eq!(read("おんな"), "onna");
        assert_eq!(read("ほん"), "hoɴ");
    }

    #[test]
    fn a_small_kana_not_in_the_table_takes_the_consonant_before_it() {
        assert_eq!(read("ぴぇ"), "pʲe");
    }

    #[test]
    fn a_small_kana_after_a_mark_is_what_the_reference_cannot_read() {
        assert_eq!(reading_symbols("ーぁ"), Err('ー'));
    }

    #[test]
    fn repetition_marks() {
        assert_eq!(read("いすゞ"), "isɨzɨ");
        assert_eq!(read("こゝ"), "koこ");
    }

    #[test]
    fn katakana_reads_as_hiragana() {
        assert_eq!(katakana_to_hiragana("コーヒー・ヴァ"), "こーひー・ゔぁ");
        assert_eq!(katakana_to_hiragana("ヷ漢字"), "ヷ漢字");
    }
}
