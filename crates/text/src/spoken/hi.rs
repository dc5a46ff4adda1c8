//! Hindi: Devanagari or Latin digits (Whisper often writes Hindi numbers
//! as digits), lakhs and crores (`1,00,000`), years in hundreds ("उन्नीस
//! सौ इक्यावन") or in full, times with "बजकर" or "साढ़े", and the
//! spellings Whisper varies folded: nukta dropped, chandrabindu as
//! anusvara, "रुपए" as "रुपये", "छः" as "छह".

use super::{Currency, Reader};

pub struct Hindi;

pub static HINDI: Hindi = Hindi;

/// 0 to 99: every one a word of its own.
const BELOW_HUNDRED: [&str; 100] = [
    "शून्य",
    "एक",
    "दो",
    "तीन",
    "चार",
    "पाँच",
    "छह",
    "सात",
    "आठ",
    "नौ",
    "दस",
    "ग्यारह",
    "बारह",
    "तेरह",
    "चौदह",
    "पंद्रह",
    "सोलह",
    "सत्रह",
    "अठारह",
    "उन्नीस",
    "बीस",
    "इक्कीस",
    "बाईस",
    "तेईस",
    "चौबीस",
    "पच्चीस",
    "छब्बीस",
    "सत्ताईस",
    "अट्ठाईस",
    "उनतीस",
    "तीस",
    "इकतीस",
    "बत्तीस",
    "तैंतीस",
    "चौंतीस",
    "पैंतीस",
    "छत्तीस",
    "सैंतीस",
    "अड़तीस",
    "उनतालीस",
    "चालीस",
    "इकतालीस",
    "बयालीस",
    "तैंतालीस",
    "चौवालीस",
    "पैंतालीस",
    "छियालीस",
    "सैंतालीस",
    "अड़तालीस",
    "उनचास",
    "पचास",
    "इक्यावन",
    "बावन",
    "तिरपन",
    "चौवन",
    "पचपन",
    "छप्पन",
    "सत्तावन",
    "अट्ठावन",
    "उनसठ",
    "साठ",
    "इकसठ",
    "बासठ",
    "तिरसठ",
    "चौंसठ",
    "पैंसठ",
    "छियासठ",
    "सड़सठ",
    "अड़सठ",
    "उनहत्तर",
    "सत्तर",
    "इकहत्तर",
    "बहत्तर",
    "तिहत्तर",
    "चौहत्तर",
    "पचहत्तर",
    "छिहत्तर",
    "सतहत्तर",
    "अठहत्तर",
    "उन्यासी",
    "अस्सी",
    "इक्यासी",
    "बयासी",
    "तिरासी",
    "चौरासी",
    "पचासी",
    "छियासी",
    "सत्तासी",
    "अट्ठासी",
    "नवासी",
    "नब्बे",
    "इक्यानवे",
    "बानवे",
    "तिरानवे",
    "चौरानवे",
    "पचानवे",
    "छियानवे",
    "सत्तानवे",
    "अट्ठानवे",
    "निन्यानवे",
];

fn below_thousand(n: u64) -> String {
    match (n / 100, n % 100) {
        (0, rest) => BELOW_HUNDRED[rest as usize].to_string(),
        (h, 0) => format!("{} सौ", BELOW_HUNDRED[h as usize]),
        (h, rest) => format!("{} सौ {}", BELOW_HUNDRED[h as usize], BELOW_HUNDRED[rest as usize]),
    }
}

impl Reader for Hindi {
    /// In the Indian system: hundreds, thousands (हज़ार), lakhs (लाख) and
    /// crores (करोड़), crores counted on for larger numbers.
    fn cardinal(&self, n: u64) -> String {
        if n == 0 {
            return BELOW_HUNDRED[0].into();
        }
        let mut words = Vec::new();
        let crores = n / 10_000_000;
        if crores > 0 {
            words.push(format!("{} करोड़", self.cardinal(crores)));
        }
        let rest = n % 10_000_000;
        for (size, name) in [(100_000, "लाख"), (1000, "हज़ार")] {
            let count = rest / size % 100;
            if count > 0 {
                words.push(format!("{} {name}", BELOW_HUNDRED[count as usize]));
            }
        }
        if !rest.is_multiple_of(1000) {
            words.push(below_thousand(rest % 1000));
        }
        words.join(" ")
    }

    fn ordinal(&self, n: u64, mark: &str) -> Option<Vec<String>> {
        if !mark.is_empty() {
            return None;
        }
        Some(match n {
            1 => vec!["पहला".into(), "पहली".into(), "पहले".into()],
            2 => vec!["दूसरा".into(), "दूसरी".into()],
            3 => vec!["तीसरा".into(), "तीसरी".into()],
            4 => vec!["चौथा".into(), "चौथी".into()],
            6 => vec!["छठा".into(), "छठी".into()],
            _ => vec![format!("{}वाँ", self.cardinal(n)), format!("{}वीं", self.cardinal(n))],
        })
    }

