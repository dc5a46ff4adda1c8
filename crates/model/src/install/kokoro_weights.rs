//! Reads Kokoro's int8 ONNX export and writes its weights as f32 tensors
//! named after the model's modules (the names the candle model loads).
//!
//! Dequantisation is `(q - zero_point) * scale`, with the zero point the
//! consuming node actually reads (the export shares zero points between
//! layers). Linear weights are stored `[in, out]` and come out `[out, in]`;
//! LSTM weights come out per direction in torch's gate order.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use safetensors::tensor::{Dtype, TensorView};

use crate::onnx::{ElementType, NodeProto, OnnxModel, Tensor};
use revoice_core::error::{Error, Result};

/// The weights the engine expects: key and shape, one per line.
const EXPECTED_TSV: &str = include_str!("kokoro_weights.tsv");

/// Key → shape of every weight the converted file must hold.
pub fn expected_weights() -> BTreeMap<String, Vec<usize>> {
    EXPECTED_TSV
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let (key, shape) = l.split_once('\t').expect("weights.tsv: key<TAB>shape");
            let dims = shape.split(',').map(|d| d.parse().expect("weights.tsv: numeric dims")).collect();
            (key.to_string(), dims)
        })
        .collect()
}

/// Converts the ONNX export at `onnx` into a safetensors file at `out`,
/// checking every key and shape against [`expected_weights`].
pub fn convert_onnx(onnx: &Path, out: &Path) -> Result<()> {
    let model = OnnxModel::read(onnx)?;
    let bad = |reason: String| Error::InvalidInput { input: onnx.display().to_string(), reason };
    let weights = extract(&model).map_err(bad)?;
    drop(model);
    check_against_expected(&weights).map_err(bad)?;
    // Each tensor's f32 values are freed as its bytes are made.
    let bytes: Vec<(String, Vec<usize>, Vec<u8>)> =
        weights.into_iter().map(|(k, (dims, v))| (k, dims, v.iter().flat_map(|x| x.to_le_bytes()).collect())).collect();
    let views: HashMap<String, TensorView> = bytes
        .iter()
        .map(|(k, dims, data)| {
            let view = TensorView::new(Dtype::F32, dims.clone(), data).expect("shape matches data");
            (k.clone(), view)
        })
        .collect();
    super::write_safetensors(out, views)
}

/// Key → (shape, values).
pub type Weights = BTreeMap<String, (Vec<usize>, Vec<f32>)>;

fn check_against_expected(weights: &Weights) -> std::result::Result<(), String> {
    let expected = expected_weights();
    let missing: Vec<_> = expected.keys().filter(|k| !weights.contains_key(*k)).collect();
    let extra: Vec<_> = weights.keys().filter(|k| !expected.contains_key(*k)).collect();
    let wrong: Vec<_> =
        expected.iter().filter_map(|(k, dims)| weights.get(k).filter(|(d, _)| d != dims).map(|(d, _)| format!("{k} {d:?} (expected {dims:?})"))).collect();
    if missing.is_empty() && extra.is_empty() && wrong.is_empty() {
        return Ok(());
    }
    Err(format!(
        "is not the Kokoro v1.0 export the engine knows: {} missing ({}), {} unexpected ({}), {} misshapen ({})",
        missing.len(),
        first_few(&missing),
        extra.len(),
        first_few(&extra),
        wrong.len(),
        first_few(&wrong)
    ))
}

fn first_few<T: std::fmt::Display>(items: &[T]) -> String {
    items.iter().take(3).map(|i| i.to_string()).collect::<Vec<_>>().join(", ")
}

/// Initializer-name prefixes of the export → the model's module prefixes (rule R0).
const NAME_PREFIXES: [(&str, &str); 5] = [
    ("encoder.bert.", "bert."),
    ("encoder.bert_encoder.", "bert_encoder."),
    ("encoder.text_encoder.", "text_encoder."),
    ("encoder.predictor.", "predictor."),
    ("decoder.decoder.", "decoder."),
];

