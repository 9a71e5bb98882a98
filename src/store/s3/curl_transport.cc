// The one place that talks to libcurl. Blocking easy handles from a pool: each
// upload-pool thread drives one transfer at a time, and a handle returned to
// the pool keeps its connection for the next request (keep-alive).
#include <curl/curl.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstring>
#include <deque>
#include <mutex>
#include <vector>

#include "store/s3/http_transport.h"

namespace lakedump {

std::string HttpResponse::Header(std::string_view name) const {
  for (const auto& [k, v] : headers) {
    if (k == name) return v;
  }
  return "";
}

namespace {

struct CurlDeleter {
  void operator()(CURL* h) const { curl_easy_cleanup(h); }
};
// An easy handle and the socket of its connection (curl keeps one connection
// per easy handle here: connections are not shared), for the rate watch.
struct PooledHandle {
  curl_socket_t fd = CURL_SOCKET_BAD;  // declared first: curl's cleanup still updates it
  std::unique_ptr<CURL, CurlDeleter> curl;
};
using CurlHandle = std::unique_ptr<PooledHandle>;

int RememberSocket(void* clientp, curl_socket_t fd, curlsocktype) {
  static_cast<PooledHandle*>(clientp)->fd = fd;
  return CURL_SOCKOPT_OK;
}

int ForgetSocket(void* clientp, curl_socket_t fd) {
  auto* handle = static_cast<PooledHandle*>(clientp);
  if (handle->fd == fd) handle->fd = CURL_SOCKET_BAD;
  return ::close(fd);
}
struct SlistDeleter {
  void operator()(curl_slist* l) const { curl_slist_free_all(l); }
};
struct ShareDeleter {
  void operator()(CURLSH* s) const { curl_share_cleanup(s); }
};

struct ReadState {
  std::string_view body;
  size_t offset = 0;
};

size_t ReadBody(char* buffer, size_t size, size_t nitems, void* userdata) {
  auto* state = static_cast<ReadState*>(userdata);
  size_t n = std::min(size * nitems, state->body.size() - state->offset);
  std::memcpy(buffer, state->body.data() + state->offset, n);
  state->offset += n;
  return n;
}

int SeekBody(void* userdata, curl_off_t offset, int origin) {
  auto* state = static_cast<ReadState*>(userdata);
  if (origin != SEEK_SET || offset < 0 || static_cast<size_t>(offset) > state->body.size()) {
    return CURL_SEEKFUNC_FAIL;
  }
  state->offset = static_cast<size_t>(offset);
  return CURL_SEEKFUNC_OK;
}

// Where a reply's body goes, under HttpRequest's caps (the status comes from the status line,
// which WriteHeader stores in response->status before any body byte arrives).
struct BodySink {
  HttpResponse* response = nullptr;
  uint64_t max_ok = kMaxReplyBody;
  uint64_t cap = 0;  // the cap that was passed, when over
  bool over = false;
};

size_t WriteBody(char* data, size_t size, size_t nmemb, void* userdata) {
  auto* sink = static_cast<BodySink*>(userdata);
  const long status = sink->response->status;
  const uint64_t cap = status >= 200 && status < 300 ? sink->max_ok : kMaxErrorBody;
  std::string& body = sink->response->body;
  if (body.size() + size * nmemb > cap) {
    sink->over = true;
    sink->cap = cap;
    return 0;  // CURLE_WRITE_ERROR: the transfer stops here
  }
  body.append(data, size * nmemb);
  return size * nmemb;
}

// The status of an "HTTP/1.1 200 OK" line, 0 when there is none.
long StatusOfLine(std::string_view line) {
  const size_t space = line.find(' ');
  if (space == std::string_view::npos || line.size() < space + 4) return 0;
  long status = 0;
  for (char c : line.substr(space + 1, 3)) {
    if (c < '0' || c > '9') return 0;
    status = status * 10 + (c - '0');
  }
  return status;
}

size_t WriteHeader(char* data, size_t size, size_t nitems, void* userdata) {
  auto* response = static_cast<HttpResponse*>(userdata);
  std::string_view line(data, size * nitems);
  if (line.starts_with("HTTP/")) {
    response->headers.clear();  // a new response (after 100 Continue or a redirect)
    response->body.clear();
    response->status = StatusOfLine(line);
    return line.size();
  }
  size_t colon = line.find(':');
  if (colon != std::string_view::npos) {
    std::string name(line.substr(0, colon));
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    std::string_view value = line.substr(colon + 1);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t'))
      value.remove_prefix(1);
    while (!value.empty() &&
           (value.back() == '\r' || value.back() == '\n' || value.back() == ' ')) {
      value.remove_suffix(1);
    }
    response->headers.emplace_back(std::move(name), std::string(value));
  }
  return line.size();
}

// The minimum-rate watch (CurlTransportOptions::min_rate). Bytes count when
// they leave this host: the upload's bytes handed to the socket minus those
// still queued in it (SIOCOUTQ), so that a body swallowed by a large socket
// buffer on a slow link is not mistaken for a server that stopped answering.
// The rate is taken over the last `window`, from the transfer's start on, so a
// server that never answers is caught as well. Owned by one Send call.
struct ProgressState {
  std::stop_token stop;
  std::stop_token hurry;
  // The transfer started with hurry already requested: CURLOPT_TIMEOUT_MS (kHurryGrace) ends it.
  bool hurried_at_start = false;
  bool hurried = false;
  const PooledHandle* handle = nullptr;
  uint64_t min_rate = 0;
  std::chrono::seconds window{30};
  std::deque<std::pair<std::chrono::steady_clock::time_point, uint64_t>> samples;
  bool too_slow = false;

