//! Runs of digits read out in hiragana, as Kokoro's reference front end
//! does (misaki's num2kana, a port of "Convert-Numbers-to-Japanese"):
//! 3 → さん, 300 → さんびゃく, 1000 → せん, 12000 → いちまんにせん, up to nine
//! digits. Its quirks are kept, because the voices learnt them: 0 is the
//! katakana ゼロ, and a thousand inside a larger number is いっせん
//! (10000000 → いっせんまん). Longer runs, which the reference replaces
//! with an English error message, are read digit by digit instead.

/// Readings of the single digits.
const DIGITS: [&str; 10] = ["ゼロ", "いち", "に", "さん", "よん", "ご", "ろく", "なな", "はち", "きゅう"];
const TEN: &str = "じゅう";
const HUNDRED: &str = "ひゃく";
const THOUSAND: &str = "せん";
const TEN_THOUSAND: &str = "まん";
const HUNDRED_MILLION: &str = "おく";
/// The most digits the reference reads as one number.
const MAX_DIGITS: usize = 9;

fn digit(d: u8) -> &'static str {
    DIGITS[(d - b'0') as usize]
}

/// A run of ASCII digits read as one number (leading zeros dropped), or
/// digit by digit past nine digits.
pub fn read_number(digits: &str) -> String {
    debug_assert!(digits.bytes().all(|b| b.is_ascii_digit()));
    let bytes = digits.as_bytes();
    if bytes.len() > MAX_DIGITS {
        return bytes.iter().map(|&d| digit(d)).collect();
    }
    let first = bytes.iter().position(|&d| d != b'0').unwrap_or(bytes.len().saturating_sub(1));
    let number = &bytes[first..];
    match number.len() {
        0 => String::new(),
        1 => digit(number[0]).to_string(),
        2 => two(number),
        3 => three(number),
        4 => four(number, true),
        _ => more(number),
    }
}

/// Two digits (the first may be 0).
fn two(n: &[u8]) -> String {
    match (n[0], n[1]) {
        (b'0', d) => digit(d).to_string(),
        (b'1', b'0') => TEN.to_string(),
        (b'1', d) => format!("{TEN}{}", digit(d)),
        (d, b'0') => format!("{}{TEN}", digit(d)),
        (a, b) => format!("{}{TEN}{}", digit(a), digit(b)),
    }
}

/// Three digits, the first not 0.
fn three(n: &[u8]) -> String {
    let mut out = match n[0] {
        b'1' => HUNDRED.to_string(),
        b'3' => "さんびゃく".to_string(),
        b'6' => "ろっぴゃく".to_string(),
        b'8' => "はっぴゃく".to_string(),
        d => format!("{}{HUNDRED}", digit(d)),
    };
    match (n[1], n[2]) {
        (b'0', b'0') => {}
        (b'0', d) => out.push_str(digit(d)),
        _ => out.push_str(&two(&n[1..])),
    }
    out
}

/// Four digits (leading zeros allowed); a leading 1 is せん standing alone
/// and いっせん inside a larger number.
fn four(n: &[u8], alone: bool) -> String {
    let first = n.iter().position(|&d| d != b'0').unwrap_or(n.len());
    let n = &n[first..];
    match n.len() {
        0 => return String::new(),
        1 => return digit(n[0]).to_string(),
        2 => return two(n),
        3 => return three(n),
        _ => {}
    }
    let mut out = match n[0] {
        b'1' if alone => THOUSAND.to_string(),
        b'1' => "いっせん".to_string(),
        b'3' => "さんぜん".to_string(),
        b'8' => "はっせん".to_string(),
        d => format!("{}{THOUSAND}", digit(d)),
    };
    if &n[1..] != b"000" {
        if n[1] == b'0' {
            out.push_str(&two(&n[2..]));
        } else {
            out.push_str(&three(&n[1..]));
        }
    }
    out
}

/// Five to nine digits, the first not 0: the 万 and 億 groups, then the last four.
fn more(n: &[u8]) -> String {
    let split = n.len() - 4;
    let (high, low) = n.split_at(split);
    let mut out = match high.len() {
        1 => format!("{}{TEN_THOUSAND}", digit(high[0])),
        2 => format!("{}{TEN_THOUSAND}", two(high)),
        3 => format!("{}{TEN_THOUSAND}", three(high)),
        4 => format!("{}{TEN_THOUSAND}", four(high, false)),
        _ => {
            let mut out = format!("{}{HUNDRED_MILLION}{}", digit(high[0]), four(&high[1..5], false));
            if &high[1..5] != b"0000" {
                out.push_str(TEN_THOUSAND);
            }
            out
        }
    };
    out.push_str(&four(low, false));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_numbers() {
        assert_eq!(read_number("0"), "ゼロ");
        assert_eq!(read_number("7"), "なな");
        assert_eq!(read_number("10"), "じゅう");
        assert_eq!(read_number("14"), "じゅうよん");
        assert_eq!(read_number("40"), "よんじゅう");
        assert_eq!(read_number("99"), "きゅうじゅうきゅう");
        assert_eq!(read_number("007"), "なな");
    }

    #[test]
    fn hundreds_and_thousands_with_their_sound_changes() {
        assert_eq!(read_number("300"), "さんびゃく");
        assert_eq!(read_number("608"), "ろっぴゃくはち");
        assert_eq!(read_number("850"), "はっぴゃくごじゅう");
        assert_eq!(read_number("1000"), "せん");
        assert_eq!(read_number("1980"), "せんきゅうひゃくはちじゅう");
        assert_eq!(read_number("2024"), "にせんにじゅうよん");
        assert_eq!(read_number("3005"), "さんぜんご");
        assert_eq!(read_number("8800"), "はっせんはっぴゃく");
    }

    #[test]
    fn man_and_oku() {
        assert_eq!(read_number("10000"), "いちまん");
        assert_eq!(read_number("12000"), "いちまんにせん");
        assert_eq!(read_number("10000000"), "いっせんまん");
        assert_eq!(read_number("250000"), "にじゅうごまん");
        assert_eq!(read_number("100000000"), "いちおく");
        assert_eq!(read_number("123456789"), "いちおくにせんさんびゃくよんじゅうごまんろくせんななひゃくはちじゅうきゅう");
    }

    #[test]
    fn past_nine_digits_each_digit_is_read() {
        assert_eq!(read_number("0901234567"), "ゼロきゅうゼロいちにさんよんごろくなな");
    }
}
