//! The space a fit searches. A Kokoro style vector has two halves: the
//! first 128 values set the decoder's timbre, the last 128 the prosody
//! predictor's pitch, energy and timing. A fitted voice is a
//! [`StyleRecipe`]: for each half, weights over the stock voices' packs
//! (summing to one, some may be negative), applied to every row of the
//! packs alike, so lines of every length get the same voice (Kokoro picks
//! a pack's row by the line's phoneme count).
//!
//! The search moves along the stock packs' principal components, per half
//! ([`StyleSpace`]), in units of how far the stock voices spread along each:
//! a few dozen directions that carry most of how the stock voices differ,
//! instead of 130,560 raw numbers.

use std::ops::Range;

use super::eigen::symmetric_eigen;
use revoice_model::kokoro::release::{STYLE_DIM, VOICE_ROWS};
use revoice_model::kokoro::voices::StockVoices;
pub use revoice_speech::fitted_style::{StyleRecipe, PROSODY, TIMBRE};

/// Coordinates past this many standard deviations of the stock voices are
/// pulled back (and penalised): far outside the stock voices, Kokoro's
/// styles stop sounding like people.
pub const BOUND: f64 = 3.0;

/// Principal directions of the stock packs, per half.
pub struct StyleSpace {
    names: Vec<String>,
    /// For each half, each direction as weight changes over `names`
    /// (one standard deviation of the stock voices along it).
    directions: [Vec<Vec<f64>>; 2],
    /// How far the stock packs spread in each timbre column (standard
    /// deviation over every voice and row): the refinement's unit.
    timbre_spread: Vec<f32>,
}

/// Per half, the stock packs' principal directions, largest first, as
/// weight changes over the voices, each one standard deviation long.
fn principal_directions(packs: &[&[f32]], half: Range<usize>, count: usize) -> Vec<Vec<f64>> {
    let n = packs.len();
    let values = |p: &[f32]| -> Vec<f64> { (0..VOICE_ROWS).flat_map(|r| half.clone().map(move |c| r * STYLE_DIM + c)).map(|i| p[i] as f64).collect() };
    let rows: Vec<Vec<f64>> = packs.iter().map(|p| values(p)).collect();
    let dim = rows[0].len();
    let mean: Vec<f64> = (0..dim).map(|i| rows.iter().map(|r| r[i]).sum::<f64>() / n as f64).collect();
    let centred: Vec<Vec<f64>> = rows.iter().map(|r| r.iter().zip(&mean).map(|(a, m)| a - m).collect()).collect();
    let mut gram = vec![0.0; n * n];
    for i in 0..n {
        for j in i..n {
            let dot: f64 = centred[i].iter().zip(&centred[j]).map(|(a, b)| a * b).sum();
            gram[i * n + j] = dot;
            gram[j * n + i] = dot;
        }
    }
    let (eigenvalues, eigenvectors) = symmetric_eigen(&gram, n);
    // σ_k u_k = Xᵀ v_k / √n, and Xᵀ v = Σ_v (v[v] − mean(v)) pack_v.
    eigenvalues
        .iter()
        .zip(eigenvectors)
        .take(count)
        .filter(|(value, _)| **value > 1e-9)
        .map(|(_, v)| {
            let mean = v.iter().sum::<f64>() / n as f64;
            v.iter().map(|x| (x - mean) / (n as f64).sqrt()).collect()
        })
        .collect()
}

impl StyleSpace {
    /// The top `timbre` and `prosody` directions of every stock pack.
    pub fn new(voices: &StockVoices, timbre: usize, prosody: usize) -> StyleSpace {
        let (names, packs): (Vec<String>, Vec<&[f32]>) = voices.packs().map(|(n, p)| (n.to_string(), p.rows())).unzip();
        let directions = [principal_directions(&packs, TIMBRE, timbre), principal_directions(&packs, PROSODY, prosody)];
        let timbre_spread = TIMBRE
            .map(|col| {
                let values: Vec<f64> = packs.iter().flat_map(|p| (0..VOICE_ROWS).map(move |r| p[r * STYLE_DIM + col] as f64)).collect();
                let mean = values.iter().sum::<f64>() / values.len() as f64;
                (values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / values.len() as f64).sqrt() as f32
            })
            .collect();
        StyleSpace { names, directions, timbre_spread }
    }

    /// Each timbre column's spread over the stock packs.
    pub fn timbre_spread(&self) -> &[f32] {
        &self.timbre_spread
    }

    /// How many coordinates a point has: timbre directions, then prosody.
    pub fn dims(&self) -> usize {
        self.directions[0].len() + self.directions[1].len()
    }

