//! Arabic numerals in Mandarin text written out in Chinese numerals, as
//! Kokoro's reference front end does before reading (cn2an's an2cn): ranges
//! before a measure word (3-5斤 → 三到五斤), dates (years digit by digit:
//! 2024年 → 二零二四年), fractions (1/3 → 三分之一), percentages (百分之…),
//! degrees Celsius, then every other number, decimals and signs included
//! (98.5 → 九十八点五, -5 → 负五). Numbers of more than sixteen digits
//! are left as they are.

use std::sync::OnceLock;

use regex::{Captures, Regex};

const DIGITS: [&str; 10] = ["零", "一", "二", "三", "四", "五", "六", "七", "八", "九"];

/// The unit after the digit at each place, counted from the right.
const PLACES: [&str; 16] = ["", "十", "百", "千", "万", "十", "百", "千", "亿", "十", "百", "千", "万", "十", "百", "千"];

/// Measure words after which `a-b` is a range.
const MEASURE_WORDS: [&str; 33] = [
    "斤", "克", "千克", "公斤", "吨", "米", "厘米", "毫米", "公里", "升", "毫升", "元", "角", "分", "个", "只", "条", "张", "块", "瓶", "杯", "份", "本", "辆",
    "台", "匹", "头", "位", "亩", "小时", "分钟", "秒", "天",
];

