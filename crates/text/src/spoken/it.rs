//! Italian: numbers below a million written as one word
//! ("milleduecentoventi"), a decimal comma, thousands grouped with points,
//! "uno", "un" and "una" as one word, accents folded.

use super::{unaccented, Currency, Reader};

pub struct Italian;

pub static ITALIAN: Italian = Italian;

const BELOW_TWENTY: [&str; 20] = [
    "zero",
    "uno",
    "due",
    "tre",
    "quattro",
    "cinque",
    "sei",
    "sette",
    "otto",
    "nove",
    "dieci",
    "undici",
    "dodici",
    "tredici",
    "quattordici",
    "quindici",
    "sedici",
    "diciassette",
    "diciotto",
    "diciannove",
];
const TENS: [&str; 10] = ["", "", "venti", "trenta", "quaranta", "cinquanta", "sessanta", "settanta", "ottanta", "novanta"];
const FIRST: [&str; 11] = ["", "primo", "secondo", "terzo", "quarto", "quinto", "sesto", "settimo", "ottavo", "nono", "decimo"];

fn below_hundred(n: u64) -> String {
    let (tens, unit) = ((n / 10) as usize, (n % 10) as usize);
    match n {
        0..=19 => BELOW_TWENTY[n as usize].to_string(),
        _ if unit == 0 => TENS[tens].to_string(),
        // "ventuno", "ventotto": the tens lose their vowel before one and eight.
        _ if unit == 1 || unit == 8 => format!("{}{}", &TENS[tens][..TENS[tens].len() - 1], BELOW_TWENTY[unit]),
        _ if unit == 3 => format!("{}tré", TENS[tens]),
        _ => format!("{}{}", TENS[tens], BELOW_TWENTY[unit]),
    }
}

fn below_thousand(n: u64) -> String {
    let (hundreds, rest) = (n / 100, n % 100);
    let head = match hundreds {
        0 => String::new(),
        1 => "cento".into(),
        h => format!("{}cento", BELOW_TWENTY[h as usize]),
    };
    match rest {
        0 if hundreds > 0 => head,
        // "centottanta": the hundred loses its vowel before eighty.
        80..=89 if hundreds > 0 => format!("{}{}", &head[..head.len() - 1], below_hundred(rest)),
        _ => format!("{head}{}", below_hundred(rest)),
    }
}

/// Below a million, one word.
fn below_million(n: u64) -> String {
    let (thousands, rest) = (n / 1000, n % 1000);
    let head = match thousands {
        0 => String::new(),
        1 => "mille".into(),
        t => {
            let count = below_thousand(t);
            let count = count.strip_suffix("uno").map_or(count.clone(), |stem| format!("{stem}un"));
            format!("{count}mila")
        }
    };
    match (thousands, rest) {
        (_, 0) if thousands > 0 => head,
        _ => format!("{head}{}", below_thousand(rest)),
    }
}

impl Reader for Italian {
    fn cardinal(&self, n: u64) -> String {
        let mut words = Vec::new();
        let mut rest = n;
        for (scale, one, many) in
            [(1_000_000_000_000, "mille miliardi", "mila miliardi"), (1_000_000_000, "un miliardo", "miliardi"), (1_000_000, "un milione", "milioni")]
        {
            let count = rest / scale;
            if count == 1 {
                words.push(one.to_string());
            } else if count > 1 {
                words.push(format!("{} {many}", below_million(count)));
            }
            rest %= scale;
        }
        if rest > 0 || words.is_empty() {
            words.push(below_million(rest));
        }
        words.join(" ")
    }

    fn ordinal(&self, n: u64, mark: &str) -> Option<Vec<String>> {
        let female = match mark {
            "" | "º" | "°" | "o" => false,
            "ª" | "a" => true,
            _ => return None,
        };
        let masculine = match n {
            1..=10 => FIRST[n as usize].to_string(),
            _ => {
                let cardinal = unaccented(&self.cardinal(n));
                if cardinal.ends_with("tre") || cardinal.ends_with("sei") {
                    format!("{cardinal}esimo")
                } else {
                    format!("{}esimo", &cardinal[..cardinal.len() - 1])
                }
            }
        };
        Some(vec![if female { format!("{}a", &masculine[..masculine.len() - 1]) } else { masculine }])
    }

