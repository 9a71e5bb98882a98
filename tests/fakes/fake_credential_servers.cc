#include "fakes/fake_credential_servers.h"

#include "fakes/fake_http_transport.h"
#include "fakes/raw_http_server.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <utility>

namespace lakedump {
namespace {

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Parses "METHOD path HTTP/1.1\r\nName: value\r\n...\r\n\r\n" into *request; the body's length.
size_t ParseHead(const std::string& head, ServedRequest* request) {
  size_t line_end = head.find("\r\n");
  const std::string first = head.substr(0, line_end);
  const size_t sp1 = first.find(' ');
  const size_t sp2 = first.find(' ', sp1 + 1);
  request->method = first.substr(0, sp1);
  request->path = first.substr(sp1 + 1, sp2 - sp1 - 1);
  while (line_end != std::string::npos && line_end + 2 < head.size()) {
    const size_t next = head.find("\r\n", line_end + 2);
    const std::string line = head.substr(line_end + 2, next - line_end - 2);
    const size_t colon = line.find(':');
    if (colon != std::string::npos) {
      std::string value = line.substr(colon + 1);
      while (!value.empty() && value.front() == ' ') value.erase(0, 1);
      request->headers[Lower(line.substr(0, colon))] = value;
    }
    line_end = next;
  }
  const std::string length = request->Header("content-length");
  return length.empty() ? 0 : std::stoul(length);
}

std::string Numbered(const std::string& prefix, int n, bool numbered) {
  return numbered ? prefix + std::to_string(n) : prefix;
}

FakeReply Reply(int status, std::string body, std::string type) {
  return FakeReply{status, std::move(body), std::move(type)};
}

std::string StsError(const std::string& code, const std::string& message) {
  return "<ErrorResponse xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\">\n"
         "  <Error>\n    <Type>Sender</Type>\n    <Code>" + code + "</Code>\n    <Message>" +
         message + "</Message>\n  </Error>\n"
         "  <RequestId>4a7d1e9f-0000-4000-8000-fakefakefake</RequestId>\n</ErrorResponse>\n";
}

std::string CredentialJson(const IssuedCredentials& issue, int n, bool imds) {
  return std::string("{\n") + (imds ? "  \"Code\" : \"Success\",\n  \"Type\" : \"AWS-HMAC\",\n" : "") +
         "  \"AccessKeyId\" : \"" + Numbered(issue.access_key_id, n, issue.numbered) + "\",\n" +
         "  \"SecretAccessKey\" : \"" + Numbered(issue.secret_access_key, n, issue.numbered) +
         "\",\n  \"Token\" : \"" + issue.session_token + std::to_string(n) + "\",\n" +
         "  \"Expiration\" : \"" + issue.expiration + "\"\n}";
}

}  // namespace

std::string ServedRequest::Header(const std::string& lower_name) const {
  auto it = headers.find(lower_name);
  return it == headers.end() ? "" : it->second;
}

std::string ServedRequest::Form(const std::string& name) const {
  size_t pos = 0;
  while (pos <= body.size()) {
    const size_t amp = body.find('&', pos);
    const std::string item = body.substr(pos, amp == std::string::npos ? amp : amp - pos);
    const size_t eq = item.find('=');
    if (PercentDecode(item.substr(0, eq), true) == name) {
      return eq == std::string::npos ? "" : PercentDecode(item.substr(eq + 1), true);
    }
    if (amp == std::string::npos) break;
    pos = amp + 1;
  }
  return "";
}

LoopbackHttpServer::LoopbackHttpServer(Handler handler) : handler_(std::move(handler)) {
  listen_fd_ = RawHttpServer::BoundSocket(&port_);
  ::listen(listen_fd_, 16);
  thread_ = std::jthread([this](std::stop_token stop) { Serve(stop); });
}

LoopbackHttpServer::~LoopbackHttpServer() {
  thread_.request_stop();
  ::shutdown(listen_fd_, SHUT_RDWR);
  const int conn = conn_fd_.load();
  if (conn >= 0) ::shutdown(conn, SHUT_RDWR);
  thread_.join();
  ::close(listen_fd_);
}

std::vector<ServedRequest> LoopbackHttpServer::requests() const {
  std::lock_guard<std::mutex> lock(mu_);
  return requests_;
}

void LoopbackHttpServer::Serve(std::stop_token stop) {
  while (!stop.stop_requested()) {
    const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) return;
    conn_fd_.store(fd);
    ServeOne(fd);
    conn_fd_.store(-1);
    ::close(fd);
  }
}

