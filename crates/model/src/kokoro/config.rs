//! Kokoro-82M v1.0's hyperparameters (its published config, confirmed
//! against the weight shapes in docs/kokoro-weights.md §1).

/// The model's fixed dimensions.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// Phoneme vocabulary size.
    pub n_token: usize,
    /// Width of text and prosody features.
    pub hidden_dim: usize,
    /// Half of a voice's style vector (decoder half, prosody half).
    pub style_dim: usize,
    /// Prosody LSTM/AdaLayerNorm pairs and text-encoder convolutions.
    pub n_layer: usize,
    pub text_encoder_kernel_size: usize,
    /// Duration classes per token.
    pub max_dur: usize,
    pub albert: AlbertConfig,
    pub istft: IstftNetConfig,
    /// Output sample rate.
    pub sample_rate: u32,
}

/// The phoneme-level ALBERT.
#[derive(Debug, Clone, PartialEq)]
pub struct AlbertConfig {
    pub embedding_size: usize,
    pub hidden_size: usize,
    pub num_attention_heads: usize,
    pub intermediate_size: usize,
    pub num_hidden_layers: usize,
    pub max_position_embeddings: usize,
    pub layer_norm_eps: f64,
}

/// The iSTFTNet generator.
#[derive(Debug, Clone, PartialEq)]
pub struct IstftNetConfig {
    pub upsample_rates: Vec<usize>,
    pub upsample_kernel_sizes: Vec<usize>,
    pub upsample_initial_channel: usize,
    pub resblock_kernel_sizes: Vec<usize>,
    pub resblock_dilations: Vec<usize>,
    pub n_fft: usize,
    pub hop: usize,
    /// Harmonics above F0 in the sine source.
    pub harmonic_num: usize,
}

impl Config {
    /// Kokoro-82M v1.0.
    pub fn v1_0() -> Config {
        Config {
            n_token: 178,
            hidden_dim: 512,
            style_dim: 128,
            n_layer: 3,
            text_encoder_kernel_size: 5,
            max_dur: 50,
            albert: AlbertConfig {
                embedding_size: 128,
                hidden_size: 768,
                num_attention_heads: 12,
                intermediate_size: 2048,
                num_hidden_layers: 12,
                max_position_embeddings: 512,
                layer_norm_eps: 1e-12,
            },
            istft: IstftNetConfig {
                upsample_rates: vec![10, 6],
                upsample_kernel_sizes: vec![20, 12],
                upsample_initial_channel: 512,
                resblock_kernel_sizes: vec![3, 7, 11],
                resblock_dilations: vec![1, 3, 5],
                n_fft: 20,
                hop: 5,
                harmonic_num: 8,
            },
            sample_rate: 24_000,
        }
    }

    /// Audio samples per F0 frame (the F0 curve runs at twice the text-frame rate).
    pub fn samples_per_f0_frame(&self) -> usize {
        self.istft.upsample_rates.iter().product::<usize>() * self.istft.hop
    }

    /// Most tokens one pass takes (ALBERT positions minus the two pads).
    pub fn max_phonemes(&self) -> usize {
        self.albert.max_position_embeddings - 2
    }
}
