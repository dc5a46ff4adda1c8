//! MeCab's compiled dictionary, read in place from memory-mapped files, as
//! unidic-lite ships it: `sys.dic` (the words: a double-array trie over
//! their UTF-8 spellings, a token table, the feature strings), `unk.dic`
//! (the same layout, one entry list per character category, for words the
//! dictionary lacks), `matrix.bin` (the connection cost between a word's
//! right context and the next word's left context) and `char.bin` (each
//! UCS-2 character's categories and how unknown words of it are formed).
//! Every file is checked for its size and header on opening, so a
//! truncated or foreign file fails there and not mid-sentence.

use std::fs::File;
use std::path::{Path, PathBuf};

use memmap2::Mmap;
use revoice_core::error::{Error, Result};

/// The magic number MeCab xors with a dictionary file's size.
const DICTIONARY_MAGIC: u32 = 0xef71_8f77;
/// The compiled-dictionary format version MeCab 0.996 writes.
const DICTIONARY_VERSION: u32 = 102;
/// Header: ten u32 fields, then the charset name in 32 bytes.
const HEADER_BYTES: usize = 40 + 32;
/// A token: left id, right id, part-of-speech id (u16 each), word cost
/// (i16), feature offset and compound data (u32 each).
const TOKEN_BYTES: usize = 16;
/// Characters `char.bin` describes: UCS-2 code points below 0xffff.
const CHAR_TABLE_LEN: usize = 0xffff;

fn open_mmap(path: &Path) -> Result<Mmap> {
    let file = File::open(path).map_err(|e| Error::io("open", path, e))?;
    // SAFETY: the dictionary files are read-only data the installer
    // published; nothing in the studio writes them while they are mapped.
    unsafe { Mmap::map(&file) }.map_err(|e| Error::io("memory-map", path, e))
}

fn broken(path: &Path, reason: impl std::fmt::Display) -> Error {
    Error::invalid(path.display().to_string(), format!("not a MeCab dictionary file: {reason}"))
}

fn u16_at(bytes: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([bytes[at], bytes[at + 1]])
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
}

/// One dictionary entry: its contexts, cost, and where its feature string is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token {
    pub left_id: u16,
    pub right_id: u16,
    pub cost: i16,
    /// Offset of the feature string in its lexicon.
    pub feature: u32,
}

/// One lexicon file (`sys.dic` or `unk.dic`): a trie from spellings to runs
/// of tokens, and the feature strings the tokens point at.
pub struct Lexicon {
    map: Mmap,
    path: PathBuf,
    trie: (usize, usize),
    tokens: (usize, usize),
    features: (usize, usize),
    /// Left and right context counts, which must match the matrix.
    pub left_size: u32,
    pub right_size: u32,
}

impl Lexicon {
    /// Maps a lexicon file and checks its header against its size.
    pub fn open(path: &Path) -> Result<Lexicon> {
        let map = open_mmap(path)?;
        if map.len() < HEADER_BYTES {
            return Err(broken(path, format!("{} bytes is too short", map.len())));
        }
        let field = |i: usize| u32_at(&map, 4 * i);
        if (field(0) ^ DICTIONARY_MAGIC) as usize != map.len() {
            return Err(broken(path, "its magic number does not match its size (truncated or another format)"));
        }
        if field(1) != DICTIONARY_VERSION {
            return Err(broken(path, format!("format version {}, expected {DICTIONARY_VERSION}", field(1))));
        }
        let charset = &map[40..72];
        let charset = String::from_utf8_lossy(&charset[..charset.iter().position(|&b| b == 0).unwrap_or(32)]).to_ascii_lowercase();
        if charset != "utf8" && charset != "utf-8" {
            return Err(broken(path, format!("its charset is {charset}, not UTF-8")));
        }
        let (trie_len, tokens_len, features_len) = (field(6) as usize, field(7) as usize, field(8) as usize);
        let trie = (HEADER_BYTES, HEADER_BYTES + trie_len);
        let tokens = (trie.1, trie.1 + tokens_len);
        let features = (tokens.1, tokens.1 + features_len);
        if features.1 != map.len() || trie_len % 8 != 0 || tokens_len % TOKEN_BYTES != 0 {
            return Err(broken(path, "its sections do not add up to its size"));
        }
        Ok(Lexicon { left_size: field(4), right_size: field(5), map, path: path.to_path_buf(), trie, tokens, features })
    }

