//! Spanish: a decimal comma (and "punto" for a decimal point), thousands
//! grouped with points or spaces, "uno", "un" and "una" as one word, the
//! feminine hundreds as the masculine, accents folded.

use super::{by_thousands, unaccented, Currency, Reader};

pub struct Spanish;

pub static SPANISH: Spanish = Spanish;

const BELOW_THIRTY: [&str; 30] = [
    "cero",
    "uno",
    "dos",
    "tres",
    "cuatro",
    "cinco",
    "seis",
    "siete",
    "ocho",
    "nueve",
    "diez",
    "once",
    "doce",
    "trece",
    "catorce",
    "quince",
    "dieciséis",
    "diecisiete",
    "dieciocho",
    "diecinueve",
    "veinte",
    "veintiuno",
    "veintidós",
    "veintitrés",
    "veinticuatro",
    "veinticinco",
    "veintiséis",
    "veintisiete",
    "veintiocho",
    "veintinueve",
];
const TENS: [&str; 10] = ["", "", "", "treinta", "cuarenta", "cincuenta", "sesenta", "setenta", "ochenta", "noventa"];
const HUNDREDS: [&str; 10] =
    ["", "ciento", "doscientos", "trescientos", "cuatrocientos", "quinientos", "seiscientos", "setecientos", "ochocientos", "novecientos"];

fn below_hundred(n: u64) -> String {
    match n {
        0..=29 => BELOW_THIRTY[n as usize].to_string(),
        _ if n.is_multiple_of(10) => TENS[(n / 10) as usize].to_string(),
        _ => format!("{} y {}", TENS[(n / 10) as usize], BELOW_THIRTY[(n % 10) as usize]),
    }
}

fn below_thousand(n: u64) -> String {
    match (n / 100, n % 100) {
        (0, rest) => below_hundred(rest),
        (1, 0) => "cien".into(),
        (h, 0) => HUNDREDS[h as usize].into(),
        (h, rest) => format!("{} {}", HUNDREDS[h as usize], below_hundred(rest)),
    }
}

/// Ordinals 1 to 9, the tens and a hundred.
const FIRST: [&str; 10] = ["", "primero", "segundo", "tercero", "cuarto", "quinto", "sexto", "séptimo", "octavo", "noveno"];
const TENTHS: [&str; 11] =
    ["", "décimo", "vigésimo", "trigésimo", "cuadragésimo", "quincuagésimo", "sexagésimo", "septuagésimo", "octogésimo", "nonagésimo", "centésimo"];

fn feminine(reading: &str) -> String {
    reading.split(' ').map(|w| w.strip_suffix('o').map_or(w.to_string(), |stem| format!("{stem}a"))).collect::<Vec<_>>().join(" ")
}

impl Reader for Spanish {
    fn cardinal(&self, n: u64) -> String {
        by_thousands(
            n,
            &below_thousand,
            &|count, power| match (power, count) {
                (1, 1) => "mil".into(),
                (1, c) => format!("{} mil", below_thousand(c)),
                (2, 1) => "un millón".into(),
                (2, c) => format!("{} millones", below_thousand(c)),
                (3, 1) => "mil millones".into(),
                (3, c) => format!("{} mil millones", below_thousand(c)),
                (4, 1) => "un billón".into(),
                (_, c) => format!("{} billones", below_thousand(c)),
            },
            "cero",
        )
    }

    fn ordinal(&self, n: u64, mark: &str) -> Option<Vec<String>> {
        let female = match mark {
            "" | "º" | "°" | "o" | "er" => false,
            "ª" | "a" => true,
            _ => return None,
        };
        let masculine = match n {
            1..=9 => FIRST[n as usize].to_string(),
            10..=100 if n.is_multiple_of(10) => TENTHS[(n / 10) as usize].to_string(),
            11..=99 => format!("{} {}", TENTHS[(n / 10) as usize], FIRST[(n % 10) as usize]),
            _ => return Some(vec![self.cardinal(n)]),
        };
        let mut readings = vec![if female { feminine(&masculine) } else { masculine.clone() }];
        // "primer", "tercer" before a noun; "undécimo" and "duodécimo" beside "décimo primero".
        if !female && matches!(n % 10, 1 | 3) && n != 11 && n != 13 {
            readings.push(masculine.trim_end_matches('o').to_string());
        }
        match n {
            11 => readings.push(if female { "undécima" } else { "undécimo" }.into()),
            12 => readings.push(if female { "duodécima" } else { "duodécimo" }.into()),
            _ => {}
        }
        Some(readings)
    }