  int Check(uint64_t moved) {
    if (stop.stop_requested()) return 1;
    if (hurry.stop_requested() && !hurried_at_start) {  // in flight when the run was interrupted
      hurried = true;
      return 1;
    }
    if (min_rate == 0) return 0;
    const auto now = std::chrono::steady_clock::now();
    if (!samples.empty() && now - samples.back().first < std::chrono::milliseconds(250)) return 0;
    samples.emplace_back(now, moved);
    // Keep the newest sample that is at least a window old, and the ones after it.
    while (samples.size() > 2 && now - samples[1].first >= window) samples.pop_front();
    const auto& [then, then_moved] = samples.front();
    const auto span = std::chrono::duration<double>(now - then).count();
    if (now - then < window || span <= 0) return 0;
    if (static_cast<double>(moved - std::min(moved, then_moved)) / span >=
        static_cast<double>(min_rate)) {
      return 0;
    }
    too_slow = true;
    return 1;
  }
};

int Progress(void* userdata, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
             curl_off_t ulnow) {
  (void)dltotal;
  (void)ultotal;
  auto* state = static_cast<ProgressState*>(userdata);
  uint64_t sent = static_cast<uint64_t>(std::max<curl_off_t>(0, ulnow));
  if (sent > 0) {
    const curl_socket_t fd = state->handle->fd;
    int queued = 0;
    if (fd != CURL_SOCKET_BAD && ::ioctl(fd, SIOCOUTQ, &queued) == 0 && queued > 0) {
      sent -= std::min<uint64_t>(sent, static_cast<uint64_t>(queued));
    }
  }
  return state->Check(sent + static_cast<uint64_t>(std::max<curl_off_t>(0, dlnow)));
}

bool Transient(CURLcode code) {
  switch (code) {
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_CONNECT:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_WRITE_ERROR:
    case CURLE_READ_ERROR:
      return true;
    default:
      return false;
  }
}

class CurlTransport final : public HttpTransport {
 public:
  explicit CurlTransport(const CurlTransportOptions& options) : options_(options) {
    static std::once_flag init;
    std::call_once(init, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
    share_.reset(curl_share_init());
    curl_share_setopt(share_.get(), CURLSHOPT_LOCKFUNC, &CurlTransport::Lock);
    curl_share_setopt(share_.get(), CURLSHOPT_UNLOCKFUNC, &CurlTransport::Unlock);
    curl_share_setopt(share_.get(), CURLSHOPT_USERDATA, this);
    curl_share_setopt(share_.get(), CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
    curl_share_setopt(share_.get(), CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
  }

  ~CurlTransport() override {
    idle_.clear();  // handles reference the share: clean them up first
  }

  Result<HttpResponse> Send(const HttpRequest& request, std::stop_token stop) override {
    CurlHandle handle = Borrow();
    CURL* h = handle->curl.get();
    HttpResponse response;
    ReadState body{request.body, 0};
    BodySink sink{&response, request.max_body};
    ProgressState progress;
    progress.stop = stop;
    progress.hurry = request.hurry;
    progress.hurried_at_start = request.hurry.stop_requested();
    progress.handle = handle.get();
    progress.min_rate = options_.min_rate;
    progress.window = std::max(std::chrono::seconds(1), options_.min_rate_window);
    std::unique_ptr<curl_slist, SlistDeleter> headers;
    for (const auto& [name, value] : request.headers) {
      std::string line = name + ": " + value;
      headers.reset(curl_slist_append(headers.release(), line.c_str()));
    }
    // No "Expect: 100-continue" round trip, no default Content-Type.
    headers.reset(curl_slist_append(headers.release(), "Expect:"));
    headers.reset(curl_slist_append(headers.release(), "Content-Type:"));
    Configure(handle.get(), request, headers.get());
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &sink);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, &response);
    curl_easy_setopt(h, CURLOPT_XFERINFODATA, &progress);
    if (progress.hurried_at_start) {
      curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, static_cast<long>(kHurryGrace.count()));
    }
    if (request.method == "PUT" || request.method == "POST") {
      curl_easy_setopt(h, CURLOPT_READDATA, &body);
      curl_easy_setopt(h, CURLOPT_SEEKDATA, &body);
    }
    char detail[CURL_ERROR_SIZE] = {0};
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, detail);
    CURLcode code = curl_easy_perform(h);
    if (code != CURLE_OK) {
      // A failed handle may hold a broken connection: do not return it to the pool.
      if (code == CURLE_ABORTED_BY_CALLBACK && stop.stop_requested()) {
        return Status::Cancelled(request.method + " cancelled");
      }
      if (sink.over) {
        return Status::IOError("reply to " + request.method + " " + StripQuery(request.url) +
                               " (HTTP " + std::to_string(response.status) + ") is larger than " +
                               std::to_string(sink.cap) + " bytes: refused");
      }
      return Failure(request, code, detail, progress);
    }
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &response.status);
    // A reply shorter than its Content-Length was cut short in transit (curl
    // usually says so itself): retryable, and the connection is not reused.
    const std::string length = response.Header("content-length");
    if (request.method != "HEAD" && !length.empty() &&
        length != std::to_string(response.body.size())) {
      return Status::Unavailable("reply cut short: " + std::to_string(response.body.size()) +
                                 " of " + length + " bytes (" + request.method + " " +
                                 StripQuery(request.url) + ")");
    }
    Return(std::move(handle));
    return response;
  }

