//! What a translator's error means for a translation job: the fault of
//! one batch (the job goes on), a timeout (goes on once), or one every
//! batch would meet (the job stops). Told apart here, beside the client
//! that words the errors, so that the wording and the telling change
//! together.

use revoice_core::error::Error;

/// What a batch the translator could not answer means for the rest of the job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// The batch's own: its reply could not be used, or its request was
    /// refused (too long for the model, say). The job goes on.
    Batch,
    /// The translator did not answer in time: the job goes on, unless the
    /// batch before timed out too.
    TimedOut,
    /// Every batch would meet it: the server cannot be reached or keeps
    /// failing, it refuses the key, the URL or model is wrong, or the
    /// studio itself failed. The job stops.
    Every,
}

/// Tells a translator's error apart by how [`crate::chat`] builds it:
/// an unusable reply is internal; a refusal is invalid input naming the
/// translator, with the status in its reason; a transport fault or a
/// server failing three times is busy, a timeout saying it did not answer.
pub fn fault_of(error: &Error) -> Fault {
    match error.root() {
        Error::Internal { .. } => Fault::Batch,
        Error::InvalidInput { input, reason } if input.starts_with("translator ") => {
            if reason.starts_with("refused the API key") || reason.starts_with("answered 404") {
                Fault::Every
            } else {
                Fault::Batch
            }
        }
        // The translator's own refusal of a line (one with no text).
        Error::InvalidInput { input, .. } if input.starts_with("line ") => Fault::Batch,
        Error::Busy { reason, .. } if reason.starts_with("did not answer in") => Fault::TimedOut,
        _ => Fault::Every,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chat::ChatClient;
    use revoice_core::translators::TranslatorSettings;

    #[test]
    fn the_client_s_own_errors_are_told_apart() {
        let settings = TranslatorSettings {
            name: "llama".into(),
            url: "http://127.0.0.1:9".into(),
            model: String::new(),
            api_key: String::new(),
            timeout_s: Some(1.0),
            temperature: None,
            batch_lines: None,
        };
        let client = ChatClient::new(&settings);
        assert_eq!(fault_of(&client.refusal(401, b"no", "u")), Fault::Every);
        assert_eq!(fault_of(&client.refusal(404, b"no", "u")), Fault::Every);
        assert_eq!(fault_of(&client.refusal(400, b"too long", "u")), Fault::Batch);
        assert_eq!(fault_of(&client.timed_out()), Fault::TimedOut);
        assert_eq!(fault_of(&Error::internal(client.what(), "answered no JSON")), Fault::Batch);
        assert_eq!(fault_of(&Error::invalid("line 3", "has no text to translate")), Fault::Batch);
        assert_eq!(fault_of(&Error::busy(client.what(), "cannot be reached")), Fault::Every);
    }
}
