//! What a text says, word by word, in one of the studio's languages: the
//! figures in it (numbers, years, decimals, money, percentages, ordinals,
//! times, dates) and its common abbreviations written out as the words a
//! speaker says, and every word in one form (lower case, punctuation gone,
//! accents or spelling variants folded where Whisper writes a word more
//! than one way). A script and what Whisper heard of it, both read so,
//! agree whether either wrote "40" or "forty". A figure with more than one
//! reading ("1951": "nineteen fifty-one" or "one thousand nine hundred
//! fifty-one") keeps them all, and [`choose`] takes the one the other text
//! says. A language this module does not know keeps its words as written,
//! its digit groups joined ("1,000" and "1000" agree). Chinese and
//! Japanese, written without spaces, are read character by character.

use std::collections::HashSet;
use std::sync::OnceLock;

mod characters;
mod en;
mod es;
mod fr;
mod hi;
mod it;
mod pt;

/// One word of a text as spoken, or the readings of a figure or
/// abbreviation that can be said more than one way (each a list of words).
#[derive(Debug, Clone, PartialEq)]
pub enum Spoken {
    Word(String),
    Readings(Vec<Vec<String>>),
}

/// A currency's names: the unit and its hundredth, singular and plural.
struct Currency {
    one: &'static str,
    many: &'static str,
    cent_one: &'static str,
    cent_many: &'static str,
}

/// How one language reads figures and abbreviations. Readings are written
/// as text and read into words by [`words_of`], so they may hold hyphens,
/// accents and capitals.
trait Reader: Sync {
    fn cardinal(&self, n: u64) -> String;
    /// Readings of `n` written with the ordinal mark `mark` ("st", "º",
    /// "e", …), or `None` when `mark` is not one in this language.
    fn ordinal(&self, n: u64, mark: &str) -> Option<Vec<String>>;
    /// Readings of `n` as a year besides its cardinal (none by default).
    fn year(&self, _n: u64) -> Vec<String> {
        Vec::new()
    }
    /// Whether the decimal mark is a comma (and a point groups thousands).
    fn decimal_comma(&self) -> bool {
        true
    }
    /// Whether thousands may be grouped `1,00,000` (lakhs).
    fn indian_grouping(&self) -> bool {
        false
    }
    /// The words a decimal mark is read as.
    fn point(&self, mark: char) -> &'static [&'static str];
    fn percent(&self) -> &'static [&'static str];
    fn currency(&self, symbol: &str) -> Option<Currency>;
    /// Words that join a sum's units and hundredths ("and", "con").
    fn money_and(&self) -> &'static [&'static str];
    /// Words between a large number and a currency ("de" in "un millón de euros").
    fn money_of(&self) -> &'static [&'static str] {
        &[]
    }
    /// Readings of the time `h`:`m` (24-hour or 12-hour as written).
    fn time(&self, h: u64, m: u64) -> Vec<String>;
    /// Whether `10h30` and `10 h` are times.
    fn hours_mark(&self) -> bool {
        false
    }
    /// What follows a time said with a.m. (`pm` false) or p.m.
    fn day_part(&self, pm: bool) -> &'static [&'static str];
    fn months(&self) -> &'static [&'static str; 12];
    /// Readings of the date `d`/`m`/`y` (`y` as written).
    fn date(&self, d: u64, m: u64, y: Option<u64>) -> Vec<String>;
    /// Whether `d/m/y` is written month first.
    fn month_first(&self) -> bool {
        false
    }
    /// Readings of an abbreviation, looked up lower case without its
    /// points ("mr", "eg", "sra"); `dotted` when it was written with a point.
    fn abbreviation(&self, key: &str, dotted: bool) -> Option<&'static [&'static str]>;
    /// Scale words that may stand between a sum and its currency ("million").
    fn scales(&self) -> &'static [&'static str];
    /// One form for a word written more than one way.
    fn fold(&self, word: String) -> String;
    /// The word joining number words ("and" in "one hundred and five"),
    /// dropped between them on both sides.
    fn conjunction(&self) -> Option<&'static str>;
    /// English contractions spelled out.
    fn contractions(&self) -> bool {
        false
    }
    /// Rewrites of neighbouring words ("a hundred" as "one hundred").
    fn rewrite(&self, _words: &mut Vec<String>) {}
    /// Readings of a day of the month said as the ordinal `ordinal`.
    fn day(&self, ordinal: &str) -> Vec<String> {
        vec![ordinal.to_string()]
    }
    /// Readings of a fraction below one besides "zero point five".
    fn fraction_alone(&self, _point: &str, _digits: &str) -> Vec<String> {
        Vec::new()
    }
    /// The readings of a decade written `1950s` (English).
    fn decade(&self, _n: u64) -> Option<Vec<String>> {
        None
    }
}

