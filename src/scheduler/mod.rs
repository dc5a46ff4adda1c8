//! The synthesis scheduler: an owner thread that batches rows for the model.