 private:
  static std::string StripQuery(const std::string& url) { return url.substr(0, url.find('?')); }

  // Every option of a transfer but the per-call data pointers (set by Send).
  void Configure(PooledHandle* handle, const HttpRequest& request, curl_slist* headers) {
    CURL* h = handle->curl.get();
    curl_easy_reset(h);
    curl_easy_setopt(h, CURLOPT_SOCKOPTFUNCTION, &RememberSocket);
    curl_easy_setopt(h, CURLOPT_SOCKOPTDATA, handle);
    curl_easy_setopt(h, CURLOPT_CLOSESOCKETFUNCTION, &ForgetSocket);
    curl_easy_setopt(h, CURLOPT_CLOSESOCKETDATA, handle);
    curl_easy_setopt(h, CURLOPT_SHARE, share_.get());
    curl_easy_setopt(h, CURLOPT_URL, request.url.c_str());
    // The path is sent as signed: curl must not squash "/../" or "/./" (a listed key is
    // addressed literally, never as another one).
    curl_easy_setopt(h, CURLOPT_PATH_AS_IS, 1L);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS,
                     static_cast<long>(options_.connect_timeout.count()));
    // No CURLOPT_TIMEOUT: the progress callback enforces the minimum rate.
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 1L);
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 2L);
    if (!options_.ca_bundle.empty())
      curl_easy_setopt(h, CURLOPT_CAINFO, options_.ca_bundle.c_str());
    curl_easy_setopt(h, CURLOPT_TCP_NODELAY, 1L);
    curl_easy_setopt(h, CURLOPT_BUFFERSIZE, 256L * 1024);
    curl_easy_setopt(h, CURLOPT_UPLOAD_BUFFERSIZE, 1024L * 1024);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, &WriteBody);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, &WriteHeader);
    curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, &Progress);
    if (request.method == "HEAD") {
      curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
    } else if (request.method == "PUT" || request.method == "POST") {
      curl_easy_setopt(h, CURLOPT_UPLOAD, 1L);
      curl_easy_setopt(h, CURLOPT_READFUNCTION, &ReadBody);
      curl_easy_setopt(h, CURLOPT_SEEKFUNCTION, &SeekBody);
      curl_easy_setopt(h, CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
      if (request.method == "POST") curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, "POST");
    } else if (request.method != "GET") {
      curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, request.method.c_str());
    }
  }

  // The Status of a transfer that failed (not cancelled, not over a cap).
  Status Failure(const HttpRequest& request, CURLcode code, const char* detail,
                 const ProgressState& progress) const {
    const std::string what = " (" + request.method + " " + StripQuery(request.url) + ")";
    if (progress.hurried || (progress.hurried_at_start && code == CURLE_OPERATION_TIMEDOUT)) {
      return Status::Unavailable("abandoned: the run was interrupted" + what);
    }
    if (progress.too_slow) {  // (curl 7.88 reports the abort as a timeout)
      return Status::Unavailable("transfer slower than " + std::to_string(options_.min_rate) +
                                 " bytes/s over " + std::to_string(progress.window.count()) +
                                 " s (--s3-min-rate)" + what);
    }
    // curl's own words, first line only and short (a TLS library may say a lot).
    std::string said = detail[0] != '\0' ? std::string(detail) : curl_easy_strerror(code);
    said = said.substr(0, said.find('\n'));
    if (said.size() > 160) said = said.substr(0, 157) + "...";
    std::string msg = said + what;
    if (code == CURLE_PEER_FAILED_VERIFICATION || code == CURLE_SSL_CACERT_BADFILE) {
      msg += ": the endpoint's TLS certificate is not trusted; pass --ca-bundle (AWS_CA_BUNDLE)";
    }
    return Transient(code) ? Status::Unavailable(msg) : Status::IOError(msg);
  }

  static void Lock(CURL*, curl_lock_data data, curl_lock_access, void* userptr) {
    static_cast<CurlTransport*>(userptr)->share_mu_[data % kLocks].lock();
  }
  static void Unlock(CURL*, curl_lock_data data, void* userptr) {
    static_cast<CurlTransport*>(userptr)->share_mu_[data % kLocks].unlock();
  }

  CurlHandle Borrow() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!idle_.empty()) {
        CurlHandle h = std::move(idle_.back());
        idle_.pop_back();
        return h;
      }
    }
    auto fresh = std::make_unique<PooledHandle>();
    fresh->curl.reset(curl_easy_init());
    return fresh;
  }

  void Return(CurlHandle handle) {
    std::lock_guard<std::mutex> lock(mu_);
    if (idle_.size() < 64) idle_.push_back(std::move(handle));
  }

  static constexpr int kLocks = 8;
  const CurlTransportOptions options_;
  std::unique_ptr<CURLSH, ShareDeleter> share_;
  std::mutex share_mu_[kLocks];
  std::mutex mu_;
  std::vector<CurlHandle> idle_;  // GUARDED_BY(mu_)
};

}  // namespace

std::unique_ptr<HttpTransport> NewCurlTransport(const CurlTransportOptions& options) {
  return std::make_unique<CurlTransport>(options);
}

}  // namespace lakedump
