//! Cleans text before G2P: terminal escape sequences and control characters
//! go, pictographs (emoji and their joiners and variation selectors) go
//! rather than being read out by name, and runs of white space fold.

/// Text with only what can be spoken left in it.
pub fn speakable(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            // ESC [ parameters final-byte (a CSI sequence, e.g. colour codes).
            if chars.peek() == Some(&'[') {
                chars.next();
                for d in chars.by_ref() {
                    if ('@'..='~').contains(&d) {
                        break;
                    }
                }
            }
            continue;
        }
        if c == '\n' {
            out.push('\n');
        } else if c.is_control() || is_pictograph(c) {
            out.push(' ');
        } else {
            out.push(c);
        }
    }
    // Fold runs of spaces and tabs, keep line breaks.
    out.lines().map(|l| l.split_whitespace().collect::<Vec<_>>().join(" ")).collect::<Vec<_>>().join("\n")
}

fn is_pictograph(c: char) -> bool {
    matches!(c as u32,
        0x1F000..=0x1FAFF   // emoji, pictographs, symbols and flags
        | 0x2600..=0x27BF   // miscellaneous symbols, dingbats
        | 0x2B00..=0x2BFF   // arrows and symbols
        | 0xFE00..=0xFE0F   // variation selectors
        | 0x200D            // zero-width joiner
        | 0xE0000..=0xE007F // tags
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_controls_and_emoji_are_removed_and_words_kept() {
        assert_eq!(speakable("\u{1b}[31mRed\u{1b}[0m alert\u{7}!"), "Red alert !");
        assert_eq!(speakable("Party 🎉🎉 time 👩‍👩‍👧"), "Party time");
        assert_eq!(speakable("one\n\ttwo   three"), "one\ntwo three");
        assert_eq!(speakable("😀"), "");
        assert_eq!(speakable("café naïve – “quoted”"), "café naïve – “quoted”");
    }
}