void LoopbackHttpServer::ServeOne(int fd) {
  std::string data;
  char buffer[8192];
  size_t head_end;
  while ((head_end = data.find("\r\n\r\n")) == std::string::npos) {
    const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
    if (n <= 0) return;
    data.append(buffer, static_cast<size_t>(n));
  }
  ServedRequest request;
  const size_t length = ParseHead(data.substr(0, head_end + 2), &request);
  request.body = data.substr(head_end + 4);
  while (request.body.size() < length) {
    const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
    if (n <= 0) return;
    request.body.append(buffer, static_cast<size_t>(n));
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    requests_.push_back(request);
  }
  const FakeReply reply = handler_(request);
  const std::string out = "HTTP/1.1 " + std::to_string(reply.status) +
                          " X\r\nContent-Type: " + reply.content_type +
                          "\r\nContent-Length: " + std::to_string(reply.body.size()) +
                          "\r\nConnection: close\r\n\r\n" + reply.body;
  (void)!::send(fd, out.data(), out.size(), MSG_NOSIGNAL);
  ::shutdown(fd, SHUT_WR);
  while (::recv(fd, buffer, sizeof buffer, 0) > 0) {
  }
}

void ScriptedFake::ReplyOnce(std::string body) {
  std::lock_guard<std::mutex> lock(mu_);
  reply_once_ = std::move(body);
}
void ScriptedFake::set_issued(IssuedCredentials issued) {
  std::lock_guard<std::mutex> lock(mu_);
  issue_ = std::move(issued);
}
int ScriptedFake::issued() const {
  std::lock_guard<std::mutex> lock(mu_);
  return issued_;
}
void ScriptedFake::SetFailures(int count, FakeReply reply) {
  std::lock_guard<std::mutex> lock(mu_);
  fail_count_ = count;
  fail_reply_ = std::move(reply);
}
std::optional<FakeReply> ScriptedFake::FailureLocked() {
  if (fail_count_ == 0) return std::nullopt;
  --fail_count_;
  return fail_reply_;
}
std::optional<FakeReply> ScriptedFake::ReplyOnceLocked(const std::string& content_type) {
  if (reply_once_.empty()) return std::nullopt;
  return Reply(200, std::exchange(reply_once_, ""), content_type);
}

FakeStsServer::FakeStsServer() : server_([this](const ServedRequest& r) { return Handle(r); }) {}

void FakeStsServer::set_web_identity_token(std::string token) {
  std::lock_guard<std::mutex> lock(mu_);
  web_identity_token_ = std::move(token);
}
void FakeStsServer::set_signing_key_id(std::string key_id) {
  std::lock_guard<std::mutex> lock(mu_);
  signing_key_id_ = std::move(key_id);
}
void FakeStsServer::Fail(int count, int status, const std::string& code,
                         const std::string& message) {
  SetFailures(count, Reply(status, StsError(code, message), "text/xml"));
}

FakeReply FakeStsServer::Handle(const ServedRequest& request) {
  std::lock_guard<std::mutex> lock(mu_);
  if (auto failure = FailureLocked()) return *failure;
  if (auto once = ReplyOnceLocked("text/xml")) return *once;
  const std::string action = request.Form("Action");
  if (request.method != "POST" || request.Form("Version") != "2011-06-15" ||
      (action != "AssumeRole" && action != "AssumeRoleWithWebIdentity")) {
    return Reply(400, StsError("InvalidAction", "Could not find operation " + action), "text/xml");
  }
  if (request.Form("RoleArn").empty() || request.Form("RoleSessionName").empty()) {
    return Reply(400, StsError("ValidationError", "RoleArn and RoleSessionName are required"),
                 "text/xml");
  }
  if (action == "AssumeRoleWithWebIdentity" &&
      request.Form("WebIdentityToken") != web_identity_token_) {
    return Reply(400, StsError("InvalidIdentityToken", "The web identity token is not valid"),
                 "text/xml");
  }
  if (action == "AssumeRole" &&
      request.Header("authorization").find("Credential=" + signing_key_id_) ==
          std::string::npos) {
    return Reply(403, StsError("InvalidClientTokenId",
                               "The security token included in the request is invalid."),
                 "text/xml");
  }
  const int n = ++issued_;
  const std::string result = action + "Result";
  const std::string body =
      "<" + action + "Response xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\">\n  <" +
      result + ">\n" +
      (action == "AssumeRoleWithWebIdentity"
           ? "    <SubjectFromWebIdentityToken>system:serviceaccount:ns:lakedump"
             "</SubjectFromWebIdentityToken>\n    <Audience>sts.amazonaws.com</Audience>\n"
           : "") +
      "    <AssumedRoleUser>\n      <Arn>" + request.Form("RoleArn") + "/" +
      request.Form("RoleSessionName") + "</Arn>\n      <AssumedRoleId>AROAFAKE:" +
      request.Form("RoleSessionName") + "</AssumedRoleId>\n    </AssumedRoleUser>\n" +
      "    <Credentials>\n      <AccessKeyId>" +
      Numbered(issue_.access_key_id, n, issue_.numbered) + "</AccessKeyId>\n" +
      "      <SecretAccessKey>" + Numbered(issue_.secret_access_key, n, issue_.numbered) +
      "</SecretAccessKey>\n      <SessionToken>" + issue_.session_token + std::to_string(n) +
      "</SessionToken>\n      <Expiration>" + issue_.expiration + "</Expiration>\n" +
      "    </Credentials>\n    <PackedPolicySize>6</PackedPolicySize>\n  </" + result + ">\n" +
      "  <ResponseMetadata>\n    <RequestId>c6104cbe-af31-11e0-8154-cbc7ccf896c7</RequestId>\n"
      "  </ResponseMetadata>\n</" + action + "Response>\n";
  return Reply(200, body, "text/xml");
}

