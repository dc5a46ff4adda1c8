//! Checking a translation against the project's glossary: which terms the
//! source line uses whose agreed translation the translated line lacks.
//! Matching ignores case and whitespace runs and takes whole words only, as
//! Unicode letters and digits go (`caf` is not in `café`); in scripts
//! written without spaces between words (Chinese, Japanese, Thai…) a term
//! matches anywhere.

use crate::prompt::GlossaryTerm;

/// The terms of `glossary` that occur in `source` whose translation does
/// not occur in `translation`, in the glossary's order.
pub fn dropped_terms(source: &str, translation: &str, glossary: &[GlossaryTerm]) -> Vec<GlossaryTerm> {
    let (source, translation) = (Folded::new(source), Folded::new(translation));
    glossary.iter().filter(|t| source.contains(&t.term) && !translation.contains(&t.translation)).cloned().collect()
}

/// A text lowercased with its whitespace runs made single spaces, as chars.
struct Folded(Vec<char>);

impl Folded {
    fn new(text: &str) -> Folded {
        Folded(fold(text))
    }

    /// Whether `words` occurs in the text as whole words (an empty one never does).
    fn contains(&self, words: &str) -> bool {
        let needle = fold(words);
        let (Some(&first), Some(&last)) = (needle.first(), needle.last()) else { return false };
        let text = &self.0;
        if needle.len() > text.len() {
            return false;
        }
        (0..=text.len() - needle.len()).any(|at| {
            text[at..at + needle.len()] == needle[..]
                && (at == 0 || !joins(text[at - 1], first))
                && (at + needle.len() == text.len() || !joins(last, text[at + needle.len()]))
        })
    }
}

fn fold(text: &str) -> Vec<char> {
    text.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase().chars().collect()
}

/// Whether two neighbouring characters belong to one word, so a match may
/// not end between them: both are word characters, and neither is of a
/// script written without spaces.
fn joins(left: char, right: char) -> bool {
    is_word(left) && is_word(right) && !unspaced(left) && !unspaced(right)
}

/// Letters, digits and combining marks (an accent typed apart from its letter).
fn is_word(c: char) -> bool {
    c.is_alphanumeric()
        || matches!(c, '\u{0300}'..='\u{036F}' | '\u{1AB0}'..='\u{1AFF}' | '\u{1DC0}'..='\u{1DFF}' | '\u{20D0}'..='\u{20FF}' | '\u{FE20}'..='\u{FE2F}')
}

/// Characters of scripts that do not put spaces between words.
fn unspaced(c: char) -> bool {
    matches!(c,
        '\u{0E00}'..='\u{0EFF}'     // Thai, Lao
        | '\u{1000}'..='\u{109F}'   // Myanmar
        | '\u{1780}'..='\u{17FF}'   // Khmer
        | '\u{3040}'..='\u{30FF}'   // Hiragana, Katakana
        | '\u{3400}'..='\u{4DBF}'   // CJK extension A
        | '\u{4E00}'..='\u{9FFF}'   // CJK ideographs
        | '\u{F900}'..='\u{FAFF}'   // CJK compatibility ideographs
        | '\u{FF66}'..='\u{FF9F}'   // half-width Katakana
        | '\u{20000}'..='\u{2FA1F}' // CJK extensions B and later
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn term(term: &str, translation: &str) -> GlossaryTerm {
        GlossaryTerm { term: term.into(), translation: translation.into() }
    }

    fn dropped(source: &str, translation: &str, glossary: &[GlossaryTerm]) -> Vec<String> {
        dropped_terms(source, translation, glossary).into_iter().map(|t| t.term).collect()
    }

    #[test]
    fn a_term_in_the_source_whose_translation_is_missing_is_dropped() {
        let glossary = [term("Lighthouse", "el Faro"), term("harbour", "puerto")];
        assert_eq!(dropped("The LIGHTHOUSE is dark.", "La torre está oscura.", &glossary), ["Lighthouse"]);
        assert!(dropped("The lighthouse is dark.", "El faro está oscuro.", &glossary).is_empty(), "case does not matter");
        // A term the source does not use is not asked for.
        assert!(dropped("The tide turns.", "La marea cambia.", &glossary).is_empty());
        assert_eq!(dropped("Harbour lighthouse.", "Nada.", &glossary), ["Lighthouse", "harbour"], "in the glossary's order");
    }

    #[test]
    fn only_whole_words_match_in_the_source_and_the_translation() {
        let glossary = [term("port", "puerto")];
        assert!(dropped("Report it.", "Infórmalo.", &glossary).is_empty(), "`port` is not a word of `Report`");
        assert_eq!(dropped("To the port!", "¡A los puertos!", &glossary), ["port"], "`puertos` is not `puerto`");
        assert!(dropped("To the port!", "¡Al puerto!", &glossary).is_empty());
        assert!(dropped("port-side", "puerto-lado", &glossary).is_empty(), "punctuation ends a word");
    }

    #[test]
    fn accented_words_are_whole_words_and_fold_their_case() {
        let glossary = [term("café", "kaffee"), term("caf", "x"), term("Ñandú", "Nandu")];
        // `caf` is not a word of `café`: an accented letter is a letter.
        assert_eq!(dropped("Un café, por favor.", "Einen Kaffee, bitte.", &glossary), Vec::<String>::new());
        assert_eq!(dropped("El ÑANDÚ corre.", "Der Strauß läuft.", &glossary), ["Ñandú"]);
        assert!(dropped("El ñandú corre.", "Der NANDU läuft.", &glossary).is_empty());
        // An accent typed apart from its letter stays inside the word.
        assert!(dropped("cafe\u{301}s", "x", &[term("cafe", "y")]).is_empty());
    }

    #[test]
    fn multi_word_terms_match_across_any_spacing() {
        let glossary = [term("Old  Harbour", "Puerto Viejo")];
        assert!(dropped("Meet me at the old\nharbour.", "Nos vemos en el puerto viejo.", &glossary).is_empty());
        assert_eq!(dropped("Meet me at the old harbour.", "Nos vemos en el puerto.", &glossary), ["Old  Harbour"]);
        assert!(dropped("The old harbours.", "x", &glossary).is_empty(), "`harbours` is not `harbour`");
    }

    #[test]
    fn scripts_without_spaces_match_inside_a_run_of_letters() {
        let glossary = [term("lighthouse", "灯台")];
        assert!(dropped("The lighthouse.", "その灯台は暗い。", &glossary).is_empty());
        assert_eq!(dropped("The lighthouse.", "その塔は暗い。", &glossary), ["lighthouse"]);
        assert!(dropped("", "", &[term("", "")]).is_empty(), "an empty term is never used");
    }
}