    fn point(&self, mark: char) -> &'static [&'static str] {
        if mark == ',' {
            &["coma"]
        } else {
            &["punto"]
        }
    }

    fn percent(&self) -> &'static [&'static str] {
        &["por ciento"]
    }

    fn currency(&self, symbol: &str) -> Option<Currency> {
        let (one, many, cent_one, cent_many) = match symbol {
            "$" | "US$" => ("dólar", "dólares", "centavo", "centavos"),
            "€" => ("euro", "euros", "céntimo", "céntimos"),
            "£" => ("libra", "libras", "penique", "peniques"),
            "₹" | "Rs" | "Rs." | "रु." => ("rupia", "rupias", "paisa", "paisas"),
            "R$" => ("real", "reales", "centavo", "centavos"),
            "¥" => ("yen", "yenes", "sen", "sen"),
            _ => return None,
        };
        Some(Currency { one, many, cent_one, cent_many })
    }

    fn money_and(&self) -> &'static [&'static str] {
        &["con", "y"]
    }

    fn money_of(&self) -> &'static [&'static str] {
        &["de"]
    }

    fn time(&self, h: u64, m: u64) -> Vec<String> {
        let hour = self.cardinal(h);
        let next = self.cardinal(if h == 12 || h == 24 { 1 } else { h % 12 + 1 });
        let mut readings = match m {
            0 => vec![hour.clone(), format!("{hour} en punto")],
            _ => vec![format!("{hour} y {}", self.cardinal(m)), format!("{hour} {}", self.cardinal(m))],
        };
        match m {
            15 => readings.push(format!("{hour} y cuarto")),
            30 => readings.push(format!("{hour} y media")),
            45 => readings.push(format!("{next} menos cuarto")),
            _ => {}
        }
        readings
    }

    fn day_part(&self, pm: bool) -> &'static [&'static str] {
        if pm {
            &["pm", "de la tarde", "de la noche"]
        } else {
            &["am", "de la mañana", "de la madrugada"]
        }
    }

    fn months(&self) -> &'static [&'static str; 12] {
        &["enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre", "octubre", "noviembre", "diciembre"]
    }

    fn date(&self, d: u64, m: u64, y: Option<u64>) -> Vec<String> {
        let month = self.months()[(m - 1) as usize];
        let days = if d == 1 { vec!["uno".to_string(), "primero".to_string()] } else { vec![self.cardinal(d)] };
        let year = y.map_or(String::new(), |y| format!("de {}", self.cardinal(y)));
        days.iter().map(|day| format!("{day} de {month} {year}")).collect()
    }

    fn abbreviation(&self, key: &str, dotted: bool) -> Option<&'static [&'static str]> {
        Some(match key {
            "sr" => &["señor"],
            "sra" => &["señora"],
            "srta" => &["señorita"],
            "dr" => &["doctor"],
            "dra" => &["doctora"],
            "ud" => &["usted"],
            "uds" => &["ustedes"],
            "etc" => &["etcétera"],
            "pag" | "pág" if dotted => &["página"],
            "núm" | "num" if dotted => &["número"],
            "nº" => &["número"],
            "av" | "avda" if dotted => &["avenida"],
            "eeuu" => &["estados unidos"],
            "km" => &["kilómetros", "kilómetro"],
            "kg" => &["kilos", "kilogramos", "kilo", "kilogramo"],
            _ => return None,
        })
    }

    fn scales(&self) -> &'static [&'static str] {
        &["mil", "millón", "millones", "billón", "billones"]
    }

    fn fold(&self, word: String) -> String {
        let word = unaccented(&word);
        match word.as_str() {
            "un" | "una" => "uno".into(),
            "veintiun" | "veintiuna" => "veintiuno".into(),
            "setiembre" => "septiembre".into(),
            w if w.ends_with("ientas") => format!("{}os", &w[..w.len() - 2]),
            _ => word,
        }
    }

    fn conjunction(&self) -> Option<&'static str> {
        Some("y")
    }
}
