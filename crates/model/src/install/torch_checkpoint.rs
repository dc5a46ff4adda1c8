//! Reads Resemblyzer's `pretrained.pt` at install time and writes the
//! encoder's weights as `encoder.safetensors`.
//!
//! The file is a legacy (pre-zip) torch checkpoint: five pickles in a row —
//! a magic number, the protocol version, system info, the checkpoint
//! object (a dict whose tensors are persistent ids naming storages), and the
//! list of storage keys — then every storage as a little-endian `i64`
//! element count followed by its raw data, in the order of that list.
//! candle's `.pt` reader only opens the zip format, so this module walks the
//! pickles with `candle_core::pickle::Stack` and reads the storages itself.
//! Only `model_state`'s LSTM and linear weights are kept: the GE2E training
//! parameters (`similarity_weight`, `similarity_bias`) and the optimizer's
//! state are skipped.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use candle_core::pickle::{Object, Stack};
use safetensors::tensor::{Dtype, TensorView};

use crate::speaker::encoder::Config;
use revoice_core::error::{Error, Result};

/// The bytes of the first pickle of every legacy torch file: protocol 2,
/// the magic number `0x1950a86a20f9469cfc6c`, stop.
const LEGACY_MAGIC: [u8; 15] = [0x80, 0x02, 0x8a, 0x0a, 0x6c, 0xfc, 0x9c, 0x46, 0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19, 0x2e];

/// A tensor read from the checkpoint, contiguous, row-major.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckpointTensor {
    pub shape: Vec<usize>,
    pub data: Vec<f32>,
}

fn bad(path: &Path, reason: impl Into<String>) -> Error {
    Error::InvalidInput { input: path.display().to_string(), reason: reason.into() }
}

/// Every f32 tensor of the state dict under `key` (or the top-level dict
/// when it holds tensors itself) of a legacy torch checkpoint. `path`
/// names the file in errors.
pub fn read_legacy_state_dict(bytes: &[u8], key: &str, path: &Path) -> Result<BTreeMap<String, CheckpointTensor>> {
    if bytes.starts_with(b"PK\x03\x04") {
        return Err(bad(path, "a zip-format torch checkpoint; expected the legacy format Resemblyzer 0.1.4 ships"));
    }
    if !bytes.starts_with(&LEGACY_MAGIC) {
        return Err(bad(path, "not a legacy torch checkpoint (its magic number is missing)"));
    }
    let mut rest = &bytes[LEGACY_MAGIC.len()..];
    let mut next_pickle = |what: &str| -> Result<Object> {
        let mut stack = Stack::empty();
        stack.read_loop(&mut rest).and_then(|_| stack.finalize()).map_err(|e| bad(path, format!("cannot read the {what} pickle: {e}")))
    };
    let _protocol = next_pickle("protocol version")?;
    let sys_info = next_pickle("system info")?;
    if let Object::Dict(items) = &sys_info {
        let little = items.iter().find(|(k, _)| *k == Object::Unicode("little_endian".into())).map(|(_, v)| v.clone());
        if little == Some(Object::Bool(false)) {
            return Err(bad(path, "a big-endian checkpoint, which this reader does not convert"));
        }
    }
    let checkpoint = next_pickle("checkpoint")?;
    let keys = match next_pickle("storage key")? {
        Object::List(keys) => {
            keys.into_iter().map(|k| k.unicode().map_err(|o| bad(path, format!("a storage key is {o:?}, not a string")))).collect::<Result<Vec<String>>>()?
        }
        other => return Err(bad(path, format!("the storage key list is {other:?}"))),
    };

    // Element size of every storage, from the persistent ids anywhere in the checkpoint.
    let mut storage_types = HashMap::new();
    collect_storages(&checkpoint, &mut storage_types);
    let mut storages: HashMap<String, &[u8]> = HashMap::new();
    let mut data = rest;
    for k in &keys {
        let class = storage_types.get(k).ok_or_else(|| bad(path, format!("storage {k} is listed but never used")))?;
        let width = element_size(class).ok_or_else(|| bad(path, format!("storage {k} has the unknown type {class}")))?;
        if data.len() < 8 {
            return Err(bad(path, format!("truncated: storage {k} is missing")));
        }
        let count = i64::from_le_bytes(data[..8].try_into().expect("8 bytes")) as usize;
        let size =
            count.checked_mul(width).filter(|s| *s <= data.len() - 8).ok_or_else(|| bad(path, format!("truncated: storage {k} needs {count} elements")))?;
        storages.insert(k.clone(), &data[8..8 + size]);
        data = &data[8 + size..];
    }

    let entries = match checkpoint {
        Object::Dict(items) => {
            let nested = items.iter().find(|(k, _)| *k == Object::Unicode(key.to_string())).map(|(_, v)| v.clone());
            match nested {
                Some(Object::Dict(state)) => state,
                Some(other) => return Err(bad(path, format!("{key} is not a dict: {other:?}"))),
                None => items,
            }
        }
        other => return Err(bad(path, format!("the checkpoint is not a dict: {other:?}"))),
    };
    let mut tensors = BTreeMap::new();
    for (name, value) in entries {
        let Object::Unicode(name) = name else { continue };
        if let Some(tensor) = rebuild_tensor(value, &storage_types, &storages).map_err(|reason| bad(path, format!("tensor {name}: {reason}")))? {
            tensors.insert(name, tensor);
        }
    }
    Ok(tensors)
}

