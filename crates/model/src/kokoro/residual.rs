//! The two style-conditioned residual blocks: `AdainResBlk1d` (prosody and
//! decoder; optional ×2 upsampling) and `AdaInResBlock1` (the generator's
//! dilated Snake blocks, on one row's `[C, T]` values). `x` is `[B, C, T]`,
//! `style` is `[B, style_dim]`.

use candle_core::{DType, Module, Result, Tensor};
use candle_nn::VarBuilder;

use super::layers::{leaky_relu, AdaIn1d, Conv1d, ConvTranspose1d};
use super::norm_statistics::NormStatistics;

/// Residual block with adaptive instance norms, from StyleTTS 2.
#[derive(Debug, Clone)]
pub struct AdainResBlk1d {
    norm1: AdaIn1d,
    norm2: AdaIn1d,
    conv1: Conv1d,
    conv2: Conv1d,
    /// Learned shortcut when the width changes.
    conv1x1: Option<Conv1d>,
    /// Depthwise ×2 transposed conv when upsampling.
    pool: Option<ConvTranspose1d>,
}

impl AdainResBlk1d {
    pub fn new(vb: VarBuilder, dim_in: usize, dim_out: usize, upsample: bool) -> Result<Self> {
        Ok(AdainResBlk1d {
            norm1: AdaIn1d::new(vb.pp("norm1"))?,
            norm2: AdaIn1d::new(vb.pp("norm2"))?,
            conv1: Conv1d::same(vb.pp("conv1"), true, 1)?,
            conv2: Conv1d::same(vb.pp("conv2"), true, 1)?,
            conv1x1: if dim_in != dim_out { Some(Conv1d::new(vb.pp("conv1x1"), false, 0, 1, 1, 1)?) } else { None },
            pool: if upsample { Some(ConvTranspose1d::new(vb.pp("pool"), 1, 1, 2, dim_in)?) } else { None },
        })
    }

    /// True when the block doubles the time axis.
    pub fn upsamples(&self) -> bool {
        self.pool.is_some()
    }

    pub fn forward(&self, x: &Tensor, style: &Tensor) -> Result<Tensor> {
        let mut shortcut = if self.upsamples() { upsample_nearest2(x)? } else { x.clone() };
        if let Some(c) = &self.conv1x1 {
            shortcut = c.forward(&shortcut)?;
        }
        let mut r = leaky_relu(&self.norm1.forward(x, style)?, 0.2)?;
        if let Some(pool) = &self.pool {
            r = pool.forward(&r)?;
        }
        let r = self.conv1.forward(&r)?;
        let r = leaky_relu(&self.norm2.forward(&r, style)?, 0.2)?;
        let r = self.conv2.forward(&r)?;
        (r + shortcut)? * std::f64::consts::FRAC_1_SQRT_2
    }
}

/// Repeats every step twice along time.
fn upsample_nearest2(x: &Tensor) -> Result<Tensor> {
    let (b, c, t) = x.dims3()?;
    x.unsqueeze(3)?.broadcast_as((b, c, t, 2))?.reshape((b, c, 2 * t))
}

/// The generator's residual block: three dilated convolutions, each between
/// AdaIN and Snake, summed back onto the input.
#[derive(Debug, Clone)]
pub struct AdaInResBlock1 {
    stages: Vec<SnakeStage>,
}

#[derive(Debug, Clone)]
struct SnakeStage {
    adain1: AdaIn1d,
    alpha1: Vec<f32>,
    conv1: Conv1d,
    adain2: AdaIn1d,
    alpha2: Vec<f32>,
    conv2: Conv1d,
}

impl AdaInResBlock1 {
    pub fn new(vb: VarBuilder, dilations: &[usize]) -> Result<Self> {
        let stages = dilations
            .iter()
            .enumerate()
            .map(|(j, &d)| {
                Ok(SnakeStage {
                    adain1: AdaIn1d::new(vb.pp(format!("adain1.{j}")))?,
                    alpha1: vb.get_unchecked_dtype(&format!("alpha1.{j}"), DType::F32)?.flatten_all()?.to_vec1()?,
                    conv1: Conv1d::same(vb.pp(format!("convs1.{j}")), true, d)?,
                    adain2: AdaIn1d::new(vb.pp(format!("adain2.{j}")))?,
                    alpha2: vb.get_unchecked_dtype(&format!("alpha2.{j}"), DType::F32)?.flatten_all()?.to_vec1()?,
                    conv2: Conv1d::same(vb.pp(format!("convs2.{j}")), true, 1)?,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(AdaInResBlock1 { stages })
    }

    /// The block on one row's `[C, T]` values. The residual sum is one
    /// buffer that each stage's second convolution adds onto; the stages
    /// pass their work through two more, reused from stage to stage.
    pub fn forward_rows(&self, x: &[f32], channels: usize, style: &Tensor, norms: &mut NormStatistics) -> Result<Vec<f32>> {
        let t = x.len() / channels.max(1);
        let mut sum = x.to_vec();
        let (mut snaked, mut convolved) = (vec![0f32; x.len()], vec![0f32; x.len()]);
        for s in &self.stages {
            s.adain1.snake_into(&sum, &mut snaked, channels, style, &s.alpha1, norms)?;
            s.conv1.forward_into(&snaked, t, &mut convolved)?;
            s.adain2.snake_into(&convolved, &mut snaked, channels, style, &s.alpha2, norms)?;
            s.conv2.add_onto(&snaked, t, &mut sum)?;
        }
        Ok(sum)
    }
}
