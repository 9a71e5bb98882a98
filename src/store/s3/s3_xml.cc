#include "store/s3/s3_xml.h"

#include "base/utf8.h"

#include <cctype>
#include <cstdio>
#include <ctime>
#include <pugixml.hpp>
#include <sstream>

namespace lakedump {
namespace {

bool Load(pugi::xml_document* doc, std::string_view body) {
  return doc->load_buffer(body.data(), body.size(), pugi::parse_default, pugi::encoding_utf8);
}

std::string Text(const pugi::xml_node& node, const char* child) {
  return node.child(child).text().as_string();
}

Status NotA(std::string_view what, std::string_view body) {
  std::string head(body.substr(0, 120));
  for (char& c : head) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return Status::Corruption("S3 response is not a " + std::string(what) + ": \"" + head + "\"");
}

void Escape(std::string* out, std::string_view s) {
  for (char c : s) {
    switch (c) {
      case '&':
        *out += "&amp;";
        break;
      case '<':
        *out += "&lt;";
        break;
      case '>':
        *out += "&gt;";
        break;
      case '"':
        *out += "&quot;";
        break;
      case '\'':
        *out += "&apos;";
        break;
      case '\t':
        *out += "&#9;";
        break;
      case '\n':
        *out += "&#10;";
        break;
      case '\r':
        *out += "&#13;";
        break;
      default:
        out->push_back(c);
    }
  }
}

}  // namespace

bool XmlCanCarry(std::string_view text) {
  if (!IsValidUtf8(text)) return false;
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') return false;
    // U+FFFE and U+FFFF: EF BF BE / EF BF BF.
    if (c == 0xEF && i + 2 < text.size() && static_cast<unsigned char>(text[i + 1]) == 0xBF &&
        static_cast<unsigned char>(text[i + 2]) >= 0xBE) {
      return false;
    }
  }
  return true;
}

std::optional<S3Error> ParseS3Error(std::string_view body) {
  pugi::xml_document doc;
  if (body.empty() || !Load(&doc, body)) return std::nullopt;
  pugi::xml_node error = doc.child("Error");
  if (!error) return std::nullopt;
  return S3Error{Text(error, "Code"), Text(error, "Message")};
}