    fn year(&self, n: u64) -> Vec<String> {
        if (1100..2000).contains(&n) {
            let rest = n % 100;
            let hundreds = format!("{} सौ", BELOW_HUNDRED[(n / 100) as usize]);
            return vec![if rest == 0 { hundreds } else { format!("{hundreds} {}", BELOW_HUNDRED[rest as usize]) }];
        }
        Vec::new()
    }

    fn decimal_comma(&self) -> bool {
        false
    }

    fn indian_grouping(&self) -> bool {
        true
    }

    fn point(&self, _mark: char) -> &'static [&'static str] {
        &["दशमलव", "पॉइंट"]
    }

    fn percent(&self) -> &'static [&'static str] {
        &["प्रतिशत", "परसेंट", "फ़ीसदी"]
    }

    fn currency(&self, symbol: &str) -> Option<Currency> {
        let (one, many, cent_one, cent_many) = match symbol {
            "₹" | "Rs" | "Rs." | "रु." => ("रुपया", "रुपये", "पैसा", "पैसे"),
            "$" | "US$" => ("डॉलर", "डॉलर", "सेंट", "सेंट"),
            "£" => ("पाउंड", "पाउंड", "पेंस", "पेंस"),
            "€" => ("यूरो", "यूरो", "सेंट", "सेंट"),
            "R$" => ("रियाल", "रियाल", "सेंटावो", "सेंटावो"),
            "¥" => ("येन", "येन", "सेन", "सेन"),
            _ => return None,
        };
        Some(Currency { one, many, cent_one, cent_many })
    }

    fn money_and(&self) -> &'static [&'static str] {
        &["और"]
    }

    fn time(&self, h: u64, m: u64) -> Vec<String> {
        let hour = self.cardinal(h);
        let next = self.cardinal(if h == 12 || h == 24 { 1 } else { h % 12 + 1 });
        let mut readings = match m {
            0 => vec![format!("{hour} बजे"), hour.clone()],
            _ => {
                let minutes = self.cardinal(m);
                vec![format!("{hour} बजकर {minutes} मिनट"), format!("{hour} बज कर {minutes} मिनट"), format!("{hour} {minutes}")]
            }
        };
        let said = |reading: String| [format!("{reading} बजे"), reading];
        match (h % 12, m) {
            (1, 30) => readings.extend(said("डेढ़".into())),
            (2, 30) => readings.extend(said("ढाई".into())),
            (_, 30) => readings.extend(said(format!("साढ़े {hour}"))),
            (_, 15) => readings.extend(said(format!("सवा {hour}"))),
            (_, 45) => readings.extend(said(format!("पौने {next}"))),
            _ => {}
        }
        readings
    }

    fn day_part(&self, pm: bool) -> &'static [&'static str] {
        if pm {
            &["पीएम", "pm", "शाम", "रात"]
        } else {
            &["एएम", "am", "सुबह"]
        }
    }

    fn months(&self) -> &'static [&'static str; 12] {
        &["जनवरी", "फ़रवरी", "मार्च", "अप्रैल", "मई", "जून", "जुलाई", "अगस्त", "सितंबर", "अक्टूबर", "नवंबर", "दिसंबर"]
    }

    fn date(&self, d: u64, m: u64, y: Option<u64>) -> Vec<String> {
        let month = self.months()[(m - 1) as usize];
        let years: Vec<String> = match y {
            Some(y) => std::iter::once(self.cardinal(y)).chain(self.year(y)).collect(),
            None => vec![String::new()],
        };
        years.iter().map(|year| format!("{} {month} {year}", self.cardinal(d))).collect()
    }

    fn abbreviation(&self, key: &str, _dotted: bool) -> Option<&'static [&'static str]> {
        Some(match key {
            "डॉ" => &["डॉक्टर"],
            "km" => &["किलोमीटर"],
            "kg" => &["किलो", "किलोग्राम"],
            _ => return None,
        })
    }

    fn scales(&self) -> &'static [&'static str] {
        &["हज़ार", "लाख", "करोड़"]
    }

    fn fold(&self, word: String) -> String {
        // Nukta letters as their bare letters, chandrabindu as anusvara.
        const BARE: [char; 8] = ['क', 'ख', 'ग', 'ज', 'ड', 'ढ', 'फ', 'य'];
        let word: String = word
            .chars()
            .filter(|c| *c != '\u{93c}')
            .map(|c| match c {
                '\u{958}'..='\u{95f}' => BARE[(c as u32 - 0x958) as usize],
                '\u{901}' => '\u{902}',
                c => c,
            })
            .collect();
        match word.as_str() {
            "रुपए" => "रुपये".into(),
            "छः" | "छे" => "छह".into(),
            _ => word,
        }
    }

    fn conjunction(&self) -> Option<&'static str> {
        None
    }
}