    /// The trie unit at `index`: (base, check); `None` past the end.
    fn unit(&self, index: i64) -> Option<(i32, u32)> {
        let count = (self.trie.1 - self.trie.0) / 8;
        if index < 0 || index as usize >= count {
            return None;
        }
        let at = self.trie.0 + 8 * index as usize;
        Some((u32_at(&self.map, at) as i32, u32_at(&self.map, at + 4)))
    }

    /// The value stored at trie node `base`, when a key ends there.
    fn value_at(&self, base: i32) -> Option<u32> {
        match self.unit(base as i64) {
            Some((value, check)) if check == base as u32 && value < 0 => Some((-value - 1) as u32),
            _ => None,
        }
    }

    /// The child of trie node `base` along `byte`.
    fn child(&self, base: i32, byte: u8) -> Option<i32> {
        match self.unit(base as i64 + byte as i64 + 1) {
            Some((next, check)) if check == base as u32 => Some(next),
            _ => None,
        }
    }

    /// Every prefix of `key` that is a spelling, shortest first: its length
    /// in bytes and its token run (Darts' commonPrefixSearch).
    pub fn prefixes(&self, key: &[u8], found: &mut Vec<(usize, u32)>) {
        found.clear();
        let Some((mut base, _)) = self.unit(0) else { return };
        for (i, &byte) in key.iter().enumerate() {
            if let Some(value) = self.value_at(base) {
                found.push((i, value));
            }
            match self.child(base, byte) {
                Some(next) => base = next,
                None => return,
            }
        }
        if let Some(value) = self.value_at(base) {
            found.push((key.len(), value));
        }
    }

    /// The token run stored for exactly `key`.
    pub fn exact(&self, key: &[u8]) -> Option<u32> {
        let (mut base, _) = self.unit(0)?;
        for &byte in key {
            base = self.child(base, byte)?;
        }
        self.value_at(base)
    }

    /// The tokens of a trie value (a run start and a count).
    pub fn tokens(&self, value: u32) -> Result<impl Iterator<Item = Token> + '_> {
        let (first, count) = ((value >> 8) as usize, (value & 0xff) as usize);
        let start = self.tokens.0 + first * TOKEN_BYTES;
        if start + count * TOKEN_BYTES > self.tokens.1 {
            return Err(broken(&self.path, format!("token run {first}+{count} is past the token table")));
        }
        Ok((0..count).map(move |k| {
            let at = start + k * TOKEN_BYTES;
            Token {
                left_id: u16_at(&self.map, at),
                right_id: u16_at(&self.map, at + 2),
                cost: u16_at(&self.map, at + 6) as i16,
                feature: u32_at(&self.map, at + 8),
            }
        }))
    }

    /// A token's feature string (comma-separated fields).
    pub fn feature(&self, token: &Token) -> Result<&str> {
        let start = self.features.0 + token.feature as usize;
        let rest = self.map.get(start..self.features.1).ok_or_else(|| broken(&self.path, format!("feature offset {} is past the end", token.feature)))?;
        let bytes = &rest[..rest.iter().position(|&b| b == 0).unwrap_or(rest.len())];
        std::str::from_utf8(bytes).map_err(|_| broken(&self.path, format!("the feature at {} is not UTF-8", token.feature)))
    }
}

/// The connection costs between adjacent words (`matrix.bin`).
pub struct Connections {
    map: Mmap,
    left_size: usize,
    right_size: usize,
}

impl Connections {
    /// Maps `matrix.bin` and checks its size against its two dimensions.
    pub fn open(path: &Path) -> Result<Connections> {
        let map = open_mmap(path)?;
        if map.len() < 4 {
            return Err(broken(path, "too short for a connection matrix"));
        }
        let (left_size, right_size) = (u16_at(&map, 0) as usize, u16_at(&map, 2) as usize);
        if map.len() != 4 + 2 * left_size * right_size {
            return Err(broken(path, format!("{} bytes does not hold a {left_size}×{right_size} matrix", map.len())));
        }
        Ok(Connections { map, left_size, right_size })
    }

    /// The cost of a word whose right context is `right_id` followed by one
    /// whose left context is `left_id`.
    pub fn cost(&self, right_id: u16, left_id: u16) -> i32 {
        let index = right_id as usize + self.left_size * left_id as usize;
        if index >= self.left_size * self.right_size {
            return 0;
        }
        u16_at(&self.map, 4 + 2 * index) as i16 as i32
    }

    /// (left size, right size).
    pub fn sizes(&self) -> (usize, usize) {
        (self.left_size, self.right_size)
    }
}