/// Node-name prefixes of the export → module paths (rule R1.1), first match wins.
const NODE_PREFIXES: [(&str, &str); 10] = [
    ("/encoder/bert_encoder/", "bert_encoder/"),
    ("/encoder/bert/", "bert/"),
    ("/encoder/text_encoder/", "text_encoder/"),
    ("/encoder/predictor/", "predictor/"),
    ("/encoder/shared/", "predictor/shared/"),
    ("/encoder/F0_proj/", "predictor/F0_proj/"),
    ("/encoder/N_proj/", "predictor/N_proj/"),
    ("/encoder/F0.", "predictor/F0."),
    ("/encoder/N.", "predictor/N."),
    ("/decoder/decoder/", "decoder/"),
];

/// Segments the 12 ALBERT calls suffix with `_N` (rule R1.3).
const ALBERT_REPEATED: [&str; 7] = ["query", "key", "value", "dense", "ffn", "ffn_output", "LayerNorm"];

/// The module path of the layer a node belongs to (rule R1), or `None` for
/// nodes outside the model's modules.
pub fn module_path(node_name: &str) -> Option<String> {
    let (from, to) = NODE_PREFIXES.iter().find(|(from, _)| node_name.starts_with(from))?;
    let rest = format!("{to}{}", &node_name[from.len()..]);
    let mut segments: Vec<&str> = rest.split('/').collect();
    segments.pop(); // the op's own name
    let mut path: Vec<String> = Vec::new();
    for seg in segments {
        let seg = match seg.rsplit_once('_') {
            Some((base, n)) if ALBERT_REPEATED.contains(&base) && n.parse::<u32>().is_ok() => base,
            _ => seg,
        };
        match path.last_mut() {
            Some(prev) if seg.starts_with(&format!("{prev}.")) => *prev = seg.to_string(),
            _ => path.push(seg.to_string()),
        }
    }
    Some(path.join("."))
}

/// The model's name for an initializer that already has a module-style name (rule R0).
fn renamed_initializer(name: &str) -> Option<String> {
    NAME_PREFIXES.iter().find(|(from, _)| name.starts_with(from)).map(|(from, to)| format!("{to}{}", &name[from.len()..]))
}

struct Graph<'a> {
    model: &'a OnnxModel,
    consumers: HashMap<&'a str, Vec<&'a NodeProto>>,
    producer: HashMap<&'a str, &'a NodeProto>,
}

impl<'a> Graph<'a> {
    fn new(model: &'a OnnxModel) -> Self {
        let mut consumers: HashMap<&str, Vec<&NodeProto>> = HashMap::new();
        let mut producer = HashMap::new();
        for node in &model.nodes {
            for input in &node.input {
                consumers.entry(input.as_str()).or_default().push(node);
            }
            for output in &node.output {
                producer.insert(output.as_str(), node);
            }
        }
        Graph { model, consumers, producer }
    }

    fn tensor(&self, name: &str) -> std::result::Result<Tensor, String> {
        self.model.tensor(name)
    }

    fn input(&self, node: &NodeProto, index: usize) -> std::result::Result<Tensor, String> {
        let name = node.input.get(index).ok_or_else(|| format!("node {} has no input {index}", node.name))?;
        self.tensor(name)
    }

    /// The weight scale of an integer MatMul/Conv node (rule R2): follow its
    /// output through Add/Cast to the Mul that rescales it; the other factor
    /// is produced by a Mul of the input's scale and the weight's scale.
    fn weight_scale(&self, node: &NodeProto) -> std::result::Result<Tensor, String> {
        let mut current = node.output.first().ok_or_else(|| format!("node {} has no output", node.name))?.as_str();
        for _ in 0..4 {
            let next = self.consumers.get(current).and_then(|c| c.first()).ok_or_else(|| format!("no scale after {}", node.name))?;
            match next.op_type.as_str() {
                "Add" | "Cast" => current = next.output[0].as_str(),
                "Mul" => {
                    let other = next.input.iter().find(|i| i.as_str() != current).ok_or("scale Mul has one input")?;
                    let scales_mul = self.producer.get(other.as_str()).ok_or_else(|| format!("no producer for {other}"))?;
                    let weight_scale = scales_mul
                        .input
                        .iter()
                        .find(|i| self.model.tensors.contains_key(i.as_str()))
                        .ok_or_else(|| format!("{} has no stored scale", scales_mul.name))?;
                    return self.tensor(weight_scale);
                }
                other => return Err(format!("unexpected {other} after {}", node.name)),
            }
        }
        Err(format!("no scale found for {}", node.name))
    }
}

