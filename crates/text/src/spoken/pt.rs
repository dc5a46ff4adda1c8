//! Brazilian Portuguese: a decimal comma, thousands grouped with points,
//! "e" between number words dropped wherever it stands, the feminine
//! ("uma", "duas", "duzentas") as the masculine, times as "10h30",
//! accents folded.

use super::{by_thousands, unaccented, Currency, Reader};

pub struct Portuguese;

pub static PORTUGUESE: Portuguese = Portuguese;

const BELOW_TWENTY: [&str; 20] = [
    "zero",
    "um",
    "dois",
    "três",
    "quatro",
    "cinco",
    "seis",
    "sete",
    "oito",
    "nove",
    "dez",
    "onze",
    "doze",
    "treze",
    "catorze",
    "quinze",
    "dezesseis",
    "dezessete",
    "dezoito",
    "dezenove",
];
const TENS: [&str; 10] = ["", "", "vinte", "trinta", "quarenta", "cinquenta", "sessenta", "setenta", "oitenta", "noventa"];
const HUNDREDS: [&str; 10] = ["", "cento", "duzentos", "trezentos", "quatrocentos", "quinhentos", "seiscentos", "setecentos", "oitocentos", "novecentos"];
const FIRST: [&str; 10] = ["", "primeiro", "segundo", "terceiro", "quarto", "quinto", "sexto", "sétimo", "oitavo", "nono"];
const TENTHS: [&str; 11] =
    ["", "décimo", "vigésimo", "trigésimo", "quadragésimo", "quinquagésimo", "sexagésimo", "septuagésimo", "octogésimo", "nonagésimo", "centésimo"];

fn below_hundred(n: u64) -> String {
    match n {
        0..=19 => BELOW_TWENTY[n as usize].to_string(),
        _ if n.is_multiple_of(10) => TENS[(n / 10) as usize].to_string(),
        _ => format!("{} e {}", TENS[(n / 10) as usize], BELOW_TWENTY[(n % 10) as usize]),
    }
}

fn below_thousand(n: u64) -> String {
    match (n / 100, n % 100) {
        (0, rest) => below_hundred(rest),
        (1, 0) => "cem".into(),
        (h, 0) => HUNDREDS[h as usize].into(),
        (h, rest) => format!("{} e {}", HUNDREDS[h as usize], below_hundred(rest)),
    }
}

impl Reader for Portuguese {
    fn cardinal(&self, n: u64) -> String {
        by_thousands(
            n,
            &below_thousand,
            &|count, power| match (power, count) {
                (1, 1) => "mil".into(),
                (1, c) => format!("{} mil", below_thousand(c)),
                (2, 1) => "um milhão".into(),
                (2, c) => format!("{} milhões", below_thousand(c)),
                (3, 1) => "um bilhão".into(),
                (3, c) => format!("{} bilhões", below_thousand(c)),
                (4, 1) => "um trilhão".into(),
                (_, c) => format!("{} trilhões", below_thousand(c)),
            },
            "zero",
        )
    }

    fn ordinal(&self, n: u64, mark: &str) -> Option<Vec<String>> {
        let female = match mark {
            "" | "º" | "°" | "o" => false,
            "ª" | "a" => true,
            _ => return None,
        };
        let masculine = match n {
            1..=9 => FIRST[n as usize].to_string(),
            10..=100 if n.is_multiple_of(10) => TENTHS[(n / 10) as usize].to_string(),
            11..=99 => format!("{} {}", TENTHS[(n / 10) as usize], FIRST[(n % 10) as usize]),
            _ => return Some(vec![self.cardinal(n)]),
        };
        let feminine = || masculine.split(' ').map(|w| format!("{}a", &w[..w.len() - 1])).collect::<Vec<_>>().join(" ");
        Some(vec![if female { feminine() } else { masculine.clone() }])
    }