/// What `char.bin` says of one character: the categories it belongs to (a
/// bit set), the category its unknown words take, and how they are formed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CharInfo {
    /// Bit `c` set: the character is of category `c`.
    pub kinds: u32,
    /// The category whose unknown-word entries apply.
    pub category: u8,
    /// Unknown words of 1..=length characters are proposed.
    pub length: u8,
    /// A run of characters of the kind is proposed as one unknown word.
    pub group: bool,
    /// Unknown words are proposed even when the dictionary has words here.
    pub invoke: bool,
}

impl CharInfo {
    fn from_bits(bits: u32) -> CharInfo {
        CharInfo {
            kinds: bits & 0x3ffff,
            category: ((bits >> 18) & 0xff) as u8,
            length: ((bits >> 26) & 0xf) as u8,
            group: (bits >> 30) & 1 == 1,
            invoke: (bits >> 31) & 1 == 1,
        }
    }

    /// Whether the two share a category.
    pub fn is_kind_of(&self, other: &CharInfo) -> bool {
        self.kinds & other.kinds != 0
    }
}

/// Character categories (`char.bin`).
pub struct CharCategories {
    map: Mmap,
    names: Vec<String>,
}

impl CharCategories {
    /// Maps `char.bin` and reads its category names.
    pub fn open(path: &Path) -> Result<CharCategories> {
        let map = open_mmap(path)?;
        if map.len() < 4 {
            return Err(broken(path, "too short for a character table"));
        }
        let count = u32_at(&map, 0) as usize;
        if map.len() != 4 + 32 * count + 4 * CHAR_TABLE_LEN {
            return Err(broken(path, format!("{} bytes does not hold {count} categories and the character table", map.len())));
        }
        let names = (0..count)
            .map(|i| {
                let raw = &map[4 + 32 * i..4 + 32 * (i + 1)];
                String::from_utf8_lossy(&raw[..raw.iter().position(|&b| b == 0).unwrap_or(32)]).into_owned()
            })
            .collect();
        Ok(CharCategories { map, names })
    }

    /// The category names, by number.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The information of a UCS-2 code (MeCab reads characters past the
    /// Basic Multilingual Plane as code 0).
    pub fn info(&self, code: u32) -> CharInfo {
        let code = if code as usize >= CHAR_TABLE_LEN { 0 } else { code as usize };
        CharInfo::from_bits(u32_at(&self.map, 4 + 32 * self.names.len() + 4 * code))
    }

    /// The information of the character starting at `text[at..]`, and its
    /// length in bytes. At the end of the text MeCab reads its terminating
    /// NUL: code 0, one byte.
    pub fn info_at(&self, text: &str, at: usize) -> (CharInfo, usize) {
        match text[at..].chars().next() {
            Some(c) if (c as u32) < 0x10000 => (self.info(c as u32), c.len_utf8()),
            Some(c) => (self.info(0), c.len_utf8()),
            None => (self.info(0), 1),
        }
    }
}

/// The whole compiled dictionary of one folder.
pub struct Dictionary {
    pub words: Lexicon,
    pub unknown: Lexicon,
    pub connections: Connections,
    pub chars: CharCategories,
    /// Per category (by number): the unknown-word token run.
    pub unknown_runs: Vec<u32>,
}

/// The files a dictionary folder must hold.
pub const DICTIONARY_FILES: [&str; 4] = ["sys.dic", "unk.dic", "matrix.bin", "char.bin"];

impl Dictionary {
    /// Opens the four compiled files in `dir`, naming the one that is
    /// missing or broken.
    pub fn open(dir: &Path) -> Result<Dictionary> {
        let words = Lexicon::open(&dir.join("sys.dic"))?;
        let unknown = Lexicon::open(&dir.join("unk.dic"))?;
        let connections = Connections::open(&dir.join("matrix.bin"))?;
        let chars = CharCategories::open(&dir.join("char.bin"))?;
        let sizes = (words.left_size as usize, words.right_size as usize);
        if sizes != connections.sizes() {
            return Err(Error::invalid(
                dir.join("matrix.bin").display().to_string(),
                format!("is {}×{}, but sys.dic has {}×{} contexts", connections.sizes().0, connections.sizes().1, sizes.0, sizes.1),
            ));
        }
        let unknown_runs = chars
            .names()
            .iter()
            .map(|name| {
                unknown
                    .exact(name.as_bytes())
                    .ok_or_else(|| Error::invalid(dir.join("unk.dic").display().to_string(), format!("has no entries for the character category {name}")))
            })
            .collect::<Result<Vec<u32>>>()?;
        Ok(Dictionary { words, unknown, connections, chars, unknown_runs })
    }
}

