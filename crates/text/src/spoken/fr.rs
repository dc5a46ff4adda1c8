//! French: a decimal comma, thousands grouped with spaces or points,
//! hyphens and "et" in numbers as either spelling has them, the plural s
//! of "vingts" and "cents" folded, years also said in hundreds
//! ("dix-neuf cent cinquante et un"), times as "10 h 30", accents folded.

use super::{by_thousands, unaccented, Currency, Reader};

pub struct French;

pub static FRENCH: French = French;

const BELOW_SEVENTEEN: [&str; 17] =
    ["zéro", "un", "deux", "trois", "quatre", "cinq", "six", "sept", "huit", "neuf", "dix", "onze", "douze", "treize", "quatorze", "quinze", "seize"];
const TENS: [&str; 7] = ["", "dix", "vingt", "trente", "quarante", "cinquante", "soixante"];

fn below_hundred(n: u64) -> String {
    match n {
        0..=16 => BELOW_SEVENTEEN[n as usize].to_string(),
        17..=19 => format!("dix-{}", BELOW_SEVENTEEN[(n - 10) as usize]),
        20..=69 => match n % 10 {
            0 => TENS[(n / 10) as usize].to_string(),
            1 => format!("{} et un", TENS[(n / 10) as usize]),
            u => format!("{}-{}", TENS[(n / 10) as usize], BELOW_SEVENTEEN[u as usize]),
        },
        71 => "soixante et onze".into(),
        70..=79 => format!("soixante-{}", below_hundred(n - 60)),
        80 => "quatre-vingts".into(),
        _ => format!("quatre-vingt-{}", below_hundred(n - 80)),
    }
}

fn below_thousand(n: u64) -> String {
    match (n / 100, n % 100) {
        (0, rest) => below_hundred(rest),
        (1, 0) => "cent".into(),
        (1, rest) => format!("cent {}", below_hundred(rest)),
        (h, 0) => format!("{} cents", BELOW_SEVENTEEN[h as usize]),
        (h, rest) => format!("{} cent {}", BELOW_SEVENTEEN[h as usize], below_hundred(rest)),
    }
}

/// The ordinal of a cardinal's last word ("cinq" → "cinquième").
fn ordinal_word(word: &str) -> String {
    match word {
        "un" => "unième".into(),
        "cinq" => "cinquième".into(),
        "neuf" => "neuvième".into(),
        "vingts" => "vingtième".into(),
        "cents" => "centième".into(),
        w => format!("{}ième", w.trim_end_matches('e')),
    }
}

impl Reader for French {
    fn cardinal(&self, n: u64) -> String {
        by_thousands(
            n,
            &below_thousand,
            &|count, power| match (power, count) {
                (1, 1) => "mille".into(),
                (1, c) => format!("{} mille", below_thousand(c).trim_end_matches('s')),
                (2, 1) => "un million".into(),
                (2, c) => format!("{} millions", below_thousand(c)),
                (3, 1) => "un milliard".into(),
                (3, c) => format!("{} milliards", below_thousand(c)),
                (4, 1) => "un billion".into(),
                (_, c) => format!("{} billions", below_thousand(c)),
            },
            "zéro",
        )
    }

    fn ordinal(&self, n: u64, mark: &str) -> Option<Vec<String>> {
        let first = matches!(mark, "er" | "re" | "ère" | "ere");
        let other = matches!(mark, "e" | "ème" | "eme" | "è" | "nd" | "nde" | "d" | "de");
        if !(mark.is_empty() || (first && n == 1) || (other && n > 1)) {
            return None;
        }
        if n == 1 {
            return Some(vec!["premier".into(), "première".into()]);
        }
        let cardinal = self.cardinal(n);
        let cut = cardinal.rfind([' ', '-']).map_or(0, |k| k + 1);
        let mut readings = vec![format!("{}{}", &cardinal[..cut], ordinal_word(&cardinal[cut..]))];
        if n == 2 {
            readings.extend(["second".into(), "seconde".into()]);
        }
        Some(readings)
    }

