//! Content-Type for a served file, by extension from mime_guess's database, and whether a
//! type is worth compressing.

/// The Content-Type for `path`, by its extension (case-insensitive) from the mime_guess
/// database. Text-like types get `; charset=utf-8`: `text/*`, JavaScript, JSON, XML, SVG and
/// any `+xml` / `+json`. JavaScript is always `text/javascript` (RFC 9239). Unknown or no extension (including `.bashrc`-style names) is
/// `application/octet-stream`. Allocates; callers cache per path or extension.
///
/// ```
/// use gale_http::files::content_type_for;
///
/// assert_eq!(content_type_for("css/site.css"), "text/css; charset=utf-8");
/// assert_eq!(content_type_for("img/LOGO.PNG"), "image/png");
/// assert_eq!(content_type_for("README"), "application/octet-stream");
/// ```
pub fn content_type_for(path: &str) -> String {
    let name = path.rsplit('/').next().unwrap_or(path);
    let ext = match name.rfind('.') {
        Some(dot) if dot > 0 => &name[dot + 1..],
        _ => return OCTET_STREAM.to_owned(),
    };
    let Some(mime) = mime_guess::from_ext(ext).first() else {
        return OCTET_STREAM.to_owned();
    };
    let essence = match mime.essence_str() {
        // RFC 9239: text/javascript is the one name; the database still has both for .mjs.
        "application/javascript" | "application/x-javascript" => "text/javascript",
        essence => essence,
    };
    if is_text_like(essence) {
        format!("{essence}; charset=utf-8")
    } else {
        essence.to_owned()
    }
}

const OCTET_STREAM: &str = "application/octet-stream";

/// Types whose bytes are text, so a charset applies.
fn is_text_like(essence: &str) -> bool {
    essence.starts_with("text/")
        || essence.ends_with("+xml")
        || essence.ends_with("+json")
        || matches!(
            essence,
            "application/javascript"
                | "application/ecmascript"
                | "application/json"
                | "application/xml"
                | "application/x-javascript"
        )
}

/// Whether a response of `content_type` (parameters allowed) is worth compressing on the fly:
/// text, JSON, JavaScript, XML, SVG, wasm and uncompressed fonts (ttf, otf, eot) — not images,
/// audio, video, archives or woff/woff2, which are compressed already.
///
/// ```
/// use gale_http::files::is_compressible;
///
/// assert!(is_compressible("text/html; charset=utf-8"));
/// assert!(!is_compressible("image/png"));
/// ```
pub fn is_compressible(content_type: &str) -> bool {
    let essence = content_type.split(';').next().unwrap_or_default().trim();
    let essence = essence.to_ascii_lowercase();
    is_text_like(&essence)
        || matches!(
            essence.as_str(),
            "application/wasm"
                | "font/ttf"
                | "font/otf"
                | "application/x-font-ttf"
                | "application/x-font-otf"
                | "application/font-sfnt"
                | "application/vnd.ms-fontobject"
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_types() {
        let table: &[(&str, &str)] = &[
            ("index.html", "text/html; charset=utf-8"),
            ("a/b/page.htm", "text/html; charset=utf-8"),
            ("site.css", "text/css; charset=utf-8"),
            ("app.js", "text/javascript; charset=utf-8"),
            ("mod.mjs", "text/javascript; charset=utf-8"),
            ("data.json", "application/json; charset=utf-8"),
            ("logo.svg", "image/svg+xml; charset=utf-8"),
            ("feed.xml", "text/xml; charset=utf-8"),
            ("notes.txt", "text/plain; charset=utf-8"),
            ("pic.png", "image/png"),
            ("PIC.PNG", "image/png"),
            ("Index.HTML", "text/html; charset=utf-8"),
            ("photo.jpg", "image/jpeg"),
            ("font.woff2", "font/woff2"),
            ("app.wasm", "application/wasm"),
            ("doc.pdf", "application/pdf"),
            ("file.unknownext", OCTET_STREAM),
            ("README", OCTET_STREAM),
            ("dir.d/README", OCTET_STREAM),
            (".bashrc", OCTET_STREAM),
            ("a/.bashrc", OCTET_STREAM),
            ("trailing.", OCTET_STREAM),
            ("", OCTET_STREAM),
            ("archive.tar.gz", "application/gzip"),
        ];
        for (path, want) in table {
            assert_eq!(content_type_for(path), *want, "{path}");
        }
    }

    #[test]
    fn compressible() {
        let table: &[(&str, bool)] = &[
            ("text/html; charset=utf-8", true),
            ("text/css", true),
            ("TEXT/PLAIN", true),
            ("text/javascript; charset=utf-8", true),
            ("application/javascript", true),
            ("application/json", true),
            ("application/manifest+json", true),
            ("application/xml", true),
            ("application/rss+xml", true),
            ("image/svg+xml; charset=utf-8", true),
            ("application/wasm", true),
            ("font/ttf", true),
            ("font/otf", true),
            ("application/x-font-ttf", true),
            ("application/vnd.ms-fontobject", true),
            ("font/woff2", false),
            ("font/woff", false),
            ("image/png", false),
            ("image/jpeg", false),
            ("video/mp4", false),
            ("audio/mpeg", false),
            ("application/zip", false),
            ("application/gzip", false),
            ("application/pdf", false),
            ("application/octet-stream", false),
            ("", false),
        ];
        for (ct, want) in table {
            assert_eq!(is_compressible(ct), *want, "{ct}");
        }
    }
}
