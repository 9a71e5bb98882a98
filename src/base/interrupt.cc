#include "base/interrupt.h"

namespace lakedump {
namespace {

std::stop_source& Source() {
  static std::stop_source* const source = new std::stop_source();  // never destroyed
  return *source;
}

}  // namespace

std::stop_token ProcessInterruptToken() { return Source().get_token(); }

void RequestProcessInterrupt() { Source().request_stop(); }

}  // namespace lakedump