    fn year(&self, n: u64) -> Vec<String> {
        if (1100..2000).contains(&n) {
            let rest = n % 100;
            let hundreds = format!("{} cent", below_hundred(n / 100));
            return vec![if rest == 0 { hundreds } else { format!("{hundreds} {}", below_hundred(rest)) }];
        }
        Vec::new()
    }

    fn point(&self, mark: char) -> &'static [&'static str] {
        if mark == ',' {
            &["virgule"]
        } else {
            &["point", "virgule"]
        }
    }

    fn percent(&self) -> &'static [&'static str] {
        &["pour cent"]
    }

    fn currency(&self, symbol: &str) -> Option<Currency> {
        let (one, many, cent_one, cent_many) = match symbol {
            "$" | "US$" => ("dollar", "dollars", "cent", "cents"),
            "€" => ("euro", "euros", "centime", "centimes"),
            "£" => ("livre", "livres", "penny", "pence"),
            "₹" | "Rs" | "Rs." | "रु." => ("roupie", "roupies", "paisa", "paisas"),
            "R$" => ("réal", "réaux", "centavo", "centavos"),
            "¥" => ("yen", "yens", "sen", "sen"),
            _ => return None,
        };
        Some(Currency { one, many, cent_one, cent_many })
    }

    fn money_and(&self) -> &'static [&'static str] {
        &["et"]
    }

    fn money_of(&self) -> &'static [&'static str] {
        &["de", "d'"]
    }

    fn time(&self, h: u64, m: u64) -> Vec<String> {
        let hours = |h: u64| if h == 1 { "une heure".to_string() } else { format!("{} heures", self.cardinal(h)) };
        let hour = hours(h);
        let mut readings = match m {
            0 => vec![hour.clone()],
            _ => vec![format!("{hour} {}", self.cardinal(m)), format!("{} {}", self.cardinal(h), self.cardinal(m))],
        };
        match (h, m) {
            (12, 0) => readings.push("midi".into()),
            (0 | 24, 0) => readings.push("minuit".into()),
            (_, 15) => readings.push(format!("{hour} et quart")),
            (_, 30) => readings.push(format!("{hour} et demie")),
            (_, 45) => readings.push(format!("{} moins le quart", hours(if h == 12 || h == 24 { 1 } else { h % 12 + 1 }))),
            _ => {}
        }
        readings
    }

    fn hours_mark(&self) -> bool {
        true
    }

    fn day_part(&self, pm: bool) -> &'static [&'static str] {
        if pm {
            &["pm", "de l'après-midi", "du soir"]
        } else {
            &["am", "du matin"]
        }
    }

    fn months(&self) -> &'static [&'static str; 12] {
        &["janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août", "septembre", "octobre", "novembre", "décembre"]
    }

    fn date(&self, d: u64, m: u64, y: Option<u64>) -> Vec<String> {
        let month = self.months()[(m - 1) as usize];
        let day = if d == 1 { "premier".to_string() } else { self.cardinal(d) };
        let years: Vec<String> = match y {
            Some(y) => std::iter::once(self.cardinal(y)).chain(self.year(y)).collect(),
            None => vec![String::new()],
        };
        years.iter().map(|year| format!("{day} {month} {year}")).collect()
    }

    fn abbreviation(&self, key: &str, dotted: bool) -> Option<&'static [&'static str]> {
        Some(match key {
            "m" if dotted => &["monsieur"],
            "mme" => &["madame"],
            "mlle" => &["mademoiselle"],
            "dr" => &["docteur"],
            "st" => &["saint"],
            "ste" => &["sainte"],
            "etc" => &["et cetera", "et caetera"],
            "km" => &["kilomètres", "kilomètre"],
            "kg" => &["kilos", "kilogrammes", "kilo", "kilogramme"],
            _ => return None,
        })
    }

    fn scales(&self) -> &'static [&'static str] {
        &["mille", "million", "millions", "milliard", "milliards"]
    }

    fn fold(&self, word: String) -> String {
        let word = unaccented(&word);
        match word.as_str() {
            "une" => "un".into(),
            "vingts" => "vingt".into(),
            "cents" => "cent".into(),
            "mil" => "mille".into(),
            _ => word,
        }
    }

    fn conjunction(&self) -> Option<&'static str> {
        Some("et")
    }
}
