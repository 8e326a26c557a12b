//! A sanitising front for the transport.
//!
//! tower-lsp's reader stops for good at the first undecodable message (the
//! framed stream ends after an error), so one malformed message would take
//! the server down. This layer re-frames the input itself: header blocks
//! without a `Content-Length` are skipped, and a body that is not a JSON-RPC
//! message is replaced by a request to `syncscope/invalidMessage` with
//! `id: null` (or the message's own id when it had one), which the server
//! answers with the JSON-RPC error the specification asks for
//! (`-32700` parse error / `-32600` invalid request).

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tower_lsp_server::jsonrpc::{Request, Response};

/// The method that stands in for an invalid message.
pub const INVALID_METHOD: &str = "syncscope/invalidMessage";

/// Largest accepted message body (bytes).
const MAX_BODY: u64 = 256 << 20;

/// Exactly what tower-lsp's codec decodes a body into (its private
/// `jsonrpc::Message`): the sanitiser must reject whatever the codec would,
/// because the codec's first decoding error ends the server's input. Decoding
/// the raw bytes into these types (not a `serde_json::Value` first) matters:
/// a `Value` silently keeps the last of two duplicate keys, a derived
/// struct rejects them.
#[derive(serde::Deserialize)]
#[serde(untagged)]
#[allow(dead_code)] // only whether it decodes is used
enum CodecMessage {
    Response(Response),
    Request(Request),
}

/// What to forward for a message body: the body itself when valid, else a
/// replacement request.
pub fn sanitize(body: &[u8]) -> Vec<u8> {
    let value: Value = match serde_json::from_slice(body) {
        Ok(v) => v,
        Err(e) => {
            return replacement(Value::Null, "parse", &e.to_string());
        }
    };
    // The codec reads the body as a `str` first, then decodes it.
    let codec_decodes =
        std::str::from_utf8(body).is_ok() && serde_json::from_slice::<CodecMessage>(body).is_ok();
    let valid_request = value.get("method").is_some_and(Value::is_string)
        && serde_json::from_slice::<Request>(body).is_ok();
    let valid_response = value.get("method").is_none()
        && (value.get("result").is_some() || value.get("error").is_some())
        && serde_json::from_slice::<Response>(body).is_ok();
    if codec_decodes && (valid_request || valid_response) {
        return body.to_vec();
    }
    let id = match value.get("id") {
        Some(id @ (Value::Number(_) | Value::String(_)))
            if id.as_i64().is_some() || id.is_string() =>
        {
            id.clone()
        }
        _ => Value::Null,
    };
    replacement(
        id,
        "invalid",
        "not a JSON-RPC 2.0 request, notification or response",
    )
}

fn replacement(id: Value, kind: &str, reason: &str) -> Vec<u8> {
    json!({
        "jsonrpc": "2.0",
        "id": id,
        "method": INVALID_METHOD,
        "params": { "kind": kind, "reason": reason },
    })
    .to_string()
    .into_bytes()
}

/// Copies LSP messages from `input` to `output`, sanitising each. Returns at
/// the end of the input (or when `output` is closed).
pub async fn pump<I, O>(input: I, mut output: O)
where
    I: AsyncRead + Unpin,
    O: AsyncWrite + Unpin,
{
    let mut reader = BufReader::new(input);
    loop {
        let mut length: Option<u64> = None;
        let mut saw_header = false;
        loop {
            let mut line = Vec::new();
            match reader.read_until(b'\n', &mut line).await {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
            let text = String::from_utf8_lossy(&line);
            let text = text.trim();
            if text.is_empty() {
                if saw_header {
                    break;
                }
                continue; // stray blank line between messages
            }
            saw_header = true;
            if let Some((name, value)) = text.split_once(':') {
                if name.trim().eq_ignore_ascii_case("content-length") {
                    length = value.trim().parse().ok();
                }
            }
        }
        let Some(length) = length else {
            eprintln!("syncscope lsp: skipped a message without a valid Content-Length header");
            continue;
        };
        let mut body = Vec::new();
        let limited = length.min(MAX_BODY);
        match (&mut reader).take(limited).read_to_end(&mut body).await {
            Ok(n) if n as u64 == limited => {}
            _ => return,
        }
        if limited < length {
            // Discard the rest of an oversized body.
            let mut sink = tokio::io::sink();
            if tokio::io::copy(&mut (&mut reader).take(length - limited), &mut sink)
                .await
                .is_err()
            {
                return;
            }
            body = replacement(Value::Null, "invalid", "message too large");
        }
        let body = sanitize(&body);
        let header = format!("Content-Length: {}\r\n\r\n", body.len());
        if output.write_all(header.as_bytes()).await.is_err()
            || output.write_all(&body).await.is_err()
            || output.flush().await.is_err()
        {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(b: &[u8]) -> Value {
        serde_json::from_slice(&sanitize(b)).unwrap()
    }

    #[test]
    fn valid_messages_pass_unchanged() {
        for m in [
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#,
            r#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#,
            r#"{"jsonrpc":"2.0","method":"exit"}"#,
            r#"{"jsonrpc":"2.0","id":"a","result":null}"#,
            r#"{"jsonrpc":"2.0","id":3,"error":{"code":-1,"message":"x"}}"#,
        ] {
            assert_eq!(sanitize(m.as_bytes()), m.as_bytes(), "{m}");
        }
    }

    #[test]
    fn invalid_messages_become_answerable_requests() {
        let v = parsed(b"this is junk");
        assert_eq!(v["method"], INVALID_METHOD);
        assert_eq!(v["id"], Value::Null);
        assert_eq!(v["params"]["kind"], "parse");
        for junk in [
            &b"[1,2,3]"[..],
            b"{}",
            b"42",
            br#"{"jsonrpc":"1.0","method":"x"}"#,
        ] {
            let v = parsed(junk);
            assert_eq!(
                v["params"]["kind"],
                "invalid",
                "{}",
                String::from_utf8_lossy(junk)
            );
        }
        // Duplicate keys: a `Value` keeps the last, the codec refuses the
        // message (found by the `protocol` fuzz target: the server's input
        // ended there).
        let v = parsed(
            br#"{"jsonrpc":"2.0","method":"a","id":3,"method":"textDocument/codeLens","id":2,"params":{}}"#,
        );
        assert_eq!(v["method"], INVALID_METHOD);
        assert_eq!(v["params"]["kind"], "invalid");
        let v = parsed(br#"{"jsonrpc":"2.0","id":7,"method":5}"#);
        assert_eq!(v["id"], 7);
        assert_eq!(v["params"]["kind"], "invalid");
    }

    #[tokio::test]
    async fn pump_reframes_and_skips_headerless_blocks() {
        let input: &[u8] = b"garbage line\r\n\r\nContent-Length: 4\r\n\r\njunkContent-Length: 33\r\ncontent-type: x\r\n\r\n{\"jsonrpc\":\"2.0\",\"method\":\"exit\"}";
        let mut out = Vec::new();
        pump(input, &mut out).await;
        let text = String::from_utf8(out).unwrap();
        let bodies: Vec<&str> = text.split("Content-Length: ").skip(1).collect();
        assert_eq!(bodies.len(), 2, "{text}");
        assert!(bodies[0].contains(INVALID_METHOD));
        assert!(bodies[1].ends_with("{\"jsonrpc\":\"2.0\",\"method\":\"exit\"}"));
    }
}