    fn point(&self, mark: char) -> &'static [&'static str] {
        if mark == ',' {
            &["virgola"]
        } else {
            &["punto", "virgola"]
        }
    }

    fn percent(&self) -> &'static [&'static str] {
        &["per cento", "percento"]
    }

    fn currency(&self, symbol: &str) -> Option<Currency> {
        let (one, many, cent_one, cent_many) = match symbol {
            "$" | "US$" => ("dollaro", "dollari", "centesimo", "centesimi"),
            "€" => ("euro", "euro", "centesimo", "centesimi"),
            "£" => ("sterlina", "sterline", "penny", "pence"),
            "₹" | "Rs" | "Rs." | "रु." => ("rupia", "rupie", "paisa", "paisa"),
            "R$" => ("real", "reais", "centavo", "centavos"),
            "¥" => ("yen", "yen", "sen", "sen"),
            _ => return None,
        };
        Some(Currency { one, many, cent_one, cent_many })
    }

    fn money_and(&self) -> &'static [&'static str] {
        &["e"]
    }

    fn money_of(&self) -> &'static [&'static str] {
        &["di"]
    }

    fn time(&self, h: u64, m: u64) -> Vec<String> {
        let hour = self.cardinal(h);
        let next = self.cardinal(if h == 12 || h == 24 { 1 } else { h % 12 + 1 });
        let mut readings = match m {
            0 => vec![hour.clone(), format!("{hour} in punto")],
            _ => vec![format!("{hour} e {}", self.cardinal(m))],
        };
        match (h, m) {
            (12, 0) => readings.push("mezzogiorno".into()),
            (0 | 24, 0) => readings.push("mezzanotte".into()),
            (_, 15) => readings.extend([format!("{hour} e un quarto"), format!("{hour} e quarto")]),
            (_, 30) => readings.extend([format!("{hour} e mezza"), format!("{hour} e mezzo")]),
            (_, 45) => readings.extend([format!("{next} meno un quarto"), format!("{next} meno quarto")]),
            _ => {}
        }
        readings
    }

    fn day_part(&self, pm: bool) -> &'static [&'static str] {
        if pm {
            &["pm", "del pomeriggio", "di sera"]
        } else {
            &["am", "di mattina", "del mattino"]
        }
    }

    fn months(&self) -> &'static [&'static str; 12] {
        &["gennaio", "febbraio", "marzo", "aprile", "maggio", "giugno", "luglio", "agosto", "settembre", "ottobre", "novembre", "dicembre"]
    }

    fn date(&self, d: u64, m: u64, y: Option<u64>) -> Vec<String> {
        let month = self.months()[(m - 1) as usize];
        let days = if d == 1 { vec!["primo".to_string(), "uno".to_string()] } else { vec![self.cardinal(d)] };
        let year = y.map_or(String::new(), |y| self.cardinal(y));
        days.iter().map(|day| format!("{day} {month} {year}")).collect()
    }

    fn abbreviation(&self, key: &str, dotted: bool) -> Option<&'static [&'static str]> {
        Some(match key {
            "sig" => &["signor", "signore"],
            "sigra" => &["signora"],
            "sigg" => &["signori"],
            "dott" => &["dottor", "dottore"],
            "dottssa" => &["dottoressa"],
            "prof" => &["professor", "professore"],
            "profssa" => &["professoressa"],
            "ing" if dotted => &["ingegner", "ingegnere"],
            "avv" => &["avvocato"],
            "ecc" => &["eccetera"],
            "km" => &["chilometri", "chilometro"],
            "kg" => &["chili", "chilogrammi", "chilo", "chilogrammo"],
            _ => return None,
        })
    }

    fn scales(&self) -> &'static [&'static str] {
        &["mila", "milione", "milioni", "miliardo", "miliardi"]
    }

    fn fold(&self, word: String) -> String {
        let word = unaccented(&word);
        match word.as_str() {
            "un" | "una" => "uno".into(),
            _ => word,
        }
    }

    fn conjunction(&self) -> Option<&'static str> {
        Some("e")
    }
}
