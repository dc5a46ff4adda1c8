//! Just enough of the ONNX file format to read a model's weights at install
//! time: the graph's nodes (names, op types, inputs) and its initializers
//! (named tensors), decoded with prost from the message fields of
//! `onnx.proto` that the installer needs. Nothing here runs a graph.

use std::collections::HashMap;
use std::path::Path;

use prost::Message;

use revoice_core::error::{Error, Result};

#[derive(Clone, PartialEq, Message)]
struct ModelProto {
    #[prost(message, optional, tag = "7")]
    graph: Option<GraphProto>,
}

#[derive(Clone, PartialEq, Message)]
struct GraphProto {
    #[prost(message, repeated, tag = "1")]
    node: Vec<NodeProto>,
    #[prost(message, repeated, tag = "5")]
    initializer: Vec<TensorProto>,
}

/// A graph node: which op, its name, what it reads and writes.
#[derive(Clone, PartialEq, Message)]
pub struct NodeProto {
    #[prost(string, repeated, tag = "1")]
    pub input: Vec<String>,
    #[prost(string, repeated, tag = "2")]
    pub output: Vec<String>,
    #[prost(string, tag = "3")]
    pub name: String,
    #[prost(string, tag = "4")]
    pub op_type: String,
    #[prost(message, repeated, tag = "5")]
    pub attribute: Vec<AttributeProto>,
}

/// A node attribute; only tensor-valued ones (`Constant`'s `value`) matter here.
#[derive(Clone, PartialEq, Message)]
pub struct AttributeProto {
    #[prost(string, tag = "1")]
    pub name: String,
    #[prost(message, optional, tag = "5")]
    pub t: Option<TensorProto>,
}

/// A stored tensor.
#[derive(Clone, PartialEq, Message)]
pub struct TensorProto {
    #[prost(int64, repeated, tag = "1")]
    pub dims: Vec<i64>,
    #[prost(int32, tag = "2")]
    pub data_type: i32,
    #[prost(float, repeated, tag = "4")]
    pub float_data: Vec<f32>,
    #[prost(int32, repeated, tag = "5")]
    pub int32_data: Vec<i32>,
    #[prost(int64, repeated, tag = "7")]
    pub int64_data: Vec<i64>,
    #[prost(string, tag = "8")]
    pub name: String,
    #[prost(bytes = "vec", tag = "9")]
    pub raw_data: Vec<u8>,
}

/// ONNX element types the installer reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ElementType {
    F32,
    U8,
    I8,
    I32,
    I64,
}

impl ElementType {
    fn from_onnx(code: i32) -> Option<ElementType> {
        match code {
            1 => Some(ElementType::F32),
            2 => Some(ElementType::U8),
            3 => Some(ElementType::I8),
            6 => Some(ElementType::I32),
            7 => Some(ElementType::I64),
            _ => None,
        }
    }
}

/// A tensor's values widened to f32 (quantised bytes keep their integer value).
#[derive(Debug, Clone, PartialEq)]
pub struct Tensor {
    pub dims: Vec<usize>,
    pub element_type: ElementType,
    pub values: Vec<f32>,
}

impl Tensor {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// True when the tensor holds no elements.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
}

/// The parts of an ONNX model the installer reads.
pub struct OnnxModel {
    pub nodes: Vec<NodeProto>,
    /// Initializers and `Constant` node outputs, by name.
    pub tensors: HashMap<String, TensorProto>,
}

fn bad(path: &Path, reason: impl std::fmt::Display) -> Error {
    Error::InvalidInput { input: path.display().to_string(), reason: reason.to_string() }
}

impl OnnxModel {
    /// Reads and decodes an ONNX file.
    pub fn read(path: &Path) -> Result<OnnxModel> {
        let bytes = std::fs::read(path).map_err(|e| Error::io("read", path, e))?;
        let model = ModelProto::decode(bytes.as_slice()).map_err(|e| bad(path, format!("not an ONNX model: {e}")))?;
        drop(bytes);
        let graph = model.graph.ok_or_else(|| bad(path, "the ONNX model has no graph"))?;
        let mut tensors: HashMap<String, TensorProto> = graph.initializer.into_iter().map(|t| (t.name.clone(), t)).collect();
        for node in &graph.node {
            if node.op_type != "Constant" {
                continue;
            }
            if let (Some(out), Some(t)) = (node.output.first(), node.attribute.iter().find(|a| a.name == "value").and_then(|a| a.t.clone())) {
                tensors.insert(out.clone(), t);
            }
        }
        Ok(OnnxModel { nodes: graph.node, tensors })
    }

