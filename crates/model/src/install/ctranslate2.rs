//! Reads a CTranslate2 `model.bin` (binary format version 6) and writes its
//! weight tensors as safetensors. The format, little-endian throughout: a
//! u32 version, the spec name and a u32 spec revision, a u32 variable count,
//! then per variable its name, a u8 rank, u32 dimensions, a u8 data type, a
//! u32 byte count and the bytes; last a u32 alias count and (alias, target)
//! name pairs. Strings are a u16 byte length (with a trailing NUL) and bytes.
//! Rank-0 variables are the spec's settings (head counts, flags), not weights.

use std::collections::BTreeMap;
use std::io::{BufReader, Read};
use std::path::Path;

use revoice_core::error::{Error, Result};
use safetensors::tensor::{Dtype, TensorView};

/// The one binary format version this reader knows.
pub const FORMAT_VERSION: u32 = 6;

/// A CTranslate2 data type, as stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ct2Dtype {
    F32,
    I8,
    I16,
    I32,
    F16,
    Bf16,
}

impl Ct2Dtype {
    fn from_code(code: u8) -> Option<Ct2Dtype> {
        Some(match code {
            0 => Ct2Dtype::F32,
            1 => Ct2Dtype::I8,
            2 => Ct2Dtype::I16,
            3 => Ct2Dtype::I32,
            4 => Ct2Dtype::F16,
            5 => Ct2Dtype::Bf16,
            _ => return None,
        })
    }

    fn bytes(self) -> usize {
        match self {
            Ct2Dtype::I8 => 1,
            Ct2Dtype::I16 | Ct2Dtype::F16 | Ct2Dtype::Bf16 => 2,
            Ct2Dtype::F32 | Ct2Dtype::I32 => 4,
        }
    }

    fn safetensors(self) -> Dtype {
        match self {
            Ct2Dtype::F32 => Dtype::F32,
            Ct2Dtype::I8 => Dtype::I8,
            Ct2Dtype::I16 => Dtype::I16,
            Ct2Dtype::I32 => Dtype::I32,
            Ct2Dtype::F16 => Dtype::F16,
            Ct2Dtype::Bf16 => Dtype::BF16,
        }
    }
}

/// One stored variable.
#[derive(Debug, Clone)]
pub struct Ct2Variable {
    pub shape: Vec<usize>,
    pub dtype: Ct2Dtype,
    pub data: Vec<u8>,
}

impl Ct2Variable {
    /// A rank-0 integer setting (a head count, a flag).
    pub fn scalar(&self) -> Option<i64> {
        if !self.shape.is_empty() {
            return None;
        }
        Some(match self.dtype {
            Ct2Dtype::I8 => self.data[0] as i8 as i64,
            Ct2Dtype::I16 => i16::from_le_bytes([self.data[0], self.data[1]]) as i64,
            Ct2Dtype::I32 => i32::from_le_bytes(self.data[..4].try_into().ok()?) as i64,
            _ => return None,
        })
    }
}

/// A whole model file.
#[derive(Debug, Clone)]
pub struct Ct2Model {
    pub spec: String,
    pub revision: u32,
    /// Variables by their `/`-separated name.
    pub variables: BTreeMap<String, Ct2Variable>,
    /// Alias → the variable it shares (tied weights).
    pub aliases: BTreeMap<String, String>,
}

impl Ct2Model {
    /// Reads `path`; a truncated or foreign file is an error naming it.
    pub fn read(path: &Path) -> Result<Ct2Model> {
        let file = std::fs::File::open(path).map_err(|e| Error::io("open", path, e))?;
        let mut r = Reader { inner: BufReader::with_capacity(1 << 20, file), path };
        let version = r.u32()?;
        if version != FORMAT_VERSION {
            return Err(r.bad(format!("is CTranslate2 format version {version}; this reader knows version {FORMAT_VERSION}")));
        }
        let spec = r.string()?;
        let revision = r.u32()?;
        let count = r.u32()?;
        let mut variables = BTreeMap::new();
        for _ in 0..count {
            let name = r.string()?;
            let rank = r.u8()? as usize;
            let shape = (0..rank).map(|_| r.u32().map(|d| d as usize)).collect::<Result<Vec<_>>>()?;
            let code = r.u8()?;
            let dtype = Ct2Dtype::from_code(code).ok_or_else(|| r.bad(format!("variable {name} has unknown data type {code}")))?;
            let bytes = r.u32()? as usize;
            let expected = shape.iter().product::<usize>() * dtype.bytes();
            if bytes != expected {
                return Err(r.bad(format!("variable {name} holds {bytes} bytes, its shape {shape:?} needs {expected}")));
            }
            let data = r.bytes(bytes)?;
            variables.insert(name, Ct2Variable { shape, dtype, data });
        }
        let mut aliases = BTreeMap::new();
        let alias_count = r.u32()?;
        for _ in 0..alias_count {
            let alias = r.string()?;
            let target = r.string()?;
            aliases.insert(alias, target);
        }
        Ok(Ct2Model { spec, revision, variables, aliases })
    }