/// Every weight of the export under its module name (rules R3–R9).
pub fn extract(model: &OnnxModel) -> std::result::Result<Weights, String> {
    let graph = Graph::new(model);
    let mut out: Weights = BTreeMap::new();
    let mut put = |key: String, dims: Vec<usize>, values: Vec<f32>| {
        out.entry(key).or_insert((dims, values));
    };
    let path_of = |node: &NodeProto| module_path(&node.name).ok_or_else(|| format!("node {} is outside the model", node.name));
    for node in &model.nodes {
        match node.op_type.as_str() {
            "MatMulInteger" => {
                let (dims, w) = dequantize_linear(&graph.input(node, 1)?, &graph.weight_scale(node)?, &graph.input(node, 3)?)?;
                put(format!("{}.weight", path_of(node)?), dims, w);
            }
            "ConvInteger" => {
                let q = graph.input(node, 1)?;
                let w = dequantize_per_tensor(&q, &graph.weight_scale(node)?, &graph.input(node, 3)?)?;
                put(format!("{}.weight", path_of(node)?), q.dims.clone(), w);
            }
            "DynamicQuantizeLSTM" => {
                let m = path_of(node)?;
                let (w, r, b) = (graph.input(node, 1)?, graph.input(node, 2)?, graph.input(node, 3)?);
                let (ws, wzp, rs, rzp) = (graph.input(node, 8)?, graph.input(node, 9)?, graph.input(node, 10)?, graph.input(node, 11)?);
                for (direction, suffix) in [(0, ""), (1, "_reverse")] {
                    let (dims, ih) = lstm_matrix(&w, &ws, &wzp, direction)?;
                    put(format!("{m}.weight_ih_l0{suffix}"), dims, ih);
                    let (dims, hh) = lstm_matrix(&r, &rs, &rzp, direction)?;
                    put(format!("{m}.weight_hh_l0{suffix}"), dims, hh);
                    let (bias_ih, bias_hh) = lstm_biases(&b, direction)?;
                    put(format!("{m}.bias_ih_l0{suffix}"), vec![bias_ih.len()], bias_ih);
                    put(format!("{m}.bias_hh_l0{suffix}"), vec![bias_hh.len()], bias_hh);
                }
            }
            "DequantizeLinear" => {
                let gather = graph
                    .producer
                    .get(node.input[0].as_str())
                    .filter(|p| p.op_type == "Gather")
                    .ok_or_else(|| format!("{} does not read an embedding table", node.name))?;
                let q = graph.input(gather, 0)?;
                let w = dequantize_per_tensor(&q, &graph.input(node, 1)?, &graph.input(node, 2)?)?;
                put(format!("{}.weight", path_of(gather)?), q.dims.clone(), w);
            }
            "ConvTranspose" | "Conv" if !node.name.contains("/istft/") => {
                let w = graph.input(node, 1)?;
                put(format!("{}.weight", path_of(node)?), w.dims.clone(), w.values);
            }
            "MatMul" => {
                // Float linear layers (m_source.l_linear): stored [in, out].
                let Some(name) = node.input.get(1).filter(|n| model.tensors.contains_key(n.as_str())) else {
                    continue;
                };
                let w = graph.tensor(name)?;
                let (dims, t) = transpose_2d(&w)?;
                put(format!("{}.weight", path_of(node)?), dims, t);
            }
            _ => {}
        }
    }
    for (name, tensor) in &model.tensors {
        let skip = name.ends_with("_scale") || name.ends_with("_zero_point") || name.ends_with("_quantized") || name.contains(".stft.");
        let Some(key) = renamed_initializer(name).filter(|_| !skip) else {
            continue;
        };
        let t = crate::onnx::decode_tensor(tensor).map_err(|e| format!("{name}: {e}"))?;
        if t.element_type == ElementType::F32 {
            put(key, t.dims, t.values);
        }
    }
    Ok(out)
}

fn transpose_2d(t: &Tensor) -> std::result::Result<(Vec<usize>, Vec<f32>), String> {
    let [rows, cols] = t.dims[..] else {
        return Err(format!("expected a matrix, got {:?}", t.dims));
    };
    let mut out = vec![0f32; rows * cols];
    for r in 0..rows {
        for c in 0..cols {
            out[c * rows + r] = t.values[r * cols + c];
        }
    }
    Ok((vec![cols, rows], out))
}