/// The languages read here; `number_words` is indexed alike.
static READERS: [&dyn Reader; 7] = [&en::US, &en::GB, &es::SPANISH, &fr::FRENCH, &it::ITALIAN, &pt::PORTUGUESE, &hi::HINDI];

/// Which of [`READERS`] reads a language tag, by its primary subtag
/// (`en-GB` reads dates day first, `en-US` and `en` month first).
fn reader_of(language: &str) -> Option<usize> {
    let tag = language.trim().to_ascii_lowercase().replace('_', "-");
    Some(match tag.split('-').next().unwrap_or("") {
        "en" if tag == "en" || tag.ends_with("-us") => 0,
        "en" => 1,
        "es" => 2,
        "fr" => 3,
        "it" => 4,
        "pt" => 5,
        "hi" => 6,
        _ => return None,
    })
}

/// A text's words as spoken in `language` (a tag such as `en-GB` or `es`).
pub fn spoken(text: &str, language: &str) -> Vec<Spoken> {
    if let Some(written_without_spaces) = characters::character_language(language) {
        return characters::characters(text, written_without_spaces);
    }
    match reader_of(language) {
        Some(k) => Reading { reader: READERS[k], number_words: number_words(k) }.read(text),
        None => plain_words(text),
    }
}

/// Whether `language` (a tag) is compared character by character (it is
/// written without spaces between words).
pub fn compared_by_characters(language: &str) -> bool {
    characters::character_language(language).is_some()
}

/// Every word of `spoken`, each figure read as its first reading.
pub fn first_words(spoken: &[Spoken]) -> Vec<String> {
    spoken
        .iter()
        .flat_map(|s| match s {
            Spoken::Word(w) => vec![w.clone()],
            Spoken::Readings(r) => r[0].clone(),
        })
        .collect()
}

/// Every word of `spoken`, each figure read as the reading that leaves
/// it closest to `other` (a text it is compared with, in words): first
/// the reading sharing most words with it, then each figure in turn
/// moved to the reading with the fewest word edits, the earlier reading
/// on a tie.
pub fn choose(spoken: &[Spoken], other: &[String]) -> Vec<String> {
    let bag: HashSet<&str> = other.iter().map(String::as_str).collect();
    let shared = |reading: &[String]| 2 * reading.iter().filter(|w| bag.contains(w.as_str())).count() as i64 - reading.len() as i64;
    let mut picks: Vec<usize> = spoken
        .iter()
        .map(|s| match s {
            Spoken::Word(_) => 0,
            Spoken::Readings(readings) => (0..readings.len()).rev().max_by_key(|&k| shared(&readings[k])).unwrap_or(0),
        })
        .collect();
    let words = |picks: &[usize]| -> Vec<String> {
        spoken
            .iter()
            .zip(picks)
            .flat_map(|(s, &k)| match s {
                Spoken::Word(w) => vec![w.clone()],
                Spoken::Readings(readings) => readings[k].clone(),
            })
            .collect()
    };
    for (n, s) in spoken.iter().enumerate() {
        let Spoken::Readings(readings) = s else { continue };
        let mut best = (edits(&words(&picks), other), picks[n]);
        for k in 0..readings.len() {
            picks[n] = k;
            let cost = edits(&words(&picks), other);
            if cost < best.0 || (cost == best.0 && k < best.1) {
                best = (cost, k);
            }
        }
        picks[n] = best.1;
    }
    words(&picks)
}

/// Word edits (substitutions, deletions, insertions) from `a` to `b`.
fn edits(a: &[String], b: &[String]) -> usize {
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, x) in a.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, y) in b.iter().enumerate() {
            let substitute = diagonal + usize::from(x != y);
            diagonal = row[j + 1];
            row[j + 1] = substitute.min(row[j] + 1).min(row[j + 1] + 1);
        }
    }
    row[b.len()]
}

/// The number words of `READERS[k]` (0 to 100, the hundreds and the
/// scales), read once.
fn number_words(k: usize) -> &'static HashSet<String> {
    static SETS: [OnceLock<HashSet<String>>; 7] = [const { OnceLock::new() }; 7];
    SETS[k].get_or_init(|| {
        let reader = READERS[k];
        let numbers = (0..=100u64).chain((2..=9).map(|h| h * 100)).chain([1000, 2000, 1_000_000, 2_000_000, 1_000_000_000, 2_000_000_000]);
        numbers.flat_map(|n| text_words(&reader.cardinal(n), Some(reader))).collect()
    })
}