FakeContainerServer::FakeContainerServer()
    : server_([this](const ServedRequest& r) { return Handle(r); }) {}

void FakeContainerServer::set_authorization(std::string token) {
  std::lock_guard<std::mutex> lock(mu_);
  authorization_ = std::move(token);
}
void FakeContainerServer::Fail(int count, int status, const std::string& code,
                               const std::string& message) {
  SetFailures(count, Reply(status, "{\"code\":\"" + code + "\",\"message\":\"" + message + "\"}",
                           "application/json"));
}

FakeReply FakeContainerServer::Handle(const ServedRequest& request) {
  std::lock_guard<std::mutex> lock(mu_);
  if (auto failure = FailureLocked()) return *failure;
  if (!authorization_.empty() && request.Header("authorization") != authorization_) {
    return Reply(401,
                 "{\"code\":\"AccessDenied\",\"message\":\"Authorization token is not valid\"}",
                 "application/json");
  }
  if (auto once = ReplyOnceLocked("application/json")) return *once;
  return Reply(200, CredentialJson(issue_, ++issued_, false), "application/json");
}

FakeImdsServer::FakeImdsServer() : server_([this](const ServedRequest& r) { return Handle(r); }) {}

void FakeImdsServer::set_role(std::string role) {
  std::lock_guard<std::mutex> lock(mu_);
  role_ = std::move(role);
}
void FakeImdsServer::ExpireTokens() {
  std::lock_guard<std::mutex> lock(mu_);
  valid_from_ = tokens_ + 1;
}
void FakeImdsServer::set_token_status(int status) {
  std::lock_guard<std::mutex> lock(mu_);
  token_status_ = status;
}
int FakeImdsServer::tokens_issued() const {
  std::lock_guard<std::mutex> lock(mu_);
  return tokens_;
}

void FakeImdsServer::set_on_request(std::function<void(const ServedRequest&)> hook) {
  std::lock_guard<std::mutex> lock(mu_);
  on_request_ = std::move(hook);
}

FakeReply FakeImdsServer::Handle(const ServedRequest& request) {
  std::lock_guard<std::mutex> lock(mu_);
  if (on_request_) on_request_(request);
  if (request.path == "/latest/api/token") {
    if (request.method != "PUT") return Reply(405, "", "text/plain");
    if (request.Header("x-aws-ec2-metadata-token-ttl-seconds").empty()) {
      return Reply(400, "", "text/plain");
    }
    if (token_status_ != 200) return Reply(token_status_, "", "text/plain");
    return Reply(200, "imds-session-token-" + std::to_string(++tokens_), "text/plain");
  }
  const std::string token = request.Header("x-aws-ec2-metadata-token");
  const std::string prefix = "imds-session-token-";
  const int n = token.starts_with(prefix) ? std::atoi(token.c_str() + prefix.size()) : 0;
  if (n < valid_from_ || n > tokens_) return Reply(401, "", "text/plain");
  const std::string base = "/latest/meta-data/iam/security-credentials/";
  if (request.method != "GET" || !request.path.starts_with(base)) return Reply(404, "", "text/plain");
  const std::string rest = request.path.substr(base.size());
  if (role_.empty() || (!rest.empty() && rest != role_)) return Reply(404, "", "text/plain");
  if (rest.empty()) return Reply(200, role_, "text/plain");
  if (auto once = ReplyOnceLocked("text/plain")) return *once;
  return Reply(200, CredentialJson(issue_, ++issued_, true), "text/plain");
}

}  // namespace lakedump