/// Weights of a linear layer: `[in, out]` quantised with one scale and zero
/// point per output column → `[out, in]` f32.
pub fn dequantize_linear(q: &Tensor, scale: &Tensor, zero_point: &Tensor) -> Result<(Vec<usize>, Vec<f32>), String> {
    let [rows, cols] = q.dims[..] else {
        return Err(format!("a linear weight is 2-D, got {:?}", q.dims));
    };
    let per_column = |t: &Tensor, what: &str| -> Result<Vec<f32>, String> {
        match t.len() {
            1 => Ok(vec![t.values[0]; cols]),
            n if n == cols => Ok(t.values.clone()),
            n => Err(format!("{what} has {n} values for {cols} columns")),
        }
    };
    let scale = per_column(scale, "scale")?;
    let zp = per_column(zero_point, "zero point")?;
    let mut out = vec![0f32; rows * cols];
    for r in 0..rows {
        for c in 0..cols {
            out[c * rows + r] = (q.values[r * cols + c] - zp[c]) * scale[c];
        }
    }
    Ok((vec![cols, rows], out))
}

/// Any tensor quantised with a single scale and zero point (convolutions).
pub fn dequantize_per_tensor(q: &Tensor, scale: &Tensor, zero_point: &Tensor) -> Result<Vec<f32>, String> {
    if scale.len() != 1 || zero_point.len() != 1 {
        return Err(format!("expected one scale and one zero point, got {} and {}", scale.len(), zero_point.len()));
    }
    let (s, z) = (scale.values[0], zero_point.values[0]);
    Ok(q.values.iter().map(|&v| (v - z) * s).collect())
}

/// ONNX orders LSTM gates i, o, f, c; torch orders them i, f, g(=c), o.
/// Entry k of this table is the ONNX block that torch's block k comes from.
const TORCH_FROM_ONNX_GATE: [usize; 4] = [0, 2, 3, 1];

/// One direction's LSTM matrix in torch layout `[4H, in]` from ONNX
/// `[dirs, in, 4H]` (quantised per direction).
pub fn lstm_matrix(q: &Tensor, scale: &Tensor, zero_point: &Tensor, direction: usize) -> Result<(Vec<usize>, Vec<f32>), String> {
    let [dirs, input, gates4] = q.dims[..] else {
        return Err(format!("an LSTM weight is 3-D, got {:?}", q.dims));
    };
    if direction >= dirs || gates4 % 4 != 0 {
        return Err(format!("bad LSTM weight shape {:?}", q.dims));
    }
    let pick = |t: &Tensor| if t.len() == dirs { t.values[direction] } else { t.values[0] };
    let (s, z) = (pick(scale), pick(zero_point));
    let hidden = gates4 / 4;
    let mut out = vec![0f32; gates4 * input];
    for (torch_gate, &onnx_gate) in TORCH_FROM_ONNX_GATE.iter().enumerate() {
        for h in 0..hidden {
            let row = torch_gate * hidden + h;
            let col_onnx = onnx_gate * hidden + h;
            for i in 0..input {
                let v = q.values[(direction * input + i) * gates4 + col_onnx];
                out[row * input + i] = (v - z) * s;
            }
        }
    }
    Ok((vec![gates4, input], out))
}