/// A piece of a text being read: a word, or a figure's readings (with the
/// whole number it is, when it is one, for dates said with ordinals).
enum Piece {
    Word(String),
    Figure { readings: Vec<Vec<String>>, whole: Option<u64> },
}

struct Reading {
    reader: &'static dyn Reader,
    number_words: &'static HashSet<String>,
}

impl Reading {
    fn read(&self, text: &str) -> Vec<Spoken> {
        let chars: Vec<char> = prepared(text).chars().collect();
        let mut pieces = Vec::new();
        let (mut i, mut text_from) = (0, 0);
        while i < chars.len() {
            match self.figure_at(&chars, i) {
                Some((end, readings, whole)) => {
                    self.text_pieces(&chars[text_from..i], &mut pieces);
                    let readings = dedup(readings.iter().map(|r| self.words(r)).filter(|r| !r.is_empty()).collect());
                    if !readings.is_empty() {
                        pieces.push(Piece::Figure { readings, whole });
                    }
                    i = end;
                    text_from = end;
                }
                None => i += 1,
            }
        }
        self.text_pieces(&chars[text_from..], &mut pieces);
        self.dates_with_ordinals(&mut pieces);
        self.finish(pieces)
    }

    /// The words of a reading or of plain text.
    fn words(&self, text: &str) -> Vec<String> {
        let mut words = text_words(text, Some(self.reader));
        self.reader.rewrite(&mut words);
        words
    }

    /// Plain text: abbreviations read out, the rest as words.
    fn text_pieces(&self, chars: &[char], pieces: &mut Vec<Piece>) {
        let text: String = chars.iter().collect();
        let tokens: Vec<&str> = text.split_whitespace().collect();
        let mut plain = String::new();
        for (k, token) in tokens.iter().enumerate() {
            let core = token.trim_matches(|c: char| !c.is_alphanumeric() && c != '.' && !is_mark(c)).trim_start_matches('.');
            let key: String = core.chars().filter(|c| *c != '.').flat_map(char::to_lowercase).collect();
            let dotted = core.contains('.');
            // "M." is "monsieur" only before a name.
            let before_name = tokens.get(k + 1).and_then(|t| t.chars().next()).is_some_and(char::is_uppercase);
            let readings = self.reader.abbreviation(&key, dotted).filter(|_| key != "m" || before_name);
            match readings {
                Some(readings) if !key.is_empty() => {
                    pieces.extend(self.words(&plain).into_iter().map(Piece::Word));
                    plain.clear();
                    let readings = dedup(readings.iter().map(|r| self.words(r)).collect());
                    pieces.push(Piece::Figure { readings, whole: None });
                }
                _ => {
                    plain.push_str(token);
                    plain.push(' ');
                }
            }
        }
        pieces.extend(self.words(&plain).into_iter().map(Piece::Word));
    }

    /// A day beside a month's name may be said as an ordinal ("May 5" as
    /// "May fifth", "le 1 mai" as "le premier mai").
    fn dates_with_ordinals(&self, pieces: &mut [Piece]) {
        let months: Vec<String> = self.reader.months().iter().flat_map(|m| self.words(m)).collect();
        let is_month = |p: Option<&Piece>| matches!(p, Some(Piece::Word(w)) if months.contains(w));
        let linking = |p: Option<&Piece>| matches!(p, Some(Piece::Word(w)) if w == "of" || w == "de");
        for k in 0..pieces.len() {
            let near_month =
                (k > 0 && is_month(pieces.get(k - 1))) || is_month(pieces.get(k + 1)) || (linking(pieces.get(k + 1)) && is_month(pieces.get(k + 2)));
            if let Piece::Figure { readings, whole: Some(day @ 1..=31) } = &mut pieces[k] {
                if near_month {
                    for ordinal in self.reader.ordinal(*day, "").unwrap_or_default() {
                        readings.extend(self.reader.day(&ordinal).iter().map(|r| self.words(r)));
                    }
                }
            }
        }
    }

    /// The pieces as spoken words, the conjunction between number words dropped.
    fn finish(&self, pieces: Vec<Piece>) -> Vec<Spoken> {
        let Some(conjunction) = self.reader.conjunction() else {
            return pieces.into_iter().map(spoken_piece).collect();
        };
        let numeric_end = |p: &Piece, last: bool| match p {
            Piece::Word(w) => self.number_words.contains(w),
            Piece::Figure { readings, .. } => readings.iter().any(|r| {
                let w = if last { r.last() } else { r.first() };
                w.is_some_and(|w| self.number_words.contains(w))
            }),
        };
        let mut out: Vec<Spoken> = Vec::with_capacity(pieces.len());
        for k in 0..pieces.len() {
            let joins = matches!(&pieces[k], Piece::Word(w) if w == conjunction)
                && k > 0
                && k + 1 < pieces.len()
                && numeric_end(&pieces[k - 1], true)
                && numeric_end(&pieces[k + 1], false);
            if !joins {
                out.push(spoken_piece(match &pieces[k] {
                    Piece::Word(w) => Piece::Word(w.clone()),
                    Piece::Figure { readings, whole } => {
                        Piece::Figure { readings: dedup(readings.iter().map(|r| self.without_conjunction(r, conjunction)).collect()), whole: *whole }
                    }
                }));
            }
        }
        out
    }