    /// The variable `name`, or an error saying the file lacks it.
    pub fn variable(&self, name: &str) -> Result<&Ct2Variable> {
        self.variables.get(name).ok_or_else(|| Error::InvalidInput { input: format!("{} model", self.spec), reason: format!("has no variable {name}") })
    }

    /// Writes every tensor of rank ≥ 1 to `out` as safetensors, names with
    /// `.` for `/`, data types kept. Deterministic: names in order, no metadata.
    pub fn write_safetensors(&self, out: &Path) -> Result<()> {
        let mut views = Vec::new();
        for (name, v) in self.variables.iter().filter(|(_, v)| !v.shape.is_empty()) {
            let view =
                TensorView::new(v.dtype.safetensors(), v.shape.clone(), &v.data).map_err(|e| Error::internal(format!("tensor {name}"), e.to_string()))?;
            views.push((name.replace('/', "."), view));
        }
        safetensors::serialize_to_file(views, None, out).map_err(|e| Error::internal(format!("writing {}", out.display()), e.to_string()))
    }
}

struct Reader<'a> {
    inner: BufReader<std::fs::File>,
    path: &'a Path,
}

impl Reader<'_> {
    fn bad(&self, reason: String) -> Error {
        Error::InvalidInput { input: self.path.display().to_string(), reason }
    }

    fn bytes(&mut self, n: usize) -> Result<Vec<u8>> {
        let mut buf = vec![0u8; n];
        self.inner.read_exact(&mut buf).map_err(|_| self.bad("ends early: the file is truncated or not a CTranslate2 model".into()))?;
        Ok(buf)
    }

    fn u8(&mut self) -> Result<u8> {
        Ok(self.bytes(1)?[0])
    }

    fn u32(&mut self) -> Result<u32> {
        let b = self.bytes(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn string(&mut self) -> Result<String> {
        let b = self.bytes(2)?;
        let n = u16::from_le_bytes([b[0], b[1]]) as usize;
        let raw = self.bytes(n)?;
        let text = raw.strip_suffix(&[0]).unwrap_or(&raw);
        String::from_utf8(text.to_vec()).map_err(|_| self.bad("holds a name that is not UTF-8".into()))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    fn string(out: &mut Vec<u8>, s: &str) {
        out.extend_from_slice(&((s.len() + 1) as u16).to_le_bytes());
        out.extend_from_slice(s.as_bytes());
        out.push(0);
    }

    /// A small model file: one f16 matrix, one i16 setting, one alias.
    pub(crate) fn tiny_model_bytes() -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(&6u32.to_le_bytes());
        string(&mut out, "WhisperSpec");
        out.extend_from_slice(&3u32.to_le_bytes());
        out.extend_from_slice(&2u32.to_le_bytes());
        string(&mut out, "decoder/embeddings/weight");
        out.push(2);
        out.extend_from_slice(&2u32.to_le_bytes());
        out.extend_from_slice(&3u32.to_le_bytes());
        out.push(4);
        out.extend_from_slice(&12u32.to_le_bytes());
        // 1, 2, 3, -1, 0.5, 0.25 as f16.
        for v in [0x3C00u16, 0x4000, 0x4200, 0xBC00, 0x3800, 0x3400] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        string(&mut out, "decoder/num_heads");
        out.push(0);
        out.push(2);
        out.extend_from_slice(&2u32.to_le_bytes());
        out.extend_from_slice(&8i16.to_le_bytes());
        out.extend_from_slice(&1u32.to_le_bytes());
        string(&mut out, "decoder/projection/weight");
        string(&mut out, "decoder/embeddings/weight");
        out
    }

    #[test]
    fn a_model_file_reads_back_its_tensors_settings_and_aliases() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("model.bin");
        std::fs::write(&path, tiny_model_bytes()).unwrap();
        let model = Ct2Model::read(&path).unwrap();
        assert_eq!((model.spec.as_str(), model.revision), ("WhisperSpec", 3));
        let emb = model.variable("decoder/embeddings/weight").unwrap();
        assert_eq!((emb.shape.clone(), emb.dtype), (vec![2, 3], Ct2Dtype::F16));
        assert_eq!(model.variable("decoder/num_heads").unwrap().scalar(), Some(8));
        assert_eq!(model.aliases["decoder/projection/weight"], "decoder/embeddings/weight");

        let out = dir.path().join("w.safetensors");
        model.write_safetensors(&out).unwrap();
        let bytes = std::fs::read(&out).unwrap();
        let st = safetensors::SafeTensors::deserialize(&bytes).unwrap();
        assert_eq!(st.names(), vec!["decoder.embeddings.weight"]);
        assert_eq!(st.tensor("decoder.embeddings.weight").unwrap().shape(), &[2, 3]);
    }

    #[test]
    fn a_truncated_model_file_is_refused_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("model.bin");
        let bytes = tiny_model_bytes();
        std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
        let err = Ct2Model::read(&path).unwrap_err().to_string();
        assert!(err.contains("model.bin") && err.contains("truncated"), "{err}");
        std::fs::write(&path, b"not a model at all").unwrap();
        let err = Ct2Model::read(&path).unwrap_err().to_string();
        assert!(err.contains("format version"), "{err}");
    }
}