    /// The recipe `coords` away from `start` (coordinates in standard
    /// deviations of the stock voices along each direction).
    pub fn recipe(&self, start: &StyleRecipe, coords: &[f64]) -> StyleRecipe {
        assert_eq!(coords.len(), self.dims(), "a coordinate per direction");
        let (timbre_coords, prosody_coords) = coords.split_at(self.directions[0].len());
        let half = |start: &[(String, f32)], directions: &[Vec<f64>], coords: &[f64]| -> Vec<(String, f32)> {
            let mut weights: Vec<f64> = self.names.iter().map(|n| start.iter().filter(|(s, _)| s == n).map(|(_, w)| *w as f64).sum()).collect();
            for (direction, c) in directions.iter().zip(coords) {
                for (w, d) in weights.iter_mut().zip(direction) {
                    *w += c * d;
                }
            }
            self.names.iter().zip(weights).filter(|(_, w)| w.abs() > 1e-6).map(|(n, w)| (n.clone(), w as f32)).collect()
        };
        StyleRecipe {
            timbre: half(&start.timbre, &self.directions[0], timbre_coords),
            prosody: half(&start.prosody, &self.directions[1], prosody_coords),
            tone: None,
            timbre_offset: start.timbre_offset.clone(),
            pitch_semitones: None,
        }
    }
}

/// Four packs that differ along known lines, for the fit's unit tests.
#[cfg(test)]
pub(crate) fn test_voices() -> StockVoices {
    use revoice_model::kokoro::voices::VoicePack;
    let mut packs = std::collections::BTreeMap::new();
    for (i, name) in ["af_heart", "am_adam", "bf_emma", "bm_lewis"].iter().enumerate() {
        let rows = (0..VOICE_ROWS * STYLE_DIM)
            .map(|j| ((j % STYLE_DIM) as f32 * 0.01 + 1.0) * (i as f32 + 1.0) + ((j / STYLE_DIM) % 3) as f32 * (i % 2) as f32)
            .collect();
        packs.insert(name.to_string(), VoicePack::from_rows(rows));
    }
    StockVoices::from_packs(packs)
}

#[cfg(test)]
mod tests {
    use super::test_voices as voices;
    use super::*;

    #[test]
    fn a_blend_recipe_makes_the_blend_and_the_origin_is_the_start() {
        let voices = voices();
        let parts = vec![("af_heart".to_string(), 3.0), ("bm_lewis".to_string(), 1.0)];
        let recipe = StyleRecipe::of_blend(&parts);
        let blend = voices.blend(&[("af_heart", 3.0), ("bm_lewis", 1.0)]).unwrap();
        let pack = recipe.pack(&voices).unwrap();
        assert!(pack.rows().iter().zip(blend.rows()).all(|(a, b)| (a - b).abs() < 1e-4));
        let space = StyleSpace::new(&voices, 2, 2);
        assert!(space.dims() >= 2);
        let origin = space.recipe(&recipe, &vec![0.0; space.dims()]);
        assert!(origin.pack(&voices).unwrap().rows().iter().zip(pack.rows()).all(|(a, b)| (a - b).abs() < 1e-4));
        assert_eq!(recipe.id(), StyleRecipe::of_blend(&parts).id());
    }

    #[test]
    fn a_timbre_offset_moves_every_rows_timbre_and_nothing_else() {
        let voices = voices();
        let plain = StyleRecipe::of_blend(&[("am_adam".to_string(), 1.0)]);
        let space = StyleSpace::new(&voices, 2, 2);
        assert_eq!(space.timbre_spread().len(), TIMBRE.len());
        assert!(space.timbre_spread().iter().all(|s| *s > 0.0));
        let offset: Vec<f32> = (0..TIMBRE.len()).map(|i| i as f32 * 0.5).collect();
        let moved = StyleRecipe { timbre_offset: Some(offset.clone()), ..plain.clone() };
        let (a, b) = (plain.pack(&voices).unwrap(), moved.pack(&voices).unwrap());
        for r in 0..VOICE_ROWS {
            for c in 0..STYLE_DIM {
                let want = if TIMBRE.contains(&c) { offset[c - TIMBRE.start] } else { 0.0 };
                assert!((b.rows()[r * STYLE_DIM + c] - a.rows()[r * STYLE_DIM + c] - want).abs() < 1e-4);
            }
        }
        assert_ne!(moved.id(), plain.id());
        // Moving in the principal directions keeps the offset.
        assert_eq!(space.recipe(&moved, &vec![0.5; space.dims()]).timbre_offset, Some(offset));
        let short = StyleRecipe { timbre_offset: Some(vec![1.0; 3]), ..plain };
        assert!(short.pack(&voices).unwrap_err().to_string().contains("3 values"));
    }

    #[test]
    fn moving_along_a_direction_changes_only_its_half_and_keeps_weights_summing_to_one() {
        let voices = voices();
        let space = StyleSpace::new(&voices, 2, 2);
        let start = StyleRecipe::of_blend(&[("am_adam".to_string(), 1.0)]);
        let mut coords = vec![0.0; space.dims()];
        coords[0] = 1.5;
        let moved = space.recipe(&start, &coords);
        assert!((moved.timbre.iter().map(|(_, w)| w).sum::<f32>() - 1.0).abs() < 1e-5, "{moved:?}");
        assert_eq!(moved.prosody, start.prosody);
        let (a, b) = (start.pack(&voices).unwrap(), moved.pack(&voices).unwrap());
        let changed =
            |cols: Range<usize>| (0..VOICE_ROWS).any(|r| cols.clone().any(|c| (a.rows()[r * STYLE_DIM + c] - b.rows()[r * STYLE_DIM + c]).abs() > 1e-3));
        assert!(changed(TIMBRE) && !changed(PROSODY));
        assert_ne!(moved.id(), start.id());
    }
}