fn collect_storages(obj: &Object, out: &mut HashMap<String, String>) {
    match obj {
        Object::PersistentLoad(id) => {
            if let Object::Tuple(parts) = id.as_ref() {
                if let (Some(Object::Class { class_name, .. }), Some(Object::Unicode(key))) = (parts.get(1), parts.get(2)) {
                    out.insert(key.clone(), class_name.clone());
                }
            }
        }
        Object::Tuple(v) | Object::List(v) => v.iter().for_each(|o| collect_storages(o, out)),
        Object::Dict(items) => items.iter().for_each(|(k, v)| {
            collect_storages(k, out);
            collect_storages(v, out)
        }),
        Object::Reduce { callable, args } | Object::Build { callable, args } => {
            collect_storages(callable, out);
            collect_storages(args, out)
        }
        _ => {}
    }
}

fn element_size(class: &str) -> Option<usize> {
    Some(match class {
        "DoubleStorage" | "LongStorage" => 8,
        "FloatStorage" | "IntStorage" => 4,
        "HalfStorage" | "BFloat16Storage" | "ShortStorage" => 2,
        "ByteStorage" | "CharStorage" | "BoolStorage" => 1,
        _ => return None,
    })
}

fn as_usize(obj: &Object) -> Option<usize> {
    match obj {
        Object::Int(v) if *v >= 0 => Some(*v as usize),
        Object::Long(v) if *v >= 0 => Some(*v as usize),
        _ => None,
    }
}

fn usizes(obj: &Object) -> Option<Vec<usize>> {
    match obj {
        Object::Tuple(v) => v.iter().map(as_usize).collect(),
        _ => None,
    }
}

/// `_rebuild_tensor_v2(storage, offset, size, stride, ...)` → the tensor,
/// for f32 storages; `None` for anything that is not a tensor.
fn rebuild_tensor(value: Object, types: &HashMap<String, String>, storages: &HashMap<String, &[u8]>) -> std::result::Result<Option<CheckpointTensor>, String> {
    let Object::Reduce { callable, args } = value else { return Ok(None) };
    match callable.as_ref() {
        Object::Class { module_name, class_name } if module_name == "torch._utils" && class_name == "_rebuild_tensor_v2" => {}
        _ => return Ok(None),
    }
    let Object::Tuple(args) = *args else { return Err("its arguments are not a tuple".into()) };
    let key = match args.first() {
        Some(Object::PersistentLoad(id)) => match id.as_ref() {
            Object::Tuple(parts) => match parts.get(2) {
                Some(Object::Unicode(k)) => k.clone(),
                _ => return Err("its storage id has no key".into()),
            },
            _ => return Err("its storage id is not a tuple".into()),
        },
        _ => return Err("it has no storage".into()),
    };
    if types.get(&key).map(String::as_str) != Some("FloatStorage") {
        return Err(format!("storage {key} is {:?}, not FloatStorage", types.get(&key)));
    }
    let offset = args.get(1).and_then(as_usize).ok_or("no storage offset")?;
    let shape = args.get(2).and_then(usizes).ok_or("no size")?;
    let stride = args.get(3).and_then(usizes).ok_or("no stride")?;
    if shape.len() != stride.len() {
        return Err("size and stride disagree".into());
    }
    let raw = storages.get(&key).ok_or_else(|| format!("storage {key} is missing"))?;
    let values = raw.len() / 4;
    let count: usize = shape.iter().product();
    let mut data = Vec::with_capacity(count);
    let mut index = vec![0usize; shape.len()];
    for _ in 0..count {
        let at = offset + index.iter().zip(&stride).map(|(i, s)| i * s).sum::<usize>();
        if at >= values {
            return Err(format!("reads past the end of storage {key}"));
        }
        data.push(f32::from_le_bytes(raw[at * 4..at * 4 + 4].try_into().expect("4 bytes")));
        for d in (0..shape.len()).rev() {
            index[d] += 1;
            if index[d] < shape[d] {
                break;
            }
            index[d] = 0;
        }
    }
    Ok(Some(CheckpointTensor { shape, data }))
}

