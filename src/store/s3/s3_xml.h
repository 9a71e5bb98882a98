// The XML bodies of the S3 API, parsed and built with pugixml. Stateless
// functions; thread-safe. Parsers return Corruption for a body that is not
// what the operation promises (so a proxy's HTML page is never "success").
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace lakedump {

struct S3Error {
  std::string code;  // "NoSuchKey", "SlowDown"...
  std::string message;
};

// The <Error> document, or nullopt when the body is not one.
std::optional<S3Error> ParseS3Error(std::string_view body);

Result<std::string> ParseUploadId(std::string_view body);

// An ETag as S3 sends it ("\"<hex>\"" or "\"<hex>-N\"", in a header or a listing) without
// its quotes, in lower case: the form ObjectInfo::etag and Md5Etag() use.
std::string UnquoteEtag(std::string_view etag);

struct ListedObject {
  std::string key;  // full key, with the store prefix
  uint64_t size = 0;
  std::string etag;  // UnquoteEtag'ed; "" when the listing gave none
};
struct ListObjectsPage {
  std::vector<ListedObject> objects;
  bool truncated = false;
  std::string next_continuation_token;
};
Result<ListObjectsPage> ParseListObjectsV2(std::string_view body);

struct MultipartUpload {
  std::string key;
  std::string upload_id;
  std::chrono::system_clock::time_point initiated;
};

// One uploaded part, as CompleteMultipartUpload lists it.
struct UploadedPart {
  std::string etag;
  std::string checksum_crc32c;  // "" unless the upload was created with CRC32C
};

struct ListUploadsPage {
  std::vector<MultipartUpload> uploads;
  bool truncated = false;
  std::string next_key_marker;
  std::string next_upload_id_marker;
};
Result<ListUploadsPage> ParseListMultipartUploads(std::string_view body);

// Keys that DeleteObjects failed to delete, with their error, as one message;
// OK when none failed.
Status ParseDeleteResult(std::string_view body);

// CompleteMultipartUpload: the body may be an <Error> even with HTTP 200.
Status ParseCompleteResult(std::string_view body);

std::string BuildCompleteMultipartXml(const std::vector<UploadedPart>& parts);  // parts 1..N
// REQUIRES: XmlCanCarry(key) for every key. \t, \n and \r are written as character
// references (&#9; &#10; &#13;), so that XML's line-end normalization cannot turn "a\rb" into
// "a\nb" and delete another key (or none).
std::string BuildDeleteObjectsXml(const std::vector<std::string>& keys);
// Whether XML 1.0 can carry `text` at all: valid UTF-8 of Chars only (no C0 control other than
// tab, LF, CR; no U+FFFE/U+FFFF). Keys it cannot carry are deleted with a single DELETE.
bool XmlCanCarry(std::string_view text);

// "Sun, 06 Nov 1994 08:49:37 GMT" (an HTTP date: Last-Modified) -> time point;
// nullopt when malformed.
std::optional<std::chrono::system_clock::time_point> ParseHttpDate(std::string_view text);

// "2026-11-29T23:52:17.000Z" -> time point; nullopt when malformed.
std::optional<std::chrono::system_clock::time_point> ParseIso8601(std::string_view text);

}  // namespace lakedump