    fn without_conjunction(&self, words: &[String], conjunction: &str) -> Vec<String> {
        (0..words.len())
            .filter(|&k| {
                !(words[k] == conjunction
                    && k > 0
                    && k + 1 < words.len()
                    && self.number_words.contains(&words[k - 1])
                    && self.number_words.contains(&words[k + 1]))
            })
            .map(|k| words[k].clone())
            .collect()
    }

    /// The figure starting at `i`, as (where it ends, its readings, the
    /// whole number it is when it is a plain one).
    fn figure_at(&self, chars: &[char], i: usize) -> Option<(usize, Vec<String>, Option<u64>)> {
        let r = self.reader;
        // Inside a number, never; right after letters, yes (Whisper writes "el 25 %" as "L25%").
        if i > 0 && chars[i - 1].is_ascii_digit() {
            return None;
        }
        let (symbol, start) = match currency_symbol(chars, i) {
            Some((symbol, after)) => (Some(symbol), skip_space(chars, after)),
            None => (None, i),
        };
        if !chars.get(start).is_some_and(char::is_ascii_digit) {
            return None;
        }
        let (end, number) = self.number(chars, start);
        let next = chars.get(end).copied();
        let ends_word = |k: usize| !chars.get(k).is_some_and(|c| c.is_alphanumeric() || is_mark(*c));
        if let Some(symbol) = symbol {
            return Some(self.money(chars, end, &number, symbol));
        }
        let whole = number.whole_value();
        // 10:30, 10h30, 10 h
        if let Some(h) = whole.filter(|h| *h <= 24 && number.fraction.is_none()) {
            if next == Some(':') {
                if let Some((m, after)) = two_digits(chars, end + 1).filter(|(m, _)| *m < 60) {
                    return Some(self.time(chars, after, h, m));
                }
            }
            let h_at = skip_space(chars, end);
            if r.hours_mark() && matches!(chars.get(h_at), Some('h' | 'H')) {
                let m_at = skip_space(chars, h_at + 1);
                if let Some((m, after)) = two_digits(chars, m_at).filter(|(m, _)| *m < 60) {
                    return Some(self.time(chars, after, h, m));
                }
                if ends_word(h_at + 1) {
                    return Some(self.time(chars, h_at + 1, h, 0));
                }
            }
            if h <= 12 {
                if let Some((pm, after)) = day_part_at(chars, skip_space(chars, end)) {
                    return Some((after, self.with_day_part(r.time(h, 0), pm), None));
                }
            }
        }
        // 5/12/2024
        if let (Some('/'), Some(first), None) = (next, whole, &number.fraction) {
            if let Some(found) = self.date(chars, end, first) {
                return Some(found);
            }
        }
        // 1st, 2º, 1.ª, 21e; 1950s
        let mark_at = if next == Some('.') && matches!(chars.get(end + 1), Some('º' | 'ª')) { end + 1 } else { end };
        let mark_end = (mark_at..chars.len()).find(|&k| !(chars[k].is_alphabetic() || matches!(chars[k], 'º' | 'ª' | '°'))).unwrap_or(chars.len());
        if mark_end > mark_at {
            let mark: String = chars[mark_at..mark_end].iter().flat_map(|c| c.to_lowercase()).collect();
            // Letters that are no ordinal mark ("10km", "3D") are words of their own.
            let said = whole.filter(|_| number.fraction.is_none()).and_then(|n| if mark == "s" { r.decade(n) } else { r.ordinal(n, &mark) });
            if let Some(readings) = said {
                return Some((mark_end, readings, None));
            }
        }
        if next == Some('\'') && chars.get(end + 1) == Some(&'s') && ends_word(end + 2) {
            return r.decade(whole?).map(|readings| (end + 2, readings, None));
        }
        let readings = self.number_readings(&number);
        // 50 %, 40 €
        let after_space = skip_space(chars, end);
        if chars.get(after_space) == Some(&'%') {
            let readings = cross(&readings, r.percent());
            return Some((after_space + 1, readings, None));
        }
        if let Some((symbol, after)) = currency_symbol(chars, after_space) {
            if !chars.get(skip_space(chars, after)).is_some_and(char::is_ascii_digit) {
                let (_, readings, _) = self.money(chars, end, &number, symbol);
                return Some((after, readings, None));
            }
        }
        // "10.30", as Whisper often writes a time: a time or a decimal.
        if let (Some(h @ 0..=24), Some(f), '.') = (whole, &number.fraction, number.mark) {
            if let Some(m) = f.parse::<u64>().ok().filter(|m| f.len() == 2 && *m < 60) {
                let (after, mut times, _) = self.time(chars, end, h, m);
                times.extend(readings);
                return Some((after, times, None));
            }
        }
        Some((end, readings, whole.filter(|_| number.fraction.is_none())))
    }

