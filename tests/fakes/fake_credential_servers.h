// Fake credential servers on 127.0.0.1, driven by real sockets so that lakedump's curl
// transport meets them as it would the real ones: STS (AssumeRole and
// AssumeRoleWithWebIdentity, answering the real XML shapes and <ErrorResponse>), the container
// credentials endpoint (ECS / EKS Pod Identity) and IMDSv2. Each records every request it
// served (method, path, headers, body), so tests check what lakedump sends: the token header,
// the web identity token, the role ARN, the signature's key id. One connection at a time, each
// closed after its reply. Thread-safe; not copyable.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "fakes/sync.h"

namespace lakedump {

struct ServedRequest {
  std::string method;
  std::string path;  // with its query
  std::map<std::string, std::string> headers;  // names lower-cased
  std::string body;

  std::string Header(const std::string& lower_name) const;
  // The form-encoded body's parameter `name` (decoded), "" when absent.
  std::string Form(const std::string& name) const;
};

struct FakeReply {
  int status = 200;
  std::string body;
  std::string content_type = "text/plain";
};

// The socket server the fakes below share: answers each request with handler(request).
class LoopbackHttpServer {
 public:
  using Handler = std::function<FakeReply(const ServedRequest&)>;
  explicit LoopbackHttpServer(Handler handler);
  ~LoopbackHttpServer();
  LoopbackHttpServer(const LoopbackHttpServer&) = delete;
  LoopbackHttpServer& operator=(const LoopbackHttpServer&) = delete;

  std::string endpoint() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::vector<ServedRequest> requests() const;

 private:
  void Serve(std::stop_token stop);
  void ServeOne(int fd);

  Handler handler_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<int> conn_fd_{-1};
  mutable std::mutex mu_;
  std::vector<ServedRequest> requests_;  // GUARDED_BY(mu_)
  std::jthread thread_;
};

// The credentials a fake hands out: the nth (1-based) issue gets "<prefix>n" for each.
struct IssuedCredentials {
  std::string access_key_id = "ASIAFAKEKEY";
  std::string secret_access_key = "fake-secret-";
  std::string session_token = "fake-session-token-";
  std::string expiration = "2026-12-01T01:00:00Z";  // FakeClock's start + 1 hour
  bool numbered = true;  // false: the same keys each time (not the token)
};

// What the fakes below share: scripted failures, a one-off reply and the credentials they hand
// out. Thread-safe.
class ScriptedFake {
 public:
  // The next reply with credentials is this body with status 200 (a malformed document).
  void ReplyOnce(std::string body);
  void set_issued(IssuedCredentials issued);
  // Credentials handed out so far.
  int issued() const;

 protected:
  // The next `count` requests answer `reply`.
  void SetFailures(int count, FakeReply reply);
  // A failure due now, else nullopt. REQUIRES: mu_ held.
  std::optional<FakeReply> FailureLocked();
  // The one-off reply (as `content_type`) if one is due, else nullopt. REQUIRES: mu_ held.
  std::optional<FakeReply> ReplyOnceLocked(const std::string& content_type);

  mutable std::mutex mu_;
  IssuedCredentials issue_;  // GUARDED_BY(mu_)
  int issued_ = 0;           // GUARDED_BY(mu_)

 private:
  int fail_count_ = 0;      // GUARDED_BY(mu_)
  FakeReply fail_reply_;    // GUARDED_BY(mu_)
  std::string reply_once_;  // GUARDED_BY(mu_)
};

class FakeStsServer : public ScriptedFake {
 public:
  FakeStsServer();
  std::string endpoint() const { return server_.endpoint(); }
  std::vector<ServedRequest> requests() const { return server_.requests(); }

  // AssumeRoleWithWebIdentity accepts only this token (InvalidIdentityToken otherwise).
  void set_web_identity_token(std::string token);
  // AssumeRole accepts only requests signed (InvalidClientTokenId otherwise), by an access key
  // id that starts with this one ("": any).
  void set_signing_key_id(std::string key_id);
  // The next `count` requests answer `status` with an <ErrorResponse> of `code` and `message`.
  void Fail(int count, int status, const std::string& code, const std::string& message);

 private:
  FakeReply Handle(const ServedRequest& request);

  std::string web_identity_token_ = "fake-web-identity-token";  // GUARDED_BY(mu_)
  std::string signing_key_id_;                                  // GUARDED_BY(mu_)
  LoopbackHttpServer server_;  // last: destroyed (joined) first
};

class FakeContainerServer : public ScriptedFake {
 public:
  FakeContainerServer();
  std::string endpoint() const { return server_.endpoint(); }
  std::vector<ServedRequest> requests() const { return server_.requests(); }

  // Requests without "Authorization: <token>" get 401 (an empty token: none is checked).
  void set_authorization(std::string token);
  // The next `count` requests answer `status` with {"code": code, "message": message}.
  void Fail(int count, int status, const std::string& code, const std::string& message);

 private:
  FakeReply Handle(const ServedRequest& request);

  std::string authorization_;  // GUARDED_BY(mu_)
  LoopbackHttpServer server_;
};

class FakeImdsServer : public ScriptedFake {
 public:
  FakeImdsServer();
  std::string endpoint() const { return server_.endpoint(); }
  std::vector<ServedRequest> requests() const { return server_.requests(); }

  void set_role(std::string role);  // "" = the instance has no role (404)
  // Every token handed out so far stops working (401), as after its TTL.
  void ExpireTokens();
  // The token PUT answers this status (e.g. 403: IMDSv2 tokens refused).
  void set_token_status(int status);
  int tokens_issued() const;
  // Runs as each request arrives, before the reply (e.g. to time the first one).
  void set_on_request(std::function<void(const ServedRequest&)> hook);

 private:
  FakeReply Handle(const ServedRequest& request);

  std::string role_ = "lakedump-test-role";  // GUARDED_BY(mu_)
  int token_status_ = 200;
  int tokens_ = 0;
  int valid_from_ = 1;  // tokens numbered below this are expired
  std::function<void(const ServedRequest&)> on_request_;
  LoopbackHttpServer server_;
};

}  // namespace lakedump