/// The tensors the encoder loads, with their shapes for `cfg`.
pub fn expected_tensors(cfg: &Config) -> Vec<(String, Vec<usize>)> {
    let mut out = Vec::new();
    for layer in 0..cfg.layers {
        let input = if layer == 0 { cfg.mel_bands } else { cfg.hidden };
        out.push((format!("lstm.weight_ih_l{layer}"), vec![4 * cfg.hidden, input]));
        out.push((format!("lstm.weight_hh_l{layer}"), vec![4 * cfg.hidden, cfg.hidden]));
        out.push((format!("lstm.bias_ih_l{layer}"), vec![4 * cfg.hidden]));
        out.push((format!("lstm.bias_hh_l{layer}"), vec![4 * cfg.hidden]));
    }
    out.push(("linear.weight".into(), vec![cfg.embedding, cfg.hidden]));
    out.push(("linear.bias".into(), vec![cfg.embedding]));
    out
}

/// Converts `pretrained.pt` into the engine's `encoder.safetensors`: the
/// encoder's tensors under their state-dict names, f32, shapes checked.
pub fn convert_checkpoint(pt: &Path, out: &Path) -> Result<()> {
    let bytes = std::fs::read(pt).map_err(|e| Error::io("read", pt, e))?;
    let tensors = read_legacy_state_dict(&bytes, "model_state", pt)?;
    let mut blobs = Vec::new();
    for (name, shape) in expected_tensors(&Config::resemblyzer()) {
        let t = tensors.get(&name).ok_or_else(|| bad(pt, format!("has no {name}: not Resemblyzer's encoder")))?;
        if t.shape != shape {
            return Err(bad(pt, format!("{name} has shape {:?}, the encoder needs {shape:?}", t.shape)));
        }
        if !t.data.iter().all(|v| v.is_finite()) {
            return Err(bad(pt, format!("{name} has non-finite values")));
        }
        let bytes: Vec<u8> = t.data.iter().flat_map(|v| v.to_le_bytes()).collect();
        blobs.push((name, shape, bytes));
    }
    let views: HashMap<String, TensorView> =
        blobs.iter().map(|(name, shape, bytes)| (name.clone(), TensorView::new(Dtype::F32, shape.clone(), bytes).expect("shape matches the data"))).collect();
    super::write_safetensors(out, views)
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/ge2e/legacy-checkpoint.pt");

    #[test]
    fn a_legacy_checkpoint_yields_its_tensors_including_strided_views() {
        // Made by scripts/dev/ge2e_reference.py legacy-fixture: model_state holds
        // `a` = arange(6).reshape(2, 3) and `b` = a 3x2 transposed view of another storage; an
        // optimizer state holds a long tensor and floats.
        let bytes = std::fs::read(FIXTURE).unwrap();
        let tensors = read_legacy_state_dict(&bytes, "model_state", Path::new(FIXTURE)).unwrap();
        assert_eq!(tensors.len(), 2, "{tensors:?}");
        assert_eq!(tensors["a"], CheckpointTensor { shape: vec![2, 3], data: vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0] });
        assert_eq!(tensors["b"], CheckpointTensor { shape: vec![3, 2], data: vec![10.0, 13.0, 11.0, 14.0, 12.0, 15.0] });
    }

    #[test]
    fn a_cut_checkpoint_is_reported_as_truncated() {
        let bytes = std::fs::read(FIXTURE).unwrap();
        let err = read_legacy_state_dict(&bytes[..bytes.len() - 10], "model_state", Path::new("cut.pt")).unwrap_err().to_string();
        assert!(err.contains("cut.pt") && err.contains("truncated"), "{err}");
    }

    #[test]
    fn a_file_that_is_not_a_legacy_checkpoint_is_named() {
        let err = read_legacy_state_dict(b"PK\x03\x04rest", "model_state", Path::new("new.pt")).unwrap_err().to_string();
        assert!(err.contains("new.pt") && err.contains("zip-format"), "{err}");
        let err = read_legacy_state_dict(b"hello", "model_state", Path::new("x.pt")).unwrap_err().to_string();
        assert!(err.contains("magic"), "{err}");
    }

    #[test]
    fn the_encoder_has_1_42_million_parameters() {
        let total: usize = expected_tensors(&Config::resemblyzer()).iter().map(|(_, s)| s.iter().product::<usize>()).sum();
        assert_eq!(total, 1_423_616);
    }
}