    /// The digits and separators at `i`, and where they end.
    fn number(&self, chars: &[char], i: usize) -> (usize, Number) {
        let mut end = i;
        let mut raw = String::new();
        while end < chars.len() {
            let c = chars[end];
            if c.is_ascii_digit() {
                raw.push(c);
                end += 1;
                continue;
            }
            let next_digit = chars.get(end + 1).is_some_and(char::is_ascii_digit);
            let is_space = matches!(c, ' ' | '\u{a0}' | '\u{202f}');
            // A space groups thousands only before exactly three digits.
            let three_after = (1..=3).all(|k| chars.get(end + k).is_some_and(char::is_ascii_digit)) && !chars.get(end + 4).is_some_and(char::is_ascii_digit);
            if next_digit && (matches!(c, ',' | '.' | '\'') || (is_space && three_after && self.reader.decimal_comma())) {
                raw.push(if is_space { ' ' } else { c });
                end += 1;
                continue;
            }
            break;
        }
        (end, Number::parse(&raw, self.reader.decimal_comma(), self.reader.indian_grouping()))
    }

    fn number_readings(&self, number: &Number) -> Vec<String> {
        let r = self.reader;
        match number {
            Number { fraction: None, .. } => {
                let Some(n) = number.whole_value() else { return vec![digit_by_digit(r, &number.whole)] };
                if number.whole.len() > 1 && number.whole.starts_with('0') {
                    return vec![digit_by_digit(r, &number.whole), r.cardinal(n)];
                }
                let mut readings = Vec::new();
                if !number.grouped && number.whole.len() == 4 {
                    readings.extend(r.year(n));
                }
                readings.push(r.cardinal(n));
                // "1030", as Whisper sometimes writes "10:30".
                if !number.grouped && (3..=4).contains(&number.whole.len()) && n / 100 <= 24 && n % 100 < 60 {
                    readings.extend(r.time(n / 100, n % 100));
                }
                readings
            }
            Number { fraction: Some(fraction), mark, .. } => {
                let Some(n) = number.whole_value() else { return vec![format!("{} {}", digit_by_digit(r, &number.whole), digit_by_digit(r, fraction))] };
                let mut readings = Vec::new();
                for point in r.point(*mark) {
                    let whole = r.cardinal(n);
                    readings.push(format!("{whole} {point} {}", digit_by_digit(r, fraction)));
                    if let Ok(f) = fraction.parse::<u64>() {
                        if !fraction.starts_with('0') || fraction.len() == 1 {
                            readings.push(format!("{whole} {point} {}", r.cardinal(f)));
                        }
                    }
                    if n == 0 {
                        readings.extend(r.fraction_alone(point, &digit_by_digit(r, fraction)));
                    }
                }
                readings
            }
        }
    }

