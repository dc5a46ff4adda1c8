//! Chinese punctuation as the Mandarin voices saw it in training: full-width
//! marks become their ASCII counterparts followed by a space (，→ ", ",
//! 。→ ". "), and the quoting brackets 《》「」【】« » become curly quotes.

/// Each mark and what it becomes, applied in this order.
const MARKS: [(char, &str); 18] = [
    ('、', ", "),
    ('，', ", "),
    ('。', ". "),
    ('．', ". "),
    ('！', "! "),
    ('：', ": "),
    ('；', "; "),
    ('？', "? "),
    ('«', " “"),
    ('»', "” "),
    ('《', " “"),
    ('》', "” "),
    ('「', " “"),
    ('」', "” "),
    ('【', " “"),
    ('】', "” "),
    ('（', " ("),
    ('）', ") "),
];

/// `text` with its Chinese punctuation mapped, trimmed at both ends.
pub fn map_punctuation(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match MARKS.iter().find(|(mark, _)| *mark == c) {
            Some((_, ascii)) => out.push_str(ascii),
            None => out.push(c),
        }
    }
    out.trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_width_marks() {
        assert_eq!(map_punctuation("你好，世界。"), "你好, 世界.");
        assert_eq!(map_punctuation("真的？！"), "真的? !");
        assert_eq!(map_punctuation("一、二；三：四"), "一, 二; 三: 四");
        assert_eq!(map_punctuation("看《红楼梦》吧"), "看 “红楼梦” 吧");
        assert_eq!(map_punctuation("（笑）"), "(笑)");
    }
}
