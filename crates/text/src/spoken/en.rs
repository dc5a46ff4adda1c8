//! English, American and British: numbers as said without "and" (it is
//! dropped between number words on both sides), years in pairs
//! ("nineteen fifty-one"), money with its pence or cents, a.m. and p.m.

use super::{by_thousands, unaccented, Currency, Reader};

pub struct English {
    /// Dates written month first (`12/25/2024`).
    month_first: bool,
}

pub static US: English = English { month_first: true };
pub static GB: English = English { month_first: false };

const ONES: [&str; 20] = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
];
const TENS: [&str; 10] = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"];
const SCALES: [&str; 6] = ["", "thousand", "million", "billion", "trillion", "quadrillion"];

fn below_hundred(n: u64) -> String {
    match n {
        0..=19 => ONES[n as usize].to_string(),
        _ if n.is_multiple_of(10) => TENS[(n / 10) as usize].to_string(),
        _ => format!("{}-{}", TENS[(n / 10) as usize], ONES[(n % 10) as usize]),
    }
}

fn below_thousand(n: u64) -> String {
    match (n / 100, n % 100) {
        (0, rest) => below_hundred(rest),
        (h, 0) => format!("{} hundred", ONES[h as usize]),
        (h, rest) => format!("{} hundred {}", ONES[h as usize], below_hundred(rest)),
    }
}

/// The ordinal of a cardinal's last word ("one" → "first", "twenty" → "twentieth").
fn ordinal_word(word: &str) -> String {
    match word {
        "one" => "first".into(),
        "two" => "second".into(),
        "three" => "third".into(),
        "five" => "fifth".into(),
        "eight" => "eighth".into(),
        "nine" => "ninth".into(),
        "twelve" => "twelfth".into(),
        w if w.ends_with('y') => format!("{}ieth", &w[..w.len() - 1]),
        w => format!("{w}th"),
    }
}

/// Changes the last word of a reading (after its last space or hyphen).
fn with_last_word(reading: &str, change: impl Fn(&str) -> String) -> String {
    let cut = reading.rfind([' ', '-']).map_or(0, |k| k + 1);
    format!("{}{}", &reading[..cut], change(&reading[cut..]))
}

impl Reader for English {
    fn cardinal(&self, n: u64) -> String {
        by_thousands(n, &below_thousand, &|count, power| format!("{} {}", below_thousand(count), SCALES[power]), "zero")
    }

    fn ordinal(&self, n: u64, mark: &str) -> Option<Vec<String>> {
        let expected = match (n % 100, n % 10) {
            (11..=13, _) => "th",
            (_, 1) => "st",
            (_, 2) => "nd",
            (_, 3) => "rd",
            _ => "th",
        };
        // "" asks for the ordinal of a day.
        let ok = mark.is_empty() || mark == expected;
        let ordinal = with_last_word(&self.cardinal(n), ordinal_word);
        // "the hundredth" as well as "the one hundredth".
        let bare = ordinal.strip_prefix("one ").filter(|rest| rest.starts_with(['h', 't', 'm', 'b']));
        ok.then(|| std::iter::once(ordinal.clone()).chain(bare.map(str::to_string)).collect())
    }

    fn year(&self, n: u64) -> Vec<String> {
        if !(1000..=2099).contains(&n) {
            return Vec::new();
        }
        let (high, low) = (n / 100, n % 100);
        let mut readings = Vec::new();
        if (2000..=2009).contains(&n) {
            if low > 0 {
                readings.push(format!("twenty oh {}", ONES[low as usize]));
            }
            return readings;
        }
        match low {
            0 if !n.is_multiple_of(1000) => readings.push(format!("{} hundred", below_hundred(high))),
            0 => {}
            1..=9 => {
                readings.push(format!("{} oh {}", below_hundred(high), ONES[low as usize]));
                readings.push(format!("{} hundred {}", below_hundred(high), ONES[low as usize]));
            }
            _ => readings.push(format!("{} {}", below_hundred(high), below_hundred(low))),
        }
        readings
    }

    fn decimal_comma(&self) -> bool {
        false
    }