    /// A sum of money: the number at its end, in `symbol`'s currency,
    /// with a scale word after it if one follows ("$1.5 million").
    fn money(&self, chars: &[char], end: usize, number: &Number, symbol: &str) -> (usize, Vec<String>, Option<u64>) {
        let r = self.reader;
        let plain = self.number_readings(number);
        let Some(currency) = r.currency(symbol) else { return (end, plain, None) };
        // A scale word: the currency is said after it.
        let word_at = skip_space(chars, end);
        let word_end = (word_at..chars.len()).find(|&k| !(chars[k].is_alphabetic() || is_mark(chars[k]))).unwrap_or(chars.len());
        let word: String = chars[word_at..word_end].iter().collect::<String>().to_lowercase();
        let is_scale = r.scales().iter().any(|s| r.fold(s.to_string()) == r.fold(word.clone()));
        if word_at > end && word_end > word_at && is_scale {
            let mut readings = Vec::new();
            for reading in &plain {
                readings.push(format!("{reading} {word} {}", currency.many));
                for of in r.money_of() {
                    // An elided "d'" joins the currency's name.
                    let gap = if of.ends_with('\'') { "" } else { " " };
                    readings.push(format!("{reading} {word} {of}{gap}{}", currency.many));
                }
            }
            return (word_end, readings, None);
        }
        let unit = |n: u64| if n == 1 { currency.one } else { currency.many };
        let mut readings = Vec::new();
        match (number.whole_value(), &number.fraction) {
            (Some(n), None) => readings.push(format!("{} {}", r.cardinal(n), unit(n))),
            (Some(n), Some(f)) if f.len() == 2 => {
                let cents: u64 = f.parse().unwrap_or(0);
                let (whole, c) = (r.cardinal(n), r.cardinal(cents));
                let cent = if cents == 1 { currency.cent_one } else { currency.cent_many };
                if cents == 0 {
                    readings.push(format!("{whole} {}", unit(n)));
                }
                if n == 0 {
                    readings.push(format!("{c} {cent}"));
                }
                readings.push(format!("{whole} {} {c}", unit(n)));
                readings.push(format!("{whole} {} {c} {cent}", unit(n)));
                for and in r.money_and() {
                    readings.push(format!("{whole} {} {and} {c} {cent}", unit(n)));
                    readings.push(format!("{whole} {} {and} {c}", unit(n)));
                }
                readings.push(format!("{whole} {c}"));
                readings.extend(plain.iter().map(|p| format!("{p} {}", currency.many)));
            }
            _ => readings.extend(plain.iter().map(|p| format!("{p} {}", currency.many))),
        }
        (end, readings, None)
    }

    /// A time, with a.m. or p.m. after it if either follows.
    fn time(&self, chars: &[char], end: usize, h: u64, m: u64) -> (usize, Vec<String>, Option<u64>) {
        let readings = self.reader.time(h, m);
        match day_part_at(chars, skip_space(chars, end)).filter(|_| h <= 12) {
            Some((pm, after)) => (after, self.with_day_part(readings, pm), None),
            None => (end, readings, None),
        }
    }

    fn with_day_part(&self, readings: Vec<String>, pm: bool) -> Vec<String> {
        cross(&readings, self.reader.day_part(pm))
    }

    /// `d/m/y` or `d/m` (month first where the language writes it so).
    fn date(&self, chars: &[char], end: usize, first: u64) -> Option<(usize, Vec<String>, Option<u64>)> {
        let (second, after) = digits(chars, end + 1, 2)?;
        let (year, after) = match chars.get(after) {
            Some('/') => {
                let (y, after_y) = digits(chars, after + 1, 4)?;
                (Some(y), after_y)
            }
            _ => (None, after),
        };
        if chars.get(after).is_some_and(|c| c.is_alphanumeric() || *c == '/') {
            return None;
        }
        let (d, m) = if self.reader.month_first() { (second, first) } else { (first, second) };
        if !(1..=31).contains(&d) || !(1..=12).contains(&m) {
            return None;
        }
        Some((after, self.reader.date(d, m, year), None))
    }
}

fn spoken_piece(piece: Piece) -> Spoken {
    match piece {
        Piece::Word(w) => Spoken::Word(w),
        Piece::Figure { mut readings, .. } if readings.len() == 1 && readings[0].len() == 1 => Spoken::Word(readings.remove(0).remove(0)),
        Piece::Figure { readings, .. } => Spoken::Readings(readings),
    }
}

/// A number as written: its whole part's digits, its fraction's digits
/// and the mark before them, and whether its thousands were grouped.
#[derive(Debug, PartialEq)]
struct Number {
    whole: String,
    fraction: Option<String>,
    mark: char,
    grouped: bool,
}

impl Number {
    /// Reads digits with separators: a language's decimal mark after
    /// well-formed groups of thousands makes a fraction; the other mark
    /// alone, not before three digits, is a decimal mark too ("3.5" in
    /// Spanish); anything else keeps its digits and drops the marks.
    fn parse(raw: &str, decimal_comma: bool, indian: bool) -> Number {
        let decimal = if decimal_comma { ',' } else { '.' };
        let parts: Vec<&str> = raw.split([',', '.', '\'', ' ']).collect();
        let marks: Vec<char> = raw.chars().filter(|c| !c.is_ascii_digit()).collect();
        let plain = |whole: String| Number { whole, fraction: None, mark: decimal, grouped: false };
        if marks.is_empty() {
            return plain(raw.to_string());
        }
        let grouping_ok = |groups: &[&str]| {
            let thousands = groups[0].len() <= 3 && groups[1..].iter().all(|g| g.len() == 3);
            let lakhs = indian
                && groups.len() >= 3
                && groups[0].len() <= 2
                && groups[1..groups.len() - 1].iter().all(|g| g.len() == 2)
                && groups[groups.len() - 1].len() == 3;
            thousands || lakhs
        };
        let groups_marked = |marks: &[char]| marks.iter().all(|&m| m != decimal) && marks.windows(2).all(|w| w[0] == w[1]);
        let last = *marks.last().expect("some mark");
        if last == decimal && groups_marked(&marks[..marks.len() - 1]) && (parts.len() == 2 || grouping_ok(&parts[..parts.len() - 1])) {
            return Number {
                whole: parts[..parts.len() - 1].concat(),
                fraction: Some(parts[parts.len() - 1].to_string()),
                mark: decimal,
                grouped: parts.len() > 2,
            };
        }
        if groups_marked(&marks) && grouping_ok(&parts) {
            return Number { whole: parts.concat(), fraction: None, mark: decimal, grouped: true };
        }
        if marks.len() == 1 && matches!(last, ',' | '.') {
            return Number { whole: parts[0].to_string(), fraction: Some(parts[1].to_string()), mark: last, grouped: false };
        }
        plain(parts.concat())
    }

