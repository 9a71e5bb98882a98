// The process-wide interrupt: requested once by SIGINT/SIGTERM (cli::InterruptWatcher), never
// reset. Work that a command's own stop token deliberately does not cancel, because it must still
// go out after an interrupt (an S3 upload's abort, the removal of a run's lease), reads it to
// hurry: one short attempt instead of a full retry budget, so that an interrupted run ends at
// once even when the endpoint does not answer. Thread-safe.
#pragma once

#include <stop_token>

namespace lakedump {

std::stop_token ProcessInterruptToken();
void RequestProcessInterrupt();

}  // namespace lakedump
