#include "fakes/fake_http_transport.h"

#include <ctime>
#include <algorithm>
#include <cctype>
#include <thread>

#include "store/s3/sigv4.h"

namespace lakedump {
namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// "http://host/bucket/a/b?x=1&y" -> key "a/b", query {x:1, y:""}.
void SplitUrl(const std::string& url, std::string* key, std::map<std::string, std::string>* query) {
  size_t start = url.find("://");
  start = url.find('/', start == std::string::npos ? 0 : start + 3);
  std::string path = start == std::string::npos ? "/" : url.substr(start);
  std::string q;
  if (size_t qm = path.find('?'); qm != std::string::npos) {
    q = path.substr(qm + 1);
    path = path.substr(0, qm);
  }
  size_t bucket_end = path.find('/', 1);
  *key = bucket_end == std::string::npos ? "" : PercentDecode(path.substr(bucket_end + 1));
  size_t pos = 0;
  while (pos < q.size()) {
    size_t amp = q.find('&', pos);
    std::string item = q.substr(pos, amp == std::string::npos ? std::string::npos : amp - pos);
    size_t eq = item.find('=');
    (*query)[PercentDecode(item.substr(0, eq))] =
        eq == std::string::npos ? "" : PercentDecode(item.substr(eq + 1));
    if (amp == std::string::npos) break;
    pos = amp + 1;
  }
}

HttpResponse Xml(long status, std::string body) {
  HttpResponse r;
  r.status = status;
  r.body = std::move(body);
  return r;
}

HttpResponse ErrorXml(long status, const std::string& code) {
  return Xml(status, "<?xml version=\"1.0\"?><Error><Code>" + code +
                         "</Code><Message>fake</Message></Error>");
}

std::string Between(const std::string& s, const std::string& open, const std::string& close,
                    size_t* pos) {
  size_t b = s.find(open, *pos);
  if (b == std::string::npos) return "";
  b += open.size();
  size_t e = s.find(close, b);
  *pos = e + close.size();
  return s.substr(b, e - b);
}

}  // namespace

std::string PercentDecode(std::string_view s, bool plus_is_space) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size()) {
      out.push_back(static_cast<char>(std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16)));
      i += 2;
    } else {
      out.push_back(plus_is_space && s[i] == '+' ? ' ' : s[i]);
    }
  }
  return out;
}

std::string RecordedRequest::Header(std::string_view name) const {
  for (const auto& [k, v] : headers) {
    if (Lower(k) == Lower(name)) return v;
  }
  return "";
}

bool RecordedRequest::HasQuery(std::string_view param) const {
  size_t q = url.find('?');
  if (q == std::string::npos) return false;
  std::string query = "&" + url.substr(q + 1) + "&";
  return query.find("&" + std::string(param) + "&") != std::string::npos ||
         query.find("&" + std::string(param) + "=") != std::string::npos;
}

void FakeHttpTransport::Push(long status, std::string body,
                             std::vector<std::pair<std::string, std::string>> headers) {
  HttpResponse r;
  r.status = status;
  r.body = std::move(body);
  r.headers = std::move(headers);
  std::lock_guard<std::mutex> lock(mu_);
  script_.push_back(std::move(r));
}

Result<HttpResponse> FakeHttpTransport::Send(const HttpRequest& request, std::stop_token stop) {
  int now = ++concurrent_;
  int prev = max_concurrent_.load();
  while (now > prev && !max_concurrent_.compare_exchange_weak(prev, now)) {
  }
  RecordedRequest recorded{request.method, request.url, request.headers, std::string(request.body)};
  if (before_send_) before_send_(recorded);
  std::optional<HttpResponse> scripted;
  {
    std::lock_guard<std::mutex> lock(mu_);
    requests_.push_back(recorded);
    if (!script_.empty()) {
      scripted = std::move(script_.front());
      script_.pop_front();
    }
  }
  Result<HttpResponse> out = Status::Internal("FakeHttpTransport: no scripted response");
  if (stop.stop_requested()) {
    out = Status::Cancelled("cancelled");
  } else if (scripted) {
    if (scripted->status == 0) {
      out = Status::Unavailable("connection reset (fake)");
    } else {
      out = std::move(*scripted);
    }
  } else if (handler_) {
    out = handler_(recorded);
  }
  --concurrent_;
  return out;
}

std::vector<RecordedRequest> FakeHttpTransport::requests() const {
  std::lock_guard<std::mutex> lock(mu_);
  return requests_;
}

FakeHttpTransport::Handler FakeS3Server::AsHandler() {
  return [this](const RecordedRequest& r) { return Handle(r); };
}