std::string UnquoteEtag(std::string_view etag) {
  if (etag.size() >= 2 && etag.front() == '"' && etag.back() == '"') {
    etag = etag.substr(1, etag.size() - 2);
  }
  std::string out(etag);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

Result<std::string> ParseUploadId(std::string_view body) {
  pugi::xml_document doc;
  if (!Load(&doc, body)) return NotA("InitiateMultipartUploadResult", body);
  std::string id = Text(doc.child("InitiateMultipartUploadResult"), "UploadId");
  if (id.empty()) return NotA("InitiateMultipartUploadResult", body);
  return id;
}

Result<ListObjectsPage> ParseListObjectsV2(std::string_view body) {
  pugi::xml_document doc;
  pugi::xml_node root;
  if (!Load(&doc, body) || !(root = doc.child("ListBucketResult"))) {
    return NotA("ListBucketResult", body);
  }
  ListObjectsPage page;
  for (pugi::xml_node c : root.children("Contents")) {
    page.objects.push_back(
        {Text(c, "Key"), c.child("Size").text().as_ullong(), UnquoteEtag(Text(c, "ETag"))});
  }
  page.truncated = std::string_view(root.child("IsTruncated").text().as_string()) == "true";
  page.next_continuation_token = Text(root, "NextContinuationToken");
  return page;
}

Result<ListUploadsPage> ParseListMultipartUploads(std::string_view body) {
  pugi::xml_document doc;
  pugi::xml_node root;
  if (!Load(&doc, body) || !(root = doc.child("ListMultipartUploadsResult"))) {
    return NotA("ListMultipartUploadsResult", body);
  }
  ListUploadsPage page;
  for (pugi::xml_node u : root.children("Upload")) {
    MultipartUpload upload{Text(u, "Key"), Text(u, "UploadId"), {}};
    auto t = ParseIso8601(Text(u, "Initiated"));
    if (!t) return Status::Corruption("upload " + upload.key + " has a malformed Initiated date");
    upload.initiated = *t;
    page.uploads.push_back(std::move(upload));
  }
  page.truncated = std::string_view(root.child("IsTruncated").text().as_string()) == "true";
  page.next_key_marker = Text(root, "NextKeyMarker");
  page.next_upload_id_marker = Text(root, "NextUploadIdMarker");
  return page;
}

Status ParseDeleteResult(std::string_view body) {
  pugi::xml_document doc;
  pugi::xml_node root;
  if (!Load(&doc, body) || !(root = doc.child("DeleteResult"))) {
    if (auto error = ParseS3Error(body)) {
      return Status::IOError("DeleteObjects failed: " + error->code + ": " + error->message);
    }
    return NotA("DeleteResult", body);
  }
  std::string failed;
  int count = 0;
  for (pugi::xml_node e : root.children("Error")) {
    if (++count <= 3) {
      failed += (failed.empty() ? "" : ", ") + Text(e, "Key") + " (" + Text(e, "Code") + ")";
    }
  }
  if (count == 0) return Status::OK();
  return Status::IOError("could not delete " + std::to_string(count) + " objects: " + failed);
}

Status ParseCompleteResult(std::string_view body) {
  if (auto error = ParseS3Error(body)) {
    Status s =
        Status::IOError("CompleteMultipartUpload failed: " + error->code + ": " + error->message);
    // InternalError/SlowDown inside a 200: the server asks us to try again.
    if (error->code == "InternalError" || error->code == "SlowDown" ||
        error->code == "ServiceUnavailable" || error->code == "RequestTimeout") {
      return Status::Unavailable(s.message());
    }
    return s;
  }
  pugi::xml_document doc;
  if (!Load(&doc, body) || !doc.child("CompleteMultipartUploadResult")) {
    return NotA("CompleteMultipartUploadResult", body);
  }
  return Status::OK();
}

std::string BuildCompleteMultipartXml(const std::vector<UploadedPart>& parts) {
  std::string out = "<CompleteMultipartUpload>";
  for (size_t i = 0; i < parts.size(); ++i) {
    out += "<Part><PartNumber>" + std::to_string(i + 1) + "</PartNumber><ETag>";
    Escape(&out, parts[i].etag);
    out += "</ETag>";
    if (!parts[i].checksum_crc32c.empty()) {
      out += "<ChecksumCRC32C>";
      Escape(&out, parts[i].checksum_crc32c);
      out += "</ChecksumCRC32C>";
    }
    out += "</Part>";
  }
  out += "</CompleteMultipartUpload>";
  return out;
}

std::string BuildDeleteObjectsXml(const std::vector<std::string>& keys) {
  std::string out = "<Delete><Quiet>true</Quiet>";
  for (const auto& key : keys) {
    out += "<Object><Key>";
    Escape(&out, key);
    out += "</Key></Object>";
  }
  out += "</Delete>";
  return out;
}

std::optional<std::chrono::system_clock::time_point> ParseHttpDate(std::string_view text) {
  std::tm tm{};
  std::string str(text);
  const char* end = strptime(str.c_str(), "%a, %d %b %Y %H:%M:%S GMT", &tm);
  if (end == nullptr || *end != '\0') return std::nullopt;
  std::time_t t = timegm(&tm);
  if (t == -1) return std::nullopt;
  return std::chrono::system_clock::from_time_t(t);
}

std::optional<std::chrono::system_clock::time_point> ParseIso8601(std::string_view text) {
  std::tm tm{};
  int y, mo, d, h, mi;
  double s;
  std::string str(text);
  if (std::sscanf(str.c_str(), "%d-%d-%dT%d:%d:%lf", &y, &mo, &d, &h, &mi, &s) != 6) {
    return std::nullopt;
  }
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = static_cast<int>(s);
  std::time_t t = timegm(&tm);
  if (t == -1) return std::nullopt;
  return std::chrono::system_clock::from_time_t(t);
}

}  // namespace lakedump