fn regex(cell: &'static OnceLock<Regex>, pattern: &str) -> &'static Regex {
    cell.get_or_init(|| Regex::new(pattern).expect("a valid number pattern"))
}

/// `text` with its Arabic numerals written in Chinese numerals.
pub fn write_out_numbers(text: &str) -> String {
    static RANGE: OnceLock<Regex> = OnceLock::new();
    static DATE: OnceLock<Regex> = OnceLock::new();
    static FRACTION: OnceLock<Regex> = OnceLock::new();
    static PERCENT: OnceLock<Regex> = OnceLock::new();
    static CELSIUS: OnceLock<Regex> = OnceLock::new();
    static NUMBER: OnceLock<Regex> = OnceLock::new();

    // Full-width digits read as ASCII ones.
    let text: String = text
        .chars()
        .map(|c| match c {
            '０'..='９' => char::from(b'0' + (c as u32 - '０' as u32) as u8),
            c => c,
        })
        .collect();
    let text = ranges(&text, regex(&RANGE, r"\d+(?:\.\d+)?-\d+(?:\.\d+)?"));
    let date = regex(&DATE, r"(\d{2,4}年)?(\d{1,2}月)?(\d{1,2}日)?");
    let text = date.replace_all(&text, |c: &Captures| date_words(&c[0]));
    let fraction = regex(&FRACTION, r"(\d+)/(\d+)");
    let text = fraction.replace_all(&text, |c: &Captures| format!("{}分之{}", or_same(&c[2]), or_same(&c[1])));
    let percent = regex(&PERCENT, r"-?(?:\d+\.)?\d+%");
    let text = percent.replace_all(&text, |c: &Captures| {
        let number = c[0].trim_end_matches('%');
        match number_words(number) {
            Some(words) => format!("百分之{words}"),
            None => c[0].to_string(),
        }
    });
    let celsius = regex(&CELSIUS, r"(\d+)℃");
    let text = celsius.replace_all(&text, |c: &Captures| match number_words(&c[1]) {
        Some(words) => format!("{words}摄氏度"),
        None => c[0].to_string(),
    });
    let number = regex(&NUMBER, r"-?(?:\d+\.)?\d+");
    number.replace_all(&text, |c: &Captures| or_same(&c[0])).into_owned()
}

/// `a-b` before a measure word as `a到b`; elsewhere left for the number pass.
fn ranges(text: &str, pattern: &Regex) -> String {
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    let mut from = 0;
    while let Some(m) = pattern.find_at(text, from) {
        let after = &text[m.end()..];
        let (start, end) = m.as_str().split_once('-').unwrap_or((m.as_str(), ""));
        let words = (number_words(start), number_words(end));
        match words {
            (Some(start), Some(end)) if MEASURE_WORDS.iter().any(|w| after.starts_with(w)) => {
                out.push_str(&text[copied..m.start()]);
                out.push_str(&format!("{start}到{end}"));
                copied = m.end();
                from = m.end();
            }
            _ => {
                // Try again one character on, as a regex search would.
                from = m.start() + text[m.start()..].chars().next().map_or(1, char::len_utf8);
            }
        }
    }
    out.push_str(&text[copied..]);
    out
}

/// A date's numbers: the year digit by digit, month and day as numbers.
fn date_words(date: &str) -> String {
    if date.is_empty() {
        return String::new();
    }
    let (year, rest) = match date.split_once('年') {
        Some((year, rest)) => (Some(year), rest),
        None => (None, date),
    };
    let mut out = String::new();
    if let Some(year) = year {
        out.extend(year.chars().map(|d| DIGITS[d.to_digit(10).unwrap_or(0) as usize]));
        out.push('年');
    }
    static DIGITS_RUN: OnceLock<Regex> = OnceLock::new();
    let digits = regex(&DIGITS_RUN, r"\d+");
    out.push_str(&digits.replace_all(rest, |c: &Captures| or_same(&c[0])));
    out
}

/// `number` in words, or as it was when it cannot be read.
fn or_same(number: &str) -> String {
    number_words(number).unwrap_or_else(|| number.to_string())
}

/// A number (optional minus sign, digits, optional decimals) in Chinese
/// numerals; None for more than sixteen integer digits or non-ASCII digits.
pub fn number_words(number: &str) -> Option<String> {
    let (sign, digits) = match number.strip_prefix('-') {
        Some(rest) => ("负", rest),
        None => ("", number),
    };
    let (integer, decimals) = match digits.split_once('.') {
        Some((integer, decimals)) => (integer, Some(decimals)),
        None => (digits, None),
    };
    if integer.is_empty() || !integer.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut out = format!("{sign}{}", integer_words(integer)?);
    if let Some(decimals) = decimals {
        if !decimals.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        if !decimals.is_empty() {
            out.push('点');
        }
        out.extend(decimals.bytes().take(16).map(|d| DIGITS[(d - b'0') as usize]));
    }
    Some(out)
}

/// Whole-number digits in Chinese numerals with place units (10 → 十,
/// 108 → 一百零八, 20000 → 二万).
fn integer_words(digits: &str) -> Option<String> {
    let digits = digits.trim_start_matches('0');
    if digits.len() > PLACES.len() {
        return None;
    }
    let count = digits.len();
    let mut out = String::new();
    for (i, d) in digits.bytes().enumerate() {
        let place = count - i - 1;
        let d = (d - b'0') as usize;
        if d != 0 {
            out.push_str(DIGITS[d]);
            out.push_str(PLACES[place]);
            continue;
        }
        if place.is_multiple_of(4) {
            out.push_str(DIGITS[0]);
            out.push_str(PLACES[place]);
        }
        if i > 0 && !out.ends_with('零') {
            out.push_str(DIGITS[0]);
        }
    }
    let out = out.replace("零零", "零").replace("零万", "万").replace("零亿", "亿").replace("亿万", "亿");
    let out = out.trim_matches('零');
    static THOUSANDS: OnceLock<Regex> = OnceLock::new();
    let thousands = regex(&THOUSANDS, "([万亿])零([一二三四五六七八九]千)");
    let out = thousands.replace_all(out, "$1$2");
    let out = out.strip_prefix("一十").map_or_else(|| out.to_string(), |rest| format!("十{rest}"));
    Some(if out.is_empty() { "零".to_string() } else { out })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_numbers() {
        assert_eq!(number_words("0").unwrap(), "零");
        assert_eq!(number_words("10").unwrap(), "十");
        assert_eq!(number_words("15").unwrap(), "十五");
        assert_eq!(number_words("108").unwrap(), "一百零八");
        assert_eq!(number_words("1024").unwrap(), "一千零二十四");
        assert_eq!(number_words("20000").unwrap(), "二万");
        assert_eq!(number_words("12000000").unwrap(), "一千二百万");
        assert_eq!(number_words("100010").unwrap(), "十万零一十");
        assert_eq!(number_words("-5").unwrap(), "负五");
        assert_eq!(number_words("98.5").unwrap(), "九十八点五");
        assert_eq!(number_words("12345678901234567"), None);
    }

    #[test]
    fn in_text() {
        assert_eq!(write_out_numbers("2024年3月15日"), "二零二四年三月十五日");
        assert_eq!(write_out_numbers("买了3-5斤"), "买了三到五斤");
        assert_eq!(write_out_numbers("3-5"), "三负五");
        assert_eq!(write_out_numbers("1/3就够了"), "三分之一就够了");
        assert_eq!(write_out_numbers("涨了30%。"), "涨了百分之三十。");
        assert_eq!(write_out_numbers("20℃"), "二十摄氏度");
        assert_eq!(write_out_numbers("15:30见"), "十五:三十见");
        assert_eq!(write_out_numbers("没有数字"), "没有数字");
        assert_eq!(write_out_numbers("１２个"), "十二个");
    }
}