    fn point(&self, _mark: char) -> &'static [&'static str] {
        &["point"]
    }

    fn fraction_alone(&self, point: &str, digits: &str) -> Vec<String> {
        vec![format!("{point} {digits}"), format!("nought {point} {digits}"), format!("oh {point} {digits}")]
    }

    fn percent(&self) -> &'static [&'static str] {
        &["percent"]
    }

    fn currency(&self, symbol: &str) -> Option<Currency> {
        let (one, many, cent_one, cent_many) = match symbol {
            "$" | "US$" => ("dollar", "dollars", "cent", "cents"),
            "£" => ("pound", "pounds", "penny", "pence"),
            "€" => ("euro", "euros", "cent", "cents"),
            "₹" | "Rs" | "Rs." | "रु." => ("rupee", "rupees", "paisa", "paise"),
            "R$" => ("real", "reais", "centavo", "centavos"),
            "¥" => ("yen", "yen", "sen", "sen"),
            _ => return None,
        };
        Some(Currency { one, many, cent_one, cent_many })
    }

    fn money_and(&self) -> &'static [&'static str] {
        &["and"]
    }

    fn time(&self, h: u64, m: u64) -> Vec<String> {
        let hour = self.cardinal(h);
        let next = self.cardinal(if h == 12 || h == 24 { 1 } else { h % 12 + 1 });
        let mut readings = match m {
            0 => vec![hour.clone(), format!("{hour} o'clock")],
            1..=9 => vec![format!("{hour} oh {}", ONES[m as usize]), format!("{} past {hour}", self.cardinal(m))],
            _ => vec![format!("{hour} {}", below_hundred(m))],
        };
        match m {
            15 => readings.extend([format!("quarter past {hour}"), format!("a quarter past {hour}")]),
            30 => readings.push(format!("half past {hour}")),
            45 => readings.extend([format!("quarter to {next}"), format!("a quarter to {next}")]),
            10 | 20 | 25 => readings.push(format!("{} past {hour}", self.cardinal(m))),
            _ => {}
        }
        readings
    }

    fn day_part(&self, pm: bool) -> &'static [&'static str] {
        if pm {
            &["pm"]
        } else {
            &["am"]
        }
    }

    fn months(&self) -> &'static [&'static str; 12] {
        &["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"]
    }

    fn day(&self, ordinal: &str) -> Vec<String> {
        vec![ordinal.to_string(), format!("the {ordinal}"), format!("the {ordinal} of"), format!("{ordinal} of")]
    }

    fn date(&self, d: u64, m: u64, y: Option<u64>) -> Vec<String> {
        let month = self.months()[(m - 1) as usize];
        let (day, cardinal) = (with_last_word(&self.cardinal(d), ordinal_word), self.cardinal(d));
        let years: Vec<String> = match y {
            Some(y) if y >= 1000 => {
                let mut years = self.year(y);
                years.push(self.cardinal(y));
                years
            }
            Some(y) => vec![self.cardinal(y)],
            None => vec![String::new()],
        };
        let mut readings = Vec::new();
        for year in &years {
            if self.month_first {
                readings.push(format!("{month} {day} {year}"));
                readings.push(format!("{month} {cardinal} {year}"));
            } else {
                readings.push(format!("the {day} of {month} {year}"));
                readings.push(format!("{day} {month} {year}"));
                readings.push(format!("{cardinal} {month} {year}"));
            }
        }
        readings
    }

    fn month_first(&self) -> bool {
        self.month_first
    }

    fn abbreviation(&self, key: &str, dotted: bool) -> Option<&'static [&'static str]> {
        Some(match key {
            "mr" => &["mister"],
            "mrs" => &["missus"],
            "dr" => &["doctor", "drive"],
            "st" => &["saint", "street"],
            "prof" => &["professor"],
            "jr" => &["junior"],
            "sr" => &["senior"],
            "vs" => &["versus"],
            "etc" => &["et cetera", "etc"],
            "mt" => &["mount"],
            "lt" => &["lieutenant"],
            "capt" => &["captain"],
            "sgt" => &["sergeant"],
            "ave" => &["avenue"],
            "rd" if dotted => &["road"],
            "eg" if dotted => &["for example", "e g"],
            "ie" if dotted => &["that is", "i e"],
            "approx" => &["approximately"],
            "km" => &["kilometers", "kilometres", "kilometer", "kilometre", "k"],
            "kg" => &["kilograms", "kilos", "kilogram", "kilo"],
            "cm" => &["centimeters", "centimetres", "centimeter", "centimetre"],
            "mm" => &["millimeters", "millimetres", "millimeter", "millimetre"],
            "mph" => &["miles per hour"],
            "lb" | "lbs" => &["pounds", "pound"],
            "oz" => &["ounces", "ounce"],
            "ft" if dotted => &["feet", "foot", "fort"],
            _ => return None,
        })
    }

    fn scales(&self) -> &'static [&'static str] {
        &["thousand", "million", "billion", "trillion"]
    }

    fn fold(&self, word: String) -> String {
        let word = if word.is_ascii() { word } else { unaccented(&word) };
        match word.as_str() {
            "ok" => "okay".into(),
            "percent" | "pc" => "percent".into(),
            "o'clock" | "oclock" => "o'clock".into(),
            _ => word,
        }
    }

    fn conjunction(&self) -> Option<&'static str> {
        Some("and")
    }

    fn contractions(&self) -> bool {
        true
    }

    fn rewrite(&self, words: &mut Vec<String>) {
        // "a hundred" as "one hundred"; "per cent" as "percent".
        for k in 0..words.len().saturating_sub(1) {
            if words[k] == "a" && matches!(words[k + 1].as_str(), "hundred" | "thousand" | "million" | "billion") {
                words[k] = "one".into();
            }
        }
        let mut k = 0;
        while k + 1 < words.len() {
            if words[k] == "per" && words[k + 1] == "cent" {
                words[k] = "percent".into();
                words.remove(k + 1);
            }
            k += 1;
        }
    }

    fn decade(&self, n: u64) -> Option<Vec<String>> {
        if !n.is_multiple_of(10) || n > 2090 {
            return None;
        }
        let plural = |reading: &str| with_last_word(reading, |w| if let Some(stem) = w.strip_suffix('y') { format!("{stem}ies") } else { format!("{w}s") });
        let mut readings: Vec<String> = self.year(n).iter().map(|r| plural(r)).collect();
        readings.push(plural(&self.cardinal(n)));
        Some(readings)
    }
}