    fn whole_value(&self) -> Option<u64> {
        self.whole.parse().ok().filter(|n| *n < 1_000_000_000_000_000)
    }
}

/// Digits said one by one.
fn digit_by_digit(reader: &dyn Reader, digits: &str) -> String {
    digits.chars().filter_map(|c| c.to_digit(10)).map(|d| reader.cardinal(u64::from(d))).collect::<Vec<_>>().join(" ")
}

/// Each reading followed by each of `after`.
fn cross(readings: &[String], after: &[&str]) -> Vec<String> {
    readings.iter().flat_map(|r| after.iter().map(move |a| format!("{r} {a}"))).collect()
}

fn dedup(readings: Vec<Vec<String>>) -> Vec<Vec<String>> {
    let mut out: Vec<Vec<String>> = Vec::with_capacity(readings.len());
    for r in readings {
        if !out.contains(&r) {
            out.push(r);
        }
    }
    out
}

fn skip_space(chars: &[char], mut i: usize) -> usize {
    while chars.get(i).is_some_and(|c| matches!(c, ' ' | '\u{a0}' | '\u{202f}')) {
        i += 1;
    }
    i
}

/// Exactly two digits at `i`, not followed by a third.
fn two_digits(chars: &[char], i: usize) -> Option<(u64, usize)> {
    let (n, end) = digits(chars, i, 2)?;
    (end == i + 2).then_some((n, end))
}

/// One to `most` digits at `i`, not followed by another.
fn digits(chars: &[char], i: usize, most: usize) -> Option<(u64, usize)> {
    let end = (i..chars.len()).find(|&k| !chars[k].is_ascii_digit()).unwrap_or(chars.len());
    if end == i || end - i > most {
        return None;
    }
    Some((chars[i..end].iter().collect::<String>().parse().ok()?, end))
}

/// The currency symbols read before or after a sum.
const CURRENCY_SYMBOLS: [&str; 10] = ["R$", "US$", "Rs.", "Rs", "रु.", "₹", "£", "$", "€", "¥"];

fn currency_symbol(chars: &[char], i: usize) -> Option<(&'static str, usize)> {
    CURRENCY_SYMBOLS.iter().find_map(|s| {
        let n = s.chars().count();
        let matches = chars.len() >= i + n && chars[i..i + n].iter().copied().eq(s.chars());
        matches.then_some((*s, i + n))
    })
}

/// `am`, `pm`, `a.m.`, `p.m.` (any case) at `i`: (whether p.m., where it ends).
fn day_part_at(chars: &[char], i: usize) -> Option<(bool, usize)> {
    let pm = match chars.get(i)?.to_ascii_lowercase() {
        'a' => false,
        'p' => true,
        _ => return None,
    };
    let mut k = i + 1;
    if chars.get(k) == Some(&'.') {
        k = skip_space(chars, k + 1);
    }
    if !chars.get(k)?.eq_ignore_ascii_case(&'m') {
        return None;
    }
    k += 1;
    if chars.get(k) == Some(&'.') {
        k += 1;
    }
    (!chars.get(k).is_some_and(|c| c.is_alphanumeric())).then_some((pm, k))
}

/// Text with typographic apostrophes straightened and Devanagari digits
/// as ASCII ones.
fn prepared(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '’' | 'ʼ' => '\'',
            '०'..='९' => char::from(b'0' + (c as u32 - '०' as u32) as u8),
            _ => c,
        })
        .collect()
}

/// A combining mark that belongs to the word it is in (Devanagari vowel
/// signs and the like, which are not alphanumeric).
fn is_mark(c: char) -> bool {
    matches!(c as u32, 0x0300..=0x036F | 0x0900..=0x0903 | 0x093A..=0x094F | 0x0951..=0x0957 | 0x0962..=0x0963)
}

