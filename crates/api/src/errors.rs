//! The API's error envelope. Every error answer carries
//! `{"error": {"message", "type", "param", "code"}}` (OpenAI's shape), where
//! `type` is OpenAI's name for the status (`BadRequestError` 400,
//! `AuthenticationError` 401, `NotFoundError` 404, `ConflictError` 409,
//! `InternalServerError` 5xx) and `param` names the request field at fault,
//! or is null. Engine errors take their status from their kind: not found
//! 404, invalid input 400, conflict 409, busy 503 (the model is still
//! loading), internal 500; but a value the request's body names that does
//! not exist (an unknown or deleted voice) is 400, since only a resource in
//! the path is "not found".

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Value};

/// An API error: status, message and the field at fault.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiError {
    pub status: StatusCode,
    pub message: String,
    pub param: Option<String>,
}

impl ApiError {
    /// 400: the request is wrong; `param` names the field.
    pub fn bad_request(param: Option<&str>, message: impl Into<String>) -> ApiError {
        ApiError { status: StatusCode::BAD_REQUEST, message: message.into(), param: param.map(str::to_string) }
    }

    /// 404: the thing named by `param` does not exist.
    pub fn not_found(param: Option<&str>, message: impl Into<String>) -> ApiError {
        ApiError { status: StatusCode::NOT_FOUND, message: message.into(), param: param.map(str::to_string) }
    }

    /// 401: missing or wrong bearer token.
    pub fn unauthorized() -> ApiError {
        ApiError { status: StatusCode::UNAUTHORIZED, message: "missing or wrong API key: send `Authorization: Bearer <key>`".into(), param: None }
    }

    /// 500: the engine failed in a way the request did not cause.
    pub fn internal(message: impl Into<String>) -> ApiError {
        ApiError { status: StatusCode::INTERNAL_SERVER_ERROR, message: message.into(), param: None }
    }

    /// An engine error (about `param`'s value, if it names one), with the
    /// status its kind calls for and the engine's words.
    pub fn from_engine(param: Option<&str>, error: revoice_engine::Error) -> ApiError {
        use revoice_engine::ErrorKind;
        let status = match error.kind() {
            ErrorKind::NotFound => StatusCode::NOT_FOUND,
            ErrorKind::InvalidInput | ErrorKind::Cancelled => StatusCode::BAD_REQUEST,
            ErrorKind::Conflict => StatusCode::CONFLICT,
            ErrorKind::Busy => StatusCode::SERVICE_UNAVAILABLE,
            ErrorKind::Internal => StatusCode::INTERNAL_SERVER_ERROR,
        };
        // A server failure is not about the field the request named.
        let param = if status.is_server_error() { None } else { param.map(str::to_string) };
        ApiError { status, message: error.to_string(), param }
    }

    /// An engine error about a value the request's body names (`param`): a
    /// thing it names that does not exist (an unknown or deleted voice) is
    /// a bad request, 400, as the speech contract's clients expect; only a
    /// resource in the path is "not found". Otherwise as [`ApiError::from_engine`].
    pub fn from_engine_field(param: &str, error: revoice_engine::Error) -> ApiError {
        let mut answer = ApiError::from_engine(Some(param), error);
        if answer.status == StatusCode::NOT_FOUND {
            answer.status = StatusCode::BAD_REQUEST;
        }
        answer
    }

    /// OpenAI's name for the status.
    pub fn kind(&self) -> &'static str {
        match self.status {
            StatusCode::NOT_FOUND => "NotFoundError",
            StatusCode::UNAUTHORIZED => "AuthenticationError",
            StatusCode::CONFLICT => "ConflictError",
            s if s.is_server_error() => "InternalServerError",
            _ => "BadRequestError",
        }
    }

    /// The `error` object of the envelope.
    pub fn body(&self) -> Value {
        json!({
            "message": self.message,
            "type": self.kind(),
            "param": self.param,
            "code": self.status.as_u16(),
        })
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.status.as_u16(), self.message)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut body = json!({ "error": self.body() });
        if self.status == StatusCode::NOT_FOUND {
            body["success"] = json!(false);
        }
        (self.status, Json(body)).into_response()
    }
}

/// Handler results.
pub type ApiResult<T> = std::result::Result<T, ApiError>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_envelope_names_type_param_and_code() {
        let e = ApiError::bad_request(Some("input"), "is empty");
        assert_eq!(e.body(), json!({"message": "is empty", "type": "BadRequestError", "param": "input", "code": 400}));
        let e = ApiError::not_found(None, "no such voice");
        assert_eq!(e.body()["type"], "NotFoundError");
        assert_eq!(e.body()["param"], Value::Null);
        assert_eq!(e.body()["code"], 404);
    }

    #[test]
    fn engine_errors_answer_with_the_status_their_kind_calls_for() {
        use revoice_engine::Error;
        let status = |e: Error| ApiError::from_engine(Some("voice"), e);
        assert_eq!(status(Error::not_found("voice \"x\"", "not in the library")).status, StatusCode::NOT_FOUND);
        assert_eq!(status(Error::invalid("input", "is empty")).status, StatusCode::BAD_REQUEST);
        assert_eq!(status(Error::conflict("voice \"a\"", "the name is taken")).body()["type"], "ConflictError");
        let busy = status(Error::busy("the speech model", "is still loading"));
        assert_eq!((busy.status, busy.param.as_deref()), (StatusCode::SERVICE_UNAVAILABLE, None));
        let named = ApiError::from_engine_field("voice", Error::not_found("voice \"x\"", "not in the library"));
        assert_eq!((named.status, named.body()["type"].as_str(), named.param.as_deref()), (StatusCode::BAD_REQUEST, Some("BadRequestError"), Some("voice")));
        let db = status(Error::database("/x.sqlite3", std::io::Error::other("disk I/O error")));
        assert_eq!((db.status.as_u16(), db.body()["type"].as_str()), (500, Some("InternalServerError")));
    }
}