Result<HttpResponse> FakeS3Server::Handle(const RecordedRequest& r) {
  std::string key;
  std::map<std::string, std::string> q;
  SplitUrl(r.url, &key, &q);
  std::lock_guard<std::mutex> lock(mu_);
  const std::string md5 = r.Header("Content-MD5");
  if (!md5.empty() && md5 != Md5Base64(r.body)) return ErrorXml(400, "BadDigest");
  if (r.method == "POST" && q.count("uploads")) {
    std::string id = "upload-" + std::to_string(next_upload_++);
    uploads_[id];
    upload_keys_[id] = key;
    return Xml(200, "<InitiateMultipartUploadResult><Key>" + key + "</Key><UploadId>" + id +
                        "</UploadId></InitiateMultipartUploadResult>");
  }
  if (r.method == "PUT" && q.count("uploadId")) {
    auto it = uploads_.find(q["uploadId"]);
    if (it == uploads_.end()) return ErrorXml(404, "NoSuchUpload");
    if (++parts_seen_ == fail_part_nth_) {
      return ErrorXml(fail_part_status_,
                      fail_part_status_ >= 500 ? "InternalError" : "InvalidArgument");
    }
    int n = std::stoi(q["partNumber"]);
    it->second[n] = r.body;
    HttpResponse resp = Xml(200, "");
    resp.headers.emplace_back("etag", "\"etag-" + std::to_string(n) + "\"");
    return resp;
  }
  if (r.method == "POST" && q.count("uploadId")) {
    auto it = uploads_.find(q["uploadId"]);
    if (it == uploads_.end()) return ErrorXml(404, "NoSuchUpload");
    if (complete_error_body_) {
      return Xml(200, "<Error><Code>InvalidPart</Code><Message>bad part</Message></Error>");
    }
    std::string data;
    size_t pos = 0;
    int expected = 1;
    for (;;) {
      std::string num = Between(r.body, "<PartNumber>", "</PartNumber>", &pos);
      if (num.empty()) break;
      if (std::stoi(num) != expected++ || !it->second.count(std::stoi(num))) {
        return ErrorXml(400, "InvalidPart");
      }
      data += it->second[std::stoi(num)];
    }
    objects_[key] = data;
    uploads_.erase(it);
    return Xml(200, "<CompleteMultipartUploadResult><ETag></ETag></CompleteMultipartUploadResult>");
  }
  if (r.method == "DELETE" && q.count("uploadId")) {
    ++aborts_;
    if (!uploads_.erase(q["uploadId"])) return ErrorXml(404, "NoSuchUpload");
    return Xml(204, "");
  }
  if (r.method == "PUT") {
    objects_[key] = r.body;
    HttpResponse resp = Xml(200, "");
    resp.headers.emplace_back("etag", "\"x\"");
    return resp;
  }
  if (r.method == "HEAD" || (r.method == "GET" && !key.empty())) {
    auto it = objects_.find(key);
    if (it == objects_.end()) return r.method == "HEAD" ? Xml(404, "") : ErrorXml(404, "NoSuchKey");
    HttpResponse resp = Xml(200, "");
    resp.headers.emplace_back("etag", "\"e\"");
    if (r.method == "HEAD") {
      resp.headers.emplace_back("content-length", std::to_string(it->second.size()));
      return resp;
    }
    std::string range = r.Header("Range");
    unsigned long long b = 0, e = 0;
    if (std::sscanf(range.c_str(), "bytes=%llu-%llu", &b, &e) == 2) {
      resp.status = 206;
      resp.body = it->second.substr(b, e - b + 1);
    } else {
      resp.body = it->second;
    }
    return resp;
  }
  if (r.method == "GET" && q.count("list-type")) {
    std::string prefix = q["prefix"];
    std::string token = q["continuation-token"];
    std::string body = "<ListBucketResult>";
    int n = 0;
    std::string last;
    bool truncated = false;
    for (const auto& [k, v] : objects_) {
      if (!k.starts_with(prefix) || (!token.empty() && k <= token)) continue;
      if (n == 2) {  // tiny pages to exercise pagination
        truncated = true;
        break;
      }
      body +=
          "<Contents><Key>" + k + "</Key><Size>" + std::to_string(v.size()) + "</Size></Contents>";
      last = k;
      ++n;
    }
    body += std::string("<IsTruncated>") + (truncated ? "true" : "false") + "</IsTruncated>";
    if (truncated) body += "<NextContinuationToken>" + last + "</NextContinuationToken>";
    return Xml(200, body + "</ListBucketResult>");
  }
  if (r.method == "GET" && q.count("uploads")) {
    std::string body = "<ListMultipartUploadsResult>";
    for (const auto& [id, k] : upload_keys_) {
      if (!uploads_.count(id)) continue;
      body += "<Upload><Key>" + k + "</Key><UploadId>" + id +
              "</UploadId><Initiated>2020-01-01T00:00:00.000Z</Initiated></Upload>";
    }
    return Xml(200, body + "<IsTruncated>false</IsTruncated></ListMultipartUploadsResult>");
  }
  if (r.method == "POST" && q.count("delete")) {
    size_t pos = 0;
    for (;;) {
      std::string k = Between(r.body, "<Key>", "</Key>", &pos);
      if (k.empty()) break;
      objects_.erase(k);
    }
    return Xml(200, "<DeleteResult></DeleteResult>");
  }
  return ErrorXml(400, "NotImplementedInFake");
}

std::map<std::string, std::string> FakeS3Server::objects() const {
  std::lock_guard<std::mutex> lock(mu_);
  return objects_;
}

int FakeS3Server::creates() const {
  std::lock_guard<std::mutex> lock(mu_);
  return next_upload_ - 1;
}

size_t FakeS3Server::open_uploads() const {
  std::lock_guard<std::mutex> lock(mu_);
  return uploads_.size();
}

int FakeS3Server::aborts() const {
  std::lock_guard<std::mutex> lock(mu_);
  return aborts_;
}

}  // namespace lakedump