    fn point(&self, mark: char) -> &'static [&'static str] {
        if mark == ',' {
            &["vírgula"]
        } else {
            &["ponto", "vírgula"]
        }
    }

    fn percent(&self) -> &'static [&'static str] {
        &["por cento"]
    }

    fn currency(&self, symbol: &str) -> Option<Currency> {
        let (one, many, cent_one, cent_many) = match symbol {
            "R$" => ("real", "reais", "centavo", "centavos"),
            "$" | "US$" => ("dólar", "dólares", "centavo", "centavos"),
            "€" => ("euro", "euros", "centavo", "centavos"),
            "£" => ("libra", "libras", "pêni", "pence"),
            "₹" | "Rs" | "Rs." | "रु." => ("rupia", "rupias", "paisa", "paisas"),
            "¥" => ("iene", "ienes", "sen", "sen"),
            _ => return None,
        };
        Some(Currency { one, many, cent_one, cent_many })
    }

    fn money_and(&self) -> &'static [&'static str] {
        &["e"]
    }

    fn money_of(&self) -> &'static [&'static str] {
        &["de"]
    }

    fn time(&self, h: u64, m: u64) -> Vec<String> {
        let hour = self.cardinal(h);
        let hours = if h == 1 { "hora" } else { "horas" };
        let mut readings = match m {
            0 => vec![hour.clone(), format!("{hour} {hours}"), format!("{hour} em ponto")],
            _ => {
                let minutes = self.cardinal(m);
                vec![format!("{hour} e {minutes}"), format!("{hour} {hours} e {minutes}"), format!("{hour} {hours} e {minutes} minutos")]
            }
        };
        match (h, m) {
            (12, 0) => readings.push("meio-dia".into()),
            (0 | 24, 0) => readings.push("meia-noite".into()),
            (_, 30) => readings.push(format!("{hour} e meia")),
            _ => {}
        }
        readings
    }

    fn hours_mark(&self) -> bool {
        true
    }

    fn day_part(&self, pm: bool) -> &'static [&'static str] {
        if pm {
            &["pm", "da tarde", "da noite"]
        } else {
            &["am", "da manhã", "da madrugada"]
        }
    }

    fn months(&self) -> &'static [&'static str; 12] {
        &["janeiro", "fevereiro", "março", "abril", "maio", "junho", "julho", "agosto", "setembro", "outubro", "novembro", "dezembro"]
    }

    fn date(&self, d: u64, m: u64, y: Option<u64>) -> Vec<String> {
        let month = self.months()[(m - 1) as usize];
        let days = if d == 1 { vec!["primeiro".to_string(), "um".to_string()] } else { vec![self.cardinal(d)] };
        let year = y.map_or(String::new(), |y| format!("de {}", self.cardinal(y)));
        days.iter().map(|day| format!("{day} de {month} {year}")).collect()
    }

    fn abbreviation(&self, key: &str, dotted: bool) -> Option<&'static [&'static str]> {
        Some(match key {
            "sr" => &["senhor"],
            "sra" => &["senhora"],
            "srta" => &["senhorita"],
            "dr" => &["doutor"],
            "dra" => &["doutora"],
            "prof" => &["professor"],
            "profa" => &["professora"],
            "etc" => &["etcétera", "et cetera"],
            "av" if dotted => &["avenida"],
            "km" => &["quilômetros", "quilômetro"],
            "kg" => &["quilos", "quilogramas", "quilo", "quilograma"],
            _ => return None,
        })
    }

    fn scales(&self) -> &'static [&'static str] {
        &["mil", "milhão", "milhões", "bilhão", "bilhões"]
    }

    fn fold(&self, word: String) -> String {
        let word = unaccented(&word);
        match word.as_str() {
            "uma" => "um".into(),
            "duas" => "dois".into(),
            "quatorze" => "catorze".into(),
            w if w.ends_with("entas") => format!("{}os", &w[..w.len() - 2]),
            _ => word,
        }
    }

    fn conjunction(&self) -> Option<&'static str> {
        Some("e")
    }
}