/// Small made-up dictionaries in MeCab's compiled format, written to a
/// folder, so the reader's logic is tested without the installed one.
#[cfg(test)]
pub(crate) mod testing {
    use std::collections::BTreeMap;
    use std::path::Path;

    use super::{CHAR_TABLE_LEN, DICTIONARY_MAGIC, DICTIONARY_VERSION};

    /// A word: spelling, left and right context, cost, feature.
    pub type Entry<'a> = (&'a str, u16, u16, i16, &'a str);

    /// A lexicon file's bytes: a double-array trie (Darts' layout: a key's
    /// end at `base`, the child along byte `c` at `base + c + 1`) over the
    /// spellings, the tokens in spelling order, the features.
    pub fn lexicon(entries: &[Entry], contexts: u32) -> Vec<u8> {
        let mut by_key: BTreeMap<&[u8], Vec<&Entry>> = BTreeMap::new();
        for entry in entries {
            by_key.entry(entry.0.as_bytes()).or_default().push(entry);
        }
        let (mut tokens, mut features, mut values) = (Vec::new(), Vec::new(), Vec::new());
        for (key, group) in &by_key {
            values.push((*key, (((tokens.len() / 16) as u32) << 8) | group.len() as u32));
            for (_, left, right, cost, feature) in group {
                tokens.extend(left.to_le_bytes());
                tokens.extend(right.to_le_bytes());
                tokens.extend(0u16.to_le_bytes());
                tokens.extend(cost.to_le_bytes());
                tokens.extend((features.len() as u32).to_le_bytes());
                tokens.extend(0u32.to_le_bytes());
                features.extend(feature.as_bytes());
                features.push(0);
            }
        }
        let mut units: Vec<(i32, u32)> = vec![(0, 0); 1];
        let mut used_bases = std::collections::HashSet::new();
        place(&values, 0, 0, &mut units, &mut used_bases);
        let trie: Vec<u8> = units.iter().flat_map(|(base, check)| base.to_le_bytes().into_iter().chain(check.to_le_bytes())).collect();
        let size = 72 + trie.len() + tokens.len() + features.len();
        let header = [
            DICTIONARY_MAGIC ^ size as u32,
            DICTIONARY_VERSION,
            0,
            (tokens.len() / 16) as u32,
            contexts,
            contexts,
            trie.len() as u32,
            tokens.len() as u32,
            features.len() as u32,
            0,
        ];
        let mut out: Vec<u8> = header.iter().flat_map(|v| v.to_le_bytes()).collect();
        let mut charset = b"utf8".to_vec();
        charset.resize(32, 0);
        out.extend(charset);
        out.extend(trie);
        out.extend(tokens);
        out.extend(features);
        out
    }

    /// Places the trie node at `unit` for the keys that share its first
    /// `depth` bytes.
    fn place(keys: &[(&[u8], u32)], depth: usize, unit: usize, units: &mut Vec<(i32, u32)>, used: &mut std::collections::HashSet<usize>) {
        // Labels: 0 for a key ending here, byte + 1 for a child.
        let mut labels: BTreeMap<usize, Vec<(&[u8], u32)>> = BTreeMap::new();
        for &(key, value) in keys {
            labels.entry(key.get(depth).map_or(0, |&b| b as usize + 1)).or_default().push((key, value));
        }
        let base = (1..)
            .find(|&b| !used.contains(&b) && labels.keys().all(|&l| units.get(b + l).is_none_or(|u| u.1 == 0 && u.0 == 0) && b + l != 0))
            .expect("a free base");
        used.insert(base);
        units[unit].0 = base as i32;
        let top = base + labels.keys().max().copied().unwrap_or(0);
        if units.len() <= top {
            units.resize(top + 1, (0, 0));
        }
        for &l in labels.keys() {
            units[base + l].1 = base as u32;
            // Mark the slot taken until it is filled in.
            units[base + l].0 = i32::MIN;
        }
        for (l, group) in labels {
            if l == 0 {
                units[base].0 = -(group[0].1 as i32) - 1;
            } else {
                place(&group, depth + 1, base + l, units, used);
            }
        }
    }

