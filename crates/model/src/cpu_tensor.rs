//! A CPU tensor's f32 values for the model's own kernels: borrowed where
//! they lie when the tensor is contiguous, and changed in place.

use candle_core::{CpuStorage, InplaceOp1, Layout, Result, Tensor};
use rayon::prelude::*;

/// Runs `f` on a CPU tensor's f32 values, in place when it is contiguous.
pub fn with_f32_slice<R>(x: &Tensor, f: impl FnOnce(&[f32]) -> R) -> Result<R> {
    {
        let (storage, layout) = x.storage_and_layout();
        if let (candle_core::Storage::Cpu(cpu), Some((start, end))) = (&*storage, layout.contiguous_offsets()) {
            return Ok(f(&cpu.as_slice::<f32>()?[start..end]));
        }
    }
    Ok(f(&x.flatten_all()?.to_vec1::<f32>()?))
}

/// Values a parallel task of [`map_in_place`] takes.
const CHUNK: usize = 1 << 14;

struct MapInPlace<F: Fn(&mut [f32]) + Sync>(F, &'static str);

impl<F: Fn(&mut [f32]) + Sync> InplaceOp1 for MapInPlace<F> {
    fn name(&self) -> &'static str {
        self.1
    }

    fn cpu_fwd(&self, storage: &mut CpuStorage, layout: &Layout) -> Result<()> {
        let Some((start, end)) = layout.contiguous_offsets() else { candle_core::bail!("{}: the tensor is not contiguous", self.1) };
        let CpuStorage::F32(values) = storage else { candle_core::bail!("{}: the tensor is not f32", self.1) };
        values[start..end].par_chunks_mut(CHUNK).for_each(|chunk| (self.0)(chunk));
        Ok(())
    }
}

/// `x` with `f` applied to its values, in parallel chunks: in place when
/// `x` is a contiguous f32 CPU tensor, else on a contiguous copy. In place
/// means every tensor sharing `x`'s storage sees the change, so pass only a
/// fresh result (an op's output that nothing else holds).
pub fn map_in_place(x: Tensor, name: &'static str, f: impl Fn(&mut [f32]) + Sync) -> Result<Tensor> {
    let x = if x.is_contiguous() && x.dtype() == candle_core::DType::F32 && x.device().is_cpu() {
        x
    } else {
        x.to_dtype(candle_core::DType::F32)?.contiguous()?.copy()?
    };
    x.inplace_op1(&MapInPlace(f, name))?;
    Ok(x)
}