/// The words of plain text: split at spaces, hyphens and dashes, lower
/// case, punctuation dropped except inside words, folded as the language
/// folds them.
fn text_words(text: &str, reader: Option<&dyn Reader>) -> Vec<String> {
    let text = prepared(text);
    let contractions = reader.is_none_or(|r| r.contractions());
    text.split_whitespace()
        .flat_map(|w| w.split(['-', '–', '—', '/']))
        .map(|w| {
            w.chars()
                .filter(|c| c.is_alphanumeric() || is_mark(*c) || *c == '\'')
                .flat_map(char::to_lowercase)
                .collect::<String>()
                .trim_matches('\'')
                .to_string()
        })
        .filter(|w| !w.is_empty())
        .flat_map(|w| match contractions.then(|| expand_contraction(&w)).flatten() {
            Some(words) => words,
            None => vec![w],
        })
        .map(|w| match reader {
            Some(r) => r.fold(w),
            None => w,
        })
        .collect()
}

/// Words of a text in a language this module does not know: as written,
/// digit groups joined ("1,000" as "1000").
fn plain_words(text: &str) -> Vec<Spoken> {
    let joined = joined_digit_groups(text);
    text_words(&joined, None).into_iter().map(Spoken::Word).collect()
}

/// `1,000`, `1.000` and `1 000 000` with their separators dropped.
fn joined_digit_groups(text: &str) -> String {
    static GROUPS: OnceLock<regex::Regex> = OnceLock::new();
    let groups = GROUPS.get_or_init(|| regex::Regex::new(r"\b\d{1,3}(?:[,. \u{a0}\u{202f}]\d{3})+\b").expect("a valid pattern"));
    groups.replace_all(text, |c: &regex::Captures| c[0].chars().filter(char::is_ascii_digit).collect::<String>()).into_owned()
}

/// English contractions and what they stand for (`'s` only after the
/// pronouns where it means "is": elsewhere it is a possessive).
fn expand_contraction(word: &str) -> Option<Vec<String>> {
    let special = match word {
        "won't" => Some("will not"),
        "can't" => Some("can not"),
        "shan't" => Some("shall not"),
        "let's" => Some("let us"),
        "i'm" => Some("i am"),
        _ => None,
    };
    if let Some(s) = special {
        return Some(s.split(' ').map(str::to_string).collect());
    }
    let suffixes: [(&str, &str); 6] = [("n't", "not"), ("'re", "are"), ("'ll", "will"), ("'ve", "have"), ("'d", "would"), ("'m", "am")];
    for (suffix, full) in suffixes {
        if let Some(stem) = word.strip_suffix(suffix).filter(|s| !s.is_empty()) {
            return Some(vec![stem.to_string(), full.to_string()]);
        }
    }
    let is_pronoun = ["it", "that", "there", "he", "she", "what", "here", "who", "where"];
    if let Some(stem) = word.strip_suffix("'s").filter(|s| is_pronoun.contains(s)) {
        return Some(vec![stem.to_string(), "is".to_string()]);
    }
    None
}

/// A Latin letter without its accent (`é` → `e`, `ç` → `c`, `ñ` → `n`).
fn unaccented(word: &str) -> String {
    word.chars()
        .flat_map(|c| {
            let plain = match c {
                'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' => "a",
                'ç' => "c",
                'è' | 'é' | 'ê' | 'ë' => "e",
                'ì' | 'í' | 'î' | 'ï' => "i",
                'ñ' => "n",
                'ò' | 'ó' | 'ô' | 'õ' | 'ö' => "o",
                'ù' | 'ú' | 'û' | 'ü' => "u",
                'ý' | 'ÿ' => "y",
                'œ' => "oe",
                'æ' => "ae",
                _ => return vec![c],
            };
            plain.chars().collect()
        })
        .filter(|c| !matches!(*c as u32, 0x0300..=0x036F))
        .collect()
}

/// The cardinal of `n` in a language whose numbers below a thousand are
/// `below_thousand`, with each scale (thousand, million, billion, trillion)
/// said by `scale(count, power)`, where `power` counts thousands.
fn by_thousands(n: u64, below_thousand: &dyn Fn(u64) -> String, scale: &dyn Fn(u64, usize) -> String, zero: &str) -> String {
    if n == 0 {
        return zero.to_string();
    }
    let mut groups = Vec::new();
    let mut rest = n;
    while rest > 0 {
        groups.push(rest % 1000);
        rest /= 1000;
    }
    let mut words = Vec::new();
    for (power, &count) in groups.iter().enumerate().rev() {
        if count == 0 {
            continue;
        }
        words.push(if power == 0 { below_thousand(count) } else { scale(count, power) });
    }
    words.join(" ")
}

#[cfg(test)]
mod tests;
