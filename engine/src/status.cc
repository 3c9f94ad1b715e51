#include "solo/status.h"

namespace solo {

const std::string& Status::EmptyMessage() {
  static const std::string empty;
  return empty;
}

std::string Status::ToString() const {
  const char* name = "OK";
  switch (code()) {
    case Code::kOk: return "OK";
    case Code::kNotFound: name = "NotFound"; break;
    case Code::kAlreadyExists: name = "AlreadyExists"; break;
    case Code::kConstraint: name = "Constraint"; break;
    case Code::kInvalidArgument: name = "InvalidArgument"; break;
    case Code::kAborted: name = "Aborted"; break;
    case Code::kShutdown: name = "Shutdown"; break;
    case Code::kInternal: name = "Internal"; break;
    case Code::kIOError: name = "IOError"; break;
    case Code::kCorruption: name = "Corruption"; break;
    case Code::kCancelled:
      name = "Cancelled";
      break;
  }
  return std::string(name) + ": " + rep_->message;
}

}  // namespace solo