/// One direction's LSTM biases `(bias_ih, bias_hh)` in torch gate order from
/// ONNX `B [dirs, 8H]` (input biases then recurrent biases).
pub fn lstm_biases(b: &Tensor, direction: usize) -> Result<(Vec<f32>, Vec<f32>), String> {
    let [dirs, gates8] = b.dims[..] else {
        return Err(format!("LSTM biases are 2-D, got {:?}", b.dims));
    };
    if direction >= dirs || gates8 % 8 != 0 {
        return Err(format!("bad LSTM bias shape {:?}", b.dims));
    }
    let hidden = gates8 / 8;
    let row = &b.values[direction * gates8..(direction + 1) * gates8];
    let reorder = |part: &[f32]| -> Vec<f32> { TORCH_FROM_ONNX_GATE.iter().flat_map(|&g| part[g * hidden..(g + 1) * hidden].iter().copied()).collect() };
    Ok((reorder(&row[..4 * hidden]), reorder(&row[4 * hidden..])))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_names_map_to_module_paths() {
        let cases = [
            ("/encoder/F0.1/norm1/fc/Gemm_MatMul_quant", "predictor.F0.1.norm1.fc"),
            ("/encoder/text_encoder/cnn.2/cnn.2.0/Conv_quant", "text_encoder.cnn.2.0"),
            (
                "/encoder/bert/encoder/albert_layer_groups.0/albert_layers.0/attention/key_7/MatMul_quant",
                "bert.encoder.albert_layer_groups.0.albert_layers.0.attention.key",
            ),
            ("/encoder/shared/LSTM_quant", "predictor.shared"),
            ("/decoder/decoder/asr_res/asr_res.0/Conv_quant", "decoder.asr_res.0"),
            ("/encoder/F0_proj/Conv_quant", "predictor.F0_proj"),
            ("/decoder/decoder/generator/m_source/l_linear/MatMul", "decoder.generator.m_source.l_linear"),
        ];
        for (node, path) in cases {
            assert_eq!(module_path(node).as_deref(), Some(path), "{node}");
        }
        assert_eq!(module_path("SkipLayerNormalization_token_111"), None);
    }

    #[test]
    fn the_expected_weight_list_has_every_parameter() {
        let expected = expected_weights();
        assert_eq!(expected.len(), 457);
        let values: usize = expected.values().map(|d| d.iter().product::<usize>()).sum();
        assert_eq!(values, 81_140_664);
        assert_eq!(expected["predictor.shared.weight_ih_l0_reverse"], vec![1024, 640]);
    }

    fn t(dims: &[usize], values: Vec<f32>) -> Tensor {
        Tensor { dims: dims.to_vec(), element_type: ElementType::F32, values }
    }

    #[test]
    fn linear_weights_are_dequantised_per_column_and_transposed() {
        // [in=2, out=3]
        let q = t(&[2, 3], vec![1., 2., 3., 4., 5., 6.]);
        let scale = t(&[3], vec![1., 10., 100.]);
        let zp = t(&[3], vec![0., 1., 0.]);
        let (dims, w) = dequantize_linear(&q, &scale, &zp).unwrap();
        assert_eq!(dims, vec![3, 2]);
        assert_eq!(w, vec![1., 4., 10., 40., 300., 600.]);
    }

    #[test]
    fn a_scalar_zero_point_applies_to_every_column() {
        let q = t(&[1, 2], vec![130., 126.]);
        let (_, w) = dequantize_linear(&q, &t(&[], vec![0.5]), &t(&[], vec![128.])).unwrap();
        assert_eq!(w, vec![1., -1.]);
    }

    #[test]
    fn lstm_gates_move_from_onnx_iofc_to_torch_ifgo() {
        // One direction, input 1, hidden 1: ONNX columns i, o, f, c = 1, 2, 3, 4.
        let q = t(&[1, 1, 4], vec![1., 2., 3., 4.]);
        let (dims, w) = lstm_matrix(&q, &t(&[1], vec![1.]), &t(&[1], vec![0.]), 0).unwrap();
        assert_eq!(dims, vec![4, 1]);
        assert_eq!(w, vec![1., 3., 4., 2.]); // i, f, c, o
        let b = t(&[1, 8], vec![1., 2., 3., 4., 10., 20., 30., 40.]);
        let (ih, hh) = lstm_biases(&b, 0).unwrap();
        assert_eq!(ih, vec![1., 3., 4., 2.]);
        assert_eq!(hh, vec![10., 30., 40., 20.]);
    }

    #[test]
    fn the_reverse_direction_uses_its_own_slice_and_scale() {
        // Two directions, input 2, hidden 1.
        let mut values = vec![0f32; 2 * 2 * 4];
        for i in 0..2 {
            for g in 0..4 {
                values[(2 + i) * 4 + g] = (10 * (i + 1) + g) as f32; // reverse direction
            }
        }
        let q = t(&[2, 2, 4], values);
        let (_, w) = lstm_matrix(&q, &t(&[2], vec![1., 2.]), &t(&[2], vec![0., 0.]), 1).unwrap();
        // torch row 0 (gate i) = onnx gate 0 for inputs 0 and 1, times scale 2.
        assert_eq!(&w[0..2], &[20., 40.]);
        // torch row 3 (gate o) = onnx gate 1.
        assert_eq!(&w[6..8], &[22., 42.]);
    }
}