    /// A connection matrix of `size`×`size` contexts with `costs` (right
    /// id, left id, cost) set and every other pair 0.
    pub fn matrix(size: u16, costs: &[(u16, u16, i16)]) -> Vec<u8> {
        let mut cells = vec![0i16; size as usize * size as usize];
        for &(right, left, cost) in costs {
            cells[right as usize + size as usize * left as usize] = cost;
        }
        [size, size].iter().flat_map(|v| v.to_le_bytes()).chain(cells.iter().flat_map(|v| v.to_le_bytes())).collect()
    }

    /// Categories: DEFAULT, SPACE, HIRAGANA (invoke 0, group 0, length 2),
    /// KATAKANA (invoke 1, group 1, length 0); U+0020 is a space, ぁ–ゖ
    /// hiragana, ァ–ヺ and ー katakana.
    pub const CATEGORIES: [&str; 4] = ["DEFAULT", "SPACE", "HIRAGANA", "KATAKANA"];

    pub fn char_table() -> Vec<u8> {
        let bits = |category: u32, length: u32, group: u32, invoke: u32| (1 << category) | (category << 18) | (length << 26) | (group << 30) | (invoke << 31);
        let mut out: Vec<u8> = (CATEGORIES.len() as u32).to_le_bytes().to_vec();
        for name in CATEGORIES {
            let mut raw = name.as_bytes().to_vec();
            raw.resize(32, 0);
            out.extend(raw);
        }
        for code in 0..CHAR_TABLE_LEN as u32 {
            let info = match code {
                0x20 => bits(1, 0, 1, 0),
                0x3041..=0x3096 => bits(2, 2, 0, 0),
                0x30a1..=0x30fa | 0x30fc => bits(3, 0, 1, 1),
                _ => bits(0, 1, 0, 1),
            };
            out.extend(info.to_le_bytes());
        }
        out
    }

    /// Writes a dictionary folder: `words` in sys.dic, one unknown-word
    /// entry per category in unk.dic (contexts 1, costs 10000; feature
    /// `UNK,<category>`), a `contexts`-square matrix with `costs`.
    pub fn write(dir: &Path, words: &[Entry], contexts: u16, costs: &[(u16, u16, i16)]) {
        let features: Vec<String> = CATEGORIES.iter().map(|c| format!("UNK,{c}")).collect();
        let unknown: Vec<Entry> = CATEGORIES.iter().zip(&features).map(|(c, f)| (*c, 1, 1, 10000, f.as_str())).collect();
        std::fs::write(dir.join("sys.dic"), lexicon(words, contexts as u32)).unwrap();
        std::fs::write(dir.join("unk.dic"), lexicon(&unknown, contexts as u32)).unwrap();
        std::fs::write(dir.join("matrix.bin"), matrix(contexts, costs)).unwrap();
        std::fs::write(dir.join("char.bin"), char_table()).unwrap();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_written_dictionary_reads_back() {
        let dir = tempfile::tempdir().unwrap();
        testing::write(dir.path(), &[("あ", 2, 3, 100, "A"), ("あい", 2, 2, 50, "AI"), ("あい", 3, 3, 60, "AI2"), ("い", 2, 2, 10, "I")], 4, &[(3, 2, -7)]);
        let dictionary = Dictionary::open(dir.path()).unwrap();
        let mut found = Vec::new();
        dictionary.words.prefixes("あいう".as_bytes(), &mut found);
        let lengths: Vec<usize> = found.iter().map(|f| f.0).collect();
        assert_eq!(lengths, vec![3, 6]);
        let ai: Vec<Token> = dictionary.words.tokens(found[1].1).unwrap().collect();
        assert_eq!(ai.len(), 2);
        assert_eq!(dictionary.words.feature(&ai[1]).unwrap(), "AI2");
        assert_eq!(dictionary.connections.cost(3, 2), -7);
        assert_eq!(dictionary.chars.info('カ' as u32).category, 3);
        assert!(dictionary.chars.info('カ' as u32).invoke);
        assert_eq!(dictionary.chars.info(0x1F600).category, 0);
        assert_eq!(dictionary.unknown_runs.len(), 4);
    }

    #[test]
    fn a_truncated_file_is_refused_by_name() {
        let dir = tempfile::tempdir().unwrap();
        testing::write(dir.path(), &[("あ", 1, 1, 1, "A")], 2, &[]);
        let bytes = std::fs::read(dir.path().join("sys.dic")).unwrap();
        std::fs::write(dir.path().join("sys.dic"), &bytes[..bytes.len() - 1]).unwrap();
        let err = Dictionary::open(dir.path()).err().unwrap().to_string();
        assert!(err.contains("sys.dic") && err.contains("magic"), "{err}");
    }
}