    /// The named tensor, decoded.
    pub fn tensor(&self, name: &str) -> std::result::Result<Tensor, String> {
        let t = self.tensors.get(name).ok_or_else(|| format!("no tensor named {name}"))?;
        decode_tensor(t).map_err(|e| format!("tensor {name}: {e}"))
    }
}

/// Decodes a tensor's values from raw bytes or typed fields.
pub fn decode_tensor(t: &TensorProto) -> std::result::Result<Tensor, String> {
    let element_type = ElementType::from_onnx(t.data_type).ok_or_else(|| format!("unsupported data type {}", t.data_type))?;
    let dims: Vec<usize> = t.dims.iter().map(|&d| d as usize).collect();
    let count: usize = dims.iter().product();
    let raw = &t.raw_data;
    let values: Vec<f32> = if !raw.is_empty() {
        match element_type {
            ElementType::F32 => raw.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect(),
            ElementType::U8 => raw.iter().map(|&b| b as f32).collect(),
            ElementType::I8 => raw.iter().map(|&b| b as i8 as f32).collect(),
            ElementType::I32 => raw.chunks_exact(4).map(|c| i32::from_le_bytes(c.try_into().unwrap()) as f32).collect(),
            ElementType::I64 => raw.chunks_exact(8).map(|c| i64::from_le_bytes(c.try_into().unwrap()) as f32).collect(),
        }
    } else {
        match element_type {
            ElementType::F32 => t.float_data.clone(),
            // ONNX stores uint8/int8/int32 in int32_data when not raw.
            ElementType::U8 | ElementType::I8 | ElementType::I32 => t.int32_data.iter().map(|&v| v as f32).collect(),
            ElementType::I64 => t.int64_data.iter().map(|&v| v as f32).collect(),
        }
    };
    if values.len() != count {
        return Err(format!("holds {} values for shape {dims:?}", values.len()));
    }
    Ok(Tensor { dims, element_type, values })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tensor(name: &str, dims: &[i64], data_type: i32, raw: Vec<u8>) -> TensorProto {
        TensorProto { dims: dims.to_vec(), data_type, name: name.into(), raw_data: raw, ..Default::default() }
    }

    #[test]
    fn a_model_round_trips_through_the_wire_format() {
        let weights = tensor("w_quantized", &[2, 2], 3, vec![0xff, 1, 2, 0x80]);
        let scale = TensorProto { dims: vec![], data_type: 1, name: "w_scale".into(), float_data: vec![0.5], ..Default::default() };
        let constant = NodeProto {
            output: vec!["c0".into()],
            name: "/c/Constant".into(),
            op_type: "Constant".into(),
            attribute: vec![AttributeProto { name: "value".into(), t: Some(tensor("", &[1], 2, vec![200])) }],
            ..Default::default()
        };
        let model = ModelProto { graph: Some(GraphProto { node: vec![constant], initializer: vec![weights, scale] }) };
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.onnx");
        std::fs::write(&path, model.encode_to_vec()).unwrap();

        let read = OnnxModel::read(&path).unwrap();
        let w = read.tensor("w_quantized").unwrap();
        assert_eq!(w.dims, vec![2, 2]);
        assert_eq!(w.values, vec![-1.0, 1.0, 2.0, -128.0]);
        assert_eq!(read.tensor("w_scale").unwrap().values, vec![0.5]);
        assert_eq!(read.tensor("c0").unwrap().values, vec![200.0]);
        assert!(read.tensor("nope").unwrap_err().contains("nope"));
    }

    #[test]
    fn a_file_that_is_not_onnx_is_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("voice.mp3");
        std::fs::write(&path, b"ID3\x04\x00 definitely audio, not a model").unwrap();
        let err = OnnxModel::read(&path).err().unwrap();
        assert!(err.to_string().contains("voice.mp3"), "{err}");
    }
}
